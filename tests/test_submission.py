"""Submitting bots from the command line, and uploaded bots playing tournaments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.platform import Platform
from arena.platform.settings import Settings
from arena.store.models import Artifact, BotVersion
from tests.sandboxing import PLAIN_BOT
from tests.support.cli import arena, environment

pytestmark = pytest.mark.processes

BOTS = Path(__file__).parent / "sandbox_bots"


def test_submit_qualify_and_play_an_uploaded_bot(settings: Settings, tmp_path: Path) -> None:
    env = environment(settings)
    folder = tmp_path / "truthful"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    accepted = arena("bot", "submit", "mine", "--path", str(folder), env=env)
    assert accepted.returncode == 0, accepted.stderr
    assert "mine v1 accepted: qualified: finished a match against random" in accepted.stdout
    with Platform(settings).db.read() as session:
        [target] = session.scalars(select(BotVersion.target)).all()
        [digest] = session.scalars(select(Artifact.digest)).all()
    assert target == f"sha256:{digest}", "the upload is stored in the database by digest"
    (folder / "bot.py").write_text("raise SystemExit('edited after submitting')")

    rejected = arena("bot", "submit", "mine", "--path", str(BOTS / "cpu_hog.py"), env=env)
    assert rejected.returncode == 1
    assert "mine v2 REJECTED: answered late" in rejected.stdout or (
        "mine v2 REJECTED: forfeited its qualification match" in rejected.stdout
    )
    listing = arena("bot", "list", env=env).stdout
    assert "rejected" in listing and "ready" in listing

    for bot in ("random", "honest"):
        assert arena("bot", "add", bot, "--sample", bot, env=env).returncode == 0
    assert (
        arena(
            "tournament",
            "create",
            "cup",
            "--bots",
            "mine,random,honest",
            "--table-size",
            "3",
            "--games",
            "6",
            env=env,
        ).returncode
        == 0
    )
    assert arena("tournament", "start", "cup", env=env).returncode == 0
    worker = arena("worker", "--burst", env=env)
    assert worker.returncode == 0, worker.stderr[-2000:]
    status = json.loads(arena("tournament", "status", "cup", "--json", env=env).stdout)
    assert status["matches"]["done"] == 6
    mine = next(row for row in status["leaderboard"] if row["bot"] == "mine")
    assert mine["games"] == 6 and mine["forfeits"] == 0 and mine["version"] == 1


def test_submit_refuses_bad_input(settings: Settings, tmp_path: Path) -> None:
    env = environment(settings)
    both = arena("bot", "submit", "x", "--path", "a.py", "--endpoint", "h:1", env=env)
    assert both.returncode == 2 and "exactly one of" in both.stderr
    missing = arena("bot", "submit", "x", "--path", str(tmp_path / "none.py"), env=env)
    assert missing.returncode == 2 and "no bot file or folder" in missing.stderr
    (tmp_path / "empty").mkdir()
    no_bot = arena("bot", "submit", "x", "--path", str(tmp_path / "empty"), env=env)
    assert no_bot.returncode == 2 and "has no bot.py" in no_bot.stderr


def test_uploads_are_refused_where_no_sandbox_can_be_built(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.platform import Platform, PlatformError, submission
    from arena.platform.sandbox.probe import Availability
    from arena.store import bots
    from arena.store.models import BotKind

    unavailable = Availability("unavailable", "no user namespaces", cgroups=False)
    monkeypatch.setattr(submission, "availability", lambda: unavailable)
    folder = tmp_path / "truthful"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    platform = Platform(settings)
    with pytest.raises(PlatformError, match="uploaded bots cannot run here: no user namespaces"):
        submission.submit(platform, "mine", BotKind.PATH, str(folder))
    with platform.db.read() as session:
        assert [bot.name for bot in bots.all_bots(session)] == [], "nothing was stored"
