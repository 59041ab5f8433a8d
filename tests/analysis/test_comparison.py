"""`compare`: a run before and after a fix, on pairs of real runs whose answer is known.

- a slow input fixed: `causes/input` (rank 2 sleeps 20 ms in its Dataset) then `causes/clean`, the same job;
- a slow rank fixed: `ddp8/s2.0` (rank 2 twice as slow from step 8) then `ddp8/s1.0`;
- a fix that does nothing: the first and the second half of the steps of one run;
- a fix that moves the straggler: `ddp8/s2.0`, then the same run with ranks 2 and 5 swapped.
"""

from __future__ import annotations

import gzip
import json

import pytest
from paths import FIXTURES
from runs import FORMATS, files

from ddpcore.analysis import analyze, compare
from ddpcore.cli import main
from ddpcore.traces import load


def rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(data).decode().splitlines() if line.strip()]


def jsonl(rows_: list[dict]) -> bytes:
    return gzip.compress("\n".join(json.dumps(r) for r in rows_).encode())


def steps_of(run: list[tuple[str, bytes]], keep) -> list[tuple[str, bytes]]:
    """The run's JSONL with only the steps `keep` accepts."""
    return [(name, jsonl([r for r in rows(data) if keep(r["step"])])) for name, data in run]


def swapped(run: list[tuple[str, bytes]], a: int, b: int) -> list[tuple[str, bytes]]:
    """The run's JSONL with ranks a and b trading places."""
    other = {a: b, b: a}
    return [
        (f"swapped-{name}", jsonl([{**r, "rank": other.get(r["rank"], r["rank"])} for r in rows(data)]))
        for name, data in run
    ]


def compared(before, after):
    return compare(analyze(load(before).traces), analyze(load(after).traces))


def truth_change(before: str, after: str, first: int = 5) -> float:
    """The mean iteration wall time after minus before, from the runs' truth (`step_ms`: every rank's wall time of
    each iteration), from the step the delay starts on."""
    means = []
    for folder in (before, after):
        walls = json.loads((FIXTURES / folder / "truth.json").read_text())["step_ms"]
        values = [ms for per_rank in walls.values() for ms in per_rank[first:]]
        means.append(sum(values) / len(values))
    return means[1] - means[0]


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_slow_input_fixed_goes_and_the_whatif_comes_within_20_percent(pattern):
    c = compared(files("causes/input", pattern), files("causes/clean", pattern))
    assert c.stragglers.went == (2,) and c.stragglers.after == () and not c.within_noise
    assert c.step_ms.change < 0 and c.step_ms.ci95[1] < 0
    predicted = c.whatif.predicted_step_ms - c.step_ms.before
    assert predicted == pytest.approx(truth_change("causes/input", "causes/clean"), rel=0.2)
    assert predicted == pytest.approx(c.step_ms.change, rel=0.2)
    rank2 = next(r for r in c.ranks if r.rank == 2)
    assert rank2.cause_before == "load" and rank2.cause_after is None
    assert c.parts_ms["load"][0] > 10 > c.parts_ms["load"][1]


def test_a_slow_rank_fixed_is_the_measured_cost():
    c = compared(files("ddp8/s2.0", "*.jsonl.gz"), files("ddp8/s1.0", "*.jsonl.gz"))
    assert c.stragglers.went == (2,) and c.stragglers.appeared == ()
    assert c.whatif.measured_step_ms == pytest.approx(c.whatif.predicted_step_ms, rel=0.1)
    assert c.median_step_ms.change == pytest.approx(38.7 - 59.1, abs=3)  # the runs' truth: median steps


def test_a_fix_that_does_nothing_is_within_noise():
    run = files("ddp8/s2.0", "*.jsonl.gz")
    c = compared(steps_of(run, lambda n: 8 <= n < 24), steps_of(run, lambda n: n >= 24))
    assert c.within_noise and c.median_step_ms.within_noise
    assert c.stragglers.stayed == (2,) and c.stragglers.went == c.stragglers.appeared == ()


def test_a_fix_that_moves_the_straggler_says_where():
    run = files("ddp8/s2.0", "*.jsonl.gz")
    c = compared(run, swapped(run, 2, 5))
    assert c.stragglers.went == (2,) and c.stragglers.appeared == (5,) and c.stragglers.stayed == ()
    assert c.within_noise
    assert c.whatif.tests == "none"


def test_runs_of_different_sizes_are_compared_without_ranks():
    c = compared(files("ddp8/s2.0", "*.jsonl.gz"), files("ddp4", "*.jsonl.gz"))
    assert c.ranks == () and any(n.code == "compare.world" for n in c.notes)


def test_the_command_gives_the_keys_and_one_line_for_a_bad_set(tmp_path, capsys):
    before = [str(p) for p in sorted((FIXTURES / "causes/input").glob("*.jsonl.gz"))]
    after = [str(p) for p in sorted((FIXTURES / "causes/clean").glob("*.jsonl.gz"))]
    assert main(["compare", *before, "--", *after, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["step_ms"]) == {"before", "after", "change", "change_ci95"}
    assert set(out["median_step_ms"]) == set(out["step_ms"])
    assert out["within_noise"] is False
    assert out["stragglers"] == {"before": [2], "after": [], "went": [2], "stayed": [], "appeared": []}
    assert {r["rank"] for r in out["ranks"]} == {0, 1, 2, 3}
    assert set(out["ranks"][2]) == {"rank", "lateness_ms", "cause"}
    assert set(out["whatif"]) >= {"predicted_step_ms", "measured_step_ms", "error"}
    assert set(out["parts_ms"]["load"]) == {"before", "after"}
    assert main(["compare", *before, "--after", *after]) == 0
    assert "went: rank 2" in capsys.readouterr().out
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    assert main(["compare", *before, "--", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "notes.txt" in err and "Traceback" not in err


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_recorded_slow_input_prefetched_goes_and_the_whatif_comes_within_20_percent(pattern):
    """tests/fixtures/pairs (one sitting): rank 2's Dataset sleeps 20 ms a batch, then the same input is loaded
    ahead by two DataLoader workers."""
    c = compared(files("pairs/input_slow", pattern), files("pairs/input_prefetched", pattern))
    assert c.stragglers.went == (2,) and c.stragglers.appeared == () and not c.within_noise
    truth = truth_change("pairs/input_slow", "pairs/input_prefetched")
    assert c.whatif.predicted_step_ms - c.step_ms.before == pytest.approx(truth, rel=0.2)


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_recorded_fix_that_does_nothing_is_within_noise(pattern):
    c = compared(files("pairs/clean_first", pattern), files("pairs/clean_again", pattern))
    assert c.within_noise and c.stragglers.before == c.stragglers.after == ()


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_recorded_straggler_that_moved_is_named_where_it_went(pattern):
    c = compared(files("pairs/slow_rank1", pattern), files("pairs/slow_rank3", pattern))
    assert c.stragglers.went == (1,) and c.stragglers.appeared == (3,) and c.whatif.tests == "none"


@pytest.mark.parametrize(
    ("before", "after", "code"),
    [
        ("pairs/slow_rank1", "pairs/slow_rank3", "compare.whatif_moved"),
        ("pairs/clean_first", "pairs/slow_rank3", "compare.whatif_new"),
        ("pairs/input_slow", "pairs/input_prefetched", "compare.whatif_all"),
    ],
)
def test_both_formats_of_a_pair_say_the_same_notes_and_why(before, after, code):
    """A profiler trace and a JSONL file of one pair of runs give the same notes when their verdicts agree; the
    first note says what each verdict found, so that where they differ, the reader sees why."""
    notes = [[n.text() for n in compared(files(before, p), files(after, p)).notes] for p in FORMATS]
    assert notes[0] == notes[1]
    said = compared(files(before, FORMATS[0]), files(after, FORMATS[0])).notes
    assert said[0].code == "compare.verdicts" and said[1].code == code


def test_a_run_before_judged_clean_yet_slower_than_the_run_after_says_its_verdict_missed_something():
    """The run before names nobody, yet its step is 28 % longer than the run after's (every rank slower alike):
    the panel says the verdict before did not name what slowed it."""
    from ddpcore.traces import simulated_run

    before = analyze(simulated_run(8, 40, seed=1, jitter_cv=0.3)[0])
    after = analyze(simulated_run(8, 40, seed=2)[0])
    assert before.stragglers == () and before.transient.straggler_steps == 0
    notes = compare(before, after).notes
    assert notes[-1].code == "compare.missed" and "faster (28" in notes[-1].text()
    assert all(n.code != "compare.missed" for n in compare(after, after).notes)
