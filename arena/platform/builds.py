"""Building an uploaded version in its language, once per upload, before it qualifies.

A version uploaded as a C++, Rust, Go or Java folder is built in a sandbox of its own
(:mod:`arena.platform.sandbox.build`) by whoever qualifies it (a worker, or the command
that submits it); what the build made is stored as an artifact like any upload and
becomes the version's target, so every machine runs the same program and none builds it
again. The build of an upload is kept by the upload's digest: the same folder uploaded
again (another version, another bot) is not built twice. A Python or JavaScript version
has nothing to build; its language is noted all the same.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from arena.base.errors import Invalid
from arena.base.states import BotKind
from arena.platform.sandbox.build import built_copy
from arena.sdk.languages import LANGUAGES, Kit, kit_of
from arena.store import artifacts, builds
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.models import BotVersion

#: a single uploaded file is a Python bot
PYTHON = Kit(LANGUAGES["python"], None, LANGUAGES["python"].run)


@dataclass(frozen=True)
class Built:
    """A version's build: whether it made a program, and its log (its owner's)."""

    ok: bool
    log: str
    language: str


def build_version(db: Database, data_dir: Path, version_id: int) -> Built | None:
    """Build version ``version_id`` if its language asks for it (its target becomes the
    build's artifact); None when it is not an upload. SandboxUnavailable when no build
    sandbox can be made here: the platform's failure, the version stays pending."""
    with db.read() as session:
        version = session.get_one(BotVersion, version_id)
        kind, target, noted = version.kind, version.target, version.language
    source = artifacts.digest_in(target)
    if kind is not BotKind.PATH or source is None:
        return None
    if noted is not None:  # built already (its qualification is played again): as it was
        return Built(True, "", noted)
    code = ArtifactCache(data_dir / "artifacts", db).code_for(target)
    kit = kit_of(code) if code.is_dir() else PYTHON
    if kit.build is None:
        db.transaction(lambda s: _note_language(s, version_id, kit.language.name, None, None))
        return Built(True, "", kit.language.name)
    with db.read() as session:
        found = builds.find(session, source)
        made = (found.built, found.log) if found is not None else None
    if made is None:
        made = _build(db, kit, code, source)
    built, log = made
    db.transaction(lambda s: _note_language(s, version_id, kit.language.name, source, built))
    return Built(built is not None, log, kit.language.name)


def _build(db: Database, kit: Kit, code: Path, source: str) -> tuple[str | None, str]:
    """Build the upload ``code`` (digest ``source``) and keep its build: what it made, its log."""
    with tempfile.TemporaryDirectory(prefix="arena-build-") as folder:
        work, result = built_copy(code, Path(folder))

        def keep(session: Session) -> tuple[str | None, str]:
            digest, log = None, result.log
            if result.ok:
                try:
                    digest = artifacts.digest_in(artifacts.store(session, work))
                except Invalid as error:  # the bot's own doing: a link, too many files
                    log = f"{log}\nwhat the build left cannot be uploaded: {error}".strip()
            kept = builds.record(session, source, digest, kit.language.name, log, result.seconds)
            return kept.built, kept.log

        return db.transaction(keep)


def _note_language(
    session: Session, version_id: int, language: str, source: str | None, built: str | None
) -> None:
    version = session.get_one(BotVersion, version_id)
    version.language, version.build_source = language, source
    if built is not None:
        version.target = artifacts.PREFIX + built
