"""What `python build.py test|bench|screenshot` set up and run: the venv, the browser, the checks, pytest.

Standard library only, like build.py: it runs before the venv exists."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import build
from scripts.browser import CHROMIUM_DEFAULT, system_chromium

VENV = build.ROOT / ".venv"
CHECKS = (["ruff", "check", "."], ["mypy"])
"""Static checks the test command runs before pytest; both are pinned in the test extra (pyproject.toml)."""


def venv_python() -> Path:
    """The venv's interpreter, on any OS."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    """A venv with the project and its test extra, reinstalled when pyproject.toml changes."""
    python = venv_python()
    stamp = VENV / ".ddpcore-digest"
    wanted = build.digest(build.ROOT / "pyproject.toml")
    if not python.exists():
        build.run([sys.executable, "-m", "venv", str(VENV)])
    if not stamp.exists() or stamp.read_text() != wanted:
        build.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        build.run([str(python), "-m", "pip", "install", "--quiet", "-e", ".[test]"])
        stamp.write_text(wanted)
    return python


def ensure_chromium() -> str | None:
    """The system Chromium, installed with apt when we are root and it is missing; None means Playwright's own."""
    found = system_chromium()
    if found:
        return found
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        build.run(["apt-get", "update", "-qq"], env=env)
        build.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env)
        return CHROMIUM_DEFAULT
    build.log("no system Chromium: the browser tests will use Playwright's own (python -m playwright install chromium)")
    return None


PROMETHEUS_TOOLS = ("prometheus", "promtool")
"""What the rules' tests run (tests/ops/test_alerts.py): both come in Debian's `prometheus` package."""


def ensure_prometheus() -> dict[str, str]:
    """Prometheus and promtool, installed with apt when we are root and one is missing; their paths by env name."""
    found = {name: shutil.which(name) for name in PROMETHEUS_TOOLS}
    if not all(found.values()) and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        build.run(["apt-get", "update", "-qq"], env=env)
        build.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "prometheus"], env=env)
        found = {name: shutil.which(name) for name in PROMETHEUS_TOOLS}
    missing = [name for name, path in found.items() if not path]
    if missing:
        build.log(f"no {' or '.join(missing)}: the Prometheus tests will fail (install Debian's prometheus package)")
    return {name.upper(): path for name, path in found.items() if path}


def _environment() -> tuple[Path, dict[str, str]]:
    python = ensure_venv()
    env = dict(os.environ)
    browser = ensure_chromium()
    if browser:
        env["CHROMIUM_PATH"] = browser
    env.update(ensure_prometheus())
    build.build()
    env["DDPCORE_DIST"] = str(build.DIST)
    return python, env


def test(pytest_args: list[str]) -> int:
    """The static checks, then every test; non-zero when any of them fails (pytest collecting nothing included)."""
    python, env = _environment()
    failed = [
        " ".join(check)
        for check in CHECKS
        if subprocess.run([str(python), "-m", *check], cwd=build.ROOT, env=env).returncode != 0
    ]
    code = subprocess.run([str(python), "-m", "pytest", *pytest_args], cwd=build.ROOT, env=env).returncode
    if code == 5:
        build.log("pytest collected no tests: that is a failure here")
        code = 1
    if failed:
        build.log("failed: " + ", ".join(failed))
    return code or (1 if failed else 0)


def run_with_browser(script: str, *args: str) -> None:
    """Build, then run scripts/<script>.py in the venv with the browser the tests use."""
    python, env = _environment()
    build.run([str(python), "-m", f"scripts.{script}", str(build.DIST), *args], env=env)


def main(argv: list[str]) -> int:
    """`python -m scripts.tasks test [pytest args] | screenshot OUT | bench OUT`, as build.py calls it."""
    command, rest = argv[0], argv[1:]
    if command == "test":
        return test(rest)
    run_with_browser(command, *rest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
