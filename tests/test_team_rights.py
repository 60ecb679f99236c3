"""The rights table's three other callers, route by route: a member of the team, its
captain and the operator. Their writes succeed, so each request is made in the scene as
it was set (the SQLite file copied back before each): no answer depends on the one
before it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.rights import ROLES, Scene, attempts, documented, scene, with_match
from tests.support.store import match_ids


@pytest.fixture
def staged(app_and_token, tmp_path: Path) -> Iterator[tuple[Scene, callable]]:
    client, alice, arena = app_and_token
    made = scene(client, alice, arena)
    database = Path(arena.db.engine.url.database)
    saved = tmp_path / "scene.db"
    arena.db.engine.dispose()
    shutil.copyfile(database, saved)

    def restore() -> None:
        arena.db.engine.dispose()
        for extra in ("-wal", "-shm"):
            Path(f"{database}{extra}").unlink(missing_ok=True)
        shutil.copyfile(saved, database)

    yield made, restore


def observed(staged) -> dict[tuple[str, str], dict[str, int]]:
    made, restore = staged
    [match_id, *_] = match_ids(made.arena.db) or [1]
    urls = with_match(attempts(), match_id)
    seen = {}
    for (method, path), (url, body) in urls.items():
        seen[(method, path)] = {}
        for role in ROLES[2:]:
            restore()
            answer = made.client.request(method, url, json=body, headers=made.headers(role))
            made.client.cookies.clear()
            seen[(method, path)][role] = answer.status_code
    return seen


def test_members_captains_and_the_operator_are_answered_as_the_table_says(staged) -> None:
    seen = observed(staged)
    table = documented()
    for (method, path), answers in table.items():
        for role in ROLES[2:]:
            if answers[role] == "—":
                continue
            assert seen[(method, path)][role] == int(answers[role]), (method, path, role)
