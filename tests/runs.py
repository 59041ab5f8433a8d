"""Runs for the tests: a fixture's files as the readers take them, a run judged, and small JSONL runs made from
each step's arrivals."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from paths import FIXTURES

from ddpcore.analysis import Analysis, JobWhatIf, analyze, job_whatif, judge, measure_loaded
from ddpcore.analysis.jobwhatif import job_times, job_verdict
from ddpcore.traces import load, read_job

STEP_S = 0.1
"""The step of the runs `jsonl_run` makes (s)."""
FORMATS = ["*.jsonl.gz", "*.pt.trace.json.gz"]
"""The two recordings of every real run: the project's JSONL of every step, and the profiler's window."""


def files(folder: Path | str, pattern: str) -> list[tuple[str, bytes]]:
    """A folder's files matching `pattern`, sorted, as (name, bytes); a str folder is one of tests/fixtures."""
    where = folder if isinstance(folder, Path) else FIXTURES / folder
    return [(p.name, p.read_bytes()) for p in sorted(where.glob(pattern))]


def judged(folder: Path | str, pattern: str) -> Analysis:
    """The run in a folder measured (every file readable, the run measurable) and judged at the default threshold."""
    measured, errors = measure_loaded(load(files(folder, pattern)))
    assert measured is not None and errors == ()
    return judge(measured)


def analysed(folder: Path | str, pattern: str) -> Analysis:
    """The run in a folder analysed, every file readable."""
    loaded = load(files(folder, pattern))
    assert loaded.errors == ()
    return analyze(loaded.traces)


@dataclass(frozen=True)
class RunSet:
    """A folder of real runs, one sub-folder each with its `truth.json` (tests/make_traces.py)."""

    folder: Path

    def analysed(self, name: str, pattern: str) -> Analysis:
        """One run analysed."""
        return analysed(self.folder / name, pattern)

    def truth(self, name: str) -> dict:
        """One run's truth: what was injected and each iteration's wall time."""
        return json.loads((self.folder / name / "truth.json").read_text())

    def struck_share(self, name: str, steps: Sequence[int]) -> float:
        """The share of the steps in which some rank slept (the truth's `slowed` pairs; a verdict's step k is the
        truth's iteration k)."""
        struck = {s for s, _ in self.truth(name)["slowed"]}
        return sum(s in struck for s in steps) / len(steps)

    def names_the_slow_ranks(self, name: str, pattern: str) -> bool:
        """Whether a run whose ranks `fixed_ranks` slept in every step names those ranks persistent stragglers, and
        counts no step transient."""
        a = self.analysed(name, pattern)
        slow = sorted(s.rank for s in a.stragglers) == sorted(self.truth(name)["fixed_ranks"])
        return slow and a.transient.straggler_steps == 0


def names_nobody(a: Analysis) -> bool:
    """Whether a verdict names no straggler, counts no transient step and costs nothing: a clean run's."""
    return not a.stragglers and a.transient.straggler_steps == 0 and a.straggler_cost_ms == 0.0


def shifted(data: bytes, by_s: float) -> bytes:
    """A gzipped JSONL trace whose rank's clock is off by `by_s` seconds (plain JSONL out)."""
    rows = [json.loads(line) for line in gzip.decompress(data).decode().splitlines() if line]
    moved = [{**r, "start": r["start"] + by_s, "end": r["end"] + by_s} for r in rows]
    return "\n".join(json.dumps(r) for r in moved).encode()


def jsonl_run(arrivals: list[list[float]]) -> list[tuple[str, bytes]]:
    """JSONL files, one per rank, from each step's arrival (s from the step's start) per rank; every rank leaves the
    AllReduce at 80 % of a 100 ms step, as a barrier makes them. Steps are numbered from 1 (no warm-up step)."""
    out = []
    for rank in range(len(arrivals[0])):
        rows = []
        for n, row in enumerate(arrivals, start=1):
            t = n * STEP_S
            a = row[rank]
            rows += [
                {"rank": rank, "step": n, "phase": "forward", "start": t, "end": t + a / 2},
                {"rank": rank, "step": n, "phase": "backward", "start": t + a / 2, "end": t + a + 0.001},
                {"rank": rank, "step": n, "phase": "allreduce", "start": t + a, "end": t + 0.08},
                {"rank": rank, "step": n, "phase": "optimizer", "start": t + 0.08, "end": t + STEP_S},
            ]
        out.append((f"rank{rank}.jsonl", "\n".join(json.dumps(r) for r in rows).encode()))
    return out


def real_sets() -> list[list[Path]]:
    """Every real run the repository keeps, in each recording it has (two ranks at least); 3D-parallel jobs (the
    jobs3d folders: a job's operations, or its pipeline ranks' traces) are not DDP runs."""
    sets = []
    jobs = [p for p in FIXTURES.iterdir() if p.name.startswith("jobs3d")]
    assert len(jobs) >= 5
    for folder in sorted({p.parent for p in FIXTURES.rglob("*.gz") if not any(j in p.parents for j in jobs)}):
        some = [sorted(folder.glob(p)) for p in ("*.jsonl.gz", "*.pt.trace.json.gz", "*.ddpsum.json.gz")]
        some = [found for found in some if len(found) >= 2] or [sorted(folder.glob("*.json.gz"))]
        sets += [found for found in some if len(found) >= 2]
    return sets


def sampled_sets() -> list[list[Path]]:
    """`real_sets`, the first of each fixture family (its top folder) in each format: every reader and every kind of
    run, where a check costs seconds a set."""
    first: dict[tuple[str, str], list[Path]] = {}
    for found in real_sets():
        family = found[0].relative_to(FIXTURES).parts[0]
        first.setdefault((family, "".join(found[0].suffixes)), found)
    return list(first.values())


@cache
def job_run(folder: Path, name: str) -> tuple[JobWhatIf, dict]:
    """A recorded job's what-if (the run's `*.gz` files read as `analyze` reads them) and its truth.json."""
    files = {p.name: p.read_bytes() for p in sorted((folder / name).glob("*.gz"))}
    job = read_job(files)
    truth = json.loads((folder / name / "truth.json").read_text())
    return job_whatif(job_times(job.table, job.groups)), truth


def names_the_slow_worker(w: JobWhatIf, truth: dict) -> bool:
    """Whether the job's verdict says first that the worker truth.json slowed is slow, in the operation slowed."""
    said = job_verdict(w)
    values = dict(said[0].values)
    slowed = truth["slowed"]
    return (
        said[0].code == "job.worker"
        and [values["dp"], values["stage"]] == slowed["workers_dp_stage"][0]
        and values["parts"][0] == slowed["op"]
    )
