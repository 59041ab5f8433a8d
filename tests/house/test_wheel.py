"""A wheel built from this tree holds every module of ddpcore, installs, and analyses traces from anywhere (a
wheel of the top package alone had installed two modules of fifty)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from paths import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


HOOKED = """
import json, types
from ddpcore.integrations.huggingface import TrainerHooks
class Model:
    def parameters(self): return iter(())
    def register_forward_pre_hook(self, hook): self.pre = hook; return types.SimpleNamespace(remove=lambda: None)
    def register_forward_hook(self, hook): self.post = hook; return types.SimpleNamespace(remove=lambda: None)
model, hooks = Model(), TrainerHooks("run")
args = types.SimpleNamespace(output_dir="run", process_index=0, world_size=2)
state = types.SimpleNamespace(global_step=0)
hooks.on_train_begin(args, state, None, model=model)
hooks.on_step_begin(args, state, None)
model.pre(model, ()); model.post(model, (), None)
for event in ("on_pre_optimizer_step", "on_optimizer_step", "on_step_end"):
    getattr(hooks, event)(args, state, None)
hooks.on_train_end(args, state, None)
print(*(json.loads(line)["phase"] for line in open("run/ddpcore/rank0.jsonl")))
from ddpcore.integrations.lightning import LightningHooks
hooks = LightningHooks("run")
trainer = types.SimpleNamespace(global_rank=1, global_step=0, world_size=2, accumulate_grad_batches=1)
hooks.on_train_start(trainer, model)
hooks.on_train_epoch_start(trainer, model)
hooks.on_train_batch_start(trainer, model, None, 0)
hooks.on_before_backward(trainer, model, None)
hooks.on_after_backward(trainer, model)
hooks.on_before_optimizer_step(trainer, model, None)
hooks.on_train_batch_end(trainer, model, None, None, 0)
hooks.on_train_end(trainer, model)
print(*(json.loads(line)["phase"] for line in open("run/ddpcore/rank1.jsonl")))
"""
"""The Hugging Face and Lightning callbacks' hooks driven from an installed ddpcore, without either framework: one
step each, as a training job that imports the integration writes it (a model with no trainable parameter: the
backward runs to the optimizer's start, the barrier unknown)."""


def test_the_wheel_holds_every_module_and_installs(tmp_path):
    """Built from a copy of what the package is made of: a tree's own build/ left by an earlier build would fill in
    what its configuration leaves out."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "ddpcore", tree / "ddpcore", ignore=shutil.ignore_patterns("__pycache__"))
    built = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(tree), "--no-deps", "-q", "-w", str(built)],
        check=True,
        capture_output=True,
    )
    (wheel,) = built.glob("ddpcore-*.whl")
    held = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".py")}
    source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ddpcore").rglob("*.py")}
    assert held == source
    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    python = env / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    traces = sorted(str(p) for p in (FIXTURES / "ddp4").glob("*.jsonl.gz"))

    def ran(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), *args], cwd=tmp_path, capture_output=True, text=True)

    done = ran("-m", "ddpcore", "analyze", *traces)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("persistent straggler(s): rank 2")
    logs = sorted(str(p) for p in (FIXTURES / "titan" / "slow_load").glob("*.jsonl.gz"))
    titan = ran("-m", "ddpcore", "analyze", *logs)
    assert titan.returncode == 0 and titan.stdout.startswith("persistent straggler(s): rank 1"), titan.stderr
    script = env / ("Scripts/ddpcore.exe" if sys.platform == "win32" else "bin/ddpcore")
    helped = subprocess.run([str(script), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert helped.returncode == 0 and "analyze" in helped.stdout, helped.stderr
    imported = ran("-c", "from ddpcore.ops import Recorder; print(Recorder.__name__)")
    assert imported.stdout.strip() == "Recorder", imported.stderr
    assert "prometheus_client" in ran("-c", "import ddpcore.ops.exporter").stderr
    missing = ran("-c", "from ddpcore.integrations import lightning_callback; lightning_callback()")
    assert 'pip install "ddpcore[lightning]"' in missing.stderr, missing.stderr
    hooked = ran("-c", HOOKED)
    phases = ["load", "forward", "backward", "optimizer"]
    assert hooked.returncode == 0 and hooked.stdout.splitlines() == [" ".join(phases)] * 2, hooked.stderr
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"{wheel}[prometheus]"], check=True)
    extra = ran("-c", "from ddpcore.ops.exporter import Exporter; Exporter(0); print('ok')")
    assert extra.stdout.strip() == "ok", extra.stderr


def test_the_source_archive_holds_the_package_and_none_of_the_site_tests_or_scripts(tmp_path):
    """Built from a copy of the checkout by `python -m build --sdist`: web/, tests/ and scripts/ sit next
    to the package and must stay out of what installs it."""
    import tarfile

    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "dist", "__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", "out", str(tree)],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    (archive,) = (tmp_path / "out").glob("ddpcore-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    python = {n for n in names if n.endswith(".py")}
    source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ddpcore").rglob("*.py")}
    assert source <= python
    assert not [n for n in names if n.split("/")[0] in ("web", "tests", "scripts", "bench")]
