"""Outlive the match: double fork, a new session, exec with a clean environment."""

import os

from player import Plain, given, report

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execve("/bin/sleep", ["sleep", given("MARK")], {})
    os._exit(0)
os.wait()
report("daemon", "left behind")


class Daemon(Plain):
    name = "daemon"
