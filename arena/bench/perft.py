"""python-chess's move generator as a yardstick for the engine (``arena bench engine
--chess``): perft from the starting position, timed in the same process as the engine.

Two chess figures: the perft nodes counted a second (the leaves of a depth-4 tree, those
of the last ply counted without being made: how python-chess's perft is usually quoted)
and the moves made a second (every move of a depth-3 tree generated, made and unmade:
what an engine decision is, legal actions generated and one applied)."""

from __future__ import annotations

import time

import chess

#: the standard tree sizes from the starting position (a check of the walk)
PERFT_4_LEAVES = 197_281
MOVES_MADE_3 = 20 + 400 + 8_902


def leaves_per_s(seconds: float) -> float:
    """Depth-4 perft nodes counted a second, over whole trees for about ``seconds``."""
    board, nodes = chess.Board(), 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        counted = _leaves(board, 4)
        assert counted == PERFT_4_LEAVES
        nodes += counted
    return nodes / elapsed


def moves_per_s(seconds: float) -> float:
    """Moves generated, made and unmade a second (depth-3 trees)."""
    board, made = chess.Board(), 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        walked = _walk(board, 3)
        assert walked == MOVES_MADE_3
        made += walked
    return made / elapsed


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
