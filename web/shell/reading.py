"""Runs in the trace-reading Web Worker (web/parse-worker.mjs): File slices into ddpcore's streaming reader, then
ddpcore's measurement of the traces, so the page receives only what it draws and judges."""

import json
import pickle
import time

import js
from ddpview.reading import DONE, FITTED, JOB, MEASURING, PERFETTO, PROGRESS, SIZES, parts, too_large
from pyodide.ffi import to_js

from ddpcore.analysis import job_whatif, judge, measure_loaded, outlook_of
from ddpcore.analysis.jobwhatif import job_step_drawing, job_timelines, job_times
from ddpcore.analysis.measured import RUN
from ddpcore.base.words import Message
from ddpcore.ops.perfetto import job_trace_events
from ddpcore.traces import FileError, read_job, read_or_why
from ddpcore.traces.optrace import JOB_KINDS, MOST_BYTES, OpTraceError, kind_of_head
from ddpcore.traces.parse import collect, steps_in

from .heap import set_aside

__all__ = ["DONE", "FITTED", "PERFETTO", "job_perfetto", "parse_files", "refit"]
"""What the worker's script (web/parse-worker.mjs) calls and posts."""

SLICE = 1024 * 1024
EVERY_S = 0.25
"""Progress is posted at most this often: each message costs the page a render (15-40 ms on a machine half as fast
as this one while this worker holds one of its two cores), and 4,096 small summaries would otherwise send 8,000."""


def _post(**message):
    js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))


class Every:
    """At most every EVERY_S, unless forced: when a progress message is due (then it counts from now)."""

    def __init__(self):
        self.last = 0.0

    def due(self, force=False):
        if force or time.monotonic() - self.last >= EVERY_S:
            self.last = time.monotonic()
            return True
        return False


class Progress:
    """What the worker has read, posted to the page at most every EVERY_S: the file being read, how far, and the
    files read whole since the last post (index and rank), as JSON: the page reads it in one call, where each pair of
    a JavaScript array would cross the FFI (5-10 ms for 50 files on a slow machine throttled)."""

    def __init__(self):
        self.every = Every()
        self.read = []
        self.now = (0, 0, 0)

    def at(self, index, done, size):
        self.now = (index, done, size)
        self.post()

    def file_read(self, index, rank):
        self.read.append([index, rank])
        self.post()

    def post(self, force=False):
        if self.every.due(force):
            index, done, size = self.now
            _post(type=PROGRESS, index=index, done=done, size=size, read=json.dumps(self.read))
            self.read = []


class Measuring:
    """The measurement's progress, posted to the page at once, then at most every EVERY_S: how many of the run's
    common steps are measured."""

    def __init__(self, files):
        self.files, self.every = files, Every()
        _post(type=MEASURING, files=files, done=0, total=0)

    def __call__(self, done, total):
        if self.every.due(done == total):
            _post(type=MEASURING, files=self.files, done=done, total=total)


def slices(file, index, size, progress):
    """A File's bytes, slice after slice (FileReaderSync: workers may block), progress noted after each."""
    reader = js.FileReaderSync.new()
    for start in range(0, size, SLICE):
        end = min(start + SLICE, size)
        data = reader.readAsArrayBuffer(file.slice(start, end)).to_bytes()
        progress.at(index, end, size)
        yield data


def fitted(measured, threshold):
    """The straggler model fitted at the page's threshold (tens of ms in Pyodide: done here, not on the page's
    thread); a FitError's code when it cannot be."""
    return outlook_of(judge(measured, threshold)) if measured is not None else (None, None)


_kept: list = []
"""The last measurement, kept so that a new threshold is fitted here (seconds for thousands of ranks), not on the
page's thread."""


def refit(threshold):
    """The model fitted again to the kept measurement at a new threshold: (outlook, FitError code), pickled."""
    return to_js(pickle.dumps(fitted(_kept[0] if _kept else None, threshold)))


_kept_job: list = []
"""The last job read, laid out and re-timed (its `JobTimes` and timelines), kept so that its Perfetto file is made
here when the page asks (tens of MB: not sent unless asked)."""


def job_perfetto():
    """The last job's measured and ideal timelines as a Perfetto trace-event file (JSON bytes)."""
    if not _kept_job:
        return to_js(b"")
    times, measured, ideal = _kept_job
    return to_js(json.dumps(job_trace_events(times, measured, ideal), allow_nan=False).encode())


def _head(file):
    """A file's first bytes, as stored (what `kind_of_head` reads)."""
    return js.FileReaderSync.new().readAsArrayBuffer(file.slice(0, 1 << 16)).to_bytes()


def job_of(files, sizes, progress):
    """A 3D-parallel job's what-if when the files are a job's (an operation table and its meta file, told by
    content); None when they are per-rank traces. Its pickle is (JOB, what-if or None, notes, errors)."""
    kinds = [kind_of_head(_head(file)) for file in files]
    if not any(kind in JOB_KINDS for kind in kinds):
        return None
    try:
        read = {}
        for index, file in enumerate(files):
            if sizes[index] > MOST_BYTES:
                raise OpTraceError(f"{file.name}: beyond the {MOST_BYTES >> 20} MiB read")
            read[str(file.name)] = b"".join(slices(file, index, sizes[index], progress))
        progress.post(force=True)
        job = read_job(read)
        del read
        times = job_times(job.table, job.groups, job.transfers_drawn)
        whatif = job_whatif(times)
        lines = job_timelines(times)
        step = job_step_drawing(times, *lines, whatif)
        _kept_job[:] = [times, *lines]
        left = tuple(FileError(RUN, line) for line in job.left_out)
        return to_js([pickle.dumps((JOB, whatif, job.notes, left, step))])
    except OpTraceError as exc:
        error = FileError(RUN, Message.of("job.unreadable", detail=str(exc)))
        return to_js([pickle.dumps((JOB, None, (), (error,), None))])


def parse_files(files):
    """Every file read and parsed in turn, then the traces measured; pickled (a 3D-parallel job's files: its
    what-if, `job_of`). The model is not fitted here: the page
    asks for the fit (`refit`) once it has drawn the verdict, which it shows seconds sooner for a long run (judging
    and fitting 8 x 11,700 steps took 2.5 s in the worker). The measurement lives on in this worker, and is kept out
    of the collector's way (`heap.set_aside`)."""
    results = []
    progress = Progress()
    sizes = [int(file.size) for file in files]
    _post(type=SIZES, sizes=json.dumps(sizes))
    job = job_of(files, sizes, progress)
    if job is not None:
        return job
    with set_aside():
        for index, file in enumerate(files):
            result = read_or_why(str(file.name), slices(file, index, sizes[index], progress), sizes[index])
            results.append(result)
            if not isinstance(result, FileError):
                progress.file_read(index, result.rank)
                refused = too_large(len(files), steps_in(result)) if len(results) == 1 else None
                if refused is not None:
                    progress.post(force=True)
                    return to_js(parts(None, (refused,), None, None))
        progress.post(force=True)
        measured, errors = measure_loaded(collect(results), Measuring(len(results)))
        _kept[:] = [measured]
    return to_js(parts(measured, errors, None, None))
