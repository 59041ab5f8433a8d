"""The command line says how far a long read has got, and what it then measures; a quick read says nothing."""

import io

from paths import FIXTURES

from ddpcore.analysis.shards import ROUNDS
from ddpcore.cli import commands, main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_read_past_a_few_seconds_shows_its_progress_and_the_measurement(monkeypatch, capsys):
    paths = [str(p) for p in sorted((FIXTURES / "ddp8" / "s1.5").glob("*.jsonl.gz"))]
    terminal = Terminal()
    monkeypatch.setattr(commands.sys, "stderr", terminal)
    monkeypatch.setattr(commands, "PROGRESS_AFTER_S", 0.0)
    assert main(["analyze", *paths]) == 0
    said = terminal.getvalue()
    assert "\rread 8/8 files" in said and "measuring 8 ranks, 320 rank-steps" in said
    rounds = "".join(f"measuring: {name} ({k}/{len(ROUNDS)})\n" for k, name in enumerate(ROUNDS, start=1))
    assert said.endswith(rounds)


def test_parts_read_in_forked_processes_show_their_reading_as_one(monkeypatch):
    """With `--jobs 2` each part of the files is read by a process of its own, which tells how far it is: one line
    of files read for all of them, up to every file, then the measurement."""
    paths = [str(p) for p in sorted((FIXTURES / "ddp8" / "s1.5").glob("*.jsonl.gz"))]
    terminal = Terminal()
    monkeypatch.setattr(commands.sys, "stderr", terminal)
    monkeypatch.setattr(commands, "PROGRESS_AFTER_S", 0.0)
    assert main(["analyze", "--jobs", "2", *paths]) == 0
    said = terminal.getvalue()
    assert "\rread 8/8 files" in said and "measuring 8 ranks, 320 rank-steps" in said
    reads = [int(part.split("/")[0]) for part in said.split("\rread ")[1:]]
    assert reads == sorted(reads) and reads[-1] == 8


def test_a_measure_for_the_page_tells_its_steps(monkeypatch):
    """`--fit` keeps every entry of every step (the page's measure), a step at a time."""
    paths = [str(p) for p in sorted((FIXTURES / "ddp8" / "s1.5").glob("*.jsonl.gz"))]
    terminal = Terminal()
    monkeypatch.setattr(commands.sys, "stderr", terminal)
    monkeypatch.setattr(commands, "PROGRESS_AFTER_S", 0.0)
    main(["analyze", "--fit", *paths])
    assert "\rmeasured 39/39 steps\n" in terminal.getvalue()


def test_a_quick_read_then_a_long_measurement_shows_the_measurement(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(commands.sys, "stderr", terminal)
    line = commands.ProgressLine()
    line(8, 8, 1000, 1000)
    line.measuring(8, 320)
    line.steps(0, 39)
    assert terminal.getvalue() == ""
    line.start -= commands.PROGRESS_AFTER_S
    line.steps(1, 39)
    line.steps(2, 39)
    line.steps(39, 39)
    assert terminal.getvalue() == "measuring 8 ranks, 320 rank-steps…\n\rmeasured 1/39 steps\rmeasured 39/39 steps\n"


def test_a_quick_read_or_a_pipe_says_nothing(monkeypatch, capsys):
    paths = [str(p) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    terminal = Terminal()
    monkeypatch.setattr(commands.sys, "stderr", terminal)
    assert main(["analyze", *paths]) == 0
    assert terminal.getvalue() == ""
    monkeypatch.setattr(commands, "PROGRESS_AFTER_S", 0.0)
    monkeypatch.setattr(commands.sys, "stderr", io.StringIO())
    assert main(["analyze", *paths]) == 0
