"""The Your traces view drawn natively from real traces: well-formed, finite, both languages, honest labels."""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree

import pytest
from ddpview.i18n import ms
from ddpview.views import traces_regions
from paths import FIXTURES

from ddpcore.analysis import judge, measure_loaded
from ddpcore.base import THRESHOLD
from ddpcore.base.words import LANGS
from ddpcore.traces import load
from scripts.tracegen import gpu_pair

RUNS = {
    "hta": lambda: [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "hta_torchrec").glob("*.json.gz"))],
    "cuda": gpu_pair,
    "ddp4": lambda: [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))],
}


def regions_of(run: str, lang: str, step: int = 0) -> dict[str, str]:
    return regions_from(RUNS[run](), lang, step)


def regions_from(files: list[tuple[str, bytes]], lang: str, step: int = 0) -> dict[str, str]:
    loaded = load(files)
    measured, errors = measure_loaded(loaded)
    assert measured is not None and errors == ()
    analysis = judge(measured, THRESHOLD.default)
    return traces_regions(analysis, errors, step, THRESHOLD.default, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_every_region_is_well_formed_and_finite(run, lang):
    for region, markup in regions_of(run, lang).items():
        if region == "trace-step":
            markup = "<select>" + markup.replace(" selected>", ' selected="selected">') + "</select>"
        ElementTree.fromstring(f"<div>{markup}</div>")
        assert "nan" not in re.findall(r'="(nan|inf|-inf)"', markup)
        for value in re.findall(r'data-value="([^"]*)"', markup):
            assert value not in ("nan", "inf", "-inf")


def test_gpu_run_draws_kernels_and_other_collectives():
    out = regions_of("hta", "en", step=1)
    svg = out["trace-timeline-view"]
    for phase in ("other_comm", "gpu_compute", "gpu_comm"):
        assert f'data-phase="{phase}"' in svg, phase
    assert 'data-testid="trace-gpu-busy"' in out["trace-summary"]
    assert 'data-testid="trace-straggler" data-value="-1"' in out["trace-summary"]
    assert "2 of 128 ranks" in out["trace-summary"]


def test_cpu_run_says_why_there_are_no_gauges():
    out = regions_of("ddp4", "fr")
    assert 'data-testid="trace-gpu-none"' in out["trace-summary"]
    assert "Pas de jauges GPU" in out["trace-summary"]
    assert 'data-phase="gpu_compute"' not in out["trace-timeline-view"]
    assert 'data-value="2"' in out["trace-summary"]


def test_unreadable_input_is_one_error_and_no_analysis():
    loaded = load([("only.jsonl", RUNS["ddp4"]()[0][1])])
    measured, errors = measure_loaded(loaded)
    assert measured is None and len(errors) == 1 and "two ranks" in errors[0].message
    out = traces_regions(None, errors, 0, THRESHOLD.default, "en")
    assert out["trace-summary"] == "" and "two ranks" in out["trace-errors"]


def test_warnings_read_in_the_pages_language():
    from ddpcore.analysis.caveats import Caveat, grouped

    (group,) = grouped([Caveat("some_ranks", loaded=2, world=128)])
    assert group.message().text("fr") == "2 rangs chargés sur 128 : le retardataire peut être parmi les autres"
    assert group.message().text("en") == group.first


def test_kernel_rows_are_one_path_per_kind_with_their_count_and_time():
    """Hundreds of kernel spans per rank are drawn as one element per kind, and the tooltip says how many."""
    loaded = load(RUNS["cuda"]())
    measured, _ = measure_loaded(loaded)
    assert measured is not None
    step = judge(measured).steps[0]
    svg = regions_of("cuda", "en")["trace-timeline-view"]
    for rank in step.drawn:
        compute = [sp for sp in rank.device_spans if sp.phase == "gpu_compute"]
        assert len(compute) > 50
        total = ms(sum(sp.duration_ms for sp in compute), "en")
        assert f"rank {rank.rank} · GPU compute · {len(compute)} span(s), {total} in all" in svg
    assert svg.count('data-phase="gpu_compute"') == len(step.drawn)
    assert '<rect class="bar gpu_compute' not in svg


def test_data_values_carry_the_raw_number():
    """docs/contracts.md promises the raw number in `data-value`: a share of 11 steps in 39 is not 0.28."""
    from ddpview.markup import tag

    assert 'data-value="0.375"' in tag("output", {"data-value": 3 / 8}) and 'x="0.38"' in tag("rect", {"x": 3 / 8})
    loaded = load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp8_transient").glob("*.jsonl.gz"))])
    measured, _ = measure_loaded(loaded)
    a = judge(measured, THRESHOLD.default)
    markup = traces_regions(a, (), 0, THRESHOLD.default, "en", 0)["trace-summary"]
    assert f'data-testid="trace-transient" data-value="{a.transient.fraction!r}"' in markup


def test_the_regions_come_one_at_a_time_in_their_listed_order_and_make_the_same_markup():
    from ddpview.views import TRACE_REGIONS, traces_region_items

    measured, _ = measure_loaded(load(RUNS["ddp4"]()))
    assert measured is not None
    a = judge(measured, THRESHOLD.default)
    items = [item for item in traces_region_items(a, (), 0, THRESHOLD.default, "en") if item is not None]
    assert [name for name, _ in items] == ["trace-errors", *TRACE_REGIONS]
    assert dict(items) == traces_regions(a, (), 0, THRESHOLD.default, "en")
    assert [item[0] for item in traces_region_items(None, (), 0, THRESHOLD.default, "en") if item] == [
        "trace-errors",
        *TRACE_REGIONS,
    ]


def test_a_large_map_is_drawn_in_steps(big):
    """4,096 ranks: the map's rows come a few at a time (`map_drawing`), with the same markup as in one piece."""
    from ddpview.views import CELLS_PER_STEP, map_drawing, map_svg

    a = big[0]
    late = [s.late_ranks for s in a.steps]
    steps = map_drawing(a.rank_map, late, THRESHOLD.default, "en")
    count = 0
    while True:
        try:
            next(steps)
            count += 1
        except StopIteration as end:
            markup = end.value
            break
    cells = markup.count('class="map-cell')
    assert cells > 2 * CELLS_PER_STEP
    assert count == (cells - 1) // CELLS_PER_STEP
    assert markup == map_svg(a.rank_map, late, THRESHOLD.default, "en")


def noise_files(name: str) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "noise" / name).glob("*.jsonl.gz"))]


@pytest.mark.parametrize("lang", LANGS)
def test_the_cost_parts_and_what_chance_allows_are_shown(lang):
    """The moving straggler: the cost is all transient, jitter's own beside it, and the line on what chance allows
    carries the late steps a persistent straggler would need."""
    a = judge(measure_loaded(load(noise_files("moving")))[0], THRESHOLD.default)
    summary = regions_from(noise_files("moving"), lang)["trace-summary"]
    for testid, value in (
        ("trace-cost-persistent", a.cost_parts_ms.persistent),
        ("trace-cost-transient", a.cost_parts_ms.transient),
        ("trace-cost-unnamed", a.cost_parts_ms.unnamed),
        ("trace-cost-jitter", a.cost_parts_ms.jitter),
    ):
        found = re.search(rf'data-testid="{testid}" data-value="([^"]+)"', summary)
        assert found and float(found.group(1)) == pytest.approx(value)
    noise = re.search(r'data-testid="trace-noise" data-value="(\d+)">([^<]+)<', summary)
    assert noise and int(noise.group(1)) == a.noise.persistent_needed
    assert ("What chance allows" if lang == "en" else "Ce que permet le hasard") in noise.group(2)
    assert a.cost_parts_ms.transient > 10 and a.cost_parts_ms.persistent == 0


@pytest.mark.parametrize("lang", LANGS)
def test_traces_without_loader_annotations_say_prefetching_may_help(lang):
    import gzip
    import json

    stripped = []
    for p in sorted((FIXTURES / "causes" / "input").glob("*.pt.trace.json.gz")):
        trace = json.loads(gzip.decompress(p.read_bytes()))
        trace["traceEvents"] = [e for e in trace["traceEvents"] if not str(e.get("name", "")).startswith("enumerate(")]
        stripped.append((p.name, json.dumps(trace).encode()))
    summary = regions_from(stripped, lang)["trace-summary"]
    assert 'data-testid="trace-load-unmarked"' in summary
    assert re.search(r'data-testid="trace-prefetch" data-case="maybe" data-value="0"', summary)
    given = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "causes" / "input").glob("*.pt.trace.json.gz"))]
    marked = regions_from(given, lang)["trace-summary"]
    assert 'data-testid="trace-load-unmarked"' not in marked and 'data-case="saves"' in marked


@pytest.mark.parametrize("lang", LANGS)
def test_a_bar_past_a_whole_step_is_said_so_not_given_as_a_rank_step_s_lateness(lang):
    """4 ranks on 2 cores with steps long enough to jitter as much as a sleep (`verdict/heavy_clean`): chance's tail,
    read far out, puts a transient straggler's bar past a whole step, and a persistent one's mean lateness too; the
    line says no rank-step alone, and no rank on average, can pass them, where a run of ordinary jitter
    (`noise/moving`) gives its bars in ms."""
    heavy = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "verdict" / "heavy_clean").glob("*.jsonl.gz"))]
    a = judge(measure_loaded(load(heavy))[0], THRESHOLD.default)
    assert a.jitter_floor_ms > a.median_step_ms
    said = {"en": "no single rank-step can be a transient one", "fr": "aucun pas de rang seul ne peut être un passager"}
    kept = {"en": "a transient one works", "fr": "un passager travaille"}
    line = re.search(r'data-testid="trace-noise"[^>]*>([^<]+)<', regions_from(heavy, lang)["trace-summary"])
    assert line and said[lang] in line.group(1) and kept[lang] not in line.group(1)
    ordinary = re.search(
        r'data-testid="trace-noise"[^>]*>([^<]+)<', regions_from(noise_files("moving"), lang)["trace-summary"]
    )
    assert ordinary and kept[lang] in ordinary.group(1) and said[lang] not in ordinary.group(1)
    assert a.noise.mean_needed_ms > a.median_step_ms
    beyond = {"en": "lets no rank pass that bar", "fr": "ne laisse aucun rang passer cette barre"}
    mean = {"en": "and works on average", "fr": "et travaille en moyenne"}
    assert beyond[lang] in line.group(1) and mean[lang] not in line.group(1)
    assert mean[lang] in ordinary.group(1) and beyond[lang] not in ordinary.group(1)


@pytest.mark.parametrize("lang", LANGS)
def test_the_cut_a_moving_straggler_s_steps_are_named_from_is_said_beside_the_floor(lang):
    """A straggler that moves among 4 ranks on a busy machine (heldout5/movb_s10), its steps named as a group from a
    cut under the floor (`noise.latest_floor_ms`): the line on what chance allows gives that cut, in ms, after the
    floor; a run whose steps are not named so (`verdict/heavy_clean`) says nothing of it."""
    moving = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "heldout5" / "movb_s10").glob("*.jsonl.gz"))]
    a = judge(measure_loaded(load(moving))[0], THRESHOLD.default)
    assert a.noise.latest_floor_ms is not None
    said = {"en": "a step's latest rank is late from", "fr": "le dernier rang d'un pas est en retard dès"}
    line = re.search(r'data-testid="trace-noise"[^>]*>([^<]+)<', regions_from(moving, lang)["trace-summary"])
    assert line and said[lang] in html.unescape(line.group(1)) and ms(a.noise.latest_floor_ms, lang) in line.group(1)
    heavy = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "verdict" / "heavy_clean").glob("*.jsonl.gz"))]
    other = re.search(r'data-testid="trace-noise"[^>]*>([^<]+)<', regions_from(heavy, lang)["trace-summary"])
    assert other and said[lang] not in html.unescape(other.group(1))
