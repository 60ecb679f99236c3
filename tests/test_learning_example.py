"""The trained-bot example end to end, in a short version: train for seconds, play a
series with the saved policy served as a bot, and upload it to qualify in the sandbox."""

from __future__ import annotations

import json
import shutil
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


def test_a_policy_trained_for_seconds_is_served_played_and_qualifies(
    settings: Settings, tmp_path: Path
) -> None:
    bot = tmp_path / "trained"
    bot.mkdir()
    shutil.copy(EXAMPLE / "trained_bot" / "bot.py", bot / "bot.py")
    trained = subprocess.run(
        [sys.executable, str(EXAMPLE / "train_policy.py"), "--minutes", "0.05",
         "--batch", "2", "--report", "1", "--out", str(bot / "policy.npz")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr[-2000:]
    assert "mean place of the last" in trained.stdout and "saved" in trained.stdout
    weights = linear.load(bot / "policy.npz")
    assert weights.shape[0] == encoding.ACTIONS and np.abs(weights).sum() > 0, "it learned"

    played = arena("play", str(bot / "bot.py"), "sample:random", "--games", "4", "--json")
    assert played.returncode == 0, played.stderr[-2000:]
    [mine] = [row for row in json.loads(played.stdout)["bots"] if row["bot"] == "bot"]
    assert (mine["games"], mine["forfeits"], mine["illegal"]) == (4, 0, 0)

    env = environment(settings)
    submitted = arena("bot", "submit", "trained", "--path", str(bot), env=env)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr[-2000:]
    assert "trained v1 accepted: qualified" in submitted.stdout, submitted.stdout
