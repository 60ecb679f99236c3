"""The database: bots, tournaments, matches and ratings (SQLAlchemy models, Alembic
migrations), and the operations that keep them consistent (claims, exactly-once
recording, ladders, owners, artifacts)."""
