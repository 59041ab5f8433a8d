"""Values that have broken parsers elsewhere, for fuzzing the command line and the link alike."""

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
