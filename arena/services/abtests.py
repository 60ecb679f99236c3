"""A/B tests as the CLI, the API and the pages read them: where a test stands in plain
data and one sentence, and the lists of tests. The store (arena.store.abtests) keeps
the tests, their pairs and the SPRT's steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.abtest import sprt
from arena.base.errors import Invalid
from arena.base.people import Someone
from arena.base.states import AbTestStatus, MatchStatus
from arena.engine import Ruleset
from arena.referee import RefereeSettings
from arena.store import abtests as store
from arena.store.abtests import get
from arena.store.db import Database
from arena.store.limits import PrivateLimits
from arena.store.models import AbTest, AbTestPair, BotVersion, Owner, RegisteredBot, TournamentMatch


@dataclass(frozen=True)
class Side:
    bot: str
    version: int


@dataclass(frozen=True)
class AbTestState:
    """Where a test stands: the CLI (``--json``: its fields), the API and the page. Every
    figure is the new version's against the base's: positive means the new one is
    better."""

    name: str
    #: created, running, accepted, rejected, stopped or capped
    status: str
    #: the state in one sentence: the verdict, or why there is none
    outcome: str
    #: a gate (``--promote-if-better``): the new version goes live if accepted
    promote: bool
    new: Side
    base: Side
    field: list[Side]
    table_size: int
    rules: dict[str, Any]
    #: the tournament holding the test's matches
    tournament: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    #: the LLR's lower (reject) and upper (accept) bounds
    bounds: list[float]
    llr: float
    pairs: int
    #: matches played and counted or waiting for their pair
    matches: int
    #: matches that did not count, by status (failed; stale: withdrawn)
    uncounted: dict[str, int]
    max_matches: int
    #: a rough estimate from the LLR's drift so far (None before it has one)
    matches_left: int | None
    #: pairs per class (``class_places``: the places the new finished ahead of the base)
    counts: list[int]
    class_scores: list[float]
    class_places: list[int]
    #: the mean pair score (None before a pair counted); above 0.5: the new is better
    score: float | None
    #: the Elo of the new version over the base and its 95 % interval (None: not finite)
    elo: float | None
    elo_ci: list[float] | None
    #: [matches, LLR] after each pair counted
    history: list[list[float]]
    created_at: str
    finished_at: str | None

    @property
    def over(self) -> bool:
        return self.status not in ("created", "running")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status(session: Session, name: str) -> AbTestState:
    """Where the test stands."""
    test = get(session, name)
    bounds = sprt.Bounds(test.elo0, test.elo1, test.alpha, test.beta)
    estimate = sprt.estimate(test.counts)
    ends = _match_ends(session, test.tournament_id)
    running = test.status is AbTestStatus.RUNNING
    left = sprt.pairs_left(test.llr, test.pairs, bounds) if running else 0
    if left is not None:
        left = min(2 * left, max(0, test.max_matches - 2 * test.pairs))
    history = session.execute(
        select(AbTestPair.counted, AbTestPair.llr)
        .where(AbTestPair.abtest_id == test.id)
        .order_by(AbTestPair.counted)
    ).all()
    field = session.scalars(select(BotVersion).where(BotVersion.id.in_(test.field))).all()
    by_id = {v.id: v for v in field}
    low, high = _finite(estimate.elo_low), _finite(estimate.elo_high)
    return AbTestState(
        name=test.name,
        status=test.status.value,
        outcome=_outcome(test, bounds, ends),
        promote=test.promote,
        new=_side(test.new_version),
        base=_side(test.base_version),
        field=[_side(by_id[v]) for v in test.field if v in by_id],
        table_size=test.tournament.table_size,
        rules=test.tournament.rules,
        tournament=test.tournament.name,
        elo0=test.elo0,
        elo1=test.elo1,
        alpha=test.alpha,
        beta=test.beta,
        bounds=[bounds.lower, bounds.upper],
        llr=test.llr,
        pairs=test.pairs,
        matches=ends.get(MatchStatus.DONE, (0, None))[0],
        uncounted={k.value: n for k, (n, _) in ends.items() if k is not MatchStatus.DONE},
        max_matches=test.max_matches,
        matches_left=left,
        counts=list(test.counts),
        class_scores=sprt.class_scores(test.tournament.table_size),
        class_places=class_places(test.tournament.table_size),
        score=estimate.score if test.pairs else None,
        elo=_finite(estimate.elo) if test.pairs else None,
        elo_ci=[low, high] if test.pairs and low is not None and high is not None else None,
        history=[[2 * counted, value] for counted, value in history],
        created_at=test.created_at.isoformat(),
        finished_at=test.finished_at.isoformat() if test.finished_at else None,
    )


def class_places(table_size: int) -> list[int]:
    """Each pair class as the places the new version finished ahead of the base on its
    deal (new minus base: positive is better), from ``-(K - 1)`` to ``K - 1``."""
    return list(range(-(table_size - 1), table_size))


def _match_ends(session: Session, tournament_id: int) -> dict[MatchStatus, tuple[int, str | None]]:
    """The test's matches by status: how many, and the error most of them ended with."""
    rows = session.execute(
        select(TournamentMatch.status, TournamentMatch.error, func.count())
        .where(TournamentMatch.tournament_id == tournament_id)
        .group_by(TournamentMatch.status, TournamentMatch.error)
    ).all()
    ends: dict[MatchStatus, tuple[int, str | None]] = {}
    commonest: dict[MatchStatus, int] = {}
    for status, error, count in rows:
        key = MatchStatus(status)
        total, said = ends.get(key, (0, None))
        if count > commonest.get(key, 0):
            commonest[key], said = count, error
        ends[key] = (total + count, said)
    return ends


def _outcome(
    test: AbTest, bounds: sprt.Bounds, ends: dict[MatchStatus, tuple[int, str | None]]
) -> str:
    """The test's state in one sentence: the verdict, or why there is none."""
    pairs = f"{test.pairs} pair{'' if test.pairs == 1 else 's'} counted"
    if test.status is AbTestStatus.CREATED:
        return f"not started: arena abtest start {test.name}"
    if test.status is AbTestStatus.RUNNING:
        where = f"LLR {test.llr:+.2f} between {bounds.lower:.2f} and {bounds.upper:.2f}"
        return f"running: {pairs}, {where}"
    if test.status is AbTestStatus.ACCEPTED:
        said = f"accepted after {pairs}: the new version is better (elo >= {test.elo1:g})"
        return said + ("; it went live" if test.promote else "")
    if test.status is AbTestStatus.REJECTED:
        return f"rejected after {pairs}: the new version is not better by {test.elo1:g} elo"
    lost = _uncounted(ends)
    if test.status is AbTestStatus.STOPPED:
        return f"stopped undecided with {pairs}" + (f"; {lost}" if lost else "")
    return f"capped: its {test.max_matches} matches were spent with {pairs}, undecided" + (
        f"; {lost}" if lost else ""
    )


def _uncounted(ends: dict[MatchStatus, tuple[int, str | None]]) -> str:
    """The matches that did not count and why (a failure or a withdrawal's error)."""
    parts = []
    for status, (count, error) in sorted(ends.items()):
        if status in (MatchStatus.FAILED, MatchStatus.STALE) and count:
            why = f" ({error})" if error else ""
            parts.append(
                f"{count} {'failed' if status is MatchStatus.FAILED else 'withdrawn'}{why}"
            )
    return f"matches that did not count: {', '.join(parts)}" if parts else ""


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end is None."""
    return value if abs(value) != float("inf") else None


def _side(version: BotVersion) -> Side:
    return Side(version.bot.name, version.number)


@dataclass(frozen=True)
class AbTestRow:
    """A test in a list."""

    name: str
    status: str
    new: Side
    base: Side
    llr: float
    pairs: int
    elo: float | None
    created_at: str


def of_bot(session: Session, bot_name: str) -> list[AbTestRow]:
    """The tests a bot's versions took part in, newest first (the bot's page)."""
    bot = session.scalar(select(RegisteredBot).where(RegisteredBot.name == bot_name))
    if bot is None:
        return []
    ids = [v.id for v in bot.versions]
    return _rows(
        session.scalars(
            select(AbTest)
            .where(AbTest.new_version_id.in_(ids) | AbTest.base_version_id.in_(ids))
            .order_by(AbTest.id.desc())
        ).all()
    )


def listing(session: Session) -> list[AbTestRow]:
    """Every test, newest first."""
    return _rows(session.scalars(select(AbTest).order_by(AbTest.id.desc())).all())


def _rows(tests: Sequence[AbTest]) -> list[AbTestRow]:
    return [
        AbTestRow(
            name=t.name,
            status=t.status.value,
            new=_side(t.new_version),
            base=_side(t.base_version),
            llr=t.llr,
            pairs=t.pairs,
            elo=_finite(sprt.estimate(t.counts).elo) if t.pairs else None,
            created_at=t.created_at.isoformat(),
        )
        for t in tests
    ]


@dataclass(frozen=True)
class AbTestRequest:
    """An A/B test as the operator (the CLI) or an owner (the API) asks for it."""

    name: str
    #: ``BOT:VERSION`` of the candidate and of what it must beat
    new: str
    base: str
    rules: Ruleset
    elo0: float = 0.0
    elo1: float = 25.0
    alpha: float = 0.05
    beta: float = 0.05
    #: the opponents (None: the samples)
    field: list[str] | None = None
    table_size: int | None = None
    max_matches: int = store.DEFAULT_MAX_MATCHES
    deadline: float = 1.0


@dataclass(frozen=True)
class AbTestCreated:
    name: str
    new: str
    base: str
    table_size: int
    field: list[str]


def create(
    db: Database,
    request: AbTestRequest,
    owner: Someone | None = None,
    limits: PrivateLimits | None = None,
) -> AbTestCreated:
    """Create the test, not started (``owner``: their own versions, within ``limits``)."""
    try:
        bounds = sprt.Bounds(request.elo0, request.elo1, request.alpha, request.beta)
    except ValueError as error:
        raise Invalid(str(error)) from None

    def make(session: Session) -> AbTestCreated:
        test = store.create(
            session,
            request.name,
            request.new,
            request.base,
            request.rules,
            bounds,
            field=request.field,
            table_size=request.table_size,
            max_matches=request.max_matches,
            settings=RefereeSettings(deadline=request.deadline),
            owner=session.get(Owner, owner.id) if owner is not None else None,
            limits=limits,
        )
        seated = [e.version for e in test.tournament.entries if e.bot_version_id in test.field]
        return AbTestCreated(
            name=test.name,
            new=test.new_version.label,
            base=test.base_version.label,
            table_size=test.tournament.table_size,
            field=[version.label for version in seated],
        )

    return db.transaction(make)


def stop(db: Database, name: str, owner: Someone | None = None) -> int:
    """Stop the test undecided; how many queued matches were withdrawn."""
    return db.transaction(lambda session: store.stop(session, name, owner))
