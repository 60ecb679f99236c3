"""The ``arena`` command: one Typer app, one module per command group."""

from __future__ import annotations

import sys

import typer

from arena.cli import bench, console, platform, play, rules, up
from arena.engine import RulesError
from arena.platform import PlatformError
from arena.platform.errors import SERVICE_ERRORS, unavailable
from arena.store.errors import StoreError

app = typer.Typer(
    help="Arena: bot tournaments for the bluffing card game Verish' Ne Verish'.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(rules.app, name="rules")
app.add_typer(bench.app, name="bench")
app.command("up")(up.up)
app.command("play")(play.play)
app.command("replay")(play.replay_command)
app.add_typer(platform.bot_app, name="bot")
app.add_typer(platform.tournament_app, name="tournament")
app.add_typer(platform.db_app, name="db")
app.command("worker")(platform.worker_command)
app.command("dashboard")(platform.dashboard_command)
app.add_typer(platform.owner_app, name="owner")


def main() -> None:
    """Run the command; a service that is down or a request the store refuses ends it
    with one line on stderr (exit 1 and 2), never a traceback."""
    try:
        app()
    except SERVICE_ERRORS as error:
        console.stderr().print(f"[red]error:[/red] {unavailable(error)}", highlight=False)
        sys.exit(1)
    except PlatformError as error:
        console.stderr().print(f"[red]error:[/red] {error}", highlight=False)
        sys.exit(1)
    except (StoreError, RulesError) as error:
        console.stderr().print(f"[red]error:[/red] {error}", highlight=False)
        sys.exit(2)
