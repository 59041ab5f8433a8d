"""python build.py bench --jobs3d [--artifact DIR]: ddpcore's what-if of a 3D-parallel job against the OSDI 2025
artifact's own scripts, side by side on the same three published traces (tests/fixtures/jobs3d), in one run.

The artifact (a checkout of ByteDance-Seed/StragglerAnalysis given as DIR; its code is never copied here) gives S
and its splits with `analyzer/wia.py`, then M_S with `compute_ms.py` and M_W with `compute_mw.py`, each a process of
its own; ddpcore gives all of them in one `python -m ddpcore analyze`. Both are timed as the user runs them (wall
time of the processes, best of REPEATS). The artifact's needs (pandas < 3, which it was written for, pyarrow, numpy,
pyyaml, tqdm, ujson) are installed from PyPI into a bench-only environment, never ddpcore's. Without DIR, ddpcore is
timed alone and the comparison is said to be missing. With DIR, the page also answers the published SE (128 ranks)
from the artifact's Chrome timeline (the page reads no Parquet; the timeline is 2.4 MB, not kept in
tests/fixtures): seconds from the drop to the job's panel and main-thread long tasks meanwhile. Figures go under
`jobs3d` in bench/results.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import build
from scripts.bench.report import merge_into

ROOT = Path(__file__).resolve().parents[2]
JOBS = ROOT / "tests" / "fixtures" / "jobs3d"
TRACES = ("AR", "ST", "SE")
REPEATS = 3
ARTIFACT_NEEDS = ("pandas<3", "pyarrow", "numpy", "pyyaml", "tqdm", "ujson")
"""What the artifact imports, from PyPI (pandas 3 changed copy semantics under it: its wia.py fails there)."""


def _timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """The wall time of one process, which must succeed."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


PLAIN_ENV = {"PATH": "/usr/bin:/bin"}
"""The environment both sides run in, as a user's shell gives it: nothing of the bench's own (its
PYTHONDONTWRITEBYTECODE would make ddpcore compile its modules at every run, where an installed package, and the
artifact's scripts here, read them compiled)."""


def ddpcore_seconds(name: str) -> float:
    """ddpcore's `analyze` of a published trace, best of REPEATS (the first also compiles its modules once)."""
    argv = [
        sys.executable,
        "-m",
        "ddpcore",
        "analyze",
        str(JOBS / f"trace-{name}.parquet"),
        str(JOBS / f"meta-{name}.yaml"),
    ]
    return min(_timed(argv, ROOT, PLAIN_ENV) for _ in range(REPEATS))


def artifact_python(venv: Path) -> Path:
    """The bench-only environment's Python, made and filled from PyPI when missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *ARTIFACT_NEEDS], check=True)
    return python


def artifact_seconds(python: Path, artifact: Path, name: str) -> dict[str, float]:
    """The artifact's three scripts on a published trace (each its best of REPEATS), and their sum."""
    env = PLAIN_ENV | {"PYTHONPATH": str(artifact)}
    parts: dict[str, list[float]] = {"wia": [], "ms": [], "mw": []}
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as work:
            out = Path(work)
            meta, trace = JOBS / f"meta-{name}.yaml", JOBS / f"trace-{name}.parquet"
            parts["wia"].append(
                _timed(
                    [
                        str(python),
                        "analyzer/wia.py",
                        "--metadata",
                        str(meta),
                        "--trace",
                        str(trace),
                        "--dump-dir",
                        str(out),
                        "--root",
                        str(out),
                    ],
                    artifact,
                    env,
                )
            )
            result = out / f"{name}.json"
            for key, script in (("ms", "compute_ms.py"), ("mw", "compute_mw.py")):
                parts[key].append(
                    _timed(
                        [
                            str(python),
                            f"analyzer/{script}",
                            "--trial",
                            name,
                            "--dump-dir",
                            str(out),
                            "--analysis-result",
                            str(result),
                            "--root",
                            str(out),
                        ],
                        artifact,
                        env,
                    )
                )
    best = {k: min(v) for k, v in parts.items()}
    return {**best, "total": sum(best.values())}


PAGE_TRACE = "SE"
"""The published trace the page answers in the bench: the largest job (128 ranks, DP 32)."""


def page_figures(dist: Path, artifact: Path) -> dict:
    """The artifact's timeline of PAGE_TRACE and its meta file dropped into Your traces of the built page `dist`:
    seconds from the drop to the job's panel (the reading worker's start included), the main thread's long tasks
    (> 50 ms) meanwhile, and S as the page shows it against ddpcore's native figure of the same file."""
    from playwright.sync_api import sync_playwright

    from ddpcore.analysis import job_whatif
    from ddpcore.analysis.jobwhatif import job_times
    from ddpcore.traces import read_job
    from scripts.bench.probes import AFTER_PICK, traces_page

    timeline = artifact / "data" / f"timeline-{PAGE_TRACE}.json.gz"
    meta = JOBS / f"meta-{PAGE_TRACE}.yaml"
    job = read_job({p.name: p.read_bytes() for p in (timeline, meta)})
    native = job_whatif(job_times(job.table, job.groups, job.transfers_drawn)).slowdown
    server, url = build.serve_in_thread(dist)
    try:
        with sync_playwright() as p:
            browser, page = traces_page(p, url)
            page.wait_for_timeout(1000)
            start = time.perf_counter()
            page.set_input_files("[data-testid=trace-files]", [str(timeline), str(meta)])
            page.wait_for_selector("[data-testid=job-panel]", timeout=300_000)
            seconds = time.perf_counter() - start
            page.wait_for_timeout(1000)
            long_tasks = page.evaluate(AFTER_PICK)
            shown = float(page.get_attribute("[data-testid=job-slowdown]", "data-value") or "nan")
            browser.close()
    finally:
        server.shutdown()
    return {
        "trace": PAGE_TRACE,
        "page_s": seconds,
        "page_long_tasks": len(long_tasks),
        "page_long_task_ms": long_tasks,
        "page_slowdown": shown,
        "native_slowdown": native,
    }


def jobs3d_figures(artifact: Path | None, venv: Path, dist: Path | None = None) -> dict:
    """Each trace's seconds for ddpcore and, with the artifact, its scripts and the ratio; the smallest ratio."""
    python = artifact_python(venv) if artifact is not None else None
    figures: dict = {"traces": {}}
    for name in TRACES:
        ours = ddpcore_seconds(name)
        row: dict = {"ddpcore_s": ours}
        if artifact is not None and python is not None:
            theirs = artifact_seconds(python, artifact, name)
            row |= {"artifact_s": theirs["total"], "artifact_parts_s": theirs, "speedup": theirs["total"] / ours}
        figures["traces"][name] = row
        print(name, json.dumps(row), flush=True)
    ratios = [r["speedup"] for r in figures["traces"].values() if "speedup" in r]
    figures["speedup_min"] = min(ratios) if ratios else None
    figures["artifact"] = "measured" if ratios else "not given (--artifact DIR): ddpcore timed alone"
    if artifact is not None and dist is not None:
        figures["page"] = page_figures(dist, artifact)
        print("page", json.dumps(figures["page"]), flush=True)
    return figures


def main(dist: Path, out: Path, artifact: Path | None) -> int:
    """Measure and write under `jobs3d` in `out`/results.json (the page's figures on the built site `dist`)."""
    figures = jobs3d_figures(artifact, out.resolve() / ".artifact-venv", dist)
    merge_into(out, "jobs3d", figures)
    print(json.dumps({k: v for k, v in figures.items() if k != "traces"}, indent=2))
    return 0


if __name__ == "__main__":
    args = sys.argv[2:]
    given = Path(args[args.index("--artifact") + 1]) if "--artifact" in args else None
    sys.exit(main(Path(sys.argv[1]), Path(args[0]), given))
