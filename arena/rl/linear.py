"""A linear policy over :mod:`arena.rl.encoding`'s vectors: what ``examples/`` trains
and what its bot serves (NumPy only).

The logits of the 43 sub-decisions are ``weights @ features(vector)``; the policy samples
from their softmax over the legal ones, while it learns and when it plays (a bluffer
that always does the same is easy to read).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena.engine import Action, Observation
from arena.engine.events import Dealt
from arena.rl import encoding


def features(vector: np.ndarray) -> np.ndarray:
    """What the weights multiply: the observation with its counts compressed, and a 1."""
    return np.append(np.log1p(vector), np.float32(1.0))


def probabilities(weights: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The softmax of the legal actions' logits (0 for the others)."""
    logits = np.where(mask.astype(bool), weights @ x, -np.inf)
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()


def load(path: Path) -> np.ndarray:
    with np.load(path) as saved:
        return saved["weights"]


def save(path: Path, weights: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, weights=weights.astype(np.float32))


class Player:
    """Plays a match from a bot's observations with ``weights``: it keeps the deal's
    events to build the same vector the environments give, and samples its choices
    (``seed``: replayable ones)."""

    def __init__(
        self, weights: np.ndarray, layout: encoding.Layout, seed: int | None = None
    ) -> None:
        self.weights, self.layout = weights, layout
        self.rng = np.random.default_rng(seed)
        self.events: list[object] = []

    def act(self, observation: Observation) -> Action:
        if any(isinstance(event, Dealt) for event in observation.events):
            self.events = []  # a new deal: its events start again
        self.events.extend(observation.events)
        turn = encoding.Turn()
        while True:
            vector = encoding.observe_view(observation, self.events, turn, self.layout)
            allowed = encoding.mask(observation.legal, observation.hand, turn)
            chances = probabilities(self.weights, features(vector), allowed)
            choice = int(self.rng.choice(len(chances), p=chances))
            decided = encoding.advance(observation.legal, observation.hand, turn, choice)
            if decided is not None:
                return decided
