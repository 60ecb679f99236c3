"""Uploaded bots run contained: each limit is proved by a bot that breaks it."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from arena import aio
from arena.engine import Ruleset
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from arena.sandbox import Limits, Sandbox, SandboxedSeat, SandboxError
from sample_bots import HonestBot

BOTS = Path(__file__).parent / "sandbox_bots"
RULES = Ruleset.parse("classic")
SETTINGS = RefereeSettings(deadline=0.5, time_bank=0.5, start_timeout=5)
TIGHT = Limits(
    cpu_seconds=2, memory_bytes=768 * 2**20, open_files=64, output_bytes=64 * 1024, start_seconds=5
)


def referee(sandbox: Sandbox) -> dict:
    seats = [
        GrpcSeat(sandbox.endpoint, "sandboxed"),
        LocalSeat(HonestBot(ruleset=RULES, players=2)),
    ]
    return aio.run(Referee(RULES, seats, seed=3, settings=SETTINGS).run())


def exit_signal(sandbox: Sandbox) -> int | None:
    process = sandbox._processes.processes[0]
    process.wait(timeout=10)
    return -process.returncode if process.returncode < 0 else None


def forfeit_of(log: dict) -> dict:
    forfeit = log["seats"][0]["forfeit"]
    assert forfeit is not None, "the sandboxed bot forfeited"
    assert log["result"]["ranking"][-1] == [0]
    return forfeit


def test_a_bot_that_burns_cpu_is_killed_by_the_cpu_limit() -> None:
    with Sandbox(BOTS / "cpu_hog.py", limits=TIGHT) as box:
        began = time.monotonic()
        log = referee(box)
        assert exit_signal(box) == signal.SIGXCPU
    assert forfeit_of(log)["kind"] in ("crashed", "strikes")
    assert time.monotonic() - began < 30


def test_a_bot_that_allocates_too_much_memory_fails() -> None:
    with Sandbox(BOTS / "memory_hog.py", limits=TIGHT) as box:
        log = referee(box)
        assert "MemoryError" in box.output_tail(4000)
    assert forfeit_of(log)["kind"] == "crashed"


def test_a_bot_that_opens_too_many_files_fails() -> None:
    with Sandbox(BOTS / "file_hog.py", limits=TIGHT) as box:
        log = referee(box)
        assert "Too many open files" in box.output_tail(4000)
    assert forfeit_of(log)["kind"] == "crashed"


def test_a_bot_that_does_not_start_in_time_is_refused() -> None:
    began = time.monotonic()
    with pytest.raises(SandboxError, match="did not start in time"):
        Sandbox(BOTS / "slow_start.py", limits=Limits(start_seconds=2)).__enter__()
    assert time.monotonic() - began < 10


def test_output_is_captured_and_capped() -> None:
    with Sandbox(BOTS / "chatty.py", limits=TIGHT) as box:
        log = referee(box)
        size = box.output.stat().st_size
    # Python ignores SIGXFSZ: writes past the cap fail ("File too large") and the bot forfeits
    assert 0 < size <= TIGHT.output_bytes
    assert forfeit_of(log)["kind"] == "crashed"


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_everything_a_bot_started_is_killed_after_the_match() -> None:
    with Sandbox(BOTS / "forker.py", limits=TIGHT) as box:
        log = referee(box)
        deadline = time.monotonic() + 10
        while "daemon" not in box.output_tail(4000):
            assert time.monotonic() < deadline, box.output_tail()
            time.sleep(0.1)
        daemon = int(box.output_tail(4000).split("daemon ")[1].split()[0])
        assert running(daemon), "alive while the bot runs, in a session of its own"
    assert log["seats"][0]["forfeit"] is None
    deadline = time.monotonic() + 5
    while running(daemon):
        assert time.monotonic() < deadline, "the daemon outlived the match"
        time.sleep(0.1)


def test_a_bot_cannot_read_the_platforms_files_or_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "arena.db").write_text("tokens and results")
    bot = tmp_path / "snoop.py"
    bot.write_text((BOTS / "snoop.py").read_text().replace("__SECRET__", str(data / "arena.db")))
    monkeypatch.setenv("ARENA_DATABASE_URL", "postgresql://secret")
    monkeypatch.setenv("REDIS_URL", "redis://secret")
    with Sandbox(bot, hidden=[data], limits=TIGHT) as box:
        log = referee(box)
        output = box.output_tail(4000)
    assert "secret: unreadable (FileNotFoundError)" in output
    assert "environment: clean" in output
    assert log["seats"][0]["forfeit"] is None
    assert (data / "arena.db").read_text() == "tokens and results"


def test_a_forfeit_names_the_limit_the_bot_broke() -> None:
    from contextlib import ExitStack

    with ExitStack() as stack:
        box = stack.enter_context(Sandbox(BOTS / "cpu_hog.py", limits=TIGHT))
        seats = [SandboxedSeat(box, "hog"), LocalSeat(HonestBot(ruleset=RULES, players=2))]
        slow = RefereeSettings(deadline=5, time_bank=0, start_timeout=5)
        log = aio.run(Referee(RULES, seats, seed=3, settings=slow).run())
    forfeit = forfeit_of(log)
    assert forfeit["detail"].startswith("killed at its CPU time limit"), forfeit
