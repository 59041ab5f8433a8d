"""Write the real-run fixtures of the framework integrations (`ddpcore.integrations`): 4-rank CPU jobs (gloo, one
thread a rank) on a tiny model built from a config (nothing downloaded), each once clean and once with rank 1
sleeping 20 ms more in its forward, recorded by the integration itself, with each iteration's wall time as the
truth. Every rank's forward sleeps DEVICE_S as well, the device's time, so that the ranks hardly share the cores.

- `lightning`: a Lightning `Trainer(strategy="ddp", devices=4)` on a small multilayer perceptron, with
  `lightning_callback()`; Lightning starts the other ranks itself.
- `transformers`: a Hugging Face `Trainer` on a 1-layer GPT-2 of width 32, with `trainer_callback()`, under
  `torchrun --nproc_per_node 4`.
- `fsdp`: a loop of its own on a 4-layer perceptron sharded by FSDP2 (`fully_shard` on each layer and the model),
  recorded by the hooks of `accelerate_steps` (a Lightning `fsdp` strategy needs GPUs), under `torchrun`: what the
  hooks write under FSDP, where the ranks wait for a slow one at the all-gathers of their forward
  (docs/production.md).

Regenerate (not part of the tests; needs torch, Lightning and transformers, which the tests do not):

    /tmp/torchvenv/bin/pip install lightning transformers      # beside the CPU torch of tests/make_traces.py
    /tmp/torchvenv/bin/python -m tests.make_integrations tests/fixtures/integrations          # every framework
    /tmp/torchvenv/bin/python -m tests.make_integrations tests/fixtures/integrations fsdp     # one of them

on an otherwise idle machine (a process taking CPU while a run records changes its truth). Each run's folder holds
`rank{r}.jsonl.gz` as the integration wrote it (gzipped after) and `truth.json`: every rank's wall time of each
iteration (from one step's start to the next), the slowed rank and its sleep, the framework and its version.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

WORLD = 4
STEPS = 60
SLEEP_S = 0.02
DEVICE_S = 0.03
"""Every rank's forward also sleeps this long, as a GPU's kernels keep the host waiting: the 4 ranks then share the 2
cores little, and the slowed rank's sleep does not hand its core to the others (which would speed them up and make
the run's growth less than what the slow rank holds them back by)."""
SLOW_RANK = 1
SCENARIOS = ("clean", "slow")


def _sleep(rank: int, scenario: str) -> None:
    """A forward's sleep: the device's share, and the slowed rank's delay."""
    time.sleep(DEVICE_S + (SLEEP_S if scenario == "slow" and rank == SLOW_RANK else 0.0))


class _Walls:
    """Each iteration's start on this rank (perf counter seconds), written to `walls-rank{r}.json` at the end."""

    def __init__(self) -> None:
        self.starts: list[float] = []

    def mark(self) -> None:
        self.starts.append(time.perf_counter())

    def write(self, folder: Path, rank: int) -> None:
        (folder / f"walls-rank{rank}.json").write_text(json.dumps(self.starts))


def _lightning(folder: Path, scenario: str) -> None:
    """One Lightning fit of STEPS steps; Lightning launches the other ranks by running this command again."""
    import torch

    torch.set_num_threads(1)
    import lightning.pytorch as pl

    from ddpcore.integrations import lightning_callback

    walls = _Walls()

    class Model(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))

        def training_step(self, batch, index):  # type: ignore[no-untyped-def]
            x, y = batch
            _sleep(self.global_rank, scenario)
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):  # type: ignore[no-untyped-def]
            return torch.optim.SGD(self.parameters(), lr=0.01)

    class Walls(pl.Callback):
        def on_train_batch_start(self, trainer, module, batch, index):  # type: ignore[no-untyped-def]
            walls.mark()

        def on_train_end(self, trainer, module):  # type: ignore[no-untyped-def]
            walls.mark()
            walls.write(folder, trainer.global_rank)

    g = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(
        torch.randn(64 * STEPS * WORLD, 64, generator=g), torch.randn(64 * STEPS * WORLD, 1, generator=g)
    )
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=WORLD,
        strategy="ddp",
        max_steps=STEPS,
        logger=False,
        enable_progress_bar=False,
        enable_checkpointing=False,
        enable_model_summary=False,
        callbacks=[lightning_callback(folder), Walls()],
    )
    trainer.fit(Model(), torch.utils.data.DataLoader(data, batch_size=64))


def _transformers(folder: Path, scenario: str) -> None:
    """One rank of a Hugging Face Trainer run of STEPS steps (torchrun starts the 4)."""
    import torch

    torch.set_num_threads(1)
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

    from ddpcore.integrations import trainer_callback

    rank = int(os.environ["RANK"])
    walls = _Walls()

    class Tokens(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 4 * STEPS * WORLD

        def __getitem__(self, i: int) -> dict:
            ids = torch.randint(0, 256, (16,), generator=torch.Generator().manual_seed(i))
            return {"input_ids": ids, "labels": ids}

    class Model(GPT2LMHeadModel):
        def forward(self, input_ids=None, labels=None, **kwargs):  # type: ignore[no-untyped-def]
            if self.training:
                _sleep(rank, scenario)
            return super().forward(input_ids=input_ids, labels=labels, **kwargs)

    class Walls(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            walls.mark()

        def on_train_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            walls.mark()
            walls.write(folder, rank)

    config = GPT2Config(vocab_size=256, n_positions=16, n_embd=32, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0)
    args = TrainingArguments(
        output_dir=str(folder),
        use_cpu=True,
        ddp_backend="gloo",
        max_steps=STEPS,
        per_device_train_batch_size=4,
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
    )
    Trainer(
        model=Model(config), args=args, train_dataset=Tokens(), callbacks=[trainer_callback(folder), Walls()]
    ).train()
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()  # else a gloo thread may abort the process as it exits


def _fsdp(folder: Path, scenario: str) -> None:
    """One rank of an FSDP2 loop of STEPS steps (torchrun starts the 4), recorded by `accelerate_steps`' hooks."""
    import types

    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import fully_shard

    from ddpcore.integrations import accelerate_steps

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.Tanh()) for _ in range(4)])
    for layer in model:
        fully_shard(layer)
    fully_shard(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    plain = types.SimpleNamespace(
        process_index=rank,
        num_processes=dist.get_world_size(),
        sync_gradients=True,
        backward=lambda loss: loss.backward(),
    )
    steps = accelerate_steps(plain, model, folder)
    g = torch.Generator().manual_seed(rank)
    batches = [(torch.randn(32, 256, generator=g), torch.randn(32, 256, generator=g)) for _ in range(STEPS)]
    walls = _Walls()
    for x, y in steps.batches(batches):
        walls.mark()
        with steps.forward():
            _sleep(rank, scenario)
            loss = torch.nn.functional.mse_loss(model(x), y)
        steps.backward(loss)
        with steps.optimizer():
            optimizer.step()
            optimizer.zero_grad()
    walls.mark()
    steps.close()
    walls.write(folder, rank)
    dist.destroy_process_group()


def _gathered(folder: Path, framework: str, version: str, scenario: str) -> None:
    """The ranks' files gzipped into the folder, their walls into truth.json."""
    for path in sorted((folder / "ddpcore").glob("rank*.jsonl")):
        with path.open("rb") as raw, gzip.open(folder / f"{path.name}.gz", "wb", compresslevel=9) as out:
            shutil.copyfileobj(raw, out)
    shutil.rmtree(folder / "ddpcore")
    walls = {}
    for r in range(WORLD):
        starts = json.loads((folder / f"walls-rank{r}.json").read_text())
        walls[str(r)] = [round(1000 * (b - a), 3) for a, b in zip(starts, starts[1:])]
        (folder / f"walls-rank{r}.json").unlink()
    truth = {
        "framework": framework,
        "version": version,
        "world": WORLD,
        "steps": STEPS,
        "slow_rank": SLOW_RANK if scenario == "slow" else None,
        "sleep_ms": 1000 * SLEEP_S if scenario == "slow" else 0.0,
        "device_ms": 1000 * DEVICE_S,
        "cause": "forward" if scenario == "slow" else None,
        "step_ms": walls,
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


FRAMEWORKS = {"lightning": "lightning", "transformers": "transformers", "fsdp": "torch"}
"""Each run's folder under the fixtures' root, and the package whose version its truth names."""


def record(root: Path, only: list[str]) -> None:
    """The clean and slow runs of every framework (or of those in `only`) under `root`, one after the other."""
    from importlib.metadata import version

    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(WORLD)]
    for scenario in SCENARIOS:
        for name, package in FRAMEWORKS.items():
            if only and name not in only:
                continue
            folder = root / name / scenario
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            launch = [sys.executable] if name == "lightning" else torchrun
            subprocess.run([*launch, "-m", "tests.make_integrations", f"--{name}", str(folder), scenario], check=True)
            _gathered(folder, package, version(package), scenario)


if __name__ == "__main__":
    if sys.argv[1] == "--lightning":
        _lightning(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "--transformers":
        _transformers(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "--fsdp":
        _fsdp(Path(sys.argv[2]), sys.argv[3])
    else:
        record(Path(sys.argv[1]), sys.argv[2:])
