"""What the page decides, without a DOM: the model of the page, how each event changes it, and what it shows.

web/shell/page.py only reads events into these functions and writes `screen(model)` into the document, so everything
here is tested natively (tests/test_app.py).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, cast

from ddpcore.base import SLOWDOWN, THRESHOLD, Message, read_threshold
from ddpcore.model import Schedule, build_schedule, exchange_count

from . import i18n, playback
from .page import IN_PLACE, PROGRESS_REGION, Frame, axis_max_ms, config_of, notices_html, regions, straggler_options
from .patch import patch_text
from .sliders import N_MAX, N_MIN, n_from_slider, slider_from_n
from .threshold import shown
from .timeline_view import TimelineGeometry
from .urlstate import Notice, ViewState, apply, decode, encode, is_anchor, positions, texts

if TYPE_CHECKING:  # the traces' modules load when traces are first read, not at the page's start
    from ddpcore.analysis import Analysis, Measured, Outlook
    from ddpcore.traces import FileError

LOG_SCALE = "log-n"
COPYABLE = (("alert-rule", "copy-alert"), ("exposition", "copy-exposition"), ("dashboard", "copy-dashboard"))
"""What there is to copy once traces are analysed, and its button (hidden before: no empty code blocks)."""
MOVES = {"ArrowRight": 1, "ArrowDown": 1, "ArrowLeft": -1, "ArrowUp": -1}
"""Arrow keys in a group of one Tab stop (the view tabs, the map's rows): one item on, or back."""


class FileProgress(NamedTuple):
    """A file the worker reads: its name, bytes read of its size, and its rank once read; one row of a `Progress`,
    made for the files a message changes and those the progress list shows."""

    name: str
    size: int | None
    """None until the worker has read the sizes."""
    done: int = 0
    rank: int | None = None


def being_read(f: FileProgress) -> bool:
    """Not read whole yet, and not refused for its size: the worker reads the files in turn, so the first such file
    is the one being read."""
    from ddpcore.traces import MAX_FILE_BYTES

    return f.rank is None and (f.size is None or f.done < f.size <= MAX_FILE_BYTES)


class Progress(NamedTuple):
    """The files of a read under way, a column per field, and their sums as the progress shows them, kept as files
    change (`progress_of`, `_progressed`): a pick of 4,096 files gets ten messages a second, and making a row per file
    or walking them all at each message held the page's thread up to 50 ms on a slow machine."""

    names: tuple[str, ...] = ()
    sizes: tuple[int | None, ...] = ()
    """None until the worker has read the sizes."""
    done: tuple[int, ...] = ()
    ranks: tuple[int | None, ...] = ()
    read: int = 0
    """Files read whole."""
    bytes_read: int = 0
    size: int | None = 0
    """Bytes of all the files; None while a size is unknown."""
    now: int | None = None
    """The file being read (`being_read`); None when there is none."""

    def file(self, i: int) -> FileProgress:
        """The i-th file's row."""
        return FileProgress(self.names[i], self.sizes[i], self.done[i], self.ranks[i])

    @property
    def files(self) -> tuple[FileProgress, ...]:
        """Every file's row."""
        return tuple(map(self.file, range(len(self.names))))

    def first_read(self, start: int) -> int | None:
        """The first file being read from `start` on."""
        return next((i for i in range(start, len(self.names)) if being_read(self.file(i))), None)


def progress_of(
    names: tuple[str, ...], sizes: tuple[int | None, ...], done: tuple[int, ...], ranks: tuple[int | None, ...]
) -> Progress:
    """The progress of these files, summed whole (C loops): once a pick, and when the sizes come."""
    p = Progress(names, sizes, done, ranks, len(ranks) - ranks.count(None), sum(done))
    return p._replace(
        size=None if None in sizes else sum(cast(tuple[int, ...], sizes)),
        now=p.first_read(ranks.index(None)) if None in ranks else None,
    )


def _progressed(progress: Progress, changed: dict[int, FileProgress]) -> Progress:
    """The progress with these files (by index) changed, its sums moved by the changes alone. The file being read
    is the first changed one being read, or the first being read from the last one on: a file before that one which
    did not change was not being read, and still is not."""
    was = list(map(progress.file, changed))
    new = list(changed.values())
    sizes, done, ranks = list(progress.sizes), list(progress.done), list(progress.ranks)
    for i, f in changed.items():
        sizes[i], done[i], ranks[i] = f.size, f.done, f.rank
    if progress.size is not None:  # every size known, and a file's size, once known, stays an int
        size: int | None = progress.size + sum(f.size or 0 for f in new) - sum(f.size or 0 for f in was)
    else:
        size = None if None in sizes else sum(cast(list[int], sizes))
    p = Progress(
        progress.names,
        tuple(sizes),
        tuple(done),
        tuple(ranks),
        progress.read + sum(f.rank is None for f in was) - sum(f.rank is None for f in new),
        progress.bytes_read + sum(f.done for f in new) - sum(f.done for f in was),
        size,
    )
    later = None if progress.now is None else p.first_read(progress.now)
    now = [i for i, f in changed.items() if being_read(f)] + ([] if later is None else [later])
    return p._replace(now=min(now, default=None))


@dataclass(frozen=True)
class TracesModel:
    """The traces loaded in Your traces, as measured (ddpcore.analysis.measure), and their verdict at the current
    threshold: the page keeps the measurement, not the traces, so a new threshold is judged at once."""

    measured: Measured | None = None
    threshold: float = THRESHOLD.default
    step_index: int = 0
    rank_page: int = 0
    analysis: Analysis | None = None
    outlook: Outlook | None = None
    """The straggler model fitted to the analysis; None until fitted (in a task after the analysis is drawn)."""
    fit_error: Message | None = None
    """Why the fit cannot be made (a FitError code), once tried."""
    errors: tuple[FileError, ...] = ()
    loading: int = 0
    measuring: bool = False
    progress: Progress = Progress()
    threshold_hint: tuple[str, str] = ("", "")
    """What the last committed threshold text needs said (`threshold.Reading.hint`), and that text."""


@dataclass(frozen=True)
class Model:
    """Everything the page shows follows from this: the link's state, the language and the animation."""

    state: ViewState
    lang: str
    notices: tuple[Notice, ...] = ()
    frame: Frame = Frame()
    playing: bool = False
    play_origin_s: float = 0.0
    reduced_motion: bool = False
    traces: TracesModel = field(default_factory=TracesModel)


def slot(key: str, scale: str = "") -> str:
    """A control's place among the shown values: its hash key, and its scale when it has one."""
    return f"{key}:{scale}" if scale else key


def initial(fragment: str, browser_lang: str, reduced_motion: bool) -> Model:
    """The model from the URL hash (an anchor such as the skip link's is no state) and the browser's language."""
    state, notices = decode("" if is_anchor(fragment) else fragment)
    return Model(state, state.lang or i18n.pick_lang(browser_lang), notices, reduced_motion=reduced_motion)


TRACES_FOUND = ("trace-step-control", "traces-found", "traces-fit")
"""What Your traces shows once traces are analysed; before, the drop zone, the examples and one line on what will
appear (`traces-empty`)."""


def control_text(scale: str, value: str, checked: bool, checkbox: bool, current: int | None = None) -> str:
    """A control's reading as the text its hash key takes. A log slider's position becomes N; where a position's
    step is less than one GPU (at N = 2, 1 % more is still 2), a move off the position `current` shows goes to the
    next whole N that way, so that the arrow keys always move it."""
    if checkbox:
        return "1" if checked else "0"
    if scale == LOG_SCALE:
        try:
            position = int(float(value))
        except ValueError:
            return ""
        n = n_from_slider(position)
        if current is not None and n == current and position != slider_from_n(current):
            n = min(max(current + (1 if position > slider_from_n(current) else -1), N_MIN), N_MAX)
        return str(n)
    return value


def with_state(model: Model, state: ViewState, notices: tuple[Notice, ...] = ()) -> Model:
    """A new state: a user change clears the link's notices; a new step configuration stops and rewinds the play."""
    if state == model.state:
        return replace(model, notices=notices)
    if config_of(state) != config_of(model.state):
        model = replace(model, playing=False, frame=Frame())
    return replace(model, state=state, notices=notices)


WARM_RENDERS = 200
"""How many screens the page draws once it is idle after its start (see `warming`): 1.8 s of idle slices on a
2-core machine. With 40, the browser was still optimising the interpreter through the first hundred inputs (0.9 s
of its compiler's CPU then, 0.35 s once warm); with 200 it is done before them."""


def warming(model: Model) -> Generator[Screen, None, None]:
    """Screens of the One step view at each position of the slowdown's slider in turn, one a step, each made as an
    input makes it (the slider's text read, the link written) but drawn again, not looked up, for the page to write
    where nothing is shown (shell.page: `Page.warming`). The model is left as it was.

    Started from a memory snapshot, the page runs little Python before its first input, and the browser compiles a
    WebAssembly function's optimised code only once it has run a while, on the machine's other core: the first
    hundred inputs of a slider took half as long again as the next hundred, their thread waiting for the core that
    compiled. The page runs this in idle slices after it is ready (shell.dom.stepped), so that the user's first
    inputs find the interpreter warm."""
    step_view = replace(model, state=replace(model.state, view="step"))
    texts = positions("slowdown")
    for i in range(WARM_RENDERS):
        warm = with_control(step_view, "slowdown", texts[i % len(texts)])
        link(warm)
        yield screen(warm, kept=False)


def slider_setting(model: Model) -> tuple[ViewState, str] | None:
    """What the One step view drawn at any slowdown depends on besides the slowdown: the rest of the state, and the
    language; None when no drag of the slowdown is to be prepared for (another view shown, or the play running)."""
    if model.state.view != "step" or model.playing:
        return None
    return replace(model.state, slowdown=SLOWDOWN.default), model.lang


def next_position(left: Iterable[str], shown: float, heading: float) -> str:
    """Which slowdown position a drag needs drawn next: the one nearest the shown value, and of two as near, the one
    ahead of the drag (`heading`: the sign of its last move; 0 before any), else the first in `left`'s order.

    >>> next_position(["1.0", "2.0", "2.2"], 2.1, heading=-1.0), next_position(["2.0", "2.2"], 2.1, heading=1.0)
    ('2.0', '2.2')
    """
    return min(left, key=lambda text: (round(abs(float(text) - shown), 6), (float(text) - shown) * heading < 0))


def drag_positions(current: Callable[[], Model | None]) -> Generator[None, None, None]:
    """The One step view drawn at each position of the slowdown's slider, a step each, and kept (ddpview.page keeps
    the views drawn): a drag of the slider then looks up what it shows. Each step draws the position nearest where
    the slider is now (`current()`, the page's model at that step; None stops), ahead of the drag first, so that a
    drag under way finds drawn the positions it moves to next. Then the patches between it and its neighbours drawn
    (`neighbour_patches`). The page runs this in idle slices once a setting changes (shell.page: `Page.prepare`)."""
    left, shown, heading = dict.fromkeys(positions("slowdown")), None, 0.0
    drawn: dict[str, Screen] = {}
    while left and (model := current()) is not None:
        if shown is not None and model.state.slowdown != shown:
            heading = model.state.slowdown - shown
        shown = model.state.slowdown
        text = next_position(left, shown, heading)
        del left[text]
        drawn[text] = screen(with_control(model, "slowdown", text))
        yield
        yield from neighbour_patches(drawn, text, current)


def neighbour_patches(
    drawn: dict[str, Screen], text: str, current: Callable[[], Model | None]
) -> Generator[None, None, None]:
    """The patches (ddpview.patch, kept there) between the One step view at slowdown `text` and at each neighbouring
    position drawn, both ways, a step each (None from `current()` stops): a slider moves a position at a time, and
    the first pass of a drag over a 16-GPU timeline made each input diff its markup, 2-9 ms in the page."""
    order = positions("slowdown")
    at = order.index(text)
    for other in order[max(at - 1, 0) : at + 2]:
        if other == text or other not in drawn:
            continue
        for name in IN_PLACE:
            one, two = drawn[text].regions[name], drawn[other].regions[name]
            for old, new in ((one, two), (two, one)) if one != two else ():
                if current() is None:
                    return
                patch_text(old, new)
                yield


def with_control(model: Model, key: str, text: str) -> Model:
    """A control moved: its text is clamped like a link's; unreadable text changes nothing."""
    return with_state(model, apply(model.state, key, text))


def with_view(model: Model, view: str) -> Model:
    """Another tab."""
    return with_state(model, replace(model.state, view=view))


def tab_after(key: str, index: int, count: int) -> int | None:
    """The item of a one-Tab-stop group (the view tabs, the map's rows) that the arrow keys, Home and End move to
    (wrapping round), or None for any other key.

    >>> tab_after("ArrowDown", 3, 4), tab_after("ArrowLeft", 0, 4), tab_after("End", 0, 4), tab_after("a", 0, 4)
    (0, 3, 3, None)
    """
    if key == "Home":
        return 0
    if key == "End":
        return count - 1
    return (index + MOVES[key]) % count if key in MOVES and count else None


def with_lang(model: Model, lang: str) -> Model:
    """The language selector: kept in the link too."""
    lang = i18n.pick_lang(lang)
    return replace(model, lang=lang, state=replace(model.state, lang=lang))


def with_hash(model: Model, fragment: str) -> Model:
    """The user edited the URL hash: its state, its notices, and its language if it names one. An anchor (the skip
    link's "#main") moves the focus, not the view: it changes nothing."""
    if is_anchor(fragment):
        return model
    state, notices = decode(fragment)
    model = replace(model, lang=state.lang or model.lang)
    return with_state(model, state, notices)


def schedule_of(model: Model) -> Schedule:
    """The step the One step view animates."""
    return build_schedule(config_of(model.state))


def next_exchange(model: Model) -> Model:
    """One more ring exchange, the playhead at its end; stops the play."""
    k = min(model.frame.exchange + 1, exchange_count(model.state.gpus))
    return replace(model, playing=False, frame=Frame(k, playback.playhead_for_exchange(schedule_of(model), k)))


def rewind(model: Model) -> Model:
    """Back to before the first exchange."""
    return replace(model, playing=False, frame=Frame())


def toggle_play(model: Model, now_s: float) -> Model:
    """Play from the playhead (from the start once at the end), or pause; reduced motion jumps to the end."""
    if model.playing:
        return replace(model, playing=False)
    schedule = schedule_of(model)
    if model.reduced_motion:
        return replace(model, frame=Frame(exchange_count(model.state.gpus), schedule.step_ms))
    head = model.frame.playhead_ms
    resume = 0.0 if head is None or head >= schedule.step_ms else playback.elapsed_for(schedule, head)
    return replace(model, playing=True, play_origin_s=now_s - resume)


def tick(model: Model, now_s: float) -> Model:
    """The animation clock: where the playhead is now; the play stops at the step's end."""
    if not model.playing:
        return model
    position = playback.position(schedule_of(model), now_s - model.play_origin_s)
    return replace(model, frame=Frame(position.exchange, position.t_ms), playing=not position.done)


def playhead_x(model: Model) -> float | None:
    """The playhead's x in the timeline, or None when it is not shown."""
    head = model.frame.playhead_ms
    return None if head is None else TimelineGeometry(axis_max_ms(model.state), model.state.gpus).x_of(head)


def with_measured(model: Model, measured: Measured | None, errors: tuple[FileError, ...]) -> Model:
    """Files were read and measured: judge them at the current threshold, from the first step."""
    from ddpcore.base import finished

    return finished(measured_in_steps(model, measured, errors))


def measured_in_steps(
    model: Model, measured: Measured | None, errors: tuple[FileError, ...]
) -> Generator[None, None, Model]:
    """`with_measured` in steps (ddpcore.analysis.verdict.judging): thousands of ranks take the page tens of ms to
    judge, and the shell gives its thread back between steps."""
    loaded = replace(
        model.traces,
        measured=measured,
        errors=errors,
        step_index=0,
        rank_page=0,
        loading=0,
        measuring=False,
        progress=Progress(),
    )
    return replace(model, traces=(yield from _analysing(loaded)))


def loading_traces(model: Model, files: int, sizes: tuple[tuple[str, int | None], ...] = ()) -> Model:
    """Files are being read: the status says how many; with their names (and sizes when known), a progress bar
    each."""
    names, known = zip(*sizes) if sizes else ((), ())
    progress = progress_of(names, known, (0,) * len(names), (None,) * len(names))
    return replace(model, traces=replace(model.traces, loading=files, measuring=False, progress=progress))


def measuring_traces(model: Model) -> Model:
    """Every file is read; the worker now measures the traces (a second or so for large GPU traces)."""
    return replace(model, traces=replace(model.traces, measuring=True))


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
    return replace(model, traces=replace(model.traces, progress=_progressed(model.traces.progress, changed)))


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
    is no threshold changes nothing but the hint saying why (`ddpview.threshold`)."""
    from ddpcore.base import finished

    return finished(threshold_in_steps(model, text))


APPLYING = "applying"
"""The threshold's hint while a commit is judged (`threshold_applying`); the field is then `aria-busy`."""


def threshold_applying(model: Model, text: str) -> Model:
    """The threshold field committed, its judgement under way: the note says so at once, so that the commit is
    answered in the next frame, not once thousands of steps are judged (the field itself shows nothing new), and
    the field is busy until the verdict is written (its last change)."""
    return replace(model, traces=replace(model.traces, threshold_hint=(APPLYING, _given(text))))


def with_judged(model: Model, judged: Model) -> Model | None:
    """A threshold's judgement (`threshold_in_steps`), made in steps while the page went on, over what it shows
    now (a step picked, a fit arrived meanwhile); None when the traces are no longer those judged (a read ended
    meanwhile): judge them again."""
    t, j = model.traces, judged.traces
    if t.measured is not j.measured:
        return None
    verdict = replace(
        t,
        threshold=j.threshold,
        threshold_hint=j.threshold_hint,
        analysis=j.analysis,
        outlook=j.outlook,
        fit_error=j.fit_error,
    )
    return replace(model, traces=verdict)


def _given(text: str) -> str:
    return text.strip()[:40]


def threshold_in_steps(model: Model, text: str) -> Generator[None, None, Model]:
    """`with_threshold` in steps (ddpcore.analysis.verdict.judging): 8 ranks x 11,700 steps take the page 100-170 ms to
    judge, and the key released after the commit waited behind them."""
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
    note = i18n.t(f"threshold.{hint}", model.lang, given=given, applied=applied, percent=percent)
    refused = hint in ("range", "number")
    return f"{note} {i18n.t('threshold.still', model.lang, applied=applied)}" if refused else note


def _analysing(traces: TracesModel) -> Generator[None, None, TracesModel]:
    from ddpcore.analysis import judging

    analysis = (yield from judging(traces.measured, traces.threshold)) if traces.measured is not None else None
    return replace(traces, analysis=analysis, outlook=None, fit_error=None)


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


@dataclass(frozen=True)
class Screen:
    """What the document must show: markup by element id, control values by slot, texts, attributes, and `flags`:
    DOM properties set directly (`hidden`, `disabled`, an input's live `value`), not attributes."""

    regions: dict[str, str]
    values: dict[str, str]
    texts: dict[str, str]
    attributes: dict[str, dict[str, str]]
    flags: dict[str, dict[str, bool | str]]
    view: str
    mode: str


PROGRESS_ROWS = 8
"""Past this many files, the progress list shows one row for all of them and one for the file being read."""


def progress_html(progress: Progress, lang: str) -> str:
    """A progress bar per file: its name (and rank once read), the share and megabytes read; the current one marked.
    Past PROGRESS_ROWS files, a bar for all of them (files and megabytes read) and the current file's."""
    now, n = progress.now, len(progress.names)
    if n <= PROGRESS_ROWS:
        return "".join(_progress_row(f, lang, i == now) for i, f in enumerate(progress.files))
    name = i18n.t("traces.progress_all", lang, read=progress.read, n=n)
    whole = FileProgress(name, progress.size, progress.bytes_read)
    return _progress_row(whole, lang, False) + (
        _progress_row(progress.file(now), lang, True) if now is not None else ""
    )


@lru_cache(maxsize=64)
def _progress_row(f: FileProgress, lang: str, current: bool) -> str:
    """One file's row; kept, since a message moves one file of those shown."""
    from ddpcore.traces import KIB, MIB

    from .svg import tag, text

    name = f.name if f.rank is None else f"{f.name} · {i18n.t('rank', lang, r=f.rank)}"
    row = {
        "data-testid": "trace-progress-file",
        "class": "current" if current else None,
        "aria-current": current and "step",
    }
    bar = {"data-testid": "trace-progress-bar", "aria-label": i18n.t("traces.progress_of", lang, name=f.name)}
    if f.size is None:
        return tag("li", row, text("span", {"class": "name"}, name), tag("progress", bar))
    share = f.done / f.size if f.size else 1.0
    unit, key = (MIB, "traces.progress_mb") if f.size >= MIB else (KIB, "traces.progress_kb")
    mb = i18n.t(key, lang, done=i18n.number(f.done / unit, lang), size=i18n.number(f.size / unit, lang))
    return tag(
        "li",
        row,
        text("span", {"class": "name"}, name),
        tag("progress", {"max": max(f.size, 1), "value": f.done, **bar}),
        text("output", {"data-value": share}, i18n.percent(share, lang)),
        text("span", {"class": "mb"}, mb),
    )


def link(model: Model) -> str:
    """The URL hash that reproduces this view."""
    return encode(model.state)


LINK_AFTER_S = 0.3
"""A change within a view is written into the URL once the controls have rested this long. A drag sends an input
every frame, and each `history.replaceState` cost the browser's own main thread about 10 ms here (the One step
view's 100 inputs took as much of the browser's time as of the page's); browsers also limit these calls (Safari
throws past 100 in 30 s)."""


def link_after_s(view: str, linked_view: str) -> float:
    """How long after a change to write the link: a new view at once, as a history entry of its own (Back returns
    to the view before), any other change once the controls rest (LINK_AFTER_S), over the entry it belongs to.

    >>> link_after_s("cluster", "step"), link_after_s("step", "step")
    (0.0, 0.3)
    """
    return 0.0 if view != linked_view else LINK_AFTER_S


DRAWINGS_KEPT = 2
"""Your traces' drawings kept: the one shown, and the one drawn in steps to be shown next (a threshold's
judgement), which an update of the page meanwhile (a fit arriving, a progress message) must not push out: with one
kept, each was drawn again at once, 300 ms for 8 ranks x 11,700 steps."""

_drawn: list[tuple[tuple[object, ...], dict[str, str]]] = []


def _traces_markup(t: TracesModel, lang: str) -> dict[str, str]:
    """Your traces' regions, drawn again only when what they show changed: a large GPU step takes tens of ms to
    draw in the page, and progress messages from the worker arrive many times a second while it reads."""
    from ddpcore.base import finished

    finished(_drawing(t, lang))
    return dict(_kept_drawing(_drawing_key(t, lang)) or {})


def drawing(model: Model) -> Generator[None, None, None]:
    """Your traces' regions drawn into what `screen` keeps, a region at a time (the map of thousands of ranks takes
    the page tens of ms): the shell gives its thread back between them."""
    yield from _drawing(model.traces, model.lang)


def _drawing_key(t: TracesModel, lang: str) -> tuple[object, ...]:
    return (t.analysis, t.errors, t.step_index, t.threshold, lang, t.rank_page)


def _kept_drawing(key: tuple[object, ...]) -> dict[str, str] | None:
    """The drawing kept for `key`; an analysis is told by identity (comparing two would walk every step)."""
    return next((markup for k, markup in _drawn if k[0] is key[0] and k[1:] == key[1:]), None)


def _drawing(t: TracesModel, lang: str) -> Generator[None, None, None]:
    from .traces_view import traces_region_items

    key = _drawing_key(t, lang)
    if _kept_drawing(key) is not None:
        return
    markup = {}
    for item in traces_region_items(t.analysis, t.errors, t.step_index, t.threshold, lang, t.rank_page):
        if item is not None:
            region, html = item
            markup[region] = html
        yield
    _drawn[:] = [(key, markup), *_drawn[: DRAWINGS_KEPT - 1]]


def _region_markup(model: Model, kept: bool) -> dict[str, str]:
    state, lang = model.state, model.lang
    if state.view == "traces":
        from .fit_view import fit_html

        t = model.traces
        markup = _traces_markup(t, lang)
        markup["trace-fit"] = fit_html(state, t.outlook, t.fit_error, fit_due(model), lang)
    else:
        markup = regions(state, model.frame, lang, kept and not model.playing)
    markup[PROGRESS_REGION] = progress_html(model.traces.progress, lang)
    markup["straggler"] = straggler_options(state.gpus, state.straggler, lang)
    markup["notices"] = notices_html(model.notices, lang)
    return markup


def screen(model: Model, kept: bool = True) -> Screen:
    """Everything the page shows for this model (shell/page.py writes only what changed); its view looked up among
    those drawn last (ddpview.page.regions), unless not `kept` or playing: each frame of the play is new, and would
    only push out the views a drag shows."""
    state, lang = model.state, model.lang
    values = dict(texts(state))
    values[slot("n", LOG_SCALE)] = str(slider_from_n(state.cluster.gpus))
    play_key = "ctl.pause" if model.playing else "ctl.play"
    loading = model.traces.loading
    now = model.traces.progress.now
    status = (
        i18n.t("traces.measuring", lang, n=loading)
        if model.traces.measuring
        else i18n.t("traces.loading_file", lang, i=now + 1, n=loading)
        if loading and now is not None
        else i18n.t("traces.loading", lang, n=loading)
        if loading
        else ""
    )
    return Screen(
        regions=_region_markup(model, kept),
        values=values,
        texts={
            "slowdown-out": f"{i18n.number(state.slowdown, lang, 1)}×",
            "play": i18n.t(play_key, lang),
            "trace-status": status,
            "threshold-note": threshold_note(model),
        },
        attributes={
            "cluster-gpus": {"data-value": str(state.cluster.gpus)},
            "next-step": {"aria-disabled": "true" if model.frame.exchange >= exchange_count(state.gpus) else "false"},
            "play": {"data-i18n": play_key, "aria-pressed": "true" if model.playing else "false"},
            "alert-threshold": {"aria-busy": "true" if model.traces.threshold_hint[0] == APPLYING else "false"},
            "trace-results": {"aria-busy": "true" if loading or model.traces.measuring else "false"},
        },
        flags={
            **{block: {"hidden": model.traces.analysis is None} for block, _ in COPYABLE},
            **{button: dict.fromkeys(("hidden", "disabled"), model.traces.analysis is None) for _, button in COPYABLE},
            "trace-cancel": {"hidden": not loading},
            **{part: {"hidden": model.traces.analysis is None} for part in TRACES_FOUND},
            "traces-empty": {"hidden": model.traces.analysis is not None or bool(loading)},
            "alert-threshold": {"value": threshold_shown(model)},
        },
        view=state.view,
        mode=state.mode,
    )


Change = tuple[str, object, object]
"""(kind, name, value): a region's markup, a control's value, an element's text, attributes or flags, or the view."""


def changes(shown: Screen, written: dict[object, object], editing: str | None = None) -> list[Change]:
    """What must be written to show `shown`, given what was written last (`written` is updated).

    The control being dragged (`editing`) is left alone: writing its value back would fight the user's hand."""
    wanted: list[Change] = [("region", name, markup) for name, markup in shown.regions.items()]
    wanted += [("value", name, value) for name, value in shown.values.items() if name != editing]
    wanted += [("text", name, value) for name, value in shown.texts.items()]
    wanted += [("attr", name, value) for name, value in shown.attributes.items()]
    wanted += [("flag", name, value) for name, value in shown.flags.items()]
    wanted.append(("view", "view", (shown.view, shown.mode)))
    out = []
    for kind, name, value in wanted:
        if written.get((kind, name)) != value:
            written[(kind, name)] = value
            out.append((kind, name, value))
    return out
