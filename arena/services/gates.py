"""Gates: a qualified version goes live only if an A/B test finds it better than the live
one (``arena bot submit --promote-if-better``), as fishtest gates a patch.

The test is an ordinary A/B test (arena.services.abtests) of the new version against the
live version, on the rules and table size of the first competition the bot plays in
(classic at tables of 4 if none), against the samples, owned by the bot's owner within
their limits; it is marked ``promote``: when it is accepted, the transaction that
records its deciding pair makes the new version live. Rejected, capped or stopped, the
version stays staged: its owner may still promote it by hand.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.abtest.sprt import Bounds
from arena.base.errors import Refused
from arena.engine import Ruleset
from arena.services import abtests
from arena.store import abtests as stored_tests
from arena.store import competitions, releases
from arena.store.limits import PrivateLimits
from arena.store.models import (
    AbTest,
    BotVersion,
    Owner,
)


def open_gate(
    session: Session, version: BotVersion, limits: PrivateLimits | None = None
) -> list[tuple[int, str]]:
    """Start the gate of a version that just qualified: the (match, job) pairs to
    enqueue. With no live version to beat it goes live at once; a gate that cannot start
    (the owner's limits) leaves it staged, its reason saying why."""
    base = releases.live(version.bot)
    if base is None:
        releases.go_live(session, version)
        version.reason = f"{version.reason}; no live version to beat: live at once"
        return []
    name = _free_name(session, f"{version.bot.name[:80]}-v{version.number}-gate")
    ruleset, size = _rules_of(session, version)
    owner = session.get(Owner, version.bot.owner_id) if version.bot.owner_id else None
    try:
        with session.begin_nested():
            test = abtests.create_in(
                session,
                name,
                f"{version.bot.name}:{version.number}",
                f"{base.bot.name}:{base.number}",
                ruleset,
                Bounds(stored_tests.DEFAULT_ELO0, stored_tests.DEFAULT_ELO1),
                table_size=size,
                owner=owner,
                limits=limits,
            )
            test.promote = True
            jobs = abtests.start_in(session, name, owner)
    except Refused as error:
        version.reason = f"{version.reason}; its A/B test could not start ({error})"
        return []
    return jobs


def _rules_of(session: Session, version: BotVersion) -> tuple[Ruleset, int | None]:
    """The rules and table size of the first open competition the bot plays in."""
    found = competitions.entered(session, version.bot_id)
    if not found:
        return Ruleset.parse("classic"), None
    ladder = found[0].tournament
    return Ruleset.from_dict(ladder.rules), ladder.table_size


def _free_name(session: Session, name: str) -> str:
    taken = set(session.scalars(select(AbTest.name).where(AbTest.name.startswith(name))))
    if name not in taken:
        return name
    return next(f"{name}-{n}" for n in range(2, len(taken) + 3) if f"{name}-{n}" not in taken)
