"""Submitting bots from the command line, and uploaded bots playing tournaments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.submission import qualify
from arena.policies import RandomLegal
from arena.sdk import Bot
from arena.sdk.bot import MatchInfo
from arena.store.db import Database
from arena.store.models import Artifact, BotKind, BotVersion
from sample_bots import NAMES
from tests.sandboxing import PLAIN_BOT
from tests.support.cli import arena, environment
from tests.support.engine import served

pytestmark = pytest.mark.processes

BOTS = Path(__file__).parent / "sandbox_bots"


def test_submit_qualify_and_play_an_uploaded_bot(settings: Settings, tmp_path: Path) -> None:
    env = environment(settings)
    folder = tmp_path / "truthful"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    accepted = arena("bot", "submit", "mine", "--path", str(folder), env=env)
    assert accepted.returncode == 0, accepted.stderr
    assert re.search(
        r"mine v1 accepted: qualified: finished a match against (random|honest|counter|bluffer)",
        accepted.stdout,
    ), accepted.stdout
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


class Witness(Bot):
    """Notes what a qualification shows it: its first hand and whom it meets."""

    name = "witness"
    seen: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    def on_match_start(self, match: MatchInfo) -> None:
        self.players = tuple(match.players)
        self.hand: tuple[str, ...] | None = None

    def act(self, observation):  # noqa: ANN001, ANN201
        if self.hand is None:
            self.hand = tuple(sorted(observation.hand))
            Witness.seen.append((self.hand, self.players))
        return RandomLegal(0).act(observation)


def test_a_bot_cannot_tell_its_qualification_by_its_deal_or_its_opponent(tmp_path: Path) -> None:
    """Qualification was always dealt from the seed "qualify" against random(seed=0)."""
    Witness.seen = []
    db = Database(f"sqlite:///{tmp_path / 'q.db'}")
    with served(Witness) as endpoint:
        for _ in range(12):  # all 12 against one sample: 4 in 4**12 (2e-7)
            accepted, reason = qualify(BotKind.ENDPOINT, endpoint, "witness", db, tmp_path)
            assert accepted, reason
    hands = {hand for hand, _ in Witness.seen}
    opponents = {players[1] for _, players in Witness.seen}
    assert len(Witness.seen) == 12 and len(hands) == 12, "every qualification deals anew"
    assert opponents <= set(NAMES) and len(opponents) >= 2, opponents
