"""The table as text, for ``render_mode="ansi"`` (and ``"human"``, which prints it).

It shows what a spectator of the deal would see once the deal is settled: every
hand, so it is for training and debugging, never for an agent's observation.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Deal
from arena.rl.encoding import Turn


def table_text(deal: Deal, losses: Sequence[int], turn: Turn | None = None) -> str:
    """Phase, round rank, pile and stock, the live group, and each seat's hand."""
    lines = [
        f"phase {deal.phase.value}, turn {deal.turns}, round rank {deal.round_rank or '-'}, "
        f"pile {deal.pile_count}, stock {len(deal.stock)}, out {len(deal.discard)}"
    ]
    if deal.live:
        group = deal.pile[-1]
        lines.append(f"live: seat {group.author} claims {group.count} x {group.rank}")
    for seat, hand in enumerate(deal.hands):
        mark = ">" if seat == deal.to_act else " "
        state = "" if deal.active[seat] else " (out)"
        cards = " ".join(sorted(hand)) or "-"
        lines.append(f"{mark} seat {seat}{state}, losses {losses[seat]}: {cards}")
    if turn is not None and (turn.cards or turn.claim or turn.quartets):
        lines.append(
            f"  deciding: cards {' '.join(turn.cards) or '-'}, claim {turn.claim or '-'}, "
            f"fours {' '.join(turn.quartets) or '-'}"
        )
    if deal.over:
        lines.append(f"over: {[list(group) for group in deal.ranking or ()]}")
    return "\n".join(lines)
