"""Recording results exactly once: a batch of played matches is written in one
transaction (results, logs, running totals, head-to-head, ratings, completion
numbers) only for the matches whose claim the worker still holds and whose bots were
not replaced meanwhile; the rest is discarded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import Connection, Update, bindparam, func, select
from sqlalchemy.orm import Session

from arena.base.states import MatchStatus
from arena.engine.match import places
from arena.fairplay.counting import Tally
from arena.referee import log as match_log
from arena.referee.style import STYLE_FIELDS, style_counts
from arena.store import abtests, fairplay, logs, pairs
from arena.store.db import Database
from arena.store.leases import MatchPlan, finish_if_complete, mark_stale
from arena.store.models import (
    BotVersion,
    Entry,
    MatchSeat,
    StoredLog,
    Tournament,
    TournamentMatch,
    now,
    table_of,
)
from arena.store.rating_policy import (
    COMPLETED,
    ENTRIES,
    ENTRY,
    ENTRY_RATING,
    RATE_AGAIN,
    RATING_CHANGE,
    SNAPSHOT,
    Ratings,
    rate_group_if_closed,
    rate_in_turn,
    ratings_of,
    system_of,
)
from arena.tournament import formats, ratings
from arena.tournament.formats.base import Counting

logger = logging.getLogger(__name__)

#: in the recording transaction: tournament id, the deal groups of the results recorded
CountResults = Callable[[Connection, int, list[int]], None]
#: how results are counted instead of rated (an A/B test's pairs: the pairs closed and
#: its SPRT stepped); a format whose ``counting`` is not here is rated
INSTEAD_OF_RATING: dict[Counting, CountResults] = {
    Counting.PAIRS: abtests.count_closed_pairs,
}

#: attempts before a match is failed: the first run and 3 retries
#: times a batch is rated again from a newer snapshot before it is written (TrueSkill
#: takes about a millisecond per match: better outside the write lock than under it)


# ------------------------------------------------------------------ statements built once
# The hot path (claim, record) runs Core statements compiled once, with bound parameters:
# building an ORM statement per call costs more than SQLite takes to run it.

_matches, _seats, _tournaments = (
    table_of(TournamentMatch),
    table_of(MatchSeat),
    table_of(Tournament),
)
_entries_table, _versions = table_of(Entry), table_of(BotVersion)

#: a seated version whose entry is retired (a competition replaced it: arena.store.releases)
#: makes its ladder table stale; no other match ever is
_RETIRED = select(_entries_table.c.bot_version_id).where(
    _entries_table.c.tournament_id == bindparam("tournament"),
    _entries_table.c.bot_version_id.in_(bindparam("versions", expanding=True)),
    _entries_table.c.retired.is_(True),
)
_SEATS_RETIRED = select(_seats.c.match_id).where(
    _seats.c.match_id == _matches.c.id,
    _entries_table.c.tournament_id == _matches.c.tournament_id,
    _entries_table.c.bot_version_id == _seats.c.bot_version_id,
    _entries_table.c.retired.is_(True),
)
#: the played matches still ours to record: running, under our claim (compared by the
#: caller), no seated bot replaced meanwhile; locked on PostgreSQL
_RECORDABLE = (
    select(_matches.c.id, _matches.c.claim)
    .where(
        _matches.c.id.in_(bindparam("matches", expanding=True)),
        _matches.c.status == MatchStatus.RUNNING,
        ~_SEATS_RETIRED.exists(),
    )
    .with_for_update(of=_matches)
)
_DONE = (
    _matches.update()
    .where(_matches.c.id == bindparam("match"))
    .values(
        status=MatchStatus.DONE,
        claim=None,
        lease_until=None,
        job_id=None,
        finished_at=bindparam("finished_at"),
        referee_ms=bindparam("referee_ms"),
        error=None,
        completion=bindparam("completion"),
        # a claimed match may wait for others of its job: keep when it really started
        started_at=func.coalesce(
            bindparam("started_at", type_=_matches.c.started_at.type), _matches.c.started_at
        ),
    )
)
_COUNT = (
    _tournaments.update()
    .where(_tournaments.c.id == bindparam("tournament"))
    .values(completed=_tournaments.c.completed + bindparam("recorded"))
    .returning(_tournaments.c.completed)
)
_SEAT_RESULTS = _seats.update().where(
    _seats.c.match_id == bindparam("match"), _seats.c.seat == bindparam("number")
)
_LOG = table_of(StoredLog).insert()


@dataclass(frozen=True)
class PlayedMatch:
    """A match played under its claim, waiting to be recorded."""

    plan: MatchPlan
    log: match_log.MatchLog
    referee_ms: float
    started_at: datetime | None = None
    #: by seat: what an uploaded bot printed during the match (Seat.output)
    outputs: dict[int, str] = field(default_factory=dict)
    #: the referee's fair-play tallies, by seat (arena.fairplay.counting)
    fairplay: tuple[Tally, ...] = ()
    #: by seat whose Hello was heard: the matches at once it announced (None: none said)
    announced: dict[int, int | None] = field(default_factory=dict)


def record(
    db: Database,
    plan: MatchPlan,
    log: match_log.MatchLog,
    referee_ms: float,
    started_at: datetime | None = None,
    fairplay: tuple[Tally, ...] = (),
) -> bool:
    """Store one played match once: see ``record_all``."""
    played = PlayedMatch(plan, log, referee_ms, started_at, fairplay=fairplay)
    return record_all(db, [played])[0]


def record_all(db: Database, played: list[PlayedMatch]) -> list[bool]:
    """Store the results, logs and new ratings of played matches, each once, in one
    transaction; for each, whether it was recorded (False: its claim was lost, or a
    seated bot was replaced meanwhile and the match is now stale).

    A worker records a job's matches together: the write lock, the transaction and a
    tournament's bookkeeping are paid once, not per match. Everything is prepared
    before the lock is taken, ratings included (from a snapshot); the write applies them
    only if no other result was recorded since (the tournament's completion counter),
    and otherwise rates again under the lock. Either way in completion order, once.
    """
    results = [MatchRows(match) for match in played]
    by_tournament: dict[int, list[MatchRows]] = {}
    for result in results:
        by_tournament.setdefault(result.plan.tournament_id, []).append(result)
    batches = [_Batch(db, group) for group in by_tournament.values()]
    for _ in range(RATE_AGAIN):  # rate again outside the lock while another result landed
        stale = [batch for batch in batches if not batch.up_to_date(db)]
        if not stale:
            break
        for batch in stale:
            batch.prepare(db)

    def write(session: Session) -> set[int]:
        moment, connection = now(), session.connection()  # one transaction, one time
        return {match_id for batch in batches for match_id in batch.write(connection, moment)}

    recorded = db.transaction(write)
    for result in results:
        if result.plan.match_id not in recorded:
            _discard_if_replaced_or_log(db, result.plan)
    return [result.plan.match_id in recorded for result in results]


def _discard_if_replaced_or_log(db: Database, plan: MatchPlan) -> None:
    """Best effort: if this fails, the match's lease runs out, the reconciler queues it
    again, and the next claim finds the replaced bot and discards it then."""
    try:
        db.transaction(partial(_discard_if_replaced, plan=plan))
    except Exception:
        logger.exception("match %s: cannot check whether it went stale", plan.match_id)


def _discard_if_replaced(session: Session, plan: MatchPlan) -> bool:
    """A result that could not be recorded: if a seated bot was replaced while the match
    was played, the match is stale (discarded, not rated)."""
    versions = [seat.bot_version_id for seat in plan.seats]
    retired = set(
        session.connection()
        .execute(_RETIRED, {"tournament": plan.tournament_id, "versions": versions})
        .scalars()
    )
    names = [seat.name for seat in plan.seats if seat.bot_version_id in retired]
    return bool(names) and mark_stale(session, plan.match_id, plan.claim, names)


#: what a seat adds to its entry's running totals: the entry's column, the addition's key
#: in :func:`entry_additions` (``games`` goes up by one besides)
ENTRY_ADDITIONS = {
    "place_sum": "d_place",
    "wins": "d_win",
    "forfeits": "d_forfeit",
    **{name: f"d_{name}" for name in ("strikes", "illegal", "decisions", *STYLE_FIELDS)},
}


def _entry_totals() -> Update:
    entries = table_of(Entry)
    return (
        entries.update()
        .where(*ENTRY)
        .values(
            games=entries.c.games + 1,
            **{
                column: entries.c[column] + bindparam(key)
                for column, key in ENTRY_ADDITIONS.items()
            },
        )
    )


def entry_additions(
    tournament_id: int, versions: list[int], seats: list[dict[str, Any]]
) -> list[dict[str, int]]:
    """What each seat (its result columns, ``versions`` by seat) adds to its entry's
    running totals, keyed as :data:`ENTRY_ADDITIONS` says."""
    return [
        {
            "tournament": tournament_id,
            "version": version,
            "d_place": row["place"],
            "d_win": int(row["place"] == 1),
            "d_forfeit": int(row["forfeit"]),
            "d_strikes": row["strikes"],
            "d_illegal": row["illegal"],
            "d_decisions": row["decisions"],
            **{f"d_{name}": row[name] for name in STYLE_FIELDS},
        }
        for version, row in zip(versions, seats, strict=True)
    ]


_ENTRY_TOTALS = _entry_totals()


def seat_results(log: match_log.MatchLog, outputs: dict[int, str]) -> list[dict[str, Any]]:
    """Each seat's result columns (of ``Seat``) from a match's log and, by seat, what
    an uploaded bot printed."""
    place_of = {seat: place for place, group in places(log.result.ranking) for seat in group}
    styles = style_counts(log)
    rows = []
    for index, entry in enumerate(log.seats):
        forfeit = entry.forfeit
        rows.append(
            {
                "place": place_of[index],
                "forfeit": forfeit is not None,
                "forfeit_kind": forfeit.kind if forfeit else None,
                "forfeit_reason": forfeit.detail if forfeit else None,
                "output": outputs.get(index),
                "strikes": entry.strikes,
                "illegal": entry.illegal,
                "decisions": entry.decisions,
                "latency_mean_ms": entry.latency_ms["mean"],
                "latency_p99_ms": entry.latency_ms["p99"],
                **styles[index],
            }
        )
    return rows


class MatchRows:
    """A played match, ready to be written: its seats' rows and what they add to the
    running totals."""

    def __init__(self, played: PlayedMatch) -> None:
        self.plan, self.referee_ms, self.started_at = (
            played.plan,
            played.referee_ms,
            played.started_at,
        )
        self.blob = logs.encode(played.log)
        log = played.log
        self.ranking = list(log.result.ranking)
        self.versions = [seat.bot_version_id for seat in self.plan.seats]
        self.seats = [
            {"match": self.plan.match_id, "number": index, **row}
            for index, row in enumerate(seat_results(log, played.outputs))
        ]
        #: what the match adds to the collusion report, packed before the write lock
        self.fairplay = fairplay.pack(
            fairplay.rows(
                self.plan.tournament_id,
                self.versions,
                [row["place"] for row in self.seats],
                played.fairplay,
            )
        )

    def pairs(self) -> list[dict[str, int]]:
        """What the match adds to the head-to-head totals."""
        return pairs.rows(
            self.plan.tournament_id, self.versions, [row["place"] for row in self.seats]
        )

    def totals(self) -> list[dict[str, int]]:
        """What each seat adds to its entry's running totals."""
        return entry_additions(self.plan.tournament_id, self.versions, self.seats)


class _Batch:
    """One tournament's played matches, recorded together in completion order."""

    def __init__(self, db: Database, results: list[MatchRows]) -> None:
        self.results = results
        self.tournament_id = results[0].plan.tournament_id
        self.versions = sorted({v for result in results for v in result.versions})
        #: duplicate deals are rated by group, under the lock
        self.grouped = results[0].plan.deal_group is not None
        self.counted = INSTEAD_OF_RATING.get(formats.named(results[0].plan.format).counting)
        self.seen: int | None = None
        self.steps: list[list[ratings.Rating]] | None = None
        self.system: ratings.RatingSystem | None = None
        if not self.grouped:
            self.prepare(db)

    def prepare(self, db: Database) -> None:
        """Rate the results from a snapshot of the entries (outside the write lock)."""
        with db.read_core() as connection:
            rows = connection.execute(SNAPSHOT, self._entries_of()).all()
        self.seen = rows[0].completed
        self.system = ratings.named(rows[0].rating_system)
        self.steps = rate_in_turn(self.system, ratings_of(rows), self.results)

    def up_to_date(self, db: Database) -> bool:
        """Whether no result was recorded since the snapshot (one row read)."""
        if self.grouped:
            return True
        with db.read_core() as connection:
            completed = connection.execute(COMPLETED, {"tournament": self.tournament_id})
            return completed.scalar() == self.seen

    def _entries_of(self) -> dict[str, Any]:
        return {"tournament": self.tournament_id, "versions": self.versions}

    def write(self, connection: Connection, moment: datetime) -> list[int]:
        """Record the results still ours; their match ids."""
        ids = [result.plan.match_id for result in self.results]
        claims = dict(connection.execute(_RECORDABLE, {"matches": ids}).all())
        mine = [r for r in self.results if claims.get(r.plan.match_id) == r.plan.claim]
        if not mine:
            return []
        # on PostgreSQL this locks the tournament row: concurrent results take their
        # completion numbers, and apply their ratings, one batch at a time
        last = connection.execute(
            _COUNT, {"tournament": self.tournament_id, "recorded": len(mine)}
        ).scalar_one()
        first = last - len(mine) + 1
        connection.execute(
            _DONE,
            [
                {
                    "match": result.plan.match_id,
                    "finished_at": moment,
                    "referee_ms": result.referee_ms,
                    "completion": first + index,
                    "started_at": result.started_at,
                }
                for index, result in enumerate(mine)
            ],
        )
        connection.execute(_SEAT_RESULTS, [row for result in mine for row in result.seats])
        connection.execute(
            _LOG,
            [{"match_id": r.plan.match_id, "data": r.blob, "size": len(r.blob)} for r in mine],
        )
        connection.execute(_ENTRY_TOTALS, [row for result in mine for row in result.totals()])
        pairs.add(connection, [row for result in mine for row in result.pairs()])
        fairplay.keep(connection, self.tournament_id, [result.fairplay for result in mine])
        if self.counted is not None:
            groups = [r.plan.deal_group for r in mine if r.plan.deal_group is not None]
            self.counted(connection, self.tournament_id, groups)
        elif self.grouped:
            self._rate_closed_groups(connection, mine, first)
        else:
            self._rate(connection, mine, first)
        finish_if_complete(connection, self.tournament_id)
        return [result.plan.match_id for result in mine]

    def _rate(self, connection: Connection, mine: list[MatchRows], first: int) -> None:
        steps = self.steps
        if steps is None or self.seen != first - 1 or len(mine) < len(self.results):
            # another result was recorded since the snapshot (or one of ours was lost)
            current = ratings_of(connection.execute(ENTRIES, self._entries_of()))
            system = self.system or system_of(connection, self.tournament_id)
            steps = rate_in_turn(system, current, mine)
        final: Ratings = {}
        for result, rated in zip(mine, steps, strict=True):
            final.update(zip(result.versions, rated, strict=True))
        connection.execute(
            ENTRY_RATING,
            [
                {
                    "tournament": self.tournament_id,
                    "version": v,
                    "new_mu": r.mu,
                    "new_sigma": r.sigma,
                }
                for v, r in final.items()
            ],
        )
        connection.execute(
            RATING_CHANGE,
            [
                {
                    "tournament_id": self.tournament_id,
                    "bot_version_id": version,
                    "match_id": result.plan.match_id,
                    "completion": first + index,
                    "mu": r.mu,
                    "sigma": r.sigma,
                }
                for index, (result, rated) in enumerate(zip(mine, steps, strict=True))
                for version, r in zip(result.versions, rated, strict=True)
            ],
        )

    def _rate_closed_groups(
        self, connection: Connection, mine: list[MatchRows], first: int
    ) -> None:
        """Rate each deal group these results closed, once, in the order they closed it."""
        closing: dict[int, tuple[int, int]] = {}  # group: its last match here, completion
        for index, result in enumerate(mine):
            group = result.plan.deal_group
            assert group is not None
            closing.pop(group, None)  # re-inserted: the dict keeps the closing order
            closing[group] = (result.plan.match_id, first + index)
        for group, (match_id, completion) in closing.items():
            rate_group_if_closed(connection, self.tournament_id, group, match_id, completion)
