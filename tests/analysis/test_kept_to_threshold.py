"""A measure kept to one threshold (the command line's: `measure_shards`, over one shard or several) gives the
verdict of a whole one (`measure`, the page's), and refuses any other threshold."""

from __future__ import annotations

import glob
import os
from dataclasses import replace

import pytest

from ddpcore.analysis import judge, measure, measure_loaded
from ddpcore.analysis.parted import FilesRead, measure_parts
from ddpcore.analysis.results import AnalysisError
from ddpcore.analysis.shards import Shard, measure_shards, shards_of
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.traces import read_paths, simulated_run, summary_bytes, table_of
from ddpcore.traces.keeping import Keep, KeptColumns
from ddpcore.traces.summary import SUFFIX

FIXTURES = "tests/fixtures"


def verdicts(ranks, threshold: float, shards: int) -> tuple[dict, dict]:
    """The payload of the whole measure and of the one kept to the threshold over that many shards."""
    whole = analysis_payload(judge(measure(ranks), threshold), [])
    kept = measure_shards(shards_of([table_of(r) for r in ranks], shards), threshold)
    return whole, analysis_payload(judge(kept, threshold), [])


@pytest.mark.parametrize(
    ("ranks", "steps", "p", "threshold"),
    [
        (12, 40, 0.02, 0.1),
        (40, 60, 0.05, 0.1),
        (33, 30, 0.05, 0.03),
        (200, 30, 0.15, 0.1),  # about 30 late ranks a step: more than a step's middle keeps (KEPT)
        (300, 20, 0.3, 0.05),  # about 90
        (3, 10, 0.1, 0.1),
        (2, 10, 0.1, 0.1),
    ],
)
@pytest.mark.parametrize("shards", [1, 2])
def test_kept_verdict_is_the_whole_one(ranks, steps, p, threshold, shards):
    run, _ = simulated_run(ranks, steps, persistent=(1,), p=p, seed=ranks + steps)
    whole, kept = verdicts(run, threshold, shards)
    assert kept == whole


def test_kept_steps_hold_few_entries():
    """Each step keeps its entries over the threshold, its least waits and latest launches: far fewer than its
    ranks, which is the point."""
    run, _ = simulated_run(400, 12, persistent=(5,), p=0.01, seed=3)
    kept = measure_shards([Shard(run)], 0.1)
    assert all(len(s.columns.ranks) < 100 for s in kept.steps)
    assert all(5 in s.columns.ranks for s in kept.steps)
    assert all(s.drawn == () for s in kept.steps) and kept.rank_map.steps == ()


def test_another_threshold_is_refused():
    run, _ = simulated_run(8, 20, persistent=(3,), seed=1)
    kept = measure_shards([Shard(run)], 0.1)
    assert judge(kept, 0.1).straggler_rank == 3
    with pytest.raises(ValueError, match="threshold of 0.1"):
        judge(kept, 0.2)


@pytest.mark.parametrize(
    "folder",
    sorted({os.path.dirname(os.path.relpath(f, FIXTURES)) for f in glob.glob(f"{FIXTURES}/**/*.*", recursive=True)}),
)
@pytest.mark.parametrize("threshold", [0.03, 0.1, 0.3])
def test_kept_verdict_on_real_runs(folder, threshold):
    """Every real run of the fixtures, each format apart: its warnings, parts, GPU gauges and errors."""
    for pattern in ("*.jsonl", "*.jsonl.gz", "*.pt.trace.json.gz", "*.pt.trace.json", "*.ddpsum.json.gz"):
        files = sorted(glob.glob(f"{FIXTURES}/{folder}/{pattern}"))
        if len(files) < 2:
            continue
        whole, errors = measure_loaded(read_paths(files, 1))
        half = len(files) // 2
        kept, kept_errors = measure_parts([FilesRead(files[:half], 0), FilesRead(files[half:], half)], threshold)
        assert kept_errors == errors
        if whole is None:
            assert kept is None
            continue
        assert analysis_payload(judge(kept, threshold), []) == analysis_payload(judge(whole, threshold), [])


def written(tmp_path, ranks) -> list[str]:
    for r in ranks:
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    return sorted(str(p) for p in tmp_path.glob(f"*{SUFFIX}"))


def test_a_rank_with_more_steps_is_read_again(tmp_path):
    """Slimmed where it was read, a rank keeps its own medians over all its steps (and all but a warm-up step);
    when the run's common steps are fewer, its file is read again for them: the same verdict."""
    run, _ = simulated_run(6, 24, persistent=(4,), p=0.05, seed=6)
    run = [replace(r, steps=r.steps[:20]) if r.rank else r for r in run]
    files = written(tmp_path, run)
    whole, errors = measure_loaded(read_paths(files, 1))
    kept, kept_errors = measure_parts([FilesRead(files, 0)], 0.1)
    assert kept_errors == errors == ()
    thin = read_paths(files, 1, keep=Keep.VERDICT).traces
    assert all(isinstance(t, KeptColumns) and not t.phases_ms for t in thin)
    assert list(kept.warnings) == list(whole.warnings)
    assert any(c.code == "partial" for c in kept.warnings)
    assert analysis_payload(judge(kept, 0.1), []) == analysis_payload(judge(whole, 0.1), [])


def test_a_file_changed_before_it_is_read_again_is_one_error(tmp_path):
    run, _ = simulated_run(4, 12, seed=7)
    run = [replace(r, steps=r.steps[:10]) if r.rank else r for r in run]
    files = written(tmp_path, run)
    parts = [FilesRead(files, 0)]
    (tmp_path / f"rank0{SUFFIX}").write_bytes(b"not a summary")
    measured, errors = measure_parts(parts, 0.1)
    assert measured is None
    assert errors[-1].message == str(AnalysisError("run.changed", source=files[0]))
