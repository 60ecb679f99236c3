"""``arena login`` and ``arena logout``: the CLI keeps an owner's API token in a file of
the user's own (mode 0600, ``$XDG_CONFIG_HOME/arena/token``, else ``~/.config``), so the
commands that act as an owner (``bot submit``, ``bot promote``, ...) need no ``--token``;
``--token`` and ``ARENA_TOKEN`` still win over it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.errors import fail
from arena.cli.platform import out, platform
from arena.platform.settings import token_file

if TYPE_CHECKING:
    from arena.base.people import Caller
    from arena.platform import Platform


def stored_token() -> str | None:
    """The token ``arena login`` kept (None: nobody signed in on this machine)."""
    try:
        return token_file().read_text().strip() or None
    except FileNotFoundError:
        return None


def acting_as(arena: Platform, token: str | None, scope: str) -> Caller | None:
    """The owner the command acts as: the token's (``--token``, ``ARENA_TOKEN``, else
    the one ``arena login`` kept), which must have ``scope``; None: the operator."""
    from arena.services import owners as owner_service

    token = token or stored_token()
    if not token:
        return None
    owner = owner_service.scoped(arena.db, token)
    if owner is None:
        fail("that token is no owner's (arena owner add NAME makes one, or /account)")
    if scope not in owner.scopes:
        fail(f"that token may {' and '.join(sorted(owner.scopes))} only: this needs {scope}")
    return owner


def acting(arena: Platform, token: str | None, scope: str) -> int | None:
    """:func:`acting_as`'s owner id (None: the operator)."""
    owner = acting_as(arena, token, scope)
    return owner.id if owner is not None else None


Token = Annotated[
    str | None,
    typer.Option(
        envvar="ARENA_TOKEN",
        help="As the owner of this API token (default: the one arena login kept; without"
        " either: the operator).",
    ),
]


def login(
    token: Annotated[
        str,
        typer.Option(
            prompt="API token",
            hide_input=True,
            envvar="ARENA_TOKEN",
            help="An owner's API token (arena owner add, or /account on the site).",
        ),
    ],
) -> None:
    """Keep an owner's API token for this user's commands."""
    from arena.services import owners as owner_service

    owner_id = owner_service.owner_of(platform().db, token.strip())
    if owner_id is None:
        fail("that token is nobody's (or it was revoked, or its days are over)")
    path = token_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # a file that existed keeps no wider mode
    with os.fdopen(descriptor, "w") as kept:
        kept.write(token.strip() + "\n")
    described = owner_service.described(platform().db, owner_id)
    out.print(f"signed in as {described['name']} (the token is in {path})", markup=False)


def logout() -> None:
    """Forget the token arena login kept."""
    path = token_file()
    if path.exists():
        path.unlink()
        out.print(f"signed out ({path} removed)", markup=False)
    else:
        out.print("nobody was signed in", markup=False)
