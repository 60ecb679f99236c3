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

from contextlib import ExitStack
from dataclasses import dataclass

from sqlalchemy import select

from arena import aio
from arena.engine import Ruleset
from arena.platform import Platform, PlatformError
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.sandbox import Sandbox, SandboxedSeat, SandboxError, SandboxUnavailable, availability
from arena.store import bots as bot_store
from arena.store.cache import ArtifactCache
from arena.store.models import Bot, BotKind, BotVersion, VersionStatus
from sample_bots import RandomBot

QUALIFYING_RULES = Ruleset.parse("classic")
QUALIFYING = RefereeSettings(deadline=1.0, time_bank=5.0, start_timeout=10.0)


@dataclass(frozen=True)
class Submission:
    bot: str
    version: int
    accepted: bool
    reason: str


def submit(
    platform: Platform, name: str, kind: BotKind, target: str, owner_id: int | None = None
) -> Submission:
    """Store, qualify and (if it qualifies) activate a new version of bot ``name``.

    Raises :class:`PlatformError` when uploaded bots cannot be sandboxed here (before
    anything is stored), or when the sandbox fails for a platform reason during
    qualification (the version then stays pending: the bot is not to blame)."""
    if kind is BotKind.PATH:
        where = availability()
        if not where.runs_uploaded_bots:
            raise PlatformError(where.describe())
    version = platform.db.transaction(lambda s: _add_pending(s, name, kind, target, owner_id))
    try:
        accepted, reason = qualify(kind, version.target, name, platform)
    except SandboxUnavailable as error:
        note = f"not qualified yet: the platform could not start a sandbox ({error})"
        platform.db.transaction(lambda s: _note(s, version.id, note))
        raise PlatformError(f"{note}; try again later") from None
    platform.db.transaction(lambda s: _settle(s, version.id, accepted, reason))
    return Submission(name, version.number, accepted, reason)


def qualify(kind: BotKind, target: str, name: str, platform: Platform) -> tuple[bool, str]:
    """One heads-up match against ``random``: (accepted, reason)."""
    data_dir = platform.settings.data_dir
    with ExitStack() as stack:
        if kind is BotKind.PATH:
            code = ArtifactCache(data_dir / "artifacts", platform.db).code_for(target)
            try:
                box = stack.enter_context(Sandbox(code, hidden=[data_dir]))
            except SandboxError as error:
                return False, f"did not start: {error}"
            candidate = SandboxedSeat(box, name)
        elif kind is BotKind.ENDPOINT:
            candidate = GrpcSeat(target, name)
        else:
            from sample_bots import SAMPLES

            candidate = LocalSeat(SAMPLES[target](ruleset=QUALIFYING_RULES, players=2), name)
        seats = [candidate, LocalSeat(RandomBot(seed=0), "random")]
        log = aio.run(Referee(QUALIFYING_RULES, seats, seed="qualify", settings=QUALIFYING).run())
    seat = log["seats"][0]
    forfeit = seat["forfeit"]
    if forfeit is not None:
        return False, f"forfeited its qualification match: {forfeit['kind']}: {forfeit['detail']}"
    if seat["strikes"]:
        return False, (
            f"answered late {seat['strikes']} times in its qualification match "
            f"(deadline {QUALIFYING.deadline:g} s)"
        )
    place = next(i for i, group in enumerate(log["result"]["ranking"], 1) if 0 in group)
    return True, (
        f"qualified: finished a match against random (place {place} of 2, "
        f"{log['seats'][0]['illegal']} illegal actions)"
    )


def _add_pending(
    session,
    name: str,
    kind: BotKind,
    target: str,  # noqa: ANN001
    owner_id: int | None,
) -> BotVersion:
    """The new version, inactive and pending until it qualifies."""
    if session.scalar(select(Bot).where(Bot.name == name)) is None:
        version = bot_store.add_bot(session, name, kind, target, owner_id=owner_id)
    else:
        version = bot_store.add_version(session, name, kind, target, owner_id, retire_others=False)
    version.active = False
    version.status = VersionStatus.PENDING
    session.flush()
    return version


def _note(session, version_id: int, reason: str) -> None:  # noqa: ANN001
    session.get(BotVersion, version_id).reason = reason


def _settle(session, version_id: int, accepted: bool, reason: str) -> None:  # noqa: ANN001
    version = session.get(BotVersion, version_id)
    version.reason = reason
    if not accepted:
        version.status = VersionStatus.REJECTED
        return
    for other in version.bot.versions:
        other.active = False
    version.status, version.active = VersionStatus.READY, True
