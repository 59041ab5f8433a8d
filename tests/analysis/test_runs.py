"""Files of two runs are never one run: the largest is analysed and the others named, two as large refused, a file under
two ranks warned."""

from __future__ import annotations

import gzip
import json

import pytest
from paths import FIXTURES
from runs import files, shifted

from ddpcore.analysis import measure_loaded
from ddpcore.cli import main
from ddpcore.traces import load

NOISY = FIXTURES / "noise"


def mix(first: str, second: str, pattern: str, split: int) -> list[tuple[str, bytes]]:
    one = files(NOISY / first, pattern)[:split]
    other = files(NOISY / second, pattern)[split:]
    return [(f"{first}-{n}", d) for n, d in one] + [(f"{second}-{n}", d) for n, d in other]


@pytest.mark.parametrize("pattern", ["*.jsonl.gz", "*.pt.trace.json.gz"])
def test_two_runs_of_the_same_size_are_refused_with_one_line_naming_them(pattern, tmp_path, capsys):
    given = mix("clean", "moving", pattern, 2)
    measured, errors = measure_loaded(load(given))
    assert measured is None and len(errors) == 1
    line = errors[0].message
    assert "2 runs" in line and all(name in line for name, _ in given)
    for name, data in given:
        (tmp_path / name).write_bytes(data)
    assert main(["analyze", *(str(tmp_path / n) for n, _ in given)]) == 1
    err = capsys.readouterr().err
    assert "2 runs" in err and "Traceback" not in err


@pytest.mark.parametrize("pattern", ["*.jsonl.gz", "*.pt.trace.json.gz"])
def test_the_largest_run_is_analysed_and_the_other_files_named(pattern):
    given = mix("two_slow", "clean", pattern, 3)
    measured, errors = measure_loaded(load(given))
    assert measured is not None and [r.rank for r in measured.ranks] == [0, 1, 2]
    assert [e.source for e in errors] == [given[3][0]] and "another run" in errors[0].message


def test_the_same_file_under_two_rank_numbers_is_a_warning():
    name, data = files(NOISY / "clean", "rank0.jsonl.gz")[0]
    text = gzip.decompress(data).decode().replace('"rank": 0', '"rank": 3')
    given = [*files(NOISY / "clean", "rank[012].jsonl.gz"), ("copy.jsonl", text.encode())]
    measured, _ = measure_loaded(load(given))
    assert measured is not None
    assert any(getattr(w, "code", "") == "copies" and w.values == {"first": 0, "second": 3} for w in measured.warnings)


def test_a_rank_that_sees_the_release_late_in_a_short_window_is_of_the_run():
    """A held-out 5-step profiler window of a moving straggler on 2 shared cores: rank 0 sees the release late now
    and then (its release offsets to the others vary by a sixth of a step, theirs by a hundredth). Released at one
    moment, it is of the run: the last release refused it as another run and lost the straggler's steps with it."""
    given = files(FIXTURES / "late_release", "*.pt.trace.json.gz")
    measured, errors = measure_loaded(load(given))
    assert errors == () and measured is not None and [r.rank for r in measured.ranks] == [0, 1, 2, 3]


def test_files_of_two_runs_at_one_moment_on_the_clock_are_still_two_runs_when_they_drift_a_step():
    """Two runs whose clocks were set so that their middle steps start together: over 59 steps of 31 and 45 ms,
    their releases wander many steps apart, which no run's ranks do."""
    one = files(NOISY / "clean", "rank[01].jsonl.gz")
    other = files(NOISY / "moving", "rank[23].jsonl.gz")
    shift = middle_start(one[0][1]) - middle_start(other[0][1])
    given = one + [(f"moved-{n}", shifted(d, shift)) for n, d in other]
    measured, errors = measure_loaded(load(given))
    assert measured is None and len(errors) == 1 and "2 runs" in errors[0].message


def middle_start(data: bytes) -> float:
    """When a JSONL trace's middle step starts (s)."""
    rows = [json.loads(line) for line in gzip.decompress(data).decode().splitlines() if line]
    steps = sorted({r["step"] for r in rows})
    middle = steps[len(steps) // 2]
    return min(r["start"] for r in rows if r["step"] == middle)
