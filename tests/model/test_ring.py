"""The ring schedule against numpy, and the state used for drawing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore import allreduce, exchange, exchanges, ring_state, traffic_factor
from ddpcore.model.ring import chunk_bounds, exchange_count, sent_fraction


@pytest.mark.parametrize("n", range(2, 65))
def test_ring_gives_every_gpu_the_sum(n):
    rng = np.random.default_rng(n)
    length = int(rng.integers(n, 4 * n + 7))
    data = rng.standard_normal((n, length))
    result = np.array(allreduce(data.tolist()))
    expected = data.sum(axis=0)
    assert result.shape == (n, length)
    for g in range(n):
        np.testing.assert_allclose(result[g], expected, rtol=1e-12, atol=1e-12)
        assert np.array_equal(result[g], result[0]), "all-gather must copy one identical sum to every GPU"


@pytest.mark.parametrize("n", [2, 3, 7, 8, 16, 33])
def test_ring_is_exact_on_integers(n):
    rng = np.random.default_rng(100 + n)
    data = rng.integers(-1000, 1000, size=(n, 3 * n + 1)).astype(float)
    result = np.array(allreduce(data.tolist()))
    assert np.array_equal(result, np.broadcast_to(data.sum(axis=0), result.shape))


def test_ring_handles_fewer_elements_than_gpus():
    vectors = [[float(i)] for i in range(5)]
    assert allreduce(vectors) == [[10.0]] * 5


def test_ring_rejects_ragged_vectors():
    with pytest.raises(ValueError, match="same length"):
        allreduce([[1.0, 2.0], [1.0]])


def test_eight_gpus_spec_numbers():
    assert exchange_count(8) == 14
    assert traffic_factor(8) == 1.75
    ex = exchanges(8)
    assert [e.stage for e in ex] == ["reduce-scatter"] * 7 + ["all-gather"] * 7


@pytest.mark.parametrize("n", [2, 3, 8, 13])
def test_transfers_follow_the_spec_formulas(n):
    for k in range(n - 1):
        rs = exchange(n, k + 1)
        ag = exchange(n, n + k)
        for i in range(n):
            assert (rs.transfers[i].src, rs.transfers[i].dst, rs.transfers[i].chunk) == (i, (i + 1) % n, (i - k) % n)
            assert (ag.transfers[i].src, ag.transfers[i].dst, ag.transfers[i].chunk) == (
                i,
                (i + 1) % n,
                (i + 1 - k) % n,
            )


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_state_after_reduce_scatter_and_all_gather(n):
    before = ring_state(n, 0)
    assert all(c.count == 1 and not c.final for row in before for c in row)
    mid = ring_state(n, n - 1)
    for gpu in range(n):
        assert mid[gpu][(gpu + 1) % n].count == n and mid[gpu][(gpu + 1) % n].final
        assert sum(c.final for c in mid[gpu]) == 1
    end = ring_state(n, 2 * (n - 1))
    assert all(c.count == n and c.final for row in end for c in row)


@given(st.integers(2, 24), st.data())
@settings(max_examples=60)
def test_contributions_only_grow_during_reduce_scatter(n, data):
    k = data.draw(st.integers(0, 2 * (n - 1) - 1))
    a, b = ring_state(n, k), ring_state(n, k + 1)
    assert all(y.count >= x.count for ra, rb in zip(a, b) for x, y in zip(ra, rb))
    assert all(1 <= c.count <= n for row in b for c in row)
    # the total number of contributions held grows by exactly one chunk's worth per GPU per reduce-scatter exchange
    if k < n - 1:
        assert sum(c.count for row in b for c in row) - sum(c.count for row in a for c in row) == sum(
            a[t.src][t.chunk].count for t in exchange(n, k + 1).transfers
        )


@settings(deadline=None)
@given(st.integers(2, 256))
def test_each_gpu_sends_2_n_minus_1_over_n(n):
    ex_count = exchange_count(n)
    assert ex_count == 2 * (n - 1)
    sent_by_gpu0 = sum(1 for e in exchanges(n) for t in e.transfers if t.src == 0)
    assert traffic_factor(n) == pytest.approx(sent_by_gpu0 / n), "each send carries one chunk of 1/n of the gradient"
    assert sent_fraction(n, ex_count) == pytest.approx(traffic_factor(n))
    assert sent_fraction(n, 0) == 0


@given(st.integers(2, 64))
@settings(max_examples=30)
def test_each_gpu_sends_one_chunk_per_exchange(n):
    sends = [0] * n
    for e in exchanges(n):
        assert sorted(t.src for t in e.transfers) == list(range(n))
        assert all(t.dst == (t.src + 1) % n for t in e.transfers)
        for t in e.transfers:
            sends[t.src] += 1
    assert sends == [2 * (n - 1)] * n


@given(st.integers(0, 500), st.integers(1, 64))
def test_chunk_bounds_partition(length, n):
    bounds = chunk_bounds(length, n)
    assert bounds[0][0] == 0 and bounds[-1][1] == length
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    sizes = [b - a for a, b in bounds]
    assert max(sizes) - min(sizes) <= 1
