"""Runs in the trace-reading Web Worker (web/parse-worker.mjs): File slices into ddpcore's streaming reader, then
ddpcore's measurement of the traces, so the page receives only what it draws and judges."""

import pickle

import js
from pyodide.ffi import to_js

from ddpcore.analysis import judge, measure_loaded
from ddpcore.fit import outlook_of
from ddpcore.traces import FileError, collect, read_trace

SLICE = 1024 * 1024


def _post(**message):
    js.postMessage(to_js(message, dict_converter=js.Object.fromEntries))


def slices(file, index):
    """A File's bytes, slice after slice (FileReaderSync: workers may block), progress posted after each."""
    reader = js.FileReaderSync.new()
    size = int(file.size)
    for start in range(0, size, SLICE):
        end = min(start + SLICE, size)
        data = reader.readAsArrayBuffer(file.slice(start, end)).to_bytes()
        _post(type="progress", index=index, done=end, size=size)
        yield data


def fitted(measured, threshold):
    """The straggler model fitted at the page's threshold (tens of ms in Pyodide: done here, not on the page's
    thread); a FitError's code when it cannot be."""
    return outlook_of(judge(measured, threshold)) if measured is not None else (None, "")


def parse_files(files, threshold):
    """Every file read and parsed in turn, then the traces measured and the model fitted; all of it pickled."""
    results = []
    for index, file in enumerate(files):
        name = str(file.name)
        try:
            trace = read_trace(name, slices(file, index))
            results.append(trace)
            _post(type="read", index=index, rank=trace.rank)
        except ValueError as exc:
            results.append(FileError(name, str(exc)))
        except (OverflowError, RecursionError, MemoryError) as exc:
            results.append(FileError(name, f"could not be read ({type(exc).__name__})"))
    _post(type="measuring", files=len(results))
    measured, errors = measure_loaded(collect(results))
    return to_js(pickle.dumps((measured, errors, *fitted(measured, threshold))))
