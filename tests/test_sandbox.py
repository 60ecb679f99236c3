"""Uploaded bots run contained: each limit is proved by a bot that breaks it."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.base import aio
from arena.engine import Ruleset
from arena.platform import children
from arena.platform.sandbox import (
    UNSANDBOXED_ENV,
    Limits,
    Sandbox,
    SandboxedSeat,
    SandboxError,
    availability,
)
from arena.platform.sandbox.cgroup import BUSY_WEIGHT, IDLE_WEIGHT, Cgroup
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings
from sample_bots import HonestBot
from tests.sandboxing import attack_bot
from tests.support.cli import ROOT
from tests.support.lifetime import descendants, running
from tests.support.waiting import wait_until

pytestmark = pytest.mark.processes

BOTS = Path(__file__).parent / "sandbox_bots"
RULES = Ruleset.parse("classic")
SETTINGS = RefereeSettings(deadline=0.5, time_bank=0.5, start_timeout=5)
TIGHT = Limits(
    cpu_seconds=2, memory_bytes=768 * 2**20, open_files=64, output_bytes=64 * 1024, start_seconds=5
)


def referee(sandbox: Sandbox, settings: RefereeSettings = SETTINGS) -> dict:
    seats = [
        GrpcSeat(sandbox.endpoint, "sandboxed"),
        LocalSeat(HonestBot(ruleset=RULES, players=2)),
    ]
    return aio.run(Referee(RULES, seats, seed=3, settings=settings).run()).to_dict()


def exit_signal(sandbox: Sandbox) -> int | None:
    assert sandbox.process is not None
    sandbox.process.wait(timeout=10)
    return sandbox.exit_signal()


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


def test_the_bot_the_referee_waits_on_weighs_most_and_its_weight_file_closes_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CPU weight follows what the referee waits on, written on one descriptor the
    sandbox keeps open while it lives and closes as it closes, for good."""
    killing = Cgroup.kill

    def late_request(group: Cgroup) -> None:  # a request ends while its group is removed
        group.set_busy(False)
        group.cpu_seconds()
        killing(group)

    monkeypatch.setattr(Cgroup, "kill", late_request)
    with Sandbox(BOTS / "attacks" / "player.py", limits=TIGHT) as box:
        assert box.cgroup is not None
        weights = []
        for busy in (True, False, True, False):
            box.set_busy(busy)
            weights.append(_weight_of(box.cgroup))
        assert _weight_descriptors() == 1
    assert weights == [BUSY_WEIGHT[1], IDLE_WEIGHT[1]] * 2
    assert _weight_descriptors() == 0 and _counter_descriptors() == 0


def _weight_of(group: Cgroup) -> int:
    return int((group.paths["cpu"] / "cpu.shares").read_text())


def _weight_descriptors() -> int:
    """This process's descriptors open on a control group's CPU weight."""
    return _descriptors_on("/cpu.shares", "/cpu.weight")


def _counter_descriptors() -> int:
    """This process's descriptors open on a control group's CPU counter."""
    return _descriptors_on("/cpuacct.usage", "/cpu.stat")


def _descriptors_on(*endings: str) -> int:
    links = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone
            links.append(os.readlink(fd))
    return sum(link.endswith(endings) for link in links)


def test_a_bot_that_uses_too_much_memory_is_killed_at_its_limit() -> None:
    # the deadline leaves writing the limit's 768 MiB all the time a loaded machine needs
    # (under 1 s it answered late first on CI and forfeited on strikes): the verdict is
    # the kill, whenever it comes
    # likewise the CPU time: starting Python and faulting in 768 MiB took over TIGHT's 2 s
    # of CPU on a loaded CI machine (killed at the CPU limit first); this verdict is memory's
    patient = RefereeSettings(deadline=60, time_bank=0, start_timeout=10)
    with Sandbox(BOTS / "memory_hog.py", limits=replace(TIGHT, cpu_seconds=120)) as box:
        seats = [SandboxedSeat(box, "hog"), LocalSeat(HonestBot(ruleset=RULES, players=2))]
        log = aio.run(Referee(RULES, seats, seed=3, settings=patient).run()).to_dict()
    forfeit = forfeit_of(log)
    assert forfeit["kind"] == "crashed"
    assert forfeit["detail"].startswith("killed at its memory limit"), forfeit


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


def test_a_bot_is_seated_once_its_socket_accepts_not_once_it_exists(tmp_path: Path) -> None:
    """Its socket exists 1.5 s before anything listens on it: the seat waits for it
    (within the bot's start time) and is never charged as unreachable."""
    with Sandbox(attack_bot(tmp_path, "late_listener"), limits=TIGHT) as box:
        log = referee(box)
    assert log["seats"][0]["forfeit"] is None, log["seats"][0]["forfeit"]


def test_a_bot_that_never_accepts_runs_out_its_own_start_time(tmp_path: Path) -> None:
    """Its backlog is full and it never accepts: the sandbox's wait for it does not
    block, and the bot is refused at its start time like any bot that does not start."""
    began = time.monotonic()
    with pytest.raises(SandboxError, match="did not start in time"):
        Sandbox(attack_bot(tmp_path, "full_backlog"), limits=Limits(start_seconds=2)).__enter__()
    assert time.monotonic() - began < 30


def test_output_is_captured_and_capped() -> None:
    with Sandbox(BOTS / "chatty.py", limits=TIGHT) as box:
        # time to write past the cap on a loaded machine: it crashes, never times out
        log = referee(box, replace(SETTINGS, deadline=60.0, time_bank=0.0))
        size = box.output.stat().st_size
    # Python ignores SIGXFSZ: writes past the cap fail ("File too large") and the bot forfeits
    assert 0 < size <= TIGHT.output_bytes
    assert forfeit_of(log)["kind"] == "crashed"


def test_a_forfeit_names_the_limit_the_bot_broke() -> None:
    with Sandbox(BOTS / "cpu_hog.py", limits=TIGHT) as box:
        seats = [SandboxedSeat(box, "hog"), LocalSeat(HonestBot(ruleset=RULES, players=2))]
        slow = RefereeSettings(deadline=5, time_bank=0, start_timeout=5)
        log = aio.run(Referee(RULES, seats, seed=3, settings=slow).run()).to_dict()
    forfeit = forfeit_of(log)
    assert forfeit["detail"].startswith("killed at its CPU time limit"), forfeit


def test_the_trusted_unsandboxed_setting_runs_bots_with_limits_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(UNSANDBOXED_ENV, "1")
    availability.cache_clear()
    try:
        found = availability()
        assert found.mode == "unsandboxed" and "UNSANDBOXED" in found.describe()
        with Sandbox(BOTS / "attacks" / "player.py", limits=TIGHT) as box:
            assert not box.isolated and box.cgroup is None
            log = referee(box)
        assert log["seats"][0]["forfeit"] is None
        # the bot runs on the host's interpreter under the output cap: a module it is the
        # first to import must not be cached cut short at the cap for the platform to read
        module = tmp_path / "host_module.py"
        module.write_text("VALUE = " + repr("x" * (2 * TIGHT.output_bytes)) + "\n")
        bot = tmp_path / "bot.py"
        bot.write_text(
            f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport host_module\n"
            + (BOTS / "attacks" / "player.py").read_text().split('"""', 2)[2]
        )
        with Sandbox(bot, limits=TIGHT) as box:
            assert referee(box)["seats"][0]["forfeit"] is None
        assert not list(tmp_path.glob("__pycache__/host_module*")), "no bytecode written"
        sys.path.insert(0, str(tmp_path))
        try:
            assert len(importlib.import_module("host_module").VALUE) == 2 * TIGHT.output_bytes
        finally:
            sys.path.remove(str(tmp_path))
            sys.modules.pop("host_module", None)
    finally:
        availability.cache_clear()


#: a worker stuck where bubblewrap waits for its user mapping, bubblewrap's sandbox
#: process made (it waits, not yet tied to anything, for bwrap); then the worker starts
#: its sandbox probe, or a bot's sandbox
_STUCK = """
import sys, threading, time
from pathlib import Path
from arena.platform.sandbox import bwrap, probe
from arena.platform.sandbox.box import Sandbox

def stuck(launch, timeout):
    bwrap._read_json(launch._info, time.monotonic() + 600)
    print("waiting", flush=True)
    threading.Event().wait()

bwrap.Launch.map_user = stuck
if sys.argv[1] == "probe":
    probe.availability()
else:
    Sandbox(Path(sys.argv[1])).__enter__()
"""


@pytest.mark.processes
@pytest.mark.parametrize("starting", ["probe", "bot"])
def test_a_worker_killed_while_bubblewrap_waits_for_its_mapping_leaves_no_bwrap_behind(
    starting: str,
) -> None:
    """Killed at a sandbox's worst moment (bubblewrap started, its sandbox process made,
    both waiting for the mapping the worker never writes), the worker takes both with it:
    the sandbox process was left running, parent 1, for ever."""
    what = "probe" if starting == "probe" else str(BOTS / "attacks" / "player.py")
    worker = children.spawn(
        [sys.executable, "-c", _STUCK, what], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "waiting\n"
        made = {
            pid: started
            for pid, started in descendants(worker.pid).items()
            if _program(pid) == "bwrap"
        }
        assert len(made) == 2, "bubblewrap and its sandbox process were not both made"
    finally:
        worker.kill()
        worker.wait()
    wait_until(lambda: not running(made), "bubblewrap and its sandbox died with the worker")


def _program(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
