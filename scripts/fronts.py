"""Write each ddpcore subpackage's front door (`__init__.py`) from its modules' `__all__`, keeping its docstring:
run after a module's public names change (tests/test_layers.py checks that the doors are current).

    python scripts/fronts.py
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
doors = []
for pkg in ("base", "model", "traces", "analysis", "ops", "cli"):
    init = ROOT / "ddpcore" / pkg / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text()))
    by_mod = {}
    for f in sorted((ROOT / "ddpcore" / pkg).glob("*.py")):
        if f.name == "__init__.py":
            continue
        tree = ast.parse(f.read_text())
        names = next(
            (
                ast.literal_eval(n.value)
                for n in tree.body
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
            ),
            [],
        )
        if names:
            by_mod[f.stem] = sorted(names)
    lines = [f'"""{doc}"""', "", "from __future__ import annotations", "", "from typing import TYPE_CHECKING", ""]
    lines.append("from .front import front_door" if pkg == "base" else "from ..base.front import front_door")
    lines += ["", "if TYPE_CHECKING:  # the lazy names, for type checkers and editors"]
    for mod, names in sorted(by_mod.items()):
        if mod == "front":
            continue
        lines.append(f"    from .{mod} import (  # noqa: F401")
        lines += [f"        {n}," for n in names]
        lines.append("    )")
    lines += ["", "_LAZY = {"]
    for mod, names in sorted(by_mod.items()):
        lines.append(f'    "{mod}": (')
        lines += [f'        "{n}",' for n in names]
        lines.append("    ),")
    lines += [
        "}",
        '"""Module -> the public names it gives, loaded when one of them is first asked for."""',
        "",
        "__getattr__, __dir__ = front_door(__name__, _LAZY)",
        "__all__ = sorted(name for names in _LAZY.values() for name in names)",
        "",
    ]
    init.write_text("\n".join(lines))
    doors.append(str(init))
ruff = [sys.executable, "-m", "ruff"]
subprocess.run([*ruff, "check", "--quiet", "--fix", "--select", "I", *doors], check=True)
subprocess.run([*ruff, "format", "--quiet", *doors], check=True)
