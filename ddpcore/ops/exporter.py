"""Live per-rank metrics for Prometheus, from a training loop (`Recorder(on_step=…)`) or a replay of traces.

This module needs the extra `ddpcore[prometheus]` (prometheus_client, the standard Python client); nothing else in
ddpcore imports it. The names are those the rules file uses (`ddpcore.alerts`): per rank, labels `job` and `rank`,
in seconds, the last finished step's duration and wait at the gradient barrier, each phase's time, and a count of
steps. Scrape with `honor_labels: true` so the exporter's own `job` and `rank` labels are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from threading import Thread
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from ..base.phases import LOGGED, RECORDED
from .alerts import DEFAULT_JOB, PHASE_METRIC, STEP_METRIC, STEPS_METRIC, WAIT_HELP, WAIT_METRIC
from .instrument import StepTimes

__all__ = ["Exporter", "serve_metrics", "served"]

LABELS = ("job", "rank")


class Exporter:
    """One rank's metrics, in a registry of its own (one exporter per rank process, as in a real job): the phases
    ddpcore records, and a trainer's logged ones (`phases.LOGGED`, a replay of torchtitan's logs) from the first step
    that spends time in them."""

    def __init__(self, rank: int, job: str = DEFAULT_JOB, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.server: WSGIServer | None = None
        values = (job, str(rank))
        self._step = Gauge(
            STEP_METRIC, "Wall time of this rank's last finished training step.", LABELS, registry=self.registry
        ).labels(*values)
        self._wait = Gauge(WAIT_METRIC, f"{WAIT_HELP}.", LABELS, registry=self.registry).labels(*values)
        self._phase = Gauge(
            PHASE_METRIC,
            "Time this rank spent in each phase of its last step.",
            (*LABELS, "phase"),
            registry=self.registry,
        )
        self._values = values
        self._phases = {name: self._phase.labels(*values, name) for name in RECORDED}
        self._steps = Counter(
            STEPS_METRIC.removesuffix("_total"), "Training steps this rank finished.", LABELS, registry=self.registry
        ).labels(*values)

    def observe(self, times: StepTimes) -> None:
        """A step finished: its times become the rank's current values (what `Recorder(on_step=…)` calls)."""
        self._step.set(times.seconds)
        self._wait.set(times.wait_seconds)
        for name in LOGGED:
            if name not in self._phases and times.phases.get(name):
                self._phases[name] = self._phase.labels(*self._values, name)
        for name, gauge in self._phases.items():
            gauge.set(times.phases.get(name, 0.0))
        self._steps.inc()


def serve_metrics(port: int, rank: int, job: str = DEFAULT_JOB, addr: str = "0.0.0.0") -> Exporter:
    """An exporter for this rank, served over HTTP on `port` for as long as the process runs (a daemon thread; its
    server is `exporter.server`).

    >>> from urllib.request import urlopen
    >>> exporter = serve_metrics(0, rank=3, addr="127.0.0.1")  # port 0: a free one
    >>> page = urlopen(f"http://127.0.0.1:{exporter.server.server_address[1]}/metrics").read().decode()
    >>> f'{STEPS_METRIC}{{job="{DEFAULT_JOB}",rank="3"}} 0.0' in page
    True
    >>> exporter.server.shutdown()
    """
    exporter = Exporter(rank, job)
    exporter.server, _ = start_http_server(port, addr=addr, registry=exporter.registry)
    return exporter


@contextmanager
def served(exporter: Exporter, port: int, addr: str = "127.0.0.1") -> Iterator[WSGIServer]:
    """Serve an exporter on `port` until the block ends, then stop its server (for replays and tests)."""
    server: WSGIServer
    thread: Thread
    server, thread = start_http_server(port, addr=addr, registry=exporter.registry)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
