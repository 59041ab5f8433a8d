"""python build.py bench: core timings natively and in Pyodide; writes bench/results.json and bench/README.md."""

from __future__ import annotations

import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402
from ddpcore import benchmark  # noqa: E402

BUDGETS = {
    # name: (figure path, limit, unit)
    "cluster 1e6 GPUs, native": (("native", "cluster_1e6", "median_ms"), 20.0, "ms"),
    "cluster 1e6 GPUs, Pyodide": (("pyodide", "cluster_1e6", "median_ms"), 50.0, "ms"),
    "cluster sweep (ring + tree), Pyodide, no long task": (("pyodide", "cluster_sweep_both", "median_ms"), 50.0, "ms"),
}

BENCH_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ddpcore bench</title>
<script type="module" src="./pyscript/core.js"></script></head><body><pre id="result"></pre>
<mpy-config type="json">{"plugins": %s}</mpy-config>
<script type="py" config="./bench-config.json">
import json
from pyscript import document
from ddpcore import benchmark
document.getElementById("result").textContent = json.dumps(benchmark.run())
</script></body></html>"""


def pyodide_timings(dist: Path) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        config = json.loads((dist / "config.json").read_text())
        config["files"]["./py/ddpcore/benchmark.py"] = "./ddpcore/benchmark.py"
        shutil.copy2(ROOT / "ddpcore" / "benchmark.py", site / "py" / "ddpcore" / "benchmark.py")
        (site / "bench-config.json").write_text(json.dumps(config))
        (site / "bench.html").write_text(BENCH_PAGE % json.dumps(build.PYSCRIPT_PLUGINS_OFF))
        server, url = build.serve_in_thread(site)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**build.chromium_launch_options())
                page = browser.new_page()
                page.goto(url + "bench.html")
                page.wait_for_function("document.getElementById('result').textContent.length > 0", timeout=120_000)
                result = json.loads(page.text_content("#result"))
                browser.close()
        finally:
            server.shutdown()
    return result


def lookup(results: dict, path: tuple[str, ...]) -> float:
    value = results
    for key in path:
        value = value[key]
    return float(value)


def write_report(results: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    lines = [
        "# Benchmark",
        "",
        f"Written by `python build.py bench` on {results['meta']['date']} ({results['meta']['machine']}).",
        "Figures are medians of repeated runs; machines are noisy, so these are figures, not test assertions.",
        "",
        "| budget | figure | limit | verdict |",
        "|---|---|---|---|",
    ]
    for name, (path, limit, unit) in BUDGETS.items():
        figure = lookup(results, path)
        lines.append(f"| {name} | {figure:.2f} {unit} | ≤ {limit:g} {unit} | {'pass' if figure <= limit else 'FAIL'} |")
    lines += ["", "| core timing | native median (ms) | Pyodide median (ms) |", "|---|---|---|"]
    for key in results["native"]:
        lines.append(f"| {key} | {results['native'][key]['median_ms']:.3f} | {results['pyodide'][key]['median_ms']:.3f} |")
    (out / "README.md").write_text("\n".join(lines) + "\n")


def main(dist: Path, out: Path) -> int:
    results = {
        "meta": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"},
        "native": benchmark.run(),
        "pyodide": pyodide_timings(dist),
    }
    write_report(results, out)
    print((out / "README.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
