"""`ddpcore`'s front door: every public name importable from the package, the traces path loaded only on use."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import ddpcore

INIT = Path(ddpcore.__file__)


@pytest.mark.parametrize("name", ddpcore.__all__)
def test_every_exported_name_is_its_modules_own(name):
    value = getattr(ddpcore, name)
    module = importlib.import_module(f"ddpcore.{ddpcore._WHERE[name]}") if name in ddpcore._WHERE else ddpcore
    assert getattr(module, name) is value


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = ddpcore.nope
    assert not hasattr(ddpcore, "nope")


def test_importing_the_package_loads_only_the_step_model():
    code = "import sys, ddpcore; print(sorted(m for m in sys.modules if m.startswith('ddpcore.')))"
    loaded = set(ast.literal_eval(subprocess.check_output([sys.executable, "-c", code], text=True)))
    assert loaded.isdisjoint({f"ddpcore.{m}" for m in ("traces", "measured", "verdict", "fit", "cluster", "files")})
    assert "ddpcore.model.schedule" in loaded


def test_type_checkers_see_the_same_lazy_names():
    """The TYPE_CHECKING imports name exactly the lazily exported names, from the same modules."""
    tree = ast.parse(INIT.read_text())
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    seen = {a.name: node.module for node in guarded.body if isinstance(node, ast.ImportFrom) for a in node.names}
    assert seen == ddpcore._WHERE
