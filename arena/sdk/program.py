"""A bot played by a program in another language, over the line protocol.

The SDK serves the seat's gRPC protocol as for any Python bot; each decision is one line
to the program's standard input and one line back (:mod:`arena.sdk.lines`). A program
plays its matches one after the other: it is started for the first and kept for the
next (a JVM starts once), and a match played while another is on gets a program of its
own. A program whose match ended while it owed an answer, that answered nonsense or
that ended, is never given another match. A match's program is made ready (taken, or
started) as the match starts, before its first decision. What it writes on its standard
error is the bot's output, as a Python bot's prints are.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from arena.engine import Action, Observation
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.sdk.languages import Kit
from arena.sdk.lines import MAX_ANSWER, decide_line, end_line, parse_action, start_line


class ProgramEnded(RuntimeError):
    """The program ended, or closed its output, before it answered."""


class Program:
    """One running program of the bot's."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        #: it owes an answer to a line already sent
        self.owing = False

    @classmethod
    async def start(cls, kit: Kit, folder: Path) -> Program:
        argv = kit.argv()
        program = str(folder / argv[0]) if argv[0].startswith("./") else argv[0]
        process = await asyncio.create_subprocess_exec(
            program,
            *argv[1:],
            cwd=folder,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=MAX_ANSWER + 2,
        )
        return cls(process)

    @property
    def usable(self) -> bool:
        return not self.owing and self.process.returncode is None

    def send(self, line: str) -> None:
        """Write ``line`` to the program; one that closed its input is never used again."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode() + b"\n")
        except (RuntimeError, ConnectionError) as error:  # its end of the pipe is closed
            self.owing = True
            raise ProgramEnded(f"the program closed its input ({error})") from None

    async def ask(self, line: str) -> str:
        """Send ``line`` and wait for the program's answer."""
        assert self.process.stdout is not None
        self.send(line)
        self.owing = True
        try:
            answer = await self.process.stdout.readline()
        except ValueError:  # longer than the limit
            raise ProgramEnded(f"an answer longer than {MAX_ANSWER} characters") from None
        if not answer.endswith(b"\n"):
            code = await self._exit_code()
            raise ProgramEnded(f"the program ended before it answered ({code})")
        self.owing = False
        return answer.decode(errors="replace").strip()

    async def _exit_code(self) -> str:
        with contextlib.suppress(TimeoutError):
            code = await asyncio.wait_for(self.process.wait(), 1.0)
            return f"exit code {code}" if code >= 0 else f"signal {-code}"
        return "its output closed"

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()


class Programs:
    """The programs of one bot: idle ones waiting for their next match."""

    def __init__(self, kit: Kit, folder: Path) -> None:
        self.kit = kit
        self.folder = folder
        self.idle: list[Program] = []

    async def take(self) -> Program:
        while self.idle:
            program = self.idle.pop()
            if program.usable:
                return program
            program.stop()
        return await Program.start(self.kit, self.folder)

    def give_back(self, program: Program) -> None:
        if program.usable:
            self.idle.append(program)
        else:
            program.stop()

    def bot(self) -> ProgramBot:
        """A bot for one match (the SDK's factory)."""
        return ProgramBot(self)


class ProgramBot(Bot):
    """One match of the program's: the SDK calls it as any bot (an ``async def act``:
    several matches at once, each on a program of its own)."""

    def __init__(self, programs: Programs) -> None:
        self.programs = programs
        self.name = programs.kit.language.name
        self.program: Program | None = None
        #: the program being made ready while the match starts (a JVM boots meanwhile)
        self.ready: asyncio.Task[Program] | None = None

    def on_match_start(self, match: MatchInfo) -> None:
        opening = start_line(match)

        async def ready() -> Program:
            program = await self.programs.take()
            program.send(opening)
            return program

        self.ready = asyncio.get_running_loop().create_task(ready())

    async def act(self, observation: Observation) -> Action:
        program = self.program
        if program is None:
            assert self.ready is not None, "a match starts before its first decision"
            program = self.program = await self.ready
        try:
            return parse_action(await program.ask(decide_line(observation)))
        except BaseException:  # cancelled, ended or nonsense: never used again
            self.program = None
            program.stop()
            raise

    def on_match_end(self, result: MatchResult) -> None:
        program, self.program = self.program, None
        if (
            program is None
            and self.ready is not None
            and self.ready.done()
            and not self.ready.cancelled()
        ):
            program = None if self.ready.exception() else self.ready.result()  # never asked
        elif program is None and self.ready is not None:
            self.ready.cancel()
        if program is not None:
            if program.usable:
                with contextlib.suppress(ProgramEnded):
                    program.send(end_line(result))
            self.programs.give_back(program)
