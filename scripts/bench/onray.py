"""`analyze --ray` at scale (part of `python build.py bench --scale`): a generated run's summaries split between two
Ray nodes started on this machine (`ray.cluster_utils.Cluster`, each node told its own folder), merged by the driver
as `analyze --ray` merges them, against `analyze` alone over the same files.

Run as `python -m scripts.bench.onray FOLDER WANT.json`: FOLDER holds the run's summaries (moved into two halves,
one per node); WANT.json is `analyze --json`'s answer over them. Prints one JSON line: the merge's seconds, the
peak resident memory and CPU seconds of the driver (up to the verdict: not the JSON of the check that follows) and
of each node's actor, the bytes that crossed between them
(each question's arguments and its answer, pickled), and whether the verdict is `analyze`'s but for each rank's
`source`.
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import sys
import threading
import time
from pathlib import Path

__all__ = ["NODE_DIR", "actor_peaks", "main"]

NODE_DIR = "DDPCORE_NODE_DIR"


def actor_peaks(found: dict[int, int], busy: dict[int, float], stop: threading.Event) -> None:
    """Until `stop`, each node actor's peak resident memory (KiB) and CPU seconds so far, by process id, sampled
    every half second."""
    tick = os.sysconf("SC_CLK_TCK")
    while not stop.wait(0.5):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if b"NodeReader" not in f.read():
                        continue
                with open(f"/proc/{pid}/status") as f:
                    rss = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, StopIteration, ValueError, IndexError):
                continue
            found[int(pid)] = max(found.get(int(pid), 0), rss)
            busy[int(pid)] = (int(fields[11]) + int(fields[12])) / tick


def main(folder: Path, want_path: Path) -> int:
    """Split, start two nodes, merge, measure; one JSON line on stdout."""
    from ray.cluster_utils import Cluster

    from ddpcore.analysis import judge
    from ddpcore.analysis.parted import measure_parts
    from ddpcore.cli import onray
    from ddpcore.cli.verdicts import analysis_payload

    files = sorted(p for p in folder.iterdir() if p.is_file())
    halves = [folder / "node0", folder / "node1"]
    for k, half in enumerate(halves):
        half.mkdir()
        for p in files[k * len(files) // 2 : (k + 1) * len(files) // 2]:
            p.rename(half / p.name)
    cluster = Cluster(
        initialize_head=True,
        connect=False,
        head_node_args={"num_cpus": 1, "env_vars": {NODE_DIR: str(halves[0])}, "include_dashboard": False},
    )
    cluster.add_node(num_cpus=1, env_vars={NODE_DIR: str(halves[1])})
    cluster.wait_for_nodes()
    crossed = [0]
    asked = onray.NodePart.ask_later

    def counted(self, name, args):
        wait = asked(self, name, args)

        def answered():
            value = wait()
            crossed[0] += len(pickle.dumps(args, protocol=5)) + len(pickle.dumps(value, protocol=5))
            return value

        return answered

    onray.NodePart.ask_later = counted  # type: ignore[method-assign]
    peaks: dict[int, int] = {}
    busy: dict[int, float] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=actor_peaks, args=(peaks, busy, stop), daemon=True)
    ray = None
    try:
        ray, _ = onray.connect(cluster.address)
        sampler.start()
        start, used = time.perf_counter(), time.process_time()
        parts = onray.node_parts(ray, onray.node_readers(ray, f"${NODE_DIR}", 1), lambda line: None)
        measured, unread = measure_parts(parts, 0.1)
        assert measured is not None, unread
        analysis = judge(measured, 0.1)
        seconds, driver_s = time.perf_counter() - start, time.process_time() - used
        driver_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        got = json.loads(json.dumps(analysis_payload(analysis, []), allow_nan=False))
    finally:
        stop.set()
        if ray is not None:
            ray.shutdown()
        cluster.shutdown()
    want = json.loads(want_path.read_text())
    for r in got["ranks"] + want["ranks"]:
        r["source"] = Path(r["source"]).name
    actors_mb = sorted(kb / 1024 for kb in peaks.values())
    print(
        json.dumps(
            {
                "analyze_s": seconds,
                "driver_mb": driver_mb,
                "actor_mb": actors_mb,
                "peak_mb": max([driver_mb, *actors_mb]),
                "driver_cpu_s": driver_s,
                "actor_cpu_s": sorted(busy.values()),
                "bytes_between": crossed[0],
                "nodes": len(parts),
                "unread": len(unread),
                "same_as_analyze": got == want,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
