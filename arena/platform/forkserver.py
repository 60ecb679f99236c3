"""Python commands started warm: forked from a process that has imported them already.

A new interpreter spends most of a worker's or the dashboard's start importing (0.7 s
of CPU for a worker, 1.5 s for the dashboard). A :class:`ForkServer` is one process,
started once, that imports the platform and then forks ``python -m MODULE ARGS`` on
request: each child is a real process with its own pid, session, standard streams,
environment and working directory, its title set to its command (``ps`` and
``pgrep -f "arena worker"`` see it), signals as a new interpreter has them, and it runs
the module as ``python -m`` would (``runpy``); only the imports are shared.

Lifetimes chain as :mod:`arena.platform.children` promises: the server dies with its
owner (``setpriv --pdeathsig``), and each child with the server (``PR_SET_PDEATHSIG``
armed in the child, the server being single-threaded), so a child never outlives the
process that asked for it. The server reports each child's exit status on a socket of
that child's own: :class:`Forked` offers what the platform uses of ``subprocess.Popen``.

The server forks only while it has one thread (it checks before each fork), and a
request whose interpreter settings differ (a ``PYTHON*`` variable other than the
server's) is started the usual way: see :meth:`ForkServer.spawn`.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import json
import os
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from arena.platform.children import Child, wait_or_kill
from arena.platform.children import spawn as spawn_process

#: what a server imports before it forks anything: the worker, the dashboard, the CLI
DEFAULT_PRELOAD = ("arena.cli", "worker.runner", "dashboard.app")
_PR_SET_PDEATHSIG = 1
_STATUS = 4  # bytes of a wait status
_MESSAGE = 1 << 20
#: how long a server may take to import before its owner gives up on it
START_SECONDS = 300


class ForkServerError(RuntimeError):
    """The server could not start, or refused a request."""


class Forked:
    """A child forked by a :class:`ForkServer`: its status comes on its own socket."""

    def __init__(self, pid: int, args: list[str], status: socket.socket) -> None:
        self.pid, self.args, self._status = pid, args, status
        self._returncode: int | None = None

    @property
    def returncode(self) -> int | None:
        return self._returncode

    def poll(self) -> int | None:
        return self._collect(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._collect(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def send_signal(self, signum: int) -> None:
        if self._returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def _collect(self, timeout: float | None) -> int | None:
        if self._returncode is not None:
            return self._returncode
        self._status.settimeout(timeout)
        try:
            data = self._status.recv(_STATUS)
        except (TimeoutError, BlockingIOError):
            return None
        # no status: the server died, and the child with it (its PDEATHSIG)
        status = int.from_bytes(data, "little") if len(data) == _STATUS else signal.SIGKILL
        self._returncode = os.waitstatus_to_exitcode(status)
        self._status.close()
        return self._returncode


class ForkServer:
    """A process that has imported ``preload`` and forks commands on request; stopped
    (and every child it forked with it) on exit. ``env`` is its environment: a request's
    ``PYTHON*`` variables must match it."""

    def __init__(self, env: Mapping[str, str], preload: Sequence[str] = DEFAULT_PRELOAD) -> None:
        self.env = dict(env)
        self.preload = tuple(preload)
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> ForkServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> ForkServer:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._process = spawn_process(
                [sys.executable, "-m", "arena.platform.forkserver", str(theirs.fileno()),
                 *self.preload],
                env={**self.env, "SPT_NOENV": "1"},  # a title never overwrites the environment
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's Ctrl-C is for the owner, not the server
                pass_fds=(theirs.fileno(),),
            )  # fmt: skip
        self._control = ours
        ours.settimeout(START_SECONDS)  # a hang, not a slow machine: it takes a second or two
        try:
            reply = ours.recv(_MESSAGE)
        except TimeoutError:
            reply = b"no answer in %d s" % START_SECONDS
        ours.settimeout(None)
        if reply != b"ready":
            self.close()
            raise ForkServerError(
                f"the fork server did not start: {reply.decode(errors='replace')}"
            )
        return self

    def close(self) -> None:
        if self._control is not None:
            self._control.close()  # the server exits when its socket closes
            self._control = None
        if self._process is not None:
            wait_or_kill(self._process, 10)
            self._process = None

    def serves(self, env: Mapping[str, str]) -> bool:
        """Whether a command with ``env`` can be forked here: the server runs, and the
        interpreter's own variables are the server's."""
        return self._control is not None and _interpreter(env) == _interpreter(self.env)

    def spawn(
        self,
        module: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | Path | None = None,
        stdin: int | IO[Any] | None = None,
        stdout: int | IO[Any] | None = None,
        stderr: int | IO[Any] | None = None,
        pass_fds: Sequence[int] = (),
        start_new_session: bool = False,
    ) -> Child:
        """``python -m MODULE ARGS``, forked here when :meth:`serves` says so, else
        started as a new interpreter (the same command, the same streams)."""
        if not self.serves(env):
            return spawn_process(
                [sys.executable, "-m", module, *args], env=dict(env), cwd=cwd, stdin=stdin,
                stdout=stdout, stderr=stderr, pass_fds=tuple(pass_fds),
                start_new_session=start_new_session,
            )  # fmt: skip
        with contextlib.ExitStack() as opened:
            streams = _stream_fds((stdin, stdout, stderr), opened)
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            opened.callback(theirs.close)
            request = {
                "module": module,
                "args": list(args),
                "env": dict(env),
                "cwd": str(cwd if cwd is not None else os.getcwd()),
                "session": start_new_session,
                "targets": [0, 1, 2, *pass_fds],
            }
            fds = [*streams, *pass_fds, theirs.fileno()]
            with self._lock:
                assert self._control is not None
                socket.send_fds(self._control, [json.dumps(request).encode()], fds)
                reply = json.loads(self._control.recv(_MESSAGE))
        if "pid" not in reply:
            ours.close()
            raise ForkServerError(reply.get("error", "the fork server refused"))
        return Forked(reply["pid"], [sys.executable, "-m", module, *args], ours)


def _interpreter(env: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith("PYTHON")}


def _stream_fds(streams: Sequence[int | IO[Any] | None], opened: contextlib.ExitStack) -> list[int]:
    """The descriptors standing for ``stdin``, ``stdout`` and ``stderr`` as
    ``subprocess`` takes them (None: this process's own; DEVNULL; STDOUT for stderr)."""
    fds: list[int] = []
    for number, stream in enumerate(streams):
        if stream is None:
            fds.append(number)
        elif stream == subprocess.DEVNULL:
            null = os.open(os.devnull, os.O_RDWR)
            opened.callback(os.close, null)
            fds.append(null)
        elif stream == subprocess.STDOUT and number == 2:
            fds.append(fds[1])
        elif isinstance(stream, int) and stream >= 0:
            fds.append(stream)
        elif isinstance(stream, int):
            raise ValueError("a forked command takes files or DEVNULL, not pipes")
        else:
            fds.append(stream.fileno())
    return fds


# --- the server's side -------------------------------------------------------------


class _Run(BaseException):
    """Raised in a forked child: leave the server's frames, then run ``request``."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.request = request


def serve(control: socket.socket) -> None:
    """Answer requests until ``control`` closes; in a forked child, raise :class:`_Run`."""
    pending: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, status socket)
    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj is control:
                    message, fds, _, _ = socket.recv_fds(control, _MESSAGE, 64)
                    if not message:
                        return
                    child = _fork(control, json.loads(message), fds, pending, selector)
                    if child is not None:
                        pidfd, pid, status = child
                        pending[pidfd] = (pid, status)
                        selector.register(pidfd, selectors.EVENT_READ)
                else:
                    pidfd = key.fd
                    selector.unregister(pidfd)
                    pid, status = pending.pop(pidfd)
                    _, code = os.waitpid(pid, 0)
                    with contextlib.suppress(OSError), status:
                        status.send(code.to_bytes(_STATUS, "little"))
                    os.close(pidfd)


def _fork(
    control: socket.socket,
    request: dict[str, Any],
    fds: list[int],
    pending: dict[int, tuple[int, socket.socket]],
    selector: selectors.BaseSelector,
) -> tuple[int, int, socket.socket] | None:
    status = socket.socket(fileno=fds[-1])
    streams = fds[:-1]
    if threading.active_count() != 1:  # a fork would copy another thread's locks
        control.send(json.dumps({"error": "the fork server has threads"}).encode())
        _close(streams)
        status.close()
        return None
    pid = os.fork()
    if pid == 0:
        try:
            statuses = [other for _, other in pending.values()]
            _become_child(request, streams, [control, status, selector, *statuses])
        except BaseException as error:  # what a new interpreter's start would have said
            with contextlib.suppress(OSError):
                os.write(2, f"arena: cannot start {request['module']}: {error}\n".encode())
            os._exit(127)
        raise _Run(request)
    _close(streams)
    pidfd = os.pidfd_open(pid)
    control.send(json.dumps({"pid": pid}).encode())
    return pidfd, pid, status


def _become_child(request: dict[str, Any], streams: list[int], server_parts: list[Any]) -> None:
    """In the forked child: die with the server, drop the server's descriptors, take the
    request's streams, session, environment, directory and title."""
    server = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != server:
        os._exit(1)
    for part in server_parts:  # through their objects: none closes a reused number later
        part.close()
    if request["session"]:
        os.setsid()
    targets: list[int] = request["targets"]
    above = max(targets) + 1  # copies first: a stream may sit on another's target
    copies = [fcntl.fcntl(fd, fcntl.F_DUPFD, above) for fd in streams]
    for copy, target in zip(copies, targets, strict=True):
        os.dup2(copy, target, inheritable=True)
    for fd in _open_fds():  # the received streams, their copies, the pidfds
        if fd not in targets:
            with contextlib.suppress(OSError):
                os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    gc.enable()
    _title(request)  # signals stay the server's: a new interpreter's from the same owner


def _open_fds() -> list[int]:
    """This process's descriptors above the standard three (the listing's own is gone
    once listed: closing it fails quietly)."""
    return [int(name) for name in os.listdir("/proc/self/fd") if int(name) > 2]


def _close(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _title(request: dict[str, Any]) -> None:
    """``ps`` shows the command (``arena worker``), not the server's."""
    try:
        import setproctitle
    except ImportError:
        return
    args = " ".join(request["args"])
    name = "arena" if request["module"] == "arena" else f"python -m {request['module']}"
    setproctitle.setproctitle(f"{name} {args}".strip())


def main(argv: list[str]) -> None:
    # as the gc module's documentation advises for forking without exec: no collection
    # here (it would leave holes in shared pages), everything imported frozen before the
    # first fork (a child's collections never touch it, nor copy its pages), and
    # collections on again in each child
    gc.disable()
    control = socket.socket(fileno=int(argv[0]))
    try:
        for module in argv[1:]:
            __import__(module)
        with contextlib.suppress(ImportError):
            import setproctitle

            setproctitle.getproctitle()  # set up while SPT_NOENV is in the environment
    except BaseException as error:
        control.send(f"{type(error).__name__}: {error}".encode())
        raise
    gc.freeze()
    control.send(b"ready")
    try:
        serve(control)
    except _Run as run:
        _run(run.request)


def _run(request: dict[str, Any]) -> None:
    """Run the request's module as ``python -m`` does, in this (forked) interpreter."""
    sys.argv = [request["module"], *request["args"]]
    sys.path[0] = request["cwd"]
    sys.modules.pop(request["module"], None)  # preloaded or not, it runs anew as __main__
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
