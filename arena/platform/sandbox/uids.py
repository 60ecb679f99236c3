"""A host uid of its own for every running sandbox, leased from a range no one else uses.

Inside, every bot is uid 65534; outside, each sandbox maps it to a uid of the range
(``ARENA_SANDBOX_UIDS``, default 600000-699999: no account, file or subordinate range of
the machine's uses it), so nothing the kernel keeps per uid (keyrings, process counts,
the files a uid may open) is shared between two sandboxes or with the worker. A lease is
an exclusive ``flock`` on the uid's file in a machine-wide folder: every worker of the
machine sees it, and the kernel gives it back when the process that held it dies.
"""

from __future__ import annotations

import fcntl
import os
import random
import tempfile
from pathlib import Path

from arena.platform.settings import SANDBOX_UIDS_ENV, sandbox_uids


class NoUidLeft(RuntimeError):
    """Every uid of the range is in use on this machine."""


def uid_range() -> range:
    return sandbox_uids()


def _folder() -> Path:
    folder = Path(tempfile.gettempdir()) / "arena-sandbox-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


class UidLease:
    """One uid of the range, held until :meth:`release` (or the holder's death)."""

    def __init__(self) -> None:
        uids = uid_range()
        folder = _folder()
        start = random.randrange(len(uids))  # where to look first: few collisions
        for offset in range(len(uids)):
            uid = uids[(start + offset) % len(uids)]
            fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise NoUidLeft(f"all {len(uids)} sandbox uids are in use ({SANDBOX_UIDS_ENV})")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
