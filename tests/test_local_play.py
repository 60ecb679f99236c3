"""A tournament played through in one process (worker.local), as the screenshots'
demo is: every match it queues is played and recorded once, and its log replays."""

from __future__ import annotations

from sqlalchemy import select

from arena.base.states import MatchStatus, TournamentStatus
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from arena.services import tournaments as tournament_service
from arena.services.tournaments import TournamentRequest
from arena.store import logs, tournaments
from arena.store.models import StoredLog, TournamentMatch
from tests.support.store import SAMPLES, add_samples
from worker.local import play_through


def test_a_tournament_played_through_in_process_records_each_match_once(
    settings: Settings,
) -> None:
    platform = Platform(settings)
    add_samples(platform.db)
    request = TournamentRequest(
        name="demo", rules=Ruleset.parse("classic"), bots=SAMPLES, games=6, seed="s"
    )
    tournament_service.create(platform.db, request)
    played = play_through(platform.db, "demo")
    assert len(played) == len(set(played)) == 6
    with platform.db.read() as session:
        demo = tournaments.get(session, "demo")
        assert demo.status is TournamentStatus.DONE and demo.completed == 6
        statuses = session.scalars(
            select(TournamentMatch.status).where(TournamentMatch.tournament_id == demo.id)
        ).all()
        stored = session.scalars(select(StoredLog.data).where(StoredLog.match_id.in_(played))).all()
    assert statuses == [MatchStatus.DONE] * 6
    assert len(stored) == 6
    assert all(replay(MatchLog.from_dict(logs.decode(data))).ok for data in stored)
