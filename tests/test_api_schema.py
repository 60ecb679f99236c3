"""schemathesis against the OpenAPI schema: no request it generates gets a 500.

Every operation is fuzzed with an owner's token (so write endpoints are exercised past
authentication); the database has bots to refer to."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from hypothesis import HealthCheck, given, settings

from arena.platform.settings import Settings
from arena.store.owners import add_owner
from dashboard.app import create_app
from tests.support.api import TEST_HASHING
from tests.support.services import redis_test_url
from tests.support.store import add_samples

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    data: Path = tmp_path_factory.mktemp("schema")
    redis.Redis.from_url(redis_test_url()).flushdb()  # the tests' own database, emptied
    application = create_app(
        Settings(
            data, f"sqlite:///{data / 'arena.db'}", redis_test_url(), password_hashing=TEST_HASHING
        )
    )  # each generated sign-in checks its password at argon2's cheapest (a sixth of the run)
    add_samples(application.state.platform.db)
    _, token = application.state.platform.db.transaction(lambda s: add_owner(s, "fuzz"))
    application.state.token = token
    return application


def operations(app):
    # imported here, not at the top: every test process collects this module (1.5 s)
    import schemathesis

    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


def test_no_generated_request_gets_a_server_error(app) -> None:
    import schemathesis

    found = operations(app)
    assert len(found) >= 10, "every API operation is in the schema"
    headers = {"Authorization": f"Bearer {app.state.token}"}
    for operation in found:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        def check(case) -> None:
            case.call_and_validate(headers=headers, checks=[schemathesis.checks.not_a_server_error])

        check()
