"""Packages that work wherever they are installed (issue 39): the wheel of a clean copy
of the repository, installed into a fresh virtual environment outside the checkout,
imports compiled and serves a bot that a real match is played against."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select
from uv import find_uv_bin

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform, children
from arena.platform.settings import Settings
from arena.platform.submission import submit, wait
from arena.store import tournaments
from arena.store.models import MatchSeat
from tests.sandboxing import PLAIN_BOT
from tests.support.cli import play_served_bot
from tests.support.store import add_samples

ROOT = Path(__file__).resolve().parents[1]


def _clean_copy(into: Path) -> Path:
    """The files git tracks, as a fresh clone has them."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        source, target = ROOT / name.decode(), into / name.decode()
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return into


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a clean copy of the repository, built once for the whole run (the
    test processes share it: compiling the engine takes half a minute)."""
    shared = tmp_path_factory.getbasetemp().parent / "wheel"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process builds, the others wait for it
        built = list((shared / "wheels").glob("arena-*.whl"))
        if not built:
            _build_wheel(_clean_copy(shared / "clone"), shared / "wheels")
            built = list((shared / "wheels").glob("arena-*.whl"))
    (only,) = built
    return only


def _build_wheel(source: Path, into: Path) -> None:
    """Compiled at -O0: what is packaged, not how fast it runs (8 s of CPU, not 15)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(into), str(source)],
        env={**os.environ, "ARENA_NATIVE_OPT_LEVEL": "0"}, check=True,
    )  # fmt: skip


def _fresh_venv(where: Path, requirement: str) -> Path:
    """A new virtual environment with ``requirement`` and its dependencies installed
    (by uv, which resolves and installs what pip does in a tenth of the time); its
    python. Modules are compiled to bytecode as they are first imported (compiling all
    of them ahead, as pip does, cost 14 s of CPU a venv)."""
    venv = where / "venv"
    uv = find_uv_bin()
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [uv, "pip", "install", "--quiet", "--python", str(python)]
    subprocess.run([*install, requirement], check=True)
    return python


#: an environment that finds nothing of the checkout
ELSEWHERE = {**os.environ, "PYTHONPATH": ""}


@pytest.mark.slow
@pytest.mark.processes
def test_the_wheel_installs_anywhere_imports_compiled_and_its_bot_plays(
    wheel: Path, tmp_path: Path
) -> None:
    python = _fresh_venv(tmp_path, str(wheel))
    where = subprocess.run(
        [python, "-c", "import arena.sdk, arena.native as n; print(n.ROOT, n.compiled())"],
        cwd=tmp_path, env=ELSEWHERE, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    root, compiled = where.stdout.split()
    assert Path(root).is_relative_to(python.parents[1]) and compiled == "True"
    mine = play_served_bot(
        [str(python), "-m", "sample_bots.counter", "--port", "0"], tmp_path, ["sample:random"], 2
    )
    assert mine["games"] == 2 and mine["forfeits"] == 0, mine


@pytest.mark.slow
@pytest.mark.processes
@pytest.mark.sandbox
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_worker_installed_from_the_wheel_qualifies_and_plays(
    wheel: Path, tmp_path: Path, settings: Settings
) -> None:
    """``pip install arena[platform]`` on a worker host: its worker (outside the
    checkout) qualifies an uploaded bot in its sandbox and plays a tournament."""
    python = _fresh_venv(tmp_path, f"{wheel}[platform]")
    platform = Platform(settings)
    add_samples(platform.db, ["random", "counter"])
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    made = submit(platform, "up", BotKind.PATH, str(folder), queued=True)
    worker_env = ELSEWHERE | {
        "ARENA_DATA_DIR": str(tmp_path / "worker-data"),
        "ARENA_DATABASE_URL": settings.database_url,
        "REDIS_URL": settings.redis_url or "",
        "ARENA_QUEUE": settings.queue_name,
    }
    burst = [python, "-m", "arena", "worker", "--burst"]
    qualified = children.run(burst, cwd=tmp_path, env=worker_env, capture_output=True, text=True)
    assert qualified.returncode == 0, qualified.stderr[-2000:]
    settled = wait(platform.db, "up", made.version, timeout=0)
    assert settled.status == "ready", settled.reason
    platform.db.transaction(
        lambda s: tournaments.create(
            s, "cup", Ruleset.parse("classic"), ["up", "random", "counter"], 3, 6
        )
    )
    platform.start_tournament("cup")
    played = children.run(burst, cwd=tmp_path, env=worker_env, capture_output=True, text=True)
    assert played.returncode == 0, played.stderr[-2000:]
    with platform.db.read() as session:
        cup = tournaments.get(session, "cup")
        assert cup.completed == cup.games == 6
        forfeits = session.scalar(
            select(func.count()).select_from(MatchSeat).where(MatchSeat.forfeit.is_(True))
        )
    assert forfeits == 0
