"""How Your traces' events change the model: files read, progress, a step or a page picked, a threshold committed
and judged, a fit arrived. The traces' modules load on the first read, never at the page's start."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ddpcore.base.params import Reading, read_threshold
from ddpcore.base.words import Message

from .. import i18n
from ..i18n import shown
from ..reading import FileProgress, Progress, progress_of, progressed
from .model import Model, TracesModel

if TYPE_CHECKING:
    from ddpcore.analysis import JobWhatIf, Measured, Outlook
    from ddpcore.analysis.jobwhatif import JobStepDrawing
    from ddpcore.traces import FileError

__all__ = [
    "APPLYING",
    "after_cancelled",
    "after_in_steps",
    "reading_after",
    "cancel_reading",
    "file_read",
    "file_sizes",
    "files_read",
    "fit_due",
    "loading_traces",
    "measured_in_steps",
    "measuring_traces",
    "read_progress",
    "threshold_applying",
    "threshold_in_steps",
    "threshold_note",
    "threshold_shown",
    "with_compared",
    "with_fitted",
    "with_job",
    "with_judged",
    "with_measured",
    "with_outlook",
    "with_rank_page",
    "with_threshold",
    "with_trace_step",
]


def with_measured(model: Model, measured: Measured | None, errors: tuple[FileError, ...]) -> Model:
    """Files were read and measured: judge them at the current threshold, from the first step."""
    from ddpcore.base.steps import finished

    return finished(measured_in_steps(model, measured, errors))


def measured_in_steps(
    model: Model, measured: Measured | None, errors: tuple[FileError, ...]
) -> Generator[None, None, Model]:
    """`with_measured` in steps (ddpcore.analysis.verdict.judge_in_steps): thousands of ranks take the page tens of
    ms to judge, and the shell gives its thread back between steps."""
    loaded = replace(
        model.traces,
        measured=measured,
        errors=errors,
        job=None,
        job_notes=(),
        step_index=0,
        rank_page=0,
        loading=0,
        measuring=False,
        progress=Progress(),
        after=None,
        after_errors=(),
        comparison=None,
        reading_after=False,
    )
    return replace(model, traces=(yield from _analysing(loaded)))


def with_job(
    model: Model,
    job: JobWhatIf | None,
    notes: tuple[Message, ...],
    errors: tuple[FileError, ...],
    step: JobStepDrawing | None = None,
) -> Model:
    """A 3D-parallel job read (its what-if and its worst step's drawing, or None and why): it replaces the run shown,
    whose verdict, fit and comparison go."""
    traces = replace(
        TracesModel(threshold=model.traces.threshold),
        job=job,
        job_notes=notes,
        errors=errors,
        job_step=step,
    )
    return replace(model, traces=traces)


def reading_after(model: Model) -> Model:
    """Files of the run after a fix picked: the comparison panel says they are being read."""
    return replace(model, traces=replace(model.traces, reading_after=True, after_errors=()))


def after_cancelled(model: Model) -> Model:
    """The read of the run after stopped (a new pick, or the worker failed): what was shown stays."""
    return replace(model, traces=replace(model.traces, reading_after=False))


def after_in_steps(
    model: Model, measured: Measured | None, errors: tuple[FileError, ...]
) -> Generator[None, None, Model]:
    """The run after a fix read and measured: judged at the current threshold and compared with the run shown, in
    steps (the bootstrap's draws, ddpcore.analysis.comparison.comparing); the link then says a comparison is shown."""
    traces = replace(model.traces, after=measured, after_errors=errors, reading_after=False, comparison=None)
    traces = yield from _compared(traces)
    state = replace(model.state, compare=True) if traces.comparison is not None else model.state
    return replace(model, state=state, traces=traces)


def loading_traces(model: Model, files: int, sizes: tuple[tuple[str, int | None], ...] = ()) -> Model:
    """Files are being read: the status says how many; with their names (and sizes when known), a progress bar
    each."""
    names, known = zip(*sizes) if sizes else ((), ())
    progress = progress_of(names, known, (0,) * len(names), (None,) * len(names))
    return replace(model, traces=replace(model.traces, loading=files, measuring=False, progress=progress))


def measuring_traces(model: Model, done: int = 0, total: int = 0) -> Model:
    """Every file is read; the worker now measures the traces (a second or so for large GPU traces, a minute for a
    million rank-steps), `done` of their `total` common steps so far when it says."""
    return replace(model, traces=replace(model.traces, measuring=True, measured_steps=(done, total)))


def file_sizes(model: Model, sizes: Sequence[int]) -> Model:
    """The files' sizes, in order, as the worker found them (the page does not ask: see shell.traces)."""
    p = model.traces.progress
    if not p.names:
        return model
    progress = progress_of(p.names, tuple(sizes[: len(p.names)]) + p.sizes[len(sizes) :], p.done, p.ranks)
    return replace(model, traces=replace(model.traces, progress=progress))


def read_progress(model: Model, index: int, done: int, size: int) -> Model:
    """So many bytes of the index-th file read."""
    return _with_file(model, index, lambda f: f._replace(done=min(max(done, 0), size), size=size))


def file_read(model: Model, index: int, rank: int) -> Model:
    """The index-th file is read whole: the rank it holds."""
    return files_read(model, ((index, rank),))


def files_read(model: Model, read: Iterable[tuple[int, int]]) -> Model:
    """Files read whole, as (index, rank): the worker reports them in batches (thousands of small summaries)."""
    progress = model.traces.progress
    changed: dict[int, FileProgress] = {}
    for index, rank in read:
        if 0 <= index < len(progress.names):
            f = changed.get(index) or progress.file(index)
            changed[index] = FileProgress(f.name, f.size, f.size or 0, rank)
    return _with_files(model, changed)


def _with_file(model: Model, index: int, change: Callable[[FileProgress], FileProgress]) -> Model:
    progress = model.traces.progress
    return _with_files(model, {index: change(progress.file(index))} if 0 <= index < len(progress.names) else {})


def _with_files(model: Model, changed: dict[int, FileProgress]) -> Model:
    if not changed:
        return model
    return replace(model, traces=replace(model.traces, progress=progressed(model.traces.progress, changed)))


def cancel_reading(model: Model) -> Model:
    """Reading stopped: whatever was shown before stays."""
    return replace(model, traces=replace(model.traces, loading=0, measuring=False, progress=Progress()))


def with_trace_step(model: Model, text: str) -> Model:
    """The step picker; a value that is not a step index changes nothing."""
    try:
        index = int(text)
    except ValueError:
        return model
    return replace(model, traces=replace(model.traces, step_index=index))


def with_rank_page(model: Model, text: str) -> Model:
    """A page of the ranks table (clamped to those that exist when drawn); a value that is not a number changes
    nothing."""
    try:
        page = int(text)
    except ValueError:
        return model
    return replace(model, traces=replace(model.traces, rank_page=max(page, 0)))


def with_threshold(model: Model, text: str) -> Model:
    """The threshold field, committed, decides who is late: the verdict and the alert rule follow it. A text that
    is no threshold changes nothing but the hint saying why (`ddpview.i18n.threshold`)."""
    from ddpcore.base.steps import finished

    return finished(threshold_in_steps(model, text))


APPLYING = "applying"
"""The threshold's hint while a commit is judged (`threshold_applying`); the field is then `aria-busy`."""


def threshold_applying(model: Model, text: str) -> Model:
    """The threshold field committed, its judgement under way: the note says so at once, so that the commit is
    answered in the next frame, not once thousands of steps are judged (the field itself shows nothing new), and
    the field is busy until the verdict is written (its last change)."""
    return replace(model, traces=replace(model.traces, threshold_hint=(APPLYING, _given(text))))


def with_compared(model: Model, compared: Model) -> Model | None:
    """A comparison made in steps (`after_in_steps`) over what the page shows now: the model as it was when the run
    shown is another (the run after is dropped with the comparison), None when the threshold changed meanwhile
    (compare again)."""
    t, c = model.traces, compared.traces
    if t.measured is not c.measured:
        return model
    if t.threshold != c.threshold:
        return None
    shown = replace(t, after=c.after, after_errors=c.after_errors, comparison=c.comparison, reading_after=False)
    return replace(model, state=replace(model.state, compare=compared.state.compare), traces=shown)


def with_judged(model: Model, judged: Model) -> Model | None:
    """A threshold's judgement (`threshold_in_steps`), made in steps while the page went on, over what it shows
    now (a step picked, a fit arrived meanwhile); None when the traces are no longer those judged (a read ended
    meanwhile): judge them again."""
    t, j = model.traces, judged.traces
    if t.measured is not j.measured or t.after is not j.after:
        return None
    verdict = replace(
        t,
        threshold=j.threshold,
        threshold_hint=j.threshold_hint,
        analysis=j.analysis,
        outlook=j.outlook,
        fit_error=j.fit_error,
        comparison=j.comparison,
    )
    return replace(model, traces=verdict)


def _given(text: str) -> str:
    return text.strip()[:40]


def threshold_in_steps(model: Model, text: str) -> Generator[None, None, Model]:
    """`with_threshold` in steps (ddpcore.analysis.verdict.judge_in_steps): 8 ranks x 11,700 steps take the page
    100-170 ms to judge, and the key released after the commit waited behind them."""
    reading = read_threshold(text)
    traces = replace(model.traces, threshold_hint=(reading.hint, _given(text)))
    if reading.value is None or reading.value == model.traces.threshold:
        return replace(model, traces=traces)
    return replace(model, traces=(yield from _analysing(replace(traces, threshold=reading.value))))


def threshold_shown(model: Model) -> str:
    """The applied threshold as its field shows it: after any commit, the field shows what is applied."""
    return shown(model.traces.threshold, model.lang)


def threshold_note(model: Model) -> str:
    """The hint under the threshold field, in the page's language (empty when the text needed none)."""
    hint, given = model.traces.threshold_hint
    if not hint:
        return ""
    applied = shown(model.traces.threshold, model.lang)
    percent = i18n.percent(model.traces.threshold, model.lang)
    if hint == APPLYING:
        note = i18n.t(f"threshold.{hint}", model.lang, given=given)
    else:
        note = Reading(None, hint).note(given, applied=applied, percent=percent).text(model.lang)
    refused = hint in ("range", "number")
    return f"{note} {i18n.t('threshold.still', model.lang, applied=applied)}" if refused else note


def _analysing(traces: TracesModel) -> Generator[None, None, TracesModel]:
    from ddpcore.analysis.verdict import judge_in_steps

    analysis = (yield from judge_in_steps(traces.measured, traces.threshold)) if traces.measured is not None else None
    return (yield from _compared(replace(traces, analysis=analysis, outlook=None, fit_error=None)))


def _compared(traces: TracesModel) -> Generator[None, None, TracesModel]:
    """The run after, when there is one, judged at the run shown's threshold and compared with it."""
    from ddpcore.analysis.comparison import comparing
    from ddpcore.analysis.verdict import judge_in_steps

    if traces.after is None or traces.analysis is None:
        return replace(traces, comparison=None)
    after = yield from judge_in_steps(traces.after, traces.threshold)
    return replace(traces, comparison=(yield from comparing(traces.analysis, after)))


def fit_due(model: Model) -> bool:
    """An analysis waits for its fit: the shell asks the trace worker when it holds the measurement (seconds for
    thousands of ranks), else runs `with_outlook` in a task of its own after the analysis is drawn (tens of ms for
    the examples)."""
    t = model.traces
    return t.analysis is not None and t.outlook is None and not t.fit_error


def with_fitted(model: Model, seen: Outlook | None, fit_error: Message | None) -> Model:
    """A fit made elsewhere (the trace worker), kept if it was made at the current threshold; else the page fits."""
    t = model.traces
    if t.analysis is None or (seen is not None and seen.fit.threshold != t.threshold):
        return model
    if seen is None and not fit_error:
        return model
    return replace(model, traces=replace(t, outlook=seen, fit_error=fit_error))


def with_outlook(model: Model) -> Model:
    """The straggler model fitted to the current analysis, at the current threshold (ddpcore.analysis.fitting)."""
    from ddpcore.analysis import outlook_of

    t = model.traces
    if t.analysis is None:
        return model
    seen, error = outlook_of(t.analysis)
    return replace(model, traces=replace(t, outlook=seen, fit_error=error))
