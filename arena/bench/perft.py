"""python-chess's move generator as a yardstick for the engine (``arena bench engine
--chess``): perft from the starting position, timed in the same process as the engine.

Two chess figures: the perft nodes counted a second (the leaves of a depth-4 tree, those
of the last ply counted without being made: how python-chess's perft is usually quoted)
and the moves made a second (every move of a depth-3 tree generated, made and unmade:
what an engine decision is, legal actions generated and one applied).

Why the engine has no perft of its own to set beside the first: its legal plays are
described, not listed (arena/engine/legal.py), and there are very many of them.
:func:`concrete_plays` counts them: a bulk-counted last ply would count that many leaves
for one generation of the legal actions, a rate that measures the count, not the engine."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

import chess

from arena.engine.legal import PlaySpec

#: the standard tree sizes from the starting position (a check of the walk)
PERFT_4_LEAVES = 197_281
MOVES_MADE_3 = 20 + 400 + 8_902


def leaves_per_s(seconds: float) -> float:
    """Depth-4 perft nodes counted a second, over whole trees for about ``seconds``."""
    return _rate(_leaves, 4, PERFT_4_LEAVES, seconds)


def moves_per_s(seconds: float) -> float:
    """Moves generated, made and unmade a second (depth-3 trees)."""
    return _rate(_walk, 3, MOVES_MADE_3, seconds)


def _rate(tree: Callable[[chess.Board, int], int], depth: int, size: int, seconds: float) -> float:
    """Whole trees walked from the start for about ``seconds``: ``size`` a tree, a second."""
    board, counted = chess.Board(), 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        assert tree(board, depth) == size
        counted += size
    return counted / elapsed


def _leaves(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += _leaves(board, depth - 1)
        board.pop()
    return nodes


def _walk(board: chess.Board, depth: int) -> int:
    made = 0
    for move in board.legal_moves:
        board.push(move)
        made += 1 if depth == 1 else 1 + _walk(board, depth - 1)
        board.pop()
    return made


def concrete_plays(spec: PlaySpec, hand: Sequence[str]) -> int:
    """The distinct plays ``spec`` allows from ``hand``: each set of 1 to ``max_cards`` of
    its cards (copies of a card alike), times the ranks it may claim, times the counts it
    may claim (the cards placed when ``honest``, else 1 to ``max_count``)."""
    sizes = [1]  # sizes[k]: the distinct sets of k cards of the hand seen so far
    for copies in Counter(hand).values():
        sizes = [
            sum(sizes[k - taken] for taken in range(copies + 1) if 0 <= k - taken < len(sizes))
            for k in range(len(sizes) + copies)
        ]
    card_sets = sum(sizes[1 : spec.max_cards + 1])
    return card_sets * len(spec.ranks) * (1 if spec.honest else spec.max_count)
