"""Every environment variable the platform reads, in one place, read once per process
(the table of them all, with their defaults: docs/operations.md, "Environment").

``ARENA_DATA_DIR`` (default ``$XDG_DATA_HOME/arena``, that is ``~/.local/share/arena``,
whatever the current folder) holds the SQLite database, the private Redis and logs.
``ARENA_DATABASE_URL`` selects another database (for example
``postgresql+psycopg://user@host/db``); ``REDIS_URL`` an existing Redis. Without
``REDIS_URL``, the Redis of an ``arena up`` running on the same data directory is used
(it writes where it runs to ``running.json`` there). ``ARENA_QUEUE`` names the queue:
platforms that share one Redis keep apart by their queue names. A worker on another
machine needs only ``ARENA_DATABASE_URL`` and ``REDIS_URL`` (and the platform's
``ARENA_QUEUE``, if it set one). The rest tune workers, sandboxes and what owners may
do; a value that is not what its variable takes stops the process with a message
naming the variable.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from argon2 import Parameters, profiles

from arena.store.limits import PrivateLimits, SubmissionRate
from arena.store.matches import MAX_ATTEMPTS

#: what ``arena up`` writes in the data directory while it runs
RUNNING_FILE = "running.json"
#: the queue's name unless ``ARENA_QUEUE`` says otherwise
DEFAULT_QUEUE = "arena-matches"
#: matches with outside bots a worker plays at once, whatever jobs they came from: bots
#: that wait on a model keep twice the decisions in flight of 16 (docs/benchmarks.md);
#: a bot that serves fewer streams says so (its Hello or its owner), and one that says
#: nothing is seated in at most ``DEFAULT_ENDPOINT_MATCHES`` (arena/store/bots.py)
DEFAULT_WORKER_CONCURRENCY = 64
#: CPU seconds a seat may use in one match (more forfeits it)
MATCH_CPU_SECONDS = 30.0
#: days a match's log stays in the database before it moves to the cold store
DEFAULT_HOT_DAYS = 14.0
UNSANDBOXED_ENV = "ARENA_UNSANDBOXED"
SANDBOX_UIDS_ENV = "ARENA_SANDBOX_UIDS"
DEFAULT_SANDBOX_UIDS = range(600_000, 700_000)
_OFF = ("", "0", "false", "no")


@dataclass(frozen=True)
class TableLimits:
    """People's tables (/play): the time a person has, and how many tables play at once."""

    #: seconds a person has for each decision before the time bank is drawn on
    deadline: float = 60.0
    #: seconds per match beyond the deadlines
    time_bank: float = 300.0
    #: tables in play at once on one site (more are refused until one ends)
    live: int = 16
    #: tables one person (an owner, or a guest's address) plays at once
    per_person: int = 2


@dataclass(frozen=True)
class OidcProvider:
    """An OpenID Connect provider: its issuer (its discovery document is under it), and
    the platform's client id and secret there."""

    issuer: str
    client_id: str
    client_secret: str = field(repr=False)


def _oidc(env: Mapping[str, str]) -> OidcProvider | None:
    issuer = env.get("ARENA_OIDC_ISSUER")
    if not issuer:
        return None
    return OidcProvider(
        issuer.rstrip("/"),
        env.get("ARENA_OIDC_CLIENT_ID") or "",
        env.get("ARENA_OIDC_CLIENT_SECRET") or "",
    )


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    redis_url: str | None
    queue_name: str = DEFAULT_QUEUE
    #: the operator's API token (None: the operator's API is off)
    operator_token: str | None = field(default=None, repr=False)
    worker_concurrency: int = DEFAULT_WORKER_CONCURRENCY
    match_cpu_seconds: float = MATCH_CPU_SECONDS
    #: times a match is claimed before a platform failure fails it instead of queueing
    #: it again (a match that kills every worker that plays it must not go on forever)
    match_attempts: int = MAX_ATTEMPTS
    log_level: str = "INFO"
    private_limits: PrivateLimits = field(default_factory=PrivateLimits)
    submission_rate: SubmissionRate = field(default_factory=SubmissionRate)
    allow_private_endpoints: bool = False
    #: where a worker serves its Prometheus metrics (``HOST:PORT``; None: nowhere)
    worker_metrics: str | None = None
    #: seconds the dashboard keeps a public page or list it made (0: never)
    page_cache_seconds: float = 1.0
    table_limits: TableLimits = field(default_factory=TableLimits)
    #: the proxies whose forwarding headers (``X-Forwarded-For``) the dashboard believes
    #: (addresses or networks); from anybody else a client is the connection's address
    trusted_proxies: tuple[str, ...] = ()
    #: modules that register formats of their own (``ARENA_FORMATS``, comma-separated),
    #: imported by every process of the platform as it starts (arena.platform.extensions)
    format_modules: tuple[str, ...] = ()
    #: an OpenID Connect provider people may sign in with (None: none)
    oidc: OidcProvider | None = None
    #: where old match logs go (a folder, or an fsspec URL: ``s3://bucket/prefix``; None:
    #: ``DATA_DIR/cold``) and that filesystem's options (JSON: an endpoint, credentials)
    cold_store: str | None = None
    cold_store_options: dict[str, Any] = field(default_factory=dict)
    #: days a match's log stays in the database before it moves to the cold store
    logs_hot_days: float = DEFAULT_HOT_DAYS
    #: what a password's Argon2id hash costs (``ARENA_PASSWORD_HASHING``: RFC 9106's
    #: ``low-memory`` profile, 64 MiB and 3 passes, or ``high-memory``, 2 GiB and 1)
    password_hashing: Parameters = field(default_factory=lambda: profiles.RFC_9106_LOW_MEMORY)

    def cold_store_url(self) -> str:
        return self.cold_store or str(self.data_dir / "cold")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        data_dir = data_dir_from(env)
        url = env.get("ARENA_DATABASE_URL") or f"sqlite:///{data_dir / 'arena.db'}"
        redis_url = env.get("REDIS_URL") or (running(data_dir) or {}).get("redis_url")
        limits = PrivateLimits()
        return cls(
            data_dir,
            url,
            redis_url or None,
            queue_name=env.get("ARENA_QUEUE") or DEFAULT_QUEUE,
            operator_token=env.get("ARENA_OPERATOR_TOKEN") or None,
            worker_concurrency=_positive(
                env, "ARENA_WORKER_CONCURRENCY", DEFAULT_WORKER_CONCURRENCY
            ),
            match_cpu_seconds=_positive(env, "ARENA_MATCH_CPU_SECONDS", MATCH_CPU_SECONDS),
            match_attempts=_positive(env, "ARENA_MATCH_ATTEMPTS", MAX_ATTEMPTS),
            log_level=_log_level(env.get("ARENA_LOG_LEVEL") or "INFO"),
            private_limits=PrivateLimits(
                games=_positive(env, "ARENA_PRIVATE_MAX_GAMES", limits.games),
                tables=_positive(env, "ARENA_PRIVATE_MAX_TABLES", limits.tables),
                deadline=_positive(env, "ARENA_PRIVATE_MAX_DEADLINE", limits.deadline),
                running=_positive(env, "ARENA_PRIVATE_MAX_RUNNING", limits.running),
                abtest_matches=_positive(
                    env, "ARENA_PRIVATE_MAX_ABTEST_MATCHES", limits.abtest_matches
                ),
            ),
            submission_rate=SubmissionRate(
                _positive(env, "ARENA_SUBMISSIONS_PER_HOUR", SubmissionRate.per_hour)
            ),
            allow_private_endpoints=_switch(env, "ARENA_ALLOW_PRIVATE_ENDPOINTS"),
            worker_metrics=env.get("ARENA_WORKER_METRICS") or None,
            page_cache_seconds=_not_negative(env, "ARENA_PAGE_CACHE_SECONDS", 1.0),
            table_limits=TableLimits(
                deadline=_positive(env, "ARENA_TABLE_DEADLINE", TableLimits.deadline),
                time_bank=_positive(env, "ARENA_TABLE_TIME_BANK", TableLimits.time_bank),
                live=_positive(env, "ARENA_TABLES", TableLimits.live),
                per_person=_positive(env, "ARENA_TABLES_PER_PERSON", TableLimits.per_person),
            ),
            trusted_proxies=_addresses(env, "ARENA_TRUSTED_PROXIES"),
            format_modules=_names(env, "ARENA_FORMATS"),
            oidc=_oidc(env),
            cold_store=env.get("ARENA_COLD_STORE") or None,
            cold_store_options=_json_object(env, "ARENA_COLD_STORE_OPTIONS"),
            logs_hot_days=_not_negative(env, "ARENA_LOGS_HOT_DAYS", DEFAULT_HOT_DAYS),
            password_hashing=_password_hashing(env.get("ARENA_PASSWORD_HASHING") or "low-memory"),
        )


def unsandboxed(env: Mapping[str, str] | None = None) -> bool:
    """``ARENA_UNSANDBOXED``: uploaded bots run without namespaces (rlimits only), for a
    single trusted user on a machine where bubblewrap cannot run."""
    return _switch(os.environ if env is None else env, UNSANDBOXED_ENV)


def sandbox_uids(env: Mapping[str, str] | None = None) -> range:
    """``ARENA_SANDBOX_UIDS`` (``first-last``): the host uids leased to sandboxes."""
    text = (os.environ if env is None else env).get(SANDBOX_UIDS_ENV, "")
    if not text:
        return DEFAULT_SANDBOX_UIDS
    first, _, last = text.partition("-")
    try:
        found = range(int(first), int(last or first) + 1)
    except ValueError:
        found = range(0)
    if not found or found.start <= 65534 < found.stop or found.start < 1000:
        raise ValueError(f"{SANDBOX_UIDS_ENV}={text}: give a range of unused uids above 65534")
    return found


N = TypeVar("N", int, float)


def _positive(env: Mapping[str, str], name: str, default: N) -> N:
    """The variable as a number of the default's type above 0, else the default."""
    text = env.get(name, "")
    if not text:
        return default
    kind = type(default)
    try:
        value = kind(text)
    except ValueError:
        raise SystemExit(
            f"{name}={text!r} is not a {'whole ' if kind is int else ''}number"
        ) from None
    if value <= 0:
        raise SystemExit(f"{name} must be above 0")
    return value


def _not_negative(env: Mapping[str, str], name: str, default: float) -> float:
    """The variable as seconds, 0 or more, else the default."""
    text = env.get(name, "")
    try:
        value = float(text) if text else default
    except ValueError:
        raise SystemExit(f"{name}={text!r} is not a number") from None
    if value < 0:
        raise SystemExit(f"{name} must be 0 or more")
    return value


def _addresses(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """The variable as comma-separated IP addresses or networks, each checked."""
    found = tuple(part.strip() for part in env.get(name, "").split(",") if part.strip())
    for text in found:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise SystemExit(f"{name}: {text!r} is not an IP address or network") from None
    return found


def _json_object(env: Mapping[str, str], name: str) -> dict[str, Any]:
    """A JSON object (``{}`` when unset); anything else is refused, naming the setting."""
    raw = env.get(name)
    if not raw:
        return {}
    try:
        found = json.loads(raw)
    except json.JSONDecodeError as error:
        raise SystemExit(f"{name} is not JSON: {error}") from None
    if not isinstance(found, dict):
        raise SystemExit(f"{name} is a JSON object ({{...}}), not {raw!r}")
    return found


def _names(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """The variable as comma-separated dotted module names, each checked."""
    found = tuple(part.strip() for part in env.get(name, "").split(",") if part.strip())
    for text in found:
        if not all(piece.isidentifier() for piece in text.split(".")):
            raise SystemExit(f"{name}: {text!r} is not a module name (like my_formats.gauntlet)")
    return found


def _switch(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in _OFF


#: the Argon2id profiles an operator may choose (RFC 9106's two)
PASSWORD_HASHING = {
    "low-memory": profiles.RFC_9106_LOW_MEMORY,
    "high-memory": profiles.RFC_9106_HIGH_MEMORY,
}


def _password_hashing(text: str) -> Parameters:
    try:
        return PASSWORD_HASHING[text.strip().lower()]
    except KeyError:
        raise SystemExit(
            f"ARENA_PASSWORD_HASHING={text!r}: give {' or '.join(PASSWORD_HASHING)}"
        ) from None


def _log_level(text: str) -> str:
    level = text.strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise SystemExit(f"ARENA_LOG_LEVEL={text!r}: give DEBUG, INFO, WARNING or ERROR")
    return level


def data_dir_from(env: Mapping[str, str]) -> Path:
    if env.get("ARENA_DATA_DIR"):
        return Path(env["ARENA_DATA_DIR"]).expanduser().resolve()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser().resolve() / "arena"


def token_file(env: Mapping[str, str] | None = None) -> Path:
    """Where ``arena login`` keeps an owner's token for this user: a file of their own
    configuration folder (``$XDG_CONFIG_HOME/arena/token``, else ``~/.config``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "arena" / "token"


def running(data_dir: Path) -> dict[str, Any] | None:
    """What the ``arena up`` running on ``data_dir`` wrote, if one runs."""
    try:
        found = json.loads((data_dir / RUNNING_FILE).read_text())
        os.kill(int(found["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found


def write_running(data_dir: Path, **where: Any) -> Path:
    """Say where this running platform is (readable by its owner only: it holds the
    private Redis's password)."""
    path = data_dir / RUNNING_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    written = path.with_name(f".{RUNNING_FILE}.{os.getpid()}")
    descriptor = os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        json.dump({"pid": os.getpid(), **where}, out)
    written.replace(path)  # whole or not at all: a reader never sees half of it
    return path
