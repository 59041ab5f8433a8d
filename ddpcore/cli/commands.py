"""`python -m ddpcore`: the model from a shell, as text or JSON (docs/contracts.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from ..base import THRESHOLD, ConfigError
from ..base.params import (
    BANDWIDTH_GBPS,
    BUCKET_MB,
    CLUSTER_PARAMS,
    FIRST_BUCKET_MB,
    GPUS,
    GRAD_MB,
    LATENCY_US,
    LOST_IN,
    MODE,
    PREFETCH_RESIDUAL_MS,
    SLOWDOWN,
    SPEED,
    TENSOR_ACTIVITY,
    Param,
    check_int,
    read_threshold,
)
from ..model import ClusterConfig, Link, Phases, StepConfig, cluster_step, cluster_sweep
from ..model.config import default_straggler
from ..ops.alerts import DEFAULT_JOB
from .reports import Report, cluster_table, ring_payload, ring_text, step_payload, step_text

if TYPE_CHECKING:  # the traces path loads only for the commands that read traces: `ring` needs none of it
    from ..analysis import Analysis, Measured, Outlook
    from ..traces import FileError, Loaded
    from ..traces.optrace import JobFile

__all__ = ["PROGRESS_AFTER_S", "ProgressLine", "build_parser", "main"]

MAX_JOBS = 256
AUTO_FILES = 64
"""From this many files on, `--jobs` left out reads them in a process per core: starting the processes pays."""
SUMMARY_FORMATS = ("columnar", "json", "parquet")
"""What `summarize --format` writes: version 3 (the default), version 2, or Parquet (needs ddpcore[parquet])."""


class UsageError(Exception):
    """A bad argument: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (one line, exit 2) instead of printed with the usage."""

    def error(self, message: str) -> NoReturn:
        """Raise the error for `main` to print on one line."""
        raise UsageError(f"{self.prog}: error: {message}")


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _emit(report: Report, as_json: bool) -> None:
    print(report.said(as_json))


RING_GPUS = replace(GPUS, high=256)
"""The ring command prints every transfer: 2(N-1) exchanges of N transfers stay readable up to 256 GPUs."""


def _add_step(p: argparse.ArgumentParser) -> None:
    """schedule and cost metrics of one training step

    One data-parallel step: every GPU computes, waits at the AllReduce barrier for the slowest, then reduces
    gradients and steps the optimizer.
    """
    _add_param(p, GPUS)
    p.add_argument(
        "--straggler",
        type=int,
        nargs="+",
        action="extend",
        metavar="R",
        help=f"rank(s) of the slow GPU(s), 0-based (default {default_straggler(GPUS.default)})",
    )
    _add_param(p, SLOWDOWN)
    _add_param(p, LOST_IN)
    p.add_argument("--prefetch", action="store_true", help="prefetch input data (hides loading but a residual copy)")
    for param in (PREFETCH_RESIDUAL_MS, TENSOR_ACTIVITY, MODE):
        _add_param(p, param)
    p.add_argument(
        "--allreduce-ms",
        type=float,
        default=None,
        help=f"AllReduce duration given directly (default {Phases().allreduce:g}); otherwise derived from the link "
        "flags",
    )
    for param in (BUCKET_MB, FIRST_BUCKET_MB):
        _add_param(p, param)
    _add_link_args(p, derived=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_step)


def _link_of(args: argparse.Namespace, always: bool) -> Link | None:
    given = {k: getattr(args, k) for k in ("grad_mb", "bandwidth_gbps", "latency_us") if getattr(args, k) is not None}
    return Link(**given) if (given or always) else None


def _run_step(args: argparse.Namespace) -> None:
    link = _link_of(args, always=False)
    if args.allreduce_ms is not None and link is not None:
        raise UsageError(
            "python -m ddpcore step: error: argument --allreduce-ms: not allowed with --grad-mb, "
            "--bandwidth-gbps or --latency-us (give the AllReduce either in ms or from the link)"
        )
    config = StepConfig(
        phases=Phases(allreduce=args.allreduce_ms) if args.allreduce_ms is not None else Phases(),
        mode=args.mode,
        link=link,
        bucket_mb=args.bucket_mb,
        first_bucket_mb=args.first_bucket_mb,
        gpus=args.gpus,
        stragglers=tuple(args.straggler) if args.straggler else (default_straggler(args.gpus),),
        slowdown=args.slowdown,
        lost_in=args.lost_in,
        prefetch=args.prefetch,
        prefetch_residual_ms=args.prefetch_residual_ms,
        tensor_activity=args.tensor_activity,
    )
    _emit(Report(step_payload(config), (step_text,)), args.json)


def _add_ring(p: argparse.ArgumentParser) -> None:
    """the ring AllReduce schedule, exchange by exchange

    GPU i sends to GPU i+1: N-1 reduce-scatter exchanges then N-1 all-gather exchanges.
    """
    p.add_argument("--gpus", type=int, default=GPUS.default, help=RING_GPUS.describe())
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_ring)


def _run_ring(args: argparse.Namespace) -> None:
    RING_GPUS.check(args.gpus)
    _emit(Report(ring_payload(args.gpus), (ring_text,)), args.json)


def _add_param(p: argparse.ArgumentParser, param: Param, derived: bool = False) -> None:
    """A flag from the parameter table; `derived`: no default, the model derives the value unless it is given."""
    help_text = param.describe() + ("; give any link flag to derive the AllReduce from the link" if derived else "")
    default = None if derived else param.default
    p.add_argument(param.flag, type=param.kind, default=default, help=help_text, choices=param.choices or None)


def _add_link_args(p: argparse.ArgumentParser, derived: bool = False) -> None:
    for param in (GRAD_MB, BANDWIDTH_GBPS, LATENCY_US):
        _add_param(p, param, derived)


def _add_cluster(p: argparse.ArgumentParser) -> None:
    """what stragglers cost at 8 to 1,000,000 GPUs

    Each rank computes nominal x lognormal jitter x (slowdown S with probability P); the step waits for the slowest
    rank, whose distribution is computed exactly (no sampling).
    """
    for param in CLUSTER_PARAMS:
        _add_param(p, param)
    _add_link_args(p)
    p.add_argument("--sweep", action="store_true", help="N from 8 to 1,000,000, log-spaced (a JSON list)")
    p.add_argument(
        "--from",
        dest="from_files",
        nargs="+",
        metavar="FILE",
        help="fit the straggler parameters and the step's timing to these traces (one per rank); N defaults to "
        "theirs, and any straggler flag given overrides its fitted value",
    )
    _add_reading_args(p)
    p.set_defaults(**{param.name: None for param in CLUSTER_PARAMS})
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_cluster)


def _run_cluster(args: argparse.Namespace) -> int:
    link = Link(grad_mb=args.grad_mb, bandwidth_gbps=args.bandwidth_gbps, latency_us=args.latency_us)
    given = {param.name: getattr(args, param.name) for param in CLUSTER_PARAMS if getattr(args, param.name) is not None}
    if args.from_files:
        fitted = _fitted(args.from_files, args)
        if fitted is None:
            return 1
        from ..analysis.fitting import cluster_config

        config = replace(cluster_config(fitted.fit), link=link, **given)
    else:
        config = ClusterConfig(**{**{param.name: param.default for param in CLUSTER_PARAMS}, **given}, link=link)
    if args.sweep:
        rows = [asdict(r) for r in cluster_sweep(config)]
        print(json.dumps(rows, indent=2, allow_nan=False) if args.json else cluster_table(rows))
    else:
        _emit(Report(asdict(cluster_step(config)), (_cluster_row,)), args.json)
    return 0


def _add_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"processes that read the files and measure the run, 1-{MAX_JOBS} (analyze: each holds a shard of the"
        f" ranks; default: one per core from {AUTO_FILES} files on, else 1)",
    )


def _check_jobs(jobs: int | None) -> None:
    """`--jobs` when given (left out, `jobs_for` chooses)."""
    if jobs is not None:
        check_int("jobs", jobs, 1, MAX_JOBS)


def jobs_for(count: int, jobs: int | None = None) -> int:
    """How many processes read `count` files: `jobs` when given, else one per core from AUTO_FILES files on.

    >>> jobs_for(10), jobs_for(10, 4), jobs_for(AUTO_FILES) == (os.cpu_count() or 1)
    (1, 4, True)
    """
    if jobs is not None:
        return jobs
    return (os.cpu_count() or 1) if count >= AUTO_FILES else 1


def _threshold(text: str) -> float:
    """`--threshold` read as the page reads its field (`params.read_threshold`); a bare number read as a percent is
    said on stderr, as the page says it under the field."""
    reading = read_threshold(text)
    if reading.value is None:
        raise argparse.ArgumentTypeError(reading.note(text).text())
    if reading.hint == "percent":
        note = reading.note(text, percent=f"{reading.value * 100:g}%", applied=f"{reading.value:g}").text()
        print(f"--threshold: {note}", file=sys.stderr)
    return reading.value


def _add_reading_args(p: argparse.ArgumentParser) -> None:
    _add_jobs(p)
    _add_threshold(p)


def _add_threshold(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        THRESHOLD.flag,
        "--min-gap",
        dest=THRESHOLD.name,
        type=_threshold,
        default=THRESHOLD.default,
        help=THRESHOLD.describe() + ": a share of the step below 1 (0.2) or a percent (20 %%, or a bare 1 to 100)",
    )


def _add_analyze(p: argparse.ArgumentParser) -> None:
    """find the stragglers in per-rank traces (PyTorch profiler or ddpcore JSONL)

    Read one trace per rank (.json, .json.gz or .jsonl[.gz], told apart by their content); per step, measure how
    late each rank reaches the gradient collective, as a share of the step; name the ranks late in most steps
    (persistent) and count the steps with a late rank (transient).
    """
    p.add_argument("files", nargs="+", metavar="FILE", help="one trace file per rank, or a folder of them")
    _add_reading_args(p)
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="read on every node of a Ray cluster (auto: the one this machine is in; HOST:PORT; local: a Ray of "
        "this machine alone): one actor per node reads FILE there, $VARIABLES expanded on the node, and the verdict "
        "is merged here (needs ddpcore[ray]; docs/summaries.md)",
    )
    p.add_argument(
        "--fit",
        action="store_true",
        help="also fit the cluster model's straggler parameters to the run, with what the run would cost without "
        "its stragglers and at 1k to 100k GPUs (docs/fit.md)",
    )
    p.add_argument(
        "--rules",
        metavar="DIR",
        help="also write the Prometheus rules (ddp-rules.yml, at --threshold) and a Grafana dashboard "
        "(ddp-dashboard.json) into DIR",
    )
    p.add_argument("--job", default=DEFAULT_JOB, help=f"the job label the rules select (default {DEFAULT_JOB})")
    p.add_argument(
        "--perfetto",
        metavar="OUT.json",
        help="also write the steps, the what-if's and the verdict as a Chrome trace-event file (Perfetto, "
        "chrome://tracing)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_analyze)


PROGRESS_AFTER_S = 2.0
"""Reading or measuring that lasts longer than this shows a progress line on a terminal."""
PROGRESS_EVERY_S = 0.25
"""A progress line is rewritten at most this often."""


class ProgressLine:
    """The reading's progress on stderr, then the measurement's, once either has lasted PROGRESS_AFTER_S (a quick
    read says nothing), rewritten at most every PROGRESS_EVERY_S."""

    def __init__(self) -> None:
        self.start, self.shown, self.last = time.monotonic(), False, 0.0
        self.measured = (0, 0)

    def __call__(self, done: int, files: int, done_bytes: int, total: int) -> None:
        """After each file: files and MiB read so far, on one line rewritten in place (at most every
        PROGRESS_EVERY_S, and at the last file)."""
        now = time.monotonic()
        if not self.shown and now - self.start < PROGRESS_AFTER_S:
            return
        if self.shown and done != files and now - self.last < PROGRESS_EVERY_S:
            return
        self.shown, self.last = True, now
        mb = 1024 * 1024
        print(
            f"\rread {done}/{files} files, {done_bytes / mb:,.0f} of {total / mb:,.0f} MiB",
            end="\n" if done == files else "",
            file=sys.stderr,
            flush=True,
        )

    def measuring(self, ranks: int, rank_steps: int) -> None:
        """The reading is over: the measurement's count of ranks and rank-steps, once progress is shown."""
        self.measured = (ranks, rank_steps)
        if self.shown:
            print(f"measuring {ranks:,} ranks, {rank_steps:,} rank-steps…", file=sys.stderr, flush=True)
        self.start = time.monotonic()

    def _shown_at(self, now: float) -> bool:
        """Whether the measurement's progress is shown by now: once it has lasted PROGRESS_AFTER_S, after a line
        saying what is measured."""
        if not self.shown and now - self.start < PROGRESS_AFTER_S:
            return False
        if not self.shown:
            self.shown = True
            self.measuring(*self.measured)
        return True

    def round(self, name: str) -> None:
        """Before each round of a measure at a threshold (`analysis.ROUNDS`): its name and place."""
        from ..analysis.shards import ROUNDS

        if not self._shown_at(time.monotonic()):
            return
        k = ROUNDS.index(name) + 1 if name in ROUNDS else len(ROUNDS)
        print(f"measuring: {name} ({k}/{len(ROUNDS)})", file=sys.stderr, flush=True)

    def steps(self, done: int, total: int) -> None:
        """After each measured step: how many of the run's common steps are measured."""
        now = time.monotonic()
        if not self._shown_at(now):
            return
        if done == total or now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            end = "\n" if done == total else ""
            print(f"\rmeasured {done:,}/{total:,} steps", end=end, file=sys.stderr, flush=True)


def _job_files(paths: Sequence[str]) -> list[str] | None:
    """The files given when they are a 3D-parallel job's (`traces.job_among`), else None (per-rank traces, read as
    ever)."""
    from ..traces.files import files_in
    from ..traces.optrace import job_among

    files = files_in(paths)
    return files if job_among(files) else None


def _read_job(files: Sequence[str]) -> JobFile | None:
    """A 3D-parallel job read from its files on this machine; None after one line when it cannot be."""
    from ..traces import read_job
    from ..traces.optrace import MOST_BYTES, OpTraceError

    try:
        for path in files:
            if os.path.getsize(path) > MOST_BYTES:
                raise OpTraceError(f"{path}: beyond the {MOST_BYTES >> 20} MiB read")
        return read_job({path: Path(path).read_bytes() for path in files})
    except OSError as exc:
        _say("analyze", f"error: {exc.filename}: {exc.strerror}")
    except OpTraceError as exc:
        _say("analyze", f"error: {exc}")
    return None


def _run_job(args: argparse.Namespace, job: JobFile) -> int:
    """`analyze` of a 3D-parallel job: the what-if of `analysis.jobwhatif`, said by `jobverdicts.job_payload`."""
    from ..analysis import job_whatif
    from ..analysis.jobwhatif import job_times
    from ..traces.optrace import OpTraceError
    from .jobverdicts import job_payload, job_text

    try:
        times = job_times(job.table, job.groups, job.transfers_drawn)
        whatif = job_whatif(times)
    except OpTraceError as exc:
        _say("analyze", f"error: {exc}")
        return 1
    for said in (*job.left_out, *job.notes, *times.skipped):
        _say("analyze", said.text())
    report = Report(job_payload(whatif, job.notes, job.left_out), (job_text,))
    if args.perfetto:
        from ..analysis.jobwhatif import job_timelines
        from ..ops.perfetto import job_trace_events

        try:
            events = job_trace_events(times, *job_timelines(times))
            Path(args.perfetto).write_text(json.dumps(events, allow_nan=False), encoding="utf-8")
        except (OSError, ValueError) as exc:
            _say("analyze", f"error: {args.perfetto}: {getattr(exc, 'strerror', None) or exc}")
            return 1
        report = report.plus({"perfetto": args.perfetto})
    _emit(report, args.json)
    return 1 if job.left_out else 0


def _say(command: str, line: str) -> None:
    print(f"python -m ddpcore {command}: {line}", file=sys.stderr)


def _told(command: str, errors: Sequence[FileError]) -> list[dict]:
    """Each error line said on stderr (a run that cannot be measured, source `analysis.RUN`, as an error of the
    command), and the files' ones as the JSON's `errors` list them."""
    from ..analysis.measured import RUN

    for e in errors:
        _say(command, f"error: {e.message}" if e.source == RUN else f"{e.source}: {e.message}")
    return [{"source": e.source, "message": e.message} for e in errors if e.source != RUN]


def _read(
    files: list[str], args: argparse.Namespace, command: str, at: float | None = None
) -> tuple[Loaded | None, Measured | None, list[dict]]:
    """The files read (in `--jobs` processes, with a progress line on a terminal for large inputs) and measured (in
    as many, this one and forked ones: `cli.fork`); each unreadable file is one line on stderr, and so is a run that
    cannot be measured (then None). With a threshold `at`, the measure is kept to it: the files are cut into `--jobs`
    parts, each read and measured by a process of its own (`analysis.measure_parts`), so that no process holds
    every file's tables, and none is returned."""
    from ..analysis import measure_loaded
    from ..analysis.parted import measure_parts
    from ..traces import read_paths
    from ..traces.files import files_in
    from ..traces.keeping import Keep
    from ..traces.parse import steps_in
    from .fork import ShardLost, forked, forked_parts

    THRESHOLD.check(args.threshold)
    _check_jobs(args.jobs)
    files = files_in(files)
    line = ProgressLine() if sys.stderr.isatty() else None
    jobs = jobs_for(len(files), args.jobs)
    try:
        if at is not None:
            parts = forked_parts(files, jobs, line)
            try:
                measured, errors = measure_parts(
                    parts, at, line.round if line is not None else None, line.measuring if line is not None else None
                )
            finally:
                for part in parts:
                    close = getattr(part, "close", None)
                    if close is not None:
                        close()
            return None, measured, _told(command, errors)
        kept = read_paths(files, jobs, line, Keep.WHOLE)
        if line is not None:
            line.measuring(len(kept.traces), sum(map(steps_in, kept.traces)))
        measured, errors = measure_loaded(kept, line.steps if line is not None else None, forked(jobs))
    except ShardLost as exc:
        _say(command, f"error: {exc}")
        return None, None, []
    return kept, measured, _told(command, errors)


def _fit(analysis: Analysis, command: str) -> Outlook | None:
    """The outlook of the analysis; when the run cannot be fitted, None and one line on stderr."""
    from ..analysis import FitError, outlook_or_why

    seen = outlook_or_why(analysis)
    if isinstance(seen, FitError):
        _say(command, f"error: {seen}")
        return None
    return seen


def _fitted(files: list[str], args: argparse.Namespace) -> Outlook | None:
    from ..analysis import judge

    _, measured, _ = _read(files, args, "cluster")
    return _fit(judge(measured, args.threshold), "cluster") if measured else None


RULES_FILE, DASHBOARD_FILE = "ddp-rules.yml", "ddp-dashboard.json"


def _write_rules(folder: Path, threshold: float, job: str) -> list[str] | None:
    """The rules file and the dashboard written side by side; a folder that cannot be written is one line."""
    from ..ops import dashboard, rules_file

    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RULES_FILE).write_text(rules_file(threshold, job), encoding="utf-8")
        (folder / DASHBOARD_FILE).write_text(dashboard(job), encoding="utf-8")
    except OSError as exc:
        _say("analyze", f"error: {folder}: {exc.strerror}")
        return None
    return [str(folder / RULES_FILE), str(folder / DASHBOARD_FILE)]


def _cluster_row(payload: dict) -> str:
    return cluster_table([payload])


def _no_fit(payload: dict) -> str:
    return f"\n\nno fit: {payload['fit_error']}"


def _fit_section(payload: dict) -> str:
    from .verdicts import fit_text

    return "\n\n" + fit_text(payload)


def _written(payload: dict) -> str:
    return "".join(f"\nwrote {w}" for w in payload["written"])


def _run_analyze(args: argparse.Namespace) -> int:
    if args.ray is None and (paths := _job_files(args.files)) is not None:
        job = _read_job(paths)
        return 1 if job is None else _run_job(args, job)
    from ..analysis import FitError, judge, outlook_or_why
    from .verdicts import analysis_payload, analysis_text, fit_payload

    if args.ray is not None:
        on_ray = _on_ray(args)
        if on_ray is None:
            return 1
        if not isinstance(on_ray, tuple):
            return _run_job(args, on_ray)
        analysis, errors = on_ray
    else:
        _, measured, errors = _read(args.files, args, "analyze", None if args.fit or args.perfetto else args.threshold)
        if measured is None:
            return 1
        analysis = judge(measured, args.threshold)
    report = Report(analysis_payload(analysis, errors), (analysis_text,))
    failed = False
    if args.fit:
        seen = outlook_or_why(analysis)
        if isinstance(seen, FitError):
            _say("analyze", f"error: {seen}")
            failed = True
            report = report.plus({"fit_error": str(seen)}, _no_fit)
        else:
            report = report.plus(fit_payload(seen), _fit_section)
    if args.perfetto:
        from ..ops.perfetto import trace_events

        try:
            Path(args.perfetto).write_text(json.dumps(trace_events(analysis), allow_nan=False), encoding="utf-8")
        except (OSError, ValueError) as exc:
            _say("analyze", f"error: {args.perfetto}: {getattr(exc, 'strerror', None) or exc}")
            return 1
        report = report.plus({"perfetto": args.perfetto})
    if args.rules:
        written = _write_rules(Path(args.rules), args.threshold, args.job)
        if written is None:
            return 1
        report = report.plus({"written": written}, _written)
    _emit(report, args.json)
    return 1 if errors or failed else 0


def _on_ray(args: argparse.Namespace) -> tuple[Analysis, list[dict]] | JobFile | None:
    """The verdict over the files on every node of a Ray cluster (`cli.onray`), measured as `analyze` measures parts
    of them (`analysis.measure_parts`), and the files left out; or, when the nodes hold a 3D-parallel job's files,
    the job read where they lie (`onray.node_job`); None (after one line) when the cluster, a node or the run fails:
    never a partial verdict."""
    from ..analysis import judge
    from ..analysis.parted import measure_parts
    from ..analysis.results import AnalysisError
    from ..traces.optrace import OpTraceError
    from .onray import RayError, connect, node_job, node_parts, node_readers, progress

    THRESHOLD.check(args.threshold)
    _check_jobs(args.jobs)
    if len(args.files) != 1 or args.fit:
        _say("analyze", "error: --ray reads one PATH on every node (a folder or a file), and gives no --fit")
        return None
    try:
        ray, ours = connect(args.ray)
    except RayError as exc:
        _say("analyze", f"error: {exc}")
        return None
    try:
        say = lambda line: _say("analyze", line)  # noqa: E731
        nodes = node_readers(ray, args.files[0], args.jobs or 1)
        job = node_job(ray, nodes, say)
        if job is not None:
            return job
        parts = node_parts(ray, nodes, say)
        measured, errors = measure_parts(parts, args.threshold, progress)
        told = _told("analyze", errors)
        if measured is None:
            return None
        progress("verdict")
        return judge(measured, args.threshold), told
    except (RayError, AnalysisError, OpTraceError) as exc:
        _say("analyze", f"error: {exc}")
        return None
    finally:
        if ours:
            ray.shutdown()


def _add_summarize(p: argparse.ArgumentParser) -> None:
    """reduce per-rank traces to small summaries, where the traces lie (docs/summaries.md)

    One summary per trace (rank<R>.ddpsum.json.gz): per step what the analysis measures, about 60 bytes gzipped. Run
    it on every node over its own ranks' traces, gather the summaries, then analyze them.
    """
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="trace files (PyTorch profiler or ddpcore JSONL), or folders of them"
    )
    p.add_argument("-o", "--out", default=".", metavar="DIR", help="where to write the summaries (default .)")
    p.add_argument(
        "--format",
        choices=SUMMARY_FORMATS,
        default=SUMMARY_FORMATS[0],
        help="columnar: version 3, arrays read at C speed (default); json: version 2, one JSON object; parquet: the "
        "same columns for DuckDB or Spark (needs ddpcore[parquet]; analyze does not read it)",
    )
    _add_jobs(p)
    p.set_defaults(run=_run_summarize)


def _run_summarize(args: argparse.Namespace) -> int:
    from ..traces import read_paths, summary_bytes, table_of
    from ..traces.files import files_in
    from ..traces.summary import JSON_VERSION, SUFFIX, VERSION

    _check_jobs(args.jobs)
    write, suffix = (lambda t: summary_bytes(t, VERSION if args.format == "columnar" else JSON_VERSION)), SUFFIX
    if args.format == "parquet":
        try:
            from ..traces.parquet import PARQUET_SUFFIX, parquet_bytes
        except ImportError:
            _say("summarize", "error: --format parquet needs pyarrow: pip install 'ddpcore[parquet]'")
            return 1
        write, suffix = parquet_bytes, PARQUET_SUFFIX
    files = files_in(args.files)
    loaded = read_paths(files, jobs_for(len(files), args.jobs))
    _told("summarize", loaded.errors)
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for trace in loaded.traces:
            target = folder / f"rank{trace.rank}{suffix}"
            target.write_bytes(write(table_of(trace)))
            print(f"{trace.source} -> {target}")
    except OSError as exc:
        _say("summarize", f"error: {folder}: {exc.strerror}")
        return 1
    return 1 if loaded.errors else 0


def _add_compare(p: argparse.ArgumentParser) -> None:
    """compare a run before and after a fix: the step, the stragglers, the what-if's check

    python -m ddpcore compare BEFORE... -- AFTER... (or --after AFTER...): traces or summaries of both runs, in any
    format analyze reads. The step's change with a 95 % interval (a bootstrap over steps), the stragglers that went,
    stayed or appeared, each rank's lateness and cause, the late ranks' excess by part, and the ideal step the run
    before predicted against the step measured after (docs/compare.md).
    """
    p.add_argument("files", nargs="+", metavar="BEFORE", help="the run before: one file per rank, or a folder")
    p.add_argument("--after", nargs="+", required=True, metavar="AFTER", help="the run after (or give them after --)")
    _add_reading_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from ..analysis import compare, judge
    from .verdicts import compare_payload, compare_text

    runs = []
    errors: list[dict] = []
    for name, files in (("before", args.files), ("after", args.after)):
        _, measured, bad = _read(files, args, f"compare ({name})")
        if measured is None:
            return 1
        errors += [{**e, "run": name} for e in bad]
        runs.append(judge(measured, args.threshold))
    _emit(Report(compare_payload(compare(runs[0], runs[1]), errors), (compare_text,)), args.json)
    return 1 if errors else 0


def _add_replay(p: argparse.ArgumentParser) -> None:
    """serve recorded traces as live per-rank Prometheus exporters (needs ddpcore[prometheus])

    Each rank's exporter on its own port (PORT, PORT+1, …), showing the run's steps one after another at their
    measured pace, in a loop until interrupted: try the rules and the dashboard without a cluster.
    """
    p.add_argument("files", nargs="+", metavar="FILE", help="one trace file per rank, or a folder of them")
    p.add_argument("--port", type=int, required=True, help="the first rank's port; rank i's is PORT + i")
    p.add_argument(SPEED.flag, type=float, default=SPEED.default, help=SPEED.describe())
    p.add_argument("--job", default=DEFAULT_JOB, help=f"the job label (default {DEFAULT_JOB})")
    p.add_argument("--addr", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument("--loops", type=int, default=None, help="stop after so many passes over the run (default: never)")
    _add_reading_args(p)
    p.set_defaults(run=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    from ..analysis import judge
    from ..ops import scrape_config
    from ..ops.replay import frames_at, frames_of, play

    SPEED.check(args.speed)
    check_int("port", args.port, 1, 65535)
    if args.loops is not None:
        check_int("loops", args.loops, 1, 10**9)
    try:
        from ..ops.exporter import Exporter, served
    except ImportError:
        print(
            "python -m ddpcore replay: error: needs prometheus_client: pip install 'ddpcore[prometheus]'",
            file=sys.stderr,
        )
        return 1
    loaded, measured, _ = _read(args.files, args, "replay")
    if measured is None or loaded is None:
        return 1
    analysis = judge(measured, args.threshold)
    frames = frames_at(frames_of(analysis, loaded.traces), args.speed)
    ranks = analysis.steps[0].columns.ranks
    check_int("port", args.port + len(ranks) - 1, 1, 65535)
    exporters = {r: Exporter(r, args.job) for r in ranks}
    targets = [f"{args.addr}:{args.port + i}" for i in range(len(ranks))]
    with ExitStack() as stack:
        try:
            for i, r in enumerate(ranks):
                stack.enter_context(served(exporters[r], args.port + i, args.addr))
        except OSError as exc:
            _say("replay", f"error: cannot listen on {args.addr}: {exc.strerror}")
            return 1
        print(f"replaying {len(frames)} steps of {len(ranks)} ranks at {args.speed:g}x; scrape config:", flush=True)
        print(scrape_config(targets, args.job, "1s"), flush=True)
        with suppress(KeyboardInterrupt):
            play(frames, lambda rank, times: exporters[rank].observe(times), args.loops)
    return 0


COMMANDS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "step": _add_step,
    "ring": _add_ring,
    "cluster": _add_cluster,
    "analyze": _add_analyze,
    "summarize": _add_summarize,
    "compare": _add_compare,
    "replay": _add_replay,
}
"""Each command's name and what adds its arguments; that function's docstring is the command's help (first line)
and description (the rest)."""


def build_parser() -> Parser:
    """The `python -m ddpcore` parser with every subcommand."""
    parser = Parser(
        prog="python -m ddpcore",
        description="Model one step of data-parallel GPU training: ring AllReduce, barrier cost of a "
        "straggler, displayed vs useful GPU utilization.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name, add in COMMANDS.items():
        summary, _, description = (add.__doc__ or "").partition("\n\n")
        add(sub.add_parser(name, help=summary, description=" ".join(description.split())))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; bad arguments print one line on stderr and return 2 (`python -m ddpcore --help`).

    >>> main(["ring", "--gpus", "2"])
    ring AllReduce over 2 GPUs: 2 exchanges (1 reduce-scatter + 1 all-gather), each GPU sends 1.000 x the gradient size
        1 reduce-scatter 0->1:c0, 1->0:c1
        2 all-gather     0->1:c1, 1->0:c0
    0
    >>> main(["ring", "--gpus", "1"])
    2
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["compare"] and "--" in argv:
        argv[argv.index("--")] = "--after"
    try:
        args = parser.parse_args(argv)
        status = args.run(args)
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except ConfigError as exc:
        print(
            f"{parser.prog} {args.command}: error: argument {_flag(exc.field)}: got {exc.value!r}, allowed "
            f"{exc.allowed}",
            file=sys.stderr,
        )
        return 2
    return status or 0
