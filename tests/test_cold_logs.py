"""Logs in tiers, tried as an operator's season would: old match logs move to the cold
store and pages still show them, a mover killed between writing and committing loses no
log and leaves one copy, and the cold store is an S3 bucket as well as a folder (moto's
server on the loopback)."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.base.states import LogState
from arena.platform import children
from arena.platform.redis_server import free_port
from arena.services import tiering
from arena.store import logs, matches
from arena.store.cold import ColdStore
from arena.store.db import Database
from arena.store.models import StoredLog, TournamentMatch, now
from arena.store.schema import upgrade
from tests.support.api import played_tournament
from tests.support.cli import arena as arena_command
from tests.support.cli import environment
from tests.support.store import make_tournament, match_ids, play
from tests.support.waiting import wait_until

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def _age(db: Database, ids: list[int], days: float) -> None:
    """Those matches finished ``days`` ago."""
    moment = now() - timedelta(days=days)
    db.transaction(
        lambda s: s.execute(
            update(TournamentMatch).where(TournamentMatch.id.in_(ids)).values(finished_at=moment)
        )
    )


def _old_logs(db: Database, games: int) -> tuple[list[int], dict[int, bytes | None]]:
    """A tournament of ``games`` recorded matches that finished a month ago: their ids
    and stored logs."""
    upgrade(db)
    make_tournament(db, games=games)
    ids = match_ids(db)
    for match_id in ids:
        plan = matches.claim(db, match_id, "w")
        assert plan is not None and matches.record(db, plan, play(plan), 1.0)
    with db.read() as s:
        stored = {m: logs.blob(s, m) for m in ids}
    _age(db, ids, days=30)
    return ids, stored


def _hot(db: Database) -> dict[int, bool]:
    """Each match's log: in the database (True), or marked cold with no row left (False)."""
    with db.read() as s:
        rows = s.execute(
            select(TournamentMatch.id, TournamentMatch.log_state, StoredLog.data).outerjoin(
                StoredLog, StoredLog.match_id == TournamentMatch.id
            )
        ).all()
    where = {m: (state, data is not None) for m, state, data in rows}
    assert set(where.values()) <= {(None, True), (LogState.COLD, False)}, where
    return {m: hot for m, (_, hot) in where.items()}


def test_old_logs_move_to_the_cold_store_and_pages_still_show_them(app_and_token) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=6)
    ids = match_ids(arena.db)
    before = {m: client.get(f"/api/v1/matches/{m}/log").json() for m in ids}
    _age(arena.db, ids[:4], days=20)
    done = tiering.tier(arena.db, hot_days=14)
    assert (done.moved, done.bytes > 0) == (4, True)
    assert _hot(arena.db) == {m: m not in ids[:4] for m in ids}
    assert arena.db.cold is not None
    assert arena.db.cold.keys() == sorted(logs.cold_key(m) for m in ids[:4])
    for match_id in ids:  # read back the same, from wherever it is
        assert client.get(f"/api/v1/matches/{match_id}/log").json() == before[match_id]
        assert client.get(f"/matches/{match_id}").status_code == 200
    assert tiering.tier(arena.db, hot_days=14).moved == 0, "nothing moves twice"
    moved = arena_command("logs", "tier", "--days", "0", env=environment(arena.settings))
    assert moved.returncode == 0 and "2 logs" in moved.stdout, moved.stderr
    assert "0 old rating updates thinned" in moved.stdout, "six matches: every update kept"
    assert not any(_hot(arena.db).values())


class _KilledAfterWrite(ColdStore):
    """A cold store whose mover dies right after writing the ``nth`` object (the
    process killed between the write and the commit)."""

    def __init__(self, url: str, nth: int) -> None:
        super().__init__(url)
        self.written, self.nth = 0, nth

    def put(self, key: str, data: bytes) -> None:
        super().put(key, data)
        self.written += 1
        if self.written == self.nth:
            raise KeyboardInterrupt("killed after the write, before the commit")


def test_a_mover_killed_between_write_and_commit_loses_nothing_and_leaves_one_copy(
    database_url: str, tmp_path
) -> None:
    folder = str(tmp_path / "cold")
    dying = Database(database_url, _KilledAfterWrite(folder, nth=3))
    ids, stored = _old_logs(dying, games=5)
    with pytest.raises(KeyboardInterrupt):
        tiering.tier(dying, hot_days=14)
    assert _hot(dying) == {m: m not in ids[:2] for m in ids}, "the third is still in the database"
    assert len(ColdStore(folder).keys()) == 3, "its object was written: the move is half done"
    dying.dispose()
    again = Database(database_url, ColdStore(folder))
    assert tiering.tier(again, hot_days=14).moved == 3
    assert ColdStore(folder).keys() == sorted(logs.cold_key(m) for m in ids), "one copy each"
    with again.read() as s:
        assert {m: logs.blob(s, m) for m in ids} == stored
    again.dispose()


@pytest.fixture
def s3_url() -> Iterator[str]:
    """An S3-compatible server (moto's) on the loopback, for as long as the test."""
    port = free_port()
    server = children.spawn(
        ["moto_server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def listening() -> bool:
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening, "moto's S3 server listening")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


@pytest.mark.processes
def test_the_cold_store_is_an_s3_bucket_too(database_url: str, s3_url: str) -> None:
    options = {"key": "arena", "secret": "arena", "endpoint_url": s3_url}
    bucket = ColdStore("s3://arena-cold", options)
    bucket.fs.mkdir("arena-cold")
    cold = ColdStore("s3://arena-cold/season-1", options)
    db = Database(database_url, cold)
    ids, stored = _old_logs(db, games=2)
    assert tiering.tier(db, hot_days=14).moved == 2
    assert cold.keys() == sorted(logs.cold_key(m) for m in ids)
    with db.read() as s:
        assert {m: logs.blob(s, m) for m in ids} == stored
    db.dispose()
