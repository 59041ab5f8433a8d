"""Write each package's front door (`__init__.py`), keeping its docstring. A ddpview room's door gives its modules'
`__all__`; a ddpcore layer's door gives its public names only, as its own `_LAZY` lists them (the one place a layer's
public face is written; the rest of its modules' names are reached by module, from the layers above). Run after a
module's public names or a door's `_LAZY` change (tests/house/test_layers.py checks that the doors are current).

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


def modules_names(package: Path) -> dict[str, list[str]]:
    """Each module of `package` with a public name, and its `__all__`."""
    by_module = {p.stem: names_given(p) for p in sorted(package.glob("*.py")) if p.name != "__init__.py"}
    return {m: names for m, names in by_module.items() if names}


def public_names(package: Path) -> dict[str, list[str]]:
    """A ddpcore layer's public names by module, as its door's `_LAZY` lists them; each must be in its module's
    `__all__`."""
    given = modules_names(package)
    for node in ast.parse((package / "__init__.py").read_text()).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "_LAZY":
            lazy = ast.literal_eval(node.value) if node.value else {}
            break
    else:
        lazy = {}
    for module, names in lazy.items():
        unknown = set(names) - set(given.get(module, ()))
        if unknown:
            raise SystemExit(f"{package.name}/__init__.py: {sorted(unknown)} not in {module}.__all__")
    return {m: sorted(names) for m, names in lazy.items() if names}


def door(package: Path, front: str, by_module: dict[str, list[str]]) -> str:
    """The front door of `package`: its docstring, its public names for type checkers, the lazy map."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    typed = {m: names for m, names in by_module.items() if m != "front"}
    lines = [f'"""{doc}"""', "", "from __future__ import annotations", ""]
    lines += ["from typing import TYPE_CHECKING", ""] if typed else []
    lines += [f"from {front} import front_door", ""]
    if typed:
        lines += ["if TYPE_CHECKING:  # the lazy names, for type checkers and editors"]
    for module, names in typed.items():
        lines += [f"    from .{module} import (  # noqa: F401", *(f"        {n}," for n in names), "    )"]
    lines += ["", "_LAZY: dict[str, tuple[str, ...]] = {"]
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


def door_of(package: Path) -> str:
    """The front door `package` should have: a page room's gives its modules' names, a ddpcore layer's its public
    ones."""
    if package.parent.name == "ddpview":
        return door(package, "ddpcore.base.front", modules_names(package))
    return door(package, ".front" if package.name == "base" else "..base.front", public_names(package))


PACKAGES = [ROOT / "ddpcore" / p for p in CORE_LAYERS] + [ROOT / "web" / "ddpview" / p for p in VIEW_ROOMS]
"""Every package with a written front door."""


def main() -> None:
    doors = []
    for package in PACKAGES:
        (package / "__init__.py").write_text(door_of(package))
        doors.append(str(package / "__init__.py"))
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--quiet", "--fix", "--select", "I", *doors], check=True)
    subprocess.run([*ruff, "format", "--quiet", *doors], check=True)


if __name__ == "__main__":
    main()
