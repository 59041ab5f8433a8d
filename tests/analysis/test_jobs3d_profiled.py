"""The 3D-parallel what-if on real runs recorded by PyTorch's profiler alone (tests/fixtures/jobs3d_profiled,
`tests/make_jobs3d_profiled.py`: 4 CPU ranks, 2 stages x 2 DP ranks pipelined by `torch.distributed.pipelining`'s
`Schedule1F1B`, 4 micro-batches, 8 profiled steps), each checked against its measured wall times: the stages and
data-parallel ranks are told from the sends, receives and process groups, and the verdicts are the ones the
scenarios were recorded for."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from ddpcore.analysis import JobWhatIf, job_whatif
from ddpcore.analysis.jobwhatif import IMBALANCE, job_times, job_verdict
from ddpcore.traces import read_job
from ddpcore.traces.optrace import OpTraceError

PROFILED = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_profiled"
SCENARIOS = ("clean", "slow_worker", "heavy_last", "moving_dp")


@cache
def run(name: str) -> tuple[JobWhatIf, dict, object]:
    files = {str(p): p.read_bytes() for p in sorted((PROFILED / name).glob("*.pt.trace.json.gz"))}
    job = read_job(files)
    truth = json.loads((PROFILED / name / "truth.json").read_text())
    return job_whatif(job_times(job.table, job.groups)), truth, job


def measured_ms(truth: dict) -> float:
    """The mean wall time of a profiled iteration, over the ranks."""
    walls = truth["step_ms"]
    return statistics.fmean(statistics.fmean(walls[r][k] for r in walls) for k in truth["profiled_steps"])


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_rank_is_placed_and_each_step_holds_the_schedule(name: str) -> None:
    """Rank r is DP rank r // 2 on stage r % 2 (told from the peers its sends name and the process groups), and
    every worker runs, in each profiled step, 4 forward and 4 backward computes and 4 sends or receives each way."""
    w, truth, job = run(name)
    assert (job.groups.dp, job.groups.pp, job.groups.tp) == (2, 2, 1) and job.notes == ()
    rows = job.table.rows()
    assert {(o.rank, o.dp, o.stage) for o in rows} == {(r, r // 2, r % 2) for r in range(4)}
    assert list(w.steps) == truth["profiled_steps"] and w.skipped == ()
    counts = Counter((o.rank, o.step, o.optype) for o in rows)
    for r in range(4):
        sent = ("forward-send", "backward-recv") if r % 2 == 0 else ("forward-recv", "backward-send")
        for step in truth["profiled_steps"]:
            for optype in ("forward-compute", "backward-compute", *sent):
                assert counts[(r, step, optype)] == truth["micro_batches"], (r, step, optype)
            assert counts[(r, step, "grads-reduce-scatter")] == counts[(r, step, "optimizer")] == 1


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_recorded_step_is_the_measured_one(name: str) -> None:
    """The operations span each step as the loop's wall time measured it, less the profiler's own bookkeeping
    between steps (within 25 %: on these 2 shared cores it takes 3-8 ms of a 35-100 ms iteration, outside every
    operation)."""
    w, truth, _ = run(name)
    spans = [1000 * s for s in w.step_s]
    assert statistics.fmean(spans) == pytest.approx(measured_ms(truth), rel=0.25)
    assert statistics.fmean(spans) < measured_ms(truth)


def test_a_slow_worker_is_named_and_its_fix_is_the_clean_run() -> None:
    w, truth, _ = run("slow_worker")
    said = job_verdict(w)
    assert said[0].code == "job.worker"
    assert (dict(said[0].values)["dp"], dict(said[0].values)["stage"]) == tuple(truth["slow_worker"])
    assert dict(said[0].values)["parts"][0] == "forward-compute"
    clean, _, _ = run("clean")
    assert w.without_worst_s == pytest.approx(statistics.fmean(clean.step_s), rel=0.20)


def test_the_heavy_last_stage_is_named() -> None:
    w, truth, _ = run("heavy_last")
    said = job_verdict(w)
    assert said[0].code == "job.last_stage" and dict(said[0].values)["stage"] == truth["heavy_stage"]
    assert next(iter(w.by_stage)) == truth["heavy_stage"] and w.m_s > run("clean")[0].m_s


def test_a_slow_data_parallel_rank_that_moves_is_uneven_work() -> None:
    w, _, _ = run("moving_dp")
    assert [m.code for m in job_verdict(w)][0] == "job.data_parallel"


def test_the_clean_run_names_no_worker_stage_or_rank() -> None:
    w, _, _ = run("clean")
    assert [m.code for m in job_verdict(w)] == ["job.everywhere"]


TP = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_tp"


@cache
def tensor_parallel(name: str) -> tuple[JobWhatIf, dict, object]:
    """A run of 2 stages x 2 tensor-parallel ranks (`tests/make_jobs3d_tp.py`: a device mesh, Megatron-style
    layers whose all-reduces run amid each forward and backward)."""
    files = {str(p): p.read_bytes() for p in sorted((TP / name).glob("*.pt.trace.json.gz"))}
    job = read_job(files)
    truth = json.loads((TP / name / "truth.json").read_text())
    return job_whatif(job_times(job.table, job.groups)), truth, job


@pytest.mark.parametrize("name", ["clean", "slow_tp"])
def test_tensor_parallel_peers_are_one_worker_their_all_reduces_part_of_its_compute(name: str) -> None:
    """The mesh's `mesh_tp` groups make each pair of pipelines one worker, read from its lowest rank; the all-reduces
    amid the computes are the computes' (a barrier within the group), not operations of the step."""
    w, truth, job = tensor_parallel(name)
    assert (job.groups.dp, job.groups.pp, job.groups.tp) == (truth["dp"], truth["pp"], truth["tp"])
    rows = job.table.rows()
    assert {(o.rank, o.dp, o.stage) for o in rows} == {(0, 0, 0), (2, 0, 1)}
    counts = Counter((o.rank, o.step, o.optype) for o in rows)
    for step in truth["profiled_steps"]:
        for r in (0, 2):
            assert counts[(r, step, "forward-compute")] == counts[(r, step, "backward-compute")] == 4
            assert counts[(r, step, "grads-reduce-scatter")] == 0
    assert list(w.steps) == truth["profiled_steps"]


def test_the_tensor_parallel_rank_its_group_waits_for_is_named() -> None:
    """Rank 1 sleeps in each forward: its TP peer (rank 0, the worker read) waits for it in every all-reduce, so the
    worker of stage 0 is named slow in its forward, and the line on the groups names rank 1."""
    w, truth, job = tensor_parallel("slow_tp")
    said = job_verdict(w)
    assert said[0].code == "job.worker" and (dict(said[0].values)["dp"], dict(said[0].values)["stage"]) == (0, 0)
    assert dict(said[0].values)["parts"][0] == "forward-compute"
    waits = [m for m in job.notes if m.code == "job.tp_waits"]
    assert [(dict(m.values)["rank"], dict(m.values)["dp"], dict(m.values)["stage"]) for m in waits] == [
        (truth["slow_rank"], 0, 0)
    ]
    assert f"rank {truth['slow_rank']} (DP 0, stage 0) makes its tensor-parallel group wait" in waits[0].text()
    assert "étage 0" in waits[0].text("fr")
    _, _, clean = tensor_parallel("clean")
    assert [m.code for m in clean.notes] == ["job.tp_read"]


def test_with_one_worker_a_stage_a_clean_job_names_no_worker_or_stage() -> None:
    """One DP rank: no worker has a peer on its stage, and the clean job's S of 1.04 was half one stage's jitter
    ("one worker (DP 0, stage 1) is slow ... 53 % of the slowdown"); a share names a worker or a stage there only
    when the stage's load stands out (`jobwhatif._stands_out`), as the slow TP rank's stage's does."""
    w, _, _ = tensor_parallel("clean")
    assert not {m.code for m in job_verdict(w)} & {"job.worker", "job.last_stage", "job.heavy_stage"}
    assert w.m_w >= 0.5 and max(w.stage_load.values()) < IMBALANCE <= tensor_parallel("slow_tp")[0].stage_load[0]


INTERLEAVED = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_interleaved"


@cache
def interleaved(name: str) -> tuple[JobWhatIf, dict, object]:
    """A run of `ScheduleInterleaved1F1B` (`tests/make_jobs3d_interleaved.py`: 2 pipeline ranks × 2 DP ranks, 2 model
    chunks a rank, so 4 virtual stages; the last rank's first chunk sends back to the first rank's second)."""
    files = {str(p): p.read_bytes() for p in sorted((INTERLEAVED / name).glob("*.pt.trace.json.gz"))}
    job = read_job(files)
    truth = json.loads((INTERLEAVED / name / "truth.json").read_text())
    return job_whatif(job_times(job.table, job.groups)), truth, job


@pytest.mark.parametrize("name", ["clean", "slow_worker", "moving_dp"])
def test_an_interleaved_schedule_is_read_chunk_by_chunk(name: str) -> None:
    """The schedule's actions (`PP:{stage}F{mb}`, ...) place each compute, send and receive on its virtual stage:
    rank r is DP rank r // 2 on pipeline stage r % 2 and holds virtual stages r % 2 and r % 2 + 2 (chunks 0 and 1);
    each chunk runs 4 forwards and 4 backwards a step; the first rank receives the forwards of its second chunk from
    the last rank (the ring an interleaved schedule makes), and the last rank sends them."""
    w, truth, job = interleaved(name)
    assert (job.groups.dp, job.groups.pp, job.groups.vpp) == (2, 2, truth["vpp"])
    rows = job.table.rows()
    assert {(o.rank, o.dp, o.stage) for o in rows} == {(r, r // 2, r % 2) for r in range(4)}
    assert list(w.steps) == truth["profiled_steps"] and w.skipped == ()
    counts = Counter((o.rank, o.step, o.optype, o.chunk) for o in rows)
    for r in range(4):
        for step in truth["profiled_steps"]:
            for chunk in (0, 1):
                for optype in ("forward-compute", "backward-compute"):
                    assert counts[(r, step, optype, chunk)] == truth["micro_batches"], (r, step, optype, chunk)
            received = (r % 2, 1) if r % 2 == 0 else (r % 2, 0)
            assert counts[(r, step, "forward-recv", received[1])] == truth["micro_batches"]
    sent_back = [o for o in rows if o.stage == 1 and o.optype == "forward-send"]
    assert sent_back and {o.chunk for o in sent_back} == {0}


def test_an_interleaved_step_is_the_measured_one() -> None:
    """The operations span each step as the loop measured it, the last profiled step left out (its wall time holds
    the profiler's export of the trace, several times a step); within 25 %."""
    for name in ("clean", "slow_worker", "moving_dp"):
        w, truth, _ = interleaved(name)
        walls = truth["step_ms"]
        kept = truth["profiled_steps"][:-1]
        measured = statistics.fmean(statistics.fmean(walls[r][k] for r in walls) for k in kept)
        assert statistics.fmean(1000 * s for s in w.step_s) == pytest.approx(measured, rel=0.25), name


def test_an_interleaved_slow_worker_is_placed() -> None:
    """The slow worker (DP rank 1, stage 0: both its chunks sleep in each forward) is the worst DP rank, the worst
    stage and the forward compute; on these shared cores the machine's own jitter holds half the slowdown, so the
    verdict points at it without calling it the one cause."""
    w, truth, _ = interleaved("slow_worker")
    assert next(iter(w.by_dp)) == truth["slow_worker"][0] and next(iter(w.by_stage)) == truth["slow_worker"][1]
    assert next(iter(w.by_optype)) == "forward-compute"
    assert max(w.by_worker, key=lambda k: w.by_worker[k]) == tuple(truth["slow_worker"])
    clean, _, _ = interleaved("clean")
    assert w.slowdown > clean.slowdown + 0.3


def test_an_interleaved_moving_data_parallel_rank_is_uneven_work_and_the_clean_run_jitter() -> None:
    assert [m.code for m in job_verdict(interleaved("moving_dp")[0])][0] == "job.data_parallel"
    assert [m.code for m in job_verdict(interleaved("clean")[0])] == ["job.everywhere"]


def test_the_interleaved_ring_pairs_the_last_rank_with_the_first() -> None:
    """The last stage's forward sends pair with the first stage's forward receives (the next virtual stage lies on
    the first rank), and each compute after a receive waits for it, chunk by chunk."""
    _, _, job = interleaved("clean")
    graph = job_times(job.table, job.groups).graph
    pairs = {g for g in graph.groups if len(g) == 2}
    assert (("forward-send", 0, 1), ("forward-recv", 0, 0)) in pairs
    assert (("backward-send", 0, 0), ("backward-recv", 0, 1)) in pairs
    waited = [k for k, needs in graph.needs.items() if k[0] == "forward-compute" and k[2] == 0 and needs]
    assert any(("forward-recv", 0, 0) in graph.needs[k] for k in waited)


def _with_no_ops(rows: list) -> list:
    """The rows as Megatron's interleaved schedule records them (the artifact's format): a send or receive beside every
    compute, those at either end of the model carrying nothing (a forward receive before each of the first stage's
    first-chunk forwards, a forward send after each of the last stage's last-chunk forwards, and the same for the
    backward), plus a receive posted after the step's work; each of them 1 µs long. Seq ids renumbered in time."""
    from collections import defaultdict
    from dataclasses import replace

    last = max(o.stage for o in rows)
    chunks = max(o.chunk for o in rows)
    added = []
    for o in rows:
        if o.optype == "forward-compute" and o.stage == 0 and o.chunk == 0:
            added.append(replace(o, optype="forward-recv", start=o.start - 2e-6, duration=1e-6))
        if o.optype == "forward-compute" and o.stage == last and o.chunk == chunks:
            added.append(replace(o, optype="forward-send", start=o.end + 1e-6, duration=1e-6))
        if o.optype == "backward-compute" and o.stage == last and o.chunk == chunks:
            added.append(replace(o, optype="backward-recv", start=o.start - 2e-6, duration=1e-6))
        if o.optype == "backward-compute" and o.stage == 0 and o.chunk == 0:
            added.append(replace(o, optype="backward-send", start=o.end + 1e-6, duration=1e-6))
        if o.optype == "optimizer" and o.stage == 0:
            added.append(replace(o, optype="forward-recv", start=o.start - 2e-6, duration=1e-6, chunk=0))
    ordered: dict[tuple, list] = defaultdict(list)
    for o in sorted([*rows, *added], key=lambda o: o.start):
        ordered[(o.dp, o.stage, o.step, o.optype)].append(o)
    return [replace(o, seq=n) for same in ordered.values() for n, o in enumerate(same)]


def test_interleaved_sends_and_receives_that_carry_nothing_change_nothing() -> None:
    """Megatron records a send or receive for every compute of an interleaved schedule, those at the ends of the
    model no-ops, and now and then one beyond the step's work: the what-if reads them as carrying nothing, and gives
    the figures of the same job recorded without them."""
    _, _, job = interleaved("slow_worker")
    rows = job.table.rows()
    bare = job_whatif(job_times(rows, job.groups))
    padded = job_whatif(job_times(_with_no_ops(rows), job.groups))
    assert padded.slowdown == pytest.approx(bare.slowdown, rel=0.01)
    assert padded.by_dp == pytest.approx(bare.by_dp, rel=0.01)
    assert padded.by_stage == pytest.approx(bare.by_stage, rel=0.01)
    assert padded.m_w == pytest.approx(bare.m_w, abs=0.02)


def test_an_interleaved_job_says_its_chunks() -> None:
    from ddpcore.cli.jobverdicts import job_payload, job_text

    payload = job_payload(interleaved("clean")[0])
    assert payload["parallel"]["vpp"] == 2
    assert "2 model chunks a stage (interleaved)" in job_text(payload).splitlines()[0]


VSHAPE = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_vshape"


@cache
def vshaped(name: str) -> tuple[JobWhatIf, dict, object]:
    """A run of `ScheduleZBVZeroBubble` (`JOBS3D_SCHEDULE=ScheduleZBVZeroBubble tests/make_jobs3d_interleaved.py`):
    each rank's two chunks in a V, rank 0 holding the model's first and last stages (0 and 3), rank 1 the middle two
    (1 and 2, one after the other on the same rank)."""
    files = {str(p): p.read_bytes() for p in sorted((VSHAPE / name).glob("*.pt.trace.json.gz"))}
    job = read_job(files)
    truth = json.loads((VSHAPE / name / "truth.json").read_text())
    return job_whatif(job_times(job.table, job.groups)), truth, job


def test_a_v_shaped_schedule_pairs_sends_by_virtual_stage() -> None:
    """Each send pairs with the receive of the next virtual stage wherever it lies: rank 1's stage 2 sends its
    forward back to rank 0's stage 3 (no ring of ranks: stages 1 and 2 share rank 1), and M_S re-times the stage that
    holds the model's last layers, stage 0."""
    w, truth, job = vshaped("slow_worker")
    rows = job.table.rows()
    held = {(o.rank, o.virtual) for o in rows if o.optype.endswith("compute")}
    assert held == {(r, v) for r in range(4) for v in ((0, 3) if r % 2 == 0 else (1, 2))}
    times = job_times(job.table, job.groups)
    virtual = {(o.optype, o.seq, o.stage): o.virtual for o in rows if o.dp == 0 and o.step == times.steps[0]}
    forward = [g for g in times.graph.groups if len(g) == 2 and g[0][0] == "forward-send"]
    assert forward and all(virtual[g[1]] == virtual[g[0]] + 1 for g in forward)
    assert times.graph.last_stage == 0 and w.last_stage == 0


def test_a_v_shaped_slow_worker_is_named_and_a_moving_rank_is_uneven_work() -> None:
    w, truth, _ = vshaped("slow_worker")
    said = job_verdict(w)
    assert said[0].code == "job.worker"
    assert (dict(said[0].values)["dp"], dict(said[0].values)["stage"]) == tuple(truth["slow_worker"])
    assert [m.code for m in job_verdict(vshaped("moving_dp")[0])] == ["job.data_parallel"]


def _unshaped(data: bytes) -> bytes:
    """A profiler trace as recorded without `record_shapes`: no operation's inputs."""
    import gzip

    top = json.loads(gzip.decompress(data))
    for e in top["traceEvents"]:
        if isinstance(e.get("args"), dict):
            e["args"].pop("Concrete Inputs", None)
            e["args"].pop("Input Dims", None)
    return json.dumps(top).encode()


def test_an_interleaved_schedule_recorded_without_shapes_reads_its_pipelines_from_its_process_groups() -> None:
    """Without `record_shapes` no send names its peer, but the schedule's actions name each rank's virtual stages:
    the pipelines are the process groups whose ranks hold the model's stages each once, and the job reads as with
    the peers named."""
    files = {str(p): p.read_bytes() for p in sorted((INTERLEAVED / "slow_worker").glob("*.pt.trace.json.gz"))}
    bare = read_job({name: _unshaped(data) for name, data in files.items()})
    _, _, job = interleaved("slow_worker")
    assert bare.groups == job.groups and bare.table.rows() == job.table.rows()
    profiled_1f1b = {str(p): p.read_bytes() for p in sorted((PROFILED / "clean").glob("*.pt.trace.json.gz"))}
    with pytest.raises(OpTraceError, match="record_shapes"):
        read_job({name: _unshaped(data) for name, data in profiled_1f1b.items()})
