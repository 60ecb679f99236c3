"""The repository explains itself: nothing in it points at files outside it."""

from __future__ import annotations

import ast
from pathlib import Path

from arena.platform import children

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("../" + "shared", "shared/" + "RULES", "shared/" + "SCENARIOS", "RULES" + ".md")


def test_no_file_refers_outside_the_repository() -> None:
    files = children.run(
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


def test_test_modules_share_helpers_only_through_the_support_package() -> None:
    """A test module imports helpers from ``tests.support``, never from another test
    module or from ``conftest`` (fixtures reach tests through pytest)."""
    found = []
    for module in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                name = node.module
                if name.startswith(("tests.test_", "tests.conftest")):
                    found.append(f"{module.relative_to(ROOT)}: from {name}")
    assert found == []
