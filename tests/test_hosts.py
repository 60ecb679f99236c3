"""The platform on several hosts: network namespaces with their own addresses, hostnames
and folders (tests/support/hosts.py). A services host runs PostgreSQL and Redis (password
auth), two worker hosts their workers (each its own data dir and temp folder, no file
shared: an uploaded bot's code reaches them from the database), one more host serves an
endpoint bot. The test's own process is the operator's machine on the same network."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from arena.base.states import BotKind, MatchStatus
from arena.bench import testbed
from arena.bench.testbed import Site
from arena.engine import Ruleset
from arena.platform import Platform
from arena.platform.submission import submit, wait
from arena.store import bots, tournaments
from arena.store.models import RatingChange, TournamentMatch
from tests.sandboxing import PLAIN_BOT
from tests.support.cli import arena as arena_command
from tests.support.store import add_samples
from tests.support.waiting import wait_until

#: ``alone``: a test bed's pair of links in the test's own namespace (made, then removed)
#: is a change of this machine's network, and a browser of another test ends its requests
#: in flight (``ERR_NETWORK_CHANGED``): these run after the others, by themselves
pytestmark = [pytest.mark.processes, pytest.mark.slow, pytest.mark.sandbox, pytest.mark.alone]

RULES = Ruleset.parse("classic")


@pytest.fixture
def site() -> Iterator[Site]:
    with testbed.site() as made:
        yield made


def _status_with_workers(site: Site, count: int) -> dict | None:
    """``arena status --json`` from the operator's machine, once ``count`` workers are
    registered and have sent a heartbeat."""
    import json
    import os

    settings = site.platform.settings
    env = os.environ | {
        "ARENA_DATA_DIR": str(settings.data_dir),
        "ARENA_DATABASE_URL": settings.database_url,
        "REDIS_URL": settings.redis_url or "",
    }
    done = arena_command("status", "--json", env=env)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    workers = status["workers"]
    ready = len(workers) == count and all(w["load"] is not None for w in workers)
    return status if ready else None


def _played(platform: Platform, name: str) -> bool:
    """Whether the tournament is over; not yet, while the services host, just mended,
    still refuses the test's own connection (the workers' waits are what is tested)."""
    try:
        with platform.db.read() as session:
            tournament = tournaments.get(session, name)
            return tournament.completed == tournament.games
    except OperationalError:
        return False


def test_a_tournament_plays_on_two_worker_hosts_every_match_recorded_once(
    site: Site, tmp_path: Path
) -> None:
    platform = site.platform
    add_samples(platform.db, ["random", "counter"])
    far = site.serve_bot(testbed.HONEST_BOT)
    platform.db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, far))
    folder = tmp_path / "upload"  # on the operator's machine only
    folder.mkdir()
    (folder / "bot.py").write_text(PLAIN_BOT.read_text())
    for host in site.workers:
        site.start_worker(host)
    made = submit(platform, "up", BotKind.PATH, str(folder), queued=True)
    status = wait_until(lambda: _status_with_workers(site, 2), "arena status saw no two workers")
    assert sorted(w["host"] for w in status["workers"]) == ["w1", "w2"]
    assert all(
        w["load"] is not None and w["heartbeat_age_s"] is not None for w in status["workers"]
    )
    settled = wait(platform.db, "up", made.version, timeout=300)
    assert settled.status == "ready", settled.reason
    games = 24
    platform.db.transaction(
        lambda s: tournaments.create(s, "cup", RULES, ["up", "far", "random", "counter"], 4, games)
    )
    platform.start_tournament("cup")
    wait_until(lambda: _played(platform, "cup"), "the tournament never ended")

    with platform.db.read() as session:
        cup = tournaments.get(session, "cup").id
        rows = session.execute(
            select(
                TournamentMatch.status, TournamentMatch.completion, TournamentMatch.worker
            ).where(TournamentMatch.tournament_id == cup)
        ).all()
        changes = session.scalar(
            select(func.count())
            .select_from(RatingChange)
            .join(TournamentMatch, TournamentMatch.id == RatingChange.match_id)
            .where(TournamentMatch.tournament_id == cup)
        )
    assert len(rows) == games and all(r.status is MatchStatus.DONE for r in rows)
    assert sorted(r.completion for r in rows) == list(range(1, games + 1)), "each once"
    assert changes == 4 * games, "one rating change per seat of each match"
    hosts = {r.worker.split(":")[0] for r in rows}
    assert hosts == {"w1", "w2"}, f"both worker hosts played: {hosts}"
    for host in site.workers:
        assert not (host.root / "data" / "arena.db").exists(), "no worker made a database"
    _assert_redis_speaks_tls_only(site)
    _assert_the_dashboard_host_serves(site, ["up", "far", "random", "counter"])


def _assert_the_dashboard_host_serves(site: Site, bots: list[str]) -> None:
    """The dashboard on its own host serves what the database holds, the workers of both
    hosts, and (Redis away) the pages still, not ready any more."""
    base = site.start_dashboard()
    with httpx.Client(base_url=base, timeout=30) as client:
        page = client.get("/tournaments/cup")
        assert page.status_code == 200 and all(f">{bot}</a>" in page.text for bot in bots)
        assert client.get("/readyz").json() == {"database": "ok", "redis": "ok"}
        workers = client.get("/workers").text
        assert "w1" in workers and "w2" in workers
        site.stop_redis()
        assert (
            client.get("/tournaments/cup", headers={"Cache-Control": "no-cache"}).status_code == 200
        )
        board = client.get("/api/v1/tournaments/cup/leaderboard").json()
        assert sorted(row["bot"] for row in board) == sorted(bots)
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["database"] == "ok"
        assert ready.json()["redis"] != "ok"


def _assert_redis_speaks_tls_only(site: Site) -> None:
    """Every host reached Redis over TLS (its URL is rediss://, verifying the server's
    certificate); a plain connection gets no answer, and nor does TLS to a server whose
    certificate is not the trusted one."""
    url = site.platform.settings.redis_url or ""
    assert url.startswith("rediss://") and "ssl_cert_reqs=required" in url
    address = site.services.address
    password = url.split("://:", 1)[1].split("@", 1)[0]
    with pytest.raises(redis.exceptions.RedisError):
        redis.Redis(host=address, port=6379, password=password, socket_timeout=5).ping()
    assert redis.Redis.from_url(url, socket_timeout=5).ping()
    stranger = site.services.root / "stranger.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=stranger", "-keyout", str(site.services.root / "stranger-key.pem"),
         "-out", str(stranger)],
        check=True, capture_output=True,
    )  # fmt: skip
    untrusted = url.replace(str(site.services.root / testbed.REDIS_CERT), str(stranger))
    with pytest.raises(redis.exceptions.RedisError):
        redis.Redis.from_url(untrusted, socket_timeout=5).ping()


def test_a_host_lost_inside_a_transaction_holds_up_no_other_worker(site: Site) -> None:
    """A host vanishes (its cable pulled, nothing reset) while its session holds the row
    every recording of the tournament needs: the database server finds the silent client
    by its keepalives and ends the session, so the other host's worker records on and no
    match fails (before: every worker stopped for the 45 s cut and more)."""
    platform = site.platform
    add_samples(platform.db, ["random", "counter", "honest", "bluffer"])
    games = 12
    platform.db.transaction(
        lambda s: tournaments.create(s, "cup", RULES, ["random", "counter", "honest"], 3, games)
    )
    lost, playing = site.workers
    url = platform.settings.database_url
    holder = lost.run(
        [sys.executable, "-c", testbed.HOLDER, url], site.worker_env(lost), "holder.log"
    )
    wait_until(lambda: "holding" in (lost.root / "holder.log").read_text(), "no lock taken")
    lost.cut()
    site.start_worker(playing)
    platform.start_tournament("cup")
    wait_until(lambda: _played(platform, "cup"), "the tournament never ended")
    assert holder.poll() is None, "the lost host's process still runs: only its link is cut"
    with platform.db.read() as session:
        cup = tournaments.get(session, "cup").id
        statuses = session.scalars(
            select(TournamentMatch.status).where(TournamentMatch.tournament_id == cup)
        ).all()
    assert statuses == [MatchStatus.DONE] * games, "no match failed"
    server_log = (site.services.root / "postgres.log").read_text()
    assert "could not receive data from client" in server_log, server_log[-3000:]
    assert "idle-in-transaction timeout" not in server_log


def _workers_of(platform: Platform, status: MatchStatus) -> dict[int, str]:
    with platform.db.read() as session:
        cup = tournaments.get(session, "cup").id
        rows = session.execute(
            select(TournamentMatch.id, TournamentMatch.worker).where(
                TournamentMatch.tournament_id == cup, TournamentMatch.status == status
            )
        ).all()
    return {match_id: worker or "" for match_id, worker in rows}


def test_a_worker_host_cut_mid_match_is_replaced_and_its_late_results_refused(
    site: Site,
) -> None:
    """The link of a worker host is pulled while it plays (its worker runs on, cut off);
    its matches are taken over by the other host once their leases lapse, and once the
    link is back the tournament ends with every match recorded once and rated once (a
    record under a lost claim is refused: tests/test_store.py)."""
    platform = site.platform
    add_samples(platform.db, ["random", "counter"])
    far = site.serve_bot(testbed.SLOW_BOT)
    platform.db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, far))
    games = 12
    platform.db.transaction(
        lambda s: tournaments.create(s, "cup", RULES, ["far", "random", "counter"], 3, games)
    )
    cut, other = site.workers
    site.start_worker(cut)
    platform.start_tournament("cup")
    held = wait_until(
        lambda: [m for m, w in _workers_of(platform, MatchStatus.RUNNING).items() if "w1:" in w],
        "the first worker host never played",
    )
    cut.cut()
    site.start_worker(other)
    wait_until(
        lambda: set(held) <= set(_workers_of(platform, MatchStatus.DONE)),
        "the cut host's matches were never taken over",
    )
    cut.mend()
    wait_until(lambda: _played(platform, "cup"), "the tournament never ended")
    done = _workers_of(platform, MatchStatus.DONE)
    assert len(done) == games and all(done[m].startswith("w2:") for m in held), done
    with platform.db.read() as session:
        cup = tournaments.get(session, "cup").id
        completions = session.scalars(
            select(TournamentMatch.completion).where(TournamentMatch.tournament_id == cup)
        ).all()
        changes = session.scalar(
            select(func.count())
            .select_from(RatingChange)
            .join(TournamentMatch, TournamentMatch.id == RatingChange.match_id)
            .where(TournamentMatch.tournament_id == cup)
        )
    assert sorted(completions) == list(range(1, games + 1)), "each recorded once"
    assert changes == 3 * games, "each rated once"


def _recorded(platform: Platform) -> int:
    with platform.db.read() as session:
        return tournaments.get(session, "cup").completed


#: what a worker logs when a service it needs is gone: a query retried, a reconciler's
#: pass failed, Redis lost (RQ's reconnection or the runner's), leases it cannot renew
_LOSS = re.compile(
    r"database error|reconcile failed|lost Redis|could not connect to Redis|cannot renew"
)


def _noticed_the_loss(log: str, address: str) -> bool:
    """A worker's log after the cut says, twice at least, that a service is gone."""
    return sum(1 for line in log.splitlines() if _LOSS.search(line) or address in line) >= 2


def test_workers_wait_for_an_unreachable_services_host_and_play_on(site: Site) -> None:
    """The services host (PostgreSQL and Redis) drops off the network while both worker
    hosts play; the workers keep trying, and once it is back they finish the tournament
    with no operator's step: every match recorded once, none failed."""
    platform = site.platform
    add_samples(platform.db, ["random", "counter", "honest"])
    far = site.serve_bot(testbed.SLOW_BOT)
    platform.db.transaction(lambda s: bots.add_bot(s, "far", BotKind.ENDPOINT, far))
    games = 24
    platform.db.transaction(
        lambda s: tournaments.create(
            s, "cup", RULES, ["far", "random", "counter", "honest"], 4, games
        )
    )
    for host in site.workers:
        site.start_worker(host)
    platform.start_tournament("cup")
    wait_until(lambda: _recorded(platform) >= 2, "nothing was recorded")
    logs = [host.root / "worker.log" for host in site.workers]
    before = [len(log.read_text()) for log in logs]
    site.services.cut()
    wait_until(
        lambda: all(
            _noticed_the_loss(log.read_text()[seen:], site.services.address)
            for log, seen in zip(logs, before, strict=True)
        ),
        "a worker never noticed the services host was gone",
    )
    site.services.mend()
    platform.db.engine.dispose()  # the operator's own connections were cut too
    wait_until(lambda: _played(platform, "cup"), "the tournament never ended")
    with platform.db.read() as session:
        cup = tournaments.get(session, "cup").id
        rows = session.execute(
            select(TournamentMatch.status, TournamentMatch.completion).where(
                TournamentMatch.tournament_id == cup
            )
        ).all()
    assert [r.status for r in rows] == [MatchStatus.DONE] * games, "none failed"
    assert sorted(r.completion for r in rows) == list(range(1, games + 1))
