"""Connect to another seat's Unix socket (its host path given away), and to an abstract
socket of the host."""

import socket

from player import Plain, given, report

for address in (given("SOCKET"), "\0" + given("ABSTRACT")):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1)
            probe.connect(address)
            probe.sendall(b"hello")
            report("unix", "connected")
    except OSError as error:
        report("unix", f"refused ({error.errno})")


class UnixSocket(Plain):
    name = "unix-socket"
