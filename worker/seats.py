"""Seats for a match in a worker's runtime: warm sandboxes and pooled streams
(:func:`warm_seats`); fresh ones come from :mod:`arena.platform.seating`.

A sandbox the platform cannot build raises :class:`SandboxUnavailable` out of here: the
job gives the match back (an infrastructure failure, played again), never a forfeit."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform.sandbox import (
    SandboxedSeat,
    SandboxError,
    SandboxUnavailable,
    availability,
    runtime,
)
from arena.platform.seating import UnstartableSeat, seats_for
from arena.referee import GrpcSeat, LocalSeat, Seat
from arena.referee.transport import SessionPool
from arena.store.leases import SeatPlan
from sample_bots import SAMPLES
from worker.warm import SeatLease, WarmSandboxes

__all__ = ["UnstartableSeat", "seats_for", "warm_seats"]


async def warm_seats(
    plans: list[SeatPlan],
    ruleset: Ruleset,
    seed: str,
    pool: SessionPool,
    sandboxes: WarmSandboxes,
    code_for: Callable[[str], Path],
    *,
    fresh: bool = False,
    rotation: int | None = None,
    private: bool = False,
) -> tuple[list[Seat], dict[int, SeatLease]]:
    """The seats of a match in a worker's runtime: streams to endpoints come from ``pool``
    and outlive the match; uploaded bots run in warm sandboxes (``leases``, by seat, go
    back to ``sandboxes`` after the match), one process per bot version (two bots with
    the same code never share one), started from ``code_for(target)`` (the machine's
    artifact cache); with ``fresh`` each gets a process of its own for this match. Each
    seat runs on a copy of the runtime of its own, among its table's
    (``runtime.table_copies``: a duplicate deal's ``rotation`` has copies of its own), the
    copy where its bot already has a warm process if it can (:func:`choose_copies`). A
    ``private`` match's sandboxes start apart from ranked ones (``WarmSandboxes.lease``)."""
    players = len(plans)
    keys = {
        i: f"v{plan.bot_version_id}" for i, plan in enumerate(plans) if plan.kind is BotKind.PATH
    }
    table = runtime.table_copies(rotation, players)
    if fresh:
        copies = choose_copies(keys, table, _nowhere, _nowhere)
    else:
        copies = choose_copies(keys, table, sandboxes.warm_copies, sandboxes.held_copies)
        for index, key in keys.items():  # tables seated meanwhile share what starts now
            sandboxes.promise(key, copies[index])
    unleased = set(keys)
    seats: list[Seat] = []
    leases: dict[int, SeatLease] = {}
    try:
        for index, plan in enumerate(plans):
            if plan.kind is BotKind.SAMPLE:
                bot = SAMPLES[plan.target](ruleset=ruleset, players=players, seed=f"{seed}/{index}")
                seats.append(LocalSeat(bot, plan.name))
            elif plan.kind is BotKind.ENDPOINT:
                seats.append(GrpcSeat(plan.target, plan.name, pool=pool))
            else:
                where = availability()
                if not where.runs_uploaded_bots:  # the platform's failure: the match goes back
                    raise SandboxUnavailable(where.describe())
                unleased.discard(index)
                try:
                    warm = await sandboxes.lease(
                        keys[index],
                        functools.partial(code_for, plan.target),
                        fresh=fresh,
                        image=copies[index],
                        private=private,
                        promised=not fresh,
                    )
                except SandboxError as error:  # the bot's failure: it forfeits
                    seats.append(UnstartableSeat(plan.name, str(error)))
                    continue
                # a new process's first match also gets what it printed while starting
                first = warm.matches == 0 and warm.leases == 1
                leases[index] = SeatLease(warm, 0 if first else warm.box.output_size())
                seats.append(
                    SandboxedSeat(
                        warm.box,
                        plan.name,
                        pool=pool,
                        meter=warm.meter,
                        cpu_budget=sandboxes.policy.match_cpu_seconds,
                    )
                )
    except BaseException:
        if not fresh:
            for index in unleased:
                sandboxes.unpromise(keys[index], copies[index])
        for lease in leases.values():
            await sandboxes.release(lease.warm, failed=True)
        raise
    return seats, leases


def _nowhere(_key: str, _copies: Sequence[int]) -> list[int]:
    return []


CopiesOf = Callable[[str, Sequence[int]], list[int]]


def choose_copies(
    keys: Mapping[int, str], table: Sequence[int], warm_copies: CopiesOf, held_copies: CopiesOf
) -> dict[int, int]:
    """Seat index -> the copy of the runtime its sandbox runs on, for the seats in a
    sandbox (``keys``: seat index -> its bot's key): seats of one table on copies of
    their own, from ``table``. A seat whose bot has a warm process on a copy still free
    keeps it (``warm_copies(key, free)``, best first), so a bot seated anywhere uses one
    process, not one per seat number. The others start a process: on a copy where their
    bot already has one (``held_copies``: full ones), else on one where no other bot of
    the table has any, else on the lowest left, in seat order; so a busy bot's processes
    stay on its own copies instead of taking another bot's."""
    chosen: dict[int, int] = {}
    for index in sorted(keys):
        free = [copy for copy in table if copy not in chosen.values()]
        warm = warm_copies(keys[index], free)
        if warm:
            chosen[index] = warm[0]
    held = {index: set(held_copies(key, table)) for index, key in keys.items()}
    for index in sorted(keys):
        if index not in chosen:
            others = set().union(*(held[other] for other in keys if other != index))
            free = [copy for copy in table if copy not in chosen.values()]
            chosen[index] = min(
                free, key=lambda copy: (copy not in held[index], copy in others, free.index(copy))
            )
    return chosen
