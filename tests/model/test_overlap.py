"""DDP overlap mode: gradient buckets on one comm stream, against the sequential reference."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ddpcore import Phases, StepConfig, build_schedule, step_metrics
from ddpcore.cli import main
from ddpcore.model import Link, ring_time_ms
from ddpcore.model.comm import busbw_gbps
from ddpcore.model.metrics import compare_modes
from ddpcore.model.schedule import bucket_sizes

AMPLE = Link(bandwidth_gbps=1e5, latency_us=0.0)


def test_sequential_unchanged_with_the_derived_allreduce():
    for slowdown, prefetch, step in ((1.0, False, 44), (1.5, False, 57), (2.0, True, 65)):
        given_ms = step_metrics(StepConfig(slowdown=slowdown, prefetch=prefetch))
        derived = step_metrics(StepConfig(slowdown=slowdown, prefetch=prefetch, link=Link()))
        assert given_ms.step_ms == pytest.approx(step, abs=1e-9)
        assert derived.step_ms == pytest.approx(step, abs=1e-9)
        assert derived.displayed_util == pytest.approx(given_ms.displayed_util, abs=1e-9)


def test_pytorch_bucket_defaults():
    sizes = bucket_sizes(193, 25, 1)
    assert sizes == [1, 25, 25, 25, 25, 25, 25, 25, 17]
    assert bucket_sizes(0.5, 25, 1) == [0.5]
    assert bucket_sizes(26, 25, 1) == [1, 25]


@given(st.floats(0.001, 1e5), st.floats(0.01, 1e4), st.floats(0.001, 1e3))
def test_bucket_sizes_add_up(grad, cap, first):
    assume(grad / cap < 5000)
    sizes = bucket_sizes(grad, cap, first)
    assert math.fsum(sizes) == pytest.approx(grad, rel=1e-12)
    assert all(s > 0 for s in sizes)
    assert all(s <= max(cap, first) * (1 + 1e-12) for s in sizes)


@st.composite
def overlap_configs(draw):
    gpus = draw(st.integers(2, 64))
    link = Link(
        grad_mb=draw(st.floats(1, 2000)), bandwidth_gbps=draw(st.floats(1, 500)), latency_us=draw(st.floats(0, 50))
    )
    return StepConfig(
        gpus=gpus,
        phases=Phases(
            load=draw(st.floats(0, 50)),
            forward=draw(st.floats(0.5, 200)),
            backward=draw(st.floats(1, 400)),
            optimizer=draw(st.floats(0.1, 20)),
        ),
        stragglers=(draw(st.integers(0, gpus - 1)),),
        slowdown=draw(st.floats(1, 10)),
        prefetch=draw(st.booleans()),
        link=link,
        bucket_mb=draw(st.floats(1, 100)),
        first_bucket_mb=draw(st.floats(0.1, 10)),
        mode="overlap",
    )


@settings(max_examples=400, deadline=None)
@given(overlap_configs())
def test_overlap_never_slower_while_a_bucket_takes_longer_to_fill_than_one_ring_latency(config):
    """Each bucket pays the ring's 2(N-1) hop latencies once more than a single AllReduce would. That is hidden as
    long as backward takes at least that long to fill a bucket: then the extra latencies of the buckets still to go
    fit in the backward time still to run, and overlap cannot lose. (Smaller buckets on a high-latency ring can make
    DDP slower than one AllReduce: see the next test.)"""
    link = config.network
    sizes = bucket_sizes(link.grad_mb, config.bucket_mb, config.first_bucket_mb)
    ring_latency_ms = 2 * (config.gpus - 1) * link.latency_us / 1000
    fill_ms = config.phases.backward * min(sizes[1:], default=link.grad_mb) / link.grad_mb
    assume(ring_latency_ms <= fill_ms)
    both = compare_modes(config)
    assert both["overlap"].step_ms <= both["sequential"].step_ms * (1 + 1e-12)
    assert both["overlap"].exposed_comm_ms <= both["sequential"].exposed_comm_ms * (1 + 1e-12)


def test_too_many_small_buckets_on_a_high_latency_ring_can_lose():
    config = StepConfig(gpus=64, link=Link(latency_us=100), bucket_mb=1, mode="overlap")
    both = compare_modes(config)
    assert both["overlap"].step_ms > both["sequential"].step_ms


def test_exposed_comm_is_about_the_last_bucket_with_ample_bandwidth():
    config = StepConfig(mode="overlap", link=Link(bandwidth_gbps=1e4, latency_us=1.0))
    schedule = build_schedule(config)
    last = schedule.buckets[-1]
    assert schedule.exposed_comm_ms == pytest.approx(last.end_ms - last.start_ms, rel=1e-9)
    assert last.start_ms == pytest.approx(schedule.barrier_ms)
    assert step_metrics(config).exposed_comm_ms == pytest.approx(ring_time_ms(8, config.network, last.mb))


@pytest.mark.parametrize("slowdown", [1.5, 2.0, 3.0])
@pytest.mark.parametrize("mode", ["sequential", "overlap"])
def test_straggler_costs_s_minus_1_times_compute_in_both_modes(mode, slowdown):
    config = StepConfig(mode=mode, link=AMPLE, slowdown=slowdown)
    m = step_metrics(config)
    assert m.straggler_cost_ms == pytest.approx((slowdown - 1) * (10 + 16), abs=1e-6)


def test_the_last_bucket_waits_for_the_slowest_rank():
    schedule = build_schedule(StepConfig(mode="overlap", slowdown=2.0))
    straggler_end = schedule.ranks[2].interval("backward").end_ms
    assert schedule.buckets[-1].ready_ms == pytest.approx(straggler_end)
    assert all(b.ready_ms >= schedule.ranks[2].interval("backward").start_ms for b in schedule.buckets)


@settings(max_examples=100, deadline=None)
@given(overlap_configs())
def test_overlap_schedule_shape(config):
    schedule = build_schedule(config)
    for r in schedule.ranks:
        assert [i.phase for i in r.intervals] == ["load", "forward", "backward", "wait", "optimizer"]
        assert all(a.end_ms == b.start_ms for a, b in zip(r.intervals, r.intervals[1:]))
        assert r.intervals[-1].end_ms == schedule.step_ms
        assert r.duration_of("wait") >= 0
    for a, b in zip(schedule.buckets, schedule.buckets[1:]):
        assert b.start_ms >= a.end_ms and b.start_ms >= b.ready_ms
    assert math.fsum(b.mb for b in schedule.buckets) == pytest.approx(config.network.grad_mb, rel=1e-12)
    m = step_metrics(config)
    assert 0 < m.efficiency <= 1 and m.displayed_util >= m.useful_compute
    assert m.busbw_gbps == pytest.approx(busbw_gbps(config.gpus, config.network.grad_mb, schedule.comm_busy_ms))


def test_cli_overlap_json(capsys):
    assert (
        main(
            [
                "step",
                "--mode",
                "overlap",
                "--grad-mb",
                "100",
                "--bucket-mb",
                "25",
                "--first-bucket-mb",
                "1",
                "--bandwidth-gbps",
                "50",
                "--latency-us",
                "10",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "overlap"
    for key in ("exposed_comm_ms", "algbw_gbps", "busbw_gbps"):
        assert data[key] > 0
    assert [b["bytes"] for b in data["buckets"]] == [1_000_000, 25_000_000, 25_000_000, 25_000_000, 24_000_000]
    assert all({"index", "bytes", "start_ms", "end_ms"} <= set(b) for b in data["buckets"])
    assert data["busbw_gbps"] == pytest.approx(data["algbw_gbps"] * 1.75)


def test_cli_sequential_keeps_the_reference(capsys):
    assert main(["step", "--slowdown", "1.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "sequential" and data["step_ms"] == 57 and data["buckets"] == []
    assert data["exposed_comm_ms"] == 10


@pytest.mark.parametrize(
    "argv",
    [
        ["step", "--mode", "pipelined"],
        ["step", "--bucket-mb", "0"],
        ["step", "--allreduce-ms", "5", "--latency-us", "3"],
        ["step", "--bandwidth-gbps", "-1"],
    ],
)
def test_cli_overlap_bad_args(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and argv[1] in err


def test_mode_and_link_validation():
    from ddpcore import ConfigError

    with pytest.raises(ConfigError, match="mode"):
        StepConfig(mode="pipelined")
    with pytest.raises(ConfigError, match="bucket_mb"):
        replace(StepConfig(), bucket_mb=-1)
