"""How often chance alone makes what the verdict reads: the level every test is held to and a binomial count's
chances, in a module of their own so that what reads them alone (a 3D-parallel job's what-if, the alert rules) does
not load the whole chance model (`chance`)."""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["ALPHA", "binomial_above", "binomial_terms"]

ALPHA = 0.001
"""The chance that noise alone makes a straggler: a transient one in a step, a persistent one in a run."""


def binomial_terms(n: int, s: float) -> Callable[[int], float]:
    """The chance that exactly j of n draws pass what each passes with chance s, as a function of j (0 < s < 1),
    from logarithms: exact far into the tails, where the terms themselves are under a float's least.

    >>> round(binomial_terms(4, 0.5)(2), 4)
    0.375
    """
    log_s, log_r, whole = math.log(s), math.log1p(-s), math.lgamma(n + 1)

    def term(j: int) -> float:
        return math.exp(whole - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_s + (n - j) * log_r)

    return term


def binomial_above(n: int, k: int, s: float) -> float:
    """The chance that at least k of n draws pass what each passes with chance s: its terms added from k up while
    they count (past the mode, each is less than the one before); for k at or below the mean, one less the terms
    below k, added from k - 1 down while they count. Summed from k up there, a tail of 10^7 rank-steps at a quantile
    they fall short of added every term up to n: seconds, and a list of 10^7 floats.

    >>> round(binomial_above(10, 3, 0.1), 4), binomial_above(10**8, 50, 1e-8) < 1e-60
    (0.0702, True)
    >>> round(binomial_above(10, 1, 0.3), 4), round(1 - 0.7**10, 4), binomial_above(10**7, 60_000, 0.025)
    (0.9718, 0.9718, 1.0)
    """
    if k <= 0 or s >= 1.0:
        return 1.0
    if s <= 0.0 or k > n:
        return 0.0
    term = binomial_terms(n, s)
    terms = []
    if k <= n * s:
        for j in range(k - 1, -1, -1):
            terms.append(term(j))
            if terms[-1] <= 1e-18 * terms[0]:
                break
        return min(1.0, max(0.0, 1.0 - math.fsum(terms)))
    for j in range(k, n + 1):
        terms.append(term(j))
        if j > n * s and terms[-1] <= 1e-18 * terms[0]:
            break
    return min(1.0, math.fsum(terms))
