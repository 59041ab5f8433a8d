"""One screen, one answer: the fit panel agrees with the verdict, files of two runs are never one run, a rank-step that
cannot be measured loses nothing else, and the words and controls a new user found wrong."""

from __future__ import annotations

import gzip
import json

import pytest
from paths import FIXTURES
from runs import files
from runs import judged as analysed

from ddpcore.analysis import RunTimes, analyze, outlook
from ddpcore.analysis.verdict import prefetch_case
from ddpcore.cli import main
from ddpcore.traces import load, read_or_why
from ddpcore.traces.parse import chunked

NOISY = FIXTURES / "noise"


RUNS = [
    (NOISY / "random", "*.jsonl.gz"),  # transient stragglers
    (NOISY / "clean", "*.pt.trace.json.gz"),  # none
    (FIXTURES / "causes" / "forward", "*.jsonl.gz"),  # a persistent straggler
    (NOISY / "gc", "*.pt.trace.json.gz"),  # a pause on 2 of 8 steps
]


@pytest.mark.parametrize(("folder", "pattern"), RUNS)
def test_the_fit_and_the_verdict_give_one_answer(folder, pattern):
    a = analysed(folder, pattern)
    run = RunTimes.of_analysis(a)
    seen = outlook(run, a.threshold)
    f = seen.fit
    assert f.measured_step_ms == seen.check.measured_step_ms == seen.whatif.measured_step_ms == a.step_ms
    assert seen.whatif.step_ms == pytest.approx(a.ideal_step_ms)
    assert f.persistent_ranks == tuple(s.rank for s in sorted(a.stragglers, key=lambda s: s.rank))
    read = set(run.step_numbers)
    persistent = set(f.persistent_ranks)
    transient = sum(len(set(s.late_ranks) - persistent) for s in a.steps if s.step in read)
    on_persistent = sum(1 for t, row in enumerate(run.beyond or ()) for j in persistent if row[run.ranks.index(j)])
    assert f.slowed_rank_steps == transient + on_persistent, "the verdict's late rank-steps, and no others"
    own = seen.scale[0]
    assert own.gpus == len(a.ranks) and own.expected_step_ms == a.step_ms and own.ideal_step_ms == a.ideal_step_ms
    assert own.efficiency == pytest.approx(a.efficiency)
    assert own.gpu_hours_lost_per_day == pytest.approx(len(a.ranks) * 24 * (1 - a.efficiency))


def test_prefetching_follows_from_what_the_late_rank_does():
    """A DataLoader straggler with one rank's file missing: a `mixed` cause whose largest part is loading says what
    prefetching would save, and the figure shown is the gain."""
    a = analyze(load(files(FIXTURES / "causes" / "input", "rank[123].jsonl.gz")).traces)
    cause = a.stragglers[0].cause
    assert cause is not None and cause.main_part == "load"
    assert prefetch_case(cause, a.load_marked) == "saves" and a.prefetch_gain_ms > 5


def test_a_negative_rank_step_is_left_out_and_loses_nothing_else(tmp_path, capsys):
    """Rank 3's work at step 28 made -0.68 ms (a clock that jumped): the analysis names it in a warning, the fit is made
    without it, `--rules` is written, and `cluster --from` runs."""
    paths = [str(p) for p in sorted((NOISY / "clean").glob("*.jsonl.gz"))]
    assert main(["summarize", *paths, "-o", str(tmp_path), "--format", "json"]) == 0
    three = tmp_path / "rank3.ddpsum.json.gz"
    summary = json.loads(gzip.decompress(three.read_bytes()))
    column = summary["columns"].index("work_ms")
    row = next(r for r in summary["steps"] if r[0] == 28)
    row[column] = -0.68
    three.write_bytes(gzip.compress(json.dumps(summary).encode()))
    summaries = sorted(str(p) for p in tmp_path.glob("*.ddpsum.json.gz"))
    capsys.readouterr()
    assert main(["analyze", *summaries, "--fit", "--rules", str(tmp_path / "rules"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("rank 3, step 28, -0.68 ms" in w for w in out["warnings"])
    assert out["fit"]["unmeasured"] == [[3, 28]] and "unmeasured" in out["fit"]["caveats"]
    assert (tmp_path / "rules" / "ddp-rules.yml").exists() and out["stragglers"] == []
    assert main(["cluster", "--from", *summaries, "--json"]) == 0


def test_a_run_that_cannot_be_fitted_keeps_its_analysis(tmp_path, capsys):
    """One step of four ranks is analysed but cannot be fitted: the analysis is printed and its rules written all the
    same, the fit's failure one line (exit 1)."""
    for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz")):
        rows = [r for r in gzip.decompress(p.read_bytes()).decode().splitlines() if json.loads(r)["step"] in (0, 1)]
        (tmp_path / p.name).write_bytes(gzip.compress("\n".join(rows).encode()))
    paths = sorted(str(p) for p in tmp_path.glob("*.jsonl.gz"))
    capsys.readouterr()
    assert main(["analyze", *paths, "--fit", "--json", "--rules", str(tmp_path / "rules")]) == 1
    got = capsys.readouterr()
    out = json.loads(got.out)
    assert out["steps"][0]["slowest_rank"] == 2 and "two steps" in out["fit_error"] and "fit" not in out
    assert (tmp_path / "rules" / "ddp-rules.yml").exists() and got.err.count("\n") == 1


def test_a_negative_step_duration_is_named():
    d = json.loads(gzip.decompress((NOISY / "clean" / "rank0.pt.trace.json.gz").read_bytes()))
    for e in d["traceEvents"]:
        if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") == "user_annotation":
            e["dur"] = -e["dur"]
    error = read_or_why("r0.json", chunked(json.dumps(d).encode()))
    assert "'dur' is -" in error.message and "ProfilerStep#22" in error.message
    assert "no host ProfilerStep" not in error.message
