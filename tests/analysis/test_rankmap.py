"""Thousands of ranks: the generated 4,096-rank run names its persistent rank and its transient share, and its map holds
them."""

from __future__ import annotations

import pytest

from ddpcore.analysis.rankmap import MAX_ROWS, rank_step_map
from scripts.tracegen import BIG_PERSISTENT, BIG_PROBABILITY, BIG_RANKS, BIG_STEPS

RANKS, STEPS, PERSISTENT, P = BIG_RANKS, BIG_STEPS, BIG_PERSISTENT, BIG_PROBABILITY


def test_the_persistent_rank_and_the_transient_share(big):
    analysis, slowed = big
    assert [s.rank for s in analysis.stragglers] == [PERSISTENT]
    truth = len({n for n, r in slowed if r != PERSISTENT}) / STEPS
    assert analysis.transient.fraction == pytest.approx(truth, abs=0.02)
    assert 0.2 < truth < 0.5, "the generator makes some steps with a transient straggler, not all"


def test_the_map_holds_the_persistent_row_and_the_transient_cells(big):
    analysis, slowed = big
    m = rank_step_map(analysis.steps)
    assert m == analysis.rank_map, "measured once, kept by the verdict"
    assert len(m.rows) == MAX_ROWS and sum(len(r) for r in m.rows) == RANKS
    row = next(i for i, r in enumerate(m.rows) if PERSISTENT in r)
    late = m.late_cells([s.late_ranks for s in analysis.steps])
    assert sum(1 for i, _ in late if i == row) == STEPS
    assert all(m.worst[row][j] == PERSISTENT for j in range(STEPS))
    column = {n: j for j, n in enumerate(m.steps)}
    row_of = {r: i for i, ranks in enumerate(m.rows) for r in ranks}
    for n, r in slowed:
        if row_of[r] != row:
            assert (row_of[r], column[n]) in late and m.worst[row_of[r]][column[n]] == r
