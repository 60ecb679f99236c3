"""Every time limit of the platform's failure handling, in one place, and how they fit.

A worker claims a match with a lease of ``LEASE`` and renews it every
``HEARTBEAT_SECONDS`` while it plays; results wait at most ``FLUSH_SECONDS`` to be
recorded together. When a worker dies its matches come back through one of three
doors: a lease that lapsed (``LEASE``), a job started but whose matches are still queued
after ``STRANDED_SECONDS`` (it died before its claim), or a queued match waiting
``LOST_AFTER`` with no job that will play it. A reconciler looks every
``RECONCILE_SECONDS``, so any match whose worker died plays again within
``RECOVERY_BOUND_SECONDS`` on a machine that is not overloaded (tests/test_recovery.py
and tests/test_faults.py hold it to that; tests/test_chaos.py prints what a storm of
faults costs on the machine it runs on).
After Redis restarts (a reconciler checks every ``RESTART_CHECK_SECONDS``) every queued
match goes out again at once.
"""

from __future__ import annotations

from datetime import timedelta

#: a claimed match belongs to its worker this long after each renewal
LEASE = timedelta(seconds=9)
#: how often a playing worker renews its leases
HEARTBEAT_SECONDS = 3
#: played results wait at most this long to be recorded with the job's next ones
FLUSH_SECONDS = 1.0
#: a job started this long ago whose matches are still queued was abandoned (its worker
#: died or hangs before the claim)
STRANDED_SECONDS = 9.0
#: a job seen taken off the queue (RQ's intermediate list) and not started this long was
#: dropped by a worker that died in between (a live one starts it within milliseconds)
TAKEN_SECONDS = 5.0
#: a queued match is re-sent only once it has waited this long (its job may be on its
#: way to Redis), except just after Redis restarted: every job was lost then
LOST_AFTER = timedelta(seconds=8)
#: how often a reconciler repairs what dead workers left
RECONCILE_SECONDS = 3.0
#: how often a reconciler asks Redis whether it restarted (its ``run_id`` changes)
RESTART_CHECK_SECONDS = 0.5
#: any match whose worker dies is playing again within this many seconds (while another
#: worker runs): the longest door (a lease or a stranded job, 9 s) plus a reconciler's
#: period (3 s) leave 18 s to be claimed again: a live worker first ends the job it plays,
#: which takes several seconds on a loaded machine (a lease renewed three times per
#: period survives two late heartbeats; a lease lost by a live worker costs a replay,
#: never a double record)
RECOVERY_BOUND_SECONDS = 30.0
#: seconds between attempts to reach Redis (doubling from the first to the second; reset
#: once it answers)
RECONNECT_SECONDS = (0.5, 5.0)
#: RQ kills a job that runs longer than this per match (a match's own deadlines end it
#: far sooner); finished jobs are kept 10 minutes for ``rq info``, failed ones a day
JOB_TIMEOUT = 600
FAILURE_TTL = 24 * 3600

#: a worker whose private room is full, handed a private job, passes it back and looks
#: at the ranked queue again after at most this long (not at once: no busy loop)
PRIVATE_WAIT_SECONDS = 1.0
