"""Any JSON a stranger sends to any write route, with or without a token: never a 500.

schemathesis (tests/test_api_schema.py) sends what the schema describes; this sends
what it does not: any JSON value (nested objects and lists, huge and negative numbers,
unicode, nulls) as the body of every route that writes, and of a person's live table.
``{"action": {"do": {}}}`` once answered 500."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.api import OPERATOR_TOKEN
from tests.support.store import add_samples

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

#: any JSON value, a few levels deep
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
#: bodies that look like what the routes take, with every value any JSON
FIELDS = ("action", "do", "cards", "rank", "count", "ranks", "bots", "seat", "rules", "name",
          "kind", "source", "target", "games", "against", "bot", "new", "base", "people",
          "scrimmages", "format", "table_size", "deadline", "max_matches", "stage")  # fmt: skip
SHAPED = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=6) | st.fixed_dictionaries(
    {"action": st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4)}
)
BODIES = JSON | SHAPED
WRITES = ("post", "put", "patch", "delete")


def write_routes(client: TestClient, table_id: str) -> list[tuple[str, str]]:
    """(method, path) of every route that writes, its path's parameters filled in (a
    person's live table for a table's)."""
    found = []
    for path, methods in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        filled = path.replace("{table_id}", table_id)
        filled = re.sub(r"\{[^}]*id\}", "1", filled)
        filled = re.sub(r"\{[^}]+\}", "counter", filled)
        found += [(method, filled) for method in methods if method in WRITES]
    return found


def test_no_json_body_makes_a_write_route_fail(app_and_token) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db)
    table = client.post("/api/v1/tables", json={"bots": ["sample:counter", "sample:random"]})
    assert table.status_code == 201, table.text
    routes = write_routes(client, table.json()["id"])
    assert len(routes) >= 15, routes
    headers: list[dict[str, str]] = [
        {},
        {"Authorization": f"Bearer {token}"},
        {"Authorization": f"Bearer {OPERATOR_TOKEN}"},
    ]

    @given(route=st.sampled_from(routes), body=BODIES, who=st.sampled_from(headers))
    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    def check(route: tuple[str, str], body: Any, who: dict[str, str]) -> None:
        method, path = route
        answer = client.request(method, path, json=body, headers=who)
        assert answer.status_code < 500, (method, path, body, answer.text)

    check()
