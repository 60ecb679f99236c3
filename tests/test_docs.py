"""The README and docs/: every relative link resolves (files and headings), and every
``arena`` command the README shows parses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import app

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """The fenced code blocks: (language, lines), and the prose lines as language None."""
    found: list[tuple[str, list[str]]] = [("", [])]
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            found.append((line[3:].strip() if fenced else "", []))
        else:
            found[-1][1].append(line)
    return found


def anchors(page: Path) -> set[str]:
    prose = [line for _, lines in blocks(page.read_text())[::2] for line in lines]
    return {slug(line.lstrip("#")) for line in prose if line.startswith("#")}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        missing_heading = anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        if not linked.exists() or missing_heading:
            broken.append(target)
    assert not broken, f"{page.name}: links that lead nowhere: {broken}"


def readme_commands() -> list[list[str]]:
    commands = []
    for language, lines in blocks((ROOT / "README.md").read_text()):
        if language != "sh":
            continue
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line.startswith("arena "):
                commands.append(shlex.split(line)[1:])
    return commands


def test_the_readme_shows_commands() -> None:
    assert len(readme_commands()) >= 5


@pytest.mark.parametrize("args", readme_commands(), ids=" ".join)
def test_every_command_in_the_readme_parses(args: list[str]) -> None:
    """The command and every option it names exist (``--help`` after them)."""
    answer = CliRunner().invoke(app, [*args, "--help"], prog_name="arena")
    assert answer.exit_code == 0, answer.output
    assert "Usage: arena" in answer.output


def test_the_readme_bot_is_the_example_file() -> None:
    """``examples/truthful.py`` is the README's first bot, word for word (the training
    example and the tests play it)."""
    found = re.search(r"<!-- bot -->\n```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert found is not None
    assert (ROOT / "examples" / "truthful.py").read_text() == found.group(1)
