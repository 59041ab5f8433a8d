"""A verdict merged from shards of the ranks equals the verdict over all of them (`analysis.shards`)."""

from __future__ import annotations

import glob
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FIXTURES
from runs import real_sets

from ddpcore.analysis import Measured, analyze, judge, measure
from ddpcore.analysis.measured import one_run
from ddpcore.analysis.results import AnalysisError
from ddpcore.analysis.shards import Shard, measure_shards, order_stats, shards_of
from ddpcore.analysis.verdict import merge
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.storage.ordered import SortedRuns, bracket, sample_of
from ddpcore.traces import read_paths, simulated_run, summary_bytes
from ddpcore.traces.summary import SUFFIX


def same(whole: dict, merged: dict) -> None:
    """Every field equal; the map and the drawn lanes are not in the payload."""
    assert merged == whole


@pytest.mark.parametrize(
    ("ranks", "steps", "shards", "p", "threshold"),
    [
        (12, 40, 2, 0.02, 0.1),
        (40, 60, 3, 0.05, 0.1),
        (33, 30, 4, 0.05, 0.03),
        (200, 30, 3, 0.15, 0.1),  # about 30 late ranks a step: more than a step's middle keeps (KEPT)
        (300, 20, 7, 0.3, 0.05),  # about 90
        (64, 12, 64, 0.1, 0.1),  # a rank a shard
        (3, 10, 3, 0.1, 0.1),
        (2, 10, 2, 0.1, 0.1),
    ],
)
def test_merged_verdict_is_the_whole_one(ranks, steps, shards, p, threshold):
    run, _ = simulated_run(ranks, steps, persistent=(1,), p=p, seed=ranks + steps)
    whole = analysis_payload(analyze(run, threshold), [])
    same(whole, analysis_payload(merge(shards_of(run, shards), threshold), []))


def test_shards_of_any_ranks_in_any_order():
    run, _ = simulated_run(30, 25, persistent=(7,), p=0.05, seed=2)
    picked = random.Random(1).sample(run, len(run))
    shards = [Shard(picked[:4]), Shard(picked[4:19]), Shard(picked[19:])]
    same(analysis_payload(analyze(run), []), analysis_payload(merge(shards), []))


@pytest.mark.parametrize(
    "folder", ["causes/input", "noise/two_slow", "ddp8/s2.0", "ddp8_transient", "pairs/slow_rank3", "summaries_v1"]
)
def test_merged_verdict_on_real_runs(folder):
    """Real runs, their warnings (warm-up step, partial ranks), parts and GPU gauges, as traces and as summaries."""
    checked = 0
    for pattern in ("*.jsonl.gz", "*.pt.trace.json.gz", "*.ddpsum.json.gz"):
        files = sorted(glob.glob(f"{FIXTURES}/{folder}/{pattern}"))
        if len(files) < 2:
            continue
        checked += 1
        tables, _ = one_run(read_paths(files, 1))
        measured = measure(tables)
        for threshold in (0.1, 0.03):
            whole = analysis_payload(judge(measured, threshold), [])
            half = len(tables) // 2
            same(whole, analysis_payload(merge([Shard(tables[:half]), Shard(tables[half:])], threshold), []))
    assert checked


@pytest.mark.parametrize(
    "found", real_sets(), ids=lambda found: f"{found[0].parent.relative_to(FIXTURES)}:{found[0].name.split('.', 1)[1]}"
)
def test_every_real_set_merged_from_three_shards_is_its_verdict(found):
    """Every real run the repository keeps, each recording: its ranks in three shards (as three nodes of a Ray
    cluster, or three forked processes, hold them) give the verdict one shard of them all gives."""
    tables, _ = one_run(read_paths([str(p) for p in found], 1))
    cut = [0, len(tables) // 3, 2 * len(tables) // 3, len(tables)]
    parts = [tables[a:b] for a, b in zip(cut, cut[1:]) if b > a]
    same(analysis_payload(merge([Shard(tables)]), []), analysis_payload(merge([Shard(p) for p in parts]), []))


def test_a_rank_in_two_shards_is_refused():
    run, _ = simulated_run(6, 10, seed=1)
    with pytest.raises(AnalysisError, match="rank 2 is in two shards"):
        merge([Shard(run[:3]), Shard(run[2:])])


def test_shards_of_two_real_runs_are_refused():
    """Ranks 0 and 1 of one real run in a shard, ranks 2 and 3 of another in a second: each shard is one run, the
    two are not, and the merge says so rather than measure them as one."""
    first = read_paths(sorted(glob.glob(f"{FIXTURES}/pairs/clean_first/*.jsonl.gz"))[:2], 1).traces
    again = read_paths(sorted(glob.glob(f"{FIXTURES}/pairs/clean_again/*.jsonl.gz"))[2:], 1).traces
    with pytest.raises(AnalysisError, match="different runs"):
        merge([Shard(first), Shard(again)])
    merge(
        [Shard(first), Shard(read_paths(sorted(glob.glob(f"{FIXTURES}/pairs/clean_first/*.jsonl.gz"))[2:], 1).traces)]
    )


def test_shards_without_a_common_step_are_refused():
    a, _ = simulated_run(4, 10, seed=1)
    with pytest.raises(AnalysisError, match="share no step"):
        merge([Shard(a[:2]), Shard([replace_steps(r) for r in a[2:]])])


def replace_steps(rank):
    from dataclasses import replace

    from ddpcore.traces import table_of

    t = table_of(rank)
    return replace(t, step=[n + 1000 for n in t.step])


class Held:
    """A shard's vectors as `order_stats` asks them."""

    def __init__(self, vectors):
        self.vectors = vectors

    def samples(self, key, wanted=None):
        asked = wanted or self.vectors
        return [sample_of(sorted(v)) if wanted is None or w is not None else None for v, w in zip(self.vectors, asked)]

    def between(self, key, brackets, last=False):
        from ddpcore.storage.ordered import within

        return [within(sorted(v), *b) if b else None for v, b in zip(self.vectors, brackets)]

    def at_places(self, key, wanted, last=False):
        return [sorted(v)[w[0] : w[1] + 1] if w else [] for v, w in zip(self.vectors, wanted)]


values = st.lists(st.sampled_from([0.0, 1.0, 2.5, -3.0, 7.0]) | st.floats(-1e6, 1e6), min_size=0, max_size=300)


@settings(max_examples=200, deadline=None)
@given(st.lists(values, min_size=1, max_size=6), st.data())
def test_order_stats_are_the_sorted_values(parts, data):
    """Exact whatever the shards' sizes, ties and layout: the bracket is a bound, not a guess."""
    every = sorted(v for p in parts for v in p)
    if not every:
        return
    first = data.draw(st.integers(0, len(every) - 1))
    last = data.draw(st.integers(first, min(len(every) - 1, first + 40)))
    got = order_stats([Held([p]) for p in parts], "x", [(first, last)])
    assert got == [every[first : last + 1]]


def test_the_bracket_is_narrow():
    """What crosses in the second round is a few 64ths of the values, whatever their count."""
    rng = random.Random(3)
    shards = [sorted(rng.gauss(0, 1) for _ in range(10_000)) for _ in range(4)]
    lo, hi = bracket([sample_of(s) for s in shards], (19_990, 20_010))
    inside_count = sum(lo <= v <= hi for s in shards for v in s)
    assert 21 <= inside_count <= 40_000 * 4 / 64


def test_a_node_answers_as_a_part_does(tmp_path):
    """A Ray node's reader (`onray.NodeReader`, run here without Ray) reads its share of the node's files from the
    place the driver gives, and answers a part's questions as a `FilesRead` over the same files does: the reading's,
    then its shard's once kept; anything else is refused."""
    from ddpcore.analysis.parted import QUESTIONS, FilesRead
    from ddpcore.cli.onray import NodeReader

    run, _ = simulated_run(6, 5, persistent=(4,), seed=2)
    for r in run:
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    node = NodeReader(str(tmp_path), "/", 1, 2)
    assert node.about()["files"] == 3 and node.about()["error"] is None
    node.read(10)
    here = FilesRead(sorted(str(p) for p in tmp_path.iterdir())[3:], 10)
    assert node.ask("headers", ()) == (True, here.headers())
    assert node.ask("keep", ([10, 12],)) == (True, (3, 5))
    assert node.ask("hello", ()) == (True, here.keep([10, 12]).hello())
    assert node.ask("anything", ()) == (False, "a node does not answer 'anything'")
    assert {"headers", "releases", "drifts", "keep", "hello", "entries"} <= QUESTIONS
    assert NodeReader(str(tmp_path / "nowhere"), "/", 0, 1).about()["error"].endswith("no such file or folder")


def test_a_shard_lets_go_of_what_only_chance_read():
    """Once the steps' rounds begin, a shard holds none of chance's sorted copies, pooled values or adjusted work
    (`shards.CHANCE_ONLY`), and what it keeps sorted are arrays, not lists of floats (32 bytes a value more): at
    10^7 rank-steps a node held 520 bytes a rank-step, most of it these."""
    from array import array

    from ddpcore.analysis.shards import CHANCE_ONLY, StepRows
    from ddpcore.analysis.stepwise import CostRows

    run, _ = simulated_run(40, 30, persistent=(3,), p=0.05, seed=4)
    shards = shards_of(run, 2)
    merge(shards)
    for s in shards:
        held = set(s.vectors) | set(s.pooled) | set(s.ordered)
        assert not held & set(CHANCE_ONLY)
        assert not hasattr(s, "deviation_rows") and not hasattr(s, "gap_rows")
        assert isinstance(s.cost_rows, CostRows), "each step's costs are made again where read, not held"
        assert "costs" not in s.pooled and "wait" not in s.ordered
        assert all(isinstance(row, array) for rows in s.ordered.values() for row in rows)
        assert all(isinstance(column, StepRows) for column in s.columns.values())


def test_a_shard_holds_the_on_time_deviations_inside_the_deviations_and_lets_go_of_what_waits_alone_read():
    """The deviations pooled without each step's latest rank are the pooled deviations' own sorted runs, that rank's
    value left out where it lies (`storage.LeftOut`), not a second sorted copy; once the waits are made, the columns
    no later question reads (`shards.READ_AFTER_WAITS`) are let go from the steps and from the tables."""
    from ddpcore.analysis.shards import READ_AFTER_WAITS
    from ddpcore.storage.ordered import LeftOut

    files = sorted(glob.glob(f"{FIXTURES}/noise/moving/*.jsonl.gz"))
    tables, _ = one_run(read_paths(files, 1))
    shards = shards_of(tables, 2)
    seen = {}
    for s in shards:
        asked_waits = s.waits

        def waits(*args, _s=s, _asked=asked_waits):
            seen[id(_s)] = (_s.pooled["deviations"].runs, _s.pooled.get("on_time"))
            return _asked(*args)

        s.waits = waits
    merge(shards)
    for s in shards:
        runs, on_time = seen[id(s)]
        assert on_time is not None
        left_out = [r for r in on_time.runs if isinstance(r, LeftOut)]
        assert left_out and all(any(r.run is own for own in runs) for r in left_out)
        assert set(s.columns) == set(READ_AFTER_WAITS)
        assert all(t.arrival_ms == () and t.anchor_ms == () and t.comm_free_ms == () for t in s.tables)
        assert all(len(t.period_ms) == len(t.step) > 0 for t in s.tables)


def measured_keeping_costs(shards: list[Shard]) -> Measured:
    """`measure_shards` at 0.1, each shard given back its pooled on-time costs once done (a merge lets them go in the
    round after their tail is read), for a test to read them as the merge read them."""
    pooled = {}

    def keep(name: str) -> None:
        if name == "middles":
            pooled.update({k: s.pooled["costs"] for k, s in enumerate(shards)})

    measured = measure_shards(shards, 0.1, progress=keep)
    for k, s in enumerate(shards):
        assert "costs" not in s.pooled, "the pooled on-time costs are let go once their tail is read"
        s.pooled["costs"] = pooled[k]
    return measured


def test_a_pooled_read_brings_about_a_square_root_of_each_shard():
    """A place of a pooled vector (a shard's deviations, its on-time costs) is bracketed by samples of about the
    square root of each shard's count (`shards.pooled_sample`), so that what crosses for it is a few square roots,
    not a 32nd of every value (at 10^7 rank-steps, 340 MB crossed, most of it this)."""
    from math import isqrt

    from ddpcore.analysis.shards import pooled_sample
    from ddpcore.storage.ordered import SAMPLE, inside

    rng = random.Random(6)
    pooled = [sorted(rng.lognormvariate(0.0, 0.5) for _ in range(100_000)) for _ in range(2)]
    total = sum(map(len, pooled))
    for size, most in ((pooled_sample, 4 * isqrt(100_000) + 4), (lambda n: SAMPLE, 100_000 // 16)):
        for k in (0, total // 10, total // 2, total - 1):
            low, high = bracket([sample_of(p, size(len(p))) for p in pooled], (k, k))
            brought = sum(len(inside(p, low, high)[1]) for p in pooled)
            assert 1 <= brought <= 2 * most
    run, _ = simulated_run(300, 200, persistent=(3,), p=0.05, seed=4)
    shards = shards_of(run, 2)
    measured_keeping_costs(shards)
    for s in shards:
        held = s.pooled["costs"]
        assert isqrt(len(held)) <= len(s.samples("costs")[0].at) <= isqrt(len(held)) + len(held.runs)
        assert len(s.samples("costs")[0].at) > SAMPLE + 1
    samples = [s.samples("costs")[0] for s in shards]
    total = sum(len(s.pooled["costs"]) for s in shards)
    for k in (0, total // 10, total // 2, total - 1):
        low, high = bracket(samples, (k, k))
        brought = sum(len(s.pooled["costs"].within(low, high).middle) for s in shards)
        assert brought <= 4 * sum(isqrt(len(s.pooled["costs"])) for s in shards)


def test_shards_slimmed_where_read_merge_to_the_same_verdict():
    """A node reads its files slimmed where read (`Keep.VERDICT`, as `analyze --ray` does): each rank's own medians
    come from there, and the verdict is the one over the whole tables."""
    from ddpcore.traces.keeping import Keep

    files = sorted(glob.glob(f"{FIXTURES}/ddp8/s2.0/*.jsonl.gz"))
    tables, _ = one_run(read_paths(files, 1))
    thin, _ = one_run(read_paths(files, 1, keep=Keep.VERDICT))
    whole = analysis_payload(merge(shards_of(tables, 2)), [])
    assert analysis_payload(merge(shards_of(thin, 2)), []) == whole == analysis_payload(analyze(tables), [])


def test_ties_at_a_bracket_cross_as_counts():
    """A step whose ranks share a value (every rank has the step's period) is bracketed at that value: its ties
    cross as counts, not as the whole step (at 10^7 rank-steps, 80 MB a vector), and the places read are exact."""
    tied = [[5.0] * 700 + [6.0] * 300, [4.0] * 100 + [5.0] * 900]
    shards = [Held([row]) for row in tied]
    every = sorted(v for row in tied for v in row)
    for wanted in ((999, 1000), (0, 3), (1690, 1710)):
        assert order_stats(shards, "x", [wanted]) == [every[wanted[0] : wanted[1] + 1]]
    answers = [s.between("x", [bracket([s.samples("x")[0] for s in shards], (999, 1000))]) for s in shards]
    assert all(len(a[0].middle) <= 2 for a in answers)


def test_a_shard_of_every_rank_reads_its_own_places():
    """One shard (`analyze` in one process) answers `order_stats` in one round from its own values, a step's by
    selection and a pooled vector's from its sorted runs, never merged: the same values the two rounds give."""
    one = Shard(simulated_run(40, 30, persistent=(3,), p=0.05, seed=8)[0])
    two = shards_of(simulated_run(40, 30, persistent=(3,), p=0.05, seed=8)[0], 2)
    a, b = measured_keeping_costs([one]), measure_shards(two, 0.1)
    wanted = [(k % 40, min(39, k % 40 + 5)) if k % 3 else None for k in range(len(a.steps))]
    for key in ("wait", "period"):
        assert order_stats([one], key, wanted) == order_stats(two, key, wanted)
        assert order_stats([one], key, wanted)[1] == sorted(one.vectors[key][1])[1:7]
    assert isinstance(one.pooled["costs"], SortedRuns)
    pooled = sorted(v for run_ in one.pooled["costs"].runs for v in run_)
    assert order_stats([one], "costs", [(100, 140)]) == [pooled[100:141]]
    assert one.count_upto("costs", pooled[77]) == pooled.index(pooled[77]) + pooled.count(pooled[77])
    assert one.above("costs", pooled[-5]) == [v for v in pooled if v > pooled[-5]]
    assert analysis_payload(judge(a, 0.1), []) == analysis_payload(judge(b, 0.1), [])


def test_a_run_s_steps_but_its_warm_up_one_are_read_from_each_rank_s_own_columns():
    """Once the warm-up step is left out, a shard reads the steps that follow it from its ranks' own columns, not
    from copies of them (which held every column twice): the step-major columns hold the tables' own."""
    shard = Shard(simulated_run(4, 10, persistent=(1,), seed=2)[0])
    hello = shard.hello()
    shard.begin(hello["steps"][1:], hello["steps"], hello["parts"] or None)
    held = shard.columns["work_ms"].across
    own = [getattr(t.work_ms, "us", t.work_ms) for t in shard.tables]
    assert held.first == 1 and held.rows == 9
    assert all(a is b for a, b in zip(held.columns, own))


def test_hello_makes_one_set_of_steps_for_ranks_that_share_them():
    """The steps every rank of a shard has are found from one set of step numbers for each distinct sequence of
    them, not one a rank held all at once (50,000 ranks of 1,000 steps: 2.7 GB for a moment, the peak of a
    measure of 10^8 rank-steps)."""
    import tracemalloc
    from dataclasses import replace

    from ddpcore.traces import table_of

    one = table_of(simulated_run(2, 3000, seed=1)[0][0])
    shard = Shard([replace(one, rank=k) for k in range(200)])
    tracemalloc.start()
    try:
        hello = shard.hello()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert hello["steps"] == list(one.step)
    a_set_and_its_ints = 4096 * 16 + 3000 * 28
    assert peak < 40 * a_set_and_its_ints


def test_chance_without_a_rank_is_the_same_merged_from_shards_in_any_order():
    """A rank slow in the first 7 steps of a 12-step window (heldout4/e_recover1) is named up to its recovery through
    chance measured without it (`rounds.chance_of_others`): the shards, given in another order than their ranks',
    gather the same work and give the same chance and verdict."""
    files = sorted(glob.glob(f"{FIXTURES}/heldout4/e_recover1/*.pt.trace.json.gz"))
    tables, _ = one_run(read_paths(files, 1))
    whole = measure(tables)
    merged = measure_shards([Shard(tables[3:]), Shard(tables[:1]), Shard(tables[1:3])], 0.1)
    assert [o is not None for o in whole.chance.others] == [False, True, False, False]
    assert merged.chance.others == whole.chance.others
    payload = analysis_payload(judge(whole, 0.1), [])
    same(payload, analysis_payload(merge([Shard(tables[3:]), Shard(tables[:1]), Shard(tables[1:3])], 0.1), []))
    assert [(s["rank"], s["to_step"]) for s in payload["stragglers"]] == [(1, 35)]


def test_the_latest_ranks_of_a_moving_straggler_are_named_alike_merged_from_shards_in_any_order():
    """A straggler that moves among 4 ranks on a busy machine (heldout5/movb_s10: 10 ms in steps of 40, its steps
    under the floor): the steps' latest ranks are named from a cut under the floor (`chance.tops_floor`), which the
    shards, given in another order than their ranks', reach too, and their late rank-steps are the same."""
    files = sorted(glob.glob(f"{FIXTURES}/heldout5/movb_s10/*.jsonl.gz"))
    tables, _ = one_run(read_paths(files, 1))
    payload = analysis_payload(analyze(tables), [])
    latest = payload["noise"]["latest_floor_ms"]
    assert latest is not None and latest < payload["jitter_floor_ms"]
    assert payload["transient"]["straggler_steps"] >= 50
    same(payload, analysis_payload(merge([Shard(tables[2:]), Shard(tables[:1]), Shard(tables[1:2])], 0.1), []))
