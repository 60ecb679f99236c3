"""Teams as the store keeps them: a team, its members and their roles, and its one-time
invitations (only each code's SHA-256 is kept). A bot belongs to a team; whoever is in
it manages the bot. The rules (who may invite, join, leave, enter a competition) are
arena.services.teams'."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.orm import Session

from arena.base.errors import Conflict, Forbidden, NotFound
from arena.base.names import NAME, check_name
from arena.base.people import CAPTAIN, MEMBER
from arena.base.states import CompetitionStatus
from arena.store.models import (
    BotVersion,
    Competition,
    CompetitionBot,
    Owner,
    RegisteredBot,
    Team,
    TeamInvite,
    TeamMember,
)


def named(session: Session, name: str) -> Team:
    """The team named ``name``, whatever its case."""
    team = session.scalar(select(Team).where(func.lower(Team.name) == name.lower()))
    if team is None:
        raise NotFound.of("name.missing", what="team", name=name)
    return team


def create(session: Session, name: str, captain_id: int) -> Team:
    """A new team with its captain as its one member."""
    name = check_name(name, "team")
    taken = session.scalar(select(Team.name).where(func.lower(Team.name) == name.lower()))
    if taken is not None:
        raise Conflict.of("name.taken", what="team", name=taken)
    team = Team(name=name)
    session.add(team)
    session.flush()
    add_member(session, team.id, captain_id, CAPTAIN)
    return team


def team_of_one(session: Session, owner: Owner) -> Team:
    """A new account's own team, under its name (made valid; a taken one numbered)."""
    base = re.sub(r"[^A-Za-z0-9._-]", "-", owner.name).lstrip("._-")[:90] or "team"
    name, number = base, 1
    while not NAME.fullmatch(name) or session.scalar(
        select(Team.id).where(func.lower(Team.name) == name.lower())
    ):
        number += 1
        name = f"{base}-{number}"
    return create(session, name, owner.id)


def own_team(session: Session, owner_id: int) -> Team | None:
    """The team an account's bots go to unless it names another: the first it captains,
    else the first it joined."""
    return session.scalar(
        select(Team)
        .join(TeamMember, TeamMember.team_id == Team.id)
        .where(TeamMember.owner_id == owner_id)
        .order_by((TeamMember.role == CAPTAIN).desc(), TeamMember.joined_at, Team.id)
        .limit(1)
    )


def joined(session: Session, name: str, owner_id: int | None) -> Team:
    """Team ``name``, which ``owner_id`` must be in (the operator, None, is in none)."""
    team = named(session, name)
    if owner_id is None or role_of(session, team.id, owner_id) is None:
        raise Forbidden.of("team.not_member", team=team.name)
    return team


def add_member(session: Session, team_id: int, owner_id: int, role: str = MEMBER) -> None:
    session.add(TeamMember(team_id=team_id, owner_id=owner_id, role=role))
    session.flush()


def role_of(session: Session, team_id: int, owner_id: int) -> str | None:
    """``captain``, ``member``, or None: not in the team."""
    return session.scalar(
        select(TeamMember.role).where(
            TeamMember.team_id == team_id, TeamMember.owner_id == owner_id
        )
    )


def members(session: Session, team_id: int) -> list[tuple[Owner, TeamMember]]:
    """The team's members, the captain first, then in the order they joined."""
    rows = session.execute(
        select(Owner, TeamMember)
        .join(TeamMember, TeamMember.owner_id == Owner.id)
        .where(TeamMember.team_id == team_id)
        .order_by((TeamMember.role == CAPTAIN).desc(), TeamMember.joined_at, Owner.id)
    )
    return [(owner, member) for owner, member in rows.all()]


def remove_member(session: Session, team_id: int, owner_id: int) -> None:
    session.execute(
        delete(TeamMember).where(TeamMember.team_id == team_id, TeamMember.owner_id == owner_id)
    )


def set_role(session: Session, team_id: int, owner_id: int, role: str) -> None:
    member = session.get_one(TeamMember, {"team_id": team_id, "owner_id": owner_id})
    member.role = role


def teams_of(session: Session, owner_id: int) -> list[Team]:
    """The teams ``owner_id`` is in, by name."""
    return list(
        session.scalars(
            select(Team)
            .join(TeamMember, TeamMember.team_id == Team.id)
            .where(TeamMember.owner_id == owner_id)
            .order_by(Team.name)
        )
    )


def in_teams_of(owner_id: int) -> ColumnElement[bool]:
    """A bot's clause: its team is one ``owner_id`` is in (the bots it manages)."""
    return RegisteredBot.team_id.in_(
        select(TeamMember.team_id).where(TeamMember.owner_id == owner_id)
    )


def manages(session: Session, owner_id: int, bot: RegisteredBot) -> bool:
    """Whether ``owner_id`` is in ``bot``'s team."""
    return bot.team_id is not None and role_of(session, bot.team_id, owner_id) is not None


def bots_of(session: Session, team_id: int) -> list[RegisteredBot]:
    return list(
        session.scalars(
            select(RegisteredBot)
            .where(RegisteredBot.team_id == team_id)
            .order_by(RegisteredBot.name)
        )
    )


def add_invite(
    session: Session, team_id: int, digest: str, by: int, moment: datetime, expires: datetime
) -> None:
    """An invitation to ``team_id`` whose code has SHA-256 ``digest``."""
    session.add(
        TeamInvite(
            team_id=team_id, digest=digest, created_by=by, created_at=moment, expires_at=expires
        )
    )
    session.flush()


def invite(session: Session, digest: str) -> TeamInvite | None:
    """The invitation whose code has SHA-256 ``digest`` (locked on PostgreSQL: it is used
    once)."""
    return session.scalar(select(TeamInvite).where(TeamInvite.digest == digest).with_for_update())


def households(session: Session, versions: Sequence[int]) -> dict[int, int]:
    """Each owned version's household: teams that share a person are one (the smallest
    team id names it). Bots of one household never share a table
    (arena.tournament.schedule); the operator's bots, in no team, are in none."""
    rows = session.execute(
        select(BotVersion.id, RegisteredBot.team_id)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .where(BotVersion.id.in_(versions), RegisteredBot.team_id.is_not(None))
    ).all()
    owned = [(version, team) for version, team in rows if team is not None]
    root = _joined_by_people(session, {team for _, team in owned})
    return {version: root[team] for version, team in owned}


def people_of(session: Session, versions: Sequence[int]) -> dict[int, tuple[str, set[str]]]:
    """Each owned version's team name and the names of the people in it."""
    rows = session.execute(
        select(BotVersion.id, Team.name, Owner.name)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
        .join(Team, Team.id == RegisteredBot.team_id)
        .join(TeamMember, TeamMember.team_id == Team.id)
        .join(Owner, Owner.id == TeamMember.owner_id)
        .where(BotVersion.id.in_(versions))
    ).all()
    found: dict[int, tuple[str, set[str]]] = {}
    for version, team, person in rows:
        found.setdefault(version, (team, set()))[1].add(person)
    return found


def _joined_by_people(session: Session, teams: set[int]) -> dict[int, int]:
    """Each of ``teams``: the smallest team id it is joined to through shared members."""
    root = {team: team for team in teams}

    def find(team: int) -> int:
        while root[team] != team:
            team = root[team]
        return team

    by_person: dict[int, list[int]] = {}
    for team, person in session.execute(
        select(TeamMember.team_id, TeamMember.owner_id).where(TeamMember.team_id.in_(teams))
    ).all():
        by_person.setdefault(person, []).append(team)
    for joined in by_person.values():
        first = find(joined[0])
        for other in joined[1:]:
            found = find(other)
            if found != first:
                root[max(found, first)] = min(found, first)
                first = min(found, first)
    return {team: find(team) for team in teams}


def rival_teams_in(
    session: Session, competition_id: int, team_id: int, people: Iterable[int]
) -> list[tuple[str, str, str]]:
    """Other teams with a bot entered in the competition that hold one of ``people``:
    (person, team, bot) each."""
    rows = session.execute(
        select(Owner.name, Team.name, RegisteredBot.name)
        .join(TeamMember, TeamMember.owner_id == Owner.id)
        .join(Team, Team.id == TeamMember.team_id)
        .join(RegisteredBot, RegisteredBot.team_id == Team.id)
        .join(CompetitionBot, CompetitionBot.bot_id == RegisteredBot.id)
        .join(Competition, Competition.id == CompetitionBot.competition_id)
        .where(
            CompetitionBot.competition_id == competition_id,
            Team.id != team_id,
            Competition.status != CompetitionStatus.CLOSED,
            Owner.id.in_(list(people)),
        )
        .order_by(Owner.name, Team.name, RegisteredBot.name)
    )
    return [(person, team, bot) for person, team, bot in rows.all()]


def competitions_of(session: Session, team_id: int) -> list[int]:
    """The competitions (ids) the team has a bot entered in."""
    return list(
        session.scalars(
            select(CompetitionBot.competition_id)
            .join(RegisteredBot, RegisteredBot.id == CompetitionBot.bot_id)
            .where(RegisteredBot.team_id == team_id)
            .distinct()
        )
    )


def check_one_team_in(
    session: Session, competition: Competition, team_id: int, people: Iterable[int]
) -> None:
    """Refuse when one of ``people`` already plays in ``competition`` for another team."""
    rivals = rival_teams_in(session, competition.id, team_id, people)
    if rivals:
        person, team, bot = rivals[0]
        raise Forbidden.of(
            "team.one_per_competition",
            person=person,
            team=team,
            bot=bot,
            competition=competition.name,
        )
