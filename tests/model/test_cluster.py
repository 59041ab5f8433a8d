"""Cluster scale: the exact slowest-rank distribution against a numpy Monte Carlo that samples every rank."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore import StepConfig, step_metrics
from ddpcore.cli import main
from ddpcore.model import ClusterConfig, Link, MeasuredTiming, cluster_step, cluster_sweep, ring_time_ms
from ddpcore.model.cluster import cluster_allreduce_ms, sweep_sizes


def monte_carlo(config: ClusterConfig, trials: int, seed: int) -> np.ndarray:
    """Compute time of the slowest rank, sampling every rank of every trial."""
    rng = np.random.default_rng(seed)
    nominal = config.phases.forward + config.phases.backward
    sigma = math.sqrt(math.log1p(config.jitter_cv**2))
    out = np.empty(trials)
    chunk = max(1, 4_000_000 // config.gpus)
    slow = np.ones(config.gpus)
    slow[: config.persistent] = config.persistent_slowdown
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        jitter = (
            rng.lognormal(-(sigma**2) / 2, sigma, size=(n, config.gpus)) if sigma > 0 else np.ones((n, config.gpus))
        )
        transient = np.where(rng.random((n, config.gpus)) < config.straggler_prob, config.slowdown, 1.0)
        out[start : start + n] = (nominal * jitter * transient * slow).max(axis=1)
    return out


CASES = [
    (ClusterConfig(gpus=8, straggler_prob=0.02), 40_000),
    (ClusterConfig(gpus=64, jitter_cv=0.05, straggler_prob=0.005, slowdown=1.5), 20_000),
    (ClusterConfig(gpus=512, jitter_cv=0.02, straggler_prob=1e-3, persistent=2, persistent_slowdown=1.3), 6_000),
    (ClusterConfig(gpus=4096), 5_000),
    (ClusterConfig(gpus=4096, jitter_cv=0.1, straggler_prob=1e-4, slowdown=3.0), 3_000),
]


@pytest.mark.parametrize(("config", "trials"), CASES)
def test_expected_step_matches_monte_carlo(config, trials):
    result = cluster_step(config)
    samples = monte_carlo(config, trials, seed=config.gpus)
    fixed = config.phases.load + cluster_allreduce_ms(config) + config.phases.optimizer
    mean, se = samples.mean(), samples.std(ddof=1) / math.sqrt(trials)
    assert abs(result.expected_step_ms - fixed - mean) <= 3 * se + 1e-9, (result.expected_step_ms - fixed, mean, se)
    for q, value in ((0.5, result.p50_step_ms), (0.99, result.p99_step_ms)):
        below = float(np.mean(samples <= value - fixed + 1e-12))
        assert abs(below - q) <= 3 * math.sqrt(q * (1 - q) / trials) + 1e-3, (q, below)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10_000_000), st.floats(0, 1))
def test_p_any_straggler_at_any_scale(n, p):
    """Against counts drawn by numpy: in each of 20,000 steps, how many of the n ranks straggled."""
    trials = 20_000
    result_p = cluster_step(ClusterConfig(gpus=n, straggler_prob=p)).p_any_straggler
    seen = float(np.mean(np.random.default_rng(n).binomial(n, p, size=trials) > 0))
    assert abs(result_p - seen) <= 4 * math.sqrt(result_p * (1 - result_p) / trials) + 1e-3, (result_p, seen)


def sampled_max(config: ClusterConfig, trials: int, seed: int) -> np.ndarray:
    """The slowest rank's compute, drawn without sampling every rank: for n iid ranks of CDF F, max = F^-1(U^(1/n)),
    solved by bisection on F written out (lognormal jitter, slowed with probability p). Persistent ranks are a
    second group. Reaches a million ranks, where sampling each rank cannot."""
    rng = np.random.default_rng(seed)
    nominal = config.phases.forward + config.phases.backward
    sigma = max(math.sqrt(math.log1p(config.jitter_cv**2)), 1e-12)
    erfc = np.vectorize(math.erfc)

    def cdf(x: np.ndarray, scale: float) -> np.ndarray:
        def lognormal(at: float) -> np.ndarray:
            z = (np.log(x / at) + sigma**2 / 2) / sigma
            return 0.5 * erfc(-z / math.sqrt(2))

        p = config.straggler_prob
        return (1 - p) * lognormal(nominal * scale) + p * lognormal(nominal * scale * config.slowdown)

    def group_max(n: int, scale: float) -> np.ndarray:
        if n == 0:
            return np.zeros(trials)
        target = np.exp(np.log(rng.random(trials)) / n)
        lo, hi = np.full(trials, nominal * scale * 0.2), np.full(trials, nominal * scale * config.slowdown * 5)
        for _ in range(60):
            mid = (lo + hi) / 2
            below = cdf(mid, scale) < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return (lo + hi) / 2

    k = config.persistent
    return np.maximum(group_max(config.gpus - k, 1.0), group_max(k, config.persistent_slowdown))


AT_SCALE = [
    ClusterConfig(gpus=100_000, jitter_cv=0.03, straggler_prob=1e-5, slowdown=2.0),
    ClusterConfig(gpus=1_000_000, jitter_cv=0.02, straggler_prob=1e-4, slowdown=1.5),
    ClusterConfig(gpus=1_000_000, jitter_cv=0.05, straggler_prob=1e-7, slowdown=3.0, persistent=3),
    ClusterConfig(gpus=10_000_000, jitter_cv=0.02, straggler_prob=0.0),
]


@pytest.mark.parametrize("config", AT_SCALE, ids=lambda c: f"{c.gpus}")
def test_expected_step_at_scale_matches_sampled_maxima(config):
    trials = 4_000
    result = cluster_step(config)
    samples = sampled_max(config, trials, seed=7)
    fixed = config.phases.load + cluster_allreduce_ms(config) + config.phases.optimizer
    mean, se = samples.mean(), samples.std(ddof=1) / math.sqrt(trials)
    assert abs(result.expected_step_ms - fixed - mean) <= 4 * se + 1e-6 * mean, (result.expected_step_ms - fixed, mean)
    below = float(np.mean(samples <= result.p99_step_ms - fixed))
    assert abs(below - 0.99) <= 4 * math.sqrt(0.99 * 0.01 / trials), below


def test_non_decreasing_in_n():
    results = cluster_sweep(ClusterConfig(allreduce="tree"))
    steps = [r.expected_step_ms for r in results]
    assert all(b >= a - 1e-9 for a, b in zip(steps, steps[1:]))
    compute = [r.expected_compute_ms for r in results]
    assert all(b >= a - 1e-9 for a, b in zip(compute, compute[1:]))
    assert [r.gpus for r in results][0] == 8 and results[-1].gpus == 1_000_000


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([8, 100, 5000, 1_000_000]),
    st.floats(0, 0.2),
    st.floats(0, 0.2),
    st.floats(0, 0.01),
    st.floats(0, 0.01),
    st.floats(1, 5),
    st.floats(1, 5),
)
def test_non_decreasing_in_p_s_and_cv(n, cv_a, cv_b, p_a, p_b, s_a, s_b):
    base = ClusterConfig(gpus=n, allreduce="tree")

    def compute(**kw):
        return cluster_step(replace(base, **kw)).expected_compute_ms

    def ordered(lo_kw, hi_kw):
        assert compute(**lo_kw) <= compute(**hi_kw) * (1 + 1e-5), "beyond the grid's ~1e-6 relative accuracy"

    ordered({"jitter_cv": min(cv_a, cv_b)}, {"jitter_cv": max(cv_a, cv_b)})
    ordered({"straggler_prob": min(p_a, p_b)}, {"straggler_prob": max(p_a, p_b)})
    ordered({"slowdown": min(s_a, s_b)}, {"slowdown": max(s_a, s_b)})


def test_eight_gpu_defaults_agree_with_the_step_model():
    assert cluster_allreduce_ms(ClusterConfig()) == pytest.approx(StepConfig().phases.allreduce, abs=1e-12)
    assert ring_time_ms(8, Link()) == pytest.approx(10.0, abs=1e-12)
    quiet = cluster_step(ClusterConfig(jitter_cv=0, straggler_prob=0))
    assert quiet.expected_step_ms == pytest.approx(step_metrics(StepConfig()).step_ms, abs=1e-6)
    assert quiet.efficiency == pytest.approx(1.0, abs=1e-6)
    slow = cluster_step(ClusterConfig(jitter_cv=0, straggler_prob=0, persistent=1, persistent_slowdown=2))
    assert slow.expected_step_ms == pytest.approx(step_metrics(StepConfig(slowdown=2)).step_ms, abs=1e-6)
    assert slow.efficiency == pytest.approx(step_metrics(StepConfig(slowdown=2)).efficiency, abs=1e-6)


def test_gpu_hours_lost():
    """Worked by hand: 1,000 ranks all twice slow, 30 ms of compute and 10 of the rest: steps of 70 ms instead of
    40, so 30/70 of 24,000 GPU-hours a day are lost."""
    timing = MeasuredTiming(30.0, 10.0)
    config = ClusterConfig(
        gpus=1000, jitter_cv=0, straggler_prob=0, persistent=1000, persistent_slowdown=2, timing=timing
    )
    r = cluster_step(config)
    assert (r.expected_step_ms, r.ideal_step_ms) == (pytest.approx(70.0, rel=1e-6), pytest.approx(40.0))
    assert r.gpu_hours_lost_per_day == pytest.approx(10_285.714, rel=1e-6)


def test_tree_latency_grows_with_log2_n():
    c = ClusterConfig(allreduce="tree", link=Link(latency_us=100, grad_mb=1e-6))
    assert cluster_allreduce_ms(c, 1024) == pytest.approx(2 * 10 * 0.1, rel=1e-6)
    assert cluster_allreduce_ms(c, 1_048_576) == pytest.approx(2 * 20 * 0.1, rel=1e-6)


def test_sweep_sizes_are_log_spaced():
    sizes = sweep_sizes()
    assert sizes[0] == 8 and sizes[-1] == 1_000_000
    ratios = [b / a for a, b in zip(sizes, sizes[1:])]
    assert max(ratios) / min(ratios) < 1.2


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"gpus": 1}, "gpus"),
        ({"jitter_cv": 2}, "jitter_cv"),
        ({"straggler_prob": -0.1}, "straggler_prob"),
        ({"persistent": 9}, "persistent"),
        ({"allreduce": "mesh"}, "allreduce"),
        ({"slowdown": math.nan}, "slowdown"),
    ],
)
def test_invalid_cluster_config(kwargs, field):
    from ddpcore import ConfigError

    with pytest.raises(ConfigError) as info:
        ClusterConfig(**kwargs)
    assert info.value.field == field


def test_cli_cluster_json(capsys):
    assert main(["cluster", "--gpus", "1000000", "--allreduce", "tree", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "gpus",
        "expected_step_ms",
        "p50_step_ms",
        "p99_step_ms",
        "efficiency",
        "p_any_straggler",
        "gpu_hours_lost_per_day",
    ):
        assert key in data
    assert data["gpus"] == 1_000_000
    assert data["p_any_straggler"] == pytest.approx(1.0, abs=1e-40), "a hundred stragglers expected a step"
    assert 0 < data["efficiency"] < 1


def test_cli_cluster_sweep(capsys):
    assert main(["cluster", "--sweep", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["gpus"] == 8 and rows[-1]["gpus"] == 1_000_000
    assert main(["cluster", "--sweep"]) == 0
    assert "1,000,000" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["cluster", "--straggler-prob", "2"],
        ["cluster", "--allreduce", "mesh"],
        ["cluster", "--gpus", "0"],
        ["cluster", "--latency-us", "nan"],
    ],
)
def test_cli_cluster_bad_args(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and argv[1] in err
