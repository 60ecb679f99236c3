"""Formats as objects: one registry, each format what it is in one place, and a format
registered by the test suite alone (tests/support/gauntlet.py) played to the end through
every door a person uses."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator

import pytest

from arena.tournament import formats
from arena.tournament.formats.base import Format, NewTournament
from tests.support.api import auth
from tests.support.cli import arena, environment
from tests.support.store import SAMPLES, add_samples


def test_every_built_in_format_is_registered_once_by_its_name() -> None:
    assert set(formats.FORMATS) == {
        "round_robin", "ladder", "swiss", "knockout", "abtest", "qualification", "scrimmage",
    }  # fmt: skip
    assert all(formats.named(name).name == name for name in formats.FORMATS)
    assert formats.creatable() == ("round_robin", "ladder", "swiss", "knockout")
    with pytest.raises(formats.UnknownFormat, match="expected round_robin or ladder or swiss"):
        formats.named("bracket")
    with pytest.raises(ValueError, match="registered already"):
        formats.register(type("Other", (Format,), {"name": "ladder", "label": "other"})())


def test_what_each_format_is_it_says_itself() -> None:
    ladder, swiss, abtest = formats.LADDER, formats.SWISS, formats.ABTEST
    assert ladder.self_scheduling and not ladder.self_ending and ladder.keeps_tables
    assert swiss.self_ending and swiss.in_rounds and swiss.games_from(100, 7) == 7
    assert abtest.self_ending and abtest.ranked_work and abtest.made_by
    assert formats.SCRIMMAGE.private and not formats.SCRIMMAGE.listed
    assert not formats.ROUND_ROBIN.self_scheduling
    assert formats.having(lambda f: f.self_ending) == ("swiss", "knockout", "abtest")


@pytest.fixture
def gauntlet() -> Iterator[Format]:
    """The suite's own format, registered for this test only."""
    module = importlib.import_module("tests.support.gauntlet")
    yield formats.register(module.GAUNTLET)
    formats.unregister("gauntlet")


def test_the_gauntlet_seats_its_first_bot_at_every_table_in_every_seat(gauntlet) -> None:
    new = NewTournament(bots=[1, 2, 3, 4, 5], table_size=3, games=6, key="ab" * 32, teams={})
    seating = gauntlet.seating(new)
    tables = [table for _, table, _ in seating.plan]
    assert seating.games == 6 and all(1 in table for table in tables)
    assert {table.index(1) for table in tables} == {0, 1, 2}
    assert {bot for table in tables for bot in table} == {1, 2, 3, 4, 5}


@pytest.mark.processes
def test_a_suite_only_format_plays_to_the_end_through_cli_worker_api_and_page(
    app_and_token, gauntlet
) -> None:
    client, token, platform = app_and_token
    add_samples(platform.db)
    hero = SAMPLES[0]
    env = environment(platform.settings) | {"ARENA_FORMATS": "tests.support.gauntlet"}
    created = arena(
        "tournament", "create", "g", "--format", "gauntlet", "--bots", ",".join(SAMPLES),
        "--table-size", "3", "--games", "6", env=env,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    assert arena("tournament", "start", "g", env=env).returncode == 0
    worker = arena("worker", "--burst", env=env)  # it knows the format: ARENA_FORMATS
    assert worker.returncode == 0, worker.stderr[-2000:]
    status = json.loads(arena("tournament", "status", "g", "--json", env=env).stdout)
    assert status["format"] == "gauntlet" and status["status"] == "done"
    assert status["matches"]["done"] == 6 == status["matches"]["total"]
    board = {row["bot"]: row["games"] for row in status["leaderboard"]}
    assert board[hero] == 6 and sum(board.values()) == 6 * 3
    listed = client.get("/api/v1/matches", params={"tournament": "g", "per_page": 10}).json()
    assert len(listed["items"]) == 6
    assert all(hero in {seat["bot"] for seat in m["seats"]} for m in listed["items"])
    summary = next(t for t in client.get("/api/v1/tournaments").json() if t["name"] == "g")
    assert summary["format"] == "gauntlet" and summary["unit"] == "matches"
    page = client.get("/tournaments/g")
    assert page.status_code == 200 and gauntlet.explained in page.text
    assert "6 / 6" in page.text and 'id="rounds"' not in page.text
    body = {"name": "mine", "bots": SAMPLES, "table_size": 3, "games": 3, "format": "gauntlet"}
    made = client.post("/api/v1/tournaments", headers=auth(token), json=body)
    assert made.status_code == 201 and made.json()["format"] == "gauntlet", made.text
    unknown = client.post("/api/v1/tournaments", headers=auth(token), json={**body, "format": "x"})
    assert unknown.status_code == 422 and "expected round_robin" in unknown.text


def test_an_operators_format_module_that_cannot_load_is_named_in_the_error(tmp_path) -> None:
    from arena.platform.extensions import FormatModuleError, load_formats
    from arena.platform.settings import Settings

    with pytest.raises(SystemExit, match="ARENA_FORMATS: 'my formats' is not a module name"):
        Settings.from_env({"ARENA_DATA_DIR": str(tmp_path), "ARENA_FORMATS": "my formats"})
    settings = Settings.from_env(
        {"ARENA_DATA_DIR": str(tmp_path), "ARENA_FORMATS": "tests.support.no_such_format"}
    )
    assert settings.format_modules == ("tests.support.no_such_format",)
    with pytest.raises(FormatModuleError, match="cannot import 'tests.support.no_such_format'"):
        load_formats(settings)
