"""Shared test helpers: random rulesets and a chaotic driver that also breaks the rules."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from arena.engine import (
    BELIEVE,
    CHALLENGE,
    PASS,
    RANK_OF,
    RANKS,
    Action,
    Deal,
    Game,
    Play,
    Quartets,
    RulesError,
    Ruleset,
)
from arena.engine.rules import OPTIONS
from arena.policies import RandomLegal
from arena.sdk import Bot
from arena.sdk.server import create_server

CHOICES: dict[str, list] = {
    "deck": ["36", "52", "auto"],
    "decks": [1, 2, "auto"],
    "jokers": [0, 2],
    "hidden_card": [False, True],
    "hand_size": [None, None, 3, 5],
    "first_player": ["left_of_dealer", "dealer"],
    "max_play": [None, 2, 3, "possible"],
    "count": ["free", "honest"],
    "believe": ["none", "group", "table"],
    "reveal": ["group", "one"],
    "protect_single_lead": [False, True],
    "pass": [False, True],
    "after_pickup": ["new_round", "keep_value"],
    "calls": ["next", "open"],
    "sequence": ["fixed", "ascending"],
    "banned_ranks": [[], [], ["A"], ["K"], ["A", "K"]],
    "quartets": ["none", "after_pickup", "always"],
    "quartet_exempt": [[], ["K"]],
    "final_call": [False, True],
    "end": ["last_loser", "first_out"],
    "deals": [1],
    "next_dealer": ["rotate", "loser"],
    "max_turns": [2000, 300],
}
assert set(CHOICES) == set(OPTIONS), "every option is exercised"


def random_game(rng: random.Random) -> Game:
    """A random valid ruleset (every option drawn independently) for 2 to 7 players."""
    while True:
        preset = rng.choice(["classic", "pagat", "russian"])
        overrides = {
            name: rng.choice(values) for name, values in CHOICES.items() if rng.random() < 0.5
        }
        try:
            return Game(Ruleset.parse(preset, overrides), rng.randint(2, 7))
        except RulesError:
            continue


def random_deal(rng: random.Random, game: Game | None = None) -> Deal:
    game = game or random_game(rng)
    dealer = rng.randrange(game.players)
    hands, stock, hidden = game.shuffled_layout(rng.random(), dealer)
    return Deal(game, hands, dealer=dealer, stock=stock, hidden=hidden, seed=rng.random())


def table_cards(deal: Deal) -> Counter[str]:
    """Every card the deal accounts for: hands, pile, discard, stock and the hidden card."""
    cards: Counter[str] = Counter()
    for hand in deal.hands:
        cards.update(hand)
    cards.update(deal.pile_cards())
    cards.update(deal.discard)
    cards.update(deal.stock)
    if deal.hidden is not None:
        cards[deal.hidden] += 1
    return cards


def rule_breaking_action(rng: random.Random, deal: Deal, seat: int) -> Action:
    """An action that is often illegal: wrong cards, ranks, counts, calls or passes."""
    hand = deal.hands[seat]
    choice = rng.randrange(6)
    if choice == 0:
        return Play((), rng.choice(RANKS), rng.randint(0, 2))
    if choice == 1:
        cards = tuple(rng.sample(list(deal.game.deck), rng.randint(1, 3)))
        return Play(cards, rng.choice(RANKS + ("JK",)), rng.randint(0, 5))
    if choice == 2 and hand:
        cards = tuple(rng.sample(hand, rng.randint(1, len(hand))))
        return Play(cards, rng.choice(RANKS), rng.randint(1, 9))
    if choice == 3:
        return Quartets(tuple(rng.sample(RANKS, rng.randint(0, 2))))
    return rng.choice([CHALLENGE, BELIEVE, PASS])


@dataclass
class Recorder:
    """Drives a deal with random-legal play, rule breaking, open calls and forfeits,
    and records every step so the deal can be replayed."""

    rng: random.Random
    illegal_rate: float = 0.1
    forfeit_rate: float = 0.005
    open_call_rate: float = 0.1
    steps: list[tuple[str, int, Action | None]] = field(default_factory=list)

    def step(self, deal: Deal, policy: RandomLegal) -> None:
        rng = self.rng
        seat = deal.to_act
        assert seat is not None
        if rng.random() < self.forfeit_rate:
            victim = rng.choice([s for s in range(deal.players) if deal.active[s]])
            self.steps.append(("forfeit", victim, None))
            deal.forfeit(victim)
            return
        if deal.options.calls == "open" and rng.random() < self.open_call_rate:
            callers = [s for s in range(deal.players) if s != seat and deal.may_act(s, "challenge")]
            if callers:
                seat = rng.choice(callers)
                action: Action = rng.choice([CHALLENGE, BELIEVE])
                self.steps.append(("act", seat, action))
                deal.apply(seat, action)
                return
        if rng.random() < self.illegal_rate:
            action = rule_breaking_action(rng, deal, seat)
        else:
            action = policy.act(deal.observation(seat))
        self.steps.append(("act", seat, action))
        deal.apply(seat, action)


def replay(game: Game, deal: Deal, layout, steps) -> Deal:
    """A new deal from the same layout with the recorded steps applied."""
    hands, stock, hidden, dealer, seed = layout
    copy = Deal(game, hands, dealer=dealer, stock=stock, hidden=hidden, seed=seed)
    for kind, seat, action in steps:
        if kind == "forfeit":
            copy.forfeit(seat)
        else:
            copy.apply(seat, action)
    return copy


@contextmanager
def served(factory: Callable[[], Bot], max_matches: int | None = None) -> Iterator[str]:
    """A bot behind a real gRPC server on the loopback, in a thread of its own
    (``max_matches``: as ``serve --max-matches``)."""
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        server, port = await create_server(factory, max_matches=max_matches)
        state.update(port=port, loop=asyncio.get_running_loop(), stop=asyncio.Event())
        ready.set()
        await state["stop"].wait()
        await server.stop(None)

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    assert ready.wait(10), "the bot did not start"
    try:
        yield f"127.0.0.1:{state['port']}"
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(10)


def add_raw_play_handler(server: Any, play: Callable[..., Any]) -> None:
    """Serve ``play`` (an async generator of raw bytes) as PlayerService.Play on a
    ``grpc.aio`` server: a bot whose answers need not be messages at all."""
    import grpc

    from arena.v1 import player_pb2 as pb

    handler = grpc.stream_stream_rpc_method_handler(
        play, request_deserializer=pb.PlayRequest.FromString, response_serializer=lambda raw: raw
    )
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("arena.v1.PlayerService", {"Play": handler})]
    )


#: any action, as text and JSON can carry it (Hypothesis)
cards = st.lists(st.sampled_from(sorted(RANK_OF)), min_size=1, max_size=8).map(tuple)


plays = st.builds(Play, cards, st.sampled_from(RANKS), st.integers(1, 12))


actions = st.one_of(
    plays,
    st.just(CHALLENGE),
    st.just(BELIEVE),
    st.just(PASS),
    st.lists(st.sampled_from(RANKS), max_size=3, unique=True).map(lambda r: Quartets(tuple(r))),
)


def seeds(count: int, fast: int = 20) -> list:
    """Seeds ``0..count-1`` for a parametrized random-game test: the first ``fast`` run in
    ``make test-fast``, all of them (the rest marked slow) in ``make test``."""
    import pytest

    return [
        seed if seed < fast else pytest.param(seed, marks=pytest.mark.slow) for seed in range(count)
    ]


def simple_play(obs: Any) -> Any:
    """A plain legal answer for an SDK test bot: its quartets when asked, else one card
    under the first rank it may claim, else a challenge, a belief or a pass."""
    from arena.sdk import BELIEVE, CHALLENGE, PASS, Play, Quartets

    legal = obs.legal
    if legal.phase == "quartets":
        return Quartets(legal.quartets)
    if legal.play:
        return Play(obs.hand[:1], legal.play.ranks[0], 1)
    return CHALLENGE if legal.challenge else (BELIEVE if legal.believe else PASS)
