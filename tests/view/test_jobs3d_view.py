"""A 3D-parallel job in Your traces, natively: the panel's figures, heatmap and words, and what a job read does to
the model."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from ddpview import app
from ddpview.views import job_html, job_step_html
from paths import FIXTURES

from ddpcore.analysis import job_whatif
from ddpcore.analysis.jobwhatif import WARMED_UP, job_times, simulated_job
from ddpcore.base.words import Message
from ddpcore.traces import read_job

JOBS = FIXTURES / "jobs3d"


def whatif_of(name: str):
    job = read_job({f"timeline-{name}.json.gz": (JOBS / f"timeline-{name}.json.gz").read_bytes()})
    return job_whatif(job_times(job.table, job.groups, job.transfers_drawn)), job.notes


def test_the_panel_holds_the_figures_the_heatmap_and_the_words():
    w, notes = whatif_of("AR")
    html = job_html(w, notes, "en")
    assert html.count('data-testid="job-cell"') == 16
    cell = re.search(r'data-testid="job-cell" data-dp="0" data-stage="0" data-value="([^"]+)"', html)
    assert cell and math.isclose(float(cell.group(1)), w.by_worker[(0, 0)])
    assert 'data-code="job.worker"' in html and "one worker (DP 0, stage 0)" in html
    assert re.search(r'data-testid="job-slowdown" data-value="1\.97\d*" class="value">1\.97×<', html)
    assert "no meta file" in html
    fr = job_html(w, notes, "fr")
    assert "un worker (DP 0, étage 0)" in fr and "1,97×" in fr and "étage 3" in fr
    assert "pas de fichier meta" in fr and "no meta file" not in fr


def test_nothing_without_a_job_and_a_clean_job_says_so():
    assert job_html(None, (), "en") == ""
    w = job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3)))
    html = job_html(w, (), "fr")
    assert 'data-code="job.none"' in html and "job-heatmap" not in html and "pas de retardataire" in html


def test_names_are_escaped():
    rows, groups = simulated_job(dp=2, pp=2, steps=3, slow=(0, 1))
    w = job_whatif(job_times(rows, replace(groups, name="<b>x</b>")))
    hostile = replace(
        w,
        by_optype={"<script>alert(1)</script>": 1.5, **w.by_optype},
        skipped=(Message.of("job.file_left", name="<img src=x>"),),
    )
    html = job_html(hostile, (Message.of("job.world_odd", given=2, world=4, sizes="<i>note</i>"),), "en")
    assert "<script>" not in html and "<img" not in html and "<i>" not in html
    assert "&lt;script&gt;" in html


def test_the_lines_of_what_was_left_out_are_said_in_the_pages_language():
    rows, groups = simulated_job(dp=2, pp=2, steps=3)
    w = job_whatif(job_times(rows, groups))
    left = replace(
        w, skipped=(WARMED_UP, Message.of("job.step_lacks", step=4, count=1, op="send", seq=0, stage=1, dp=0))
    )
    french, english = job_html(left, (), "fr"), job_html(left, (), "en")
    assert "l&#x27;échauffement" in french and "il lui manque 1 opération" in french
    assert "warm-up" not in french and "lacks" not in french
    assert "the warm-up" in english and "it lacks 1 operation(s)" in english


def test_a_job_read_replaces_the_run_shown():
    model = app.initial("#view=traces", "en", False)
    w, notes = whatif_of("ST")
    shown = app.with_job(model, w, notes, ())
    assert shown.traces.job is w and shown.traces.measured is None and shown.traces.analysis is None
    screen = app.screen(shown)
    assert 'data-testid="job-panel"' in screen.regions["job-panel"]
    assert "move layers off stage 3" in screen.regions["job-panel"]
    assert screen.flags["traces-empty"]["hidden"], "the hint to drop traces goes once a job is shown"


def test_the_worst_step_is_drawn_as_recorded_and_in_the_ideal():
    from ddpcore.analysis.jobwhatif import job_step_drawing, job_timelines

    job = read_job({"t.json.gz": (JOBS / "timeline-AR.json.gz").read_bytes()})
    times = job_times(job.table, job.groups, job.transfers_drawn)
    w = job_whatif(times)
    step = job_step_drawing(times, *job_timelines(times), w)
    assert step.dp_ranks[0] == 0, "the slow worker's DP rank is the step's slowest"
    html = job_step_html(step, "en")
    assert 'data-testid="job-step"' not in job_html(w, (), "en") and job_step_html(None, "en") == ""
    assert 'data-testid="job-step"' in html and f'data-step="{step.step}"' in html
    measured = html.count('data-block="measured"')
    assert measured == html.count('data-block="ideal"') == len(step.measured) > 0
    assert 'data-kind="forward"' in html and 'data-kind="pp"' in html
    assert "Tel qu&#x27;enregistré" in job_step_html(step, "fr")


def test_an_interleaved_job_says_its_chunks_in_both_languages():
    rows, groups = simulated_job(dp=2, pp=2, steps=3, micro=2, vpp=2)
    w = job_whatif(job_times(rows, groups))
    assert "2 model chunks a stage (interleaved)" in job_html(w, (), "en")
    assert "2 morceaux de modèle par étage (entrelacé)" in job_html(w, (), "fr")
    flat = job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3)))
    assert "model chunks" not in job_html(flat, (), "en")
