"""A machine's cache of uploaded bots' code, fetched from the database by digest.

``code_for("sha256:<digest>")`` gives the bot's entry (its folder, or its one file)
under ``<data dir>/artifacts/<digest>/``. The archive kept beside it is checked against
its digest on every lookup that may start a process; a missing or corrupt copy is
fetched again (and checked again) from the database, and unpacked afresh.

Workers on one machine share the cache: a file lock per digest makes one of them fetch
while the others wait, so none ever removes a folder another has just given a bot.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from arena.store import artifacts
from arena.store.db import Database

log = logging.getLogger(__name__)


class ArtifactCache:
    def __init__(self, folder: Path, db: Database) -> None:
        self.folder = folder
        self.db = db
        #: archives fetched from the database by this cache (a figure for tests)
        self.fetched = 0
        self._lock = threading.Lock()

    def code_for(self, target: str) -> Path:
        """The local entry of a version's code (an older plain path is returned as is)."""
        digest = artifacts.digest_in(target)
        if digest is None:
            return Path(target)
        with self._lock, self._machine_lock(digest):
            archive = self.folder / f"{digest}.tar.gz"
            unpacked = self.folder / digest
            if not (_intact(archive, digest) and unpacked.is_dir()):
                self._fetch(digest, archive, unpacked)
            return _entry(unpacked)

    @contextlib.contextmanager
    def _machine_lock(self, digest: str) -> Iterator[None]:
        """Hold the digest's lock across this machine's processes."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / f".{digest}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log.info("artifact %s: another process is fetching it; waiting", digest)
                fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _fetch(self, digest: str, archive: Path, unpacked: Path) -> None:
        if archive.exists():
            log.warning("artifact %s: the cached copy is missing or corrupt; fetching it", digest)
        with self.db.read() as session:
            data = artifacts.fetch(session, digest)
        self.fetched += 1
        staging = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=self.folder))
        try:
            artifacts.unpack(data, staging / "code")
            (staging / "archive").write_bytes(data)
            shutil.rmtree(unpacked, ignore_errors=True)
            os.replace(staging / "code", unpacked)
            os.replace(staging / "archive", archive)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        unpacked.chmod(0o755)
        log.info("artifact %s: fetched (%d bytes)", digest, len(data))


def _intact(archive: Path, digest: str) -> bool:
    try:
        return artifacts.digest_of(archive.read_bytes()) == digest
    except OSError:
        return False


def _entry(unpacked: Path) -> Path:
    """A Python file uploaded alone, or the upload's folder."""
    names = [p.relative_to(unpacked).as_posix() for p in unpacked.rglob("*") if p.is_file()]
    return unpacked / names[0] if artifacts.single_file(names) else unpacked
