"""A competition's log retention, tried as an operator's season would: old logs of the
low-ranked go (from the database and the cold store) while the best entries' logs, the
young ones, every result and every rating stay; a pass killed between marking and
deleting leaves nothing behind once the next one ran; a log moved to the cold store while
retention dropped it leaves no object behind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from arena.base.errors import Invalid
from arena.base.states import LogState
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.services import retention, tiering
from arena.services.retention import Retention
from arena.store import competitions, logs, tournaments
from arena.store.cold import ColdStore
from arena.store.db import Database
from arena.store.models import MatchSeat, RatingChange, StoredLog, TournamentMatch, now
from tests.support.api import OPERATOR_TOKEN, auth
from tests.support.cli import arena as arena_command
from tests.support.cli import environment
from tests.support.store import SAMPLES, add_samples, played_competition
from tests.support.workers import worker_in_this_process

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def _season(db: Database) -> tuple[list[int], list[int], int]:
    """A competition of the four samples at tables of two, played for a while; the
    matches the test ages (two thirds, the oldest), the young ones, and its best
    entry's version."""
    add_samples(db)
    tournament_id = played_competition(db, "main", SAMPLES, rounds=9, table_size=2)
    with db.read() as s:
        ids = list(
            s.scalars(
                select(StoredLog.match_id)
                .join(TournamentMatch, TournamentMatch.id == StoredLog.match_id)
                .where(TournamentMatch.tournament_id == tournament_id)
                .order_by(StoredLog.match_id)
            )
        )
        best = tournaments.leaderboard(s, competitions.get(s, "main").tournament)[0].version_id
    old, young = ids[: len(ids) * 2 // 3], ids[len(ids) * 2 // 3 :]
    _age(db, old, days=40)
    return old, young, best


def _seated(db: Database, ids: list[int], version: int) -> set[int]:
    with db.read() as s:
        return set(
            s.scalars(
                select(MatchSeat.match_id).where(
                    MatchSeat.match_id.in_(ids), MatchSeat.bot_version_id == version
                )
            )
        )


def _results(db: Database) -> tuple[list[tuple], list[tuple]]:
    """Every seat's result and every rating after a match: what must stay for ever."""
    with db.read() as s:
        seats = s.execute(
            select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.place, MatchSeat.forfeit)
            .order_by(MatchSeat.match_id, MatchSeat.seat)
        ).all()  # fmt: skip
        rated = s.execute(
            select(RatingChange.match_id, RatingChange.mu, RatingChange.sigma).order_by(
                RatingChange.id
            )
        ).all()
    return [tuple(row) for row in seats], [tuple(row) for row in rated]


def _dropped(db: Database) -> set[int]:
    with db.read() as s:
        dropped = TournamentMatch.log_state == LogState.DROPPED
        return set(s.scalars(select(TournamentMatch.id).where(dropped)))


def test_retention_drops_the_old_logs_of_the_low_ranked_and_keeps_everything_else(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    client, token, arena = app_and_token
    old, young, best = _season(arena.db)
    protected = _seated(arena.db, old, best)
    assert protected and set(old) - protected, "some old matches had the best entry, some not"
    tiering.tier(arena.db, hot_days=14, most=len(old) // 2)  # half the old logs are cold
    assert arena.db.cold is not None
    cold_before = set(arena.db.cold.keys())
    assert cold_before, "some logs went cold"
    results = _results(arena.db)
    kept_logs = {m: client.get(f"/api/v1/matches/{m}/log").json() for m in young}

    nothing = retention.drop_old_logs(arena.db)
    assert nothing == 0, "no competition keeps its logs for less than for ever yet"
    refused = client.post(
        "/api/v1/competitions/main/logs", json={"days": 0.5}, headers=auth(OPERATOR_TOKEN)
    )
    assert refused.status_code == 422, "a log is kept a day at least"
    assert client.post("/api/v1/competitions/main/logs", json={"days": 30}).status_code == 401
    set_ = client.post(
        "/api/v1/competitions/main/logs", json={"days": 30, "top": 1}, headers=auth(OPERATOR_TOKEN)
    )
    assert set_.status_code == 200 and (set_.json()["log_days"], set_.json()["log_top"]) == (30, 1)
    shown = client.get("/competitions/main").text
    assert "log is dropped 30 days after it, but every log of the best 1 entries is kept" in shown

    dropped = retention.drop_old_logs(arena.db)
    gone = set(old) - protected
    assert dropped == len(gone) and _dropped(arena.db) == gone
    assert _results(arena.db) == results, "results and ratings stay for ever"
    assert set(arena.db.cold.keys()) == {k for k in cold_before if _match_of(k) not in gone}
    with arena.db.read() as s:
        rows = s.scalars(select(StoredLog.match_id).where(StoredLog.match_id.in_(gone))).all()
    assert rows == [], "nothing left of them but their match's mark"
    some = min(gone)
    answer = client.get(f"/api/v1/matches/{some}/log")
    assert answer.status_code == 410 and answer.json()["code"] == "logs.dropped"
    assert client.get(f"/api/v1/matches/{some}/replay").status_code == 410
    assert client.get(f"/api/v1/matches/{some}").json()["seats"][0]["place"] is not None
    page = client.get(f"/matches/{some}")
    assert page.status_code == 200 and "log was dropped by its competition" in page.text
    for match_id in protected | set(young):  # the best's logs and the young ones stay
        assert client.get(f"/api/v1/matches/{match_id}/log").status_code == 200
    assert {m: client.get(f"/api/v1/matches/{m}/log").json() for m in young} == kept_logs
    assert retention.drop_old_logs(arena.db) == 0, "nothing is dropped twice"


def _match_of(key: str) -> int:
    return int(key.rsplit("/", 1)[1].split(".")[0])


def test_the_operator_sets_retention_and_drops_logs_from_the_command_line(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    _, _, arena = app_and_token
    old, _, best = _season(arena.db)
    env = environment(arena.settings)
    refused = arena_command("competition", "logs", "main", "--days", "0", env=env)
    assert refused.returncode != 0 and "--days" in refused.stderr
    set_ = arena_command("competition", "logs", "main", "--days", "30", "--top", "1", env=env)
    assert set_.returncode == 0, set_.stderr
    assert "dropped 30 days after it, but every log of its best 1 entries kept" in set_.stdout
    dropped = arena_command("logs", "drop", env=env)
    gone = set(old) - _seated(arena.db, old, best)
    assert dropped.returncode == 0 and f"{len(gone)} match logs dropped" in dropped.stdout
    assert _dropped(arena.db) == gone
    every = arena_command("competition", "logs", "main", env=env)
    assert every.returncode == 0 and "every match's log kept" in every.stdout
    with arena.db.read() as s:
        assert competitions.get(s, "main").log_days is None


def test_each_sweep_goes_on_where_the_last_one_stopped(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    _, _, arena = app_and_token
    old, young, _ = _season(arena.db)
    arena.db.transaction(lambda s: competitions.set_log_retention(s, "main", 30, 0))
    assert retention.drop_old_logs(arena.db, most=3) == 3 and _dropped(arena.db) == set(old[:3])
    assert retention.drop_old_logs(arena.db, most=3) == 3 and _dropped(arena.db) == set(old[:6])
    assert retention.drop_old_logs(arena.db) == len(old) - 6
    with arena.db.read() as s:  # the next sweep starts after the last old log, not at 0
        assert competitions.get(s, "main").tournament.logs_swept_to == old[-1]
    assert retention.drop_old_logs(arena.db) == 0, "the young ones wait"
    _age(arena.db, young, days=40)
    assert retention.drop_old_logs(arena.db) == len(young)
    assert _dropped(arena.db) == set(old) | set(young)


def _age(db: Database, ids: list[int], days: float) -> None:
    moment = now() - timedelta(days=days)
    db.transaction(
        lambda s: s.execute(
            update(TournamentMatch).where(TournamentMatch.id.in_(ids)).values(finished_at=moment)
        )
    )


def test_retention_is_checked_where_it_is_asked() -> None:
    with pytest.raises(Invalid, match="at least one day"):
        Retention(days=0.5)
    with pytest.raises(Invalid, match="0 or more"):
        Retention(days=3, top=-1)
    assert Retention() == Retention(None, 0), "every log kept by default"


class _KilledAfterDelete(ColdStore):
    """A cold store whose dropping pass dies right after deleting its ``nth`` object
    (the process killed between the delete and the row's commit)."""

    def __init__(self, url: str, nth: int) -> None:
        super().__init__(url)
        self.deleted, self.nth = 0, nth

    def delete(self, key: str) -> None:
        super().delete(key)
        self.deleted += 1
        if self.deleted == self.nth:
            raise KeyboardInterrupt("killed after a delete, before the commit")


def test_a_pass_killed_mid_drop_leaves_nothing_once_the_next_one_ran(settings, tmp_path) -> None:
    folder = str(tmp_path / "cold")
    db = Database(settings.database_url, ColdStore(folder))
    old, _, _ = _season(db)
    assert tiering.tier(db, hot_days=14).moved == len(old), "every old log is cold"
    db.transaction(lambda s: competitions.set_log_retention(s, "main", 30, 0))
    db.dispose()
    dying = Database(settings.database_url, _KilledAfterDelete(folder, nth=3))
    with pytest.raises(KeyboardInterrupt):
        retention.drop_old_logs(dying, batch=5)
    assert _dropped(dying) == set(old[:5]), "the first batch was marked, then the pass died"
    assert len(ColdStore(folder).keys()) == len(old) - 3, "three objects were deleted"
    with dying.read() as s:  # a reader sees them dropped, whether or not deleted yet
        assert all(logs.is_dropped(s, m) for m in old[:5])
    dying.dispose()
    again = Database(settings.database_url, ColdStore(folder))
    assert retention.drop_old_logs(again, batch=5) == len(old) - 5
    assert _dropped(again) == set(old) and ColdStore(folder).keys() == []
    with again.read() as s:
        assert not s.scalars(select(StoredLog.match_id).where(StoredLog.data.is_(None))).all()
    again.dispose()


class _DroppedWhileMoving(ColdStore):
    """A cold store into which a log is moved while another process's retention pass
    drops it: after the mover read it and before it wrote it (``before``: the mover's
    object comes after the pass deleted), after it wrote it (``put``), or after it
    checked what was written (``size``), before the move's commit."""

    def __init__(self, url: str, database_url: str, when: str) -> None:
        super().__init__(url)
        self.database_url, self.when = database_url, when

    def put(self, key: str, data: bytes) -> None:
        if self.when == "before":
            self._drop()
        super().put(key, data)
        if self.when == "put":
            self._drop()

    def size(self, key: str) -> int | None:
        kept = super().size(key)
        if self.when == "size":
            self._drop()
        return kept

    def _drop(self) -> None:
        other = Database(self.database_url, ColdStore(self.url))
        try:
            retention.drop_old_logs(other)
        finally:
            other.dispose()


@pytest.mark.parametrize("when", ["before", "put", "size"])
def test_a_log_dropped_while_it_moved_leaves_no_object_behind(
    settings, tmp_path, when: str
) -> None:
    folder = str(tmp_path / "cold")
    db = Database(settings.database_url)
    old, _, _ = _season(db)
    db.transaction(lambda s: competitions.set_log_retention(s, "main", 30, 0))
    db.dispose()
    mover = Database(
        settings.database_url, _DroppedWhileMoving(folder, settings.database_url, when)
    )
    assert tiering.tier(mover, hot_days=14).moved == 0, "each was dropped as it moved"
    assert _dropped(mover) == set(old) and ColdStore(folder).keys() == []
    mover.dispose()


def test_the_workers_drop_old_logs_in_the_background_even_when_moving_them_fails(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reconciler's upkeep: the cold store away (moving logs fails) does not keep
    retention from dropping the logs it lets go."""
    from worker import runner

    arena = Platform(settings)
    old, _, _ = _season(arena.db)
    arena.db.transaction(lambda s: competitions.set_log_retention(s, "main", 30, 0))

    def away(*args: object, **kwargs: object) -> None:
        raise OSError("the cold store is away")

    monkeypatch.setattr(tiering, "tier", away)
    with worker_in_this_process(settings, monkeypatch):
        runner._age_a_little()
    assert _dropped(arena.db) == set(old)
