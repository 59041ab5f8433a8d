"""The examples in ddpcore's and ddpview's docstrings are run, so they cannot drift from the code, and every public
function of ddpcore's front doors that computes something has one."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re

import ddpview
import pytest
from paths import CORE

import ddpcore

EXTRAS = ("ddpcore.ops.exporter", "ddpcore.traces.parquet")
"""Modules of an extra (prometheus_client, pyarrow): their examples run in their own tests, where the extra is."""
MODULES = sorted(
    m.name
    for package in (ddpcore, ddpview)
    for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    if not m.name.endswith("__main__") and m.name not in EXTRAS
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_examples_exist():
    counts = {name: doctest.testmod(importlib.import_module(name)).attempted for name in MODULES}
    assert all(
        counts[m] > 0
        for m in (
            "ddpcore.base.intervals",
            "ddpcore.traces.collectives",
            "ddpcore.traces.reader",
            "ddpcore.traces.parse",
            "ddpcore.traces.tracefacts",
            "ddpcore.analysis.measured",
            "ddpcore.analysis.verdict",
        )
    )


DOES_NOT_COMPUTE = {"serve_metrics", "served", "main", "build_parser", "read_path", "read_paths", "chunks_of", "play"}
DOES_NOT_COMPUTE |= {"progress", "ray_module", "node_parts", "give_back", "lightning_callback", "trainer_callback"}
DOES_NOT_COMPUTE |= {"node_readers", "node_job"}
"""Public functions that serve, read from disk or the environment, import an extra, connect to a cluster, print or
parse arguments: their examples would be a server, a file, a cluster or a terminal."""


def test_every_public_function_that_computes_has_an_example():
    """Each function a front door gives that computes something shows a call and its answer, in its docstring or
    its module's."""
    missing = []
    for path in sorted(p for p in CORE.glob("*/*.py") if p.name != "__init__.py"):
        text = path.read_text()
        tree = ast.parse(text)
        given = next(
            (
                ast.literal_eval(n.value)
                for n in tree.body
                if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
            ),
            [],
        )
        examples = [line for line in text.splitlines() if line.strip().startswith((">>>", "..."))]
        public = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in given]
        for name in public:
            if name not in DOES_NOT_COMPUTE and not any(re.search(rf"\b{name}\(", line) for line in examples):
                missing.append(f"{path.parent.name}.{path.stem}.{name}")
    assert missing == []
