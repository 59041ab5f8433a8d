"""Arguments as a person types them: one threshold parser for the command line and the page, help that says what a value
takes."""

from __future__ import annotations

import json
import re

import pytest
from paths import FIXTURES

from ddpcore.base.params import read_threshold
from ddpcore.cli import main


@pytest.mark.parametrize(
    ("text", "value", "hint"),
    [("15", 0.15, "percent"), ("1", 0.01, "percent"), ("20 %", 0.2, ""), ("0,2", 0.2, ""), ("0.05", 0.05, "")],
)
def test_one_threshold_parser_for_the_command_line_and_the_page(text, value, hint, capsys):
    assert read_threshold(text).value == pytest.approx(value) and read_threshold(text).hint == hint
    paths = [str(p) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    capsys.readouterr()
    assert main(["analyze", *paths, "--threshold", text, "--json"]) == 0
    got = capsys.readouterr()
    assert json.loads(got.out)["threshold"] == pytest.approx(value)
    assert ("read as a percent" in got.err) == (hint == "percent")


@pytest.mark.parametrize("text", ["1e-9", "0.005", "0.5 %", "0"])
def test_a_threshold_below_the_least_is_refused_with_the_words_the_page_says(text, capsys):
    """Below 1 % of the step, "late by 0 % of the step" says nothing: the command line refuses it, and names the least
    it takes, in the very words of the page's note (`Reading.note`)."""
    assert read_threshold(text).value is None
    assert main(["analyze", str(FIXTURES / "ddp4" / "rank0.jsonl.gz"), "--threshold", text]) == 2
    err = capsys.readouterr().err
    assert read_threshold(text).note(text).text() in err and "from 1\u202f% to all of it" in err


def test_replay_help_says_the_speed_it_takes(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = capsys.readouterr().out
    assert "more than 0, up" in re.sub(r"\s+", " ", out)
    assert main(["replay", "x.jsonl", "--port", "9", "--speed", "0"]) == 2
