"""Before and after a fix: the run shown (before) against a second set of files (after), the figures of `python -m
ddpcore compare` (docs/compare.md) in the page's language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.analysis.comparison import named_ranks

from .. import i18n
from ..markup import esc, tag, text
from .traces import sentence

if TYPE_CHECKING:
    from ddpcore.analysis import Comparison
    from ddpcore.traces import FileError

__all__ = ["compare_html"]


def _ranks(ranks: tuple[int, ...], lang: str) -> str:
    return named_ranks(ranks).text(lang)


def _signed_ms(value: float, lang: str) -> str:
    sign = "+" if value > 0 else "−" if value < 0 else ""
    return sign + i18n.ms(abs(value), lang)


def _row(testid: str, label: str, value: str, raw: float | None = None) -> str:
    values: dict[str, str] = {"data-testid": testid}
    if raw is not None:
        values["data-value"] = repr(float(raw))
    return tag("tr", values, text("th", {"scope": "row"}, label), tag("td", None, value))


def compare_html(
    comparison: Comparison | None, errors: tuple[FileError, ...], reading: bool, linked: bool, lang: str
) -> str:
    """The panel's content: how to start a comparison, its progress, its figures, or the files left out.
    `linked`: the link says a comparison was shown, but the files are not in it (they never are)."""
    if reading:
        return text("p", {"class": "help", "data-testid": "compare-reading"}, i18n.t("compare.reading", lang))
    lines = "".join(
        tag("li", {"data-testid": "compare-error"}, text("strong", None, e.source), " ", esc(e.said.text(lang)))
        for e in errors
    )
    left_out = tag("ul", {"class": "notices"}, lines) if lines else ""
    if comparison is None:
        hint = "compare.linked" if linked else "compare.help"
        return left_out + text("p", {"class": "help", "data-testid": "compare-help"}, i18n.t(hint, lang))
    c, s, w = comparison, comparison.stragglers, comparison.whatif
    lo, hi = c.step_ms.ci95
    verdict = "compare.within" if c.within_noise else "compare.faster" if c.step_ms.change < 0 else "compare.slower"
    rows = [
        _row(
            "compare-step",
            i18n.t("compare.step", lang),
            i18n.t(
                "compare.step_value",
                lang,
                before=i18n.ms(c.step_ms.before, lang),
                after=i18n.ms(c.step_ms.after, lang),
                change=_signed_ms(c.step_ms.change, lang),
                lo=_signed_ms(lo, lang),
                hi=_signed_ms(hi, lang),
            ),
            c.step_ms.change,
        ),
        _row("compare-verdict", i18n.t("compare.verdict", lang), i18n.t(verdict, lang)),
        _row(
            "compare-median",
            i18n.t("compare.median", lang),
            f"{i18n.ms(c.median_step_ms.before, lang)} → {i18n.ms(c.median_step_ms.after, lang)}",
            c.median_step_ms.change,
        ),
        _row("compare-went", i18n.t("compare.went", lang), _ranks(s.went, lang)),
        _row("compare-stayed", i18n.t("compare.stayed", lang), _ranks(s.stayed, lang)),
        _row("compare-appeared", i18n.t("compare.appeared", lang), _ranks(s.appeared, lang)),
        _row(
            "compare-whatif",
            i18n.t("compare.whatif", lang),
            i18n.t(
                "compare.whatif_value",
                lang,
                predicted=i18n.ms(w.predicted_step_ms, lang),
                measured=i18n.ms(w.measured_step_ms, lang),
                error=i18n.percent(abs(w.error), lang, 0),
            ),
            w.error,
        ),
    ]
    notes = "".join(
        text("p", {"class": "help", "data-testid": "compare-note"}, sentence(n.text(lang))) for n in c.notes
    )
    table = tag("table", {"class": "compare", "data-testid": "compare-table"}, tag("tbody", None, *rows))
    return left_out + table + notes
