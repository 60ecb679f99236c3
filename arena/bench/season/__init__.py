"""A season at full size: ``bots`` bots and ``matches`` matches in one competition,
written in bulk as the recorder leaves them, then every public page and read timed cold
and warm, the recorder's rate beside the season, and what a match costs hot and cold.

The season's matches are drawn from a pool of really played matches (their logs, seat
results and fair-play tallies), re-seated at random tables of the competition's bots;
each is written as :mod:`arena.store.results` records one (``season_rows`` builds the
same rows: a test holds one written both ways equal). Ratings follow each bot's own
walk towards a skill of its own instead of TrueSkill (a millisecond a match is hours
at this size); everything else is the recorder's arithmetic. Matches finish evenly
over ``days``; logs older than the platform's hot days are in the cold store, as the
tiering leaves them (their objects are written for the matches whose pages are read),
and the rating histories are thinned as the workers thin them (arena.store.history), the
space they held given back as a season's next inserts would reuse it. The recorder is
timed in adjacent pairs against a twin: the same bots in an empty database; then what
it added to the season's fair play is folded, as the workers fold it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.bench.local import local_platform, twin_platform
from arena.bench.season.bulk import Filled, fill, thin_season
from arena.bench.season.field import competition, fold_cost, recorder_rate
from arena.bench.season.growth import pair_row_bytes
from arena.bench.season.played import POOL, Template, played_pool
from arena.bench.season.reading import pages, read_pages, table_bytes
from arena.engine import Ruleset
from arena.platform import Platform
from arena.store.cold import ColdStore


def run(
    bots: int = 1000,
    matches: int = 10_000_000,
    database_url: str | None = None,
    days: float = 100.0,
    recorded: int = 2000,
    addresses: int = 30,
    repeats: int = 200,
    pairs: int = 5,
    progress: Callable[[str], None] | None = None,
    filling: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Fill a season, then measure it (see the module's docstring); ``filling`` is told
    the matches written after each chunk."""
    say = progress or (lambda _: None)
    with local_platform("arena-bench-season-", database_url) as (arena, tmp):
        ladder_id, ladder, token = competition(arena, bots, 4)
        say(f"playing {POOL} matches to draw the season from")
        pool = played_pool(Ruleset.parse("classic"), POOL, 4)
        pair_rows = pair_row_bytes(pool, bots)
        before = sum(table_bytes(arena.db).values())
        say(f"writing {matches:,} matches")
        cold = ColdStore(arena.settings.cold_store_url())
        filled = fill(
            arena.db, cold, ladder_id, pool, matches, days, arena.settings.logs_hot_days,
            addresses, filling or (lambda _: None),
        )  # fmt: skip
        say("thinning the rating histories, as the workers do")
        unthinned = table_bytes(arena.db)
        thinned = thin_season(arena.db)
        sizes = table_bytes(arena.db)
        say("reading every page, cold then warm")
        read = _read(arena, ladder, bots, filled, token, addresses, repeats)
        say(f"the recorder: {pairs} pairs of {recorded} matches, empty database and season")
        timed = _recorder_pairs(arena, ladder_id, tmp / "twin", bots, pool, recorded, pairs)
        say("folding the fair play the recorder added beside the season")
        folded = fold_cost(arena.db, ladder_id)
    season_bytes = sum(sizes.values()) - before
    hot_logs = filled.hot_log_bytes
    return {
        "database": arena.db.engine.dialect.name,
        "bots": bots,
        "matches": matches,
        "days": days,
        "hot_days": arena.settings.logs_hot_days,
        "fill_seconds": round(filled.seconds, 1),
        "fill_matches_per_s": round(matches / filled.seconds),
        "thin_seconds": round(thinned.seconds, 1),
        "history_updates_thinned": thinned.removed,
        "history_bytes_a_match_unthinned": round(unthinned["rating_history"] / matches),
        "pages": read,
        **timed,
        **folded,
        "table_bytes": sizes,
        "bytes_a_match": round(season_bytes / matches),
        "bytes_a_match_tiered": round((season_bytes - hot_logs) / matches),
        "cold_bytes_a_match": round((filled.cold_log_bytes + hot_logs) / matches),
        "pair_row_bytes_by_matches_together": pair_rows,
    }


def _recorder_pairs(
    arena: Platform,
    ladder_id: int,
    folder: Path,
    bots: int,
    pool: list[Template],
    recorded: int,
    pairs: int,
) -> dict[str, Any]:
    """The recorder's rate beside the season against its rate into an empty database
    of the same bots, timed in adjacent pairs (the order alternating, so a drift of the
    machine's speed falls on both sides alike); the medians, and each pair."""
    with twin_platform(arena, folder) as twin:
        twin_id = competition(twin, bots, 4)[0]
        timed = []
        for n in range(pairs):
            if n % 2 == 0:
                empty = recorder_rate(twin.db, twin_id, pool, recorded)
                beside = recorder_rate(arena.db, ladder_id, pool, recorded)
            else:
                beside = recorder_rate(arena.db, ladder_id, pool, recorded)
                empty = recorder_rate(twin.db, twin_id, pool, recorded)
            timed.append((empty, beside))
    drops = [100 * (empty - beside) / empty for empty, beside in timed]
    return {
        "recorder_empty_per_s": round(statistics.median(e for e, _ in timed), 1),
        "recorder_season_per_s": round(statistics.median(b for _, b in timed), 1),
        "recorder_drop_percent": round(statistics.median(drops), 1),
        "recorder_pairs": [[round(e, 1), round(b, 1)] for e, b in timed],
    }


def _read(
    arena: Platform,
    ladder: str,
    bots: int,
    filled: Filled,
    token: str,
    addresses: int,
    repeats: int,
) -> dict[str, dict[str, Any]]:
    """Every page through the app, cold in ``COLD_APPS`` new processes (a restarted
    dashboard each: not this one, which holds what the fill left), then warm."""
    found = pages(ladder, bots, filled.hot, filled.cold, token, addresses)
    return read_pages(arena.settings, found, repeats)
