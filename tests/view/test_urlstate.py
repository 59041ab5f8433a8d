"""URL hash state: round trip, clamping with notices, never an exception."""

from dataclasses import fields

from ddpview.state import FIELDS, PAGE_MAX_GPUS, ViewState, apply, decode, encode
from hypothesis import given
from hypothesis import strategies as st

from ddpcore.model import ClusterConfig, MeasuredTiming


def test_defaults_and_round_trip():
    assert decode("")[0] == ViewState()
    state = ViewState(gpus=6, straggler=4, slowdown=1.5, prefetch=True, lang="fr")
    assert decode(encode(state)) == (state, ())
    assert encode(ViewState(slowdown=1.5, prefetch=True)) == "#gpus=8&straggler=2&slowdown=1.5&prefetch=1"


def test_clamps_with_notices():
    state, notices = decode("#gpus=99&straggler=-3&slowdown=banana&prefetch=1&color=red")
    assert (state.gpus, state.straggler, state.slowdown, state.prefetch) == (16, 0, 1.0, True)
    assert {n.key for n in notices} == {"gpus", "straggler", "slowdown", "color"}
    state, notices = decode("#gpus=3")
    assert state.straggler == 2 and notices == ()
    state, _ = decode("#gpus=2")
    assert state.straggler == 1


def test_with_gpus_keeps_straggler_in_range():
    assert apply(ViewState(straggler=7), "gpus", "4").straggler == 3
    assert apply(ViewState(), "gpus", "1000").gpus == PAGE_MAX_GPUS


@given(st.text(max_size=300))
def test_any_hash_decodes_to_a_valid_state(fragment):
    state, notices = decode(fragment)
    assert 2 <= state.gpus <= 16
    assert 0 <= state.straggler < state.gpus
    assert 1.0 <= state.slowdown <= 3.0
    assert state.lang in ("", "en", "fr")
    assert decode(encode(state))[0] == state


@given(
    st.dictionaries(
        st.sampled_from(["gpus", "straggler", "slowdown", "prefetch", "lang", "x"]),
        st.one_of(st.text(max_size=20), st.floats().map(repr), st.integers().map(str)),
    )
)
def test_any_values_decode(values):
    fragment = "#" + "&".join(f"{k}={v}" for k, v in values.items())
    state, _ = decode(fragment)
    assert 2 <= state.gpus <= 16 and 0 <= state.straggler < state.gpus


def test_every_state_field_has_a_hash_key():
    assert {f.attr.split(".")[0] for f in FIELDS} == {f.name for f in fields(ViewState)}
    assert len({f.key for f in FIELDS}) == len(FIELDS)


def test_apply_clamps_like_a_link():
    state = ViewState()
    assert apply(state, "slowdown", "9").slowdown == 3.0
    assert apply(state, "slowdown", "abc") == state
    assert apply(state, "n", "1e9").cluster.gpus == 1_000_000
    assert apply(apply(state, "k", "50"), "n", "10").cluster.persistent == 10
    assert apply(state, "ar", "tree").cluster.allreduce == "tree"
    assert apply(state, "ar", "mesh") == state
    assert apply(state, "view", "cluster").view == "cluster"


def test_cluster_keys_round_trip():
    cluster = ClusterConfig(
        gpus=65536,
        jitter_cv=0.05,
        straggler_prob=0.001,
        slowdown=3.0,
        persistent=4,
        persistent_slowdown=1.5,
        allreduce="tree",
        timing=MeasuredTiming(41.5, 7.25),
    )
    state = ViewState(view="cluster", cluster=cluster)
    assert decode(encode(state)) == (state, ())


def test_the_skip_links_anchor_is_no_view_state():
    from ddpview import app

    m = app.initial("#view=cluster&n=64", "en", False)
    assert app.with_hash(m, "#main") == m, "the view, N and the notices stay"
    fresh = app.initial("#main", "en", False)
    assert fresh.notices == () and fresh.state.view == "step"
