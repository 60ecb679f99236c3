"""The site under readers while workers record at full speed.

A platform with a private Redis and PostgreSQL (``database_url``; SQLite without one),
a competition of the four samples played unpaced by two workers, and ``arena dashboard``
as a real server on the loopback. First the workers alone: matches recorded a minute
over ``window`` seconds. Then ``readers`` concurrent readers (each one request at a time,
``think`` seconds between: a person reading) over the leaderboard, the competition and
tournament pages, match lists, match pages and match logs for another ``window``
seconds: their latencies (median, p95, p99), errors, and the recording rate beside them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

from arena.base.states import MatchStatus
from arena.bench.local import local_platform
from arena.bench.readers import Crowd
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Dashboard, Workers
from arena.store import bots as bot_store
from arena.store import competitions
from arena.store.models import TournamentMatch
from sample_bots import NAMES

#: matches recorded before reading starts: pages with something on them
WARM_MATCHES = 200


#: seconds after which the readers' latencies count as the site's steady state
WARM_SECONDS = 10.0


def run(
    readers: int = 200,
    window: float = 60.0,
    think: float = 1.0,
    database_url: str | None = None,
    progress: Callable[[str], None] | None = None,
    workers: int = 2,
    processes: int = 2,
) -> dict[str, Any]:
    """``workers``: 0 measures the site alone (after a warm-up played by one worker)."""
    say = progress or (lambda _: None)
    with local_platform("arena-bench-site-", database_url) as (arena, tmp):
        ladder_id = _competition(arena)
        with Workers(arena.settings, max(workers, 1), tmp / "logs"):
            say(f"warming up: {WARM_MATCHES} matches")
            _wait_for(lambda: _recorded(arena, ladder_id) >= WARM_MATCHES)
        with (
            Workers(arena.settings, workers, tmp / "logs"),
            Dashboard(arena.settings, 0, tmp) as site,
        ):
            alone = 0.0
            if workers:
                say(f"the workers alone: {window:g} s")
                alone = _rate(arena, ladder_id, lambda: time.sleep(window))
            urls = _urls(arena, ladder_id)
            say(f"{readers} readers for {window:g} s")
            crowd = Crowd(site.url, urls, readers, think, processes)
            before = _served(site.url)
            beside = _rate(
                arena,
                ladder_id,
                lambda: crowd.read(window),
            )
            served = _minus(_served(site.url), before)
    latencies, errors = crowd.latencies, crowd.errors
    ordered = sorted(latency for _, latency in latencies)
    steady = sorted(latency for began, latency in latencies if began >= WARM_SECONDS)
    return {
        "database": "postgresql" if database_url else "sqlite",
        "workers": workers,
        "readers": readers,
        "reader_processes": processes,
        "think_s": think,
        "window_s": window,
        "requests": len(latencies) + len(errors),
        "requests_per_s": round((len(latencies) + len(errors)) / window, 1),
        "errors": len(errors),
        "error_examples": errors[:5],
        "p50_ms": round(_quantile(ordered, 0.50) * 1000, 1),
        "p95_ms": round(_quantile(ordered, 0.95) * 1000, 1),
        "p99_ms": round(_quantile(ordered, 0.99) * 1000, 1),
        # once every page was asked for once (the first readers find nothing kept)
        "steady_p99_ms": round(_quantile(steady, 0.99) * 1000, 1),
        "steady_after_s": WARM_SECONDS,
        # the same requests as the server timed them (its histogram's bounds: "at most")
        "server_p50_ms": _bound(served, 0.50),
        "server_p95_ms": _bound(served, 0.95),
        "server_p99_ms": _bound(served, 0.99),
        "recorded_per_min_alone": round(alone, 1),
        "recorded_per_min_beside_readers": round(beside, 1),
        "recording_drop_percent": round(100 * (alone - beside) / alone, 1) if alone else None,
    }


def _served(base: str) -> dict[float, float]:
    """The site's request-time histogram, every kind of page summed: upper bound (s) ->
    requests at most that long (``/metrics``)."""
    text = httpx.get(f"{base.rstrip('/')}/metrics", timeout=30).text
    counts: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != "arena_http_request_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                bound = float(sample.labels["le"])
                counts[bound] = counts.get(bound, 0.0) + sample.value
    return counts


def _minus(after: dict[float, float], before: dict[float, float]) -> dict[float, float]:
    return {bound: count - before.get(bound, 0.0) for bound, count in after.items()}


def _bound(counts: dict[float, float], fraction: float) -> float | None:
    """The smallest histogram bound (ms) that holds ``fraction`` of the requests."""
    total = counts.get(math.inf, 0.0)
    if not total:
        return None
    bound = next(b for b in sorted(counts) if counts[b] >= fraction * total)
    return bound * 1000 if bound != math.inf else None  # beyond the last bound


def _competition(arena: Platform) -> int:
    arena.db.transaction(lambda s: [bot_store.register_sample(s, n) for n in NAMES])
    arena.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, tables=4, bot_names=list(NAMES),
            default=True, pace=None,
        )
    )  # fmt: skip
    with arena.db.read() as session:
        return competitions.get(session, "main").tournament_id


def _recorded(arena: Platform, ladder_id: int) -> int:
    with arena.db.read() as session:
        return (
            session.scalar(
                select(func.count(TournamentMatch.id)).where(
                    TournamentMatch.tournament_id == ladder_id,
                    TournamentMatch.status == MatchStatus.DONE,
                )
            )
            or 0
        )


def _wait_for(condition: Callable[[], bool], timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("the workers recorded nothing: see the bench's logs")
        time.sleep(0.5)


def _rate(arena: Platform, ladder_id: int, during: Callable[[], None]) -> float:
    """Matches recorded a minute while ``during`` runs."""
    before, began = _recorded(arena, ladder_id), time.monotonic()
    during()
    return (_recorded(arena, ladder_id) - before) * 60 / (time.monotonic() - began)


def _urls(arena: Platform, ladder_id: int) -> list[str]:
    """What readers read: the standings and lists, and recorded matches' pages and logs."""
    with arena.db.read() as session:
        recent = session.scalars(
            select(TournamentMatch.id)
            .where(
                TournamentMatch.tournament_id == ladder_id,
                TournamentMatch.status == MatchStatus.DONE,
            )
            .order_by(TournamentMatch.id.desc())
            .limit(50)
        ).all()
        ladder = competitions.get(session, "main").tournament.name
    fixed = [
        "/", "/leaderboard", "/competitions/main", f"/tournaments/{ladder}",
        "/api/v1/competitions/main", f"/api/v1/tournaments/{ladder}/leaderboard",
        f"/api/v1/matches?tournament={ladder}&per_page=50", "/matches",
    ]  # fmt: skip
    matches = [f"/matches/{m}" for m in recent] + [f"/api/v1/matches/{m}/log" for m in recent]
    return fixed * (len(matches) // len(fixed) or 1) + matches


def _quantile(ordered: list[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
