"""Write each package's front door (`__init__.py`) from its modules' `__all__`, keeping its docstring: the ddpcore
layers and the ddpview rooms. Run after a module's public names change (tests/house/test_layers.py checks that the doors
are current).

    python scripts/fronts.py
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE_LAYERS = {
    "base": (),
    "storage": (),
    "model": ("base",),
    "traces": ("base", "storage"),
    "analysis": ("base", "storage", "model", "traces"),
    "ops": ("base", "storage", "model", "traces", "analysis"),
    "cli": ("base", "storage", "model", "traces", "analysis", "ops"),
    "integrations": ("base", "ops"),
}
"""Each ddpcore package and those it may import (base <- model; base, storage <- traces <- analysis <- ops <- cli;
ops <- integrations, which the frameworks' users import and nothing of ddpcore does)."""
VIEW_ROOMS = ("markup", "i18n", "state", "views", "reading", "app", "warmup")
"""The ddpview rooms, each importing only those before it (markup <- i18n <- state <- views <- reading <- app <-
warmup) and the ddpcore front doors."""


def names_given(path: Path) -> list[str]:
    """A module's `__all__`, read without importing it."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return sorted(ast.literal_eval(node.value))
    return []


def door(package: Path, front: str) -> str:
    """The front door of `package`: its docstring, its modules' names for type checkers, the lazy map."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    by_module = {p.stem: names_given(p) for p in sorted(package.glob("*.py")) if p.name != "__init__.py"}
    by_module = {m: names for m, names in by_module.items() if names}
    lines = [f'"""{doc}"""', "", "from __future__ import annotations", "", "from typing import TYPE_CHECKING", ""]
    lines += [
        f"from {front} import front_door",
        "",
        "if TYPE_CHECKING:  # the lazy names, for type checkers and editors",
    ]
    for module, names in by_module.items():
        if module != "front":
            lines += [f"    from .{module} import (  # noqa: F401", *(f"        {n}," for n in names), "    )"]
    lines += ["", "_LAZY = {"]
    for module, names in by_module.items():
        lines += [f'    "{module}": (', *(f'        "{n}",' for n in names), "    ),"]
    lines += [
        "}",
        '"""Module -> the public names it gives, loaded when one of them is first asked for."""',
        "",
        "__getattr__, __dir__ = front_door(__name__, _LAZY)",
        "__all__ = sorted(name for names in _LAZY.values() for name in names)",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    packages = [(ROOT / "ddpcore" / p, ".front" if p == "base" else "..base.front") for p in CORE_LAYERS]
    packages += [(ROOT / "web" / "ddpview" / p, "ddpcore.base") for p in VIEW_ROOMS]
    doors = []
    for package, front in packages:
        (package / "__init__.py").write_text(door(package, front))
        doors.append(str(package / "__init__.py"))
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--quiet", "--fix", "--select", "I", *doors], check=True)
    subprocess.run([*ruff, "format", "--quiet", *doors], check=True)


if __name__ == "__main__":
    main()
