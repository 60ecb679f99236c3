"""Golden playthroughs: each kept match, played again, reads exactly as its file.

A change in the engine's behaviour (a rule, the deal, the legal actions, an event, the
random policy) shows here as a diff. After an intended change, write the files again
with ``python -m arena.game.playthrough tests/golden`` and review the diff in the commit."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from arena.game.playthrough import SETTINGS, Setting, playthrough

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_a_match_plays_exactly_as_its_golden_playthrough(setting: Setting) -> None:
    kept = (GOLDEN / f"{setting.name}.txt").read_text()
    played = playthrough(setting)
    if played != kept:
        diff = difflib.unified_diff(
            kept.splitlines(), played.splitlines(), "kept", "played", lineterm="", n=2
        )
        pytest.fail(
            f"{setting.name} plays differently (python -m arena.game.playthrough tests/golden "
            "rewrites the files after an intended change):\n" + "\n".join(list(diff)[:60])
        )


def test_every_golden_file_has_its_setting() -> None:
    assert {path.stem for path in GOLDEN.glob("*.txt")} == {s.name for s in SETTINGS}
