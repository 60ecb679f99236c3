"""Issue 14: an endpoint that cannot be reached costs its seat a fraction of a second,
not the start timeout in every match; addresses are checked when a bot is added; a bot
that stays unreachable is flagged on its page."""

from __future__ import annotations

import socket
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from arena.base.endpoints import EndpointError, parse_endpoint, reachable
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.services import Workers
from arena.platform.settings import Settings
from arena.referee import GrpcSeat, LocalSeat, RefereeSettings, play_match
from arena.store import bots, tournaments
from arena.store.models import BotVersion, MatchSeat, RegisteredBot
from dashboard.app import create_app
from sample_bots import RandomBot
from tests.support.cli import arena, environment
from tests.support.forks import session_forks
from tests.support.workers import wait_done

pytestmark = pytest.mark.processes


def refusing_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    "text", ["127.0.0.1:99999", "127.0.0.1:0", "256.1.1.1:80", "a_b:12", ":80", "[::zz]:1"]
)
def test_addresses_that_name_no_endpoint_are_refused(text: str) -> None:
    with pytest.raises(EndpointError):
        parse_endpoint(text)


def test_good_addresses_are_kept() -> None:
    assert parse_endpoint("127.0.0.1:50051") == ("127.0.0.1", 50051)
    assert parse_endpoint("[::1]:8080") == ("::1", 8080)
    assert parse_endpoint("bots.example.org:443") == ("bots.example.org", 443)


def test_reachable_says_why_a_port_refuses() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert reachable(f"127.0.0.1:{server.getsockname()[1]}") is None
    assert "refused" in (reachable(f"127.0.0.1:{refusing_port()}") or "").lower()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_bot_add_checks_the_address_and_tries_it(settings: Settings) -> None:
    env = environment(settings)
    assert arena("db", "upgrade", env=env).returncode == 0
    bad = arena("bot", "add", "x", "--endpoint", "127.0.0.1:99999", env=env)
    assert bad.returncode == 2 and "1 to 65535" in bad.stderr
    dead = arena("bot", "add", "x", "--endpoint", f"127.0.0.1:{refusing_port()}", env=env)
    assert dead.returncode == 2 and "cannot connect" in dead.stderr and "refused" in dead.stderr
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        good = arena("bot", "add", "x", "--endpoint", f"127.0.0.1:{port}", env=env)
    assert good.returncode == 0, good.stderr


def test_a_refused_connection_fails_the_seat_at_once() -> None:
    """The start timeout is 10 s; a port that refuses fails its seat in well under it."""
    ruleset = Ruleset.parse("classic", {"deals": 1})
    seats = [GrpcSeat(f"127.0.0.1:{refusing_port()}", "dead"), LocalSeat(RandomBot(seed=1), "r")]
    began = time.monotonic()
    log = play_match(ruleset, seats, "s", RefereeSettings(start_timeout=10)).to_dict()
    spent = time.monotonic() - began
    forfeit = log["seats"][0]["forfeit"]
    assert forfeit["kind"] == "unreachable" and "refused" in forfeit["detail"]
    assert spent < 5, f"{spent:.1f} s: the seat waited for the start timeout"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_bot_unreachable_match_after_match_is_flagged_on_its_page(settings: Settings) -> None:
    arena_ = Platform(settings)
    arena_.db.transaction(
        lambda s: bots.add_bot(s, "gone", BotKind.ENDPOINT, f"127.0.0.1:{refusing_port()}")
    )
    arena_.db.transaction(lambda s: bots.add_bot(s, "random", BotKind.SAMPLE, "random"))
    arena_.db.transaction(
        lambda s: tournaments.create(s, "t", Ruleset.parse("classic"), ["gone", "random"], 2, 4)
    )
    began = time.monotonic()
    with Workers(settings, 1, settings.data_dir / "logs", forks=session_forks()):
        arena_.start_tournament("t")
        wait_done(arena_)
    print(
        f"4 matches with a dead endpoint in {time.monotonic() - began:.1f} s, worker start included"
    )
    with arena_.db.read() as s:
        kinds = list(
            s.scalars(
                select(MatchSeat.forfeit_kind)
                .join(BotVersion)
                .join(RegisteredBot)
                .where(RegisteredBot.name == "gone")
            )
        )
    # four matches at once shared the channel: one failing never closed another's stream
    assert kinds == ["unreachable"] * 4
    client = TestClient(create_app(settings))
    page = client.get("/bots/gone")
    assert page.status_code == 200
    assert "Unreachable in each of its last" in page.text and "refused" in page.text
    assert "Unreachable" not in client.get("/bots/random").text
