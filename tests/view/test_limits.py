"""What the page holds: a run past it is refused after its first file, in one line that names the command to run."""

from ddpview.reading import PAGE_RANK_STEPS, too_large

from ddpcore.analysis.measured import RUN


def test_the_bench_run_of_4096_ranks_is_held_and_10000_by_1000_is_refused_with_the_command():
    assert too_large(4_096, 200) is None
    assert too_large(PAGE_RANK_STEPS // 1000, 1000) is None
    refused = too_large(10_000, 1_000)
    assert refused is not None and refused.source == RUN
    for lang, command in (("en", "analyze FOLDER --fit"), ("fr", "analyze DOSSIER --fit")):
        line = refused.said.text(lang)
        assert command in line and "10000" in line and "\n" not in line
