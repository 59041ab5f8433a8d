"""Columnar summaries (version 3): read back exactly, at the microsecond, from arrays; a truncated, lying or foreign
file is one error line, read no further than its header promises."""

from __future__ import annotations

import gzip
import json
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore.traces import load, simulated_run, summary_bytes, table_of
from ddpcore.traces.columnar import COLUMNAR_COLUMNS, COLUMNAR_OF, MAGICS, encode_columns, read_columnar

RANKS, SLOWED = simulated_run(4, 30, persistent=(2,), p=0.05, seed=3)


def parts(data: bytes) -> tuple[dict, bytes]:
    """A version 3 file's header and body."""
    raw = gzip.decompress(data)
    end = raw.index(b"\n")
    return json.loads(raw[:end]), raw[end + 1 :]


def rebuilt(header: dict, body: bytes) -> bytes:
    return gzip.compress(json.dumps(header, separators=(",", ":")).encode() + b"\n" + body)


def one_error(data: bytes) -> str:
    loaded = load([("bad.ddpsum.json.gz", data)])
    assert not loaded.traces and len(loaded.errors) == 1
    message = loaded.errors[0].message
    assert "\n" not in message
    return message


def test_a_columnar_summary_holds_every_column_to_the_microsecond():
    for facts in RANKS:
        table = read_columnar(summary_bytes(facts), "r")
        source = table_of(facts)
        assert list(table.step) == list(source.step)
        for name in ("start_ms", "length_ms", "period_ms", "arrival_ms", "compute_ms", "anchor_ms", "work_ms"):
            assert all(abs(a - b) <= 0.0005 for a, b in zip(getattr(table, name), getattr(source, name))), name
        assert table.followed == source.followed and table.released == source.released
        assert set(table.parts_ms or {}) == set(source.parts_ms or {})
        assert table.device is None


def test_it_starts_with_its_header_and_is_read_the_same_unzipped():
    data = summary_bytes(RANKS[1])
    header, body = parts(data)
    assert gzip.decompress(data).startswith(MAGICS[0])
    assert header["version"] == 3 and [c["name"] for c in header["columns"]] == list(COLUMNAR_OF[3])
    assert {c["unit"] for c in header["columns"]} == {"step", "flag", "us"}
    assert header["steps"] == 30 and header["rank"] == 1
    assert list(read_columnar(gzip.decompress(data), "r").step) == list(read_columnar(data, "r").step)


def test_gpu_time_survives_with_rows_that_have_none():
    from ddpcore.traces import RankFacts
    from ddpcore.traces.stepfacts import DeviceTime

    facts = RANKS[0]
    steps = tuple(
        s if i % 3 == 0 else type(s)(**{**s.__dict__, "device": DeviceTime(9.5, 7.25, 2.0, 1.5)})
        for i, s in enumerate(facts.steps)
    )
    table = read_columnar(summary_bytes(RankFacts(facts.rank, facts.source, facts.world_size, steps)), "r")
    assert table.device is not None
    assert table.device[0][0] is None and table.device[0][1] == 9.5 and table.device[3][2] == 1.5


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    seed=st.integers(0, 2**31),
    big=st.booleans(),
)
def test_any_columns_in_their_units_read_back_exactly(rows, seed, big):
    """Whole microseconds in, the same ms out (k / 1000, the double nearest), in 32- or 64-bit columns."""
    import random

    rng = random.Random(seed)
    high = 10**13 if big else 10**6
    cols = {c: array("q", [rng.randrange(0, high) for _ in range(rows)]) for c in COLUMNAR_COLUMNS}
    cols["step"] = array("q", sorted(rng.sample(range(10**9), rows)))
    for c in ("followed", "released", "from_release", "gpu_measured"):
        cols[c] = array("q", [rng.randrange(2) for _ in range(rows)])
    cols["period_ms"] = array("q", [v + 1 for v in cols["period_ms"]])
    table = read_columnar(encode_columns(5, 8, "r5", cols), "r5")
    assert list(table.step) == list(cols["step"])
    assert list(table.period_ms) == [v / 1000 for v in cols["period_ms"]]
    assert list(table.start_ms) == [v / 1000 for v in cols["start_ms"]]
    assert table.released == bytes(cols["released"].tolist())


def test_a_truncated_body_is_refused_before_it_is_read():
    header, body = parts(summary_bytes(RANKS[0]))
    message = one_error(rebuilt(header, body[:-7]))
    assert "bytes of columns" in message and str(len(body)) in message


def test_a_header_that_promises_more_steps_than_it_holds_is_refused():
    header, body = parts(summary_bytes(RANKS[0]))
    assert "bytes of columns" in one_error(rebuilt({**header, "steps": 10**7}, body))
    assert "'steps'" in one_error(rebuilt({**header, "steps": 10**12}, body))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda h: {**h, "columns": h["columns"][:-1]}, "columns"),
        (lambda h: {**h, "columns": [{**h["columns"][0], "type": "f8"}, *h["columns"][1:]]}, "columns"),
        (
            lambda h: {**h, "columns": [*h["columns"][:3], {**h["columns"][3], "unit": "ms"}, *h["columns"][4:]]},
            "columns",
        ),
        (lambda h: {**h, "rank": -1}, "'rank'"),
        (lambda h: {**h, "rank": "3"}, "'rank'"),
        (lambda h: {**h, "world_size": 1.5}, "'world_size'"),
        (lambda h: {**h, "steps": 0}, "without steps"),
    ],
)
def test_a_header_that_is_not_version_3s_is_one_line(change, says):
    header, body = parts(summary_bytes(RANKS[0]))
    assert says in one_error(rebuilt(change(header), body))


def column_at(header: dict, body: bytes, name: str) -> tuple[int, int]:
    """Where a column's bytes lie in the body, and its width."""
    widths = {"u1": 1, "i4": 4, "i8": 8}
    at = 0
    for c in header["columns"]:
        size = widths[c["type"]] * header["steps"]
        if c["name"] == name:
            return at, widths[c["type"]]
        at += size
    raise KeyError(name)


def replaced(name: str, value: int) -> bytes:
    """RANKS[0]'s summary with every value of one column replaced (flags and 32-bit columns alike)."""
    header, body = parts(summary_bytes(RANKS[0]))
    at, width = column_at(header, body, name)
    rows = header["steps"]
    typecode = {1: "B", 4: "i", 8: "q"}[width]
    values = array(typecode, [value] * rows).tobytes()
    planes = b"".join(values[i::width] for i in range(width))
    return rebuilt(header, body[:at] + planes + body[at + rows * width :])


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("followed", 2, "'followed'"),
        ("gpu_measured", 7, "'gpu_measured'"),
        ("backward_ms", -5, "'backward_ms'"),
        ("period_ms", 0, "'period_ms' must be positive"),
        ("step", 0, "a step twice"),
    ],
)
def test_a_value_out_of_its_range_is_named_by_its_column(name, value, says):
    assert says in one_error(replaced(name, value))


def test_a_header_on_a_line_of_its_own_is_needed():
    data = summary_bytes(RANKS[0])
    raw = gzip.decompress(data)
    assert "header" in one_error(gzip.compress(raw.replace(b"\n", b" ", 1)))
    assert "header" in one_error(gzip.compress(raw[: raw.index(b"\n")]))


def test_a_header_not_written_first_is_told_what_version_3_needs():
    header, _ = parts(summary_bytes(RANKS[0]))
    reordered = {"version": 3, "format": header["format"], "rank": 0}
    assert "header on its first line" in one_error(gzip.compress(json.dumps(reordered).encode()))


def test_an_old_and_a_new_summary_of_one_run_give_one_verdict():
    from ddpcore.analysis import analyze

    old = analyze(load([(f"r{r.rank}", summary_bytes(r, 2)) for r in RANKS]).traces)
    new = analyze(load([(f"r{r.rank}", summary_bytes(r)) for r in RANKS]).traces)
    assert [s.rank for s in old.stragglers] == [s.rank for s in new.stragglers] == [2]
    assert (old.transient.steps, old.transient.ranks) == (new.transient.steps, new.transient.ranks)
    assert (old.transient.cause and old.transient.cause.kind) == (new.transient.cause and new.transient.cause.kind)
    assert [s.late_ranks for s in old.steps] == [s.late_ranks for s in new.steps]
    assert new.straggler_cost_ms == pytest.approx(old.straggler_cost_ms, abs=0.01)


SUMMARY = gzip.decompress(summary_bytes(RANKS[2]))


@settings(max_examples=300, deadline=None)
@given(
    at=st.integers(0, len(SUMMARY) - 1),
    value=st.integers(0, 255),
    cut=st.one_of(st.none(), st.integers(0, len(SUMMARY))),
    zipped=st.booleans(),
)
def test_any_byte_changed_or_any_cut_reads_or_is_one_line(at, value, cut, zipped):
    """Whatever byte of a version 3 file is changed, wherever it is cut, it reads or gives one error line: never an
    exception out of `load`, never a read past its end."""
    raw = bytearray(SUMMARY)
    raw[at] = value
    data = bytes(raw[:cut] if cut is not None else raw)
    loaded = load([("r.ddpsum.json.gz", gzip.compress(data) if zipped else data)])
    assert len(loaded.traces) + len(loaded.errors) == 1
    assert all("\n" not in e.message for e in loaded.errors)
