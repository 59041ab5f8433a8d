"""Fuzzing the link: any URL hash is clamped or rejected with a notice, never an exception."""

from __future__ import annotations

from ddpview.state import ViewState, decode, encode
from hypothesis import given
from hypothesis import strategies as st

NASTY = st.sampled_from(
    [
        "",
        "-1",
        "0",
        "1e308",
        "1e400",
        "-1e400",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "1.5",
        "9" * 400,
        "0x10",
        "1_000",
        " 2 ",
        "é",
        "🚀",
        "\x00",
        "%00",
        "true",
        "[]",
        "{}",
        "--json",
    ]
)


VALUES = st.one_of(
    NASTY,
    st.text(max_size=30),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


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
