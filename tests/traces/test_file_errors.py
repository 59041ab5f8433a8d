"""Every line of error a bad file gets reads in French on the French page (#24: "empty file", "not a readable
gzip file (truncated)" stayed English): said from the core's one table of words, never read back from English."""

from __future__ import annotations

import gzip
import json

import pytest

from ddpcore.analysis import measure_loaded
from ddpcore.traces import load


def jsonl(*rows: dict) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


ROW = {"rank": 0, "step": 1, "phase": "load", "start": 0.0, "end": 0.1}
SUMMARY = {"format": "ddpcore-summary", "version": 2, "rank": 0, "columns": [], "steps": []}
BAD = {
    "empty.json": b"",
    "cut.json.gz": gzip.compress(b'{"traceEvents": []}')[:-12],
    "tail.json.gz": gzip.compress(b"{}") + b"garbage",
    "deep.json": b'{"traceEvents": ' + b"[" * 990 + b"]" * 990 + b"}",
    "latin1.json": b'{"a": "\xe9"}',
    "broken.json": b'{"traceEvents": [',
    "other.json": b'{"hello": "world"}',
    "list.json": b"[1, 2]",
    "norank.json": b'{"traceEvents": []}',
    "nosteps.json": json.dumps({"distributedInfo": {"rank": 0}, "traceEvents": []}).encode(),
    "bigrank.json": json.dumps({"distributedInfo": {"rank": 10**30}, "traceEvents": []}).encode(),
    "ts.json": json.dumps(
        {"distributedInfo": {"rank": 0}, "traceEvents": [{"ph": "X", "name": "x", "ts": 1e300, "dur": 1}]}
    ).encode(),
    "extra.json": b'{"traceEvents": []} {"more": 1}',
    "phase.jsonl": jsonl({**ROW, "phase": "lunch"}),
    "times.jsonl": jsonl({**ROW, "end": -1.0}),
    "ranks.jsonl": jsonl(ROW, {**ROW, "rank": 3}),
    "step.jsonl": jsonl({**ROW, "step": -1}),
    "line.jsonl": jsonl(ROW) + b"\n{oops}",
    "summary.json": json.dumps({**SUMMARY, "version": 9}).encode(),
    "columns.json": json.dumps({**SUMMARY, "columns": ["x"]}).encode(),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_file_error_reads_in_french(name):
    loaded = load([(name, BAD[name])])
    assert len(loaded.errors) == 1, name
    english = loaded.errors[0].message
    french = loaded.errors[0].said.text("fr")
    assert french != english, english
    assert loaded.errors[0].said.text("en") == english


def test_runs_that_cannot_be_compared_say_why_in_french():
    _, errors = measure_loaded(load([("a.jsonl", jsonl(ROW))]))
    assert errors[-1].said.text("fr").startswith("il faut les traces d'au moins deux rangs")
    twice = load([("a.jsonl", jsonl(ROW)), ("b.jsonl", jsonl(ROW))])
    assert twice.errors[0].said.text("fr").startswith("un second fichier pour le rang 0")


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_reader_words_a_failure_alike(tmp_path, name):
    """`load` (bytes), the CLI's `read_path` (disk) and the page worker's `read_or_why` (slices, size known) say
    the same line for the same bad file: one function words them."""
    from ddpcore.traces import read_or_why
    from ddpcore.traces.files import read_path
    from ddpcore.traces.parse import chunked

    path = tmp_path / name
    path.write_bytes(BAD[name])
    by_load = load([(str(path), BAD[name])]).errors[0]
    by_disk = read_path(str(path))
    by_worker = read_or_why(str(path), chunked(BAD[name]), len(BAD[name]))
    assert by_load == by_disk == by_worker


def test_a_file_over_the_limit_is_refused_unread_in_both_languages(tmp_path):
    from ddpcore.traces import read_or_why
    from ddpcore.traces.parse import MAX_FILE_BYTES
    from ddpcore.traces.reader import MIB

    def never():
        raise AssertionError("a file over the limit must not be read")
        yield b""

    refused = read_or_why("huge.json", never(), MAX_FILE_BYTES + 50 * MIB)
    assert refused.message == "250 MiB is over the 200 MiB limit"
    assert refused.said.text("fr") == "250 Mio dépasse la limite de 200 Mio"


def test_a_file_that_cannot_be_opened_says_the_systems_reason(tmp_path):
    from ddpcore.traces.files import read_path

    missing = read_path(str(tmp_path / "gone.json"))
    assert missing.message == "No such file or directory"


@pytest.mark.parametrize("exc", [OverflowError, RecursionError, MemoryError])
def test_a_reader_that_runs_out_says_could_not_be_read(exc):
    from ddpcore.traces import read_or_why

    def failing():
        raise exc()
        yield b""

    error = read_or_why("x.json", failing())
    assert error.message == f"could not be read ({exc.__name__})"
    assert error.said.text("fr") == f"illisible ({exc.__name__})"
