"""The bench's package (scripts/bench): its budget table names figures the bench writes, and its parts import
without a browser."""

import doctest
import importlib
import json

import pytest
from paths import ROOT

from scripts.bench import budgets, report

PARTS = ("scale", "callbacks", "budgets", "core_timings", "in_pyodide", "native", "probes", "reads", "report", "start")
PARTS += ("__main__",)


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
        if budget not in budgets.SCALE_BUDGETS:
            assert report.lookup(results, budget.path) is not None, budget.name


def test_the_report_gives_each_budget_its_verdict(tmp_path) -> None:
    results = json.loads((ROOT / "bench" / "results.json").read_text())
    report.write_report(results, tmp_path)
    text = (tmp_path / "README.md").read_text()
    for budget in budgets.BUDGETS:
        row = next(line for line in text.splitlines() if line.startswith(f"| {budget.name} |"))
        figure = report.lookup(results, budget.path)
        verdict = "—" if figure is None else "pass" if budget.holds(figure) else "FAIL"
        assert row.endswith(f"| {verdict} |")
    assert "## Causes found and fixed when budgets failed" in text


def test_the_scale_table_shows_each_run_and_what_was_skipped():
    scale = {
        "cpu_factor": 2.0,
        "ranks_1000": {
            "ranks": 1000,
            "steps": 1000,
            "analyze_s": 10.0,
            "peak_mb": 350.0,
            "bytes_per_rank_step": 16.5,
            "us_per_rank_step": 10.0,
            "named_right": True,
        },
        "ranks_10000": {
            "ranks": 10000,
            "steps": 1000,
            "analyze_s": 60.0,
            "cpu_factor_around": 1.5,
            "analyze_s_at_reference": 40.0,
            "peak_mb": 900.0,
            "bytes_per_rank_step": 15.8,
            "us_per_rank_step": 6.0,
            "named_right": True,
        },
        "ranks_100000": {"skipped": "too large"},
    }
    lines = report.scale_lines(scale)
    assert any("1,000 ranks x 1,000 steps | 10.0 | — | — | 350 | 16.5 | 10.00 | True" in line for line in lines)
    assert any("10,000 ranks x 1,000 steps | 60.0 | 1.50x | 40.0 | 900 | 15.8 | 6.00 | True" in line for line in lines)
    assert any("skipped: too large" in line for line in lines)


def test_the_scale_table_shows_each_ray_size_and_why_one_was_not_run():
    ray = {
        "sizes": {
            "1e6": {
                "analyze_s": 10.9,
                "against_analyze": 1.66,
                "driver_mb": 194.0,
                "actor_mb": [384.7, 385.7],
                "bytes_between": 49_756_621,
                "same_as_analyze": True,
            },
            "1e8": {"skipped": "61 GB over 20"},
        }
    }
    lines = report.scale_lines({"ray": ray, "cpu_factor": 1.0})
    assert "| 1e6 | 10.9 | 1.66x | 194 | 385, 386 | 50 MB | True |" in lines
    assert "| 1e8 | skipped: 61 GB over 20 | | | | | |" in lines
