"""``arena team``: make a team, invite by a one-time code, join, leave, remove a member,
show one; as the owner ``arena login`` (or ``--token``) names."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.base.people import Caller
from arena.cli.errors import fail
from arena.cli.login import Token, acting_as
from arena.cli.platform import out, platform
from arena.services import teams as team_service

app = typer.Typer(
    help="Teams: make one, invite, join, leave, remove a member.", no_args_is_help=True
)
TeamName = Annotated[str, typer.Argument(help="The team's name.")]


def _caller(token: str | None) -> Caller:
    found = acting_as(platform(), token, "manage")
    if found is None:
        fail("a team is a person's: arena login first (or --token)")
    return found


def _show(team: team_service.TeamPublic) -> None:
    people = ", ".join(f"{m.name} ({m.role})" for m in team.members)
    bots = ", ".join(b.name for b in team.bots) or "no bots yet"
    out.print(f"{team.name}: {people}; {bots}", markup=False, soft_wrap=True)


@app.command("create")
def team_create(name: TeamName, token: Token = None) -> None:
    """Make a team; you are its captain."""
    _show(team_service.create(platform().db, _caller(token), name))


@app.command("invite")
def team_invite(name: TeamName, token: Token = None) -> None:
    """A one-time code for one person to join (the captain's to give)."""
    made = team_service.invite(platform().db, _caller(token), name)
    out.print(f"{made.code}  (joins {made.team} once, until {made.expires_at[:16]} UTC)")


@app.command("join")
def team_join(
    code: Annotated[str, typer.Argument(help="The captain's invitation code.")],
    token: Token = None,
) -> None:
    """Join the team an invitation names."""
    _show(team_service.join(platform().db, _caller(token), code))


@app.command("leave")
def team_leave(name: TeamName, token: Token = None) -> None:
    """Leave a team (a captain hands it to the member who joined first)."""
    _show(team_service.leave(platform().db, _caller(token), name))


@app.command("remove")
def team_remove(
    name: TeamName,
    member: Annotated[str, typer.Argument(help="The member to remove.")],
    token: Token = None,
) -> None:
    """The captain removes a member."""
    _show(team_service.remove(platform().db, _caller(token), name, member))


@app.command("show")
def team_show(name: TeamName) -> None:
    """A team's members and bots."""
    with platform().db.read() as session:
        _show(team_service.show(session, name))
