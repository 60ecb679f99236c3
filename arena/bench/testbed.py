"""Hosts made of network namespaces: a test bed for the platform on several machines
(``tests/test_hosts.py`` and ``arena bench hosts``; root, ``ip`` and util-linux needed).

A ``lan`` namespace holds a bridge; each host is a namespace of its own joined to it
by a veth pair, with one address on a /24 chosen for this test (10.X.Y.0/24). The test's
own process (the operator's machine) joins the bridge through one more veth pair, so it
reaches the hosts' services directly. Everything is named ``arena-<pid>-...``: removed
at the end, and a later test bed removes the namespaces of a test process that died.
Every process started in a host dies with the test (``arena.platform.children``).

A link is cut by setting the host's end of its pair down on the bridge side: the host's
processes keep running and see their packets go nowhere (no reset), as when a cable is
pulled or a host vanishes.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.platform import Platform
from arena.platform.children import alive, spawn
from arena.platform.settings import Settings

PREFIX = "arena-"
POSTGRES_BIN = Path("/usr/lib/postgresql")


def ip(*args: str, namespace: str | None = None, check: bool = True) -> str:
    """``ip ARGS`` (in ``namespace``); its output."""
    command = ["ip", *(["-n", namespace] if namespace else []), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def sweep() -> None:
    """Remove the namespaces (and so their links) of test beds whose process died."""
    for line in ip("netns", "list").splitlines():
        name = line.split()[0] if line.strip() else ""
        found = re.fullmatch(rf"{PREFIX}(\d+)-\w+-\w+", name)
        if found and not alive(int(found.group(1))):
            ip("netns", "del", name, check=False)
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        found = re.match(rf"{PREFIX}(\d+)-[0-9a-f]{{4}}-", folder.name)
        if found and not alive(int(found.group(1))):
            shutil.rmtree(folder, ignore_errors=True)


class Host:
    """One host: a network namespace, its address, its own folders."""

    def __init__(self, bed: TestBed, name: str, address: str, root: Path) -> None:
        self.bed, self.name, self.address = bed, name, address
        self.namespace = f"{bed.tag}-{name}"
        self.root = root / name  # its data dir, temp folder, logs: no file shared
        self.root.mkdir(parents=True)
        self.link = f"{bed.short}{name[:6]}"  # the bridge's end of its pair (<= 15 chars)
        self.processes: list[subprocess.Popen[Any]] = []

    def run(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        log: str = "",
        own_pids: bool = False,
    ) -> Any:
        """Start ``argv`` on this host (killed with the test); its output in ``log``.

        ``own_pids``: in a PID namespace whose first process (a shell, root, killed with
        the test) takes every process in it along: for a server that changes its user
        (PostgreSQL), which loses the signal that kills a child with its parent. Never
        for a worker: it sweeps the sandboxes whose maker's pid is gone, and in a PID
        namespace of its own every other worker's pid looks gone."""
        out = open(self.root / (log or f"{Path(argv[0]).name}.log"), "ab")  # noqa: SIM115
        environment = {**(env or os.environ), "TMPDIR": str(self.tmp)}
        pids = ["--pid", "--fork", "--kill-child", "--mount-proc"] if own_pids else []
        named = ["unshare", "--uts", *pids, "--", "sh", "-c",
                 'hostname "$0" && exec "$@"' if not own_pids else
                 'hostname "$0" && "$@" & wait $!', self.name]  # fmt: skip
        process = spawn(
            ["nsenter", f"--net=/run/netns/{self.namespace}", *named, *argv],
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        self.processes.append(process)
        return process

    @property
    def tmp(self) -> Path:
        path = self.root / "tmp"
        path.mkdir(exist_ok=True)
        return path

    def cut(self) -> None:
        """Pull the cable: packets to and from the host go nowhere, nothing is reset."""
        ip("link", "set", self.link, "down", namespace=self.bed.lan)

    def mend(self) -> None:
        ip("link", "set", self.link, "up", namespace=self.bed.lan)

    def kill(self) -> None:
        """Every process of the host at once (a host lost)."""
        for process in self.processes:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
        for process in self.processes:
            process.wait()


class TestBed:
    """The bridge and the hosts; a context manager that removes them all."""

    __test__ = False  # not a test class

    def __init__(self) -> None:
        sweep()
        self.tag = f"{PREFIX}{os.getpid()}-{secrets.token_hex(2)}"
        self.short = f"a{secrets.token_hex(2)}"
        self.lan = f"{self.tag}-lan"
        # the hosts' folders: readable by the database server's user, removed at the end
        self.root = Path(tempfile.mkdtemp(prefix=f"{self.tag}-"))
        self.root.chmod(0o755)
        self.subnet = _free_subnet()
        self.hosts: dict[str, Host] = {}
        self.operator_link = f"{self.short}op"
        ip("netns", "add", self.lan)
        ip("link", "add", "br0", "type", "bridge", namespace=self.lan)
        ip("link", "set", "br0", "up", namespace=self.lan)
        ip("link", "set", "lo", "up", namespace=self.lan)
        self.operator = self._join(self.operator_link, None, 100)

    def _join(self, link: str, namespace: str | None, number: int) -> str:
        """A veth pair from ``namespace`` (None: the test's own) to the bridge, made in
        ``namespace`` itself: a host's link never appears in the test's namespace, whose
        changes of links and addresses a browser of another test sees (Chromium ends
        its requests in flight with ``ERR_NETWORK_CHANGED``)."""
        address = f"{self.subnet}.{number}"
        inside = f"{link}i"
        ip("link", "add", inside, "type", "veth", "peer", "name", link, "netns", self.lan,
           namespace=namespace)  # fmt: skip
        ip("addr", "add", f"{address}/24", "dev", inside, namespace=namespace)
        ip("link", "set", inside, "up", namespace=namespace)
        ip("link", "set", link, "master", "br0", namespace=self.lan)
        ip("link", "set", link, "up", namespace=self.lan)
        return address

    def host(self, name: str) -> Host:
        number = 1 + len(self.hosts)
        host = Host(self, name, f"{self.subnet}.{number}", self.root)
        ip("netns", "add", host.namespace)
        ip("link", "set", "lo", "up", namespace=host.namespace)
        self._join(host.link, host.namespace, number)
        self.hosts[name] = host
        return host

    def close(self) -> None:
        for host in self.hosts.values():
            host.kill()
        for host in self.hosts.values():
            ip("netns", "del", host.namespace, check=False)
        ip("netns", "del", self.lan, check=False)  # the operator's pair goes with it
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> TestBed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _free_subnet() -> str:
    """A 10.X.Y /24 that no route of this machine uses."""
    routes = ip("route", "show")
    rng = random.Random(f"{os.getpid()}/{time.time_ns()}")
    while True:
        subnet = f"10.{rng.randrange(100, 250)}.{rng.randrange(0, 250)}"
        if f"{subnet}.0/24" not in routes:
            return subnet


# ------------------------------------------------------------------ services


def postgres_server(host: Host, password: str) -> str:
    """A PostgreSQL server of its own on ``host`` (as the ``postgres`` user, which a
    server must be), password auth from the network; its URL."""
    version = max(POSTGRES_BIN.iterdir(), key=lambda p: int(p.name)) / "bin"
    data = host.root / "pgdata"
    sockets = host.root / "pgsock"
    for folder in (data, sockets):
        folder.mkdir()
        shutil.chown(folder, "postgres", "postgres")
    (host.root / "pwfile").write_text(password)
    shutil.chown(host.root / "pwfile", "postgres", "postgres")
    as_postgres = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
    subprocess.run(
        [*as_postgres, str(version / "initdb"), "-D", str(data), "-U", "arena", "-A",
         "scram-sha-256", f"--pwfile={host.root / 'pwfile'}", "--no-sync"],
        check=True, capture_output=True, cwd="/",
    )  # fmt: skip
    with open(data / "pg_hba.conf", "a") as hba:
        hba.write("host all all 0.0.0.0/0 scram-sha-256\n")
    host.run(
        [*as_postgres, str(version / "postgres"), "-D", str(data), "-k", str(sockets),
         "-h", host.address, "-c", "fsync=off", "-c", "max_connections=200"],
        log="postgres.log",
        own_pids=True,
    )  # fmt: skip
    url = f"postgresql+psycopg://arena:{password}@{host.address}:5432/postgres"
    _wait_listening(host.address, 5432)
    return url


def redis_server(host: Host, password: str) -> str:
    """A Redis server on ``host``, password required, spoken to over TLS only (a
    certificate of its own for its address; no plain port); its ``rediss://`` URL,
    trusting that certificate (each host gets its own copy: :meth:`Site.worker_env`)."""
    cert, key = host.root / REDIS_CERT, host.root / "redis-key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=arena-test-bed", "-addext", f"subjectAltName=IP:{host.address}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    host.run(
        ["redis-server", "--bind", host.address, "--port", "0", "--tls-port", "6379",
         "--tls-cert-file", str(cert), "--tls-key-file", str(key),
         "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no",
         "--requirepass", password, "--save", "", "--appendonly", "no", "--dir", str(host.root)],
        log="redis.log",
    )  # fmt: skip
    _wait_listening(host.address, 6379)
    return _trusting(f"rediss://:{password}@{host.address}:6379/0", cert)


#: the Redis server's certificate, in each host's folder
REDIS_CERT = "redis-cert.pem"


def _trusting(url: str, cert: Path) -> str:
    """``url`` (without its query) verifying the server against ``cert``."""
    return f"{url.split('?')[0]}?ssl_cert_reqs=required&ssl_ca_certs={cert}"


def _wait_listening(address: str, port: int, timeout: float = 300.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((address, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# ------------------------------------------------------------------ a site on the bed

#: the port of the endpoint bot's server on its host
BOT_PORT = 50051
#: the port of the dashboard on its host
DASHBOARD_PORT = 8000

#: the sample honest bot as an endpoint
HONEST_BOT = (
    "from arena.sdk import serve\nfrom sample_bots.honest import HonestBot\nserve(HonestBot)"
)

#: an endpoint bot that thinks a little at each decision: matches last long enough for a
#: cut to land in the middle of one
SLOW_BOT = """
import time
from arena.sdk import serve
from sample_bots.honest import HonestBot

class Slow(HonestBot):
    def act(self, observation):
        time.sleep(0.05)
        return super().act(observation)

serve(Slow)
"""

#: a host's session that takes the row every recording of tournament ``cup`` updates
#: (connected as a worker connects), says so, and never ends its transaction
HOLDER = """
import sys, time
from sqlalchemy import text
from arena.store.db import make_engine
with make_engine(sys.argv[1]).begin() as connection:
    connection.execute(text("UPDATE tournaments SET completed = completed WHERE name = 'cup'"))
    print("holding", flush=True)
    time.sleep(3600)
"""


@dataclass
class Site:
    """The platform on the bed: a services host (PostgreSQL, Redis), two worker hosts, a
    host for an endpoint bot, a host for the dashboard, and the operator's platform
    (this process)."""

    bed: TestBed
    platform: Platform
    services: Host
    workers: list[Host]
    bot: Host
    dashboard: Host

    def worker_env(self, host: Host) -> dict[str, str]:
        settings = self.platform.settings
        cert = host.root / REDIS_CERT  # the host's own copy: no file is shared
        if not cert.exists():
            shutil.copy(self.services.root / REDIS_CERT, cert)
        return {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "ARENA_DATA_DIR": str(host.root / "data"),
            "ARENA_DATABASE_URL": settings.database_url,
            "REDIS_URL": _trusting(settings.redis_url or "", cert),
            "ARENA_QUEUE": settings.queue_name,
        }

    def start_worker(self, host: Host) -> None:
        host.run([sys.executable, "-m", "arena", "worker"], self.worker_env(host), "worker.log")

    def start_dashboard(self) -> str:
        """The dashboard on a host of its own (the database and Redis of the services
        host, its own data dir); its base URL once it listens."""
        host = self.dashboard
        host.run(
            [sys.executable, "-m", "arena", "dashboard", "--host", host.address,
             "--port", str(DASHBOARD_PORT)],
            self.worker_env(host),
            "dashboard.log",
        )  # fmt: skip
        _wait_listening(host.address, DASHBOARD_PORT)
        return f"http://{host.address}:{DASHBOARD_PORT}"

    def stop_redis(self) -> None:
        """Redis away: its server on the services host killed (PostgreSQL runs on)."""
        for process in self.services.processes:
            if "redis-server" in str(process.args) and process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()

    def serve_bot(self, source: str) -> str:
        """Serve the bot ``source`` (Python that calls ``serve``) on the bot's host; its
        address."""
        self.bot.run(
            [sys.executable, "-c", source, "--host", self.bot.address, "--port", str(BOT_PORT)],
            log="bot.log",
        )
        return f"{self.bot.address}:{BOT_PORT}"


@contextlib.contextmanager
def site() -> Iterator[Site]:
    with TestBed() as bed:
        services = bed.host("services")
        url = postgres_server(services, secrets.token_hex(8))
        redis_url = redis_server(services, secrets.token_hex(8))
        workers = [bed.host("w1"), bed.host("w2")]
        bot, dashboard = bed.host("bot"), bed.host("dashboard")
        platform = Platform(Settings(bed.root / "operator", url, redis_url))
        try:
            yield Site(bed, platform, services, workers, bot, dashboard)
        finally:
            platform.db.dispose()
