"""`analyze --ray`: one actor per node of a Ray cluster reads that node's ranks; the verdict merged on the driver is
`analyze`'s over every file, a node that dies ends the run in one line, and Ray never loads without `--ray`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ray
from paths import FIXTURES
from ray.cluster_utils import Cluster
from runs import files, sampled_sets

from ddpcore.traces import simulated_run, summary_bytes
from ddpcore.traces.summary import SUFFIX

NODE_DIR = "DDPCORE_NODE_DIR"
NODES = ("head", "second", "third")
SPLIT = (5, 16)
"""Ranks below 5 on the head node, below 16 on the second, the rest on the third."""


def run(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ddpcore", *argv], capture_output=True, text=True, timeout=timeout)


def folders_of(root: Path) -> list[Path]:
    return [root / name for name in NODES]


def start_cluster(root: Path) -> Cluster:
    """Three Ray nodes on this machine, each told its own folder in NODE_DIR (as each node of a cluster has its own
    disk)."""
    folders = folders_of(root)
    for f in folders:
        f.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(
        initialize_head=True,
        connect=False,
        head_node_args={"num_cpus": 1, "env_vars": {NODE_DIR: str(folders[0])}, "include_dashboard": False},
    )
    for f in folders[1:]:
        cluster.add_node(num_cpus=1, env_vars={NODE_DIR: str(f)})
    cluster.wait_for_nodes()
    return cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("nodes")
    started = start_cluster(root)
    yield started, root
    started.shutdown()


def spread(ranks, root: Path, where=lambda rank: 0 if rank < SPLIT[0] else 1 if rank < SPLIT[1] else 2) -> Path:
    """Each rank's summary in its node's folder (emptied first), and every one in `root/all` for `analyze`."""
    folders = folders_of(root)
    whole = root / "all"
    for f in [*folders, whole]:
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
    for r in ranks:
        blob = summary_bytes(r)
        for k in where(r.rank) if isinstance(where(r.rank), tuple) else (where(r.rank),):
            (folders[k] / f"rank{r.rank}{SUFFIX}").write_bytes(blob)
        (whole / f"rank{r.rank}{SUFFIX}").write_bytes(blob)
    return whole


def same_but_source(got: dict, want: dict) -> None:
    for r in got["ranks"] + want["ranks"]:
        r["source"] = Path(r["source"]).name
    assert got == want


def test_three_nodes_each_reading_its_own_folder_give_analyze_s_verdict(cluster):
    """Each node's folder read there, by one part or by two (`--jobs 2`: two actors pinned to each node)."""
    started, root = cluster
    ranks, _ = simulated_run(24, 50, persistent=(17,), p=0.02, seed=5)
    whole = spread(ranks, root)
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    assert merged.returncode == 0, merged.stderr
    got, want = json.loads(merged.stdout), json.loads(run("analyze", str(whole), "--json").stdout)
    same_but_source(got, want)
    assert got["straggler_rank"] == 17
    for low, high in ((0, 4), (5, 15), (16, 23)):
        assert f"rank(s), {low} to {high}, at {root}" in merged.stderr
    two = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json", "--jobs", "2")
    assert two.returncode == 0, two.stderr
    same_but_source(json.loads(two.stdout), want)
    assert two.stderr.count("rank(s),") == 3, "a line per node, not per part"


def test_a_real_run_split_over_the_nodes_is_the_same_byte_for_byte(cluster):
    """The real 8-rank run with a 2x straggler, its traces on three nodes: analyze's JSON, but for the paths."""
    started, root = cluster
    real = sorted((FIXTURES / "ddp8" / "s2.0").glob("rank*.jsonl.gz"))
    assert len(real) == 8
    folders = folders_of(root)
    for f in folders:
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
    for k, path in enumerate(real):
        shutil.copy(path, folders[0 if k < 2 else 1 if k < 5 else 2])
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    whole = run("analyze", *map(str, real), "--json")
    assert merged.returncode == whole.returncode == 0, merged.stderr
    same_but_source(json.loads(merged.stdout), json.loads(whole.stdout))


def test_a_real_set_of_each_family_split_over_the_nodes_is_analyze_s_verdict(cluster, capsys):
    """Real runs' files dealt round the three nodes, one set of each fixture family in each format
    (`runs.sampled_sets`: each costs Ray seconds to start its actors; every set merged from three shards is checked in
    tests/analysis/test_shards.py): `analyze --ray`'s JSON is `analyze`'s, but for the paths (in this process: one
    driver, connected once, which each run uses as it is)."""
    from ddpcore.cli import main, onray

    started, root = cluster
    sets = sampled_sets()
    assert len(sets) >= 20
    onray.connect(started.address)
    try:
        for found in sets:
            folders = folders_of(root)
            for f in folders:
                shutil.rmtree(f, ignore_errors=True)
                f.mkdir()
            for k, path in enumerate(found):
                shutil.copy(path, folders[k % 3])
            code = main(["analyze", *map(str, found), "--json"])
            want = capsys.readouterr().out
            assert main(["analyze", "--ray", started.address, f"${NODE_DIR}", "--json"]) == code, found[0].parent
            got = capsys.readouterr().out
            same_but_source(json.loads(got), json.loads(want))
        assert ray.is_initialized(), "the driver's own connection is left as it was"
    finally:
        ray.shutdown()


def test_a_driver_connected_to_another_cluster_is_refused_in_one_line(cluster, capsys):
    """`--ray ADDRESS` in a process whose driver is connected elsewhere: one line naming both, no traceback, and
    the driver still connected."""
    from ddpcore.cli import main, onray

    started, root = cluster
    onray.connect(started.address)
    try:
        assert main(["analyze", "--ray", "127.0.0.1:1", f"${NODE_DIR}"]) == 1
        err = capsys.readouterr().err
        assert "already connected to the Ray cluster at" in err and "'127.0.0.1:1'" in err, err
        assert "Traceback" not in err and ray.is_initialized()
    finally:
        ray.shutdown()


def test_a_pipeline_jobs_traces_on_the_nodes_are_analyze_s_job(cluster):
    """A pipeline job's ranks' profiler traces, each on the node that recorded it, read there (a trace per rank,
    shipped as its operations): `analyze`'s what-if of the same files, but for the job's name (its folder's)."""
    started, root = cluster
    traces = sorted((FIXTURES / "jobs3d_profiled" / "slow_worker").glob("rank*.pt.trace.json.gz"))
    folders = folders_of(root)
    for f in folders:
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
    for k, path in enumerate(traces):
        shutil.copy(path, folders[min(k, 2)])
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    whole = run("analyze", *map(str, traces), "--json")
    assert merged.returncode == whole.returncode == 0, merged.stderr
    got, want = json.loads(merged.stdout), json.loads(whole.stdout)
    assert got.pop("job") in NODES and want.pop("job") == "slow_worker"
    assert got == want and got["diagnosis"]["kind"] == "one_worker"
    assert merged.stderr.count("job file(s) at") == 3
    shutil.copy(traces[3], folders[0])
    again = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    assert again.returncode == 0 and "read once" in again.stderr, again.stderr


def test_which_files_make_the_run_is_decided_over_every_node_as_analyze_decides_it(cluster):
    """A node holding only the files of a smaller run, a second file for a rank and an unreadable one: the run is
    chosen over every node's files by the rules `analyze` applies (a node does not decide its own run), the same
    files are left out with the same lines, and the verdict is `analyze`'s."""
    started, root = cluster
    noise = FIXTURES / "noise"
    given = [*files(noise / "two_slow", "*.jsonl.gz")[:3], *files(noise / "clean", "*.jsonl.gz")[3:]]
    folders = folders_of(root)
    for f in [*folders, root / "all"]:
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir()
    named = [(0, f"{k:02d}-{name}", data) for k, (name, data) in enumerate(given[:3])]
    named += [(1, f"{k:02d}-{name}", data) for k, (name, data) in enumerate(given) if k >= 3]
    named += [(1, "50-unreadable.jsonl", b"not json"), (0, "90-again.jsonl.gz", given[1][1])]
    for node, name, data in named:
        (folders[node] / name).write_bytes(data)
        (root / "all" / name).write_bytes(data)
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    whole = run("analyze", str(root / "all"), "--json")
    assert merged.returncode == whole.returncode == 1, merged.stderr
    got, want = json.loads(merged.stdout), json.loads(whole.stdout)
    assert len(got["ranks"]) == 3 and len(got["errors"]) == 3
    for payload in (got, want):
        payload["errors"] = sorted(
            (Path(e["source"]).name, e["message"].replace(str(folders[0]), "").replace(str(root / "all"), ""))
            for e in payload["errors"]
        )
    same_but_source(got, want)
    assert "no rank at" in merged.stderr


def test_one_folder_every_node_sees_is_read_once(cluster):
    started, root = cluster
    ranks, _ = simulated_run(6, 20, persistent=(4,), p=0.0, seed=3)
    whole = spread(ranks, root)
    merged = run("analyze", "--ray", started.address, str(whole), "--json")
    assert merged.returncode == 0, merged.stderr
    assert merged.stderr.count("hold the same 6 rank(s) (a shared folder?): read once") == 1
    same_but_source(json.loads(merged.stdout), json.loads(run("analyze", str(whole), "--json").stdout))


def test_ranks_partly_held_by_two_nodes_are_refused_in_one_line(cluster):
    started, root = cluster
    ranks, _ = simulated_run(8, 10, seed=2)
    spread(ranks, root, lambda rank: (0, 1) if rank == 3 else 0 if rank < 3 else 1 if rank < 6 else 2)
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    assert merged.returncode == 1 and merged.stdout == ""
    errors = [line for line in merged.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and "rank 3 is held by node" in errors[0], merged.stderr


def test_a_node_whose_folder_is_missing_is_named(cluster):
    started, root = cluster
    merged = run("analyze", "--ray", started.address, str(root / "nowhere" / f"${NODE_DIR}"))
    assert merged.returncode == 1 and merged.stdout == ""
    assert "no such file or folder" in merged.stderr and "error: node " in merged.stderr


def test_files_a_node_left_out_are_listed_as_analyze_lists_them(cluster):
    started, root = cluster
    ranks, _ = simulated_run(6, 20, persistent=(4,), p=0.02, seed=3)
    spread(ranks, root)
    (folders_of(root)[1] / "rank99.jsonl").write_text("not a trace\n")
    merged = run("analyze", "--ray", started.address, f"${NODE_DIR}", "--json")
    assert merged.returncode == 1, merged.stderr
    got = json.loads(merged.stdout)
    assert [Path(e["source"]).name for e in got["errors"]] == ["rank99.jsonl"]
    assert got["straggler_rank"] == 4 and len(got["ranks"]) == 6


def test_a_node_killed_mid_merge_ends_the_run_naming_it(tmp_path, capsys, monkeypatch):
    """A node removed while the merge asks its rounds: one line naming a node, exit 1, no verdict printed."""
    from ddpcore.cli import main, onray

    started = start_cluster(tmp_path)
    try:
        ranks, _ = simulated_run(24, 30, persistent=(17,), seed=4)
        spread(ranks, tmp_path)
        victim = started.list_all_nodes()[-1]
        asked = onray.progress

        def kill_at_chance(round_name: str) -> None:
            asked(round_name)
            if round_name == "chance":
                started.remove_node(victim, allow_graceful=False)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and any(
                    n["NodeID"] == victim.node_id and n["Alive"] for n in ray.nodes()
                ):
                    time.sleep(0.2)

        monkeypatch.setattr(onray, "progress", kill_at_chance)
        monkeypatch.setattr(onray, "ANSWER_S", 60.0)
        assert main(["analyze", "--ray", started.address, f"${NODE_DIR}", "--json"]) == 1
        out, err = capsys.readouterr()
        assert "straggler_rank" not in out, "no verdict, not even part of one"
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1 and "stopped answering" in errors[0] and "no verdict" in errors[0], err
    finally:
        started.shutdown()


def test_a_local_ray_gives_analyze_s_verdict(tmp_path):
    ranks, _ = simulated_run(8, 20, persistent=(2,), seed=1)
    for r in ranks:
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    merged = run("analyze", "--ray", "local", str(tmp_path), "--json")
    assert merged.returncode == 0, merged.stderr
    same_but_source(json.loads(merged.stdout), json.loads(run("analyze", str(tmp_path), "--json").stdout))


def test_without_ray_installed_the_option_says_how_to_get_it(tmp_path):
    """Ray hidden from the interpreter: one line naming the extra, no traceback."""
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from ddpcore.cli import main\n"
        f"sys.exit(main(['analyze', '--ray', 'auto', {str(tmp_path)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "pip install 'ddpcore[ray]'" in done.stderr


def test_analyze_without_the_option_never_loads_ray():
    files = [str(p) for p in sorted((FIXTURES / "ddp8" / "s2.0").glob("rank*.jsonl.gz"))]
    code = (
        "import sys, io, contextlib\n"
        "from ddpcore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['analyze', *{files!r}]) == 0\n"
        "print('ray' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr
