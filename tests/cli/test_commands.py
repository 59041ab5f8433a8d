"""The command line: documented errors on bad arguments, its JSON and text output, its help."""

import json
import subprocess
import sys

import pytest

from ddpcore.cli import main


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["step", "--gpus", "1"], "--gpus"),
        (["step", "--gpus", "abc"], "--gpus"),
        (["step", "--slowdown", "nan"], "--slowdown"),
        (["step", "--slowdown", "-3"], "--slowdown"),
        (["step", "--slowdown", "1e400"], "--slowdown"),
        (["step", "--straggler", "8"], "--straggler"),
        (["step", "--tensor-activity", "2"], "--tensor-activity"),
        (["step", "--allreduce-ms", "1E-20"], "--allreduce-ms"),
        (["step", "--grad-mb", "1e-300", "--latency-us", "0"], "--grad-mb"),
        (["step", "--grad-mb", "1e-300", "--latency-us", "0", "--mode", "overlap"], "--grad-mb"),
        (["cluster", "--jitter-cv", "2"], "--jitter-cv"),
        (["analyze", "x.json", "--fit", "--min-gap", "0"], "--threshold"),
        (["analyze", "x.json", "--threshold", "150"], "--threshold"),
        (["step", "--bogus"], "--bogus"),
        (["ring", "--gpus", "0"], "--gpus"),
        (["ring", "--gpus", "100000"], "--gpus"),
        (["teleport"], "teleport"),
        ([], "COMMAND"),
    ],
)
def test_bad_cli_argument_exits_2_with_one_line(argv, flag, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert flag in err
    assert "Traceback" not in err


def test_cli_subprocess_reference():
    out = subprocess.run(
        [sys.executable, "-m", "ddpcore", "step", "--straggler", "2", "--slowdown", "1.5", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = json.loads(out)
    assert data["step_ms"] == 57
    assert data["efficiency"] == pytest.approx(44 / 57, abs=1e-9)
    for key in (
        "gpus",
        "ideal_step_ms",
        "straggler_cost_ms",
        "prefetch_gain_ms",
        "displayed_util",
        "useful_compute",
        "wait_ms_total",
        "ring_traffic_factor",
    ):
        assert key in data
    assert len(data["ranks"]) == 8
    phases = data["ranks"][2]["phases"]
    assert [p["phase"] for p in phases] == ["load", "forward", "backward", "wait", "allreduce", "optimizer"]
    assert phases[-1]["end_ms"] == 57


def test_cli_ring_json(capsys):
    assert main(["ring", "--gpus", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exchanges"] == 14
    assert data["reduce_scatter_exchanges"] == data["all_gather_exchanges"] == 7
    assert data["traffic_factor"] == 1.75
    assert len(data["transfers"]) == 14
    assert data["transfers"][0][7] == {"src": 7, "dst": 0, "chunk": 7}


def test_cli_text_output(capsys):
    assert main(["step", "--slowdown", "2", "--prefetch"]) == 0
    out = capsys.readouterr().out
    assert "65.00 ms" in out and "prefetch on" in out


def test_cli_help_is_readable(capsys):
    with pytest.raises(SystemExit) as info:
        main(["step", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--gpus", "--straggler", "--slowdown", "--prefetch", "--json"):
        assert flag in out
