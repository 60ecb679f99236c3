"""A Gymnasium environment for the common case: one learning seat, the others played
by chosen opponents (docs/learning.md).

An opponent is a sample bot's name (``"random"``, ``"honest"``, ``"counter"``,
``"bluffer"``: a fresh one each match), any :class:`arena.policies.Policy` (an object
with ``act(observation) -> Action``), or a frozen agent: a callable taking this
environment's observation (``{"observation", "action_mask"}``) and returning one of
its actions, as a trained policy does (self-play). Observations, actions and rewards
are those of :mod:`arena.rl.aec`; the reward comes once, at the end of the match. An
action the mask forbids ends the match with ``ILLEGAL_REWARD``, as PettingZoo's
``TerminateIllegalWrapper`` does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from arena.engine import Action, Game, Ruleset
from arena.engine.match import Match
from arena.policies import Policy
from arena.rl import encoding
from arena.rl.aec import RENDER_MODES, place_rewards, ruleset_of
from arena.rl.render import table_text

#: the reward of an illegal action, which ends the match (the last place's reward)
ILLEGAL_REWARD = -1.0
#: a frozen agent: this environment's observation in, one of its actions out
Agent = Callable[[dict[str, np.ndarray]], int]
Opponent = Union[str, Policy, Agent]  # noqa: UP007 - a runtime alias


def single_agent_env(
    opponents: Sequence[Opponent] = ("random", "random", "random"),
    rules: str | Ruleset = "classic",
    options: Mapping[str, Any] | None = None,
    seat: int | None = None,
    render_mode: str | None = None,
) -> SingleAgentEnv:
    """One learning seat against ``opponents`` (one per other seat, so a match has
    ``len(opponents) + 1`` players); ``seat``: the learner's, the opponents then in
    the order given after it (None: a random seat and a random order each match)."""
    return SingleAgentEnv(opponents, rules, options, seat, render_mode)


class SingleAgentEnv(gym.Env):
    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(
        self,
        opponents: Sequence[Opponent],
        rules: str | Ruleset = "classic",
        options: Mapping[str, Any] | None = None,
        seat: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        if not opponents:
            raise ValueError("at least one opponent")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {RENDER_MODES}")
        self.opponents = list(opponents)
        self.players = len(self.opponents) + 1
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat {seat}: expected 0 to {self.players - 1}")
        self.ruleset = ruleset_of(rules, options)
        self.game = Game(self.ruleset, self.players)
        self.layout = encoding.Layout.of(self.game)
        self.fixed_seat, self.render_mode = seat, render_mode
        high = float(max(len(self.game.deck), self.game.options.deals, encoding.MAX_COUNT))
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (encoding.ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(encoding.ACTIONS)
        self._rng = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self.seat = (
            self._rng.randrange(self.players) if self.fixed_seat is None else self.fixed_seat
        )
        self.match = Match(self.game, seed=self._rng.getrandbits(64))
        self.deal = self.match.next_deal()
        self.turns = {seat: encoding.Turn() for seat in range(self.players)}
        self.cursors = [0] * self.players
        self.policies = self._seat_opponents()
        self.ended = False  # by an illegal action of the learner's
        self._play_others()
        return self._observation(), {"seat": self.seat}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.match.over or self.ended:
            raise RuntimeError("the match is over: call reset()")
        if not self.action_masks()[int(action)]:  # as PettingZoo's TerminateIllegalWrapper
            self.ended = True
            return self._observation(), ILLEGAL_REWARD, True, False, {"illegal": int(action)}
        decided = encoding.advance(
            *encoding.decision(self.deal), self.turns[self.seat], int(action)
        )
        if decided is not None:
            self._apply(self.seat, decided)
        self._play_others()
        over = self.match.over
        reward = place_rewards(self.match)[self.seat] if over else 0.0
        info: dict[str, Any] = {"seat": self.seat, "ranking": self.match.ranking()} if over else {}
        return self._observation(), reward, over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (the name MaskablePPO looks for)."""
        if self.match.over or self.deal.to_act != self.seat:
            return np.zeros(encoding.ACTIONS, dtype=np.int8)
        return encoding.mask(*encoding.decision(self.deal), self.turns[self.seat])

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = table_text(self.deal, self.match.losses, self.turns[self.seat])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # ------------------------------------------------------------------ the others

    def _seat_opponents(self) -> dict[int, Policy | Agent]:
        """The opponents by seat, a fresh sample bot for each name."""
        from sample_bots import SAMPLES

        others = [seat for seat in range(self.players) if seat != self.seat]
        order = list(self.opponents)
        if self.fixed_seat is None:  # every order of the table, in the long run
            self._rng.shuffle(order)
        seated: dict[int, Policy | Agent] = {}
        for seat, opponent in zip(others, order, strict=True):
            if isinstance(opponent, str):
                if opponent not in SAMPLES:
                    raise ValueError(f"no sample bot {opponent!r}: expected one of {list(SAMPLES)}")
                seated[seat] = SAMPLES[opponent](
                    ruleset=self.ruleset, players=self.players, seed=self._rng.getrandbits(32)
                )
            else:
                seated[seat] = opponent
        return seated

    def _play_others(self) -> None:
        """Let the opponents act until the learner must, or the match is over."""
        while not self.match.over and self.deal.to_act != self.seat:
            seat = self.deal.to_act
            assert seat is not None
            self._apply(seat, self._ask(seat))

    def _ask(self, seat: int) -> Action:
        opponent = self.policies[seat]
        if hasattr(opponent, "act"):
            observation = self.deal.observation(seat, self.cursors[seat])
            self.cursors[seat] = len(self.deal.events)
            return opponent.act(observation)
        turn = self.turns[seat]
        while True:  # a frozen agent decides in sub-decisions, as the learner does
            seen = {
                "observation": encoding.observe(self.deal, seat, turn, self.layout),
                "action_mask": encoding.mask(*encoding.decision(self.deal), turn),
            }
            choice = int(opponent(seen))
            if not 0 <= choice < encoding.ACTIONS or not seen["action_mask"][choice]:
                raise ValueError(f"the opponent at seat {seat} chose action {choice}: not legal")
            decided = encoding.advance(*encoding.decision(self.deal), turn, choice)
            if decided is not None:
                return decided

    def _apply(self, seat: int, action: Action) -> None:
        self.deal.apply(seat, action)
        self.turns[seat] = encoding.Turn()
        if self.deal.over:
            self.match.record(self.deal)
            if not self.match.over:
                self.deal = self.match.next_deal()
                self.cursors = [0] * self.players

    def _observation(self) -> dict[str, np.ndarray]:
        turn = self.turns[self.seat] if self.deal.to_act == self.seat else None
        return {
            "observation": encoding.observe(self.deal, self.seat, turn, self.layout),
            "action_mask": self.action_masks(),
        }
