"""Teams: a bot belongs to a team whose members submit and manage it; each existing
owner becomes the captain of a team of one under its own name, and its bots that team's.
The operator may disqualify a bot or a version (with the reason) and void a match (its
result leaves the ratings).

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "teams",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(length=100), nullable=False, unique=True),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("uq_teams_name_folded", "teams", [sa.text("lower(name)")], unique=True)
    op.create_table(
        "team_members",
        sa.Column("team_id", sa.Integer(), sa.ForeignKey("teams.id"), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id"), primary_key=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("joined_at", _WHEN, nullable=False),
    )
    op.create_index("ix_team_members_owner_id", "team_members", ["owner_id"])
    op.create_table(
        "team_invites",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("team_id", sa.Integer(), sa.ForeignKey("teams.id"), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False, unique=True),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("owners.id"), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.Column("used_at", _WHEN, nullable=True),
        sa.Column("used_by", sa.Integer(), sa.ForeignKey("owners.id"), nullable=True),
    )
    op.create_index("ix_team_invites_team_id", "team_invites", ["team_id"])
    with _folded_index_made_again(), op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("team_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_bots_team_id", "teams", ["team_id"], ["id"])
        batch.create_index("ix_bots_team_id", ["team_id"])
    for table in ("bots", "bot_versions"):
        op.add_column(table, sa.Column("disqualified_at", _WHEN, nullable=True))
        op.add_column(table, sa.Column("disqualified_reason", sa.Text(), nullable=True))
    op.add_column("matches", sa.Column("voided_at", _WHEN, nullable=True))
    op.add_column("matches", sa.Column("void_reason", sa.Text(), nullable=True))
    _teams_of_one()
    # a SQLite batch copy of ``bots`` drops its folded-name index: made again
    op.create_index(
        "uq_bots_name_folded", "bots", [sa.text("lower(name)")], unique=True, if_not_exists=True
    )


@contextmanager
def _folded_index_made_again() -> Iterator[None]:
    """SQLite's batch copy of ``bots`` reflects it and the tables it points at, and cannot
    reflect their folded-name indexes: it says so (a warning a person starting the
    platform would read). Only ``bots`` is copied, and its index is made again after."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*expression-based index uq_[a-z]+_name_folded")
        yield


def _teams_of_one() -> None:
    """Each owner: the captain of a team under its name, which holds its bots."""
    op.execute("INSERT INTO teams (name, created_at) SELECT name, created_at FROM owners")
    op.execute(
        "INSERT INTO team_members (team_id, owner_id, role, joined_at)"
        " SELECT teams.id, owners.id, 'captain', owners.created_at"
        " FROM owners JOIN teams ON teams.name = owners.name"
    )
    op.execute(
        "UPDATE bots SET team_id = (SELECT team_members.team_id FROM team_members"
        " WHERE team_members.owner_id = bots.owner_id) WHERE owner_id IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_column("matches", "void_reason")
    op.drop_column("matches", "voided_at")
    for table in ("bot_versions", "bots"):
        op.drop_column(table, "disqualified_reason")
        op.drop_column(table, "disqualified_at")
    with _folded_index_made_again(), op.batch_alter_table("bots") as batch:
        batch.drop_index("ix_bots_team_id")
        batch.drop_constraint("fk_bots_team_id", type_="foreignkey")
        batch.drop_column("team_id")
    op.create_index(
        "uq_bots_name_folded", "bots", [sa.text("lower(name)")], unique=True, if_not_exists=True
    )
    op.drop_table("team_invites")
    op.drop_table("team_members")
    op.drop_index("uq_teams_name_folded", "teams")
    op.drop_table("teams")
