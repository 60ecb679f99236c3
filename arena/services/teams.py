"""Teams as use cases: make one, invite by a one-time code, join, leave, remove, and what
a team shows (its members, bots and results).

A bot belongs to a team; every member submits and manages it. A person may be in several
teams but plays in one team per competition (Kaggle's rule): joining a team whose bots
play in a competition where the person's other team plays is refused, as is entering
a bot where one of its team's people already plays for another team
(arena.store.competitions). The captain invites and removes members; the last member
never leaves (the team's bots would have nobody); a captain leaving hands the team to
the member who joined first.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Forbidden, Invalid, NotFound
from arena.base.people import CAPTAIN, MEMBER, Someone
from arena.services.accounts import WALL_CLOCK, Clock
from arena.store import teams as store
from arena.store.db import Database
from arena.store.models import Competition, Team
from arena.store.owners import digest

#: how long an invitation's code works
INVITE_LASTS = timedelta(days=7)


@dataclass(frozen=True)
class Member:
    name: str
    role: str


@dataclass(frozen=True)
class TeamBot:
    name: str
    #: the live version's number (None: none live)
    live: int | None
    #: the operator's reason, when the bot is disqualified
    disqualified: str | None


@dataclass(frozen=True)
class TeamPublic:
    name: str
    members: list[Member]
    bots: list[TeamBot]
    created_at: str


@dataclass(frozen=True)
class Invite:
    team: str
    #: shown once: only its digest is kept
    code: str
    expires_at: str


def create(db: Database, caller: Someone, name: str) -> TeamPublic:
    """A new team with ``caller`` as its captain."""
    return db.transaction(lambda s: _public(s, store.create(s, name, caller.id)))


def show(session: Session, name: str) -> TeamPublic:
    return _public(session, store.named(session, name))


def mine(session: Session, caller: Someone) -> list[TeamPublic]:
    """The teams ``caller`` is in, with their members and bots."""
    return [_public(session, team) for team in store.teams_of(session, caller.id)]


def invite(db: Database, caller: Someone, name: str, clock: Clock = WALL_CLOCK) -> Invite:
    """A one-time code that makes whoever uses it a member (the captain's to give)."""
    code = f"join_{secrets.token_urlsafe(18)}"

    def made(session: Session) -> Invite:
        team = _captained(session, caller, name)
        moment = clock()
        expires = moment + INVITE_LASTS
        store.add_invite(session, team.id, digest(code), caller.id, moment, expires)
        return Invite(team.name, code, expires.isoformat())

    return db.transaction(made)


def join(db: Database, caller: Someone, code: str, clock: Clock = WALL_CLOCK) -> TeamPublic:
    """Use an invitation: ``caller`` becomes a member of its team (once per code)."""

    def joined(session: Session) -> TeamPublic:
        found = store.invite(session, digest(code.strip()))
        moment = clock()
        if found is None:
            raise NotFound("no such invitation: check the code")
        if found.used_at is not None:
            raise Conflict("this invitation was used already: ask the captain for another")
        if found.expires_at <= moment:
            raise Invalid("this invitation has expired: ask the captain for another")
        team = session.get_one(Team, found.team_id)
        if store.role_of(session, team.id, caller.id) is not None:
            raise Conflict(f"you are in team {team.name!r} already")
        check_one_team(session, team, [caller.id])
        found.used_at, found.used_by = moment, caller.id
        store.add_member(session, team.id, caller.id, MEMBER)
        return _public(session, team)

    return db.transaction(joined)


def leave(db: Database, caller: Someone, name: str) -> TeamPublic:
    """``caller`` leaves the team; a captain leaving hands it to the first who joined."""

    def left(session: Session) -> TeamPublic:
        team = store.named(session, name)
        role = store.role_of(session, team.id, caller.id)
        if role is None:
            raise NotFound(f"you are not in team {team.name!r}")
        others = [o for o, _ in store.members(session, team.id) if o.id != caller.id]
        if not others:
            raise Conflict(f"you are the last member of {team.name!r}: a team keeps one")
        store.remove_member(session, team.id, caller.id)
        if role == CAPTAIN:
            store.set_role(session, team.id, others[0].id, CAPTAIN)
        return _public(session, team)

    return db.transaction(left)


def remove(db: Database, caller: Someone, name: str, member: str) -> TeamPublic:
    """The captain removes ``member`` from the team."""

    def removed(session: Session) -> TeamPublic:
        team = _captained(session, caller, name)
        found = [o for o, _ in store.members(session, team.id) if o.name.lower() == member.lower()]
        if not found:
            raise NotFound(f"{member!r} is not in team {team.name!r}")
        if found[0].id == caller.id:
            raise Invalid("a captain leaves the team, never removes themself")
        store.remove_member(session, team.id, found[0].id)
        return _public(session, team)

    return db.transaction(removed)


def check_one_team(session: Session, team: Team, people: list[int]) -> None:
    """Refuse ``people`` in ``team`` when one of them plays in another team in a
    competition where ``team`` has a bot."""
    for competition_id in store.competitions_of(session, team.id):
        store.check_one_team_in(
            session, session.get_one(Competition, competition_id), team.id, people
        )


def _captained(session: Session, caller: Someone, name: str) -> Team:
    team = store.named(session, name)
    if store.role_of(session, team.id, caller.id) != CAPTAIN:
        raise Forbidden(f"only the captain of {team.name!r} may do that")
    return team


def _public(session: Session, team: Team) -> TeamPublic:
    return TeamPublic(
        name=team.name,
        members=[Member(o.name, m.role) for o, m in store.members(session, team.id)],
        bots=[
            TeamBot(
                bot.name,
                next((v.number for v in bot.versions if v.active), None),
                bot.disqualified_reason,
            )
            for bot in store.bots_of(session, team.id)
        ],
        created_at=team.created_at.isoformat(),
    )
