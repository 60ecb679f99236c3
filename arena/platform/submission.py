"""Submitting a bot version: store it, qualify it, and only then let it be ranked.

A new version must start, answer the handshake and finish one match against
``sample:random`` without forfeiting and without a late answer. If it does, it
becomes the bot's active version and the earlier ones stop being scheduled; if
not, it is rejected with the reason and the earlier version stays active.
Uploaded Python bots (a file, or a folder with ``bot.py``) are stored in the
database by digest (arena.store.artifacts), so a version never changes and any
machine can run it, and they play their qualification match in the same sandbox
as in tournaments.
"""

from __future__ import annotations

import secrets
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from arena import aio
from arena.engine import Ruleset
from arena.platform import Platform, PlatformError
from arena.platform import queue as work_queue
from arena.platform.sandbox import (
    Sandbox,
    SandboxedSeat,
    SandboxError,
    SandboxUnavailable,
    availability,
)
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings, Seat
from arena.referee.log import MatchLog
from arena.store import bots as bot_store
from arena.store import competitions, qualifications
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.errors import NotFound
from arena.store.models import BotKind, BotVersion, RegisteredBot, VersionStatus
from arena.tournament import seeds

QUALIFYING_RULES = Ruleset.parse("classic")
QUALIFYING = RefereeSettings(deadline=1.0, time_bank=5.0, start_timeout=10.0)


@dataclass(frozen=True)
class Qualification:
    """How a version's qualification went: the verdict, its reason, and the match
    (None when the bot did not start: no match was played)."""

    accepted: bool
    reason: str
    log: MatchLog | None = None
    #: what an uploaded bot printed (its last 4 KiB): its owner's to read
    output: str | None = None


@dataclass(frozen=True)
class Submission:
    bot: str
    version: int
    #: "pending" (queued for a worker), "ready" or "rejected"
    status: str
    reason: str

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
) -> Submission:
    """Store a new version of bot ``name``, pending, and qualify it: here and now, or
    (``queued``) by a worker, which the caller may await with :func:`wait`.

    Raises :class:`PlatformError` when uploaded bots cannot be sandboxed here (before
    anything is stored), or when the sandbox fails for a platform reason during
    qualification (the version then stays pending: the bot is not to blame)."""
    if kind is BotKind.PATH and not queued:
        where = availability()
        if not where.runs_uploaded_bots:
            raise PlatformError(where.describe())
    version = platform.db.transaction(
        lambda s: _add_pending(s, name, kind, target, owner_id, competition, max_matches)
    )
    if queued:  # noted before it is queued: a quick worker's verdict is never overwritten
        note = "waiting for a worker to play its qualification match"
        platform.db.transaction(lambda s: _note(s, version.id, note))
        work_queue.enqueue_qualification(platform.queue, version.id)
        return Submission(name, version.number, VersionStatus.PENDING.value, note)
    return qualify_version(platform.db, platform.settings.data_dir, version.id)


def qualify_version(db: Database, data_dir: Path, version_id: int) -> Submission:
    """Play a pending version's qualification match and settle it (a worker's job too)."""
    with db.read() as session:
        version = session.get(BotVersion, version_id)
        if version is None:
            raise NotFound(f"no bot version {version_id}")
        kind, target, name, number = version.kind, version.target, version.bot.name, version.number
        if version.status is not VersionStatus.PENDING:
            return Submission(name, number, version.status.value, version.reason or "")
    try:
        played = qualify(kind, target, name, db, data_dir)
    except SandboxUnavailable as error:
        note = f"not qualified yet: the platform could not start a sandbox ({error})"
        db.transaction(lambda s: _note(s, version_id, note))
        raise PlatformError(f"{note}; try again later") from None
    reason = db.transaction(lambda s: _settle(s, version_id, played))
    status = VersionStatus.READY if played.accepted else VersionStatus.REJECTED
    return Submission(name, number, status.value, reason)


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
            status, reason = version.status, version.reason or ""
        if status is not VersionStatus.PENDING or time.monotonic() > deadline:
            return Submission(name, number, status.value, reason)
        time.sleep(0.2)


def qualify(kind: BotKind, target: str, name: str, db: Database, data_dir: Path) -> Qualification:
    """One heads-up match against a sample bot drawn at random, on a deal drawn from a
    secret key."""
    with ExitStack() as stack:
        box: Sandbox | None = None
        if kind is BotKind.PATH:
            where = availability()
            if not where.runs_uploaded_bots:
                raise SandboxUnavailable(where.describe())
            code = ArtifactCache(data_dir / "artifacts", db).code_for(target)
            try:
                box = stack.enter_context(Sandbox(code, hidden=[data_dir]))
            except SandboxError as error:
                return Qualification(False, f"did not start: {error}")
            candidate: Seat = SandboxedSeat(box, name)
        elif kind is BotKind.ENDPOINT:
            candidate = GrpcSeat(target, name)
        else:
            from sample_bots import SAMPLES

            candidate = LocalSeat(SAMPLES[target](ruleset=QUALIFYING_RULES, players=2), name)
        seats = [candidate, _opponent()]
        log = aio.run(Referee(QUALIFYING_RULES, seats, seed=_seed(), settings=QUALIFYING).run())
        output = (box.output_since(0) or None) if box is not None else None
    accepted, reason = _verdict(log)
    return Qualification(accepted, reason, log, output)


def _verdict(log: MatchLog) -> tuple[bool, str]:
    seat = log.seats[0]
    if seat.forfeit is not None:
        return False, (
            f"forfeited its qualification match: {seat.forfeit.kind}: {seat.forfeit.detail}"
        )
    if seat.strikes:
        return False, (
            f"answered late {seat.strikes} times in its qualification match "
            f"(deadline {QUALIFYING.deadline:g} s)"
        )
    place = next(i for i, group in enumerate(log.result.ranking, 1) if 0 in group)
    return True, (
        f"qualified: finished a match against {log.seats[1].name} (place {place} of 2, "
        f"{seat.illegal} illegal actions)"
    )


def _opponent() -> LocalSeat:
    """A sample bot drawn at random, named as the platform's samples are in ranked
    matches: a bot cannot tell its qualification from a ranked match by whom it meets."""
    from sample_bots import NAMES, SAMPLES

    name = secrets.choice(NAMES)
    return LocalSeat(SAMPLES[name](ruleset=QUALIFYING_RULES, players=2), name)


def _seed() -> str:
    """A deal drawn like a tournament's: a keyed hash of a fresh secret key, never shown."""
    return seeds.match_seed(seeds.new_key(), seeds.game_place(0))


def _add_pending(
    session,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None,
    competition: str | None = None,
    max_matches: int | None = None,
) -> BotVersion:
    """The new version, inactive and pending until it qualifies, with its own limit of
    matches at once if it has one; its bot entered in ``competition`` (by default the
    default competition, if there is one)."""
    if session.scalar(select(RegisteredBot).where(RegisteredBot.name == name)) is None:
        version = bot_store.add_bot(session, name, kind, target, owner_id=owner_id)
    else:
        version = bot_store.add_version(session, name, kind, target, owner_id, retire_others=False)
    version.active = False
    version.status = VersionStatus.PENDING
    bot_store.limit_matches(version, max_matches)
    session.flush()
    where = competitions.get(session, competition) if competition else competitions.default(session)
    if where is not None:
        competitions.enter(session, where, name)
    return version


def _note(session, version_id: int, reason: str) -> None:
    session.get(BotVersion, version_id).reason = reason


def _settle(session, version_id: int, played: Qualification) -> str:
    """Settle the version and store its match; its reason as it now reads."""
    version = session.get(BotVersion, version_id)
    version.reason = played.reason
    if played.log is not None:
        qualifications.record(
            session, version, played.log, QUALIFYING_RULES, QUALIFYING, played.output
        )
    if not played.accepted:
        version.status = VersionStatus.REJECTED
        return played.reason
    for other in version.bot.versions:
        other.active = False
    version.status, version.active = VersionStatus.READY, True
    playing = competitions.on_qualified(session, version)
    if playing:
        version.reason = f"{played.reason}; now playing in {', '.join(playing)}"
    return version.reason
