"""The repository explains itself: nothing in it points at files outside it."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("../" + "shared", "shared/" + "RULES", "shared/" + "SCENARIOS", "RULES" + ".md")


def test_no_file_refers_outside_the_repository() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in files:
        try:
            text = (ROOT / name).read_text()
        except (UnicodeDecodeError, OSError):
            continue  # binary files (screenshots)
        found += [f"{name}: {needle}" for needle in OUTSIDE if needle in text]
    assert found == []


def test_the_rules_and_the_scenario_format_are_in_the_repository() -> None:
    for doc in ("docs/rules.md", "docs/scenarios.md", "docs/protocol.md", "docs/match-log.md"):
        assert (ROOT / doc).stat().st_size > 1000, doc
