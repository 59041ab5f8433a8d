"""Catch it in production: the rules pass promtool, fire on a straggler and not on jitter or transients, the
exporter serves the names the rules use, and a real Prometheus scraping replayed traces fires for rank 2.

promtool and prometheus come from Debian's `prometheus` package, which `python3 build.py test` installs when they
are missing (PROMTOOL and PROMETHEUS may point elsewhere)."""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from paths import FIXTURES, ROOT

from ddpcore.ops import dashboard, rules_file, scrape_config
from ddpcore.ops.alerts import (
    ALERT,
    CHANCE_RECORD,
    DASHBOARD_PANELS,
    GAP_RECORD,
    SHARE_RECORD,
    STEP_METRIC,
    WAIT_METRIC,
    RuleTiming,
)

RANKS = 8
UNIT = RuleTiming(window="5m", duration="5m")


def tool(name: str) -> str:
    """The Prometheus tool's path; missing is a failure (the test command installs it), never a skip."""
    found = os.environ.get(name.upper()) or shutil.which(name)
    assert found, f"{name} not found: run `python3 build.py test`, which installs Debian's prometheus package"
    return found


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([tool("promtool"), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("threshold", "job"), [(0.1, "ddp"), (0.25, 'train "x": #1')])
def test_rules_file_passes_promtool_check(tmp_path, threshold, job):
    (tmp_path / "rules.yml").write_text(rules_file(threshold, job))
    result = promtool("check", "rules", "rules.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 rules found" in result.stdout


def series(metric: str, rank: int, values) -> dict:
    return {"series": f'{metric}{{job="ddp",rank="{rank}"}}', "values": " ".join(f"{v:.6f}" for v in values)}


def scenario(waits: np.ndarray, step_s: float = 0.060) -> list[dict]:
    """Input series: per rank, its wait at the barrier at every sample (15 s apart) and a constant step."""
    samples = waits.shape[0]
    out = []
    for rank in range(waits.shape[1]):
        out.append(series(WAIT_METRIC, rank, waits[:, rank]))
        out.append(series(STEP_METRIC, rank, [step_s] * samples))
    return out


def test_rules_fire_on_a_straggler_and_stay_quiet_on_jitter_and_transients(tmp_path):
    """promtool's unit tests of the generated rules, on series drawn like the cluster model's."""
    rng = np.random.default_rng(5)
    samples, base, least = 60, 0.030, 0.010
    persistent = np.full((samples, RANKS), base)
    persistent[:, 2] = least
    jitter = base * rng.lognormal(0.0, 0.05, size=(samples, RANKS))
    transient = base * rng.lognormal(0.0, 0.02, size=(samples, RANKS))
    late = [i for i in range(samples) if i % 4 == 0]
    for i in late:
        transient[i, i % RANKS] = least
    gap = (base - least) / 0.060
    summary = (
        f"Rank 2 is ready at the gradient barrier {gap * 100:.4g}% of a step after the median rank "
        f"(median over {UNIT.window}, threshold 10%)"
    )
    firing = {
        "exp_labels": {"severity": "warning", "job": "ddp", "rank": "2"},
        "exp_annotations": {
            "summary": summary,
            "description": "Every other rank waits for it at the barrier: the whole job runs at its pace.",
        },
    }
    noisy = np.full((samples, RANKS), base)
    others = iter(int(k) for k in np.tile(np.arange(1, RANKS), samples))
    for i in range(samples):
        low = [0] if i % 20 < 11 else []
        low += [next(others) for _ in range(3 - len(low))]
        noisy[i, low] = 0.020
    tests = [
        {
            "interval": "15s",
            "input_series": scenario(persistent),
            "alert_rule_test": [
                {"eval_time": "3m", "alertname": ALERT, "exp_alerts": []},
                {"eval_time": "12m", "alertname": ALERT, "exp_alerts": [firing]},
            ],
        },
        {
            "interval": "15s",
            "input_series": scenario(jitter),
            "alert_rule_test": [{"eval_time": "14m", "alertname": ALERT, "exp_alerts": []}],
            "promql_expr_test": [
                {
                    "expr": SHARE_RECORD,
                    "eval_time": "14m",
                    "exp_samples": [{"labels": f'{SHARE_RECORD}{{job="ddp"}}', "value": 0}],
                }
            ],
        },
        {
            # three ranks of eight over the threshold in every sample, rank 0 in 11 of every 20: its median gap is
            # over the threshold, but its share (0.55) is within chance (the median rank's, 0.35) plus the margin
            "interval": "15s",
            "input_series": scenario(noisy),
            "alert_rule_test": [{"eval_time": "14m", "alertname": ALERT, "exp_alerts": []}],
            "promql_expr_test": [
                {
                    "expr": f'quantile_over_time(0.5, {GAP_RECORD}{{job="ddp"}}[5m]) > bool 0.1',
                    "eval_time": "14m",
                    "exp_samples": [
                        {"labels": f'{{job="ddp",rank="{r}"}}', "value": int(r == 0)} for r in range(RANKS)
                    ],
                },
                {
                    "expr": f"({CHANCE_RECORD} > bool 0.3) * ({CHANCE_RECORD} < bool 0.4)",
                    "eval_time": "14m",
                    "exp_samples": [{"labels": '{job="ddp"}', "value": 1}],
                },
            ],
        },
        {
            "interval": "15s",
            "input_series": scenario(transient),
            "alert_rule_test": [{"eval_time": "14m", "alertname": ALERT, "exp_alerts": []}],
            "promql_expr_test": [
                {
                    "expr": f"{SHARE_RECORD} > bool 0.2 and {SHARE_RECORD} < bool 0.3",
                    "eval_time": "14m",
                    "exp_samples": [{"labels": '{job="ddp"}', "value": 1}],
                }
            ],
        },
    ]
    (tmp_path / "rules.yml").write_text(rules_file(0.1, "ddp", UNIT))
    (tmp_path / "tests.yml").write_text(
        json.dumps({"rule_files": ["rules.yml"], "evaluation_interval": "15s", "tests": tests}, indent=1)
    )
    result = promtool("test", "rules", "tests.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_dashboard_queries_parse_and_use_what_the_rules_record(tmp_path):
    board = json.loads(dashboard("ddp"))
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    assert len(exprs) == len(DASHBOARD_PANELS) == 4
    assert any(GAP_RECORD in e for e in exprs) and any(SHARE_RECORD in e for e in exprs)
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:query_{i}:check", "expr": e.replace("$job", "ddp")}
                    for i, e in enumerate(exprs)
                ],
            }
        ]
    }
    (tmp_path / "dashboard-queries.yml").write_text(json.dumps(rules))
    result = promtool("check", "rules", "dashboard-queries.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_imports_only_the_standard_library():
    """Everything but the exporter runs on plain CPython and Pyodide: no import outside the standard library."""
    for path in sorted((ROOT / "ddpcore").glob("*.py")):
        if path.name == "exporter.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "ddpcore", f"{path.name} imports {name}"


def free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(count: int) -> int:
    """The first of `count` consecutive free ports on localhost (a replay serves rank i on PORT + i)."""
    for _ in range(50):
        base = free_port()
        if base + count > 65535:
            continue
        sockets = []
        try:
            for port in range(base, base + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise AssertionError("no run of free ports")


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def test_exporter_serves_the_names_the_rules_use():
    from ddpcore.ops import Recorder
    from ddpcore.ops.exporter import Exporter, served

    exporter = Exporter(rank=3, job="ddp")
    ticks = iter([0.0, 0.002, 0.002, 0.010, 0.010, 0.015, 0.020, 0.030, 0.031, 0.040, 0.050])
    rec = Recorder(io.StringIO(), rank=3, clock=lambda: next(ticks), on_step=exporter.observe)
    hook = rec.comm_hook(lambda state, bucket: type("F", (), {"then": lambda self, fn: None})())
    for _ in rec.steps([1]):
        with rec.phase("forward"):
            pass
        with rec.phase("backward"):
            hook(None, None)
        with rec.phase("optimizer"):
            pass
    port = free_port()
    with served(exporter, port):
        text = get(f"http://127.0.0.1:{port}/metrics")
    assert f'{STEP_METRIC}{{job="ddp",rank="3"}} 0.04' in text
    assert f'{WAIT_METRIC}{{job="ddp",rank="3"}} 0.0' in text, "no collective completed: no wait measured"
    assert 'ddp_phase_seconds{job="ddp",phase="forward",rank="3"} 0.008' in text
    assert 'ddp_steps_total{job="ddp",rank="3"} 1.0' in text


def test_the_exporter_adds_a_trainer_s_logged_phase_from_the_first_step_that_spends_time_in_it():
    """A replay of torchtitan's logs: its forward and backward in one span is exported as such, not as a forward of
    0; a run of ddpcore's own phases exports no such series."""
    from prometheus_client import generate_latest

    from ddpcore.ops.exporter import Exporter
    from ddpcore.ops.instrument import StepTimes

    exporter = Exporter(rank=1, job="titan")
    exporter.observe(StepTimes(1, 0.05, 0.01, {"load": 0.01, "forward": 0.02}, 0.0))
    assert b'phase="forward_backward"' not in generate_latest(exporter.registry)
    exporter.observe(StepTimes(2, 0.05, 0.01, {"load": 0.01, "forward_backward": 0.03}, 0.0))
    text = generate_latest(exporter.registry).decode()
    assert 'ddp_phase_seconds{job="titan",phase="forward_backward",rank="1"} 0.03' in text
    assert 'ddp_phase_seconds{job="titan",phase="forward",rank="1"} 0.0' in text


def test_the_recorder_measures_the_wait_from_the_last_bucket_to_the_release():
    from ddpcore.ops import Recorder

    class Done:
        def then(self, fn):  # type: ignore[no-untyped-def]
            fn(self)
            return self

        def value(self) -> None:
            return None

    # load, forward, backward (two buckets, each done at once: 12-12 ms and 20-30 ms), optimizer, next step
    ticks = iter([0.0, 0.001, 0.002, 0.010, 0.010, 0.012, 0.012, 0.020, 0.030, 0.031, 0.032, 0.040, 0.050, 0.060])
    seen = []
    rec = Recorder(io.StringIO(), rank=0, clock=lambda: next(ticks), on_step=seen.append)
    hook = rec.comm_hook(lambda state, bucket: Done())
    for _ in rec.steps([1]):
        with rec.phase("forward"):
            pass
        with rec.phase("backward"):
            hook(None, None)
            hook(None, None)
        with rec.phase("optimizer"):
            pass
    (times,) = seen
    assert times.arrival_seconds == pytest.approx(0.012)
    assert times.wait_seconds == pytest.approx(0.030 - 0.020), "from the last launch to the last completion"


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def query(base: str, expr: str) -> list[dict]:
    body = json.loads(get(f"{base}/api/v1/query?query={urllib.parse.quote(expr)}"))
    assert body["status"] == "success", body
    return body["data"]["result"]


REPLAY_SPEED = 0.05
"""The replays play each step for about a second, as long as a scrape interval. At their own pace (tens of ms a step)
a replay loops its few dozen steps every two seconds or so, and a 1 s scrape can alias with that loop: it then
samples the same rare step again and again (rank 3 of the slowed run is late by over 10 % in a few of its
steps), which no job that does not loop would show. Step by step, the 10 s window holds consecutive steps, as a
real job's would."""


def test_real_prometheus_fires_for_the_late_rank_and_not_on_the_clean_run(tmp_path):
    """Replays of real runs scraped by a real Prometheus every second: 8 ranks with rank 2 slowed 2x in its forward
    (job "slow"), the same with nobody slowed (job "clean"), and 4 ranks where rank 0 loses 20 ms between steps
    (job "between", which a measure from each rank's own step start cannot see). The alert fires for rank 2 of
    the slow job and rank 0 of the between job, never for the clean one."""
    runs = {
        "slow": FIXTURES / "ddp8" / "s2.0",
        "clean": FIXTURES / "ddp8" / "s1.0",
        "between": FIXTURES / "causes" / "between",
    }
    expected = {"slow": ["2"], "between": ["0"]}
    timing = RuleTiming(window="10s", duration="5s")
    processes: list[subprocess.Popen] = []
    try:
        targets: dict[str, list[str]] = {}
        inputs = {job: [str(p) for p in sorted(folder.glob("rank*.jsonl.gz"))] for job, folder in runs.items()}
        # one run of ports for every replay: ports chosen one replay at a time could be chosen twice, since a
        # replay binds its ports only once it has started
        base = free_ports(sum(map(len, inputs.values())))
        for job, files in inputs.items():
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "ddpcore", "replay", *files, "--port", str(base), "--job", job]
                    + ["--speed", str(REPLAY_SPEED)],
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=open(tmp_path / f"replay-{job}.log", "w"),  # noqa: SIM115
                )
            )
            targets[job] = [f"127.0.0.1:{base + i}" for i in range(len(files))]
            base += len(files)
        for job in runs:
            (tmp_path / f"rules-{job}.yml").write_text(rules_file(0.1, job, timing))
        scrapes = "".join(scrape_config(targets[job], job, "1s").replace("scrape_configs:\n", "") for job in runs)
        (tmp_path / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files: [{', '.join(f'rules-{job}.yml' for job in runs)}]\nscrape_configs:\n{scrapes}"
        )
        port = free_port()
        processes.append(
            subprocess.Popen(
                [
                    tool("prometheus"),
                    "--config.file=prometheus.yml",
                    f"--web.listen-address=127.0.0.1:{port}",
                    f"--storage.tsdb.path={tmp_path / 'data'}",
                ],
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=open(tmp_path / "prometheus.log", "w"),  # noqa: SIM115
            )
        )
        base = f"http://127.0.0.1:{port}"
        firing = f'ALERTS{{alertname="{ALERT}",alertstate="firing"}}'
        deadline, fired = time.monotonic() + 120, {}
        # until the firing ranks are exactly those expected: as the first scrapes come in, the 10 s window holds
        # only a sample or two, and a warm-up step where rank 0 really was late (step 5 of the slowed run) can be
        # all of it for a few seconds; the steady state is what the rule is for
        while time.monotonic() < deadline and fired != expected:
            time.sleep(1)
            for p in processes:
                logs = "".join(f.read_text()[-1500:] for f in sorted(tmp_path.glob("*.log")))
                assert p.poll() is None, logs
            try:
                found = query(base, firing)
            except OSError:
                continue
            fired = {}
            for r in sorted(found, key=lambda r: r["metric"]["rank"]):
                fired.setdefault(r["metric"]["job"], []).append(r["metric"]["rank"])
        assert fired == expected, "the alert fires for the late rank of each slowed run"
        assert query(base, 'ALERTS{job="clean"}') == [], "no alert, not even pending, on the clean run"
        shares = {r["metric"]["job"]: float(r["value"][1]) for r in query(base, SHARE_RECORD)}
        assert shares["slow"] > 0.5 and shares["slow"] > shares["clean"], shares
    finally:
        for p in processes:
            stop(p)
    assert all(p.poll() is not None for p in processes)


def test_replay_plays_every_step_of_every_rank_and_stops(capsys):
    from ddpcore.analysis import analyze
    from ddpcore.cli import main
    from ddpcore.ops.replay import frames_at, frames_of, play
    from ddpcore.traces import load

    files = sorted((FIXTURES / "ddp8" / "s2.0").glob("rank*.jsonl.gz"))
    loaded = load([(p.name, p.read_bytes()) for p in files])
    analysis = analyze(loaded.traces)
    frames = frames_at(frames_of(analysis, loaded.traces), 10.0)
    shown: list[tuple[int, float]] = []
    slept: list[float] = []
    assert play(frames, lambda rank, t: shown.append((rank, t.wait_seconds)), loops=2, sleep=slept.append) == 78
    assert len(shown) == 2 * 39 * RANKS and sum(slept) == pytest.approx(2 * 39 * analysis.step_ms / 1000 / 10, rel=1e-9)
    late = [w for r, w in shown if r == 2]
    assert statistics.median(w for r, w in shown if r != 2) - statistics.median(late) > 0.015, "rank 2 waits least"
    base = free_ports(RANKS)
    code = main(["replay", *map(str, files), "--port", str(base), "--speed", "1000", "--loops", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "honor_labels: true" in out and f"127.0.0.1:{base + 7}" in out
    assert main(["replay", str(files[0]), "--port", "0"]) == 2


def test_analyze_writes_the_rules_and_the_dashboard(tmp_path, capsys):
    from ddpcore.cli import main

    files = [str(p) for p in sorted((FIXTURES / "ddp8" / "s2.0").glob("rank*.jsonl.gz"))]
    assert main(["analyze", *files, "--rules", str(tmp_path / "prom"), "--min-gap", "0.2", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rules, board = (Path(p) for p in payload["written"])
    assert "> 0.2" in rules.read_text() and json.loads(board.read_text())["uid"] == "ddp-stragglers"
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["analyze", *files, "--rules", str(blocked / "sub")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_the_documented_before_and_after_queries_pass_promtool(tmp_path):
    """docs/production.md's PromQL `offset` queries (a window now against the same window a day ago) parse."""
    import re

    text = (ROOT / "docs" / "production.md").read_text()
    queries = [q for block in re.findall(r"```promql\n(.*?)```", text, re.S) for q in re.split(r"\n(?=\S)", block)]
    assert len(queries) == 3 and all("offset 1d" in q for q in queries)
    rules = {
        "groups": [{"name": "docs", "rules": [{"record": f"docs:q{i}", "expr": q} for i, q in enumerate(queries)]}]
    }
    (tmp_path / "docs.yml").write_text(json.dumps(rules))
    result = promtool("check", "rules", "docs.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
