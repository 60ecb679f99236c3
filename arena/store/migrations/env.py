"""Alembic environment: runs on the connection ``arena.store.schema`` hands it."""

from __future__ import annotations

from alembic import context

from arena.store.models import Base
from arena.store.schema import sqlite_keys_checked_after

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with sqlite_keys_checked_after(connection), context.begin_transaction():
    context.run_migrations()
