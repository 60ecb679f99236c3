"""``arena operator``: roles and suspensions, each kept in the audit log (``arena
audit`` prints it)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.base.people import OPERATOR, OWNER
from arena.cli.platform import out, platform
from arena.services import operators as operator_service

app = typer.Typer(
    help="The operator's moderation: roles, suspensions, disqualifications, voided matches.",
    no_args_is_help=True,
)
Name = Annotated[str, typer.Argument(help="The account's name.")]
Reason = Annotated[str, typer.Option("--reason", help="Why, for the audit log.")]


@app.command("grant")
def operator_grant(name: Name) -> None:
    """Give an account the operator's role (the console and the operator's API)."""
    state = operator_service.grant(platform().db, name, OPERATOR)
    out.print(f"{state.name} is an operator", markup=False)


@app.command("revoke")
def operator_revoke(name: Name) -> None:
    """Take the operator's role back (an owner again)."""
    state = operator_service.grant(platform().db, name, OWNER)
    out.print(f"{state.name} is an owner, no longer an operator", markup=False)


@app.command("suspend")
def operator_suspend(name: Name, reason: Reason) -> None:
    """Suspend an account: its sessions end, its tokens and password stop working."""
    state = operator_service.suspend(platform().db, name, reason)
    out.print(f"{state.name} is suspended: {state.reason}", markup=False)


@app.command("lift")
def operator_lift(name: Name, reason: Reason) -> None:
    """Lift an account's suspension."""
    state = operator_service.lift(platform().db, name, reason)
    out.print(f"{state.name} is no longer suspended", markup=False)


@app.command("disqualify")
def operator_disqualify(
    spec: Annotated[str, typer.Argument(help="BOT (every version), or BOT:N (one version).")],
    reason: Reason,
) -> None:
    """Disqualify a bot or a version: off every leaderboard, at no new table."""
    done = operator_service.disqualify(platform().db, spec, reason)
    out.print(f"{done.target} is disqualified: {done.reason}", markup=False)


@app.command("void")
def operator_void(
    match_id: Annotated[int, typer.Argument(help="The match's number.")], reason: Reason
) -> None:
    """Void a recorded match: its result leaves the ratings, recomputed in order."""
    done = operator_service.void(platform().db, match_id, reason)
    out.print(f"match {done.match} of {done.tournament} is void: {done.reason}", markup=False)


def audit(
    limit: Annotated[int, typer.Option(min=1, help="Entries, the newest first.")] = 50,
) -> None:
    """The operators' actions: who, what, on what, when and why."""
    with platform().db.read() as session:
        rows = operator_service.audit_log(session, limit)
    table = Table("when", "who", "did", "to", "why")
    for row in rows:
        table.add_row(row.at[:19], row.actor, row.action, row.target, row.reason)
    out.print(table)
