"""Conformance: the public scenarios and ours pass; the checker's exit codes and strictness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.game import scenarios
from tests.support.cli import ROOT, arena

OURS = ROOT / "tests" / "scenarios"
PUBLIC = OURS / "public"
ALL = sorted(OURS.rglob("*.json"))  # ours and, in public/, the public cases


def test_the_public_scenarios_are_present() -> None:
    assert len(list(PUBLIC.glob("*.json"))) >= 25, f"expected the public scenarios in {PUBLIC}"
    assert len(list(OURS.glob("*.json"))) >= 40


@pytest.mark.parametrize("path", ALL, ids=lambda path: path.stem)
def test_scenario_passes(path: Path) -> None:
    outcome = scenarios.run(scenarios.load(path))
    assert outcome.passed, outcome.differences


def test_cli_check_passes_every_scenario_folder() -> None:
    result = arena("rules", "check", str(OURS))  # folders are read recursively
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert sum(line.startswith("PASS ") for line in lines) == len(ALL)
    assert lines[-1] == f"{len(ALL)} passed, 0 failed"


BASE = {
    "name": "base",
    "rules": {"preset": "classic", "options": {}},
    "dealer": 2,
    "hands": [["7C", "9D"], ["8S", "6H"], ["QS", "6C"]],
    "actions": [{"seat": 0, "do": "play", "cards": ["9D"], "rank": "7"}],
    "expect": {"to_act": 1, "pile": 1},
}


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def with_(**changes) -> dict:
    data = json.loads(json.dumps(BASE))
    data.update(changes)
    return data


def test_a_failing_expectation_exits_1_and_names_the_key(tmp_path: Path) -> None:
    write(tmp_path, "a", with_(name="wrong", expect={"to_act": 2, "pile": 1}))
    result = arena("rules", "check", str(tmp_path))
    assert result.returncode == 1
    assert "FAIL wrong" in result.stdout
    assert "  to_act: expected 2, actual 1" in result.stdout
    assert "pile" not in result.stdout.split("FAIL wrong", 1)[1].split("\n")[1]


MALFORMED = {
    "unknown top key": with_(comment="x"),
    "unknown expect key": with_(expect={"to_act": 1, "too_act": 1}),
    "unknown option": with_(rules={"preset": "classic", "options": {"colour": "red"}}),
    "bad option value": with_(rules={"preset": "classic", "options": {"deck": "40"}}),
    "unknown preset": with_(rules={"preset": "uno", "options": {}}),
    "unknown rules key": with_(rules={"preset": "classic", "options": {}, "x": 1}),
    "card not in the deck": with_(hands=[["2C", "9D"], ["8S", "6H"], ["QS", "6C"]]),
    "card dealt twice": with_(hands=[["9D", "9D"], ["8S", "6H"], ["QS", "6C"]]),
    "card in hand and stock": with_(stock=["9D"]),
    "no such card id": with_(hands=[["ZZ", "9D"], ["8S", "6H"], ["QS", "6C"]]),
    "out of turn": with_(actions=[{"seat": 1, "do": "play", "cards": ["8S"], "rank": "7"}]),
    "closed call out of turn": with_(actions=[BASE["actions"][0], {"seat": 2, "do": "challenge"}]),
    "unknown action": with_(actions=[{"seat": 0, "do": "fold"}]),
    "unknown action key": with_(actions=[{"seat": 0, "do": "pass", "why": "x"}]),
    "played card not in the deck": with_(
        actions=[{"seat": 0, "do": "play", "cards": ["2C"], "rank": "7"}]
    ),
    "action after the deal is over": with_(
        hands=[["9D"], ["8S", "6H"]],
        dealer=1,
        actions=[
            {"seat": 0, "do": "play", "cards": ["9D"], "rank": "7"},
            {"seat": 1, "do": "play", "cards": ["8S"], "rank": "7"},
            {"seat": 1, "do": "play", "cards": ["6H"], "rank": "7"},
        ],
    ),
    "author calls its own group in open mode": with_(
        rules={"preset": "classic", "options": {"calls": "open"}},
        actions=[BASE["actions"][0], {"seat": 0, "do": "challenge"}],
    ),
    "not json": "{",
}


@pytest.mark.parametrize("case", MALFORMED, ids=str)
def test_malformed_files_exit_2(tmp_path: Path, case: str) -> None:
    data = MALFORMED[case]
    path = tmp_path / "case.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(scenarios.ScenarioError):
        scenarios.run(scenarios.load(path))
    result = arena("rules", "check", str(path))
    assert result.returncode == 2, result.stdout
    assert result.stdout.startswith(f"ERROR {path}")


def test_one_malformed_file_among_passing_ones_exits_2(tmp_path: Path) -> None:
    write(tmp_path, "good", BASE)
    write(tmp_path, "bad", with_(oops=1))
    result = arena("rules", "check", str(tmp_path))
    assert result.returncode == 2
    assert "PASS base" in result.stdout and "ERROR" in result.stdout


def test_no_files_is_an_error(tmp_path: Path) -> None:
    assert arena("rules", "check", str(tmp_path)).returncode == 2
