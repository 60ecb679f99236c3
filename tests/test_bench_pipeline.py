"""The pipeline bench's figures from the ends of a run's matches."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from arena.bench.pipeline import steady_rate, tail_share

BEGAN = datetime(2026, 12, 7, 6, 0, 0)


def ends(*seconds: float) -> list[datetime]:
    return [BEGAN + timedelta(seconds=s) for s in seconds]


def test_the_steady_rate_leaves_out_a_slow_start_and_a_slow_tail() -> None:
    """Forty matches of 30 decisions: two end in the first seconds (programs starting),
    36 every 0.1 s after, two in a slow tail. The steady rate is 300 decisions a second,
    what the run's middle played, however long the start and the tail took."""
    middle = [5 + 0.1 * n for n in range(36)]
    played = [(end, 30) for end in ends(1.0, 2.0, *middle, 9.0, 12.0)]
    assert steady_rate(played) == pytest.approx(300.0)
    slower = [(end, 30) for end in ends(3.0, 4.5, *middle, 20.0, 30.0)]
    assert steady_rate(slower) == pytest.approx(300.0)


def test_the_steady_rate_counts_the_decisions_of_the_matches_ended_in_its_span() -> None:
    played = [(end, 10 * (n + 1)) for n, end in enumerate(ends(*range(10)))]
    # one match in ten had ended at 1 s (the second), nine in ten at 8 s (the ninth):
    # the seven matches ended after 1 s and up to 8 s took 30 + ... + 90 decisions
    assert steady_rate(played) == sum(range(30, 100, 10)) / 7


def test_too_few_matches_have_no_steady_rate() -> None:
    assert steady_rate([(end, 30) for end in ends(*range(9))]) == 0.0
    assert steady_rate([(end, 30) for end in ends(*([1.0] * 12))]) == 0.0, "no span"


def test_the_tail_is_the_share_of_the_run_after_nine_matches_in_ten() -> None:
    finishes = ends(*range(1, 11))  # the ninth of ten ends at 9 s; the run ends at 20 s
    assert tail_share(finishes, BEGAN, BEGAN + timedelta(seconds=20)) == 11 / 20
    assert tail_share([], BEGAN, BEGAN) == 0.0
