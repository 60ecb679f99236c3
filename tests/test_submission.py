"""Submitting bots from the command line, and uploaded bots playing tournaments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.submission import _add_pending, qualify, submit, wait
from arena.policies import RandomLegal
from arena.sdk import Bot
from arena.sdk.bot import MatchInfo
from arena.store import competitions
from arena.store.db import Database
from arena.store.models import Artifact, BotVersion, RegisteredBot, Tournament
from sample_bots import NAMES
from tests.sandboxing import PLAIN_BOT
from tests.support.cli import arena, environment
from tests.support.engine import served
from tests.support.store import SAMPLES, add_samples

pytestmark = pytest.mark.processes

BOTS = Path(__file__).parent / "sandbox_bots"


def test_submit_qualify_and_play_an_uploaded_bot(settings: Settings, tmp_path: Path) -> None:
    env = environment(settings)
    assert arena("db", "upgrade", env=env).returncode == 0
    folder = tmp_path / "truthful"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    accepted = arena("bot", "submit", "mine", "--path", str(folder), env=env)
    assert accepted.returncode == 0, accepted.stderr
    assert re.search(
        r"mine v1 accepted: qualified: finished a match against (random|honest|counter|bluffer)",
        accepted.stdout,
    ), accepted.stdout
    with Platform(settings).db.read() as session:
        [target] = session.scalars(
            select(BotVersion.target).where(BotVersion.kind == BotKind.PATH)
        ).all()
        [digest] = session.scalars(select(Artifact.digest)).all()
    assert target == f"sha256:{digest}", "the upload is stored in the database by digest"
    (folder / "bot.py").write_text("raise SystemExit('edited after submitting')")

    rejected = arena("bot", "submit", "mine", "--path", str(BOTS / "cpu_hog.py"), env=env)
    assert rejected.returncode == 1
    assert "mine v2 REJECTED: answered late" in rejected.stdout or (
        "mine v2 REJECTED: forfeited its qualification match" in rejected.stdout
    )
    listing = arena("bot", "list", env=env).stdout
    assert "rejected" in listing and "ready" in listing

    for bot in ("random", "honest"):
        assert arena("bot", "add", bot, "--sample", bot, env=env).returncode == 0
    assert (
        arena(
            "tournament",
            "create",
            "cup",
            "--bots",
            "mine,random,honest",
            "--table-size",
            "3",
            "--games",
            "6",
            env=env,
        ).returncode
        == 0
    )
    assert arena("tournament", "start", "cup", env=env).returncode == 0
    worker = arena("worker", "--burst", env=env)
    assert worker.returncode == 0, worker.stderr[-2000:]
    status = json.loads(arena("tournament", "status", "cup", "--json", env=env).stdout)
    assert status["matches"]["done"] == 6
    mine = next(row for row in status["leaderboard"] if row["bot"] == "mine")
    assert mine["games"] == 6 and mine["forfeits"] == 0 and mine["version"] == 1


def test_submit_refuses_bad_input(settings: Settings, tmp_path: Path) -> None:
    env = environment(settings)
    assert arena("db", "upgrade", env=env).returncode == 0
    both = arena("bot", "submit", "x", "--path", "a.py", "--endpoint", "h:1", env=env)
    assert both.returncode == 2 and "exactly one of" in both.stderr
    missing = arena("bot", "submit", "x", "--path", str(tmp_path / "none.py"), env=env)
    assert missing.returncode == 2 and "no bot file or folder" in missing.stderr
    (tmp_path / "empty").mkdir()
    no_bot = arena("bot", "submit", "x", "--path", str(tmp_path / "empty"), env=env)
    assert no_bot.returncode == 2 and "is no bot: no arena.toml" in no_bot.stderr


def test_uploads_are_refused_where_no_sandbox_can_be_built(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.base.states import BotKind
    from arena.platform import Platform, PlatformError, submission
    from arena.platform.sandbox.probe import Availability
    from arena.store import bots

    unavailable = Availability("unavailable", "no user namespaces", cgroups=False)
    monkeypatch.setattr(submission, "availability", lambda: unavailable)
    folder = tmp_path / "truthful"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    platform = Platform(settings)
    with pytest.raises(PlatformError, match="uploaded bots cannot run here: no user namespaces"):
        submission.submit(platform, "mine", BotKind.PATH, str(folder))
    with platform.db.read() as session:
        assert [bot.name for bot in bots.all_bots(session)] == [], "nothing was stored"


class Witness(Bot):
    """Notes what a match shows it: its first hand, whom it meets, its seat, the match id
    and the deadline."""

    name = "witness"
    seen: list[tuple[tuple[str, ...], MatchInfo]] = []

    def on_match_start(self, match: MatchInfo) -> None:
        self.match = match
        self.hand: tuple[str, ...] | None = None

    def act(self, observation):
        if self.hand is None:
            self.hand = tuple(sorted(observation.hand))
            Witness.seen.append((self.hand, self.match))
        return RandomLegal(0).act(observation)


def pending(db: Database, name: str, endpoint: str, competition: str | None = None) -> int:
    """A pending endpoint version of bot ``name``: its id (what a worker qualifies)."""
    return db.transaction(
        lambda s: _add_pending(s, name, BotKind.ENDPOINT, endpoint, None, competition).id
    )


def test_a_bot_cannot_tell_its_qualification_from_ranked_play(settings: Settings) -> None:
    """Qualification was dealt from the seed "qualify" against random(seed=0), then at a
    table of 2 with a uuid for an id and names without " vN"."""
    Witness.seen = []
    platform = Platform(settings)
    add_samples(platform.db)
    platform.db.transaction(
        lambda s: competitions.create(
            s, "main", Ruleset.parse("classic"), 4, bot_names=SAMPLES, default=True
        )
    )
    with platform.db.read() as session:
        ladder = session.get_one(Tournament, competitions.get(session, "main").tournament_id)
        deadline = ladder.settings["deadline"]
    with served(Witness) as endpoint:
        for index in range(12):
            version_id = pending(platform.db, f"witness{index}", endpoint)
            played = qualify(platform.db, settings.data_dir, version_id)
            assert played.accepted, played.reason
    hands = {hand for hand, _ in Witness.seen}
    assert len(Witness.seen) == 12 and len(hands) == 12, "every qualification deals anew"
    for index, (_, match) in enumerate(Witness.seen):
        assert match.match_id.isdigit(), "an integer id, as a ranked match's"
        assert len(match.players) == 4 and match.deadline == deadline, "the competition's table"
        assert match.players[match.seat] == f"witness{index} v1"
        others = [p for i, p in enumerate(match.players) if i != match.seat]
        assert all(re.fullmatch(r"\w+ v\d+", name) for name in others), others
        assert {name.split()[0] for name in others} <= set(SAMPLES), "drawn from the field"
    seats = {match.seat for _, match in Witness.seen}
    assert len(seats) >= 2, "the version sits anywhere at the table"


def test_the_command_line_and_the_web_update_the_same_owners_bot(
    settings: Settings, tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from arena.store.owners import add_owner
    from dashboard.app import create_app
    from tests.support.api import auth

    client = TestClient(create_app(settings))
    _, token = client.app.state.platform.db.transaction(lambda s: add_owner(s, "alice"))
    env = environment(settings)
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    web = client.post(
        "/api/v1/bots", headers=auth(token), json={"name": "webbot", "kind": "python",
                                                    "source": PLAIN_BOT.read_text()},
    )  # fmt: skip
    assert web.status_code == 202, web.text
    refused = arena("bot", "submit", "webbot", "--path", str(folder), env=env)
    said = "belongs to team 'alice': act as one of its members"
    assert refused.returncode != 0 and said in refused.stderr
    accepted = arena(
        "bot", "submit", "webbot", "--path", str(folder), env=env | {"ARENA_TOKEN": token}
    )
    assert accepted.returncode == 0, accepted.stderr
    assert "webbot v2 accepted" in accepted.stdout
    made = arena("bot", "submit", "clibot", "--path", str(folder), "--token", token, env=env)
    assert made.returncode == 0, made.stderr
    again = client.post(
        "/api/v1/bots/clibot/versions",
        headers=auth(token),
        json={"kind": "sample", "target": "random"},
    )
    assert again.status_code == 202, again.text
    wrong = arena("bot", "submit", "clibot", "--path", str(folder), "--token", "nope", env=env)
    assert wrong.returncode != 0 and "no owner's" in wrong.stderr


class Dividing(Bot):
    """Raises in act, at a line the owner can find."""

    name = "dividing"

    def act(self, observation):
        return 1 // 0


def test_a_bot_that_raises_in_act_is_told_the_exception_and_its_line(
    settings: Settings, tmp_path: Path
) -> None:
    """It was rejected with gRPC's words: status UNKNOWN ("Unexpected <class ...>")."""
    db = Platform(settings).db
    line = next(
        number
        for number, text in enumerate(Path(__file__).read_text().splitlines(), 1)
        if "return 1 // 0" in text
    )
    with served(Dividing) as endpoint:
        played = qualify(db, tmp_path, pending(db, "dividing", endpoint))
        accepted, reason = played.accepted, played.detail or ""
    assert not accepted
    expected = "its act raised 'ZeroDivisionError: integer division or modulo by zero "
    assert expected in reason and f"test_submission.py, line {line}, in act" in reason, reason
    assert "Unexpected" not in reason and "status" not in reason


@pytest.mark.sandbox
def test_an_uploaded_bot_that_raises_in_act_is_told_the_same(
    settings: Settings, tmp_path: Path
) -> None:
    source = (
        "from arena.sdk import Bot\n\n\nclass B(Bot):\n    def act(self, obs):\n"
        "        return {}['x']\n"
    )
    folder = tmp_path / "keyerror"
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    result = submit(Platform(settings), "keyerror", BotKind.PATH, str(folder))
    assert result.status == "rejected"
    assert "its act raised \"KeyError: 'x' (bot.py, line 6, in act)\"" in result.reason, (
        result.reason
    )


@pytest.mark.sandbox
def test_a_bot_that_does_not_load_is_told_its_own_lines_not_the_import_machinerys(
    settings: Settings, tmp_path: Path
) -> None:
    """A syntax error came back flattened, cut at the start, in importlib's frames."""
    arena_ = Platform(settings)
    broken = {
        "syntax": ("from arena.sdk import Bot\n\nclass B(Bot):\n    def act(self, obs)\n", 4),
        "name": ("from arena.sdk import Bot\n\nundefined_name\n", 3),
    }
    for name, (source, line) in broken.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        result = submit(arena_, name, BotKind.PATH, str(folder))
        assert result.status == "rejected"
        assert "the bot could not be loaded:" in result.reason, result.reason
        assert f'File "/bot/bot.py", line {line}' in result.reason, result.reason
        assert "frozen" not in result.reason and "importlib" not in result.reason
    again = submit(arena_, "syntax", BotKind.PATH, str(tmp_path / "syntax"))
    assert "SyntaxError: expected ':'" in again.reason and "\n" in again.reason, "line breaks"


@pytest.mark.sandbox
def test_a_versions_qualification_match_is_a_match_with_its_replay_and_its_owners_output(
    settings: Settings, tmp_path: Path
) -> None:
    """The qualification match appeared nowhere: not on the bot page, /owner or /matches."""
    from fastapi.testclient import TestClient

    from arena.store.owners import add_owner
    from dashboard.app import create_app
    from tests.support.api import auth

    client = TestClient(create_app(settings))
    arena_ = client.app.state.platform
    owner, token = arena_.db.transaction(lambda s: add_owner(s, "alice"))
    folder = tmp_path / "keyerror"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "from arena.sdk import Bot\n\n\nclass B(Bot):\n    def act(self, obs):\n"
        "        return {}['x']\n"
    )
    submitted = submit(arena_, "keyerror", BotKind.PATH, str(folder), owner_id=owner.id)
    assert submitted.status == "rejected", submitted.reason
    [version] = client.get("/api/v1/bots/keyerror").json()["versions"]
    match_id = version["qualification_match"]
    assert isinstance(match_id, int), version

    match = client.get(f"/api/v1/matches/{match_id}", headers=auth(token)).json()
    assert match["status"] == "done" and match["tournament"] == "platform.qualification"
    [mine] = [seat for seat in match["seats"] if seat["bot"] == "keyerror"]
    others = [seat for seat in match["seats"] if seat is not mine]
    assert mine["forfeit"] == "crashed", mine
    assert "KeyError: 'x' (bot.py, line 6, in act)" in mine["reason"]  # its owner's eyes
    anyone = client.get(f"/api/v1/matches/{match_id}").json()
    [seen] = [seat for seat in anyone["seats"] if seat["bot"] == "keyerror"]
    assert seen["forfeit"] == "crashed" and seen["reason"] is None
    # a table of the platform's usual size (no competition here), filled with samples
    assert len(others) == 3 and all(seat["bot"] in NAMES and not seat["forfeit"] for seat in others)
    assert "output" not in mine, "what a bot printed is its owner's"
    log = client.get(f"/api/v1/matches/{match_id}/log").json()
    assert log["disclosure"].startswith("a qualification match"), log["disclosure"]
    assert log["seed"] and all(deal["hands"][0] for deal in log["deals"]), "the full log"
    listed = client.get("/api/v1/matches", params={"bot": "keyerror"}).json()["items"]
    assert [m["id"] for m in listed] == [match_id]

    seats = client.get("/api/v1/owners/me/seats", headers=auth(token)).json()
    [seat] = [s for s in seats if s["match"] == match_id]
    lines = seat["output"].splitlines()
    assert "Traceback (most recent call last):" in lines and lines[-1] == "KeyError: 'x'", lines
    assert client.get("/api/v1/owners/me/seats").status_code == 401

    page = client.get("/bots/keyerror").text
    assert f'href="/matches/{match_id}"' in page
    assert client.get(f"/matches/{match_id}").status_code == 200
    assert "keyerror" in client.get("/tournaments/platform.qualification").text
    names = [t["name"] for t in client.get("/api/v1/tournaments").json()]
    assert "platform.qualification" not in names, "never listed as a tournament"


def test_a_qualified_version_links_the_match_it_finished(settings: Settings) -> None:
    from arena.base.errors import Invalid
    from arena.engine import Ruleset
    from arena.store import tournaments
    from arena.store.models import MatchSeat, RegisteredBot, TournamentMatch

    arena_ = Platform(settings)
    with served(Witness) as endpoint:
        first = submit(arena_, "witness", BotKind.ENDPOINT, endpoint)
        second = submit(arena_, "witness", BotKind.ENDPOINT, endpoint)
    assert first.accepted and second.accepted, (first.reason, second.reason)
    with arena_.db.read() as session:
        versions = session.scalars(
            select(BotVersion).join(RegisteredBot).where(RegisteredBot.name == "witness")
        )
        linked = {v.number: v.qualification_match_id for v in versions}
        assert set(linked) == {1, 2} and None not in linked.values()
        assert len(set(linked.values())) == 2, "each version its own match"
        for number, match_id in linked.items():
            match = session.get(TournamentMatch, match_id)
            [seat] = [s for s in match.seats if s.version.bot.name == "witness"]
            assert seat.version.number == number and not seat.forfeit and seat.place in (1, 2, 3, 4)
            samples = [s for s in match.seats if s is not seat]
            assert all(s.version.bot.owner_id is None for s in samples)
            assert all(s.version.kind is BotKind.SAMPLE for s in samples)
        assert (
            session.scalar(select(MatchSeat.output).where(MatchSeat.match_id.in_(linked.values())))
            is None
        )
        with pytest.raises(Invalid, match="are the platform's"):
            tournaments.create(session, "platform.qualification", Ruleset.parse("classic"),
                               ["witness"], 2, 1)  # fmt: skip


@pytest.mark.sandbox
def test_a_qualification_the_platform_fails_to_play_says_so_and_charges_no_bot(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug of the platform's while it plays a qualification (an upload unpacked on a
    Python without tarfile's filter once raised TypeError): the version stays pending,
    never rejected, and its owner reads that the platform failed (the error's kind, not
    the platform's text)."""
    from arena.platform import submission
    from tests.support.workers import worker_in_this_process
    from worker.rq_classes import MatchWorker

    arena_ = Platform(settings)
    add_samples(arena_.db)
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())

    def broken(db: Database, data_dir: Path, version_id: int):
        raise TypeError("extractall() got an unexpected keyword argument 'filter'")

    monkeypatch.setattr(submission, "qualify", broken)
    made = submit(arena_, "plain", BotKind.PATH, str(folder), queued=True)
    with worker_in_this_process(settings, monkeypatch):
        MatchWorker([arena_.queue], connection=arena_.queue.connection).work(burst=True)
    settled = wait(arena_.db, "plain", made.version, timeout=0)
    assert settled.status == "pending", settled
    assert "the platform failed to play its qualification match (TypeError)" in settled.reason
    assert "extractall" not in settled.reason


def test_a_qualification_the_platform_could_not_play_is_played_again(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No sandbox came up for it (a hung start): the platform's failure, so the job runs
    again and the version is settled, never left pending for ever."""
    from arena.platform import submission
    from arena.platform.sandbox import SandboxUnavailable
    from tests.support.workers import worker_in_this_process
    from worker.rq_classes import MatchWorker

    arena_ = Platform(settings)
    add_samples(arena_.db)
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    tries: list[int] = []

    def first_fails(db: Database, data_dir: Path, version_id: int):
        tries.append(version_id)
        if len(tries) == 1:
            raise SandboxUnavailable(
                "the sandbox did not come up in time before the bot's code ran"
            )
        return qualify(db, data_dir, version_id)

    monkeypatch.setattr(submission, "qualify", first_fails)
    made = submit(arena_, "plain", BotKind.PATH, str(folder), queued=True)
    assert made.status == "pending"
    with worker_in_this_process(settings, monkeypatch):
        MatchWorker([arena_.queue], connection=arena_.queue.connection).work(burst=True)
    with arena_.db.read() as session:
        [version] = session.scalars(
            select(BotVersion).join(RegisteredBot).where(RegisteredBot.name == "plain")
        )
        assert (version.status.value, len(tries)) == ("ready", 2), version.detail
