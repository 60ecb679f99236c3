"""The trained-bot example end to end, in a short version: train on a few matches against the
field, play a series with the saved policy served as a bot, and submit it with an
owner's token to qualify in the sandbox; the committed example is never written."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.platform.settings import Settings
from arena.rl import encoding, linear
from tests.support.cli import ROOT, arena, environment

pytestmark = pytest.mark.processes

EXAMPLE = ROOT / "examples"
COMMITTED = EXAMPLE / "trained_bot" / "policy.npz"
#: a short training counted in matches, not CPU time: the same weights on any machine
BY_COUNT = ("--matches", "48", "--imitate-matches", "16", "--batch", "4",
            "--report-matches", "16", "--eval", "4")  # fmt: skip


def train(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE / "train_policy.py"), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_a_policy_trained_on_a_few_matches_is_served_played_and_qualifies(
    settings: Settings, tmp_path: Path
) -> None:
    committed = hashlib.sha256(COMMITTED.read_bytes()).hexdigest()
    bot = tmp_path / "trained"
    trained = train(*BY_COUNT, "--out", str(bot))
    assert trained.returncode == 0, trained.stderr[-2000:]
    lines = trained.stdout.splitlines()
    assert lines[0].split() == ["cpu", "min", "matches", "phase", "training", "evaluated",
                                "(mean", "place", "of", "4)"]  # fmt: skip
    assert any(" imitating " in line for line in lines) and any(
        " learning " in line for line in lines
    )
    assert "saved" in lines[-1] and "against counter, honest, truthful" in lines[-1]
    weights = linear.load(bot / "policy.npz")
    assert weights.shape[0] == encoding.ACTIONS and np.abs(weights).sum() > 0, "it learned"
    again = train(*BY_COUNT, "--out", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr[-2000:]
    same = (tmp_path / "again" / "policy.npz").read_bytes() == (bot / "policy.npz").read_bytes()
    assert same, "counted in matches, a run is the same on any machine"
    assert (bot / "bot.py").read_text() == (EXAMPLE / "trained_bot" / "bot.py").read_text()
    assert hashlib.sha256(COMMITTED.read_bytes()).hexdigest() == committed

    timed = train("--minutes", "0.001", "--batch", "2", "--eval", "2", "--out", str(tmp_path / "t"))
    assert timed.returncode == 0 and "saved" in timed.stdout.splitlines()[-1], timed.stderr
    assert np.abs(linear.load(tmp_path / "t" / "policy.npz")).sum() > 0, "the last weights kept"

    refused = train("--minutes", "0.01", "--out", str(EXAMPLE / "trained_bot"))
    assert refused.returncode != 0 and "the committed example" in refused.stderr
    assert hashlib.sha256(COMMITTED.read_bytes()).hexdigest() == committed

    played = arena("play", str(bot / "bot.py"), "sample:random", "--games", "4", "--json")
    assert played.returncode == 0, played.stderr[-2000:]
    [mine] = [row for row in json.loads(played.stdout)["bots"] if row["bot"] == "bot"]
    assert (mine["games"], mine["forfeits"], mine["illegal"]) == (4, 0, 0)

    env = environment(settings)
    assert arena("db", "upgrade", env=env).returncode == 0
    token = arena("owner", "add", "alice", env=env).stdout.split()[-1]
    submitted = arena("bot", "submit", "trained", "--path", str(bot), "--token", token, env=env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr[-2000:]
    assert "trained v1 accepted: qualified" in submitted.stdout, submitted.stdout
    owned = arena("owner", "list", env=env).stdout
    assert "trained" in owned, "the bot is alice's, not ownerless"


def test_the_committed_bot_beats_most_of_its_field() -> None:
    """The committed policy, served as a bot, against counter, honest and the README's
    truthful bot at tables of 4 (docs/learning.md gives the 1,000-game figure)."""
    played = arena("play", str(EXAMPLE / "trained_bot" / "bot.py"), "sample:counter",
                   "sample:honest", str(EXAMPLE / "truthful.py"), "--games", "100",
                   "--seed", "committed", "--json")  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    rows = {row["bot"]: row for row in json.loads(played.stdout)["bots"]}
    assert rows["bot"]["forfeits"] == 0 and rows["bot"]["illegal"] == 0
    assert rows["bot"]["mean_place"] < rows["counter"]["mean_place"]
    assert rows["bot"]["mean_place"] < rows["honest"]["mean_place"]
