"""The README's commands as written, on a fresh platform: the first day (a bot written,
submitted, ranked) and the second (a new version staged, A/B tested against the live one
on the same deals, promoted, rolled back), with a rejected upload in between: names like
``mine:latest`` do not shift when a rejection takes a version number."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.support.cli import ROOT, arena, platform_up

pytestmark = [pytest.mark.processes, pytest.mark.sandbox, pytest.mark.slow]

README = (ROOT / "README.md").read_text()
RAISER = """from arena.sdk import Bot


class Raiser(Bot):
    def act(self, obs):
        return {}["x"]
"""


def readme_commands(after: str) -> list[list[str]]:
    """The ``arena`` commands of the README's sh blocks after the heading ``after``, in
    order, comments dropped."""
    text = README[README.index(after) :]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "arena":
                commands.append(words[1:])
    return commands


def test_the_readmes_first_and_second_day_work_as_written(tmp_path: Path) -> None:
    bot = re.search(r"<!-- bot -->\n```python\n(.*?)```", README, re.S)
    assert bot is not None
    (tmp_path / "truthful.py").write_text(bot.group(1))
    worse = bot.group(1).replace("if legal.challenge and obs.live.count > 2:", "if False:")
    assert worse != bot.group(1)
    (tmp_path / "truthful2.py").write_text(worse)  # never challenges: clearly worse
    (tmp_path / "raiser.py").write_text(RAISER)
    commands = [
        words
        for words in readme_commands("Then enter it")
        if words[0] in ("owner", "bot", "abtest")
    ]
    assert [w[:2] for w in commands] == [
        ["owner", "add"], ["bot", "submit"], ["bot", "submit"], ["abtest", "create"],
        ["abtest", "start"], ["abtest", "wait"], ["bot", "promote"],
    ]  # fmt: skip
    with platform_up(tmp_path / "data") as env:
        run = lambda words: arena(*words, env=env, timeout=600)  # noqa: E731
        made = run(commands[0])
        assert made.returncode == 0, made.stderr
        token = made.stdout.split()[-1]
        said = []
        for index, words in enumerate(commands[1:], start=1):
            words = [token if w == "TOKEN" else w for w in words]
            words = [str(tmp_path / w) if w.endswith(".py") else w for w in words]
            done = run(words)
            said.append(done)
            if index == 1:  # then an upload that crashes: rejected, it takes v2
                rejected = run(["bot", "submit", "mine", "--path", str(tmp_path / "raiser.py"),
                                "--token", token])  # fmt: skip
                assert rejected.returncode == 1 and "mine v2 REJECTED" in rejected.stdout
        first, staged, created, started, waited, promoted = said
        assert first.returncode == 0 and "mine v1 accepted" in first.stdout, first.stderr
        assert "now playing in main" in first.stdout
        assert staged.returncode == 0 and "mine v3 accepted" in staged.stdout, staged.stderr
        assert "staged: arena bot promote mine:3 makes it live" in staged.stdout
        assert created.returncode == 0 and "mine v3 against mine v1" in created.stdout
        assert started.returncode == 0, started.stderr
        assert waited.returncode == 1, waited.stdout + waited.stderr  # rejected: not better
        assert "try-2: rejected" in waited.stdout and "inf" not in waited.stdout
        pairs = int(re.search(r"\((\d+) pairs counted\)", waited.stdout).group(1))
        assert pairs > 0
        assert (
            promoted.returncode == 0 and "mine v3 is live: now playing in main" in promoted.stdout
        )
        back = run(["bot", "rollback", "mine", "--token", token])
        assert back.returncode == 0 and "mine v1 is live" in back.stdout, back.stderr
        listed = run(["bot", "list"]).stdout
        assert re.search(r"mine\s+│\s+v1\s+│\s+ready\s+│\s+live since", listed), listed
