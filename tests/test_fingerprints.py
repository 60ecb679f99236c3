"""The engine plays each of 1,500 random deals exactly as it was recorded (a differential
test: tests/support/fingerprints.py says what a transcript holds and how to rewrite them)."""

from __future__ import annotations

import pytest

from tests.support.engine import seeds
from tests.support.fingerprints import CASES, CHUNK, fingerprint, kept


@pytest.mark.parametrize("chunk", seeds(CASES // CHUNK, fast=1))
def test_random_deals_play_exactly_as_recorded(chunk: int) -> None:
    recorded = kept()
    cases = range(chunk * CHUNK, (chunk + 1) * CHUNK)
    changed = [case for case in cases if fingerprint(case) != recorded[str(case)]]
    assert not changed, (
        f"cases {changed} play differently from their recording "
        f"(python -m tests.support.fingerprints show {changed[0]} prints one)"
    )


def test_every_case_is_recorded() -> None:
    assert sorted(map(int, kept())) == list(range(CASES))
