"""URL hash state: round trip, clamping with notices, never an exception."""

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.urlstate import PAGE_MAX_GPUS, ViewState, decode, encode, with_gpus


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
    assert with_gpus(ViewState(straggler=7), 4).straggler == 3
    assert with_gpus(ViewState(), 1000).gpus == PAGE_MAX_GPUS


@given(st.text(max_size=300))
def test_any_hash_decodes_to_a_valid_state(fragment):
    state, notices = decode(fragment)
    assert 2 <= state.gpus <= 16
    assert 0 <= state.straggler < state.gpus
    assert 1.0 <= state.slowdown <= 3.0
    assert state.lang in ("", "en", "fr")
    assert decode(encode(state))[0] == state


@given(st.dictionaries(st.sampled_from(["gpus", "straggler", "slowdown", "prefetch", "lang", "x"]),
                       st.one_of(st.text(max_size=20), st.floats().map(repr), st.integers().map(str))))
def test_any_values_decode(values):
    fragment = "#" + "&".join(f"{k}={v}" for k, v in values.items())
    state, _ = decode(fragment)
    assert 2 <= state.gpus <= 16 and 0 <= state.straggler < state.gpus
