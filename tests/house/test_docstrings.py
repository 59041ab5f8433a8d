"""Every public function, class and method of ddpcore and of the page's views (ddpview) says what it is (and why,
where that is not obvious)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from paths import ROOT

PACKAGES = (ROOT / "ddpcore", ROOT / "web" / "ddpview")


def undocumented(package: Path) -> list[str]:
    missing = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        if ast.get_docstring(tree) is None:
            missing.append(f"{path.relative_to(package)}: module")
        definitions = list(tree.body)
        definitions += [item for node in tree.body if isinstance(node, ast.ClassDef) for item in node.body]
        for node in definitions:
            definition = isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            if definition and not node.name.startswith("_") and ast.get_docstring(node) is None:
                missing.append(f"{path.relative_to(package)}:{node.lineno} {node.name}")
    return missing


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_public_definition_has_a_docstring(package):
    assert undocumented(package) == []
