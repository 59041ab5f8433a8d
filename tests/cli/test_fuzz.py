"""Fuzzing the command line: any argument is rejected with a message, never a traceback."""

from __future__ import annotations

import contextlib
import io

import pytest
from fuzzing import VALUES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddpcore.cli import main

FLAGS = {
    "step": [
        "--gpus",
        "--straggler",
        "--slowdown",
        "--prefetch-residual-ms",
        "--tensor-activity",
        "--mode",
        "--allreduce-ms",
        "--bucket-mb",
        "--first-bucket-mb",
        "--grad-mb",
        "--bandwidth-gbps",
        "--latency-us",
    ],
    "ring": ["--gpus"],
    "cluster": [
        "--gpus",
        "--jitter-cv",
        "--straggler-prob",
        "--slowdown",
        "--persistent",
        "--persistent-slowdown",
        "--allreduce",
        "--grad-mb",
        "--bandwidth-gbps",
        "--latency-us",
    ],
}


@st.composite
def argvs(draw):
    command = draw(st.sampled_from(sorted(FLAGS)))
    pairs = draw(st.lists(st.tuples(st.sampled_from(FLAGS[command]), VALUES), max_size=4))
    argv = [command]
    for flag, value in pairs:
        argv += [flag, value]
    if draw(st.booleans()):
        argv.append("--json")
    if command == "cluster" and draw(st.booleans()):
        argv.append("--sweep")
    return argv


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argvs())
def test_cli_never_tracebacks(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's --help only
            code = exc.code
    assert code in (0, 2), (argv, err.getvalue())
    if code == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and "error: argument" in lines[0], (argv, err.getvalue())
    else:
        assert out.getvalue().strip()
    assert "Traceback" not in err.getvalue()


@pytest.mark.parametrize("command", ["step", "cluster"])
def test_a_link_too_slow_to_move_the_gradient_is_one_line(command, capsys):
    from ddpcore.cli import main

    assert main([command, "--bandwidth-gbps", "1E-306", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bandwidth-gbps" in err
