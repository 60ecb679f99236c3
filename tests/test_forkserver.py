"""The fork server: a forked command is the process a new interpreter would be (its
streams, environment, directory, session, signals, title and exit status), holds none of
the server's descriptors, and dies with whoever asked for it, however that one dies."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.platform import children
from arena.platform.forkserver import Forked, ForkServer, ForkServerError

pytestmark = pytest.mark.processes

PROBE = "tests.support.forked_probe"
ROOT = Path(__file__).resolve().parents[1]
HANG_SECONDS = 120  # a hang, not a slow machine


@contextlib.contextmanager
def _sigint_handled() -> Iterator[None]:
    """This process handling Ctrl-C meanwhile, as an interactive one does: what it starts
    then handles it too (a background job, as CI may run the suite, ignores it, and so
    would every process it starts, forked or new)."""
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)


@pytest.fixture
def forks() -> Iterator[ForkServer]:
    with _sigint_handled():
        server = ForkServer(dict(os.environ), preload=(PROBE,)).start()
    try:
        yield server
    finally:
        server.close()


def _new_interpreter(args: list[str], **options: object) -> subprocess.Popen[bytes]:
    with _sigint_handled():
        return children.spawn([sys.executable, "-m", PROBE, *args], cwd=ROOT, **options)


def _report(path: Path) -> dict:
    return json.loads(path.read_text().splitlines()[0])


def test_a_forked_command_has_its_own_streams_environment_directory_session_and_status(
    forks: ForkServer, tmp_path: Path
) -> None:
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        child = forks.spawn(
            PROBE, ["3", "x y"], env={**os.environ, "PROBE": "here"}, cwd=tmp_path,
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True,
        )  # fmt: skip
    assert isinstance(child, Forked), "forked, not a new interpreter"
    assert child.wait(HANG_SECONDS) == 3 and child.returncode == 3
    report = _report(out)
    assert report["argv"] == ["3", "x y"]
    assert report["cwd"] == str(tmp_path) and report["path0"] == str(tmp_path)
    assert report["probe"] == "here"
    assert report["pid"] == child.pid and report["sid"] == child.pid, "its own session"
    assert report["ppid"] != os.getpid(), "the server's child, not ours"
    assert err.read_text() == "to stderr\n"
    with (tmp_path / "new").open("wb") as stdout:
        assert _new_interpreter(["0"], stdout=stdout).wait(HANG_SECONDS) == 0
    assert report["signals"] == _report(tmp_path / "new")["signals"], (
        "each signal handled as a new interpreter handles it"
    )


def test_a_forked_command_holds_none_of_the_servers_descriptors_and_keeps_its_environment(
    forks: ForkServer, tmp_path: Path
) -> None:
    reader, writer = os.pipe()
    out = tmp_path / "out"
    try:
        with out.open("wb") as stdout:
            child = forks.spawn(
                PROBE, ["0", "wait"], env=dict(os.environ), stdin=reader, stdout=stdout
            )
        _wait_for(lambda: out.stat().st_size > 0, "the report")
        links = _report(out)["fds"].values()
        held = [link for link in links if link.startswith(("socket:", "anon_inode:"))]
        assert not held, f"the server's sockets, epoll or pidfds leaked into the child: {held}"
        title = Path(f"/proc/{child.pid}/cmdline").read_bytes().replace(b"\0", b" ").strip()
        assert title == f"python -m {PROBE} 0 wait".encode(), "ps shows its command"
        environ = Path(f"/proc/{child.pid}/environ").read_bytes()
        assert f"PATH={os.environ['PATH']}".encode() in environ.split(b"\0"), (
            "the title leaves /proc's environment readable"
        )
        assert child.poll() is None
        os.write(writer, b"\n")
        assert child.wait(HANG_SECONDS) == 0
    finally:
        os.close(reader)
        os.close(writer)


def test_signals_end_a_forked_command_as_they_end_a_new_interpreter(
    forks: ForkServer, tmp_path: Path
) -> None:
    """SIGINT (KeyboardInterrupt, then death by the signal) and SIGKILL, each beside the
    same command in a new interpreter."""
    endings = {}
    for how in ("forked", "new"):
        for signum in (signal.SIGINT, signal.SIGKILL):
            reader, writer = os.pipe()
            out = tmp_path / f"{how}-{signum}"
            with out.open("wb") as stdout:
                if how == "forked":
                    child = forks.spawn(
                        PROBE, ["0", "wait"], env=dict(os.environ), cwd=ROOT,
                        stdin=reader, stdout=stdout, stderr=subprocess.DEVNULL,
                    )  # fmt: skip
                else:
                    child = _new_interpreter(
                        ["0", "wait"], stdin=reader, stdout=stdout, stderr=subprocess.DEVNULL
                    )
            _wait_for(lambda: out.stat().st_size > 0, "the report")  # noqa: B023
            child.send_signal(signum)
            endings[how, signum] = child.wait(HANG_SECONDS)
            os.close(reader)
            os.close(writer)
    assert endings["forked", signal.SIGINT] == endings["new", signal.SIGINT] == -signal.SIGINT
    assert endings["forked", signal.SIGKILL] == endings["new", signal.SIGKILL] == -signal.SIGKILL


def test_a_request_for_other_interpreter_settings_gets_a_new_interpreter(
    forks: ForkServer, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    assert not forks.serves(env)
    with (tmp_path / "out").open("wb") as stdout:
        child = forks.spawn(PROBE, ["5"], env=env, cwd=ROOT, stdout=stdout)
    assert isinstance(child, subprocess.Popen), "started the usual way"
    assert child.wait(HANG_SECONDS) == 5


def test_a_server_that_has_a_thread_refuses_to_fork() -> None:
    threaded = ForkServer(dict(os.environ), preload=("tests.support.threaded_module",))
    with threaded as server, pytest.raises(ForkServerError, match="threads"):
        server.spawn(PROBE, ["0"], env=dict(os.environ), stdout=subprocess.DEVNULL)


OWNER = f"""
import os, subprocess, sys, time
from arena.platform.forkserver import ForkServer
server = ForkServer(dict(os.environ), preload=({PROBE!r},)).start()
reader, writer = os.pipe()
child = server.spawn({PROBE!r}, ["0", "wait"], env=dict(os.environ), stdin=reader,
                     stdout=subprocess.DEVNULL, start_new_session=True)
print(server._process.pid, child.pid, flush=True)
time.sleep(3600)
"""


def test_a_forked_command_dies_with_its_owner_killed_by_sigkill() -> None:
    """The owner killed with ``kill -9``: the server dies with it, and the command, in
    its own session, with the server."""
    owner = children.spawn(
        [sys.executable, "-c", OWNER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert owner.stdout is not None
        server_pid, child_pid = (int(pid) for pid in owner.stdout.readline().split())
        started = {pid: _started(pid) for pid in (server_pid, child_pid)}
        assert all(started.values()), "both run"
        owner.kill()
        owner.wait()
        _wait_for(
            lambda: all(_started(pid) != when for pid, when in started.items()),
            "the server and its command to die",
        )
    finally:
        owner.kill()
        owner.wait()


def _started(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except OSError:
        return None


def _wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited for {what}"
        time.sleep(0.02)


def test_a_command_that_cannot_start_exits_127_and_says_why(
    forks: ForkServer, tmp_path: Path
) -> None:
    """As a shell says of a command it cannot run: the status 127, the reason on stderr."""
    err = tmp_path / "err"
    with err.open("wb") as stderr:
        child = forks.spawn(
            PROBE, ["0"], env=dict(os.environ), cwd=tmp_path / "gone", stdout=subprocess.DEVNULL,
            stderr=stderr,
        )  # fmt: skip
    assert child.wait(HANG_SECONDS) == 127
    assert f"cannot start {PROBE}" in err.read_text() and "gone" in err.read_text()
