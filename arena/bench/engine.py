"""Engine throughput: 4-player ``classic`` deals between in-process random-legal policies.

A decision is one engine step plus the legal-action generation and the
observation that precede it (and the policy's choice). Each repeat plays whole
deals for about ``seconds``; the figures are the medians over the repeats.

With ``chess``, two yardsticks more: python-chess's perft (arena.bench.perft), and the
engine's own "moves made": the decisions of recorded deals made again, each its legal
actions generated and the action applied, without observation or policy (what
python-chess's moves made are: moves generated, made and unmade).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

from arena import native
from arena.engine import Game, Ruleset
from arena.engine.actions import Action
from arena.engine.deal import Deal
from arena.game.selfplay import play_deal
from arena.policies import RandomLegal


def run(
    seconds: float = 2.0,
    repeats: int = 5,
    players: int = 4,
    rules: str = "classic",
    progress: Callable[[int], None] | None = None,
    chess: bool = False,
) -> dict[str, float | int | str]:
    """``chess``: python-chess's perft timed too, alternating with the engine's repeats
    (arena.bench.perft), and the engine's rate over each of its figures."""
    game = Game(Ruleset.parse(rules), players)
    policies = [RandomLegal(seat) for seat in range(players)]
    decision_rates, deal_rates = [], []
    leaves: list[float] = []
    moves: list[float] = []
    made: list[float] = []
    recorded = record(game, range(RECORDED_DEALS)) if chess else []
    seed = 0
    for repeat in range(repeats):
        if chess:
            from arena.bench import perft

            leaves.append(perft.leaves_per_s(seconds))
            moves.append(perft.moves_per_s(seconds))
            made.append(made_per_s(game, recorded, seconds))
        decisions = deals = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            decisions += play_seeded(game, policies, seed)
            deals += 1
            seed += 1
        decision_rates.append(decisions / elapsed)
        deal_rates.append(deals / elapsed)
        if progress is not None:
            progress(repeat + 1)
    figures: dict[str, float | int | str] = {
        "decisions_per_s": round(statistics.median(decision_rates)),
        "deals_per_s": round(statistics.median(deal_rates), 1),
        "decisions_per_deal": round(sum(decision_rates) / sum(deal_rates), 1),
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        "players": players,
        "rules": rules,
        "engine": "compiled" if native.compiled() else "python",
    }
    if chess:
        rate = statistics.median(decision_rates)
        figures["chess_perft_nodes_per_s"] = round(statistics.median(leaves))
        figures["chess_moves_made_per_s"] = round(statistics.median(moves))
        figures["over_chess_perft"] = round(rate / statistics.median(leaves), 2)
        figures["over_chess_moves_made"] = round(rate / statistics.median(moves), 2)
        made_rate = statistics.median(made)
        figures["engine_moves_made_per_s"] = round(made_rate)
        figures["made_over_chess_moves_made"] = round(made_rate / statistics.median(moves), 2)
        figures["made_over_chess_perft"] = round(made_rate / statistics.median(leaves), 2)
        figures["first_lead_plays"] = first_lead_plays(game)
    return figures


def first_lead_plays(game: Game) -> int:
    """The distinct plays open to the first seat to lead in deal 0: the leaves a perft of
    depth 1 would count there (arena.bench.perft.concrete_plays)."""
    from arena.bench.perft import concrete_plays

    deal = new_deal(game, 0)
    legal = deal.legal()
    assert legal is not None and legal.play is not None, "a deal starts with a lead"
    return concrete_plays(legal.play, deal.hands[legal.seat])


#: the deals recorded for the engine's moves made (each made again in turn)
RECORDED_DEALS = 200


class Recorded(NamedTuple):
    """A deal's seed and the seats and actions of its decisions, in order."""

    seed: int
    decisions: list[tuple[int, Action]]


def record(game: Game, seeds: Iterable[int]) -> list[Recorded]:
    """Play deals ``seeds`` between random-legal policies of their own and keep each
    decision's seat and action."""
    policies = [RandomLegal(f"recorded {seat}") for seat in range(game.players)]
    recorded = []
    for seed in seeds:
        deal = new_deal(game, seed)
        decisions = []
        while (seat := deal.to_act) is not None:
            action = policies[seat].act(deal.observation(seat))
            decisions.append((seat, action))
            deal.apply(seat, action)
        recorded.append(Recorded(seed, decisions))
    return recorded


def made_per_s(game: Game, recorded: list[Recorded], seconds: float) -> float:
    """The recorded decisions made again for about ``seconds``, a second: for each, the
    seat's legal actions generated and its action applied (the deal shuffled and dealt
    outside the timing, as a chess walk starts from a board set up)."""
    made = 0
    spent = 0.0
    while spent < seconds:
        for seed, decisions in recorded:
            deal = new_deal(game, seed)
            legal, apply = deal.legal, deal.apply
            start = time.perf_counter()
            for seat, action in decisions:
                legal(seat)
                apply(seat, action)
            spent += time.perf_counter() - start
            made += len(decisions)
    return made / spent


def play_seeded(game: Game, policies: list[RandomLegal], seed: int) -> int:
    """Shuffle, deal and play deal ``seed``; return its decisions."""
    return play_deal(new_deal(game, seed), policies)


def new_deal(game: Game, seed: int) -> Deal:
    """Deal ``seed``, shuffled and dealt (the dealer turns with the seed)."""
    dealer = seed % game.players
    hands, stock, hidden = game.shuffled_layout(seed, dealer)
    return Deal(game, hands, dealer=dealer, stock=stock, hidden=hidden, seed=seed)
