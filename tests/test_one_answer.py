"""One screen, one answer: the fit panel agrees with the verdict, files of two runs are never one run, a rank-step that
cannot be measured loses nothing else, and the words and controls a new user found wrong."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from ddpview import app
from ddpview.app import slider_from_n
from ddpview.i18n import TEXT
from ddpview.views import cluster_plot_svg, fit_html

from ddpcore.analysis import RunTimes, analyze, bounded, judge, measure_loaded, outlook, prefetch_case
from ddpcore.base import LANGS, read_threshold
from ddpcore.cli import main
from ddpcore.traces import chunked, load, read_or_why

FIXTURES = Path(__file__).parent / "fixtures"
NOISY = FIXTURES / "noise"


def files(folder: Path, pattern: str) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(folder.glob(pattern))]


def analysed(folder: Path, pattern: str):
    loaded = load(files(folder, pattern))
    measured, errors = measure_loaded(loaded)
    assert measured is not None and errors == ()
    return judge(measured)


# --- the fit panel and the verdict ----------------------------------------------------------------------------------

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


@pytest.mark.parametrize("lang", LANGS)
def test_a_run_without_straggler_cost_has_nothing_to_gain(lang):
    a = analysed(NOISY / "clean", "*.pt.trace.json.gz")
    seen = outlook(RunTimes.of_analysis(a), a.threshold)
    panel = fit_html(app.initial("view=traces", lang, False).state, seen, "", False, lang)
    whatif = re.search(r'data-testid="fit-whatif"[^>]*>([^<]+)<', panel).group(1)
    assert ("Nothing to gain" if lang == "en" else "Rien à gagner") in whatif
    assert "instead of" not in whatif and "au lieu de" not in whatif


@pytest.mark.parametrize("lang", LANGS)
def test_a_fitted_value_past_the_models_range_says_what_is_used(lang, capsys):
    """A 400 ms pause makes its rank-steps 30x slower; the model goes up to 10x: the panel says so where the value
    is, and the command line too."""
    a = analysed(NOISY / "gc", "*.pt.trace.json.gz")
    seen = outlook(RunTimes.of_analysis(a), a.threshold)
    assert seen.fit.slowdown > 20 and bounded(seen.fit) == {"slowdown": 10.0}
    panel = fit_html(app.initial("view=traces", lang, False).state, seen, "", False, lang)
    figure = panel.split('data-testid="fit-s"')[1].split("</output>")[0]
    assert "10×" in figure and ("goes up to 10×" in figure or "jusqu&#x27;à 10×" in figure)
    paths = [str(p) for p in sorted((NOISY / "gc").glob("*.pt.trace.json.gz"))]
    assert main(["analyze", *paths, "--fit"]) == 0
    assert "the model goes up to 10 for slowdown" in capsys.readouterr().out


def test_prefetching_follows_from_what_the_late_rank_does():
    """A DataLoader straggler with one rank's file missing: a `mixed` cause whose largest part is loading says what
    prefetching would save, and the figure shown is the gain."""
    a = analyze(load(files(FIXTURES / "causes" / "input", "rank[123].jsonl.gz")).traces)
    cause = a.stragglers[0].cause
    assert cause is not None and cause.main_part == "load"
    assert prefetch_case(cause, a.load_marked) == "saves" and a.prefetch_gain_ms > 5


# --- files of two runs ----------------------------------------------------------------------------------------------


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


# --- a rank-step that cannot be measured ----------------------------------------------------------------------------


def test_a_negative_rank_step_is_left_out_and_loses_nothing_else(tmp_path, capsys):
    """Rank 3's work at step 28 made -0.68 ms (a clock that jumped): the analysis names it in a warning, the fit is made
    without it, `--rules` is written, and `cluster --from` runs."""
    paths = [str(p) for p in sorted((NOISY / "clean").glob("*.jsonl.gz"))]
    assert main(["summarize", *paths, "-o", str(tmp_path)]) == 0
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


# --- controls -------------------------------------------------------------------------------------------------------


def test_the_cluster_slider_always_moves_by_the_keyboard():
    n = 2
    seen = [n]
    for _ in range(12):
        n = int(app.control_text(app.LOG_SCALE, str(slider_from_n(n) + 1), False, False, n))
        seen.append(n)
    assert seen == sorted(set(seen)) and seen[-1] >= 12, "ArrowRight from N = 2 goes up, a GPU at a time"
    for _ in range(20):
        n = int(app.control_text(app.LOG_SCALE, str(slider_from_n(n) - 1), False, False, n))
    assert n == 2


def test_a_cluster_smaller_than_the_sweep_is_marked_where_it_is():
    from ddpcore.model import ClusterConfig, cluster_step, cluster_sweeps

    svg = cluster_plot_svg(cluster_sweeps(ClusterConfig(gpus=8)), cluster_step(ClusterConfig(gpus=2)), "ring", "en")
    marker = float(re.search(r'data-testid="cluster-marker".*?x1="([\d.]+)"', svg).group(1))
    ticks = {label: float(x) for x, label in re.findall(r'<text x="([\d.]+)"[^>]*class="tick">([^<]+)<', svg)}
    assert marker == ticks["2"] < ticks["10"], "N = 2 is drawn at 2 on an axis that reaches it, not on 8"


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


def test_before_traces_the_view_shows_the_drop_zone_and_one_line():
    empty = app.screen(app.initial("view=traces", "en", False))
    for part in app.TRACES_FOUND:
        assert empty.flags[part]["hidden"], part
    assert not empty.flags["traces-empty"]["hidden"]
    m = app.with_measured(
        app.initial("view=traces", "en", False), *measure_loaded(load(files(FIXTURES / "ddp4", "*.jsonl.gz")))
    )
    found = app.screen(m)
    assert not any(found.flags[part]["hidden"] for part in app.TRACES_FOUND) and found.flags["traces-empty"]["hidden"]


# --- words ----------------------------------------------------------------------------------------------------------


def test_each_concept_has_one_name_in_each_language():
    french = " ".join(v["fr"] for v in TEXT.values() if "fr" in v)
    assert "transitoire" not in french, "a transient straggler is a retardataire passager, everywhere"
    assert "part en {part}" not in french and "part en entre" not in french
    assert TEXT["fit.evidence"]["fr"].format(k=1, n=28) == "1 sur 28 pas-rangs"
    for key, words in TEXT.items():
        if "transient" in words.get("en", "").lower() and "fr" in words:
            assert "passag" in words["fr"] or "transitoire" not in words["fr"], key


def test_the_h200_measurement_is_said_once_and_the_simplifications_only_under_one_step():
    html = (Path(__file__).parent.parent / "web" / "index.html").read_text()
    step = html.split('id="panel-step"')[1].split('id="panel-cluster"')[0]
    assert 'data-i18n="simplifies.body"' in step and html.count('data-i18n="simplifies.body"') == 1
    from ddpview.i18n import H200_EN

    assert H200_EN not in TEXT["measure.body"]["en"] and H200_EN in TEXT["cost.h200"]["en"]


def test_replay_help_says_the_speed_it_takes(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = capsys.readouterr().out
    assert "more than 0, up" in re.sub(r"\s+", " ", out)
    assert main(["replay", "x.jsonl", "--port", "9", "--speed", "0"]) == 2
