"""Tournaments as use cases: create one (any format) from one request, whoever asks;
where one stands."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from sqlalchemy.orm import Session

from arena.base.figures import rounded
from arena.base.people import Someone
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.services import rights
from arena.services.requests import Request, operator_only
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


def _creatable(name: str) -> str:
    """A format a tournament may be created as (arena.tournament.formats)."""
    if name not in formats.creatable():
        raise ValueError(f"unknown format {name!r}: expected {' or '.join(formats.creatable())}")
    return name


def _rating(name: str) -> str:
    if name not in ratings.SYSTEMS:
        raise ValueError(f"unknown rating {name!r}: expected {' or '.join(ratings.SYSTEMS)}")
    return name


class TournamentRequest(Request):
    """A tournament as the operator (the CLI) or an owner (the API) asks for it."""

    name: str = Field(min_length=1, max_length=100, description="The tournament's name.")
    rules: Ruleset = Field(default_factory=lambda: Ruleset.parse("classic"))
    bots: list[str] = Field(min_length=2, max_length=200, description="Bot names.")
    table_size: int = Field(default=4, ge=2, le=12, description="Seats per table.")
    games: int = Field(
        default=100,
        ge=1,
        le=100_000,
        description="Matches to play (a ladder: tables in play at once; in rounds: ignored).",
    )
    seed: str | None = operator_only(
        None,
        "Text the secret key of the deals is derived from, to replay the tournament (keep it"
        " secret: who knows it knows every deal); default: a random key.",
    )
    deadline: float = Field(
        default=1.0, gt=0, le=60, description="Seconds per decision (up to 60)."
    )
    time_bank: float = Field(
        default=5.0, ge=0, le=600, description="Seconds per seat per match beyond the deadlines."
    )
    duplicate: bool = Field(default=False, description="Play each deal once per seat rotation.")
    format: Annotated[str, AfterValidator(_creatable)] = Field(
        default=formats.DEFAULT.name,
        max_length=32,
        description=formats.described(),
        json_schema_extra={"examples": list(formats.creatable())},
    )
    rounds: int = Field(
        default=DEFAULT_SWISS_ROUNDS, ge=1, le=100, description="Swiss: rounds to play."
    )
    advance: int = Field(
        default=2, ge=1, le=11, description="Knockout: bots of each table that go on."
    )
    reveal_after: int = Field(
        default=3600,
        ge=0,
        le=365 * 24 * 3600,
        description="Ladders: seconds after a match before its seed and hands are public.",
    )
    fresh_processes: bool = Field(
        default=False,
        description="Start uploaded bots afresh for every match (slower; by default a worker"
        " keeps each bot version's process warm across matches).",
    )
    same_owner_tables: bool = operator_only(
        False,
        "Let two bots of one owner sit at one table (by default they never do: no team play;"
        " the operator's bots, without an owner, always may).",
    )
    rating: Annotated[str, AfterValidator(_rating)] = Field(
        default=ratings.DEFAULT.name,
        description=f"The rating of record: {' or '.join(ratings.SYSTEMS)}.",
    )


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
