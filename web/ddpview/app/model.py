"""The page's model: everything it shows follows from it (the link's state, the language, the animation, the
traces read and their verdict); how events change it is in `explainer` and `traces`, what it shows in `screen`.

web/shell/page.py only reads events into these functions and writes `screen(model)` into the document, so everything
here is tested natively (tests/view/test_app.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ddpcore.base import THRESHOLD
from ddpcore.base.words import Message

from .. import i18n
from ..reading import Progress
from ..state import Notice, ViewState, decode, is_anchor
from ..views import Frame

if TYPE_CHECKING:  # the traces' modules load when traces are first read, not at the page's start
    from ddpcore.analysis import Analysis, Comparison, JobWhatIf, Measured, Outlook
    from ddpcore.analysis.jobwhatif import JobStepDrawing
    from ddpcore.traces import FileError

__all__ = ["COPYABLE", "LOG_SCALE", "TRACES_FOUND", "Model", "TracesModel", "initial", "slot"]


LOG_SCALE = "log-n"
COPYABLE = (("alert-rule", "copy-alert"), ("exposition", "copy-exposition"), ("dashboard", "copy-dashboard"))
"""What there is to copy once traces are analysed, and its button (hidden before: no empty code blocks)."""


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
    measured_steps: tuple[int, int] = (0, 0)
    """While measuring: the common steps measured so far, and their count ((0, 0) until the worker says)."""
    progress: Progress = Progress()
    threshold_hint: tuple[str, str] = ("", "")
    """What the last committed threshold text needs said (`threshold.Reading.hint`), and that text."""
    after: Measured | None = None
    """A second run, after a fix, measured (the run shown is the one before)."""
    after_errors: tuple[FileError, ...] = ()
    comparison: Comparison | None = None
    """The run shown against `after`, judged at the same threshold (ddpcore.analysis.comparison)."""
    reading_after: bool = False
    job: JobWhatIf | None = None
    """A 3D-parallel job read instead of per-rank traces (ddpcore.analysis.jobwhatif), with its readers' notes."""
    job_notes: tuple[Message, ...] = ()
    job_step: JobStepDrawing | None = None


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


TRACES_FOUND = ("trace-step-control", "traces-found", "traces-fit", "traces-compare")
"""What Your traces shows once traces are analysed; before, the drop zone, the examples and one line on what will
appear (`traces-empty`)."""
