"""Shared helpers of the sandbox tests: attack bots as uploads, loopback listeners that
count connections, and a look for processes left on the host."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

ATTACKS = Path(__file__).parent / "sandbox_bots" / "attacks"
#: a plain legal player that imports only the SDK: what the attacks are built on
PLAIN_BOT = ATTACKS / "player.py"


def attack_bot(tmp_path: Path, name: str, **values: object) -> Path:
    """The attack ``name`` as an uploaded folder (``bot.py`` and the plain player)."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    shutil.copy(ATTACKS / f"{name}.py", folder / "bot.py")
    shutil.copy(ATTACKS / "player.py", folder / "player.py")
    (folder / "values.json").write_text(json.dumps(values))
    return folder


class Listener:
    """A TCP or Unix listener on this machine that counts the connections it accepts."""

    def __init__(self, family: int, address: object) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def address(self) -> object:
        return self.sock.getsockname()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@contextlib.contextmanager
def listeners(*specs: tuple[int, object]) -> Iterator[list[Listener]]:
    opened = [Listener(family, address) for family, address in specs]
    try:
        yield opened
    finally:
        for listener in opened:
            listener.close()


def host_processes_with(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if mark.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
    return found
