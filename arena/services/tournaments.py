"""Tournaments as use cases: create one (any format) from one request, whoever asks;
where one stands."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from arena.base.figures import rounded
from arena.base.people import Someone
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.services import rights
from arena.store import tournaments as store
from arena.store.db import Database
from arena.store.limits import PrivateLimits
from arena.store.models import Tournament
from arena.store.rounds import Placing
from arena.store.tournaments import BoardRow
from arena.tournament import formats, ratings


@dataclass(frozen=True)
class Progress:
    """A tournament's matches by status."""

    pending: int
    queued: int
    running: int
    done: int
    failed: int
    stale: int
    total: int
    #: played to the end or given up (failed, stale): none of them will play again
    ended: int


@dataclass(frozen=True)
class TournamentState:
    """Where a tournament stands: the CLI (``--json``: its fields), the bench, the tests."""

    name: str
    #: created, running or done
    status: str
    format: str
    #: the rating of record's name (arena.tournament.ratings)
    rating: str
    rules: dict[str, Any]
    table_size: int
    games: int
    matches: Progress
    #: bots of one owner may share a table (off: no team play)
    same_owner_tables: bool
    #: rows by ``mu - 3 sigma``, as the leaderboard shows them
    leaderboard: list[BoardRow]
    #: every format's final word: bot, version and place (and the format's figures)
    standings: list[Placing]

    @property
    def over(self) -> bool:
        return self.status == "done"

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form: figures to 3 places, each placing's figures beside its place."""
        standings = [placing.as_row() for placing in self.standings]
        return rounded({**asdict(self), "standings": standings})


def status(session: Session, name: str) -> TournamentState:
    tournament = store.get(session, name)
    board = store.leaderboard(session, tournament)
    summary = store.summary(session, tournament)
    return TournamentState(
        **{**summary, "matches": Progress(**summary["matches"])},
        leaderboard=board,
        standings=store.standings(session, tournament, board),
    )


#: a Swiss tournament's rounds unless the request says
DEFAULT_SWISS_ROUNDS = 5


@dataclass(frozen=True)
class TournamentRequest:
    """A tournament as the operator (the CLI) or an owner (the API) asks for it."""

    name: str
    rules: Ruleset
    bots: list[str]
    table_size: int = 4
    #: matches (a round robin), tables in play (a ladder); ignored in rounds
    games: int = 100
    #: text the deals' secret key is derived from (None: a random key)
    seed: str | None = None
    deadline: float = 1.0
    time_bank: float = 5.0
    duplicate: bool = False
    #: its format's registered name (arena.tournament.formats)
    format: str = formats.DEFAULT.name
    #: Swiss: rounds to play
    rounds: int = DEFAULT_SWISS_ROUNDS
    #: knockout: bots of each table that go on
    advance: int = 2
    #: ladders: seconds after a match before its seed and hands are public
    reveal_after: int = 3600
    fresh_processes: bool = False
    same_owner_tables: bool = False
    #: the rating of record's name (arena.tournament.ratings)
    rating: str = ratings.DEFAULT.name


@dataclass(frozen=True)
class TournamentCreated:
    name: str
    format: str
    #: what it plays: matches, tables in play (a ladder) or rounds
    games: int
    unit: str
    bots: list[str] = field(default_factory=list)


def create(
    db: Database,
    request: TournamentRequest,
    owner: Someone | None = None,
    limits: PrivateLimits | None = None,
) -> TournamentCreated:
    """Create the tournament (an ``owner``'s is private, within ``limits``); the store's
    refusals (Refused) say what is wrong with the request."""
    format = store.format_named(request.format)
    games = format.games_from(request.games, request.rounds)

    def make(session: Session) -> Tournament:
        if owner is not None:
            rights.check_private(
                session,
                owner,
                request.bots,
                games,
                format,
                request.deadline,
                limits or PrivateLimits(),
            )
        return store.create(
            session,
            request.name,
            request.rules,
            request.bots,
            request.table_size,
            games,
            request.seed,
            RefereeSettings(deadline=request.deadline, time_bank=request.time_bank),
            duplicate=request.duplicate,
            format=request.format,
            reveal_delay=request.reveal_after,
            fresh_processes=request.fresh_processes,
            owner=owner,
            limits=limits,
            same_owner_tables=request.same_owner_tables,
            advance=request.advance,
            rating=request.rating,
        )

    tournament = db.transaction(make)
    return TournamentCreated(
        tournament.name, tournament.format, tournament.games, format.unit, request.bots
    )


def stop(db: Database, name: str, owner: Someone | None = None) -> int:
    """Stop a ladder (``owner``: only its creator may); the queued matches dropped."""

    def halt(session: Session) -> int:
        rights.check_may_run(owner, store.get(session, name))
        return store.stop(session, name)

    return db.transaction(halt)
