"""Bots in C++, Rust, Go, Java, JavaScript and TypeScript: the starter kits decide exactly as the
README's truthful bot, build in their sandbox, play in the seat's sandbox, and a native
attacker is held there. They need the toolchains `make test` installs (Debian's g++,
rustc, golang-go, default-jdk-headless, nodejs, node-typescript)."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import inspect
import random
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from arena.base import aio
from arena.engine import Action, Observation, Ruleset
from arena.platform import Platform
from arena.platform.builds import build_version
from arena.platform.sandbox import Sandbox, SandboxUnavailable
from arena.platform.sandbox.build import LOG_BYTES, BuildLimits, build, built_copy
from arena.platform.submission import qualify_version
from arena.policies import RandomLegal
from arena.referee import GrpcSeat, LocalSeat, Referee, RefereeSettings, Seat
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.sdk.languages import MANIFEST, kit_of
from arena.sdk.lines import decide_line, parse_action, start_line
from arena.sdk.program import ProgramEnded, Programs
from arena.store.models import BotVersion, Build, RegisteredBot
from sample_bots import KITS, HonestBot, kit
from tests.sandboxing import listeners
from tests.support.api import auth
from tests.support.engine import random_deal, served

pytestmark = pytest.mark.processes

NATIVE = Path(__file__).parent / "sandbox_bots" / "native"
RULES = Ruleset.parse("classic")
SETTINGS = RefereeSettings(deadline=5, time_bank=5, start_timeout=30)


def _truthful() -> type:
    path = kit("python") / "bot.py"
    spec = importlib.util.spec_from_file_location("readme_truthful", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Truthful


def decisions(count: int, seed: int) -> list[Observation]:
    """Decision points of random deals of random rules, as seats are asked them."""
    rng = random.Random(seed)
    found: list[Observation] = []
    while len(found) < count:
        deal = random_deal(rng)
        policy = RandomLegal(rng.random())
        since = [0] * deal.players
        while deal.to_act is not None and len(found) < count:
            seat = deal.to_act
            obs = deal.observation(seat, since[seat])
            since[seat] = len(deal.events)
            found.append(obs)
            deal.apply(seat, policy.act(obs))
    return found


def built_kit(language: str, into: Path, contained: bool = False) -> Path:
    work, result = built_copy(kit(language), into, contained=contained)
    assert result.ok, result.log
    return work


@pytest.mark.parametrize("language", KITS)
def test_each_kit_decides_as_the_readmes_truthful_bot(language: str, tmp_path: Path) -> None:
    """800 decisions of random rules fed to the kit's program: its answers are the
    README's Python bot's, one for one (as good as it, by construction)."""
    work = built_kit(language, tmp_path)
    observations = decisions(800, seed=11)
    opening = start_line(MatchInfo("1", 0, ("a", "b"), RULES, 1.0, 1.0, 1), 1)
    lines = [opening, *(decide_line(obs, 1) for obs in observations)]
    argv = kit_of(work).argv()
    program = str(work / argv[0]) if argv[0].startswith("./") else argv[0]
    done = subprocess.run(
        [program, *argv[1:]],
        cwd=work,
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = done.stdout.splitlines()
    truthful = _truthful()()
    expected = [truthful.act(obs) for obs in observations]
    assert len(answers) == len(expected)
    assert [parse_action(answer) for answer in answers] == expected


def play_sandboxed(folder: Path) -> tuple[dict, str]:
    with Sandbox(folder) as box:
        seats = [GrpcSeat(box.endpoint, "kit"), LocalSeat(HonestBot(ruleset=RULES, players=2))]
        log = aio.run(Referee(RULES, seats, seed=4, settings=SETTINGS).run()).to_dict()
        return log, box.output_tail(4000)


@pytest.mark.sandbox
@pytest.mark.parametrize("language", KITS)
def test_each_kit_builds_in_its_sandbox_and_plays_in_a_seats(language: str, tmp_path: Path) -> None:
    work = built_kit(language, tmp_path, contained=True)
    log, output = play_sandboxed(work)
    assert log["seats"][0]["forfeit"] is None, output
    assert log["seats"][0]["illegal"] == 0


@pytest.mark.sandbox
def test_a_compile_error_fails_the_build_with_the_compilers_message(tmp_path: Path) -> None:
    work = tmp_path / "broken"
    work.mkdir()
    (work / "bot.cpp").write_text("int main( { return 0; }\n")
    result = build(kit_of(work), work)
    assert not result.ok
    assert "bot.cpp:1:" in result.log and "error" in result.log
    assert "the build failed (exit code 1)" in result.log
    assert "/build" not in result.log and str(tmp_path) not in result.log, "no host path"
    assert not (work / "bot").exists()


def _with_build(tmp_path: Path, command: str, files: dict[str, str] | None = None) -> Path:
    work = tmp_path / "bot"
    work.mkdir(parents=True, exist_ok=True)
    (work / MANIFEST).write_text(f'language = "cpp"\nbuild = "{command}"\n')
    for name, text in (files or {}).items():
        (work / name).write_text(text)
    return work


PROBE = r"""
#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char** argv) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(atoi(argv[1]));
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    int got = s < 0 ? -1 : connect(s, (sockaddr*)&to, sizeof to);
    std::printf("connect=%d\n", got);
    return 0;
}
"""


@pytest.mark.sandbox
def test_a_build_reaches_no_network_and_no_host_file(tmp_path: Path) -> None:
    with listeners((socket.AF_INET, ("127.0.0.1", 0))) as [listener]:
        port = listener.address[1]  # type: ignore[index]
        command = (
            f"g++ -o probe probe.cpp && ./probe {port}; ls /root /work /home /var; "
            "cat /etc/shadow; id -u; exit 3"
        )
        result = build(kit_of(work := _with_build(tmp_path, command, {"probe.cpp": PROBE})), work)
        assert listener.accepted == 0
    assert not result.ok and "connect=-1" in result.log
    for path in ("/root", "/work", "/home", "/var", "/etc/shadow"):
        assert re.search(rf"{path}.*No such file", result.log), result.log
    assert "\n65534\n" in result.log, "the build runs as nobody"


@pytest.mark.sandbox
def test_a_build_is_stopped_at_its_time_memory_and_output_limits(tmp_path: Path) -> None:
    hung = build(kit_of(w := _with_build(tmp_path / "a", "sleep 600")), w, limits=BuildLimits(2))
    assert not hung.ok and "took more than 2 s" in hung.log, "idle past its time: its own"
    spinning = _with_build(tmp_path / "s", "while :; do :; done")
    try:  # at the lowest CPU weight: its second of CPU, or the machine is too busy
        spun = build(kit_of(spinning), spinning, limits=BuildLimits(1))
        assert not spun.ok and "took more than 1 s" in spun.log
    except SandboxUnavailable as error:
        assert "too busy to build" in str(error)
    greedy = _with_build(
        tmp_path / "b", "head -c 800000000 /dev/zero | tail -c 700000000 >/dev/null"
    )
    limits = BuildLimits(memory_bytes=256 * 2**20)
    assert (
        "killed at its memory limit (256 MiB)" in build(kit_of(greedy), greedy, limits=limits).log
    )
    chatty = _with_build(tmp_path / "c", "yes compiling | head -c 5000000; exit 1")
    said = build(kit_of(chatty), chatty).log
    assert len(said.encode()) < LOG_BYTES + 200 and said.startswith("…")


@pytest.mark.sandbox
def test_a_native_attacker_is_refused_every_call_and_hurts_only_itself(tmp_path: Path) -> None:
    work = tmp_path / "native"
    shutil.copytree(NATIVE, work)
    assert build(kit_of(work), work).ok
    log, output = play_sandboxed(work)
    said = dict(re.findall(r"^(\w+)=(\d+)", output, re.M))
    refused = {"EPERM": "1", "ENOENT": "2", "EAFNOSUPPORT": "97"}
    expected = {
        "socket_inet": "EAFNOSUPPORT", "socket_inet6": "EAFNOSUPPORT", "ptrace": "EPERM",
        "keyctl": "EPERM", "unshare": "EPERM", "mount": "EPERM", "io_setup": "EPERM",
        "perf_event_open": "EPERM", "userfaultfd": "EPERM", "bpf": "EPERM",
        "futex_shared": "EPERM", "open_shadow": "ENOENT", "open_root": "ENOENT",
        "open_work": "ENOENT",
    }  # fmt: skip
    for call, errno_name in expected.items():
        assert said.get(call) == refused[errno_name], f"{call}: {output}"
    for counter in ("proc_meminfo", "proc_loadavg"):
        assert re.search(rf"^{counter}=0 bytes=0$", output, re.M), f"{counter} is masked"
    assert said["proc_sys"] == "2", "/proc/sys is an empty folder"
    forked = int(re.search(r"^forked=(\d+)$", output, re.M).group(1))  # type: ignore[union-attr]
    assert forked < 64, "the process limit held the fork bomb"
    assert log["seats"][0]["forfeit"] is None, "then it plays on, hurting nobody"


def _archive(folder: Path, kind: str) -> str:
    """``folder`` as a base64 .zip or .tar.gz, in a folder of its own (as people pack)."""
    packed = shutil.make_archive(
        str(folder.parent / f"{folder.name}-packed"), kind, folder.parent, folder.name
    )
    return base64.b64encode(Path(packed).read_bytes()).decode()


def _version_id(arena: Platform, bot: str, number: int) -> int:
    with arena.db.read() as session:
        return session.scalars(
            select(BotVersion.id)
            .join(RegisteredBot)
            .where(RegisteredBot.name == bot, BotVersion.number == number)
        ).one()


@pytest.mark.sandbox
def test_a_kit_uploaded_as_an_archive_is_built_once_and_its_log_is_its_owners(
    app_and_token: tuple[TestClient, str, Platform], tmp_path: Path
) -> None:
    client, token, arena = app_and_token
    go = tmp_path / "gopher"
    shutil.copytree(kit("go"), go)
    for number, kind in [(1, "zip"), (2, "gztar")]:  # the same folder, uploaded twice
        body = {"kind": "archive", "archive": _archive(go, kind)}
        if number == 1:
            sent = client.post("/api/v1/bots", headers=auth(token), json=body | {"name": "gopher"})
        else:
            sent = client.post("/api/v1/bots/gopher/versions", headers=auth(token), json=body)
        assert sent.status_code == 202 and sent.json()["status"] == "pending", sent.text
        settled = qualify_version(
            arena.db, arena.settings.data_dir, _version_id(arena, "gopher", number)
        )
        assert settled.status == "ready", settled.reason
    again = build_version(arena.db, arena.settings.data_dir, _version_id(arena, "gopher", 1))
    assert again is not None and again.ok, "a version built already is not built again"
    with arena.db.read() as session:
        assert session.scalar(select(func.count()).select_from(Build)) == 1, "built once"
        sources = session.scalars(
            select(BotVersion.build_source)
            .join(RegisteredBot)
            .where(RegisteredBot.name == "gopher")
        ).all()
        assert len(set(sources)) == 1 and None not in sources, "each keeps its build's log"
        gophers = session.execute(
            select(BotVersion.target, BotVersion.language)
            .join(RegisteredBot)
            .where(RegisteredBot.name == "gopher")
            .order_by(BotVersion.number)
        ).all()
    targets, languages = [row[0] for row in gophers], [row[1] for row in gophers]
    assert targets[0] == targets[1] and languages == ["go", "go"]

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.cpp").write_text("int main( { return 0; }\n")
    body = {"name": "broken", "kind": "archive", "archive": _archive(broken, "gztar")}
    assert client.post("/api/v1/bots", headers=auth(token), json=body).status_code == 202
    settled = qualify_version(arena.db, arena.settings.data_dir, _version_id(arena, "broken", 1))
    assert settled.status == "rejected", settled.reason
    assert settled.reason.startswith("its build failed:\nbot.cpp:1:"), "told its owner"
    [mine] = client.get("/api/v1/bots/broken", headers=auth(token)).json()["versions"]
    assert mine["language"] == "cpp" and "bot.cpp:1:" in mine["build_log"]
    assert "error" in mine["detail"]
    [public] = client.get("/api/v1/bots/broken").json()["versions"]
    assert public["reason"] == "its build failed"
    assert public["build_log"] is None and public["detail"] is None, "the log is its owner's"
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "bot.cpp").write_text("int main() { return 0; }\n")
    (linked / MANIFEST).write_text('language = "cpp"\nbuild = "ln -s /etc/passwd bot"\n')
    body = {"name": "linked", "kind": "archive", "archive": _archive(linked, "gztar")}
    assert client.post("/api/v1/bots", headers=auth(token), json=body).status_code == 202
    settled = qualify_version(arena.db, arena.settings.data_dir, _version_id(arena, "linked", 1))
    assert settled.status == "rejected", "what its build left is the bot's, not a platform failure"
    assert "cannot be uploaded" in settled.reason and "symbolic link" in settled.reason
    bad = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "junk", "kind": "archive", "archive": base64.b64encode(b"nonsense").decode()},
    )
    assert bad.status_code == 400 and "not a .tar.gz or a .zip" in bad.text


FAILING_PROGRAMS = [
    ("while read line; do echo fold; done", "not an action: 'fold'"),
    ("read line; read line; exit 3", "the program ended before it answered (exit code 3)"),
    ("while read line; do :; done", "3 late answers"),  # its own clock ran out first
]


@pytest.mark.parametrize(
    ("script", "said", "interleave"),
    [
        *((script, said, False) for script, said in FAILING_PROGRAMS),
        *((script, said, True) for script, said in FAILING_PROGRAMS),
        # two answers in one write, before any line came: one answers no line
        (
            "printf 'believe\\nbelieve\\n'; while read line; do :; done",
            "a line it was not sent",
            True,
        ),
    ],
)
def test_a_program_that_answers_nonsense_ends_or_goes_silent_forfeits_its_own_match(
    script: str, said: str, interleave: bool, tmp_path: Path
) -> None:
    manifest = f'language = "cpp"\nbuild = ""\nrun = "sh bot.sh"\ninterleave = {interleave}\n'
    (tmp_path / MANIFEST).write_text(manifest.lower())
    (tmp_path / "bot.sh").write_text(script + "\n")
    programs = Programs(kit_of(tmp_path), tmp_path)
    settings = RefereeSettings(deadline=0.2, time_bank=0.2, start_timeout=10)
    with served(programs.bot) as endpoint:
        seats: list[Seat] = [
            GrpcSeat(endpoint, "program"),
            LocalSeat(HonestBot(ruleset=RULES, players=2)),
        ]
        log = aio.run(Referee(RULES, seats, seed=1, settings=settings).run()).to_dict()
    forfeit = log["seats"][0]["forfeit"]
    assert forfeit is not None and said in forfeit["detail"], forfeit
    assert log["seats"][1]["forfeit"] is None
    assert not programs.kept, "a program that failed is never given another match"


@pytest.mark.parametrize("interleave", [False, True])
def test_a_program_silent_past_its_clock_is_given_up(interleave: bool, tmp_path: Path) -> None:
    """A program that reads its line and never answers: past its match's clock (and the
    slack, both shortened here) the adapter gives it up, never to be used again."""
    manifest = f'language = "cpp"\nbuild = ""\nrun = "sh bot.sh"\ninterleave = {interleave}\n'
    (tmp_path / MANIFEST).write_text(manifest.lower())
    (tmp_path / "bot.sh").write_text("while read line; do :; done\n")
    programs = Programs(kit_of(tmp_path), tmp_path)
    bot = programs.bot()
    bot.on_match_start(MatchInfo("1", 0, ("a", "b"), RULES, 0.05, 0.0, 1))
    bot.seconds = 0.2

    async def answer() -> Action:
        said = bot.act(decisions(1, seed=5)[0])
        return await said if inspect.isawaitable(said) else said

    with pytest.raises(ProgramEnded, match="said nothing for longer than its clock"):
        aio.run(answer())
    assert not programs.kept and bot.program is None


def _recorded_kit(folder: Path, interleave: bool) -> Programs:
    """The JavaScript kit, its programs noting their start and every line they read
    before they answer."""
    work = built_kit("javascript", folder)
    manifest = f'language = "javascript"\nrun = "node recorded.js"\ninterleave = {interleave}\n'
    (work / MANIFEST).write_text(manifest.lower())
    (work / "recorded.js").write_text(
        'const fs = require("node:fs");\n'
        'fs.appendFileSync("programs.txt", `${process.pid}\\n`);\n'
        "const readSync = fs.readSync;\n"
        "fs.readSync = (fd, buffer, offset, length, position) => {\n"
        "  const count = readSync(fd, buffer, offset, length, position);\n"
        '  if (fd === 0) fs.appendFileSync("lines.txt", buffer.subarray(offset, offset + count));\n'
        "  return count;\n"
        "};\n"
        'require("./bot.js");\n'
    )
    return Programs(kit_of(work), work)


@pytest.mark.parametrize("interleave", [True, False])
def test_an_interleaving_kit_plays_its_matches_at_once_in_one_program(
    interleave: bool, tmp_path: Path
) -> None:
    """Three matches begun before any ends, each asking its decision while the others
    await theirs: one program for all three with lines that say their match (sent at
    once, answered in their order), or a program each."""
    programs = _recorded_kit(tmp_path, interleave)
    bots = [programs.bot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.on_match_start(MatchInfo(str(seat), 0, ("a", "b"), RULES, 5.0, 5.0, 1))
    observations = decisions(30, seed=3)
    truthful = _truthful()()

    async def answer(bot: Bot, obs: Observation) -> Action:
        said = bot.act(obs)
        return await said if inspect.isawaitable(said) else said

    async def three_at_once() -> list[Action]:
        answers: list[Action] = []
        for at in range(0, len(observations), 3):
            asked = zip(bots, observations[at : at + 3], strict=True)
            answers += await asyncio.gather(*(answer(bot, obs) for bot, obs in asked))
        return answers

    assert aio.run(three_at_once()) == [truthful.act(obs) for obs in observations]
    for bot in bots:
        bot.on_match_end(MatchResult(((0,), (1,)), ""))

    def started() -> list[str]:
        return (programs.folder / "programs.txt").read_text().splitlines()

    assert len(started()) == (1 if interleave else 3)
    lines = (programs.folder / "lines.txt").read_text().splitlines()
    said = [dict(field.split("=", 1) for field in line.split()[1:])["match"] for line in lines]
    assert [line.split()[0] for line in lines].count("decide") == 30
    if interleave:
        assert said[3:33] == ["1", "2", "3"] * 10, "each decision says its own match"
    assert sorted(set(said)) == ["1", "2", "3"]
    assert len(programs.kept) == (1 if interleave else 3), "kept for the next matches"
    programs.bot().on_match_start(MatchInfo("4", 0, ("a", "b"), RULES, 5.0, 5.0, 1))
    assert len(programs.kept) == (1 if interleave else 2), "a kept program plays the next"
    for program in programs.kept:
        program.stop()
    assert len(started()) == (1 if interleave else 3), "and none was started for it"
