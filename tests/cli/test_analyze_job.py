"""`python -m ddpcore analyze` of a 3D-parallel job: the artifact's operation table (Parquet) or Chrome timeline, and
its meta file, told apart from per-rank traces by their content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ddpcore.cli import main

JOBS = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["analyze", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_holds_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(JOBS / "trace-ST.parquet"), str(JOBS / "meta-ST.yaml"), "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["parallel"] == {"dp": 2, "pp": 4, "tp": 1, "cp": 1, "vpp": 1}
    assert data["slowdown"] == pytest.approx(1.1787, abs=1e-3)
    assert set(data["slowdown_by"]) == {"dp_rank", "stage", "op_type", "worker"}
    assert list(data["slowdown_by"]["stage"])[0] == "3"
    assert len(data["slowdown_by"]["worker"]) == 8 and "1,3" in data["slowdown_by"]["worker"]
    assert data["m_s"] == pytest.approx(1.2194, abs=1e-3) and data["m_w"] == pytest.approx(0.0314, abs=1e-3)
    assert data["diagnosis"]["kind"] == "stage_imbalance" and data["diagnosis"]["stage"] == 3
    assert len(data["steps"]) == len(data["step_s"]) == len(data["ideal_step_s"]) == 32
    assert set(data["slowdown_by_step"]["stage"]) == {str(s) for s in data["steps"]}
    assert data["skipped"] == [] and data["notes"] == []


def test_the_timeline_alone_gives_the_parquet_figures(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("ST", "AR"):
        meta = str(JOBS / f"meta-{name}.yaml")
        _, table, _ = run(capsys, str(JOBS / f"trace-{name}.parquet"), meta, "--json")
        status, timeline, _ = run(capsys, str(JOBS / f"timeline-{name}.json.gz"), meta, "--json")
        assert status == 0
        a, b = json.loads(table), json.loads(timeline)
        assert a["steps"] == b["steps"]
        for key in ("slowdown", "m_w", "m_s"):
            assert b[key] == pytest.approx(a[key], abs=1e-5), key
        for axis in ("dp_rank", "stage", "op_type", "worker"):
            assert list(b["slowdown_by"][axis]) == list(a["slowdown_by"][axis])
            for k, v in a["slowdown_by"][axis].items():
                assert b["slowdown_by"][axis][k] == pytest.approx(v, abs=1e-5)
        assert a["diagnosis"]["text"] == b["diagnosis"]["text"]


def test_without_meta_the_sizes_are_the_tables_and_said(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shutil.copy(JOBS / "timeline-ST.json.gz", tmp_path / "job.json.gz")
    status, out, err = run(capsys, str(tmp_path))
    assert status == 0
    assert "no meta file: tensor and context parallelism read as 1 (the table holds DP 2 × PP 4)" in err
    assert "slowdown S = 1.179" in out and "move layers off stage 3" in out


def test_words_for_each_published_cause(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, str(JOBS / "trace-AR.parquet"), str(JOBS / "meta-AR.yaml"), "--json")
    data = json.loads(out)
    assert data["diagnosis"]["kind"] == "one_worker"
    assert (data["diagnosis"]["dp"], data["diagnosis"]["stage"]) == (0, 0)
    fr = data["verdict"][0]["fr"]
    assert (
        fr.startswith("un worker (DP 0, étage 0) est lent dans son backward-compute, forward-compute") and "1,97×" in fr
    )


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (("trace-ST.parquet", "meta-AR.yaml"), "the table holds data-parallel ranks 0, 1 but the job has 4"),
        (("trace-ST.parquet", "trace-AR.parquet"), "given 2 table(s), 0 meta file(s)"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], files: tuple[str, ...], said: str) -> None:
    status, out, err = run(capsys, *(str(JOBS / f) for f in files))
    assert status == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err and "Traceback" not in err


def test_a_file_not_of_the_job_is_left_out_with_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, str(JOBS / "trace-ST.parquet"), str(JOBS / "meta-ST.yaml"), str(JOBS / ".." / "ddp4" / "rank0.jsonl.gz")
    )
    assert status == 1 and "slowdown S = 1.179" in out
    assert "rank0.jsonl.gz: left out, neither an operation table nor a job's meta file" in err


def test_a_broken_parquet_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "t.parquet").write_bytes(b"PAR1" + b"\0" * 64)
    status, out, err = run(capsys, str(tmp_path / "t.parquet"))
    assert status == 1 and "not a Parquet file" in err and len(err.strip().splitlines()) == 1


def test_perfetto_holds_the_measured_and_the_ideal_timelines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "job.json"
    status, printed, _ = run(
        capsys, str(JOBS / "trace-ST.parquet"), str(JOBS / "meta-ST.yaml"), "--perfetto", str(out), "--json"
    )
    assert status == 0 and json.loads(printed)["perfetto"] == str(out)
    events = json.loads(out.read_text())["traceEvents"]
    ops = [e for e in events if e["ph"] == "X"]
    measured = [e for e in ops if e["pid"] < 10_000]
    ideal = [e for e in ops if e["pid"] >= 10_000]
    assert len(measured) == len(ideal) == 6784
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert {"DP rank 0, measured", "DP rank 1, ideal (typical durations)"} <= names
    last = max(e["ts"] + e["dur"] for e in measured)
    assert last > max(e["ts"] + e["dur"] for e in ideal), "the recorded steps take longer than the ideal ones"


def test_a_job_on_ray_is_read_where_it_lies(capsys: pytest.CaptureFixture[str]) -> None:
    """`--ray local`: the job's table read by the node's actor and answered as `analyze` answers it."""
    timeline = str(JOBS / "timeline-ST.json.gz")
    status, out, err = run(capsys, timeline, "--ray", "local", "--json")
    assert status == 0 and "1 job file(s) at" in err, err
    assert json.loads(out) == json.loads(run(capsys, timeline, "--json")[1])


def test_a_pipeline_jobs_profiler_traces_are_a_job(capsys: pytest.CaptureFixture[str]) -> None:
    """The ranks' PyTorch profiler traces of a pipeline job (tests/fixtures/jobs3d_profiled) are told from a data-
    parallel run's by their sends and receives, and read as the job they are."""
    ranks = sorted((JOBS.parent / "jobs3d_profiled" / "slow_worker").glob("rank*.pt.trace.json.gz"))
    status, out, err = run(capsys, *map(str, ranks), "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["parallel"] == {"dp": 2, "pp": 2, "tp": 1, "cp": 1, "vpp": 1}
    assert (data["diagnosis"]["kind"], data["diagnosis"]["dp"], data["diagnosis"]["stage"]) == ("one_worker", 1, 0)
    workers = data["slowdown_by"]["worker"]
    assert max(workers, key=workers.get) == "1,0"
