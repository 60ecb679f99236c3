"""``arena play`` and ``arena replay`` with real bot processes over gRPC."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from arena.bench import pipeline
from arena.platform.launcher import BotProcesses
from tests.support.cli import ROOT, arena

pytestmark = pytest.mark.processes


def test_the_four_sample_bots_play_a_series(tmp_path: Path) -> None:
    result = arena(
        "play",
        "sample:counter",
        "sample:random",
        "sample:honest",
        "sample:bluffer",
        "--games",
        "8",
        "--seed",
        "2",
        "--json",
        "--logs",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    bots = {row["bot"]: row for row in report["bots"]}
    assert set(bots) == {"counter", "random", "honest", "bluffer"}
    for row in bots.values():
        assert row["games"] == 8 and sum(row["places"].values()) == 8
        assert row["forfeits"] == 0 and row["timeouts"] == 0 and row["illegal"] == 0
        assert 0 < row["latency_ms_mean"] <= row["latency_ms_p99"] < 1000
        assert row["sigma"] < 25 / 3, "ratings moved from the prior"
    for place in ("1", "2", "3", "4"):
        assert sum(row["places"][place] for row in bots.values()) == 8
    assert bots["counter"]["mean_place"] < bots["random"]["mean_place"]
    logs = sorted(tmp_path.glob("game-*.json"))
    assert len(logs) == 8
    replayed = arena("replay", str(logs[3]))
    assert replayed.returncode == 0 and replayed.stdout.startswith("reproduced: 1 deals")


def test_the_table_shows_every_column() -> None:
    result = arena("play", "sample:honest", "sample:random", "--games", "2")
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "mean place" in line)
    for column in (
        "bot",
        "games",
        "#1",
        "#2",
        "forfeits",
        "timeouts",
        "illegal",
        "mean ms",
        "p99 ms",
        "mu",
        "sigma",
    ):
        assert column in header


def test_a_tampered_log_is_not_reproduced(tmp_path: Path) -> None:
    assert (
        arena(
            "play", "sample:honest", "sample:random", "--games", "1", "--logs", str(tmp_path)
        ).returncode
        == 0
    )
    path = tmp_path / "game-00000.json"
    log = json.loads(path.read_text())
    log["deals"][0]["steps"][0]["events"][0]["seat"] = 9
    path.write_text(json.dumps(log))
    result = arena("replay", str(path))
    assert result.returncode == 1
    assert "MISMATCH deal 0 step 0: events differ" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sample:nope", "sample:random"], "no sample bot 'nope'"),
        (["sample:random"], "name at least two bots"),
        (["nowhere", "sample:random"], "is not host:port, a Python bot file, a bot's folder, or"),
        (["sample:random", "sample:honest", "--option", "deck=40"], "option deck"),
    ],
)
def test_bad_bots_and_options_get_a_clear_error(args: list[str], message: str) -> None:
    result = arena("play", *args)
    assert result.returncode == 2
    assert message in result.stderr


def readme_bot() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- bot -->\n```python\n(.*?)```", text, re.S)
    assert match, "the README shows a complete bot"
    return match.group(1)


def test_the_readme_bot_is_complete_and_short(tmp_path: Path) -> None:
    code = readme_bot()
    assert len(code.strip().splitlines()) < 25
    path = tmp_path / "truthful.py"
    path.write_text(code)
    result = arena("play", str(path), "sample:random", "--games", "4", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["bot"]: row for row in json.loads(result.stdout)["bots"]}
    assert rows["truthful"]["games"] == 4 and rows["truthful"]["forfeits"] == 0
    assert rows["truthful"]["illegal"] == 0


def test_a_bot_file_that_defines_no_bot_fails_to_start(tmp_path: Path) -> None:
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    result = arena("play", str(path), "sample:random", "--games", "1")
    assert result.returncode == 1
    assert "bot empty exited" in result.stderr


def test_a_bot_with_a_syntax_error_shows_its_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("from arena.sdk import Bot\n\nclass Broken(Bot)\n    pass\n")
    result = arena("play", str(path), "sample:random", "--games", "1")
    assert result.returncode == 1
    assert "bot broken exited with code 1" in result.stderr
    assert "SyntaxError" in result.stderr and "class Broken(Bot)" in result.stderr


def test_an_endpoint_nobody_listens_on_fails_the_command_with_the_reason() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = arena("play", f"127.0.0.1:{port}", "sample:random", "--games", "2")
    assert result.returncode == 1
    assert f"127.0.0.1:{port} forfeited 2 game(s): unreachable: cannot connect" in result.stderr
    assert "could not be reached or started in any game" in result.stderr


def test_a_bot_that_crashes_every_game_fails_the_command_with_its_whole_traceback_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "crasher.py"
    path.write_text(
        "from arena.sdk import Bot\n\n"
        "def deep():\n"
        "    raise RuntimeError('my own bug')\n\n"
        "class Crasher(Bot):\n"
        "    def act(self, obs):\n"
        "        return deep()\n"
    )
    result = arena("play", str(path), "sample:random", "--games", "2")
    assert result.returncode == 1, "a bot that forfeited every game fails the command"
    assert "crasher forfeited 2 game(s): crashed:" in result.stderr
    assert "error: crasher forfeited every game" in result.stderr
    assert result.stderr.count("Traceback (most recent call last):") == 1, "once"
    frames = result.stderr.split("Traceback (most recent call last):")[1]
    assert "in act" in frames and "in deep" in frames, "every frame, not only the last"
    assert frames.rstrip().endswith("RuntimeError: my own bug") or (
        "RuntimeError: my own bug\nerror:" in frames
    )


def test_a_bot_that_forfeits_some_games_exits_3(tmp_path: Path) -> None:
    path = tmp_path / "first_seat.py"
    path.write_text(
        "from arena.sdk import Bot\n"
        "from arena.policies import RandomLegal\n\n"
        "class FirstSeat(Bot):\n"
        "    def on_match_start(self, match):\n"
        "        self.seat = match.seat\n"
        "        self.policy = RandomLegal(1)\n\n"
        "    def act(self, obs):\n"
        "        if self.seat == 0:\n"
        "            raise RuntimeError('I crash at seat 0')\n"
        "        return self.policy.act(obs)\n"
    )
    result = arena("play", str(path), "sample:random", "--games", "2", "--json")
    assert result.returncode == 3, result.stderr
    row = next(r for r in json.loads(result.stdout)["bots"] if r["bot"] == "first_seat")
    assert row["forfeits"] == 1 and row["games"] == 2


@pytest.fixture(scope="module")
def node_bot_installed() -> Path:
    """The Node bot's packages, installed from npm with its lock file (once)."""
    return pipeline.node_bot_installed()


def test_a_node_bot_plays_a_full_match_against_python_bots(node_bot_installed: Path) -> None:
    with BotProcesses() as processes:
        endpoint = processes.start(
            ["node", str(node_bot_installed / "bot.js"), "--port", "0"], "node"
        )
        result = arena(
            "play",
            endpoint,
            "sample:honest",
            "sample:random",
            "--games",
            "3",
            "--option",
            "deals=2",
            "--json",
        )
    assert result.returncode == 0, result.stderr
    rows = {row["bot"]: row for row in json.loads(result.stdout)["bots"]}
    node = rows[endpoint]
    assert node["games"] == 3 and node["forfeits"] == 0 and node["illegal"] == 0
    assert node["latency_ms_mean"] > 0
