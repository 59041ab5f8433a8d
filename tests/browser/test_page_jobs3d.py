"""End-to-end: a 3D-parallel job's timeline or Parquet table and its meta file dropped into Your traces give the
published what-if, its heatmap and its diagnosis in both languages, read off the page's main thread (the Parquet by
the standard library: the page has no pyarrow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pages import value
from paths import FIXTURES

pytestmark = pytest.mark.browser

JOBS = FIXTURES / "jobs3d"


@pytest.mark.parametrize("table", ["timeline-ST.json.gz", "trace-ST.parquet"])
def test_a_job_timeline_or_table_gives_the_published_what_if(open_page, table):
    page, watch = open_page("#view=traces")
    accepted = page.get_attribute("[data-testid=trace-files]", "accept").split(",")
    assert ".parquet" in accepted, "a table can be picked, not only dropped"
    published = json.loads((JOBS / "result-ST.json").read_text())
    page.set_input_files("[data-testid=trace-files]", [str(JOBS / table), str(JOBS / "meta-ST.yaml")])
    page.wait_for_selector("[data-testid=job-panel]", timeout=60_000)
    assert value(page, "job-slowdown") == pytest.approx(published["blocking_slowdown"], abs=1e-3)
    assert value(page, "job-ms") == pytest.approx(1.2194, abs=1e-3)
    assert page.locator("[data-testid=job-heatmap] [data-testid=job-cell]").count() == 8
    worst = page.locator("[data-testid=job-cell][data-dp='1'][data-stage='3']")
    assert float(worst.get_attribute("data-value")) == pytest.approx(
        min(published["blocking_decompose_by_dp_rank"]["1"], published["blocking_decompose_by_stage"]["3"]), abs=1e-3
    )
    first = page.locator("[data-testid=job-by-stage]").first
    assert first.get_attribute("data-key") == "3"
    assert "move layers off stage 3" in page.inner_text("[data-testid=job-diagnosis]")
    assert page.inner_text("#trace-summary").strip() == ""
    assert not page.is_visible("[data-testid=traces-empty]"), "no hint to drop traces above the job read"
    with page.expect_download() as download:
        page.click("[data-testid=job-perfetto]")
    events = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert {"DP rank 0, measured", "DP rank 1, ideal (typical durations)"} <= names
    assert sum(e["ph"] == "X" for e in events) == 2 * 6784
    step = page.locator("#job-step [data-testid=job-step]")
    assert step.count() == 1 and step.locator("[data-block=ideal]").count() > 0, "the worst step, a region of its own"
    page.select_option("[data-testid=lang]", "fr")
    assert "déplacez des couches hors de l'étage 3" in page.inner_text("[data-testid=job-diagnosis]")
    assert "Tel qu'enregistré" in page.inner_text("#job-step")
    assert "1,18×" in page.inner_text("[data-testid=job-panel]")
    watch.assert_clean()


def test_a_job_that_is_not_one_is_one_line(open_page, tmp_path):
    page, watch = open_page("#view=traces")
    page.set_input_files("[data-testid=trace-files]", [str(JOBS / "timeline-ST.json.gz"), str(JOBS / "meta-AR.yaml")])
    page.wait_for_selector("[data-testid=trace-error]", timeout=60_000)
    said = page.inner_text("[data-testid=trace-errors]")
    assert "not one 3D-parallel job" in said and "data-parallel ranks 0, 1 but the job has 4" in said
    assert page.locator("[data-testid=job-panel]").count() == 0
    watch.assert_clean()


def test_a_pipeline_jobs_profiler_traces_name_the_slow_worker(open_page):
    """The ranks' own PyTorch profiler traces (`torch.distributed.pipelining`, tests/fixtures/jobs3d_profiled) are a
    job too: the page tells its stages from their sends and receives and names the worker that slept."""
    page, watch = open_page("#view=traces")
    ranks = sorted((FIXTURES / "jobs3d_profiled" / "slow_worker").glob("rank*.pt.trace.json.gz"))
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in ranks])
    page.wait_for_selector("[data-testid=job-panel]", timeout=60_000)
    assert page.locator("[data-testid=job-heatmap] [data-testid=job-cell]").count() == 4
    assert "one worker (DP 1, stage 0)" in page.inner_text("[data-testid=job-diagnosis]")
    assert page.inner_text("#trace-summary").strip() == ""
    watch.assert_clean()
