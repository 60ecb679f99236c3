"""Apps made in one process: the routes are built once and shared, each app's platform,
pages and data are its own (the tests and the season bench make many apps a process)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from fastapi.testclient import TestClient

from arena.platform.settings import Settings
from arena.store.db import Database
from dashboard.app import create_app, site_routes
from tests.support.databases import Templates, fresh_database
from tests.support.store import add_samples


def test_two_apps_of_one_process_each_serve_their_own_platform(
    tmp_path: Path, templates: Templates, settings: Settings
) -> None:
    with contextlib.ExitStack() as stack:
        clients = {}
        for name, samples in (("north", ["random"]), ("south", ["counter", "honest"])):
            folder = tmp_path / name
            folder.mkdir()
            url = stack.enter_context(fresh_database("sqlite", folder, templates))
            db = Database(url)
            add_samples(db, samples)
            db.dispose()
            app = create_app(replace(settings, data_dir=folder, database_url=url))
            clients[name] = stack.enter_context(TestClient(app))
        for _ in range(2):  # in turn, each app after the other has served
            for name, expected in (("north", {"random"}), ("south", {"counter", "honest"})):
                listed = clients[name].get("/api/v1/bots").json()
                assert {bot["name"] for bot in listed} == expected, name
        assert clients["north"].get("/bots/random").status_code == 200
        assert clients["south"].get("/bots/random").status_code == 404
        north, south = (client.app for client in clients.values())
        assert north.state.platform is not south.state.platform
    shared = {id(route) for route in site_routes()}
    assert shared <= {id(r) for r in north.routes} & {id(r) for r in south.routes}
