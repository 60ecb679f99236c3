"""Every environment variable is read in one module and documented in one table; each
maps to its setting, and a value it does not take stops the process with its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from argon2 import profiles

from arena.platform import settings as settings_module
from arena.platform.settings import Settings, sandbox_uids, unsandboxed
from arena.store.limits import PrivateLimits, SubmissionRate

ROOT = Path(__file__).resolve().parents[1]
CODE = [ROOT / "arena", ROOT / "worker", ROOT / "dashboard"]
NAME = re.compile(r"\b(ARENA_[A-Z_]+[A-Z]|REDIS_URL|XDG_DATA_HOME)\b")
#: reading the environment (passing it on to a child process is not reading a setting)
READ = re.compile(r"os\.environ\.get\(|os\.getenv\(|os\.environ\[|\benv(?:var)?=\"")
#: the machine's PATH handed to a sandbox's launcher; the command line's ARENA_TOKEN
#: (Typer reads it as the default of --token, and the table lists it)
PASSED_ON = re.compile(r'os\.environ\.get\("PATH"|envvar="ARENA_TOKEN"')


def documented() -> set[str]:
    text = (ROOT / "docs" / "operations.md").read_text()
    table = text.split("## Environment", 1)[1]
    return {m.group(1) for m in re.finditer(r"^\| `([A-Z_]+)`", table, re.MULTILINE)}


def test_only_the_settings_module_reads_the_environment() -> None:
    readers = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in CODE
        for path in folder.rglob("*.py")
        if path != Path(settings_module.__file__)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if READ.search(line) and not PASSED_ON.search(line)
    ]
    assert readers == [], "read the environment in arena/platform/settings.py"


def test_every_variable_read_is_in_the_table_and_every_one_there_is_read() -> None:
    standard = {"XDG_DATA_HOME", "XDG_CONFIG_HOME"}  # the user's folders, not the platform's
    read = set(NAME.findall(Path(settings_module.__file__).read_text())) - standard
    cli = set(re.findall(r'envvar="([A-Z_]+)"', (ROOT / "arena/cli/bots.py").read_text()))
    assert documented() == read | cli


def test_each_variable_sets_its_setting(tmp_path: Path) -> None:
    environ = {
        "ARENA_DATA_DIR": str(tmp_path),
        "ARENA_DATABASE_URL": "postgresql+psycopg://arena@db/arena",
        "REDIS_URL": "redis://queue:6379/0",
        "ARENA_QUEUE": "other",
        "ARENA_OPERATOR_TOKEN": "secret",
        "ARENA_WORKER_CONCURRENCY": "8",
        "ARENA_MATCH_CPU_SECONDS": "2.5",
        "ARENA_MATCH_ATTEMPTS": "9",
        "ARENA_LOG_LEVEL": "debug",
        "ARENA_PRIVATE_MAX_GAMES": "10",
        "ARENA_PRIVATE_MAX_TABLES": "1",
        "ARENA_PRIVATE_MAX_DEADLINE": "0.5",
        "ARENA_PRIVATE_MAX_RUNNING": "7",
        "ARENA_SUBMISSIONS_PER_HOUR": "100",
        "ARENA_ALLOW_PRIVATE_ENDPOINTS": "1",
        "ARENA_PASSWORD_HASHING": "High-Memory",
    }
    assert Settings.from_env(environ) == Settings(
        tmp_path,
        "postgresql+psycopg://arena@db/arena",
        "redis://queue:6379/0",
        queue_name="other",
        operator_token="secret",
        worker_concurrency=8,
        match_cpu_seconds=2.5,
        match_attempts=9,
        log_level="DEBUG",
        private_limits=PrivateLimits(games=10, tables=1, deadline=0.5, running=7),
        submission_rate=SubmissionRate(100),
        allow_private_endpoints=True,
        password_hashing=profiles.RFC_9106_HIGH_MEMORY,
    )
    defaults = Settings.from_env({"ARENA_DATA_DIR": str(tmp_path)})
    assert defaults == Settings(tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", None)
    assert defaults.worker_concurrency == 64 and defaults.private_limits.games == 200
    assert not defaults.allow_private_endpoints
    assert defaults.password_hashing == profiles.RFC_9106_LOW_MEMORY


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("ARENA_WORKER_CONCURRENCY", "many", "ARENA_WORKER_CONCURRENCY='many' is not a whole"),
        ("ARENA_WORKER_CONCURRENCY", "2.5", "is not a whole number"),
        ("ARENA_MATCH_CPU_SECONDS", "0", "ARENA_MATCH_CPU_SECONDS must be above 0"),
        ("ARENA_PRIVATE_MAX_GAMES", "-3", "ARENA_PRIVATE_MAX_GAMES must be above 0"),
        ("ARENA_PRIVATE_MAX_DEADLINE", "soon", "ARENA_PRIVATE_MAX_DEADLINE='soon' is not a"),
        ("ARENA_LOG_LEVEL", "loud", "ARENA_LOG_LEVEL='loud'"),
        ("ARENA_PASSWORD_HASHING", "cheapest", "give low-memory or high-memory"),
    ],
)
def test_a_value_its_variable_does_not_take_names_the_variable(
    tmp_path: Path, variable: str, value: str, said: str
) -> None:
    with pytest.raises(SystemExit, match=re.escape(said)):
        Settings.from_env({"ARENA_DATA_DIR": str(tmp_path), variable: value})


def test_the_sandbox_switches() -> None:
    assert not unsandboxed({}) and not unsandboxed({"ARENA_UNSANDBOXED": "no"})
    assert unsandboxed({"ARENA_UNSANDBOXED": "1"}) and unsandboxed({"ARENA_UNSANDBOXED": "yes"})
    assert sandbox_uids({}) == range(600_000, 700_000)
    assert sandbox_uids({"ARENA_SANDBOX_UIDS": "700000-700009"}) == range(700_000, 700_010)
    for wrong in ("1000-70000", "500-900", "a-b", "9-1"):
        with pytest.raises(ValueError, match="ARENA_SANDBOX_UIDS"):
            sandbox_uids({"ARENA_SANDBOX_UIDS": wrong})
