"""The 3D-parallel what-if on a second held-out set of real pipeline runs (tests/fixtures/jobs3d_heldout2,
`tests/make_jobs3d_heldout2.py`), recorded and scored blind on 2026-12-07 by a helper that never read the what-if's
code: 3 stages, 3 DP ranks, a slow first-stage backward, a heavy last stage under 1F1B and GPipe, a DP rank that
moves over 3 ranks, and one that moves in a profiled 6-step window.

Scored blind, six of eight were right; the clean job of 3 DP ranks x 2 stages was called uneven work across DP ranks
(each rank alone gave back 62-69 % of its S of 1.70, under the 75 % one slow rank gives back, and the slowest rank
of each step changed as chance makes it change). Uneven work is now also read in the stages: a DP rank given more
work is slower on every stage the same data flows through, where jitter is each stage's own
(`jobwhatif.together_chance`: chance makes the clean job's DP ranks agree across stages as much in 30 % of runs,
the moving one's and the published SE's in none a float holds). The clean pipeline of one DP rank says "no single
place" (`spread`), as the first set's did.

Left as measured, not asserted: with one DP rank the slow first-stage backward is also read as a stage holding too
much of the model (one worker and one stage cannot be told apart there, and both are said), and the heavy last
stage of one DP rank did not slow the measured step (0.94 of the clean run's, 1.18 and 0.99 in two recordings the
helper did not keep): its S of 1.46 against the clean job's 1.52 says so too."""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import job_run, names_the_slow_worker

from ddpcore.analysis import JobWhatIf
from ddpcore.analysis.jobwhatif import job_verdict
from ddpcore.analysis.odds import ALPHA
from ddpcore.cli.jobverdicts import job_payload

HELD = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_heldout2"
BLAMES = ("job.worker", "job.last_stage", "job.heavy_stage", "job.data_parallel")
MOVING = ("dp3pp2_moving", "dp2pp2_profiled_moving")


def run(name: str) -> tuple[JobWhatIf, dict]:
    return job_run(HELD, name)


@pytest.mark.parametrize("name", ["dp3pp2_clean", "pp3_clean"])
def test_a_clean_job_blames_no_worker_stage_or_rank(name: str) -> None:
    w, _ = run(name)
    assert not {m.code for m in job_verdict(w)} & set(BLAMES)


def test_a_clean_job_s_data_parallel_ranks_do_not_agree_across_stages() -> None:
    """Every DP rank alone gives back most of the clean job's slowdown, and the slowest one changes from step to step
    as chance makes it: what told it from uneven work is that its ranks' compute does not agree across stages."""
    w, _ = run("dp3pp2_clean")
    assert w.stages_together is not None and w.stages_together > ALPHA
    assert job_payload(w)["diagnosis"]["kind"] == "everywhere"


@pytest.mark.parametrize("name", MOVING)
def test_a_slow_data_parallel_rank_that_moves_is_uneven_work(name: str) -> None:
    w, _ = run(name)
    assert w.stages_together is not None and w.stages_together <= ALPHA
    assert job_verdict(w)[0].code == "job.data_parallel"
    assert job_payload(w)["diagnosis"]["kind"] == "uneven_work"


@pytest.mark.parametrize("name", ["dp3pp2_slow_worker", "pp3_slow_stage0_bwd"])
def test_a_slow_worker_is_named_with_its_operation(name: str) -> None:
    assert names_the_slow_worker(*run(name))


@pytest.mark.parametrize("name", ["pp3_heavy_last", "dp2pp2_gpipe_heavy_last"])
def test_a_heavy_last_stage_is_named(name: str) -> None:
    w, truth = run(name)
    diagnosis = job_payload(w)["diagnosis"]
    assert diagnosis["kind"] == "stage_imbalance" and diagnosis["stage"] == truth["heavy_stage"] == w.groups.pp - 1
