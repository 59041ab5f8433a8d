"""Fuzzing the link: any URL hash is clamped or rejected with a notice, never an exception."""

from __future__ import annotations

from ddpview.state import ViewState, decode, encode
from fuzzing import VALUES
from hypothesis import given
from hypothesis import strategies as st


@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "gpus",
                    "straggler",
                    "slowdown",
                    "prefetch",
                    "mode",
                    "bw",
                    "n",
                    "cv",
                    "p",
                    "s",
                    "k",
                    "ks",
                    "ar",
                    "lang",
                    "view",
                    "x",
                    "",
                ]
            ),
            VALUES,
        ),
        max_size=8,
    )
)
def test_any_hash_with_repeated_keys_decodes(pairs):
    fragment = "#" + "&".join(f"{k}={v}" for k, v in pairs)
    state, notices = decode(fragment)
    assert isinstance(state, ViewState)
    assert decode(encode(state)) == (state, ())
    assert all(len(n.given) <= 41 for n in notices)
