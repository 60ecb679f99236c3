"""The suite's PostgreSQL databases (tests/support/databases.py): a copy a test gave back
is lent again only as the template is (its rows, its sequences), and never once its
schema has changed."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.databases import Templates, psycopg_url
from tests.support.services import POSTGRES_ADMIN

pytestmark = pytest.mark.services


def _rows(url: str) -> tuple[int, int, list[str]]:
    with psycopg.connect(url) as connection:
        (owners,) = connection.execute("SELECT count(*) FROM owners").fetchone() or (0,)
        (formats,) = connection.execute("SELECT count(*) FROM formats").fetchone() or (0,)
        tables = connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        ).fetchall()
    return owners, formats, [name for (name,) in tables]


def _add_owner(url: str) -> int:
    with psycopg.connect(url) as connection:
        (made,) = connection.execute(
            "INSERT INTO owners (name, token_hash, created_at) "
            "VALUES ('x', 'h', now()) RETURNING id"
        ).fetchone() or (0,)
    return int(made)


def test_a_copy_given_back_is_lent_again_as_the_template_is(tmp_path: Path) -> None:
    templates = Templates(tmp_path)
    try:
        first = templates.borrow()
        url = psycopg_url(first)
        fresh = _rows(url)
        assert fresh[0] == 0 and fresh[1] > 0, "no owners; the formats the migrations add"
        made = _add_owner(url)
        stranded = psycopg.connect(url)  # a session a test left open, inside a transaction
        stranded.execute("SELECT 1 FROM owners FOR UPDATE")
        templates.give_back(first)

        again = templates.borrow()
        assert again == first, "kept for the next test"
        assert _rows(url) == fresh, "emptied back to the template's rows"
        assert _add_owner(url) == made, "the sequences set back"
        with pytest.raises(psycopg.OperationalError):
            stranded.execute("SELECT 1")  # ended when the copy was given back

        with psycopg.connect(url) as connection:  # a test that changes the schema
            connection.execute("ALTER TABLE owners ADD COLUMN extra integer")
        templates.give_back(again)
        other = templates.borrow()
        assert other != first, "a copy whose schema changed is dropped, not lent again"
        assert _rows(psycopg_url(other)) == fresh
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            gone = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (first,))
            assert gone.fetchone() is None
        templates.give_back(other)
    finally:
        templates.close()
