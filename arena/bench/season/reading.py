"""Every public page and read of a season, cold and warm, and the bytes its tables hold."""

from __future__ import annotations

import multiprocessing
import random
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, text

from arena.bench.client import TestClient
from arena.platform.settings import Settings
from arena.store.db import Database

#: new processes each page is read cold in (a dashboard started each time)
COLD_APPS = 3
#: the tables whose rows grow with the matches (a match's bytes)
SEASON_TABLES = (
    "matches",
    "seats",
    "rating_history",
    "match_logs",
    "pair_results",
    "fairplay_pairs",
)


@dataclass(frozen=True)
class Page:
    """A public page or read, at ``urls`` (each read once cold, then warm)."""

    name: str
    urls: list[str]
    headers: dict[str, str] = field(default_factory=dict)


def pages(
    ladder: str, bots: int, hot: list[int], cold: list[int], token: str, count: int
) -> list[Page]:
    """Every public page and read of the season, ``count`` distinct addresses each where
    it has that many (bots, matches, deep list pages)."""
    rng = random.Random(2)
    some_bots = [f"bot-{rng.randrange(bots):04d}" for _ in range(count)]
    deep = [rng.choice(hot + cold) for _ in range(count)]
    owned = {"Authorization": f"Bearer {token}"}
    return [
        Page("home", ["/"]),
        Page("leaderboard (all bots)", ["/leaderboard"]),
        Page("the competition", ["/competitions/main"]),
        Page("tournament page (head-to-head)", [f"/tournaments/{ladder}"]),
        Page("leaderboard rows", [f"/tournaments/{ladder}/leaderboard"]),
        Page("leaders' rating chart", [f"/tournaments/{ladder}/chart"]),
        Page("a bot's page", [f"/bots/{b}" for b in some_bots]),
        Page("a bot's rating chart", [f"/bots/{b}/chart?tournament={ladder}" for b in some_bots]),
        Page("match list", ["/matches"]),
        Page("match list, one bot", [f"/matches?bot={b}" for b in some_bots]),
        Page("match list, page 100", [f"/matches?tournament={ladder}&page=100"]),
        Page(
            "match list, older than (keyset)",
            [f"/matches?tournament={ladder}&before={m}" for m in deep],
        ),
        Page("match page, young log", [f"/matches/{m}" for m in hot[:count]]),
        Page("match page, cold log", [f"/matches/{m}" for m in cold[:count]]),
        Page("API: the competition", ["/api/v1/competitions/main"]),
        Page("API: tournament", [f"/api/v1/tournaments/{ladder}"]),
        Page("API: bots", ["/api/v1/bots"]),
        Page(
            "API: matches, one bot",
            [f"/api/v1/matches?bot={b}&per_page=50" for b in some_bots],
        ),
        Page("API: a match", [f"/api/v1/matches/{m}" for m in hot[:count]]),
        Page("API: young log", [f"/api/v1/matches/{m}/log" for m in hot[:count]]),
        Page("API: cold log", [f"/api/v1/matches/{m}/log" for m in cold[:count]]),
        Page("API: owner's matches", ["/api/v1/owners/me/matches"], owned),
    ]


def read_pages(settings: Settings, found: list[Page], repeats: int) -> dict[str, dict[str, Any]]:
    """Each page's times (ms): cold (each address's first read in each of ``COLD_APPS``
    new processes, a dashboard restarted each time), then warm (``repeats`` reads after,
    in the last)."""
    cold: dict[str, list[float]] = defaultdict(list)
    warm: dict[str, list[float]] = {}
    for round_ in range(COLD_APPS):
        asked = repeats if round_ == COLD_APPS - 1 else 0
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            read_cold, warm = pool.submit(_read_in_new_process, settings, found, asked).result()
        for name, spent in read_cold.items():
            cold[name] += spent
    return {
        page.name: {
            "cold_p50_ms": _quantile(cold[page.name], 0.5),
            "cold_p99_ms": _quantile(cold[page.name], 0.99),
            "warm_p50_ms": _quantile(warm[page.name], 0.5),
            "warm_p99_ms": _quantile(warm[page.name], 0.99),
            "warm_max_ms": round(max(warm[page.name]), 2),
            "addresses": len(page.urls),
            "cold_reads": len(cold[page.name]),
        }
        for page in found
    }


def _read_in_new_process(
    settings: Settings, found: list[Page], repeats: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """A dashboard as ``arena dashboard`` starts it (its heap frozen before serving): each
    address read once, then each page ``repeats`` times over its addresses."""
    from dashboard.app import create_app
    from dashboard.server import freeze_heap

    with TestClient(create_app(settings)) as client:
        freeze_heap()
        cold = {
            page.name: [_timed(client, url, page.headers) for url in page.urls] for page in found
        }
        warm = {
            page.name: [
                _timed(client, page.urls[n % len(page.urls)], page.headers) for n in range(repeats)
            ]
            for page in found
        }
    return cold, warm


def _timed(client: TestClient, url: str, headers: dict[str, str]) -> float:
    began = time.perf_counter()
    response = client.get(url, headers=headers)
    spent = (time.perf_counter() - began) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"GET {url}: {response.status_code} {response.text[:200]}")
    return spent


def _quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if len(ordered) == 1:
        return round(ordered[0], 2)
    return round(statistics.quantiles(ordered, n=100, method="inclusive")[int(q * 100) - 1], 2)


# ------------------------------------------------------------------ bytes
def table_bytes(db: Database) -> dict[str, int]:
    """Each season table's bytes on disk, its indexes included."""
    with db.engine.connect() as connection:
        if db.engine.dialect.name == "postgresql":
            return {
                name: int(connection.scalar(text(f"SELECT pg_total_relation_size('{name}')")))
                for name in SEASON_TABLES
            }
        return _sqlite_bytes(connection)


def _sqlite_bytes(connection: Connection) -> dict[str, int]:
    """From SQLite's dbstat table, a table's pages and its indexes'."""
    try:
        rows = connection.execute(
            text(
                "SELECT m.tbl_name AS owner, sum(s.pgsize) AS size FROM dbstat s "
                "JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name"
            )
        ).all()
    except Exception:  # a SQLite built without dbstat: the whole file, to one table
        size = connection.scalar(
            text("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
        )
        return {"matches": int(size or 0)}
    sizes = {row.owner: int(row.size) for row in rows}
    return {name: sizes.get(name, 0) for name in SEASON_TABLES}
