"""The cluster view's logarithmic N slider: equal travel multiplies N by the same factor."""

from __future__ import annotations

import math

from ..state import FIELD_BY_KEY

__all__ = ["N_MAX", "N_MIN", "SLIDER_MAX", "n_from_slider", "slider_from_n"]

N_MIN = int(FIELD_BY_KEY["n"].low)
N_MAX = int(FIELD_BY_KEY["n"].high)
SLIDER_MAX = 1000


def n_from_slider(position: int) -> int:
    """The cluster size at a slider position: the slider is log-scaled from N_MIN to N_MAX."""
    f = min(max(position, 0), SLIDER_MAX) / SLIDER_MAX
    return int(round(N_MIN * (N_MAX / N_MIN) ** f))


def slider_from_n(n: int) -> int:
    """The slider position showing a cluster size (the inverse of `n_from_slider`, clamped)."""
    n = min(max(n, N_MIN), N_MAX)
    return int(round(SLIDER_MAX * math.log(n / N_MIN) / math.log(N_MAX / N_MIN)))
