"""Uploaded bots played by real workers: hostile ones leave the worker healthy, and a
thousand sandbox starts under two busy workers charge no bot for the platform."""

from __future__ import annotations

import secrets
import socket
import time
from pathlib import Path

import pytest
import redis
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.services.tournaments import TournamentState
from arena.store import bots, tournaments
from arena.store.models import MatchSeat
from tests.sandboxing import PLAIN_BOT, attack_bot, host_processes_with, listeners
from tests.support.forks import session_forks
from tests.support.workers import assert_recorded_exactly_once, wait_done

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]


def uploaded_tournament(arena: Platform, folders: dict[str, Path], games: int) -> None:
    arena.db.transaction(
        lambda s: [bots.add_bot(s, name, BotKind.PATH, str(path)) for name, path in folders.items()]
    )
    arena.db.transaction(
        lambda s: tournaments.create(
            s, "t", Ruleset.parse("classic"), list(folders), 4, games, seed="t"
        )
    )


def plain_bot(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    return folder


def forfeits(status: TournamentState) -> int:
    return sum(row.forfeits for row in status.leaderboard)


def test_hostile_uploaded_bots_leave_the_worker_healthy(settings: Settings, tmp_path: Path) -> None:
    client = redis.Redis.from_url(settings.redis_url or "")
    mark = f"1000.{secrets.randbelow(10**6)}"
    with listeners((socket.AF_INET, ("127.0.0.1", 0))) as found:
        port = found[0].address[1]
        targets = [
            (int(socket.AF_INET), "127.0.0.1", port),
            (int(socket.AF_INET), "127.0.0.1", 6379),
        ]
        folders = {
            "network": attack_bot(
                tmp_path,
                "network",
                TARGETS=targets,
                REDIS_DB=client.connection_pool.connection_kwargs["db"],
            ),
            "daemon": attack_bot(tmp_path, "daemon", MARK=mark),
            "bomb": attack_bot(tmp_path, "fork_bomb"),
            "plain": plain_bot(tmp_path, "plain"),
        }
        arena = Platform(settings)
        uploaded_tournament(arena, folders, 6)
        with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
            arena.start_tournament("t")
            status = wait_done(arena, timeout=300)
        assert found[0].accepted == 0
    assert status.matches.done == 6 and status.matches.failed == 0
    assert_recorded_exactly_once(arena, 6)
    assert client.get("arena-attack") is None
    assert not host_processes_with(mark), "the daemon outlived its matches"


@pytest.mark.slow
def test_a_thousand_sandbox_starts_under_two_workers_charge_no_bot(
    settings: Settings, tmp_path: Path
) -> None:
    folders = {f"plain{i}": plain_bot(tmp_path, f"plain{i}") for i in range(4)}
    arena = Platform(settings)
    uploaded_tournament(arena, folders, 250)  # 4 seats each: 1,000 sandbox starts
    began = time.monotonic()
    with Workers(settings, 2, settings.data_dir / "logs", forks=session_forks()):
        arena.start_tournament("t")
        status = wait_done(arena, timeout=900)
    elapsed = time.monotonic() - began
    assert status.matches.done == 250, status.matches
    assert status.matches.failed == 0
    with arena.db.read() as session:
        reasons = session.execute(
            select(MatchSeat.match_id, MatchSeat.forfeit_kind, MatchSeat.forfeit_reason).where(
                MatchSeat.forfeit
            )
        ).all()
    assert forfeits(status) == 0, reasons
    logs = "".join(p.read_text() for p in (settings.data_dir / "logs").glob("*.log"))
    assert "skipping fork() handlers" not in logs
    print(f"1000 sandbox starts: 250 matches in {elapsed:.1f} s ({250 / elapsed:.2f} matches/s)")


def test_a_sandbox_the_platform_cannot_build_gives_the_match_back_without_a_forfeit(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bubblewrap broken on the host (here: a program that exits at once) is the
    platform's failure: the match goes back to the queue, no bot is charged."""
    from arena.base.states import MatchStatus
    from arena.platform.sandbox import Sandbox, SandboxUnavailable, bwrap
    from arena.store.models import TournamentMatch
    from tests.support.workers import worker_in_this_process

    monkeypatch.setattr(bwrap, "executable", lambda: "/bin/false")
    with pytest.raises(SandboxUnavailable, match="before the bot's code ran"):
        Sandbox(plain_bot(tmp_path, "alone")).__enter__()

    folders = {f"plain{i}": plain_bot(tmp_path, f"plain{i}") for i in range(4)}
    arena = Platform(settings)
    uploaded_tournament(arena, folders, 1)
    [(match_id, _)] = arena.db.transaction(lambda s: tournaments.start(s, "t"))
    with worker_in_this_process(settings, monkeypatch) as jobs:
        jobs.play_matches([match_id])
        outcomes = jobs.drain()
    [failure] = outcomes.failures
    assert failure.startswith(f"match {match_id}: SandboxUnavailable"), failure
    with arena.db.read() as s:
        match = s.get(TournamentMatch, match_id)
        assert match.status is MatchStatus.QUEUED and match.attempts == 1
        assert "sandbox" in (match.error or "")
    status = arena.tournament_status("t")
    assert forfeits(status) == 0
