"""`shard` and `merge` over TCP: separate processes, one verdict, the same as `analyze` over every file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ddpcore.cli.shards import KEY_VARIABLE
from ddpcore.traces import SUFFIX, simulated_run, summary_bytes

KEY = "a-test-key-0123456789"


def run(*argv: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ddpcore", *argv], capture_output=True, text=True, env=env, timeout=timeout
    )


@pytest.fixture
def keyed() -> dict:
    return {**os.environ, KEY_VARIABLE: KEY}


def start_shard(folder: Path, env: dict) -> tuple[subprocess.Popen, str]:
    """A shard listening on a free port of 127.0.0.1 (port 0), and the address it prints."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ddpcore", "shard", str(folder), "--listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    said = []
    while not (found := re.search(r"listening on (127\.0\.0\.1:\d+)", said[-1] if said else "")):
        said.append(proc.stderr.readline())
        assert said[-1], said
    return proc, found.group(1)


def test_merge_of_three_shards_equals_analyze(tmp_path, keyed):
    ranks, _ = simulated_run(24, 50, persistent=(17,), p=0.02, seed=5)
    folders = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    for f in folders:
        f.mkdir()
    for r in ranks:
        blob = summary_bytes(r)
        folder = folders[0 if r.rank < 5 else 1 if r.rank < 16 else 2]
        (folder / f"rank{r.rank}{SUFFIX}").write_bytes(blob)
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(blob)
    started = [start_shard(f, keyed) for f in folders]
    try:
        merged = run("merge", *(a for _, a in started), "--json", env=keyed)
        assert merged.returncode == 0, merged.stderr
        for proc, _ in started:
            assert proc.wait(timeout=30) == 0
    finally:
        for proc, _ in started:
            proc.kill()
            proc.wait()
            proc.stderr.close()
    whole = run("analyze", *sorted(str(p) for p in tmp_path.glob(f"*{SUFFIX}")), "--json")
    got, want = json.loads(merged.stdout), json.loads(whole.stdout)
    for r in got["ranks"] + want["ranks"]:
        r["source"] = Path(r["source"]).name
    assert got == want
    assert got["straggler_rank"] == 17


def test_a_merge_lists_the_files_a_shard_left_out(tmp_path, keyed):
    ranks, _ = simulated_run(6, 20, persistent=(4,), p=0.02, seed=3)
    folders = [tmp_path / "a", tmp_path / "b"]
    for f in folders:
        f.mkdir()
    for r in ranks:
        (folders[r.rank % 2] / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    (folders[1] / "rank99.jsonl").write_text("not a trace\n")
    started = [start_shard(f, keyed) for f in folders]
    try:
        merged = run("merge", *(a for _, a in started), "--json", env=keyed)
    finally:
        for proc, _ in started:
            proc.kill()
            proc.wait()
            proc.stderr.close()
    assert merged.returncode == 1, merged.stderr
    got = json.loads(merged.stdout)
    assert [Path(e["source"]).name for e in got["errors"]] == ["rank99.jsonl"]
    assert got["errors"][0]["message"] and "rank99.jsonl" in merged.stderr
    assert got["straggler_rank"] == 4 and len(got["ranks"]) == 6


def test_a_shard_without_the_key_says_so_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != KEY_VARIABLE}
    done = run("shard", str(tmp_path), "--listen", "127.0.0.1:0", env=env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and KEY_VARIABLE in done.stderr


def test_a_merge_with_no_shard_there_says_so_in_one_line(keyed):
    import socket
    from contextlib import closing

    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = run("merge", f"127.0.0.1:{port}", env=keyed)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and f"no shard at 127.0.0.1:{port}" in done.stderr


def test_a_merge_with_the_wrong_key_is_refused(tmp_path, keyed):
    ranks, _ = simulated_run(4, 10, seed=1)
    for r in ranks:
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    proc, address = start_shard(tmp_path, keyed)
    try:
        done = run("merge", address, env={**keyed, KEY_VARIABLE: "another-key-0123456789"})
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and "refused the key" in done.stderr
        said = proc.stderr.readline()
        assert said.startswith("python -m ddpcore shard: refused a connection") and "Traceback" not in said
        merged = run("merge", address, env=keyed)
        assert merged.returncode == 0 and proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()


def test_a_bad_address_is_one_line(keyed):
    done = run("merge", "nohostport", env=keyed)
    assert done.returncode == 1 and "is not HOST:PORT" in done.stderr and done.stderr.count("\n") == 1


def test_a_shard_given_twice_is_one_line(keyed):
    done = run("merge", "127.0.0.1:7070", "127.0.0.1:7070", env=keyed)
    assert done.returncode == 1 and "is given twice" in done.stderr and done.stderr.count("\n") == 1
