"""Engine throughput: 4-player ``classic`` deals between in-process random-legal policies.

A decision is one engine step plus the legal-action generation and the
observation that precede it (and the policy's choice). Each repeat plays whole
deals for about ``seconds``; the figures are the medians over the repeats.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from arena import native
from arena.engine import Game, Ruleset
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
    seed = 0
    for repeat in range(repeats):
        if chess:
            from arena.bench import perft

            leaves.append(perft.leaves_per_s(seconds))
            moves.append(perft.moves_per_s(seconds))
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
    return figures


def play_seeded(game: Game, policies: list[RandomLegal], seed: int) -> int:
    """Shuffle, deal and play deal ``seed`` (the dealer turns with it); return its
    decisions."""
    dealer = seed % game.players
    hands, stock, hidden = game.shuffled_layout(seed, dealer)
    deal = Deal(game, hands, dealer=dealer, stock=stock, hidden=hidden, seed=seed)
    return play_deal(deal, policies)
