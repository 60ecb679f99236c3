"""Uploaded bots as artifacts: stored once by digest, fetched by any machine's workers."""

from __future__ import annotations

import gzip
import io
import logging
import os
import shutil
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.base.errors import Refused
from arena.base.states import BotKind
from arena.bench.pipeline import wait_registered
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.store import artifacts, bots, tournaments
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.models import Artifact, BotVersion
from tests.sandboxing import PLAIN_BOT
from tests.support.forks import session_forks
from tests.support.workers import wait_done

pytestmark = pytest.mark.processes


def bot_folder(tmp_path: Path, name: str, marker: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text() + f"\n# {marker}\n")
    (folder / "helper.py").write_text("VALUE = 1\n")
    return folder


def test_packing_is_deterministic_and_refuses_what_is_no_bot(tmp_path: Path) -> None:
    first = bot_folder(tmp_path, "a", "same")
    second = bot_folder(tmp_path, "b", "same")
    os.utime(second / "bot.py", (1, 1))
    (second / "__pycache__").mkdir()
    (second / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    assert artifacts.pack(first) == artifacts.pack(second), "times and caches do not count"
    assert artifacts.pack(first) != artifacts.pack(bot_folder(tmp_path, "c", "other"))
    (first / "link.py").symlink_to("/etc/passwd")
    with pytest.raises(Refused, match="symbolic link"):
        artifacts.pack(first)
    with pytest.raises(Refused, match="is no bot: no arena.toml"):
        artifacts.pack(_empty(tmp_path))
    big = tmp_path / "big"
    big.mkdir()
    (big / "bot.py").write_text("pass\n")
    (big / "data.bin").write_bytes(os.urandom(artifacts.MAX_ARCHIVE_BYTES + 1))
    with pytest.raises(Refused, match="packed: over"):
        artifacts.pack(big)


def test_an_upload_that_unpacks_to_far_more_than_it_packs_is_refused(tmp_path: Path) -> None:
    """292 KB packed unpacked to 287 MB: the unpacked size is capped too, at packing
    and again at unpacking (an archive made by hand never fills a worker's disk)."""
    bomb = tmp_path / "bomb"
    bomb.mkdir()
    (bomb / "bot.py").write_text("pass\n")
    with open(bomb / "zeros.bin", "wb") as zeros:
        zeros.truncate(artifacts.MAX_UNPACKED_BYTES)  # compresses to a few tens of KB
    with pytest.raises(Refused, match="over 26,214,400 unpacked"):
        artifacts.pack(bomb)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("bot.py")
        info.size = artifacts.MAX_UNPACKED_BYTES + 1
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    crafted = gzip.compress(raw.getvalue())
    assert len(crafted) < artifacts.MAX_ARCHIVE_BYTES
    with pytest.raises(Refused, match="over the unpacked limits"):
        artifacts.unpack(crafted, tmp_path / "out")
    assert not (tmp_path / "out" / "bot.py").exists()


@pytest.mark.parametrize("filtered", [True, False], ids=["data-filter", "python-before-3.11.4"])
def test_an_archive_unpacks_only_plain_files_inside_its_folder_without_special_modes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filtered: bool
) -> None:
    """With tarfile's ``data`` filter, and on a Python that has none (Debian 12's 3.11.2):
    a name outside the folder is refused, set-user-id and foreign owners never land."""
    if not filtered:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)

    def archive(name: str, mode: int = 0o644, uid: int = 0) -> bytes:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w") as tar:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.uid, info.uname = 5, mode, uid, "nobody-here"
            tar.addfile(info, io.BytesIO(b"pass\n"))
        return gzip.compress(raw.getvalue())

    for outside in ("../escape.py", "/tmp/escape.py", "a/../../escape.py"):
        with pytest.raises(Refused, match="outside its folder"):
            artifacts.unpack(archive(outside), tmp_path / "out")
    assert not (tmp_path / "escape.py").exists()
    entry = artifacts.unpack(archive("bot.py", mode=0o4777, uid=12345), tmp_path / "in")
    landed = (entry / "bot.py").stat()
    assert landed.st_mode & 0o7000 == 0 and landed.st_uid == os.getuid()
    assert (entry / "bot.py").read_text() == "pass\n"


def _empty(tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    return folder


def test_a_version_is_its_digest_and_never_changes_with_its_files(
    db: Database, tmp_path: Path
) -> None:
    folder = bot_folder(tmp_path, "mine", "v1")
    version = db.transaction(lambda s: bots.add_bot(s, "mine", BotKind.PATH, str(folder)))
    again = db.transaction(lambda s: bots.add_version(s, "mine", BotKind.PATH, str(folder)))
    assert version.target == again.target and version.target.startswith("sha256:")
    with db.read() as session:
        assert len(session.scalars(select(Artifact)).all()) == 1, "stored once"
    shutil.rmtree(folder)
    cache = ArtifactCache(tmp_path / "cache", db)
    code = cache.code_for(version.target)
    assert code == tmp_path / "cache" / artifacts.digest_in(version.target)
    assert "# v1" in (code / "bot.py").read_text() and (code / "helper.py").exists()
    assert cache.code_for(version.target) == code and cache.fetched == 1, "fetched once"
    archive = tmp_path / "cache" / f"{artifacts.digest_in(version.target)}.tar.gz"
    archive.write_bytes(b"corrupt")
    (code / "bot.py").write_text("tampered")
    assert "# v1" in (cache.code_for(version.target) / "bot.py").read_text()
    assert cache.fetched == 2, "a corrupt copy is fetched again"
    digest = artifacts.digest_in(version.target)
    db.transaction(
        lambda s: s.execute(update(Artifact).where(Artifact.digest == digest).values(data=b"x"))
    )
    shutil.rmtree(tmp_path / "cache")
    with pytest.raises(Refused, match="corrupt in the database"):
        cache.code_for(version.target)


def test_workers_on_one_machine_fetch_an_artifact_once_and_never_pull_it_from_a_bot(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers' caches share a folder: while one fetches, the other waits for it (it
    once saw the folder without the archive, fetched again and removed the folder that the
    first had just given a bot: "/bot/bot.py: no such file")."""
    version = db.transaction(
        lambda s: bots.add_bot(s, "mine", BotKind.PATH, str(bot_folder(tmp_path, "mine", "v1")))
    )
    first, second = (ArtifactCache(tmp_path / "cache", db) for _ in range(2))
    fetching, release, waiting = threading.Event(), threading.Event(), threading.Event()
    fetch = artifacts.fetch

    def paused_fetch(session: Session, digest: str) -> bytes:
        if threading.current_thread().name == "first":
            fetching.set()
            release.wait(60)
        return fetch(session, digest)

    class Waiting(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "another process is fetching it" in record.getMessage():
                waiting.set()

    monkeypatch.setattr(artifacts, "fetch", paused_fetch)
    handler = Waiting()
    logging.getLogger("arena.store.cache").addHandler(handler)
    logging.getLogger("arena.store.cache").setLevel(logging.INFO)
    entries: dict[str, Path] = {}

    def look_up(cache: ArtifactCache, name: str) -> None:
        entries[name] = cache.code_for(version.target)

    try:
        one = threading.Thread(target=look_up, args=(first, "first"), name="first")
        one.start()
        assert fetching.wait(60)
        two = threading.Thread(target=look_up, args=(second, "second"), name="second")
        two.start()
        assert waiting.wait(60), "the second worker did not wait for the first one's fetch"
        release.set()
        one.join(60)
        two.join(60)
    finally:
        release.set()
        logging.getLogger("arena.store.cache").removeHandler(handler)
    assert (first.fetched, second.fetched) == (1, 0)
    assert entries["first"] == entries["second"]
    assert "# v1" in (entries["first"] / "bot.py").read_text()


@pytest.mark.sandbox
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_workers_on_other_machines_play_bots_uploaded_elsewhere(
    settings: Settings, tmp_path: Path
) -> None:
    """Three workers' "machines" share only the database and Redis: the upload's files are
    gone, each worker fetches each artifact once, and a corrupt cached copy is fetched
    again."""
    submitter = Platform(settings)
    names = ["one", "two", "three"]
    (tmp_path / "uploads").mkdir()
    folders = {name: bot_folder(tmp_path / "uploads", name, name) for name in names}
    submitter.db.transaction(
        lambda s: [bots.add_bot(s, n, BotKind.PATH, str(p)) for n, p in folders.items()]
    )
    shutil.rmtree(tmp_path / "uploads")
    machines = [
        Settings(tmp_path / f"machine-{i}", settings.database_url, settings.redis_url)
        for i in (1, 2)
    ]

    def tournament(name: str, games: int, workers: list[Settings]) -> None:
        submitter.db.transaction(
            lambda s: tournaments.create(s, name, Ruleset.parse("classic"), names, 3, games)
        )
        running = [
            Workers(machine, 1, machine.data_dir / "logs", forks=session_forks())
            for machine in workers
        ]
        for worker in running:
            worker.start()
        try:
            # both listening before the jobs go out: a worker takes the next job while its
            # matches play, so the first one ready could take them all
            wait_registered(submitter, len(running))
            submitter.start_tournament(name)
            wait_done(submitter, name)
        finally:
            for worker in running:
                worker.stop()

    tournament("first", 12, machines)
    assert submitter.tournament_status("first").matches.done == 12
    with submitter.db.read() as session:
        digests = {artifacts.digest_in(t) for t in session.scalars(select(BotVersion.target))}
    seen: set[str] = set()
    for machine in machines:
        log = (machine.data_dir / "logs" / "worker-0.log").read_text()
        archives = (machine.data_dir / "artifacts").glob("*.tar.gz")
        cached = {path.name.removesuffix(".tar.gz") for path in archives}
        assert cached <= digests
        for digest in cached:
            assert log.count(f"artifact {digest}: fetched") == 1, "fetched once per machine"
        seen |= cached
    assert seen == digests and len(digests) == 3
    first = machines[0]
    victim = next((first.data_dir / "artifacts").glob("*.tar.gz"))
    victim.write_bytes(b"not the archive")
    tournament("second", 6, [first])
    log = (first.data_dir / "logs" / "worker-0.log").read_text()
    assert "the cached copy is missing or corrupt" in log
    status = submitter.tournament_status("second")
    assert all(row.forfeits == 0 for row in status.leaderboard)


def test_an_uploaded_archive_is_held_to_the_unpacked_limits(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot/bot.py", "pass\n")
        archive.writestr("bot/zeros.bin", bytes(artifacts.MAX_UNPACKED_BYTES + 1))
    assert len(raw.getvalue()) < artifacts.MAX_ARCHIVE_BYTES, "small packed, big unpacked"
    with pytest.raises(Refused, match="over the unpacked limits"):
        artifacts.unpack_upload(raw.getvalue(), tmp_path)
    with pytest.raises(Refused, match="not a .tar.gz or a .zip"):
        artifacts.unpack_upload(b"plain text", tmp_path)
