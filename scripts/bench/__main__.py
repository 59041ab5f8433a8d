"""python build.py bench: the page's and the core's figures, natively and in Pyodide, against the budgets
(budgets.py); writes bench/results.json and bench/README.md. One module per family of figures: start (the page's
start and controls), in_pyodide and core_timings (the core), native and reads (the traces path, natively and in
the page); probes holds what they inject into pages."""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

from scripts.bench import core_timings
from scripts.bench.budgets import HALF, SLOW, STREAM_MB, machine_slowdown
from scripts.bench.in_pyodide import pyodide_timings
from scripts.bench.native import stream_figures, summaries_figures
from scripts.bench.reads import long_run_figures, page_parse_figures, summaries_page_figures
from scripts.bench.report import write_report
from scripts.bench.start import page_figures
from scripts.tracegen import generated_trace


def main(dist: Path, out: Path, quick: bool = False) -> int:
    """Measure every family of figures on the built site `dist` and write the report to `out`."""
    trace = generated_trace(STREAM_MB * 1024 * 1024)
    results = {
        "page": page_figures(dist, quick),
        "meta": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        },
        "native": core_timings.run(),
        "pyodide": pyodide_timings(dist, trace),
        "stream": stream_figures(trace),
    }
    results["meta"]["machine_slowdown"] = machine_slowdown(results["native"])
    stream = results["stream"]
    stream["pyodide_vs_native_stream"] = stream["stream_s"] / results["pyodide"].pop("stream_s")
    results["summaries"] = summaries_figures()
    results["summaries_page"] = summaries_page_figures(dist)
    results["page_parse"] = page_parse_figures(dist, trace)
    stream["page_parse_long_tasks"] = results["page_parse"]["page_parse_long_tasks"]
    stream["page_parse_input_p95_ratio"] = results["page_parse"]["page_parse_input_p95_ratio"]
    results["long_run"] = long_run_figures(dist)
    half_parse, half_summaries = page_parse_figures(dist, trace, HALF), summaries_page_figures(dist, HALF)
    results["throttled"] = {
        f"rate{HALF}": {
            "page_parse_long_tasks": half_parse["page_parse_long_tasks"],
            "page_parse_long_task_ms": half_parse["long_task_ms"],
            "summaries_4096_long_tasks": half_summaries["summaries_4096_long_tasks"],
            "summaries_4096_long_task_ms": half_summaries["long_task_ms"],
        },
        f"rate{SLOW}": {"input_p95_ms": results["page"]["throttled_input_ms"]["p95"]},
    }
    earlier = out / "results.json"
    if earlier.exists():
        results["scale"] = json.loads(earlier.read_text()).get("scale")
    write_report(results, out)
    print((out / "README.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), "--quick" in sys.argv[3:]))
