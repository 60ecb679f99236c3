"""A/B tests as the CLI, the API and the pages read them: where a test stands in plain
data and one sentence, and the lists of tests. The store (arena.store.abtests) keeps
the tests, their pairs and the SPRT's steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.abtest import sprt
from arena.base.errors import Conflict, Forbidden, Invalid, NotFound
from arena.base.people import Someone
from arena.base.states import ABTEST_OVER, AbTestStatus, MatchStatus
from arena.engine import Game, RulesError, Ruleset
from arena.referee import RefereeSettings
from arena.services import releases, rights
from arena.services.requests import Request
from arena.store import abtests as store
from arena.store import teams
from arena.store.bots import check_name
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


class AbTestRequest(Request):
    """An A/B test as the operator (the CLI) or an owner (the API) asks for it."""

    name: str = Field(min_length=1, max_length=100, description="The test's name.")
    new: str = Field(min_length=1, max_length=120, description="BOT[:VERSION]: the candidate.")
    base: str = Field(min_length=1, max_length=120, description="BOT[:VERSION]: what it must beat.")
    rules: Ruleset = Field(default_factory=lambda: Ruleset.parse("classic"))
    elo0: float = Field(
        default=0.0,
        gt=-1000,
        lt=1000,
        description="H0: the new version is at most this much better.",
    )
    elo1: float = Field(
        default=25.0, gt=-1000, lt=1000, description="H1: it is at least this much better."
    )
    alpha: float = Field(
        default=0.05, gt=0, lt=0.5, description="Chance of accepting H1 when H0 holds."
    )
    beta: float = Field(
        default=0.05, gt=0, lt=0.5, description="Chance of accepting H0 when H1 holds."
    )
    field: list[str] | None = Field(
        default=None,
        max_length=50,
        description="The opponents, BOT[:VERSION] (default: the samples).",
    )
    table_size: int | None = Field(
        default=None, ge=2, le=12, description="Seats per table (default: 4, or the field + 1)."
    )
    max_matches: int = Field(
        default=store.DEFAULT_MAX_MATCHES,
        ge=2,
        le=100_000,
        description="Stop undecided (capped) after this many.",
    )
    deadline: float = Field(default=1.0, gt=0, le=60, description="Seconds per decision.")


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
        test = create_in(
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
    return db.transaction(lambda session: stop_in(session, name, owner))


def get(session: Session, name: str) -> AbTest:
    test = store.find(session, name)
    if test is None:
        raise NotFound(f"no A/B test named {name!r}")
    return test


def create_in(
    session: Session,
    name: str,
    new: str,
    base: str,
    ruleset: Ruleset,
    bounds: sprt.Bounds,
    field: list[str] | None = None,
    table_size: int | None = None,
    max_matches: int = store.DEFAULT_MAX_MATCHES,
    batch: int = store.DEFAULT_BATCH,
    settings: RefereeSettings | None = None,
    owner: Someone | None = None,
    limits: PrivateLimits | None = None,
) -> AbTest:
    """A test, not started. ``owner`` (None: the operator) tests only their own bots'
    versions, against a field of their bots and the samples, within ``limits``."""
    name = check_name(name, "A/B test")
    if store.find(session, name) is not None:
        raise Conflict(f"an A/B test named {name!r} exists already")
    if store.holder_taken(session, name):
        raise Conflict(f"a tournament named {store.tournament_name(name)!r} exists already")
    new_version, base_version = releases.qualified(session, new), releases.qualified(session, base)
    if new_version.id == base_version.id:
        raise Invalid(f"--new and --base are the same version ({new_version.label})")
    if owner is not None:
        for version in (new_version, base_version):
            if not teams.manages(session, owner.id, version.bot):
                raise Forbidden(
                    f"{version.bot.name} is not a bot of your teams: you test your own versions"
                )
    opponents = _field(session, field, owner, {new_version.id, base_version.id})
    size = table_size or min(store.DEFAULT_TABLE_SIZE, len(opponents) + 1)
    _check_plays(ruleset, size, len(opponents), max_matches, batch)
    settings = settings or RefereeSettings()
    if owner is not None:
        limits = limits or PrivateLimits()
        rights.check_running_private(session, owner, limits)
        rights.check_private_deadline(session, "your A/B test", settings.deadline, limits)
        _check_owners_test(bounds, max_matches, batch, limits)
    checked = store.NewAbTest(
        name, ruleset, size, new_version, base_version, opponents, bounds, max_matches, batch,
        settings, owner.id if owner is not None else None,
    )  # fmt: skip
    return store.add(session, checked)


def _field(
    session: Session, field: list[str] | None, owner: Someone | None, tested: set[int]
) -> list[BotVersion]:
    """The opponents: the operator may seat any version; an owner their own bots and
    others' live ones, of which only the samples in a field of theirs."""
    if not field:
        return store.default_field(session, tested)
    opponents = [
        releases.qualified(session, spec)
        if owner is None
        else releases.playable_by(session, spec, owner.id)
        for spec in field
    ]
    if any(v.id in tested for v in opponents):
        raise Invalid("the field holds a tested version: the field is the opponents")
    if len({v.id for v in opponents}) < len(opponents):
        raise Invalid("a version is in the field twice")
    if owner is not None:
        foreign = [
            v.bot.name for v in opponents if not rights.usable_by(session, owner, v.bot.name)
        ]
        if foreign:
            raise Forbidden(
                f"the field takes your own bots and the samples only: {', '.join(foreign)}"
            )
    return opponents


def _check_plays(ruleset: Ruleset, size: int, opponents: int, max_matches: int, batch: int) -> None:
    """A table the rules allow, enough opponents for it, at least one pair in play."""
    if opponents < size - 1:
        raise Invalid(f"a table of {size} needs {size - 1} opponents; the field has {opponents}")
    try:
        Game(ruleset, size)
    except RulesError as error:
        raise Invalid(f"table size {size}: {error}") from None
    if max_matches < 2:
        raise Invalid("an A/B test plays at least one pair (2 matches)")
    if batch < 1:
        raise Invalid("an A/B test keeps at least one pair in play")


#: the error rates an owner's test may ask for: a smaller one only plays to its cap
OWNERS_ERROR_RATES = (0.01, 0.2)


def _check_owners_test(
    bounds: sprt.Bounds, max_matches: int, batch: int, limits: PrivateLimits
) -> None:
    """An owner's test plays within the private limits and decides in sane time."""
    low, high = OWNERS_ERROR_RATES
    for name, rate in (("alpha", bounds.alpha), ("beta", bounds.beta)):
        if not low <= rate <= high:
            raise Invalid(f"your A/B test's {name} is between {low:g} and {high:g}, not {rate:g}")
    if max_matches > limits.abtest_matches:
        raise Invalid(f"your A/B test plays at most {limits.abtest_matches:,} matches")
    if batch > store.DEFAULT_BATCH:
        raise Invalid(f"your A/B test keeps at most {store.DEFAULT_BATCH} pairs in play")


def _running_by(session: Session, name: str, owner: Someone | None) -> AbTest:
    """The test, if ``owner`` (None: the operator) may run it and it is not over."""
    test = get(session, name)
    if owner is not None and test.owner_id != owner.id:
        raise Forbidden(f"A/B test {test.name!r} is not yours: you may not run it")
    if test.status in ABTEST_OVER:
        raise Conflict(f"A/B test {name!r} is over ({test.status.value})")
    return test


def start_in(session: Session, name: str, owner: Someone | None = None) -> list[tuple[int, str]]:
    """Start the test: its first pairs queued; (match, job) to enqueue after commit."""
    return store.start(session, _running_by(session, name, owner))


def stop_in(session: Session, name: str, owner: Someone | None = None) -> int:
    """Stop the test undecided; how many queued matches were withdrawn."""
    return store.stop(session, _running_by(session, name, owner))
