"""Who acts on the platform, as the use cases see them: an owner's id and name (the
store's ``Owner`` row is one; the API's caller, read from a token, is another)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Someone(Protocol):
    """An owner acting: the rights and the private runs go by its id."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


#: what an API token may do: read the owner's own things, submit bots and versions,
#: manage the rest (tournaments, tests, releases, tokens)
SCOPES = ("read", "submit", "manage")
#: what an account is: an owner, or an operator (the console and the operator's API)
OWNER, OPERATOR = "owner", "operator"
ROLES = (OWNER, OPERATOR)
#: a person's role in a team: the captain invites and removes members; every member
#: submits and manages the team's bots
CAPTAIN, MEMBER = "captain", "member"


@dataclass(frozen=True)
class Caller:
    """The owner a request's token (or session) names, and what it may do."""

    id: int
    name: str
    scopes: frozenset[str] = frozenset(SCOPES)
    #: an account with the operator's role (arena operator grant)
    operator: bool = False
