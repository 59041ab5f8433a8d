"""The straggler model fitted to runs whose parameters are known: simulated with numpy, and the real runs."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
from paths import FIXTURES
from runs import FORMATS

from ddpcore.analysis import FitError, RunTimes, analyze
from ddpcore.analysis.fitting import at_scale, cluster_config, fit, predicted, what_if, wilson_interval
from ddpcore.model import ClusterConfig, MeasuredTiming, cluster_step
from ddpcore.traces import load

RANKS, STEPS, NOMINAL_MS, OTHER_MS = 64, 500, 26.0, 8.0
SETS = {
    "rare, 2x": dict(cv=0.03, p=0.01, s=2.0, slow=(), ks=1.0),
    "frequent, 3x, two slow ranks": dict(cv=0.05, p=0.05, s=3.0, slow=(5, 40), ks=1.5),
    "very rare, 1.5x, one slow rank": dict(cv=0.02, p=0.002, s=1.5, slow=(17,), ks=1.3),
}


def simulated(cv: float, p: float, s: float, slow: tuple[int, ...], ks: float, seed: int) -> RunTimes:
    """The cluster model's own assumptions, drawn with numpy: lognormal jitter of mean 1, a slowdown s with
    probability p per rank-step, ranks `slow` always ks slower; the step waits for the slowest."""
    rng = np.random.default_rng(seed)
    sigma = math.sqrt(math.log1p(cv * cv))
    jitter = rng.lognormal(-sigma * sigma / 2, sigma, size=(STEPS, RANKS))
    transient = np.where(rng.random((STEPS, RANKS)) < p, s, 1.0)
    persistent = np.ones(RANKS)
    persistent[list(slow)] = ks
    compute = NOMINAL_MS * jitter * transient * persistent
    period = OTHER_MS + compute.max(axis=1)
    return RunTimes.of_compute(compute.tolist(), period.tolist())


@pytest.mark.parametrize("name", sorted(SETS))
def test_interval_of_p_covers_the_truth_in_most_seeds(name):
    truth = SETS[name]
    covered = 0
    for seed in range(50):
        f = fit(simulated(**truth, seed=seed), resamples=0)
        low, high = f.straggler_prob_interval
        covered += low <= truth["p"] <= high
    assert covered >= 45, f"{covered} of 50"


@pytest.mark.parametrize("name", sorted(SETS))
def test_slowdown_jitter_and_persistent_ranks_are_recovered(name):
    truth = SETS[name]
    f = fit(simulated(**truth, seed=1234), resamples=40)
    assert f.slowdown == pytest.approx(truth["s"], rel=0.10)
    assert f.jitter_cv == pytest.approx(truth["cv"], rel=0.15)
    assert f.persistent_ranks == truth["slow"]
    if truth["slow"]:
        assert f.persistent_slowdown == pytest.approx(truth["ks"], rel=0.05)
    assert f.rank_steps == RANKS * STEPS
    assert f.jitter_cv_interval[0] <= f.jitter_cv <= f.jitter_cv_interval[1]
    assert f.slowdown_interval[0] <= f.slowdown <= f.slowdown_interval[1]
    assert f.compute_ms == pytest.approx(NOMINAL_MS, rel=0.02)
    assert predicted(f).error == pytest.approx(0.0, abs=0.05), "the model reproduces the run it was fitted to"


def test_the_bootstrap_is_seeded():
    run = simulated(**SETS["rare, 2x"], seed=7)
    assert fit(run, resamples=20) == fit(run, resamples=20)
    assert fit(run, resamples=20, seed=1).jitter_cv_interval != fit(run, resamples=20, seed=2).jitter_cv_interval


def test_the_capped_bootstrap_gives_the_full_bootstraps_interval(monkeypatch):
    import ddpcore.analysis.fitting

    run = simulated(**SETS["frequent, 3x, two slow ranks"], seed=11)
    capped = fit(run, resamples=100)
    monkeypatch.setattr(ddpcore.analysis.fitting, "BOOTSTRAP_MAX", 10**9)
    full = fit(run, resamples=100)
    assert capped.rank_steps > 4 * 4096, "the cap is in play"
    for name in ("jitter_cv_interval", "slowdown_interval"):
        (a, b), (c, d) = getattr(capped, name), getattr(full, name)
        assert 0.6 < (b - a) / (d - c) < 1.6, (name, (a, b), (c, d))
        assert abs((a + b) - (c + d)) / 2 < (d - c), "centred where the full bootstrap is"


def test_wilson_interval_matches_its_formula_where_known():
    assert wilson_interval(0, 100)[0] == 0.0 and 0.03 < wilson_interval(0, 100)[1] < 0.04
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(1 - high) and low == pytest.approx(0.4038, abs=1e-4)


def test_runs_that_cannot_be_fitted_say_why():
    with pytest.raises(FitError, match="two ranks and two steps"):
        fit(RunTimes.of_compute([[1.0, 2.0]], [3.0]))
    with pytest.raises(FitError, match="positive"):
        fit(RunTimes.of_compute([[-1.0, 0.0], [0.0, -2.0]], [3.0, 3.0]))


def test_a_rank_step_that_cannot_be_weighed_is_left_out_and_named():
    """A work of -0.68 ms (a rank ready before the previous release, on a clock that jumped) loses that rank-step,
    not the fit."""
    rows = [[10.0 + (t * 7 + j * 3) % 5 / 10 for j in range(4)] for t in range(20)]
    rows[12][3] = -0.68
    f = fit(RunTimes.of_compute(rows, [15.0] * 20), resamples=0)
    assert f.unmeasured == ((3, 12),) and f.rank_steps == 79
    assert "unmeasured" in f.caveats and f.caveat_values.items() >= {"count": 1, "rank": 3, "step": 12}.items()


def real(folder: str, pattern: str) -> RunTimes:
    loaded = load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / folder).glob(pattern))])
    assert loaded.errors == ()
    return RunTimes.of_analysis(analyze(loaded.traces))


def test_real_transient_run():
    """p = 0.05 and s = 3 by construction (tests/fixtures/README.md); no persistent straggler."""
    run = real("ddp8_transient", "*.jsonl.gz")
    f = fit(run)
    assert 0.02 <= f.straggler_prob <= 0.09
    assert f.straggler_prob_interval[0] <= 0.05 <= f.straggler_prob_interval[1]
    assert 2.4 <= f.slowdown <= 3.6
    assert f.persistent == 0
    check = predicted(f)
    assert check.gpus == 8 and abs(check.error) <= 0.10
    summary = json.loads(gzip.decompress((FIXTURES / "ddp8_transient" / "rank0.summary.json.gz").read_bytes()))
    truly_slowed = sum(len(ranks) for ranks in summary["slowed_ranks"])
    assert abs(f.slowed_rank_steps - truly_slowed) <= 2


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("run_name", ["s1.5", "s2.0"])
def test_real_persistent_runs(run_name, pattern):
    """Rank 2 computes s times its nominal (a busy loop of (s - 1) x its compute): one slow rank, slowed by s;
    without it, the run steps about as the unslowed run."""
    s = float(run_name[1:])
    run = real(f"ddp8/{run_name}", pattern)
    f = fit(run)
    assert f.persistent_ranks == (2,)
    assert f.persistent_slowdown == pytest.approx(s, rel=0.15)
    saved = what_if(run, f)
    analysis = analyze(
        load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp8" / run_name).glob(pattern))]).traces
    )
    assert saved.step_ms == pytest.approx(analysis.ideal_step_ms), "one page, one answer: the verdict's what-if"
    clean = analyze(load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp8" / "s1.0").glob(pattern))]).traces)
    assert saved.step_ms == pytest.approx(clean.step_ms, rel=0.1)
    assert saved.efficiency < 1 and saved.gpu_hours_saved_per_day > 0


def test_unslowed_run_saves_little_and_its_model_holds():
    """Nothing was injected; what the fit counts as slowed are rank-steps whose step the run's own wall clock shows
    slow (the profiler's window, steps 22-27, and its end held two ranks back by 10 ms in a few steps)."""
    run = real("ddp8/s1.0", "*.jsonl.gz")
    f = fit(run)
    assert f.persistent == 0 and f.straggler_prob < 0.05
    walls = json.loads(gzip.decompress((FIXTURES / "ddp8" / "s1.0" / "rank0.summary.json.gz").read_bytes()))["step_ms"]
    slow = [walls[run.step_numbers[t]] for t, _ in f.slowed]
    assert not slow or sum(slow) / len(slow) > 1.2 * sorted(walls)[len(walls) // 2]
    w = what_if(run, f)
    assert w.step_ms == pytest.approx(w.measured_step_ms, rel=0.05)
    assert abs(predicted(f).error) <= 0.10


def test_at_scale_is_the_cluster_model_with_the_measured_timing():
    f = fit(real("ddp8_transient", "*.jsonl.gz"))
    rows = at_scale(f)
    assert [r.gpus for r in rows] == [8, 1_000, 10_000, 100_000]
    steps = [r.expected_step_ms for r in rows]
    assert steps == sorted(steps), "more ranks, more chances that one straggles"
    config = cluster_config(f, 1_000)
    direct = ClusterConfig(
        gpus=1_000,
        jitter_cv=f.jitter_cv,
        straggler_prob=f.straggler_prob,
        slowdown=f.slowdown,
        persistent_slowdown=1.0,
        timing=MeasuredTiming(f.compute_ms, f.other_ms),
    )
    assert cluster_step(config) == cluster_step(direct) == rows[1]
    assert rows[1].allreduce_ms is None
    ideal = f.other_ms + f.compute_ms
    assert rows[1].ideal_step_ms == pytest.approx(ideal)
    assert min(steps) > ideal


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    from ddpcore.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_fit_json_has_the_contract_keys(capsys):
    files = [str(p) for p in sorted((FIXTURES / "ddp8_transient").glob("*.jsonl.gz"))]
    code, out, err = run_cli(capsys, "analyze", *files, "--fit", "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert set(payload["fit"]) >= {
        "jitter_cv",
        "straggler_prob",
        "straggler_prob_interval",
        "slowdown",
        "slowdown_interval",
        "persistent",
        "persistent_slowdown",
        "rank_steps",
    }
    assert set(payload["whatif"]) >= {"step_ms", "efficiency", "gpu_hours_saved_per_day"}
    assert set(payload["predicted"]) == {"gpus", "expected_step_ms", "measured_step_ms", "error"}
    assert [r["gpus"] for r in payload["at_scale"]] == [8, 1_000, 10_000, 100_000]
    assert 0.02 <= payload["fit"]["straggler_prob"] <= 0.09 and payload["fit"]["rank_steps"] == 312
    code, text, _ = run_cli(capsys, "analyze", *files, "--fit")
    assert "fit over 312 rank-steps" in text and "model check at 8 GPUs" in text


def test_cluster_from_traces_runs_the_fitted_model(capsys):
    files = [str(p) for p in sorted((FIXTURES / "ddp8" / "s1.5").glob("*.jsonl.gz"))]
    code, out, err = run_cli(capsys, "cluster", "--from", *files, "--gpus", "1000", "--json")
    assert code == 0, err
    f = fit(real("ddp8/s1.5", "*.jsonl.gz"))
    assert json.loads(out) == json.loads(json.dumps(cluster_step(cluster_config(f, 1_000)).__dict__))
    code, out, _ = run_cli(capsys, "cluster", "--from", *files, "--json")
    fitted = json.loads(out)["efficiency"]
    code, out, _ = run_cli(capsys, "cluster", "--from", *files, "--persistent", "0", "--json")
    assert json.loads(out)["gpus"] == 8 and json.loads(out)["efficiency"] > fitted + 0.05, "a flag overrides the fit"
    code, out, _ = run_cli(capsys, "cluster", "--from", *files, "--sweep", "--json")
    assert code == 0 and json.loads(out)[0]["gpus"] == 8


def test_cluster_from_unusable_traces_is_one_line(capsys):
    code, out, err = run_cli(capsys, "cluster", "--from", str(FIXTURES / "ddp4" / "rank0.jsonl.gz"))
    assert code == 1 and out == "" and err.strip().count("\n") == 0 and "two ranks" in err
