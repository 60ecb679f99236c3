"""Submitting a bot version: store it, qualify it, and only then let it be ranked.

A new version must start, answer the handshake and finish one match without forfeiting
and without a late answer: a match at a table of its competition, drawn as a ranked
table is (its rules, deadlines and size, opponents from its field, an integer match id,
every seat named ``name vN``), so that a bot cannot behave in qualification and cheat
after (arena.store.qualifications). If it does, it becomes the bot's
live version (or waits, staged, for its owner; or an A/B test against the live version
decides: arena.store.releases, arena.services.gates); if not, it is rejected with the
reason and the live version plays on.
Uploaded Python bots (a file, or a folder with ``bot.py``) are stored in the
database by digest (arena.store.artifacts), so a version never changes and any
machine can run it, and they play their qualification match in the same sandbox
as in tournaments.
"""

from __future__ import annotations

import random
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base import aio
from arena.base.errors import NotFound
from arena.base.states import AfterQualifying, BotKind, VersionStatus
from arena.platform import Platform, PlatformError
from arena.platform import queue as work_queue
from arena.platform.builds import build_version
from arena.platform.sandbox import SandboxedSeat, SandboxUnavailable, availability
from arena.platform.seating import UnstartableSeat, seats_for
from arena.referee import Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.services import gates
from arena.services import releases as release_service
from arena.store import bots as bot_store
from arena.store import competitions, qualifications, releases, teams
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.limits import PrivateLimits
from arena.store.models import BotVersion, RegisteredBot
from arena.store.qualifications import Table

#: a version whose build failed: public (its log is its owner's)
BUILD_FAILED = "its build failed"
#: draws qualification tables (never seeded: a bot must not predict its table)
_RANDOM = random.SystemRandom()


@dataclass(frozen=True)
class Qualification:
    """How a version's qualification went: the verdict, its reason, and the match
    (None when the bot did not start: no match was played)."""

    accepted: bool
    #: public: a kind ("forfeited its qualification match: crashed"), never output
    reason: str
    log: MatchLog | None = None
    #: the reason in full for its owner (the forfeit's detail: output, traceback)
    detail: str | None = None
    #: the table it was drawn (its match reserved)
    table: Table | None = None
    #: what an uploaded bot printed (its last 4 KiB): its owner's to read
    output: str | None = None


@dataclass(frozen=True)
class Submission:
    bot: str
    version: int
    #: "pending" (queued for a worker), "ready" or "rejected"
    status: str
    reason: str
    #: matches its qualifying started (a gate's first pairs): (match, job) to enqueue
    jobs: tuple[tuple[int, str], ...] = ()

    @property
    def accepted(self) -> bool:
        return self.status == VersionStatus.READY.value


def submit(
    platform: Platform,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None = None,
    *,
    queued: bool = False,
    competition: str | None = None,
    max_matches: int | None = None,
    after: AfterQualifying = AfterQualifying.LIVE,
    team: str | None = None,
) -> Submission:
    """Store a new version of bot ``name`` (a new bot goes to ``team``, one of its
    owner's, by default its owner's own), pending, and qualify it: here and now, or
    (``queued``) by a worker, which the caller may await with :func:`wait`.

    Raises :class:`PlatformError` when uploaded bots cannot be sandboxed here (before
    anything is stored), or when the sandbox fails for a platform reason during
    qualification (the version then stays pending: the bot is not to blame)."""
    if kind is BotKind.PATH and not queued:
        where = availability()
        if not where.runs_uploaded_bots:
            raise PlatformError(where.describe())
    version = platform.db.transaction(
        lambda s: _add_pending(
            s, name, kind, target, owner_id, competition, max_matches, after, team
        )
    )
    if queued:  # noted before it is queued: a quick worker's verdict is never overwritten
        note = "waiting for a worker to play its qualification match"
        platform.db.transaction(lambda s: _note(s, version.id, note))
        work_queue.enqueue_qualification(platform.queue, version.id)
        return Submission(name, version.number, VersionStatus.PENDING.value, note)
    settled = qualify_version(
        platform.db, platform.settings.data_dir, version.id, platform.settings.private_limits
    )
    if settled.jobs and platform.settings.redis_url:
        # without Redis the matches wait, queued in the database, until a worker's
        # reconciler sends them
        work_queue.enqueue_all(platform.queue, list(settled.jobs))
    return settled


def qualify_version(
    db: Database, data_dir: Path, version_id: int, limits: PrivateLimits | None = None
) -> Submission:
    """Play a pending version's qualification match and settle it (a worker's job too)."""
    with db.read() as session:
        version = session.get(BotVersion, version_id)
        if version is None:
            raise NotFound(f"no bot version {version_id}")
        name, number = version.bot.name, version.number
        if version.status is not VersionStatus.PENDING:
            said = version.detail or version.reason or ""
            return Submission(name, number, version.status.value, said)
    try:
        built = build_version(db, data_dir, version_id)
        if built is not None and not built.ok:
            played = Qualification(False, BUILD_FAILED, detail=f"{BUILD_FAILED}:\n{built.log}")
        else:
            played = qualify(db, data_dir, version_id)
    except SandboxUnavailable as error:
        note = f"not qualified yet: the platform could not start a sandbox ({error})"
        db.transaction(lambda s: _note(s, version_id, note))
        raise PlatformError(f"{note}; try again later") from None
    except Exception as error:  # the platform's own failure: never the bot's, and said
        failed = (
            "not qualified yet: the platform failed to play its qualification match"
            f" ({type(error).__name__}); it is tried again, and the worker's log says why"
        )
        db.transaction(lambda s: _note(s, version_id, failed))
        raise
    reason, jobs = db.transaction(lambda s: _settle(s, version_id, played, limits))
    status = VersionStatus.READY if played.accepted else VersionStatus.REJECTED
    return Submission(name, number, status.value, reason, tuple(jobs))


def wait(db: Database, name: str, number: int, timeout: float = 300.0) -> Submission:
    """Wait until a queued version is settled; pending still after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        with db.read() as session:
            version = session.scalar(
                select(BotVersion)
                .join(RegisteredBot)
                .where(RegisteredBot.name == name, BotVersion.number == number)
            )
            assert version is not None
            status, reason = version.status, release_service.standing(session, version)
        if status is not VersionStatus.PENDING or time.monotonic() > deadline:
            return Submission(name, number, status.value, reason)
        time.sleep(0.2)


def qualify(db: Database, data_dir: Path, version_id: int) -> Qualification:
    """Play a pending version's qualification match (its table drawn as a ranked one of
    its competition) and judge it by its own seat."""
    table = db.transaction(
        lambda s: qualifications.draw_table(s, s.get_one(BotVersion, version_id), _RANDOM)
    )
    try:
        log, output = _play(db, data_dir, table)
    except BaseException:
        db.transaction(lambda s: qualifications.release(s, table.match_id))
        raise
    if isinstance(log, str):  # the version's own bot never started
        public = "did not start"
        return Qualification(False, public, detail=f"{public}: {log}", table=table)
    accepted, reason, detail = _verdict(log, table.candidate, table.settings)
    return Qualification(accepted, reason, log, detail=detail, table=table, output=output)


def _play(db: Database, data_dir: Path, table: Table) -> tuple[MatchLog | str, str | None]:
    """The match's log and what the version printed; or, when the version's own bot did
    not start, why not (no match is played)."""
    cache = ArtifactCache(data_dir / "artifacts", db)
    with ExitStack() as stack:
        seats = seats_for(table.seats, table.rules, table.seed, stack, cache.code_for)
        candidate = seats[table.candidate]
        if isinstance(candidate, UnstartableSeat):
            return candidate.reason, None
        referee = Referee(
            table.rules,
            seats,
            seed=table.seed,
            settings=table.settings,
            match_id=str(table.match_id),
        )
        log = aio.run(referee.run())
        box = candidate.box if isinstance(candidate, SandboxedSeat) else None
        return log, (box.output_since(0) or None) if box is not None else None


def _verdict(log: MatchLog, index: int, settings: RefereeSettings) -> tuple[bool, str, str | None]:
    """Whether the version (at seat ``index``) qualified, the public reason, and the
    reason in full for its owner (None when the public one is whole)."""
    seat = log.seats[index]
    if seat.forfeit is not None:
        public = f"forfeited its qualification match: {seat.forfeit.kind}"
        return False, public, f"{public}: {seat.forfeit.detail}"
    if seat.strikes:
        return (
            False,
            f"answered late {seat.strikes} times in its qualification match "
            f"(deadline {settings.deadline:g} s)",
            None,
        )
    place = next(i for i, group in enumerate(log.result.ranking, 1) if index in group)
    others = ", ".join(s.name for i, s in enumerate(log.seats) if i != index)
    return (
        True,
        f"qualified: finished a match against {others} (place {place} of {len(log.seats)}, "
        f"{seat.illegal} illegal actions)",
        None,
    )


def _add_pending(
    session: Session,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None,
    competition: str | None = None,
    max_matches: int | None = None,
    after: AfterQualifying = AfterQualifying.LIVE,
    team: str | None = None,
) -> BotVersion:
    """The new version, inactive and pending until it qualifies (then ``after`` says
    what it does), with its own limit of matches at once if it has one; its bot entered
    in ``competition`` (by default the default competition, if there is one)."""
    if session.scalar(select(RegisteredBot).where(RegisteredBot.name == name)) is None:
        team_id = teams.joined(session, team, owner_id).id if team else None
        version = bot_store.add_bot(session, name, kind, target, owner_id, team_id)
    else:
        version = bot_store.add_version(session, name, kind, target, owner_id, retire_others=False)
    version.active, version.live_since = False, None
    version.status, version.after_qualifying = VersionStatus.PENDING, after
    bot_store.limit_matches(version, max_matches)
    session.flush()
    where = competitions.get(session, competition) if competition else competitions.default(session)
    if where is not None:
        competitions.enter(session, where, name)
    return version


def _note(session: Session, version_id: int, reason: str) -> None:
    session.get_one(BotVersion, version_id).reason = reason


def _settle(
    session: Session, version_id: int, played: Qualification, limits: PrivateLimits | None
) -> tuple[str, list[tuple[int, str]]]:
    """Settle the version and store its match; what became of it, in words, and the
    (match, job) pairs its gate queued, if it has one."""
    version = session.get_one(BotVersion, version_id)
    version.reason, version.detail = played.reason, played.detail
    if played.table is not None:
        if played.log is not None:
            qualifications.record(session, version, played.table, played.log, played.output)
        else:
            qualifications.release(session, played.table.match_id)
    jobs: list[tuple[int, str]] = []
    if not played.accepted:
        version.status = VersionStatus.REJECTED
    else:
        version.status = VersionStatus.READY
        if version.after_qualifying is AfterQualifying.GATE:
            jobs = gates.open_gate(session, version, limits)
        elif version.after_qualifying is AfterQualifying.LIVE:
            releases.go_live(session, version)
        if version.active:  # its first ranked matches, at once
            jobs += releases.first_tables(session, version)
    session.flush()
    return release_service.standing(session, version), jobs
