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
    """The public names (ddpcore's front door and its layers') that no example shows: a class or function whose
    docstring runs none, or a constant that no door's own docstring reads."""
    import doctest
    import importlib
    import inspect

    import ddpcore
    from scripts.fronts import CORE_LAYERS

    doors = [ddpcore, *(importlib.import_module(f"ddpcore.{p}") for p in CORE_LAYERS)]
    read = "\n".join(e.source for d in doors for e in doctest.DocTestParser().get_examples(d.__doc__ or ""))
    missing = []
    for door in doors:
        for name in door.__all__:
            value = getattr(door, name)
            if callable(value):
                if not doctest.DocTestParser().get_examples(inspect.getdoc(value) or ""):
                    missing.append(f"{door.__name__}.{name}")
            elif f".{name}" not in read:
                missing.append(f"{door.__name__}.{name}")
    return missing


def test_every_public_name_has_an_example():
    """The public face (`ddpcore.__all__` and the layers' doors) is learnt from examples, and each one is run
    (test_doctests.py)."""
    assert without_example() == []
