"""A bot played by a program in another language, over the line protocol.

The SDK serves the seat's gRPC protocol as for any Python bot; each decision is one line
to the program's standard input and one line back (:mod:`arena.sdk.lines`), written
directly on the pipes. A program is started as its first match starts (a JVM boots
before the first decision) and kept for the next. A kit that says ``interleave`` has one
program for all the matches its sandbox plays at once, their lines interleaved: each
match's ``decide`` is written as it comes, while others await their answers, which the
program gives in the order of the lines (so a program woken once answers the lines that
came meanwhile together: on a busy machine a wake-up is most of what a decision costs a
runtime). Any other kit plays its matches one after the other, its answer read as a
plain Python bot's ``act`` runs, and a match played while another is on gets a program
of its own (a process, and for Java and JavaScript a runtime's start, per match at
once). A program whose match ended while it owed an answer, that answered nonsense or a
line it was not sent, that said nothing for longer than the match's whole clock, or
that ended, is never given another match (an interleaving program's other matches end
with it). What it writes on its standard error is the bot's output, as a Python bot's
prints are.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import select
import subprocess
import time
from collections import deque
from collections.abc import Awaitable
from pathlib import Path

from arena.engine import Action, Observation
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.sdk.languages import Kit
from arena.sdk.lines import MAX_ANSWER, decide_line, end_line, parse_action, start_line

#: seconds a program may take to answer beyond its deadline and time bank: past them its
#: seat has long forfeited, and the program is given up
SLACK_SECONDS = 5.0


class ProgramEnded(RuntimeError):
    """The program ended, closed its output, or said nothing in time."""


class Program:
    """One running program of the bot's."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self._input = process.stdin.fileno()
        self._output = process.stdout.fileno()
        self._buffer = b""
        #: it owes an answer to a line already sent (one match at a time)
        self.owing = False
        #: why it is never used again, once it failed with lines in flight (interleaving)
        self.failed: ProgramEnded | None = None
        #: the answers awaited, in the order of the lines sent (interleaving)
        self._awaited: deque[asyncio.Future[str]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def start(cls, kit: Kit, folder: Path) -> Program:
        argv = kit.argv()
        program = str(folder / argv[0]) if argv[0].startswith("./") else argv[0]
        try:
            process = subprocess.Popen(
                [program, *argv[1:]],
                cwd=folder,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as error:
            raise ProgramEnded(f"the program did not start: {error}") from None
        return cls(process)

    @property
    def usable(self) -> bool:
        return not self.owing and self.failed is None and self.process.poll() is None

    def send(self, line: str) -> None:
        """Write ``line`` to the program; one that closed its input is never used again."""
        data = line.encode() + b"\n"
        try:
            while data:
                data = data[os.write(self._input, data) :]
        except OSError as error:  # its end of the pipe is closed
            self.owing = True
            raise ProgramEnded(f"the program closed its input ({error.strerror})") from None

    def ask(self, line: str, seconds: float) -> str:
        """Send ``line`` and wait up to ``seconds`` for the program's answer."""
        self.send(line)
        self.owing = True
        answer = self._line(time.monotonic() + seconds)
        self.owing = False
        return answer

    async def ask_among_others(self, line: str, seconds: float) -> str:
        """Send ``line`` and await its answer for up to ``seconds``, other matches' lines
        sent and answered meanwhile: the program answers in the order of the lines."""
        if self.failed is not None:
            raise self.failed
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
            loop.add_reader(self._output, self._read_answers)
        answer: asyncio.Future[str] = loop.create_future()
        self._awaited.append(answer)
        try:
            self.send(line)
        except ProgramEnded as error:
            raise self._fail(error) from None
        too_late = loop.call_later(seconds, self._too_late, answer)  # cheaper than wait_for
        try:
            return await answer
        finally:
            too_late.cancel()

    def _too_late(self, answer: asyncio.Future[str]) -> None:
        if not answer.done():
            self._fail(ProgramEnded("the program said nothing for longer than its clock"))

    def _read_answers(self) -> None:
        """The program's output is readable: each line answers the oldest line awaited (a
        match that stopped waiting still has its line answered, and the answer dropped)."""
        try:
            chunk = os.read(self._output, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            self._fail(ProgramEnded(f"the program ended before it answered ({self._ending()})"))
            return
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
            if not self._awaited:
                self._fail(ProgramEnded("the program answered a line it was not sent"))
                return
            answer = self._awaited.popleft()
            if not answer.done():
                answer.set_result(line.decode(errors="replace").strip())
        if len(self._buffer) > MAX_ANSWER:
            self._fail(ProgramEnded(f"an answer longer than {MAX_ANSWER} characters"))

    def _fail(self, error: ProgramEnded) -> ProgramEnded:
        """Never use the program again: every answer still awaited fails with ``error``
        (or the program's first failure), and its output is no longer read."""
        if self.failed is None:
            self.failed = error
        if self._loop is not None:
            if not self._loop.is_closed():
                self._loop.remove_reader(self._output)
            self._loop = None
        while self._awaited:
            answer = self._awaited.popleft()
            if not answer.done():
                answer.set_exception(self.failed)
        return self.failed

    def _line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_ANSWER:
                raise ProgramEnded(f"an answer longer than {MAX_ANSWER} characters")
            left = deadline - time.monotonic()
            readable = select.select([self._output], [], [], max(left, 0))[0] if left > 0 else []
            if not readable:
                raise ProgramEnded("the program said nothing for longer than its clock")
            chunk = os.read(self._output, 65536)
            if not chunk:
                raise ProgramEnded(f"the program ended before it answered ({self._ending()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").strip()

    def _ending(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self.process.wait(timeout=1.0)
            return f"exit code {code}" if code >= 0 else f"signal {-code}"
        return "its output closed"

    def stop(self) -> None:
        self._fail(ProgramEnded("the program was stopped"))
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)


class Programs:
    """The programs of one bot kept for its next matches: idle ones, and an interleaving
    kit's one program, kept while it plays."""

    def __init__(self, kit: Kit, folder: Path) -> None:
        self.kit = kit
        self.folder = folder
        self.kept: list[Program] = []
        #: numbers the matches begun, for the lines that tell them apart
        self.numbers = itertools.count(1)

    def take(self) -> Program:
        while self.kept:
            program = self.kept[-1] if self.kit.interleave else self.kept.pop()
            if program.usable:
                return program
            self.drop(program)
        program = Program.start(self.kit, self.folder)
        if self.kit.interleave:
            self.kept.append(program)
        return program

    def give_back(self, program: Program) -> None:
        if not program.usable:
            self.drop(program)
        elif program not in self.kept:
            self.kept.append(program)

    def drop(self, program: Program) -> None:
        """Stop ``program``: it is never given another match."""
        program.stop()
        if program in self.kept:
            self.kept.remove(program)

    def bot(self) -> ProgramBot:
        """A bot for one match (the SDK's factory)."""
        return ProgramBot(self)


class ProgramBot(Bot):
    """One match of the program's: the SDK calls it as any bot."""

    def __init__(self, programs: Programs) -> None:
        self.programs = programs
        self.name = programs.kit.language.name
        self.program: Program | None = None
        self.number = next(programs.numbers)
        self.failed: ProgramEnded | None = None
        #: the longest a decision may wait: the match's whole clock, and some
        self.seconds = SLACK_SECONDS

    def on_match_start(self, match: MatchInfo) -> None:
        self.seconds = match.deadline + match.time_bank + SLACK_SECONDS
        try:
            program = self.program = self.programs.take()
            program.send(start_line(match, self.number))
        except ProgramEnded as error:  # told at its first decision, as a crash
            self.failed = error

    def act(self, observation: Observation) -> Action | Awaitable[Action]:
        """The program's answer; awaitable for an interleaving program (the server's
        other matches go on while it is awaited)."""
        program = self.program
        if program is None:
            raise self.failed or ProgramEnded("the program is gone")
        line = decide_line(observation, self.number)
        if self.programs.kit.interleave:
            return self._answer(program, program.ask_among_others(line, self.seconds))
        try:
            return parse_action(program.ask(line, self.seconds))
        except BaseException:
            self._give_up(program)
            raise

    async def _answer(self, program: Program, answer: Awaitable[str]) -> Action:
        try:
            return parse_action(await answer)
        except BaseException:
            self._give_up(program)
            raise

    def _give_up(self, program: Program) -> None:
        """Cancelled, ended, silent or nonsense: the program is never used again."""
        self.program = None
        self.programs.drop(program)

    def on_match_end(self, result: MatchResult) -> None:
        program, self.program = self.program, None
        if program is not None:
            if program.usable:
                with contextlib.suppress(ProgramEnded):
                    program.send(end_line(result, self.number))
            self.programs.give_back(program)
