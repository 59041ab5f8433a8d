"""The app: the page's model, how each event changes it (`explainer`, `traces`), and what it shows (`screen`); the
slow-motion clock and the cluster slider's scale."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .explainer import (  # noqa: F401
        control_text,
        next_exchange,
        playhead_x,
        rewind,
        schedule_of,
        tab_after,
        tick,
        toggle_play,
        with_control,
        with_hash,
        with_lang,
        with_state,
        with_view,
    )
    from .model import (  # noqa: F401
        COPYABLE,
        LOG_SCALE,
        TRACES_FOUND,
        Model,
        TracesModel,
        initial,
        slot,
    )
    from .playback import (  # noqa: F401
        Position,
        duration_s,
        elapsed_for,
        playhead_for_exchange,
        position,
    )
    from .showing import (  # noqa: F401
        DRAWINGS_KEPT,
        LINK_AFTER_S,
        Change,
        Screen,
        changes,
        drawing,
        link,
        link_after_s,
        screen,
    )
    from .sliders import (  # noqa: F401
        N_MAX,
        N_MIN,
        SLIDER_MAX,
        n_from_slider,
        slider_from_n,
    )
    from .traces import (  # noqa: F401
        APPLYING,
        after_cancelled,
        after_in_steps,
        cancel_reading,
        file_read,
        file_sizes,
        files_read,
        fit_due,
        loading_traces,
        measured_in_steps,
        measuring_traces,
        read_progress,
        reading_after,
        threshold_applying,
        threshold_in_steps,
        threshold_note,
        threshold_shown,
        with_compared,
        with_fitted,
        with_job,
        with_judged,
        with_measured,
        with_outlook,
        with_rank_page,
        with_threshold,
        with_trace_step,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "explainer": (
        "control_text",
        "next_exchange",
        "playhead_x",
        "rewind",
        "schedule_of",
        "tab_after",
        "tick",
        "toggle_play",
        "with_control",
        "with_hash",
        "with_lang",
        "with_state",
        "with_view",
    ),
    "model": (
        "COPYABLE",
        "LOG_SCALE",
        "Model",
        "TRACES_FOUND",
        "TracesModel",
        "initial",
        "slot",
    ),
    "playback": (
        "Position",
        "duration_s",
        "elapsed_for",
        "playhead_for_exchange",
        "position",
    ),
    "showing": (
        "Change",
        "DRAWINGS_KEPT",
        "LINK_AFTER_S",
        "Screen",
        "changes",
        "drawing",
        "link",
        "link_after_s",
        "screen",
    ),
    "sliders": (
        "N_MAX",
        "N_MIN",
        "SLIDER_MAX",
        "n_from_slider",
        "slider_from_n",
    ),
    "traces": (
        "APPLYING",
        "after_cancelled",
        "after_in_steps",
        "cancel_reading",
        "file_read",
        "file_sizes",
        "files_read",
        "fit_due",
        "loading_traces",
        "measured_in_steps",
        "measuring_traces",
        "read_progress",
        "reading_after",
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
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
