"""``arena owner``: owners and their API tokens."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.cli.platform import out, platform
from arena.services import owners as owner_service

app = typer.Typer(help="Owners and their API tokens.", no_args_is_help=True)


@app.command("list")
def owner_list() -> None:
    """Owners, their bots and whether their token works (tokens are never shown)."""
    rows = owner_service.listing(platform().db)
    table = Table("owner", "token", "bots", "since")
    for row in rows:
        since = str(row["created_at"])[:19]
        table.add_row(str(row["name"]), str(row["token"]), ", ".join(row["bots"]), since)
    out.print(table)


@app.command("rotate")
def owner_rotate(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Give an owner a new API token (printed once); the old one stops working."""
    token = owner_service.rotate(platform().db, name)
    out.print(f"new API token for {name} (the old one no longer works):", markup=False)
    print(token)


@app.command("revoke")
def owner_revoke(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Stop an owner's API token from working (``rotate`` gives a new one)."""
    owner_service.revoke(platform().db, name)
    out.print(f"{name}'s API token is revoked", markup=False)


@app.command("add")
def owner_add(name: Annotated[str, typer.Argument(help="The owner's name.")]) -> None:
    """Create an owner and print its API token (shown once)."""
    token = owner_service.add(platform().db, name)
    out.print(
        f"owner {name} created; API token (keep it, it is not shown again; "
        f"'arena owner rotate {name}' makes a new one):",
        markup=False,
    )
    print(token)
