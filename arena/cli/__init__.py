"""The ``arena`` command: one module per command group, each imported only when its
command runs (``arena --help`` and ``arena play`` never load the store, Alembic or
FastAPI: a command starts in the time its own imports take)."""

from __future__ import annotations

import importlib
import sys
from typing import Any, NamedTuple

import typer
import typer.main
from typer import _click as click  # the click typer runs on (its own copy since 0.26)
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandInfo


class Entry(NamedTuple):
    module: str
    attribute: str
    #: the one line ``arena --help`` shows (tests/test_cli.py checks it is the command's)
    help: str


#: every command, in the order ``arena --help`` lists them
COMMANDS: dict[str, Entry] = {
    "rules": Entry(
        "arena.cli.rules", "app", "The rules engine: conformance scenarios and in-process play."
    ),
    "bench": Entry("arena.cli.bench", "app", "Benchmarks that print figures."),
    "up": Entry(
        "arena.cli.up",
        "up",
        "Run the platform on this machine with a demo tournament; Ctrl-C stops it.",
    ),
    "play": Entry(
        "arena.cli.play",
        "play",
        "Play matches between bots (seats rotate) and print a table per bot.",
    ),
    "replay": Entry(
        "arena.cli.play",
        "replay_command",
        "Re-referee a match log from its seed and actions; exit 1 if anything differs.",
    ),
    "bot": Entry("arena.cli.bots", "app", "Register bots."),
    "tournament": Entry("arena.cli.tournaments", "app", "Create, start and follow tournaments."),
    "competition": Entry(
        "arena.cli.competitions",
        "app",
        "Competitions: standing ladders every qualified version joins by itself.",
    ),
    "abtest": Entry(
        "arena.cli.abtests",
        "app",
        "A/B tests: is a new version better than a base, on paired deals (docs/abtest.md).",
    ),
    "scrimmage": Entry(
        "arena.cli.scrimmages",
        "scrimmage",
        "Queue unranked matches of a bot against rivals its owner chooses.",
    ),
    "db": Entry("arena.cli.db", "app", "The database."),
    "logs": Entry(
        "arena.cli.logs",
        "app",
        "Match logs: move old ones to the cold store, drop those retention lets go.",
    ),
    "worker": Entry(
        "arena.cli.worker",
        "worker_command",
        "Run a worker that plays queued matches (needs REDIS_URL, and ARENA_DATABASE_URL "
        "unless the database is the local default).",
    ),
    "dashboard": Entry(
        "arena.cli.dashboard",
        "dashboard_command",
        "Serve the dashboard and the API (http://HOST:PORT/, the API under /api/v1).",
    ),
    "owner": Entry("arena.cli.owners", "app", "Owners and their API tokens."),
    "login": Entry(
        "arena.cli.login", "login", "Keep an owner's API token for this user's commands."
    ),
    "logout": Entry("arena.cli.login", "logout", "Forget the token arena login kept."),
    "team": Entry(
        "arena.cli.teams", "app", "Teams: make one, invite, join, leave, remove a member."
    ),
    "operator": Entry(
        "arena.cli.operators",
        "app",
        "The operator's moderation: roles, suspensions, disqualifications, voided matches.",
    ),
    "audit": Entry(
        "arena.cli.operators", "audit", "The operators' actions: who, what, on what, when and why."
    ),
    "status": Entry(
        "arena.cli.status",
        "status_command",
        "The platform across its hosts: queues, matches in play, and every worker (its "
        "host, load, last heartbeat, how it runs uploaded bots).",
    ),
}


def load(name: str) -> click.Command:
    """The click command ``name`` stands for, its module imported now."""
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(entry.module), entry.attribute)
    if isinstance(target, typer.Typer):
        command: click.Command = typer.main.get_group(target)
    else:
        command = typer.main.get_command_from_info(
            CommandInfo(name=name, callback=target),
            pretty_exceptions_short=True,
            rich_markup_mode="rich",
        )
    command.name = name
    return command


class LazyGroup(TyperGroup):
    """A group whose commands are imported when they run; its help lists them from
    :data:`COMMANDS` without importing any."""

    def __init__(self, **attrs: Any) -> None:
        stubs: dict[str, click.Command] = {
            name: TyperCommand(name, help=entry.help) for name, entry in COMMANDS.items()
        }
        super().__init__(commands=stubs, **attrs)
        self._listing = False
        self._loaded: dict[str, click.Command] = {}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        if self._listing:
            return self.commands[cmd_name]
        if cmd_name not in self._loaded:
            self._loaded[cmd_name] = load(cmd_name)
        return self._loaded[cmd_name]

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = LazyGroup(
    name="arena",
    help="Arena: bot tournaments for the bluffing card game Verish' Ne Verish'.",
    no_args_is_help=True,
)


def main() -> None:
    """Run the command; a service that is down, a request the store refuses or a command
    that fails (arena.cli.platform.fail) ends it with one line on stderr (exit 1, 2 or the
    command's own status), never a traceback: the CLI's one error path."""
    try:
        app(prog_name="arena")
    except Exception as error:
        from arena.cli.failures import explain

        explained = explain(error)
        if explained is None:
            raise
        message, code = explained
        from rich.text import Text

        from arena.cli import console

        # a Text: a message that quotes a bot's output or a name is not read as markup
        console.stderr().print(Text.assemble(("error:", "red"), " ", message), highlight=False)
        sys.exit(code)
