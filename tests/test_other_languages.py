"""The guide for bots without the SDK (docs/other-languages.md) works as written: its
stub command generates flat modules, its complete bot plays, and MatchStart carries
every rule in effect."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arena import protocol
from arena.engine import Ruleset
from arena.platform import children
from tests.support.cli import ROOT, play_served_bot

pytestmark = pytest.mark.processes

GUIDE = ROOT / "docs" / "other-languages.md"


def _python_bot() -> str:
    text = GUIDE.read_text()
    section = text[text.index("## A complete bot in Python without the SDK") :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_guide_s_bot_plays_against_the_samples_from_flat_stubs(tmp_path: Path) -> None:
    (tmp_path / "player.proto").write_text((ROOT / "proto/arena/v1/player.proto").read_text())
    command = re.search(r"`(python -m grpc_tools\.protoc [^`]+)`", GUIDE.read_text()).group(1)
    generated = children.run(
        [sys.executable, *command.split()[1:]], cwd=tmp_path, capture_output=True, text=True
    )
    assert generated.returncode == 0, generated.stderr
    assert {p.name for p in tmp_path.glob("player_pb2*.py")} == {
        "player_pb2.py",
        "player_pb2_grpc.py",
    }
    (tmp_path / "mybot.py").write_text(_python_bot())
    opponents = ["sample:random", "sample:honest", "sample:counter"]
    mine = play_served_bot([sys.executable, "mybot.py", "0"], tmp_path, opponents, games=3)
    assert mine["games"] == 3 and mine["forfeits"] == 0 and mine["illegal"] == 0, mine


def test_match_start_carries_every_option_in_effect() -> None:
    ruleset = Ruleset.parse("pagat", {"deals": 3})
    message = protocol.ruleset_to_proto(ruleset)
    effective = json.loads(message.effective_options_json)
    assert effective == ruleset.effective()
    assert effective["deals"] == 3 and json.loads(message.options_json) == {"deals": 3}
    assert set(effective) == set(Ruleset.parse("classic").effective())
    assert protocol.ruleset_from_proto(message) == ruleset
