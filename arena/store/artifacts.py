"""Uploaded bots' code, stored once in the database and named by its SHA-256.

An upload (a Python file, or a bot's folder in one of the languages of
:mod:`arena.sdk.languages`: as written, or as its build left it) is packed into a deterministic
gzipped tar (sorted entries, no times, owners or modes but the executable bit), its
digest computed, and the archive stored in ``artifacts`` unless it is there already.
A version's target is ``sha256:<digest>``, never a path: a version never changes when
its original files do, and a worker on any machine fetches the archive from the
database (``worker.artifacts``).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from sqlalchemy.orm import Session

from arena.base.errors import Invalid, NotFound
from arena.sdk.languages import KitError, kit_of
from arena.store.models import Artifact

PREFIX = "sha256:"
#: the most an upload may hold, packed
MAX_ARCHIVE_BYTES = 5 * 1024 * 1024
#: the most an upload may hold, unpacked (its files' sizes added up)
MAX_UNPACKED_BYTES = 25 * 1024 * 1024
#: the most files an upload may hold
MAX_FILES = 500
_SKIPPED = ("__pycache__",)


def pack(source: Path) -> bytes:
    """The upload at ``source`` as a deterministic .tar.gz; Refused when it is no bot."""
    if not source.exists():
        raise Invalid.of("upload.missing", source=source)
    if source.is_dir():
        try:
            kit_of(source)
        except KitError as error:
            raise Invalid.of("upload.no_kit", source=source, why=str(error)) from None
        files = _files(source)
    elif source.suffix == ".py" and source.is_file():
        files = [(source.name, source)]
    else:
        raise Invalid.of("upload.not_a_bot", source=source)
    total = sum(path.stat().st_size for _, path in files)
    if total > MAX_UNPACKED_BYTES:
        raise Invalid.of("upload.unpacked_size", size=total, most=MAX_UNPACKED_BYTES)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, path in files:
            data = path.read_bytes()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755 if path.stat().st_mode & 0o111 else 0o644
            tar.addfile(info, io.BytesIO(data))
    packed = gzip.compress(raw.getvalue(), mtime=0)
    if len(packed) > MAX_ARCHIVE_BYTES:
        raise Invalid.of("upload.packed_size", size=len(packed), most=MAX_ARCHIVE_BYTES)
    return packed


def _files(folder: Path) -> list[tuple[str, Path]]:
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part in _SKIPPED for part in relative.parts):
            continue
        if path.is_symlink():
            raise Invalid.of("upload.symlink", path=relative)
        if path.is_file():
            files.append((relative.as_posix(), path))
        elif not path.is_dir():
            raise Invalid.of("upload.not_plain", path=relative)
        if len(files) > MAX_FILES:
            raise Invalid.of("upload.files", most=MAX_FILES)
    return files


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store(session: Session, source: Path) -> str:
    """Pack and store the upload at ``source`` (once per content); its version target."""
    data = pack(source)
    digest = digest_of(data)
    if session.get(Artifact, digest) is None:
        session.add(Artifact(digest=digest, data=data, size=len(data)))
        session.flush()
    return PREFIX + digest


def digest_in(target: str) -> str | None:
    """The digest a version target names, or None (an older path target)."""
    return target[len(PREFIX) :] if target.startswith(PREFIX) else None


def fetch(session: Session, digest: str) -> bytes:
    """An artifact's archive, checked against its name."""
    artifact = session.get(Artifact, digest)
    if artifact is None:
        raise NotFound.of("artifact.missing", digest=digest)
    data = bytes(artifact.data)
    if digest_of(data) != digest:
        raise Invalid.of("artifact.corrupt", digest=digest)
    return data


def _extract(tar: tarfile.TarFile, members: list[tarfile.TarInfo], folder: Path) -> None:
    """Plain files into ``folder``, none named outside it, through tarfile's ``data``
    filter; where Python has none (before 3.11.4: Debian 12's own 3.11.2), what it would
    change is changed here: modes beyond rwx dropped, the archive's owners ignored."""
    for member in members:
        name = PurePosixPath(member.name)
        if name.is_absolute() or ".." in name.parts:
            raise Invalid.of("archive.outside", name=member.name)
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, members, filter="data")
        return
    for member in members:
        member.mode &= 0o755
        member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
    tar.extractall(folder, members)


def unpack(data: bytes, folder: Path) -> Path:
    """Extract an archive into ``folder``; the bot's entry (its folder, or its one file)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()  # headers only: the sizes are checked before a byte lands
        if len(members) > MAX_FILES or sum(m.size for m in members) > MAX_UNPACKED_BYTES:
            raise Invalid.of("archive.over_limits")
        if not all(member.isfile() or member.isdir() for member in members):
            raise Invalid.of("archive.not_plain")
        _extract(tar, members, folder)
        names = [member.name for member in members if member.isfile()]
    return folder / names[0] if single_file(names) else folder


def single_file(names: list[str]) -> bool:
    """Whether an upload's files (their names in it) are one Python file uploaded alone,
    not a bot's folder."""
    return len(names) == 1 and names[0].endswith(".py") and names[0] != "bot.py"


def unpack_upload(data: bytes, folder: Path) -> Path:
    """A bot's folder sent as an archive (``.tar.gz`` or ``.zip``, as packed here or by
    hand) extracted into ``folder``, under the same limits as :func:`unpack`; the bot's
    folder: ``folder``, or the one folder the archive holds everything in."""
    if len(data) > MAX_ARCHIVE_BYTES:
        raise Invalid.of("upload.packed_size", size=len(data), most=MAX_ARCHIVE_BYTES)
    if data[:2] == b"\x1f\x8b":
        unpack(data, folder)
    elif data[:4] == b"PK\x03\x04":
        _unzip(data, folder)
    else:
        raise Invalid.of("archive.kind")
    entries = [path for path in folder.iterdir() if not path.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return folder


def _unzip(data: bytes, folder: Path) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > MAX_FILES or sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
            raise Invalid.of("archive.over_limits")
        written = 0
        for member in members:
            name = PurePosixPath(member.filename)
            if name.is_absolute() or ".." in name.parts:
                raise Invalid.of("archive.outside", name=member.filename)
            if (member.external_attr >> 16) & 0o170000 not in (0, 0o100000):
                raise Invalid.of("archive.not_plain")
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(target, "wb") as out:
                # the sizes a zip's headers give are its own word: count what comes out
                written += out.write(source.read(MAX_UNPACKED_BYTES - written + 1))
            if written > MAX_UNPACKED_BYTES:
                raise Invalid.of("archive.over_limits")
            mode = (member.external_attr >> 16) & 0o111
            target.chmod(0o755 if mode else 0o644)
