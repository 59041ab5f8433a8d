"""bench/results.json and bench/README.md from the figures: each budget's verdict, the page's and the core's
figures, and the causes found when budgets failed (causes.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripts.bench.budgets import BUDGETS, NOT_MEASURED

__all__ = ["lookup", "scale_lines", "write_report"]

CAUSES = Path(__file__).with_name("causes.md")


def lookup(results: dict, path: tuple[str, ...]) -> float | None:
    """The figure at `path` in the results; None where the bench did not measure it (a run skipped, or `bench
    --scale` never run).

    >>> lookup({"page": {"transfer_mb": 20}}, ("page", "transfer_mb")), lookup({}, ("scale", "x"))
    (20.0, None)
    """
    value: Any = results
    for key in path:
        if not isinstance(value, dict) or key not in value or value[key] is None:
            return None
        value = value[key]
    return float(value)


def merge_into(out: Path, key: str, figures: dict) -> None:
    """Put one family of figures under `key` in `out`/results.json, keeping the others, and write the report again
    when the main bench wrote one (`--scale`, `--verdict` run apart from it)."""
    path = out / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results[key] = figures
    out.mkdir(parents=True, exist_ok=True)
    if "meta" in results:
        write_report(results, out)
    else:
        path.write_text(json.dumps(results, indent=2))


def write_report(results: dict, out: Path) -> None:
    """Write `out`/results.json and `out`/README.md."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    lines = [
        "# Benchmark",
        "",
        f"Written by `python build.py bench` on {results['meta']['date']} ({results['meta']['machine']}).",
        "Figures are medians of repeated runs; machines are noisy, so these are figures, not test assertions.",
        f"This machine ran the native core timings {results['meta']['machine_slowdown']:.2f}x as long as the machine "
        "of the earlier runs (`REFERENCE_NATIVE_MS` in scripts/bench/budgets.py): read its milliseconds against the "
        "budgets with that in mind; ratios measured within one run do not depend on it.",
        "",
        "| budget | figure | limit | verdict |",
        "|---|---|---|---|",
    ]
    for budget in BUDGETS:
        figure = lookup(results, budget.path)
        if figure is None:
            lines.append(f"| {budget.name} | not measured | {budget.bound} {budget.limit:g} {budget.unit} | — |")
            continue
        shown = f"{figure:.3g}" if not budget.unit else f"{figure:.2f} {budget.unit}"
        verdict = "pass" if budget.holds(figure) else "FAIL"
        lines.append(f"| {budget.name} | {shown} | {budget.bound} {budget.limit:g} {budget.unit} | {verdict} |")
    page = results["page"]
    lines += [
        "",
        "| page figure | ours | bare PyScript page |",
        "|---|---|---|",
        f"| first paint, cold / warm (ms) | {page['first_paint_ms']['cold']:.0f} / "
        f"{page['first_paint_ms']['warm']:.0f} | "
        f"{page['bare']['first_paint_ms']['cold']:.0f} / {page['bare']['first_paint_ms']['warm']:.0f} |",
        f"| ready (html.ready), cold / warm (ms) | {page['ready_ms']['cold']:.0f} / {page['ready_ms']['warm']:.0f} | "
        f"{page['bare']['ready_ms']['cold']:.0f} / {page['bare']['ready_ms']['warm']:.0f} |",
        f"| ready without the snapshot, cold / warm (ms) | {page['ready_no_snapshot_ms']['cold']:.0f} / "
        f"{page['ready_no_snapshot_ms']['warm']:.0f} | |",
        f"| inside loadPyodide, cold / warm (ms) | {page['load_pyodide_ms']['cold']:.0f} / "
        f"{page['load_pyodide_ms']['warm']:.0f} (without the snapshot "
        f"{page['load_pyodide_no_snapshot_ms']['cold']:.0f} / {page['load_pyodide_no_snapshot_ms']['warm']:.0f}) | "
        f"{page['bare']['load_pyodide_ms']['cold']:.0f} / {page['bare']['load_pyodide_ms']['warm']:.0f} |",
        f"| transfer, cold load (bytes) | {page['transfer_bytes']:,.0f} (snapshot {page['snapshot_bytes']:,.0f}) | |",
        "",
        "| interaction | p50 (ms) | p95 (ms) |",
        "|---|---|---|",
        *(f"| input latency, {k} | {v['p50']:.1f} | {v['p95']:.1f} |" for k, v in page["input_latency_ms"].items()),
        f"| frame interval during play | {page['play']['frame_interval_ms']['p50']:.1f} | "
        f"{page['play']['frame_interval_ms']['p95']:.1f} |",
        "",
        f"Heap: {page['heap_mb']['after_5s']:.1f} MB after 5 s of play, {page['heap_mb']['after_60s']:.1f} MB "
        f"after 60 s.",
    ]
    lines += ["", "| core timing | native median (ms) | Pyodide median (ms) |", "|---|---|---|"]
    for key in results["native"]:
        lines.append(
            f"| {key} | {results['native'][key]['median_ms']:.3f} | {results['pyodide'][key]['median_ms']:.3f} |"
        )
    lines += scale_lines(results.get("scale"))
    if NOT_MEASURED:
        lines += ["", "Not measured yet:", "", *(f"- {item}" for item in NOT_MEASURED)]
    lines += ["", CAUSES.read_text().rstrip("\n")]
    (out / "README.md").write_text("\n".join(lines) + "\n")


def scale_lines(scale: dict | None) -> list[str]:
    """The `bench --scale` figures as a table: each run's seconds, peak memory, bytes on disk and cost a rank-step.

    >>> scale_lines(None)[1]
    '`python build.py bench --scale` has not been run on this build.'
    """
    if not scale:
        return ["", "`python build.py bench --scale` has not been run on this build."]
    lines = [
        "",
        f"`python build.py bench --scale` (machine {scale.get('cpu_factor', 0):.2f}x the reference's time at the "
        'start; "machine then": the same measure taken just before and just after that run\'s `analyze`, '
        "averaged, and its time divided by it; the budgets judge the time as measured. Peak: the largest sum, over "
        "`analyze` and the processes it forks, of each one's proportional set size):",
        "",
        "| summaries | analyze (s) | machine then | at the reference's speed (s) | peak (MB) | bytes a rank-step "
        "| µs a rank-step | straggler named |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, run in scale.items():
        if not key.startswith("ranks_"):
            continue
        if "skipped" in run:
            lines.append(f"| {int(key[6:]):,} ranks | skipped: {run['skipped']} | | | | | | |")
            continue
        factor = run.get("cpu_factor_around")
        then = f"{factor:.2f}x | {run['analyze_s_at_reference']:.1f}" if factor else "— | —"
        lines.append(
            f"| {run['ranks']:,} ranks x {run['steps']:,} steps | {run['analyze_s']:.1f} | {then} | "
            f"{run['peak_mb']:.0f} | {run['bytes_per_rank_step']:.1f} | {run['us_per_rank_step']:.2f} | "
            f"{run['named_right']} |"
        )
    page = scale.get("page_10000")
    if page:
        lines += [
            "",
            f"The page given 10,000 ranks x 1,000 steps answered in {page['seconds']:.1f} s "
            f"({'refused, naming the command to run' if page['refused'] else 'drawn'}; {page['long_tasks']} long "
            f"tasks): {page['answer']}",
        ]
    return lines + ray_lines(scale.get("ray"))


def ray_lines(ray: dict | None) -> list[str]:
    """`analyze --ray` over two Ray nodes on this machine, a row a size: seconds against `analyze` alone, each
    process's peak memory, the bytes between them, and whether the verdict is `analyze`'s; a size not run says why.

    >>> ray_lines({"sizes": {"1e8": {"skipped": "too large"}}})[-1]
    '| 1e8 | skipped: too large | | | | | |'
    """
    if not ray:
        return []
    lines = [
        "",
        "`analyze --ray` over two Ray nodes started on this machine (`ray.cluster_utils.Cluster`; they share its two "
        "cores), each node given half the files:",
        "",
        "| rank-steps | merge (s) | against `analyze` alone | driver's peak (MB) | each node's peak (MB) "
        "| bytes between | same verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, run in ray.get("sizes", {}).items():
        if "skipped" in run or "error" in run:
            lines.append(
                f"| {name} | {'skipped: ' + run['skipped'] if 'skipped' in run else 'failed: ' + run['error']} "
                "| | | | | |"
            )
            continue
        nodes = ", ".join(f"{mb:.0f}" for mb in run["actor_mb"])
        lines.append(
            f"| {name} | {run['analyze_s']:.1f} | {run['against_analyze']:.2f}x | {run['driver_mb']:.0f} | {nodes} | "
            f"{run['bytes_between'] / 1e6:.0f} MB | {run['same_as_analyze']} |"
        )
    return lines
