"""Your run at scale: the straggler model fitted to the loaded traces, the run without its stragglers, the check of
the model on the run itself, and the run carried to larger clusters, with a link that opens the Cluster view on it."""

from __future__ import annotations

from collections.abc import Callable

from ddpcore.analysis import Outlook
from ddpcore.analysis.fitting import bounded
from ddpcore.base.words import Message

from .. import i18n
from ..markup import esc, tag, text
from ..state import ViewState, apply, encode
from .cost import metrics_dl

__all__ = ["fit_html"]

CHECK_TOLERANCE = 0.10
"""Beyond this relative error at the run's own size, the check is marked: the model does not describe the run."""


def _interval(low: float, high: float, shown: Callable[[float], str]) -> str:
    return f"{shown(low)}–{shown(high)}"


def _figure(testid: str, raw: float, shown: str, lang: str, interval: str | None = None, detail: str = "") -> str:
    """A fitted value, large, with its 95 % interval and its evidence small beneath it."""
    notes = [i18n.t("fit.interval", lang, interval=interval)] if interval else []
    notes += [detail] if detail else []
    small = text("small", {"class": "detail"}, " · ".join(notes)) if notes else ""
    return tag("output", {"data-testid": testid, "data-value": repr(float(raw)), "class": "value"}, esc(shown), small)


def params_html(seen: Outlook, lang: str) -> str:
    """The fitted parameters, each with its 95 % interval and the rank-steps behind it."""
    f = seen.fit

    def cv(x: float) -> str:
        return i18n.number(x, lang, 3)

    def pct(x: float) -> str:
        return i18n.percent(x, lang, 1)

    def times(x: float) -> str:
        return f"{i18n.number(x, lang, 2)}×"

    cv_interval = f.jitter_cv_interval and _interval(*f.jitter_cv_interval, cv)
    s_interval = f.slowdown_interval and _interval(*f.slowdown_interval, times)
    capped = bounded(f)

    def cap(name: str, shown: Callable[[float], str]) -> str:
        return i18n.t("fit.bounded", lang, used=shown(capped[name])) if name in capped else ""

    evidence = i18n.t("fit.evidence", lang, k=f.slowed_rank_steps, n=f.rank_steps)
    which = ", ".join(str(r) for r in f.persistent_ranks)
    persistent = i18n.t("fit.persistent_value", lang, ranks=which, s=times(f.persistent_slowdown)) if which else ""
    persistent = " · ".join(x for x in (persistent, cap("persistent_slowdown", times) if which else "") if x)
    count = i18n.number(f.persistent, lang, 0) if f.persistent else i18n.t("fit.none", lang)
    rest = i18n.t("fit.timing_value", lang, other=i18n.ms(f.other_ms, lang))
    rows = [
        ("fit.cv", _figure("fit-cv", f.jitter_cv, cv(f.jitter_cv), lang, cv_interval, cap("jitter_cv", cv)), ""),
        (
            "fit.p",
            _figure(
                "fit-p",
                f.straggler_prob,
                pct(f.straggler_prob),
                lang,
                _interval(*f.straggler_prob_interval, pct),
                evidence,
            ),
            "",
        ),
        (
            "fit.s",
            _figure(
                "fit-s",
                f.slowdown,
                times(f.slowdown) if f.slowed_rank_steps else "–",
                lang,
                s_interval,
                cap("slowdown", times) if f.slowed_rank_steps else "",
            ),
            "",
        ),
        (
            "fit.persistent",
            _figure("fit-persistent", f.persistent, count, lang, detail=persistent),
            "bad" if which else "",
        ),
        ("fit.timing", _figure("fit-compute", f.compute_ms, i18n.ms(f.compute_ms, lang), lang, detail=rest), ""),
    ]
    return metrics_dl(rows, lang)


def whatif_html(seen: Outlook, lang: str) -> str:
    """The measured steps without their stragglers: the verdict's what-if; that there is nothing to gain when the
    run has no straggler cost."""
    w = seen.whatif
    none = round(w.measured_step_ms - w.step_ms, 2) <= 0
    return tag(
        "p",
        None,
        text(
            "output",
            {"data-testid": "fit-whatif", "data-value": repr(float(w.step_ms))},
            i18n.t(
                "fit.whatif_none" if none else "fit.whatif",
                lang,
                step=i18n.ms(w.step_ms, lang),
                measured=i18n.ms(w.measured_step_ms, lang),
                efficiency=i18n.percent(w.efficiency, lang),
                hours=i18n.number(w.gpu_hours_saved_per_day, lang, 1),
                n=i18n.number(seen.fit.gpus, lang, 0),
            ),
        ),
    )


def check_html(seen: Outlook, lang: str) -> str:
    """The model at the run's own size against the measured mean step: how far to trust the rows below."""
    c = seen.check
    off = abs(c.error) > CHECK_TOLERANCE
    return tag(
        "p",
        {"class": "check bad" if off else "check"},
        text(
            "output",
            {
                "data-testid": "fit-check",
                "data-value": repr(float(c.error)),
                "data-expected": repr(float(c.expected_step_ms)),
            },
            i18n.t(
                "fit.check_off" if off else "fit.check",
                lang,
                n=i18n.number(c.gpus, lang, 0),
                expected=i18n.ms(c.expected_step_ms, lang),
                measured=i18n.ms(c.measured_step_ms, lang),
                error=i18n.signed_percent(c.error, lang),
            ),
        ),
    )


def scale_table(seen: Outlook, lang: str) -> str:
    """The fitted model at the run's size and beyond: expected and p99 step, efficiency, GPU-hours lost a day."""
    heads = ("fit.col_gpus", "cluster.step", "cluster.p99", "cluster.efficiency", "cluster.hours")
    head = tag("tr", None, *(text("th", {"scope": "col"}, i18n.t(h, lang)) for h in heads))
    rows = [
        tag(
            "tr",
            {"data-testid": "fit-scale-row", "data-gpus": r.gpus},
            text(
                "th",
                {"scope": "row"},
                i18n.t("fit.measured_row", lang, n=i18n.number(r.gpus, lang, 0))
                if k == 0
                else i18n.number(r.gpus, lang, 0),
            ),
            text("td", None, i18n.ms(r.expected_step_ms, lang)),
            text("td", None, i18n.ms(r.p99_step_ms, lang)),
            text("td", {"data-value": repr(float(r.efficiency))}, i18n.percent(r.efficiency, lang)),
            text("td", None, i18n.number(r.gpu_hours_lost_per_day, lang, 0)),
        )
        for k, r in enumerate(seen.scale)
    ]
    note = text("p", {"class": "help"}, i18n.t("fit.scale_caption", lang))
    table = tag("table", {"class": "ranks"}, tag("thead", None, head), tag("tbody", None, *rows))
    return note + tag("div", {"class": "table-wrap"}, table)


def cluster_link(state: ViewState, seen: Outlook) -> str:
    """The Cluster view's hash with the fitted parameters and the run's timing, clamped and rounded as a link is."""
    f = seen.fit
    values = {
        "view": "cluster",
        "n": f.gpus,
        "cv": f.jitter_cv,
        "p": f.straggler_prob,
        "s": f.slowdown,
        "k": f.persistent,
        "ks": f.persistent_slowdown,
        "cm": f.compute_ms,
        "om": f.other_ms,
    }
    for key, value in values.items():
        state = apply(state, key, str(value))
    return encode(state)


def fit_html(state: ViewState, seen: Outlook | None, error: Message | None, pending: bool, lang: str) -> str:
    """The panel: nothing before traces are analysed, a line while the fit runs or when it cannot be made."""
    if pending:
        return text("p", {"class": "status", "data-testid": "fit-pending"}, i18n.t("fit.pending", lang))
    if error:
        return text("p", {"class": "notice", "data-testid": "fit-error"}, error.text(lang))
    if seen is None:
        return text("p", {"class": "help"}, i18n.t("fit.empty", lang))
    caveats = "".join(text("li", {"data-testid": "fit-caveat"}, c.text(lang)) for c in seen.fit.caveat_messages)
    return "".join(
        (
            params_html(seen, lang),
            whatif_html(seen, lang),
            check_html(seen, lang),
            scale_table(seen, lang),
            tag("ul", {"class": "notices"}, caveats) if caveats else "",
            tag(
                "p",
                None,
                text(
                    "a",
                    {"class": "button", "href": cluster_link(state, seen), "data-testid": "fit-open-cluster"},
                    i18n.t("fit.open_cluster", lang),
                ),
            ),
        )
    )
