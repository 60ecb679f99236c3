"""Fair information: no bot and no spectator learns a deal before it is played.

A spying bot (a real gRPC endpoint) asks for every match log and, before each of its
matches, tries to predict its hand with the engine's own functions from everything it
was given and everything the public API and pages served so far. It must fail every
time, while the same predictor, handed the true seed after the tournament, succeeds
every time. During a running duplicate tournament no response carries a seed or a card
the table did not see, until the deal group (or the tournament) is finished.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from arena.base.states import BotKind
from arena.engine import Game, Ruleset
from arena.policies import RandomLegal
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from arena.sdk import Bot
from arena.sdk.bot import MatchInfo, MatchResult
from arena.store import bots, tournaments
from arena.store import matches as match_store
from arena.store.models import TournamentMatch
from tests.support.engine import served
from tests.support.store import add_samples, match_ids, play

pytestmark = pytest.mark.processes

OTHERS = ["honest", "counter", "bluffer"]


# ------------------------------------------------------------------ the spying bot


class Spy(Bot):
    """Plays at random; keeps what it was told: its first hand of each match, the logs."""

    name = "spy"
    wants_log = True
    journal: list[dict[str, Any]] = []

    def on_match_start(self, match: MatchInfo) -> None:
        self.entry: dict[str, Any] = {"seat": match.seat, "players": len(match.players)}
        self.entry["ruleset"] = match.ruleset
        self.policy = RandomLegal(len(self.journal))
        self.journal.append(self.entry)

    def act(self, observation):
        self.entry.setdefault("first_hand", observation.hand)
        return self.policy.act(observation)

    def on_match_end(self, result: MatchResult) -> None:
        self.entry["log"] = result.log


# ------------------------------------------------------------------ the attack


def strings_in(value: Any) -> set[str]:
    """Every string (and number) anywhere in a JSON value: what an attacker can try."""
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values()), set(map(str, value)))
    if isinstance(value, list):
        return set().union(set(), *(strings_in(v) for v in value))
    return {str(value)} if value is not None else set()


def candidate_seeds(known: set[str], schedule_size: int) -> set[str]:
    """Match seeds worth trying: what was seen, and what a schedule could derive from it."""
    candidates = set(known)
    for base in known:
        if len(base) > 80:
            continue
        for index in range(schedule_size):
            candidates.update({f"{base}/{index}", f"{base}/g{index}"})
    return candidates


def predicts(entry: dict[str, Any], seeds: set[str]) -> str | None:
    """The first of ``seeds`` that deals the spy exactly the hand it was dealt, card by
    card in the order dealt (its own log shows it after the match): that is what the
    deal's own seed does. Not the cards it held at its first turn (quartets gone), nor
    the dealt cards as a set: among the ~10^5 seeds tried in a test some seed deals the
    same nine cards by chance about once in 300 runs (CI met one: 'cup/3')."""
    game = Game(entry["ruleset"], entry["players"])
    dealt = list(entry["log"]["deals"][0]["hands"][entry["seat"]])
    for seed in sorted(seeds):
        cards = game.shuffled(f"{seed}/0")  # shuffled_layout's deck, dealt from each seat
        for dealer in range(entry["players"]):
            hands, _, _ = game.layout(cards, dealer)
            if list(hands[entry["seat"]]) == dealt:
                return seed
    return None


def sources_of(seed: str, sources: dict[str, Any]) -> list[str]:
    """Where a predicting seed (or the text it was derived from) was shown."""
    return [name for name, value in sources.items() if seed.split("/")[0] in strings_in(value)]


def public_snapshot(client: TestClient, tournament: str) -> list[Any]:
    """Everything the public API and pages serve about the tournament now."""
    served_now: list[Any] = [client.get(f"/api/v1/tournaments/{tournament}").json()]
    page = client.get("/api/v1/matches", params={"tournament": tournament, "per_page": 200})
    served_now.append(page.json())
    for match in page.json()["items"]:
        served_now.append(client.get(f"/api/v1/matches/{match['id']}").json())
        log = client.get(f"/api/v1/matches/{match['id']}/log")
        if log.status_code == 200:
            served_now.append(log.json())
        html = client.get(f"/matches/{match['id']}").text
        served_now.extend(re.findall(r"[0-9a-zA-Z/_.-]{6,}", html))
    for name in ["spy", *OTHERS]:
        served_now.append(client.get(f"/api/v1/bots/{name}").json())
    return served_now


def run_spied_tournament(
    app: tuple[TestClient, str, Any], duplicate: bool, games: int
) -> tuple[list[dict[str, Any]], list[list[Any]], list[int]]:
    """Play a tournament with the spy; return its journal, the public snapshots taken
    before each of its matches, and the match ids in playing order."""
    client, token, arena = app
    Spy.journal = []
    add_samples(arena.db, OTHERS)
    with served(Spy) as endpoint:
        arena.db.transaction(lambda s: bots.add_bot(s, "spy", BotKind.ENDPOINT, endpoint))
        arena.db.transaction(
            lambda s: tournaments.create(
                s, "cup", Ruleset.parse("classic"), ["spy", *OTHERS], 4, games, duplicate=duplicate
            )
        )
        assert arena.start_tournament("cup") == games
        snapshots, order = [], match_ids(arena.db)
        for match_id in order:
            snapshots.append(public_snapshot(client, "cup"))
            plan = match_store.claim(arena.db, match_id, "test")
            assert match_store.record(arena.db, plan, play(plan), 1.0)
    return Spy.journal, snapshots, order


@pytest.mark.parametrize("duplicate", [False, True], ids=["round_robin", "duplicate"])
def test_a_bot_cannot_predict_its_next_deal(app_and_token, duplicate: bool) -> None:
    client, _, arena = app_and_token
    journal, snapshots, order = run_spied_tournament(app_and_token, duplicate, games=2 * 4)
    assert len(journal) == len(order) >= 8 and all("first_hand" in e for e in journal)
    for number in range(1, len(journal)):
        sources: dict[str, Any] = {f"log of match {i}": e["log"] for i, e in enumerate(journal)}
        sources = dict(list(sources.items())[:number])
        sources |= {f"snapshot {i}": snap for i, snap in enumerate(snapshots[: number + 1])}
        known = set().union({"cup", "0"}, *(strings_in(value) for value in sources.values()))
        seed = predicts(journal[number], candidate_seeds(known, len(order)))
        assert seed is None, (
            f"match {number} was predicted by {seed!r} (shown in {sources_of(seed, sources)}); "
            f"its hand {journal[number]['log']['deals'][0]['hands'][journal[number]['seat']]}"
        )
    full_logs = [client.get(f"/api/v1/matches/{match_id}/log").json() for match_id in order]
    assert all(log["disclosure"] == "the tournament is over" for log in full_logs)
    for entry, log in zip(journal, full_logs, strict=True):
        assert replay(MatchLog.from_dict(log)).ok, "after the tournament the logs replay"
        assert predicts(entry, {log["seed"]}) == log["seed"], "the predictor works given the seed"
        assert entry["log"]["seed"] is None and entry["log"]["view"] == f"seat {entry['seat']}"
        assert (
            entry["log"]["deals"][0]["hands"][entry["seat"]]
            == log["deals"][0]["hands"][entry["seat"]]
        )
    with arena.db.read() as session:
        key = session.scalar(select(tournaments.Tournament.secret_key))
    everything = json.dumps([e["log"] for e in journal]) + json.dumps(snapshots, default=str)
    assert key not in everything, "the key never leaves the server"


# ------------------------------------------------------------------ redaction while running


def assert_no_secret(view: dict[str, Any], full: dict[str, Any]) -> None:
    """A public view holds exactly what the table saw of the full log."""
    assert view["view"] == "public" and view["seed"] is None
    # every seat's figures but its style, whose bluff count tells what face-down cards were
    assert all("style" not in seat for seat in view["seats"])
    assert view["seats"] == [{k: v for k, v in s.items() if k != "style"} for s in full["seats"]]
    assert view["result"] == full["result"]
    for shown, deal in zip(view["deals"], full["deals"], strict=True):
        assert shown["seed"] is None and shown["stock"] is None and shown["hidden"] is None
        assert shown["hands"] == [None] * len(deal["hands"])
        assert shown["opening_events"] == deal["opening_events"]
        for step, real in zip(shown["steps"], deal["steps"], strict=True):
            assert step["events"] == real["events"] and step["seat"] == real["seat"]
            if real["action"] and real["action"]["do"] == "play":
                assert step["action"]["cards"] is None
                assert step["action"]["placed"] == len(real["action"]["cards"])
            else:
                assert step["action"] == real["action"]


def test_a_running_duplicate_tournament_shows_no_seed_or_unseen_card(app_and_token) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db, ["random", *OTHERS])
    arena.db.transaction(
        lambda s: tournaments.create(
            s, "dup", Ruleset.parse("classic"), ["random", *OTHERS], 4, 8, duplicate=True
        )
    )
    arena.db.transaction(lambda s: tournaments.start(s, "dup"))
    with arena.db.read() as session:
        rows = session.execute(
            select(TournamentMatch.id, TournamentMatch.deal_group, TournamentMatch.seed)
        ).all()
    group_of = {match_id: group for match_id, group, _ in rows}
    all_seeds = {seed for _, _, seed in rows}
    full: dict[int, dict[str, Any]] = {}  # the logs as stored
    for match_id in match_ids(arena.db):
        plan = match_store.claim(arena.db, match_id, "test")
        log = play(plan)
        full[match_id] = json.loads(json.dumps(log.to_dict()))
        assert match_store.record(arena.db, plan, log, 1.0)
        finished_groups = Counter(group_of[m] for m in full)
        texts = [json.dumps(item) for item in public_snapshot(client, "dup")]
        for played, log in full.items():
            served_log = client.get(f"/api/v1/matches/{played}/log").json()
            page = client.get(f"/matches/{played}").text
            frames = json.loads(re.search(r'id="frames"[^>]*>(.*?)</script>', page, re.S)[1])
            if finished_groups[group_of[played]] < 4 and len(full) < len(rows):
                assert_no_secret(served_log, log)
                assert "every rotation" in served_log["disclosure"]
                assert all(card is None for f in frames for hand in f["hands"] for card in hand)
                secret = {log["seed"]}
                assert not any(seed in text for seed in secret for text in texts)
            else:
                assert served_log["seed"] == log["seed"]
                assert replay(MatchLog.from_dict(served_log)).ok
                assert any(card for f in frames for hand in f["hands"] for card in hand)
        unsettled = {
            seed
            for match_id, group, seed in rows
            if finished_groups[group] < 4 and len(full) < len(rows)
        }
        assert not any(seed in text for seed in unsettled for text in texts)
    assert all_seeds, "the tournament has matches"
