"""The engine plays each of 1,500 random deals exactly as it was recorded (a differential
test: tests/support/fingerprints.py says what a transcript holds and how to rewrite them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.engine import seeds
from tests.support.fingerprints import (
    CASES,
    CHUNK,
    EPISODES,
    episode_fingerprint,
    fingerprint,
    kept,
)

EPISODES_KEPT = Path(__file__).parent / "golden" / "episodes.json"


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


@pytest.mark.parametrize("episode", EPISODES, ids=lambda e: f"{e[0]}-{e[2]}p-{e[3]}")
def test_learning_environment_episodes_observe_exactly_as_recorded(episode: tuple) -> None:
    """Every observation vector and mask of an AEC episode is as recorded: the encoding
    may get faster, never different."""
    rules, options, players, seed = episode
    recorded = json.loads(EPISODES_KEPT.read_text())
    key = f"{rules}/{json.dumps(options, sort_keys=True)}/{players}/{seed}"
    assert episode_fingerprint(rules, options, players, seed) == recorded[key]
