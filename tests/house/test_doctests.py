"""The formulas' examples in ddpcore's docstrings are run, so they cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import ddpview
import pytest

import ddpcore

MODULES = sorted(
    m.name
    for package in (ddpcore, ddpview)
    for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    if not m.name.endswith("__main__") and not m.name.endswith(".exporter")
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
