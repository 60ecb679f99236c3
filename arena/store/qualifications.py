"""Qualification matches, kept as matches: the one heads-up match a submitted version
plays against a sample bot is stored like any other (seats, results, its log, what an
uploaded bot printed, shown to its owner only) in a tournament of the platform's own
that nothing schedules or rates, and the version names it
(``BotVersion.qualification_match_id``): pages and the API link the match that accepted
or rejected it."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.states import MatchStatus, TournamentStatus
from arena.base.words import said
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.referee.log import MatchLog
from arena.store import bots as bot_store
from arena.store import logs
from arena.store.leases import SeatPlan
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
)
from arena.store.results import seat_results
from arena.tournament import formats, seeds

#: the tournament's name: with a '.', like an A/B test's, and refused to others
#: (arena.store.tournaments.RESERVED)
NAME = "platform.qualification"
#: the table of a bot in no competition
FALLBACK_RULES = Ruleset.parse("classic")
FALLBACK_SETTINGS = RefereeSettings()
FALLBACK_SIZE = 4
#: the samples that fill a short field
NAMES = ("random", "honest", "counter", "bluffer")


@dataclass(frozen=True)
class Table:
    """A qualification's table, drawn as a ranked table of the version's competition is:
    its rules, referee settings and size, opponents from its field (samples where the
    field is short), the version at a seat drawn at random, and a match id of the
    ranked matches' form (a reserved row). Nothing tells the bot it is not ranked play."""

    match_id: int
    rules: Ruleset
    settings: RefereeSettings
    seats: list[SeatPlan]
    candidate: int
    seed: str


def draw_table(session: Session, version: BotVersion, rng: random.Random) -> Table:
    """The qualification table of a pending ``version`` (its match reserved)."""
    ladder = _competition_ladder(session, version)
    if ladder is None:
        rules, settings, size = FALLBACK_RULES, FALLBACK_SETTINGS, FALLBACK_SIZE
        field: list[SeatPlan] = []
    else:
        rules = Ruleset.from_dict(ladder.rules)
        settings = RefereeSettings(**ladder.settings)
        size = ladder.table_size
        field = _field(session, ladder, version.bot_id)
    opponents = rng.sample(field, min(len(field), size - 1))
    while len(opponents) < size - 1:
        sample = bot_store.sample_version(session, rng.choice(NAMES))
        opponents.append(_plan(sample))
    candidate = rng.randrange(size)
    seats = [*opponents[:candidate], _plan(version), *opponents[candidate:]]
    tournament = _tournament(session, rules, settings)
    match = TournamentMatch(
        tournament_id=tournament.id,
        index=tournament.games,
        seed="",
        status=MatchStatus.RUNNING,
        attempts=1,
        started_at=now(),
    )
    session.add(match)
    tournament.games += 1
    session.flush()
    seed = seeds.match_seed(seeds.new_key(), seeds.game_place(match.id))
    return Table(match.id, rules, settings, seats, candidate, seed)


def record(
    session: Session, version: BotVersion, table: Table, log: MatchLog, output: str | None = None
) -> TournamentMatch:
    """Store ``version``'s qualification match in its reserved row (what the version
    printed, for its owner) and link it from the version."""
    match = session.get_one(TournamentMatch, table.match_id)
    tournament = session.get_one(Tournament, match.tournament_id)
    finished = now()
    match.seed = str(log.seed or "")
    match.status = MatchStatus.DONE
    match.finished_at = finished
    match.completion = tournament.completed + 1
    rows = seat_results(log, {table.candidate: output} if output else {})
    match.seats = [
        MatchSeat(seat=index, bot_version_id=plan.bot_version_id, **row)
        for index, (plan, row) in enumerate(zip(table.seats, rows, strict=True))
    ]
    session.flush()
    blob = logs.encode(log)
    session.add(StoredLog(match_id=match.id, data=blob, size=len(blob)))
    tournament.completed += 1
    tournament.finished_at = finished
    version.qualification_match_id = match.id
    return match


def release(session: Session, match_id: int) -> None:
    """Give up a reserved match the platform could not play (no sandbox)."""
    match = session.get(TournamentMatch, match_id)
    if match is not None and match.status is MatchStatus.RUNNING:
        match.status = MatchStatus.FAILED
        match.error = said("match.not_started")
        match.finished_at = now()


def _competition_ladder(session: Session, version: BotVersion) -> Tournament | None:
    """The ladder the version will play in: its bot's first open competition's."""
    from arena.store import competitions

    entered = competitions.entered(session, version.bot_id)
    return session.get(Tournament, entered[0].tournament_id) if entered else None


def _field(session: Session, ladder: Tournament, bot_id: int) -> list[SeatPlan]:
    """The ladder's live versions but the bot's own, as seats."""
    versions = session.scalars(
        select(BotVersion)
        .join(Entry, Entry.bot_version_id == BotVersion.id)
        .where(
            Entry.tournament_id == ladder.id,
            Entry.retired.is_(False),
            BotVersion.active.is_(True),
            BotVersion.bot_id != bot_id,
        )
        .order_by(BotVersion.id)
    )
    return [_plan(version) for version in versions]


def _plan(version: BotVersion) -> SeatPlan:
    """A version's seat, named as in ranked matches (``name vN``)."""
    return SeatPlan(version.id, version.label, version.kind, version.target)


def _tournament(session: Session, rules: Ruleset, settings: RefereeSettings) -> Tournament:
    found = session.scalar(select(Tournament).where(Tournament.name == NAME))
    if found is not None:
        return found
    moment: datetime = now()
    tournament = Tournament(
        name=NAME,
        rules=rules.to_dict(),
        table_size=FALLBACK_SIZE,
        games=0,
        format=formats.QUALIFICATION.name,
        secret_key=seeds.new_key(),  # unused: each match is dealt from a key of its own
        reveal_delay=0,
        settings=asdict(settings),
        status=TournamentStatus.DONE,
        created_at=moment,
        started_at=moment,
    )
    session.add(tournament)
    session.flush()
    return tournament
