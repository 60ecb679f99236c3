"""Matches in flight across jobs: a worker keeps up to its concurrency of matches
playing, whatever jobs they came from.

A job claims its matches, hands them over and returns as soon as the worker has room for
more (fewer matches with outside bots than its concurrency, fewer with uploaded bots
than its sandboxed concurrency, and no match of in-process bots still waiting for the
one CPU lane): RQ then gives it the next job while the bots
of the first still think. From then on this pipeline owns the claimed matches: it renews
their leases until each is recorded or given back (whatever a match's length), records
results in batches (one transaction for the results of ``FLUSH_SECONDS``, or at once
when nothing else is playing), gives back a match whose play failed for a platform
reason, and tops up the ladders and A/B tests it recorded for. A worker that dies stops
renewing: the leases run out and the reconciler queues the matches again, as before.
"""

from __future__ import annotations

import concurrent.futures
import functools
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.base.states import BotKind
from arena.base.timing import HEARTBEAT_SECONDS
from arena.store import bots, matches, scheduling
from arena.store.db import Database
from arena.tournament import formats
from worker import metrics
from worker.runtime import ClaimLost, in_process, sandboxed

#: the shortest time between two tries, after records, to claim the deferred matches
DEFERRED_RETRY_SECONDS = 0.5

if TYPE_CHECKING:
    from worker.runtime import Playout, Runtime

log = logging.getLogger(__name__)

#: the part of a worker's slots private matches may hold at most: 1 / PRIVATE_SHARE
PRIVATE_SHARE = 8
#: how often a worker waiting for private room looks for a ranked job
RANKED_LOOK_SECONDS = 0.02
#: the start of a timing line in the worker's log (read by ``arena bench pipeline``)
TIMING_PREFIX = "job timing:"


@dataclass
class Outcomes:
    """What became of the matches handed over since the last :meth:`Pipeline.drain`."""

    counts: Counter[str] = field(default_factory=Counter)
    #: platform failures, one line each (``match N: Error: text``); those matches were
    #: given back (queued again, or failed once their attempts are spent)
    failures: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        said = [f"{count} {outcome}" for outcome, count in self.counts.items()]
        return ", ".join(said + [f"given back: {failure}" for failure in self.failures])


class Pipeline:
    """The worker's matches from claim to record (see the module's docstring)."""

    def __init__(
        self,
        db: Database,
        runtime: Runtime,
        requeue: Callable[[int, str], None],
        send: Callable[[list[tuple[int, str]]], None],
        flush_seconds: Callable[[], float],
        worker: str = "worker",
        send_first: Callable[[list[tuple[int, str]]], None] | None = None,
        attempts: int = matches.MAX_ATTEMPTS,
        refilled: tuple[str, ...] | None = None,
    ) -> None:
        self.db, self.runtime, self.worker = db, runtime, worker
        #: the formats whose next matches it queues after a record (None: every one that
        #: seats as it plays)
        self.refilled = formats.self_scheduling() if refilled is None else refilled
        self.attempts = attempts  # a match's, before a platform failure fails it
        #: matches a claim left queued because a bot was at its limit of matches at once:
        #: claimed again when a match ends here, and at each heartbeat
        self._deferred: list[int] = []
        self._retried = 0.0  # when the deferred matches were last tried
        self._deferred_private: set[int] = set()  # of those, the private lane's
        self._claiming = 0  # claims under way (between the claim and the start)
        self._requeue, self._send, self._flush_seconds = requeue, send, flush_seconds
        #: sends jobs to the front of the queue: a job's matches passed on were there
        self._send_first = send_first or send
        self._cond = threading.Condition()
        #: claimed and not yet recorded nor given back, by match id and claim: after a
        #: partition a match may be claimed again here while it still plays under the
        #: claim it lost (the old play's end must leave the new claim in our care)
        self._open: dict[tuple[int, str], matches.MatchPlan] = {}
        self._playing_outside = 0  # outside bots' matches not played yet
        self._playing_inside = 0  # in-process matches not played yet
        self._playing_sandboxed = 0  # of the outside ones: with an uploaded bot
        #: private matches with outside bots taken here and not yet recorded nor given back
        self._private: set[int] = set()
        #: of the results waiting to be recorded, those of the private lane's matches
        self._private_pending: set[int] = set()
        self._pending: list[matches.PlayedMatch] = []
        #: of those, one whose tournament seats its next matches once it is recorded
        self._awaited_pending = False
        #: open claims being recorded or given back: a lease not renewed then was not lost
        self._settling: set[tuple[int, str]] = set()
        #: open claims a renewal found lost (played elsewhere): those not started yet
        #: never start (a partitioned worker's backlog would hold its slots for nothing)
        self._lost: set[tuple[int, str]] = set()
        self._oldest = 0.0  # when the first pending result was played (monotonic)
        self._flushing = False
        self._outcomes = Outcomes()
        #: by tournament: ms spent per phase since the last timing line
        self._timing: dict[int, dict[str, float]] = {}
        self._closed = False
        #: what each endpoint version's Hello announced, as last written (0: not yet)
        self._announced: dict[int, int | None] = {}
        self._recorder = threading.Thread(
            target=self._record_loop, daemon=True, name="arena-record"
        )
        self._heartbeat = threading.Thread(target=self._renew_loop, daemon=True, name="arena-lease")
        self._recorder.start()
        self._heartbeat.start()

    # ------------------------------------------------------------------ a job's side

    def take(self, match_ids: list[int], private: bool = False) -> tuple[int, int, int]:
        """Claim those of ``match_ids`` still queued and play them; keep those left
        queued for their bots' limits to claim again later; pass on to the queue, in a
        job of their own, those this worker has no room for (a worker with room plays
        them now, not once a match ends here). A ``private`` job's matches (an owner's
        own tournament) have only :meth:`private_room`: the rest of the worker is kept
        for ranked play, and those it passes on go to the back of the private lane, so
        that owners take turns. (played, deferred, passed on)."""
        mine, extra = self._within_room(match_ids, private)
        played, left = self._claim(mine)
        with self._cond:
            self._deferred.extend(m for m in left if m not in self._deferred)
            if private:
                self._deferred_private.update(left)
            self._private &= {match for match, _ in self._open}  # not claimed here after all
        passed = matches.pass_on(self.db, extra)
        if passed and private:  # to the back: the next owner's private job goes first
            self._send(passed)
        elif passed:  # to the front: they were next, and stay in the order they came
            self._send_first(passed)
        return played, len(left), len(passed)

    def private_room(self) -> int:
        """Private matches with outside bots this worker may start now: an eighth of its
        slots (and of its sandboxes) at most are ever private (their referees share the
        worker's CPU with ranked play: in ``arena bench lanes`` a half cost the
        competition 31 % of its matches, a quarter 12-16 % beside A/B tests, an eighth
        1-9 %)."""
        with self._cond:
            slots = min(self.runtime.concurrency, self.runtime.sandboxed_concurrency)
            return max(0, max(1, slots // PRIVATE_SHARE) - len(self._private))

    def wait_for_private_room(self, timeout: float, ranked_waiting: Callable[[], bool]) -> None:
        """Until a private match ends here, a ranked job waits (``ranked_waiting``, asked
        every :data:`RANKED_LOOK_SECONDS`), or ``timeout``: never a busy loop over the
        private lane, never a ranked job kept waiting."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.private_room() == 0 and (left := deadline - time.monotonic()) > 0:
                self._cond.release()
                try:
                    if ranked_waiting():
                        return
                finally:
                    self._cond.acquire()
                self._cond.wait(min(left, RANKED_LOOK_SECONDS))

    def _within_room(self, match_ids: list[int], private: bool) -> tuple[list[int], list[int]]:
        """``match_ids`` split into those to play here and those with outside bots this
        worker has no slot for (in-process matches wait for the CPU lane, as ever)."""
        with self._cond:
            room = max(1, self.runtime.concurrency - self._playing_outside)
        if private:
            room = min(room, self.private_room())
            outside = matches.with_outside_bots(self.db, match_ids)
            with self._cond:  # counted from now: the claim is next
                self._private.update([m for m in match_ids if m in outside][:room])
        if len(match_ids) <= room:
            return match_ids, []
        outside = matches.with_outside_bots(self.db, match_ids)
        mine, extra = [], []
        for match_id in match_ids:
            if match_id not in outside:
                mine.append(match_id)
            elif room:
                mine.append(match_id)
                room -= 1
            else:
                extra.append(match_id)
        return mine, extra

    def _claim(self, match_ids: list[int]) -> tuple[int, list[int]]:
        """Claim and play; the number played and the ids a bot's limit left queued.
        (Counted while it runs: a drain never looks between a claim and its start.)"""
        with self._cond:
            self._claiming += 1
        try:
            began = time.perf_counter()
            plans = matches.claim_all(self.db, match_ids, self.worker)
            claimed = {plan.match_id for plan in plans}
            left = matches.still_queued(self.db, [m for m in match_ids if m not in claimed])
            self.start(plans, claim_ms=(time.perf_counter() - began) * 1000)
        finally:
            with self._cond:
                self._claiming -= 1
                self._cond.notify_all()
        return len(plans), left

    def _settled(self) -> bool:
        """Nothing claimed here is left to play or record, and no claim is under way."""
        return not self._open and not self._claiming

    def _retry_deferred(self, throttled: bool = False) -> None:
        """Claim again the matches left for their bots' limits (a match of theirs ended)
        or for their deal's other rotation; they stay deferred until claimed here or taken
        elsewhere (drain waits for them). ``throttled`` (after each record): at most once
        in ``DEFERRED_RETRY_SECONDS``; each try is a write, and an A/B test's second
        rotations, tried after every record of a fast competition, once took two thirds
        of its pace (``arena bench lanes``)."""
        with self._cond:
            deferred = list(self._deferred)
            moment = time.monotonic()
            if not deferred or (throttled and moment - self._retried < DEFERRED_RETRY_SECONDS):
                return
            self._retried = moment
            # a private job's match stays private when it is claimed later (its results
            # never hold a ranked match's record back)
            self._private.update(m for m in deferred if m in self._deferred_private)
        try:
            _, left = self._claim(deferred)
        except Exception:  # tried again at the next beat; the reconciler sends them too
            log.exception("matches %s: cannot claim them again", deferred)
            return
        gone = set(deferred) - set(left)
        with self._cond:
            self._deferred = [m for m in self._deferred if m not in gone]
            self._deferred_private -= gone
            self._private &= {match for match, _ in self._open}
            self._cond.notify_all()

    def start(self, plans: list[matches.MatchPlan], claim_ms: float = 0.0) -> None:
        """Play the claimed ``plans`` (their leases renewed from now on)."""
        with self._cond:
            for plan in plans:
                self._open[_claim_of(plan)] = plan
                if in_process(plan):
                    self._playing_inside += 1
                else:
                    self._playing_outside += 1
                self._playing_sandboxed += sandboxed(plan)
            if plans:
                self._time(plans[0].tournament_id, {"claim_ms": claim_ms})
                metrics.CLAIM.observe(claim_ms / 1000)
                metrics.IN_FLIGHT.inc(len(plans))
        for plan in plans:
            heard = functools.partial(self._heard, plan)
            ours = functools.partial(self._still_ours, plan)
            private = plan.match_id in self._private
            future = self.runtime.submit(self.runtime.play(plan, heard, ours, private))
            future.add_done_callback(functools.partial(self._played, plan))

    def wait_for_room(self) -> None:
        """Until the worker has room for another job's matches."""
        with self._cond:
            self._cond.wait_for(self._has_room)

    def _has_room(self) -> bool:
        return (
            self._playing_outside < self.runtime.concurrency
            and self._playing_sandboxed < self.runtime.sandboxed_concurrency
            and self._playing_inside == 0
        )

    def drain(self) -> Outcomes:
        """Wait until every match handed over is recorded or given back, those left for
        their bots' limits included (unless another worker took them meanwhile); what
        became of them since the last drain."""
        while True:
            with self._cond:
                self._cond.notify_all()
                self._cond.wait_for(self._settled)
                if not self._deferred:
                    outcomes, self._outcomes = self._outcomes, Outcomes()
                    return outcomes
            self._retry_deferred()
            with self._cond:  # still left: other workers' matches hold the bots' limits
                if self._deferred and self._settled():
                    self._cond.wait(HEARTBEAT_SECONDS / 3)

    def close(self) -> Outcomes:
        outcomes = self.drain()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._recorder.join()
        self._heartbeat.join()
        return outcomes

    # ------------------------------------------------------------------ playing

    def _played(self, plan: matches.MatchPlan, done: concurrent.futures.Future[Playout]) -> None:
        """A match's play ended (on the runtime's thread): keep its result for the next
        flush, or give it back (off this thread: giving back writes to the database)."""
        try:
            played = done.result()
        except ClaimLost:  # never started: it plays elsewhere
            metrics.MATCHES.labels("not started").inc()
            with self._cond:
                self._one_fewer_playing(plan)
                self._open.pop(_claim_of(plan), None)
                self._lost.discard(_claim_of(plan))
                self._outcomes.counts["not started: the claim was lost"] += 1
            return
        except Exception as error:  # the platform's: the bots' failures are in the log
            with self._cond:
                self._one_fewer_playing(plan)
                self._settling.add(_claim_of(plan))
            threading.Thread(target=self._give_back, args=(plan, error), daemon=True).start()
            return
        metrics.SETUP.observe(played.timing.get("setup_ms", 0.0) / 1000)
        with self._cond:
            self._time(plan.tournament_id, {"matches": 1, **played.timing})
            if not self._pending:
                self._oldest = time.monotonic()
            self._pending.append(
                matches.PlayedMatch(
                    plan,
                    played.log,
                    played.referee_ms,
                    played.started_at,
                    played.outputs,
                    played.fairplay,
                    played.announced,
                )
            )
            if plan.match_id in self._private:
                self._private_pending.add(plan.match_id)
            self._awaited_pending |= plan.format in self.refilled
            self._one_fewer_playing(plan)

    def _one_fewer_playing(self, plan: matches.MatchPlan) -> None:
        metrics.IN_FLIGHT.dec()
        self._private.discard(plan.match_id)
        if in_process(plan):
            self._playing_inside -= 1
        else:
            self._playing_outside -= 1
        self._playing_sandboxed -= sandboxed(plan)
        self._cond.notify_all()

    def _give_back(self, plan: matches.MatchPlan, error: BaseException) -> None:
        reason = f"{type(error).__name__}: {error}"
        log.error("match %s failed: %s", plan.match_id, reason, exc_info=error)
        try:
            status, job_id = matches.give_back(self.db, plan, reason, self.attempts)
            if job_id is not None:
                self._requeue(plan.match_id, job_id)
            log.info("match %s is now %s", plan.match_id, status)
        except Exception:  # the reconciler gives it back once its lease expires
            log.exception("match %s: cannot give it back", plan.match_id)
        metrics.MATCHES.labels("given back").inc()
        with self._cond:
            self._outcomes.failures.append(f"match {plan.match_id}: {reason}")
            self._open.pop(_claim_of(plan), None)
            self._settling.discard(_claim_of(plan))
            self._lost.discard(_claim_of(plan))
            self._cond.notify_all()

    # ------------------------------------------------------------------ recording

    def _record_loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._flush_due(), self._wait())
                if self._closed and not self._pending:
                    return
                if not self._flush_due():
                    continue
                batch, self._pending, self._flushing = self._pending, [], True
                self._awaited_pending = False
                recording = {_claim_of(played.plan) for played in batch}
                self._settling |= recording
            try:
                self._flush(batch)
            finally:
                with self._cond:
                    self._flushing = False
                    self._settling -= recording
                    self._cond.notify_all()

    def _flush_due(self) -> bool:
        """Results wait at most FLUSH_SECONDS, and not at all once nothing else plays but
        private matches, nor when a tournament that seats as it plays waits for one (a
        ladder's next table waits for its last one's record: batching it with other
        matches cut the ladder to a table a second, and beside an owner's A/B tests, with
        both of a competition's tables on one worker, to 1-6 matches a second for
        seconds on end in ``arena bench lanes``)."""
        if not self._pending or self._flushing:
            return False
        playing = self._playing_inside + self._playing_outside
        nothing_else = playing - len(self._private) <= 0
        return (
            nothing_else
            or self._awaited_pending
            or time.monotonic() - self._oldest >= self._flush_seconds()
        )

    def _wait(self) -> float:
        if not self._pending:
            return HEARTBEAT_SECONDS
        return max(0.01, self._oldest + self._flush_seconds() - time.monotonic())

    def _flush(self, batch: list[matches.PlayedMatch]) -> None:
        """Record ``batch`` in one transaction, then top up its ladders and A/B tests."""
        ids = {played.plan.match_id for played in batch}
        with self._cond:
            private = {
                p.plan.tournament_id for p in batch if p.plan.match_id in self._private_pending
            }
            self._private_pending -= ids
        began = time.perf_counter()
        try:
            recorded = matches.record_all(self.db, batch)
        except Exception as error:
            for played in batch:
                self._give_back(played.plan, error)
            return
        record_ms = (time.perf_counter() - began) * 1000 / len(batch)
        for done in recorded:
            metrics.RECORD.observe(record_ms / 1000)
            metrics.MATCHES.labels("recorded" if done else "discarded").inc()
        self._note_announced([p for p, done in zip(batch, recorded, strict=True) if done])
        # the next matches are queued before these count as done: a worker that drains
        # (``--burst``) then finds them in the queue
        self._refill({(p.plan.tournament_id, p.plan.format) for p in batch}, private)
        with self._cond:
            for played, done in zip(batch, recorded, strict=True):
                self._time(played.plan.tournament_id, {"record_ms": record_ms})
                self._outcomes.counts["recorded" if done else "discarded: the claim was lost"] += 1
                self._open.pop(_claim_of(played.plan), None)
                self._lost.discard(_claim_of(played.plan))
            self._log_timing()
            self._cond.notify_all()
        self._retry_deferred(throttled=True)

    def _heard(self, plan: matches.MatchPlan, announced: dict[int, int | None]) -> None:
        """A match's bots said Hello (on the runtime's thread): keep what the endpoints
        announced at once, off this thread, so that the matches their limit kept queued
        start while this one still plays."""
        changes = self._changed_announcements([(plan, announced)])
        if changes:
            threading.Thread(
                target=self._keep_announced, args=(changes,), daemon=True, name="arena-hello"
            ).start()

    def _note_announced(self, recorded: list[matches.PlayedMatch]) -> None:
        """What the recorded matches' Hellos announced and is not kept yet (a write at
        the Hello that failed)."""
        changes = self._changed_announcements([(p.plan, p.announced) for p in recorded])
        if changes:
            self._keep_announced(changes)

    def _changed_announcements(
        self, heard: list[tuple[matches.MatchPlan, dict[int, int | None]]]
    ) -> dict[int, int | None]:
        """By endpoint version: what its Hello announced, where that differs from what
        was kept; marked as kept at once (one write per change however many matches
        start together)."""
        with self._cond:
            changes = {
                seat.bot_version_id: value
                for plan, announced in heard
                for index, value in announced.items()
                if (seat := plan.seats[index]).kind is BotKind.ENDPOINT
                and self._announced.get(seat.bot_version_id, 0) != value
            }
            self._announced.update(changes)
        return changes

    def _keep_announced(self, changes: dict[int, int | None]) -> None:
        """Write what the endpoints announced (best effort: after a failure the claims
        keep the limit they used, and the next Hello tries again), then claim the
        matches their limits kept queued."""
        try:
            self.db.transaction(lambda session: bots.note_announced(session, changes))
        except Exception:
            log.exception("cannot keep the limits the bots announced: %s", changes)
            with self._cond:
                for version in changes:
                    self._announced.pop(version, None)
            return
        self._retry_deferred()

    def _refill(self, tournaments: set[tuple[int, str]], private: set[int]) -> None:
        """Queue the next matches of these ladders and A/B tests (those of the formats it
        refills; recorded results are never given back for a failed refill: the
        reconciler tops them up too). Ranked play's first: an owner's A/B test (one of the
        ``private`` tournaments), topped up in the same pass, never delays a competition's
        next table."""
        for tournament_id, format in sorted(tournaments, key=lambda t: t[0] in private):
            if format not in self.refilled:
                continue
            try:
                jobs = scheduling.refill(self.db, tournament_id, format)
                if jobs:
                    self._send(jobs)
            except Exception:
                log.exception("tournament %s: cannot queue its next matches", tournament_id)

    # ------------------------------------------------------------------ leases

    def _still_ours(self, plan: matches.MatchPlan) -> bool:
        """Whether the claim of ``plan`` was not found lost (asked before it starts)."""
        with self._cond:
            return _claim_of(plan) not in self._lost

    def _renew_loop(self) -> None:
        """Renew the leases of every open match each HEARTBEAT_SECONDS (a dead worker
        stops renewing, and the reconciler queues them again)."""
        while True:
            with self._cond:
                if self._cond.wait_for(lambda: self._closed, HEARTBEAT_SECONDS):
                    return
                by_claim: dict[str, list[int]] = {}
                for key, plan in self._open.items():
                    if key not in self._lost:  # played elsewhere: nothing to renew
                        by_claim.setdefault(plan.claim, []).append(plan.match_id)
            self._retry_deferred()  # their bots' other matches may have ended elsewhere
            for token, still in by_claim.items():
                try:
                    renewed = matches.renew(self.db, sorted(still), token)
                except Exception:  # a failed renewal is retried at the next beat
                    log.exception("matches %s: cannot renew the leases", still)
                    continue
                with self._cond:  # recorded or given back meanwhile: not lost
                    lost = [
                        m
                        for m in still
                        if m not in renewed
                        and (m, token) in self._open
                        and (m, token) not in self._settling
                    ]
                    self._lost.update((m, token) for m in lost)
                if lost:
                    log.warning("matches %s: their claims were lost (played again elsewhere)", lost)

    # ------------------------------------------------------------------ timing

    def _time(self, tournament_id: int, timing: dict[str, float]) -> None:
        spent = self._timing.setdefault(tournament_id, {})
        for phase, ms in timing.items():
            spent[phase] = spent.get(phase, 0.0) + ms

    def _log_timing(self) -> None:
        """One line per tournament: where its matches' time went since the last line (ms,
        summed over the matches: several play at once)."""
        timing, self._timing = self._timing, {}
        for tournament_id, spent in timing.items():
            rounded = {k: round(v, 3) for k, v in spent.items()}
            log.info("%s %s", TIMING_PREFIX, json.dumps({"tournament": tournament_id, **rounded}))


def _claim_of(plan: matches.MatchPlan) -> tuple[int, str]:
    """A claimed match's key among the open ones: its id and its claim."""
    return plan.match_id, plan.claim
