"""The ``arena`` command: one Typer app, one module per command group."""

from __future__ import annotations

import typer

from arena.cli import bench, platform, play, rules, up

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
    app()
