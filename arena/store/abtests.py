"""A/B tests: a new version against a base on paired duplicate deals, until the SPRT
decides (arena.abtest; docs/abtest.md).

A test's matches belong to a tournament of the ABTEST format (named ``abtest.NAME``,
never rated, not listed with the tournaments). It keeps ``batch`` pairs in play: the
worker that records a pair's second match counts the pair in the same transaction
(once: the pair's row is keyed by its number), updates the LLR, and queues the next
pairs; the reconciler tops up too. Once a bound is crossed, or the cap reached, the
matches not yet started are withdrawn and the result is kept.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, func, select, update
from sqlalchemy.orm import Session

from arena.abtest import sprt
from arena.abtest.pairing import pair_table
from arena.base.jobs import new_job_id
from arena.base.states import (
    OPEN_STATUSES,
    AbTestStatus,
    BotKind,
    MatchStatus,
    TournamentStatus,
)
from arena.base.words import said
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.store import releases
from arena.store.db import Database, locked, rows_changed
from arena.store.models import (
    AbTest,
    AbTestPair,
    BotVersion,
    MatchSeat,
    RegisteredBot,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)
from arena.tournament import formats, seeds

DEFAULT_ELO0, DEFAULT_ELO1 = 0.0, 25.0
DEFAULT_MAX_MATCHES = 4000
#: pairs in play at once (two workers keep busy; a decided test wastes few matches)
DEFAULT_BATCH = 8
DEFAULT_TABLE_SIZE = 4
#: the tournament holding a test's matches
PREFIX = "abtest."


def tournament_name(name: str) -> str:
    return f"{PREFIX}{name}"


def default_field(session: Session, tested: set[int]) -> list[BotVersion]:
    """The operator's sample bots, without the tested ones."""
    versions = session.scalars(
        select(BotVersion)
        .join(RegisteredBot)
        .where(
            BotVersion.kind == BotKind.SAMPLE,
            BotVersion.active.is_(True),
            RegisteredBot.owner_id.is_(None),
        )
        .order_by(RegisteredBot.name)
    ).all()
    tested_bots = {
        v.bot_id for v in session.scalars(select(BotVersion).where(BotVersion.id.in_(tested)))
    }
    return [v for v in versions if v.bot_id not in tested_bots]


def holder_taken(session: Session, name: str) -> bool:
    """Whether the tournament a test of this name would hold its matches in exists."""
    held = select(Tournament.id).where(Tournament.name == tournament_name(name))
    return session.scalar(held) is not None


@dataclass(frozen=True)
class NewAbTest:
    """A checked test (arena.services.abtests checks it), as the store keeps it."""

    name: str
    ruleset: Ruleset
    table_size: int
    new: BotVersion
    base: BotVersion
    opponents: list[BotVersion]
    bounds: sprt.Bounds
    max_matches: int
    batch: int
    settings: RefereeSettings
    owner_id: int | None


def add(session: Session, test: NewAbTest) -> AbTest:
    """Keep a new test and the tournament holding its matches (not started)."""
    tournament = Tournament(
        name=tournament_name(test.name),
        rules=test.ruleset.to_dict(),
        table_size=test.table_size,
        games=test.max_matches,
        format=formats.ABTEST.name,
        secret_key=seeds.new_key(),
        duplicate=True,
        settings=asdict(test.settings),
        same_owner_tables=True,  # the two tested versions share every table's deal
        owner_id=test.owner_id,
    )
    session.add(tournament)
    session.flush()
    seated = [test.new, test.base, *test.opponents]
    session.add_all(tournament.new_entry(v.id) for v in seated)
    kept = AbTest(
        name=test.name,
        tournament_id=tournament.id,
        new_version_id=test.new.id,
        base_version_id=test.base.id,
        field=[v.id for v in test.opponents],
        elo0=test.bounds.elo0,
        elo1=test.bounds.elo1,
        alpha=test.bounds.alpha,
        beta=test.bounds.beta,
        max_matches=test.max_matches,
        batch=test.batch,
        counts=[0] * sprt.classes(test.table_size),
        owner_id=test.owner_id,
    )
    session.add(kept)
    session.flush()
    return kept


def find(session: Session, name: str) -> AbTest | None:
    return session.scalar(select(AbTest).where(AbTest.name == name))


def start(session: Session, test: AbTest) -> list[tuple[int, str]]:
    """Start the test: its first pairs queued; (match, job) to enqueue after commit."""
    test.status = AbTestStatus.RUNNING
    tournament = test.tournament
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = tournament.started_at or now()
    return refill_in(session, tournament.id)


def stop(session: Session, test: AbTest) -> int:
    """Stop a test before it decides: the matches not started are withdrawn (the
    running ones are still recorded, not counted: the result is kept as it stood);
    how many were withdrawn."""
    return _finish(session.connection(), test.id, test.tournament_id, AbTestStatus.STOPPED)


def refill(db: Database, tournament_id: int) -> list[tuple[int, str]]:
    return db.transaction(lambda session: refill_in(session, tournament_id))


def refill_in(session: Session, tournament_id: int) -> list[tuple[int, str]]:
    """Queue pairs until ``batch`` are in play, within the cap (one job per pair)."""
    tournament = locked(session, Tournament, tournament_id)
    test = session.scalar(select(AbTest).where(AbTest.tournament_id == tournament_id))
    if test is None or test.status is not AbTestStatus.RUNNING:
        return []
    in_play = session.scalars(
        select(func.count(func.distinct(TournamentMatch.deal_group))).where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.status.in_(OPEN_STATUSES),
        )
    ).one()
    scheduled = session.scalars(
        select(func.count())
        .select_from(TournamentMatch)
        .where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.status.not_in([MatchStatus.STALE, MatchStatus.FAILED]),
        )
    ).one()
    last = session.scalar(
        select(func.max(TournamentMatch.deal_group)).where(
            TournamentMatch.tournament_id == tournament_id
        )
    )
    pair = 0 if last is None else last + 1
    jobs: list[tuple[int, str]] = []
    while in_play < test.batch and scheduled + 2 <= test.max_matches:
        jobs.extend(_queue_pair(session, tournament, test, pair))
        pair, in_play, scheduled = pair + 1, in_play + 1, scheduled + 2
    if not in_play:  # the cap leaves no pair to play (failed matches spent it)
        _finish(session.connection(), test.id, tournament_id, AbTestStatus.CAPPED)
    return jobs


def _queue_pair(
    session: Session, tournament: Tournament, test: AbTest, pair: int
) -> list[tuple[int, str]]:
    """The pair's two matches (one deal, one table; the tested seat new, then base)."""
    table = pair_table(pair, test.field, tournament.table_size)
    seed = seeds.match_seed(tournament.secret_key, seeds.abtest_place(pair))
    moment = now()
    made = []
    for offset, version in enumerate((test.new_version_id, test.base_version_id)):
        match = TournamentMatch(
            tournament_id=tournament.id,
            index=2 * pair + offset,
            seed=seed,
            deal_group=pair,
            status=MatchStatus.QUEUED,
            queued_at=moment,
        )
        match.seats = [
            MatchSeat(seat=seat, bot_version_id=v)
            for seat, v in enumerate(table.with_version(version))
        ]
        session.add(match)
        made.append(match)
    session.flush()
    # an owner's test is the owner's own work: it waits behind ranked play
    job_id = new_job_id(made[0].id, private=test.owner_id is not None)
    for match in made:
        match.job_id = job_id
    return [(match.id, job_id) for match in made]


def count_closed_pairs(connection: Connection, tournament_id: int, groups: list[int]) -> None:
    """In the recording transaction: count each of these pairs whose two matches are
    over, once, update the LLR, and end the test if it decided or reached its cap."""
    test = connection.execute(
        select(table_of(AbTest)).where(AbTest.tournament_id == tournament_id)
    ).first()
    if test is None or test.status != AbTestStatus.RUNNING:
        return
    counts, value, pairs = list(test.counts), test.llr, test.pairs
    bounds = sprt.Bounds(test.elo0, test.elo1, test.alpha, test.beta)
    size = connection.execute(
        select(Tournament.table_size).where(Tournament.id == tournament_id)
    ).scalar_one()
    added = []
    for group in sorted(set(groups)):
        places = _pair_places(connection, tournament_id, group, test)
        if places is None:
            continue
        new_place, base_place = places
        cls = sprt.pair_class(new_place, base_place, size)
        counts[cls] += 1
        pairs += 1
        value = sprt.llr(counts, bounds)
        added.append(
            {
                "abtest_id": test.id,
                "pair": group,
                "counted": pairs,
                "pair_class": cls,
                "new_place": new_place,
                "base_place": base_place,
                "llr": value,
            }
        )
    if not added:
        return
    connection.execute(table_of(AbTestPair).insert(), added)
    connection.execute(
        update(table_of(AbTest))
        .where(table_of(AbTest).c.id == test.id)
        .values(counts=counts, llr=value, pairs=pairs)
    )
    outcome = sprt.verdict(value, bounds)
    if outcome is not None:
        _finish(connection, test.id, tournament_id, AbTestStatus(outcome))
        if outcome == AbTestStatus.ACCEPTED and test.promote:
            _promote(connection, test.new_version_id)
    elif 2 * pairs >= test.max_matches or _capped(connection, tournament_id, test.max_matches):
        _finish(connection, test.id, tournament_id, AbTestStatus.CAPPED)


def _pair_places(
    connection: Connection, tournament_id: int, group: int, test: Any
) -> tuple[int, int] | None:
    """The tested seat's place with the new version and with the base, once both
    matches of the pair are done and it is not counted yet (None otherwise)."""
    rows = connection.execute(
        select(TournamentMatch.status, MatchSeat.bot_version_id, MatchSeat.place)
        .join(MatchSeat, MatchSeat.match_id == TournamentMatch.id)
        .where(TournamentMatch.tournament_id == tournament_id, TournamentMatch.deal_group == group)
    ).all()
    if any(row.status != MatchStatus.DONE for row in rows):
        return None  # one is open, or failed or went stale: the pair does not count
    places = {row.bot_version_id: row.place for row in rows}
    if test.new_version_id not in places or test.base_version_id not in places:
        return None
    counted = connection.execute(
        select(AbTestPair.pair).where(AbTestPair.abtest_id == test.id, AbTestPair.pair == group)
    ).first()
    if counted is not None:
        return None
    return places[test.new_version_id], places[test.base_version_id]


def _promote(connection: Connection, version_id: int) -> None:
    """A gate's new version goes live, in the transaction that accepted it."""
    with Session(bind=connection) as session:  # joins it: commits nothing of its own
        releases.go_live(session, session.get_one(BotVersion, version_id))
        session.flush()


def _capped(connection: Connection, tournament_id: int, max_matches: int) -> bool:
    """Whether no further pair fits under the cap and none is still in play."""
    scheduled = connection.execute(
        select(func.count())
        .select_from(TournamentMatch)
        .where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.status.not_in([MatchStatus.STALE, MatchStatus.FAILED]),
        )
    ).scalar_one()
    open_ = connection.execute(
        select(func.count())
        .select_from(TournamentMatch)
        .where(
            TournamentMatch.tournament_id == tournament_id,
            TournamentMatch.status.in_(OPEN_STATUSES),
        )
    ).scalar_one()
    return scheduled + 2 > max_matches and open_ == 0


def _finish(connection: Connection, test_id: int, tournament_id: int, status: AbTestStatus) -> int:
    """End the test with ``status``: its matches not started are withdrawn, its
    tournament is over; how many matches were withdrawn."""
    moment = now()
    connection.execute(
        update(table_of(AbTest))
        .where(table_of(AbTest).c.id == test_id)
        .values(status=status, finished_at=moment)
    )
    withdrawn = rows_changed(
        connection.execute(
            update(table_of(TournamentMatch))
            .where(
                table_of(TournamentMatch).c.tournament_id == tournament_id,
                table_of(TournamentMatch).c.status.in_([MatchStatus.PENDING, MatchStatus.QUEUED]),
            )
            .values(
                status=MatchStatus.STALE,
                error=said("match.abtest_over", status=status.value),
                job_id=None,
                finished_at=moment,
            )
        )
    )
    connection.execute(
        update(table_of(Tournament))
        .where(table_of(Tournament).c.id == tournament_id)
        .values(status=TournamentStatus.DONE, finished_at=moment)
    )
    return withdrawn
