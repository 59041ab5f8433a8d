"""Every public function, class and method of ddpcore says what it is (and why, where that is not obvious)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ddpcore"


def undocumented() -> list[str]:
    missing = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text())
        if ast.get_docstring(tree) is None:
            missing.append(f"{path.name}: module")
        definitions = list(tree.body)
        definitions += [item for node in tree.body if isinstance(node, ast.ClassDef) for item in node.body]
        for node in definitions:
            definition = isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            if definition and not node.name.startswith("_") and ast.get_docstring(node) is None:
                missing.append(f"{path.name}:{node.lineno} {node.name}")
    return missing


def test_every_public_definition_has_a_docstring():
    assert undocumented() == []
