"""``arena db``: the database."""

from __future__ import annotations

import typer

from arena.cli.platform import out, platform

app = typer.Typer(help="The database.", no_args_is_help=True)


@app.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the current schema (every command does this too)."""
    arena = platform()
    out.print(f"database at {arena.settings.database_url} is current")
