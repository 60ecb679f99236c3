"""Builds of uploads in other languages: one per upload (its source's digest), kept."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.models import Build


def find(session: Session, source: str) -> Build | None:
    """The build of the upload named ``source``, if it was built."""
    return session.get(Build, source)


def record(
    session: Session, source: str, built: str | None, language: str, log: str, seconds: float
) -> Build:
    """Keep a build (``built``: the artifact it made, None when it failed); the one
    already kept when another process built the same upload meanwhile."""
    try:
        with session.begin_nested():
            build = Build(source=source, built=built, language=language, log=log, seconds=seconds)
            session.add(build)
    except IntegrityError:
        build = session.get_one(Build, source)
    return build
