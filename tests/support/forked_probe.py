"""A command for the fork server's tests: says what it got, then exits as told.

``python -m tests.support.forked_probe CODE [wait]``: prints its argv, directory,
environment variable ``PROBE``, ids, session, ``sys.path[0]``, its signals' handlers
and its open descriptors as JSON on stdout, writes ``to stderr`` on stderr,
reads a line of stdin if asked (``wait``), and exits with CODE.
"""

from __future__ import annotations

import json
import os
import signal
import sys


def main() -> None:
    print(
        json.dumps(
            {
                "argv": sys.argv[1:],
                "cwd": os.getcwd(),
                "probe": os.environ.get("PROBE"),
                "pid": os.getpid(),
                "ppid": os.getppid(),
                "sid": os.getsid(0),
                "path0": sys.path[0],
                "signals": {
                    name: _disposition(getattr(signal, name))
                    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", "SIGCHLD")
                },
                "fds": _descriptors(),
            }
        ),
        flush=True,
    )
    print("to stderr", file=sys.stderr, flush=True)
    if "wait" in sys.argv[2:]:
        sys.stdin.readline()
    sys.exit(int(sys.argv[1]))


def _disposition(signum: int) -> str:
    handler = signal.getsignal(signum)
    return getattr(handler, "__name__", None) or str(handler)


def _descriptors() -> dict[str, str]:
    """What each open descriptor is (the listing's own is closed once listed)."""
    links = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            links[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
    return links


if __name__ == "__main__":
    main()
