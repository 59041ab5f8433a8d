"""Write the held-out pipeline-parallel truth runs (tests/fixtures/jobs3d_heldout), recorded by a helper that never
read the job what-if's code, to score it blind: shapes and kinds the other jobs3d sets do not hold (1 DP x 4 stages,
GPipe, a heavy first stage, a slow backward, a busy machine). Each run: a CPU job on gloo, one process per rank, one
torch thread per rank, rank r is data-parallel rank r // PP on stage r % PP. Delays are time.sleep only. Each
iteration's wall time (loop top to loop top) of every rank is written to truth.json with what was slowed.

Regenerate (not part of the tests; needs torch, which the tests do not):

    PYTHONPATH=. /tmp/torchvenv/bin/python -m tests.make_jobs3d_heldout tests/fixtures/jobs3d_heldout [NAME ...]
    (NAME:TAG records a repeat of NAME into repeats/NAME_TAG)

Recorder runs write dp{d}-stage{s}.jsonl.gz (ddpcore.ops.JobRecorder); profiled runs write rank{r}.pt.trace.json.gz
(torch.profiler only, torch.distributed.pipelining).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

WIDTH, LAYERS, MICRO, BATCH, FROM_STEP = 256, 3, 4, 16, 3
STEPS = int(os.environ.get("HELDOUT_STEPS", "40"))
P_WAIT, P_ACTIVE = 3, 6  # profiled runs: wait 3, warmup 1, active 6
P_STEPS = P_WAIT + 1 + P_ACTIVE

# name -> configuration
RUNS: dict[str, dict] = {
    "pp4_clean": dict(dp=1, pp=4, schedule="1F1B"),
    "pp4_slow_stage2_bwd": dict(
        dp=1, pp=4, schedule="1F1B", slow=dict(workers=[[0, 2]], op="backward-compute", ms=12.0)
    ),
    "dp2pp2_clean": dict(dp=2, pp=2, schedule="1F1B"),  # extra: baseline of the 2x2 1F1B shape
    "dp2pp2_gpipe_clean": dict(dp=2, pp=2, schedule="GPipe"),  # extra: baseline of the 2x2 GPipe shape
    "dp2pp2_gpipe_slow_worker": dict(
        dp=2, pp=2, schedule="GPipe", slow=dict(workers=[[0, 1]], op="forward-compute", ms=10.0)
    ),
    "dp2pp2_heavy_first": dict(dp=2, pp=2, schedule="1F1B", layers=[3 * LAYERS, LAYERS]),
    "dp2pp2_moving": dict(dp=2, pp=2, schedule="1F1B", moving=dict(op="forward-compute", ms=10.0)),
    "dp2pp2_clean_busy": dict(dp=2, pp=2, schedule="1F1B", busy=True),
    "dp2pp2_profiled_clean": dict(dp=2, pp=2, schedule="Schedule1F1B", profiled=True),  # extra baseline
    "dp2pp2_profiled_slow_worker": dict(
        dp=2, pp=2, schedule="Schedule1F1B", profiled=True, slow=dict(workers=[[1, 1]], op="forward-compute", ms=10.0)
    ),
}


def layers_of(cfg: dict, stage: int) -> int:
    return cfg.get("layers", [LAYERS] * cfg["pp"])[stage]


def sleep_ms(cfg: dict, dp: int, stage: int, step: int, op: str) -> float:
    """How long this worker sleeps in each micro-batch's `op` at this step."""
    if step < FROM_STEP:
        return 0.0
    slow = cfg.get("slow")
    if slow and [dp, stage] in slow["workers"] and slow["op"] == op:
        return slow["ms"]
    moving = cfg.get("moving")
    if moving and moving["op"] == op and dp == step % cfg["dp"]:
        return moving["ms"]
    return 0.0


def order_of(schedule: str, stage: int, pp: int) -> list[str]:
    if schedule == "GPipe":
        return ["F"] * MICRO + ["B"] * MICRO
    warm = min(pp - stage - 1, MICRO)
    return ["F"] * warm + ["F", "B"] * (MICRO - warm) + ["B"] * warm


def make_model(torch, depth: int):  # type: ignore[no-untyped-def]
    return torch.nn.Sequential(
        *[torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()) for _ in range(depth)]
    )


def recorder_worker(rank: int, name: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist

    from ddpcore.ops import JobRecorder
    from ddpcore.ops.jobrecorder import JobSizes

    cfg = RUNS[name]
    DP, PP = cfg["dp"], cfg["pp"]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=DP * PP, init_method=f"tcp://127.0.0.1:{port}")
    dp, stage = rank // PP, rank % PP
    prev, nxt = rank - 1, rank + 1
    dp_group = [dist.new_group([d * PP + s for d in range(DP)]) for s in range(PP)][stage]
    torch.manual_seed(stage)
    model = make_model(torch, layers_of(cfg, stage))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    out = gzip.open(Path(folder) / f"dp{dp}-stage{stage}.jsonl.gz", "wt", encoding="utf-8")  # noqa: SIM115 (the recorder closes it)
    rec = JobRecorder(out, rank=rank, dp_rank=dp, stage=stage, sizes=JobSizes(dp=DP, pp=PP), name=name)
    sends: list[threading.Thread] = []

    def send(kind: str, tensor, to: int, mb: int) -> None:  # type: ignore[no-untyped-def]
        start, seq = time.time(), rec.place(kind)
        handle = dist.isend(tensor.contiguous(), to)

        def finished() -> None:
            handle.wait()
            rec.record(kind, start, time.time(), mb, seq=seq)

        t = threading.Thread(target=finished)
        t.start()
        sends.append(t)

    walls: list[float] = []
    data = torch.randn(MICRO, BATCH, WIDTH, generator=torch.Generator().manual_seed(dp))
    target = torch.randn(MICRO, BATCH, WIDTH, generator=torch.Generator().manual_seed(10 + dp))
    first, last = stage == 0, stage == PP - 1
    top = time.time()
    for step in rec.steps(range(STEPS)):
        opt.zero_grad(set_to_none=True)
        inputs: dict = {}
        outputs: dict = {}
        f = b = 0
        for kind in order_of(cfg["schedule"], stage, PP):
            if kind == "F":
                mb, f = f, f + 1
                if not first:
                    x = torch.empty(BATCH, WIDTH)
                    with rec.op("forward-recv"):
                        dist.recv(x, prev)
                    x.requires_grad_(True)
                else:
                    x = data[mb]
                with rec.op("forward-compute", micro_batch=mb):
                    ms = sleep_ms(cfg, dp, stage, step, "forward-compute")
                    if ms:
                        time.sleep(ms / 1000)
                    y = model(x)
                    if last:
                        y = torch.nn.functional.mse_loss(y, target[mb])
                inputs[mb], outputs[mb] = x, y
                if not last:
                    send("forward-send", y.detach(), nxt, mb)
            else:
                mb, b = b, b + 1
                grad = None
                if not last:
                    grad = torch.empty(BATCH, WIDTH)
                    with rec.op("backward-recv"):
                        dist.recv(grad, nxt)
                with rec.op("backward-compute", micro_batch=mb):
                    ms = sleep_ms(cfg, dp, stage, step, "backward-compute")
                    if ms:
                        time.sleep(ms / 1000)
                    if last:
                        outputs[mb].backward()
                    else:
                        outputs[mb].backward(grad)
                if not first:
                    send("backward-send", inputs[mb].grad, prev, mb)
        for t in sends:
            t.join()
        sends.clear()
        flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
        with rec.op("grads-reduce-scatter"):
            dist.all_reduce(flat, group=dp_group)
        norm = flat.norm().reshape(1) ** 2
        with rec.op("optimizer-clip-main-grad"):
            dist.all_reduce(norm)
        with rec.op("optimizer"):
            opt.step()
        now = time.time()
        walls.append((now - top) * 1000)
        top = now
    rec.close()
    out.close()
    (Path(folder) / f"wall{rank}.json").write_text(json.dumps(walls))
    dist.destroy_process_group()


def profiled_worker(rank: int, name: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B
    from torch.profiler import ProfilerActivity, profile, schedule

    cfg = RUNS[name]
    DP, PP = cfg["dp"], cfg["pp"]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=DP * PP, init_method=f"tcp://127.0.0.1:{port}")
    dp, stage = rank // PP, rank % PP
    pp_group = [dist.new_group([d * PP + s for s in range(PP)]) for d in range(DP)][dp]
    dp_group = [dist.new_group([d * PP + s for d in range(DP)]) for s in range(PP)][stage]
    torch.manual_seed(stage)
    layers = make_model(torch, layers_of(cfg, stage))
    step_now = [0]

    class Slowed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = layers

        def forward(self, x):  # type: ignore[no-untyped-def]
            ms = sleep_ms(cfg, dp, stage, step_now[0], "forward-compute")
            if ms:
                time.sleep(ms / 1000)
            return self.layers(x)

    model = Slowed()
    pipe = PipelineStage(model, stage, PP, torch.device("cpu"), group=pp_group)
    sched = Schedule1F1B(pipe, MICRO, loss_fn=torch.nn.functional.mse_loss)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(dp))
    target = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(10 + dp))
    walls: list[float] = []
    window = schedule(wait=P_WAIT, warmup=1, active=P_ACTIVE, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, schedule=window) as prof:
        top = time.time()
        for step in range(P_STEPS):
            step_now[0] = step
            opt.zero_grad(set_to_none=True)
            if stage == 0:
                sched.step(data)
            else:
                sched.step(target=target)
            flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
            dist.all_reduce(flat, group=dp_group)
            opt.step()
            prof.step()
            now = time.time()
            walls.append((now - top) * 1000)
            top = now
    plain = Path(folder) / f"rank{rank}.json"
    prof.export_chrome_trace(str(plain))
    with gzip.open(Path(folder) / f"rank{rank}.pt.trace.json.gz", "wt", encoding="utf-8") as o:
        o.write(plain.read_text())
    plain.unlink()
    (Path(folder) / f"wall{rank}.json").write_text(json.dumps(walls))
    dist.destroy_process_group()


def record(root: Path, arg: str, port: int) -> None:
    """`arg` is a run's name, or NAME:TAG for a repeat written to repeats/NAME_TAG."""
    import torch
    import torch.multiprocessing as mp

    name, _, tag = arg.partition(":")
    cfg = RUNS[name]
    world = cfg["dp"] * cfg["pp"]
    folder = root / name if not tag else root / "repeats" / f"{name}_{tag}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    busy = None
    if cfg.get("busy"):
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)
    t0 = time.time()
    try:
        worker = profiled_worker if cfg.get("profiled") else recorder_worker
        mp.spawn(worker, args=(name, str(folder), port), nprocs=world, join=True)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    walls = {str(r): json.loads((folder / f"wall{r}.json").read_text()) for r in range(world)}
    for r in range(world):
        (folder / f"wall{r}.json").unlink()
    steps = P_STEPS if cfg.get("profiled") else STEPS
    slowed = None
    if cfg.get("slow"):
        s = cfg["slow"]
        slowed = {
            "what": "one worker",
            "workers_dp_stage": s["workers"],
            "op": s["op"],
            "sleep_ms_per_micro_batch": s["ms"],
            "from_step": FROM_STEP,
            "where": "time.sleep at the start of the op"
            if not cfg.get("profiled")
            else "time.sleep at the start of the stage module's forward",
        }
    elif cfg.get("moving"):
        slowed = {
            "what": "moving DP rank: DP rank (step % 2), both its stages",
            "op": cfg["moving"]["op"],
            "sleep_ms_per_micro_batch": cfg["moving"]["ms"],
            "from_step": FROM_STEP,
        }
    layers = [layers_of(cfg, s) for s in range(cfg["pp"])]
    truth = {
        "scenario": name,
        "repeat": tag or None,
        "world": world,
        "dp": cfg["dp"],
        "pp": cfg["pp"],
        "rank_layout": "rank r = DP rank r // pp, stage r % pp",
        "micro_batches": MICRO,
        "schedule": cfg["schedule"],
        "recorded_with": "torch.profiler (record_shapes=True), torch.distributed.pipelining"
        if cfg.get("profiled")
        else "ddpcore.ops.JobRecorder",
        "steps": steps,
        "profiled_steps": list(range(P_WAIT + 1, P_STEPS)) if cfg.get("profiled") else None,
        "from_step": FROM_STEP,
        "layers_per_stage": layers,
        "width": WIDTH,
        "batch_per_micro_batch": BATCH,
        "slowed": slowed,
        "heavy_stage": (layers.index(max(layers)) if len(set(layers)) > 1 else None),
        "competing_cpu_process": bool(cfg.get("busy")),
        "torch": torch.__version__,
        "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S"),
        "elapsed_s": round(time.time() - t0, 1),
        "step_ms": walls,
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=1))
    lo = P_WAIT + 1 if cfg.get("profiled") else FROM_STEP
    mean = sum(sum(w[lo:]) / len(w[lo:]) for w in walls.values()) / world
    print(f"{arg}: mean iteration {mean:.1f} ms (steps {lo}..), {truth['elapsed_s']} s", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/fixtures/jobs3d_heldout")
    names = sys.argv[2:] or list(RUNS)
    for k, n in enumerate(names):
        record(root, n, 30500 + k + (os.getpid() % 100) * 10)
