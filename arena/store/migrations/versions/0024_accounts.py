"""Accounts: an owner may have a password (people sign up by themselves), browsers stay
signed in by server-side sessions or from an OpenID Connect provider (identities), an
account has named API tokens with scopes, operators have a role and an audit log of
what they did (suspending an account among it), and
sign-ins and sign-ups are counted per name and per address (throttles).

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("owners", sa.Column("password_hash", sa.String(length=255), nullable=True))
    op.add_column(
        "owners",
        sa.Column("role", sa.String(length=16), nullable=False, server_default="owner"),
    )
    op.add_column("owners", sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("owners", sa.Column("suspended_reason", sa.Text(), nullable=True))
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("target", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("secret_hash", sa.String(length=64), nullable=False, unique=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id"), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_account_sessions_owner_id", "account_sessions", ["owner_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id"), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False, unique=True),
        sa.Column("scopes", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_api_tokens_owner_id", "api_tokens", ["owner_id"])
    op.create_table(
        "identities",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("owners.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("issuer", "subject", name="uq_identities_subject"),
    )
    op.create_index("ix_identities_owner_id", "identities", ["owner_id"])
    op.create_table(
        "sign_in_attempts",
        sa.Column("state", sa.String(length=64), primary_key=True),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("verifier", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "throttles",
        sa.Column("key", sa.String(length=200), primary_key=True),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("throttles")
    op.drop_table("sign_in_attempts")
    op.drop_index("ix_identities_owner_id", "identities")
    op.drop_table("identities")
    op.drop_index("ix_api_tokens_owner_id", "api_tokens")
    op.drop_table("api_tokens")
    op.drop_index("ix_account_sessions_owner_id", "account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("audit_log")
    op.drop_column("owners", "suspended_reason")
    op.drop_column("owners", "suspended_at")
    op.drop_column("owners", "role")
    op.drop_column("owners", "password_hash")
