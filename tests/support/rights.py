"""The rights table of docs/api.md: every route against five callers (nobody, another
team's member, a member of the team, its captain, the operator), the scene the answers
are read in, and a request for each route."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.base.people import Caller
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.services import teams as team_service
from arena.store import bots, competitions, tournaments
from arena.store.models import BotVersion, Owner
from arena.store.owners import add_owner
from tests.support.api import OPERATOR_TOKEN, auth
from tests.support.store import SAMPLES, add_samples

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
#: a table id nobody was given (a table's id is the key to its seat)
NOBODYS = "n0-such-table-id"
#: the callers, in the table's order
ROLES = ("nobody", "another team's member", "a member", "the captain", "the operator")
_ANSWER = r" (\d+|—)[^|]*\|"
ROW = re.compile(r"^\| `(GET|POST|DELETE|PUT|PATCH) (/api/v1/[^`]*)` \|" + _ANSWER * len(ROLES))


def documented() -> dict[tuple[str, str], dict[str, str]]:
    """(method, path) -> each caller's answer ("—": not asked of that caller)."""
    rows = {}
    for line in DOC.read_text().splitlines():
        found = ROW.match(line)
        if found:
            method, path, *answers = found.groups()
            rows[(method, path)] = dict(zip(ROLES, answers, strict=True))
    return rows


@dataclass(frozen=True)
class Scene:
    """alice captains team "alice" (bot "alices", a private tournament and an A/B
    test); bob is a member of it; mallory is in a team of her own; the operator's
    tournament "open"."""

    client: TestClient
    arena: Platform
    alice: str
    bob: str
    mallory: str

    def headers(self, role: str) -> dict[str, str]:
        token = {
            "nobody": None,
            "another team's member": self.mallory,
            "a member": self.bob,
            "the captain": self.alice,
            "the operator": OPERATOR_TOKEN,
        }[role]
        return auth(token) if token else {}


def scene(client: TestClient, alice: str, arena: Platform) -> Scene:
    add_samples(arena.db)
    _, mallory = arena.db.transaction(lambda s: add_owner(s, "mallory"))
    bob_owner, bob = arena.db.transaction(lambda s: add_owner(s, "bob"))
    alice_id = arena.db.transaction(lambda s: owner_id(s, "alice"))
    captain = Caller(alice_id, "alice")
    code = team_service.invite(arena.db, captain, "alice").code
    team_service.join(arena.db, Caller(bob_owner.id, "bob"), code)
    arena.db.transaction(
        lambda s: bots.add_bot(s, "alices", BotKind.SAMPLE, "honest", owner_id=alice_id)
    )
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(alice),
        json={"name": "alices-cup", "bots": ["alices", *SAMPLES[:2]], "table_size": 3},
    )
    assert made.status_code == 201, made.text
    arena.db.transaction(lambda s: _second_version(s, "alices"))
    tested = client.post(
        "/api/v1/abtests",
        headers=auth(alice),
        json={"name": "alices-ab", "new": "alices:2", "base": "alices:1"},
    )
    assert tested.status_code == 201, tested.text
    rules = Ruleset.parse("classic")
    arena.db.transaction(lambda s: tournaments.create(s, "open", rules, SAMPLES, 4, 4))
    arena.db.transaction(lambda s: competitions.create(s, "main", rules, 4, bot_names=SAMPLES))
    return Scene(client, arena, alice, bob, mallory)


def owner_id(session: Session, name: str) -> int:
    return session.scalar(select(Owner.id).where(Owner.name == name))


def _second_version(session: Session, name: str) -> None:
    """A second qualified version of the bot (an A/B test compares two)."""
    first = bots.active_version(session, name)
    session.add(BotVersion(bot_id=first.bot_id, number=2, kind=first.kind, target=first.target))


def attempts(alice_bot: str = "alices") -> dict[tuple[str, str], tuple[str, dict | None]]:
    """A request for each route: (the URL to call, its body)."""
    return {
        ("GET", "/api/v1/bots"): ("/api/v1/bots", None),
        ("POST", "/api/v1/accounts"): (
            "/api/v1/accounts",
            {"name": "newcomer", "password": "a long passphrase of theirs"},
        ),
        ("POST", "/api/v1/sessions"): (
            "/api/v1/sessions",
            {"name": "alice", "password": "not alice's password at all"},
        ),
        ("GET", "/api/v1/sessions/current"): ("/api/v1/sessions/current", None),
        ("DELETE", "/api/v1/sessions/current"): ("/api/v1/sessions/current", None),
        ("POST", "/api/v1/tokens"): ("/api/v1/tokens", {"label": "x", "scopes": ["read"]}),
        ("GET", "/api/v1/tokens"): ("/api/v1/tokens", None),
        ("DELETE", "/api/v1/tokens/{token_id}"): ("/api/v1/tokens/1", None),
        ("POST", "/api/v1/admin/accounts/{name}/suspend"): (
            "/api/v1/admin/accounts/alice/suspend",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/accounts/{name}/lift"): (
            "/api/v1/admin/accounts/alice/lift",
            {"reason": "a try"},
        ),
        ("GET", "/api/v1/admin/audit"): ("/api/v1/admin/audit", None),
        ("GET", "/api/v1/admin/accounts"): ("/api/v1/admin/accounts", None),
        ("GET", "/api/v1/admin/bots"): ("/api/v1/admin/bots", None),
        ("GET", "/api/v1/admin/teams"): ("/api/v1/admin/teams", None),
        ("POST", "/api/v1/admin/bots/{name}/disqualify"): (
            f"/api/v1/admin/bots/{alice_bot}/disqualify",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/bots/{name}/versions/{number}/disqualify"): (
            f"/api/v1/admin/bots/{alice_bot}/versions/1/disqualify",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/admin/matches/{match_id}/void"): (
            "/api/v1/admin/matches/1/void",
            {"reason": "a try"},
        ),
        ("POST", "/api/v1/teams"): ("/api/v1/teams", {"name": "newteam"}),
        ("GET", "/api/v1/account/teams"): ("/api/v1/account/teams", None),
        ("GET", "/api/v1/teams/{name}"): ("/api/v1/teams/alice", None),
        ("POST", "/api/v1/teams/{name}/invites"): ("/api/v1/teams/alice/invites", None),
        ("POST", "/api/v1/teams/join"): ("/api/v1/teams/join", {"code": "join_not-a-code"}),
        ("POST", "/api/v1/teams/{name}/leave"): ("/api/v1/teams/alice/leave", None),
        ("DELETE", "/api/v1/teams/{name}/members/{member}"): (
            "/api/v1/teams/alice/members/bob",
            None,
        ),
        ("POST", "/api/v1/account/password"): (
            "/api/v1/account/password",
            {"current": "a guess at alice's", "new": "a long passphrase of theirs"},
        ),
        ("GET", "/api/v1/bots/{name}"): (f"/api/v1/bots/{alice_bot}", None),
        ("POST", "/api/v1/bots"): (
            "/api/v1/bots",
            {"name": "newbot", "kind": "sample", "target": "random"},
        ),
        ("POST", "/api/v1/bots/{name}/versions"): (
            f"/api/v1/bots/{alice_bot}/versions",
            {"kind": "sample", "target": "random"},
        ),
        ("POST", "/api/v1/bots/{name}/promote"): (
            f"/api/v1/bots/{alice_bot}/promote",
            {"version": 2},
        ),
        ("POST", "/api/v1/bots/{name}/rollback"): (f"/api/v1/bots/{alice_bot}/rollback", None),
        ("GET", "/api/v1/tournaments"): ("/api/v1/tournaments", None),
        ("GET", "/api/v1/tournaments/{name}"): ("/api/v1/tournaments/alices-cup", None),
        ("GET", "/api/v1/tournaments/{name}/leaderboard"): (
            "/api/v1/tournaments/alices-cup/leaderboard",
            None,
        ),
        ("GET", "/api/v1/tournaments/{name}/groups"): (
            "/api/v1/tournaments/alices-cup/groups",
            None,
        ),
        ("GET", "/api/v1/tournaments/{name}/fairplay"): (
            "/api/v1/tournaments/alices-cup/fairplay",
            None,
        ),
        ("POST", "/api/v1/tournaments"): (
            "/api/v1/tournaments",
            {"name": "stolen", "bots": [alice_bot, *SAMPLES[:2]], "table_size": 3},
        ),
        ("POST", "/api/v1/tournaments/{name}/start"): (
            "/api/v1/tournaments/alices-cup/start",
            None,
        ),
        ("POST", "/api/v1/tournaments/{name}/stop"): ("/api/v1/tournaments/alices-cup/stop", None),
        ("GET", "/api/v1/abtests/{name}"): ("/api/v1/abtests/alices-ab", None),
        ("POST", "/api/v1/abtests"): (
            "/api/v1/abtests",
            {"name": "mallorys-ab", "new": f"{alice_bot}:2", "base": f"{alice_bot}:1"},
        ),
        ("POST", "/api/v1/abtests/{name}/start"): ("/api/v1/abtests/alices-ab/start", None),
        ("POST", "/api/v1/abtests/{name}/stop"): ("/api/v1/abtests/alices-ab/stop", None),
        ("GET", "/api/v1/competitions"): ("/api/v1/competitions", None),
        ("GET", "/api/v1/competitions/{name}"): ("/api/v1/competitions/main", None),
        ("POST", "/api/v1/competitions"): ("/api/v1/competitions", {"name": "staged"}),
        ("POST", "/api/v1/competitions/{name}/pause"): ("/api/v1/competitions/main/pause", None),
        ("POST", "/api/v1/competitions/{name}/resume"): ("/api/v1/competitions/main/resume", None),
        ("POST", "/api/v1/competitions/{name}/close"): ("/api/v1/competitions/main/close", None),
        ("POST", "/api/v1/competitions/{name}/new-season"): (
            "/api/v1/competitions/main/new-season",
            None,
        ),
        ("POST", "/api/v1/competitions/{name}/pace"): (
            "/api/v1/competitions/main/pace",
            {"pace": 3},
        ),
        ("POST", "/api/v1/competitions/{name}/logs"): (
            "/api/v1/competitions/main/logs",
            {"days": 30, "top": 10},
        ),
        ("GET", "/api/v1/matches"): ("/api/v1/matches", None),
        ("GET", "/api/v1/matches/{match_id}"): (None, None),  # filled in with a real id
        ("GET", "/api/v1/matches/{match_id}/log"): (None, None),
        ("GET", "/api/v1/matches/{match_id}/replay"): (None, None),
        ("PATCH", "/api/v1/bots/{name}/consent"): (
            f"/api/v1/bots/{alice_bot}/consent",
            {"people": False},
        ),
        ("POST", "/api/v1/tables"): ("/api/v1/tables", {"bots": ["sample:random"]}),
        ("POST", "/api/v1/scrimmages"): (
            "/api/v1/scrimmages",
            {"bot": alice_bot, "against": ["sample:random"], "games": 2},
        ),
        ("GET", "/api/v1/owners/me/scrimmages"): ("/api/v1/owners/me/scrimmages", None),
        ("GET", "/api/v1/tables/{table_id}"): (f"/api/v1/tables/{NOBODYS}", None),
        ("POST", "/api/v1/tables/{table_id}/act"): (
            f"/api/v1/tables/{NOBODYS}/act",
            {"action": {"do": "pass"}},
        ),
        ("POST", "/api/v1/tables/{table_id}/leave"): (f"/api/v1/tables/{NOBODYS}/leave", None),
        ("GET", "/api/v1/tables/{table_id}/log"): (f"/api/v1/tables/{NOBODYS}/log", None),
        ("GET", "/api/v1/owners/me"): ("/api/v1/owners/me", None),
        ("GET", "/api/v1/owners/me/seats"): ("/api/v1/owners/me/seats", None),
        ("GET", "/api/v1/owners/me/matches"): ("/api/v1/owners/me/matches", None),
        ("POST", "/api/v1/owners/me/token"): ("/api/v1/owners/me/token", None),
        ("DELETE", "/api/v1/owners/me/token"): ("/api/v1/owners/me/token", None),
    }


def with_match(urls: dict, match_id: int) -> dict:
    """``urls`` with the match routes naming a real match."""
    return {
        **urls,
        ("GET", "/api/v1/matches/{match_id}"): (f"/api/v1/matches/{match_id}", None),
        ("GET", "/api/v1/matches/{match_id}/log"): (f"/api/v1/matches/{match_id}/log", None),
        ("GET", "/api/v1/matches/{match_id}/replay"): (
            f"/api/v1/matches/{match_id}/replay",
            None,
        ),
        ("POST", "/api/v1/admin/matches/{match_id}/void"): (
            f"/api/v1/admin/matches/{match_id}/void",
            {"reason": "a try"},
        ),
    }
