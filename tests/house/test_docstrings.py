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


def without_example() -> list[str]:
    """The names of ddpcore's front door that no example shows: a class or function whose docstring runs none, or a
    constant that the package's own docstring never reads."""
    import doctest
    import inspect

    import ddpcore

    read = "\n".join(e.source for e in doctest.DocTestParser().get_examples(ddpcore.__doc__ or ""))
    missing = []
    for name in ddpcore.__all__:
        value = getattr(ddpcore, name)
        if callable(value):
            if not doctest.DocTestParser().get_examples(inspect.getdoc(value) or ""):
                missing.append(name)
        elif f"ddpcore.{name}" not in read:
            missing.append(name)
    return missing


def test_every_name_of_the_front_door_has_an_example():
    """The public face (`ddpcore.__all__`) is learnt from examples, and each one is run (test_doctests.py)."""
    assert without_example() == []
