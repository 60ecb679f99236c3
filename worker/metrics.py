"""What a worker tells Prometheus: matches it ended by outcome, matches in flight, and
how long claims, seat set-up (sandboxes started or taken warm) and recording take.

Served on ``ARENA_WORKER_METRICS`` (``HOST:PORT``; off when unset) at ``/metrics``, from
a registry of the worker's own: the dashboard's ``/metrics`` says what the database and
Redis hold for the whole platform, each worker what only it sees (docs/operations.md).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

#: seconds: from a millisecond's work to a sandbox's slow start or a batch's record
_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REGISTRY = CollectorRegistry()
MATCHES = Counter(
    "arena_worker_matches",
    "Matches this worker ended: recorded, discarded (its claim was lost: played again "
    "elsewhere), not started (its claim was lost before a slot was free) or given back "
    "(a platform failure: queued again or failed)",
    ["outcome"],
    registry=REGISTRY,
)
IN_FLIGHT = Gauge(
    "arena_worker_matches_in_flight", "Matches claimed here and playing", registry=REGISTRY
)
CLAIM = Histogram(
    "arena_worker_claim_seconds", "A job's claim of its matches", buckets=_BUCKETS,
    registry=REGISTRY,
)  # fmt: skip
SETUP = Histogram(
    "arena_worker_setup_seconds",
    "A match's seats made ready (sandboxes started or taken warm, streams opened)",
    buckets=_BUCKETS,
    registry=REGISTRY,
)
RECORD = Histogram(
    "arena_worker_record_seconds",
    "Recording a batch of results, per match in it",
    buckets=_BUCKETS,
    registry=REGISTRY,
)


def serve(address: str) -> None:
    """Serve ``/metrics`` on ``address`` (``HOST:PORT``) from a thread of its own."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"ARENA_WORKER_METRICS is HOST:PORT, not {address!r}")
    start_http_server(int(port), addr=host.strip("[]"), registry=REGISTRY)
