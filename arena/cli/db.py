"""``arena db``: the database."""

from __future__ import annotations

import typer

from arena.cli.platform import out, platform

app = typer.Typer(help="The database.", no_args_is_help=True)


@app.command("upgrade")
def db_upgrade() -> None:
    """Bring the database to the current schema, making an empty platform if it holds
    none (every other command migrates an existing one, and refuses an empty one)."""
    arena = platform(create=True)
    url = arena.db.shown_url
    out.print(f"database at {url} (data dir {arena.settings.data_dir}) is current")
