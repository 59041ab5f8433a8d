"""The bench's package (scripts/bench): its budget table names figures the bench writes, and its parts import
without a browser."""

import doctest
import importlib
import json

import pytest
from paths import ROOT

from scripts.bench import budgets, report

PARTS = ("budgets", "core_timings", "in_pyodide", "native", "probes", "reads", "report", "start", "__main__")


@pytest.mark.parametrize("part", PARTS)
def test_each_part_imports_and_its_examples_hold(part: str) -> None:
    module = importlib.import_module(f"scripts.bench.{part}")
    assert doctest.testmod(module).failed == 0


def test_every_budget_names_a_figure_of_the_last_bench_once() -> None:
    results = json.loads((ROOT / "bench" / "results.json").read_text())
    names = [b.name for b in budgets.BUDGETS]
    assert len(set(names)) == len(names)
    for budget in budgets.BUDGETS:
        assert budget.bound in ("≤", "≥")
        report.lookup(results, budget.path)


def test_the_report_gives_each_budget_its_verdict(tmp_path) -> None:
    results = json.loads((ROOT / "bench" / "results.json").read_text())
    report.write_report(results, tmp_path)
    text = (tmp_path / "README.md").read_text()
    for budget in budgets.BUDGETS:
        row = next(line for line in text.splitlines() if line.startswith(f"| {budget.name} |"))
        verdict = "pass" if budget.holds(report.lookup(results, budget.path)) else "FAIL"
        assert row.endswith(f"| {verdict} |")
    assert "## Causes found and fixed when budgets failed" in text
