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
    done = subprocess.run(
        [str(python), "-m", "ddpcore", "analyze", *traces], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("persistent straggler(s): rank 2")
