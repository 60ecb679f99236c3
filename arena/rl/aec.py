"""A PettingZoo AEC environment of one match on ``arena.engine`` (docs/learning.md).

The agents are ``player_0`` .. ``player_{N-1}`` (seats). The agent selected is the
seat the engine asks to act, as the referee asks it (open calls out of turn are never
asked for); it makes its decision in the sub-decisions of :mod:`arena.rl.encoding`,
so it may be selected several times in a row. Observations are
``{"observation": float32 vector, "action_mask": int8 vector}`` as in PettingZoo's
classic games; every reward is 0 until the match ends, then each agent gets
``1 - 2 (place - 1) / (N - 1)``: +1 for the first place, -1 for the last.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from arena.engine import Game, Ruleset
from arena.engine.match import Match, places
from arena.rl import encoding
from arena.rl.render import table_text

RENDER_MODES = ("human", "ansi")


def aec_env(
    rules: str | Ruleset = "classic",
    options: Mapping[str, Any] | None = None,
    players: int = 4,
    render_mode: str | None = None,
) -> AECEnv:
    """The environment with the checks PettingZoo wraps its classic card games in: an
    illegal action ends the match for all (-1 to its author), out-of-range actions and
    calls out of order raise (:class:`checked_env`: the checks of PettingZoo's
    ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper``, done in the environment itself)."""
    return checked_env(rules, options, players, render_mode)


def pettingzoo_wrapped(
    rules: str | Ruleset = "classic",
    options: Mapping[str, Any] | None = None,
    players: int = 4,
    render_mode: str | None = None,
) -> AECEnv:
    """The raw environment in PettingZoo's own three wrappers: what :func:`aec_env`
    behaves as (tests compare the two), at a third of its speed."""
    env: AECEnv = raw_env(rules, options, players, render_mode)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def ruleset_of(rules: str | Ruleset, options: Mapping[str, Any] | None) -> Ruleset:
    """A preset name with option overrides (docs/rules.md), or a ruleset as it is."""
    if isinstance(rules, Ruleset):
        return Ruleset.parse(rules.preset, {**rules.overrides(), **(options or {})})
    return Ruleset.parse(rules, options or {})


def place_rewards(match: Match) -> list[float]:
    """Each seat's reward from its place in the match (shared places share a number)."""
    n = match.game.players
    reward = [0.0] * n
    for place, group in places(match.ranking()):
        for seat in group:
            reward[seat] = 1.0 - 2.0 * (place - 1) / (n - 1)
    return reward


class raw_env(AECEnv, EzPickle):
    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "arena_verish_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | Ruleset = "classic",
        options: Mapping[str, Any] | None = None,
        players: int = 4,
        render_mode: str | None = None,
    ) -> None:
        EzPickle.__init__(self, rules, options, players, render_mode)
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {RENDER_MODES}")
        self.ruleset = ruleset_of(rules, options)
        self.game = Game(self.ruleset, players)
        self.layout = encoding.Layout.of(self.game)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        high = float(max(len(self.game.deck), self.game.options.deals, encoding.MAX_COUNT))
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (self.layout.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (encoding.ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {
            agent: spaces.Discrete(encoding.ACTIONS) for agent in self.possible_agents
        }
        self._rng = random.Random()
        self._match: Match | None = None

    @property
    def match(self) -> Match:
        """The match in play (``reset`` starts one)."""
        assert self._match is not None, "reset() the environment first"
        return self._match

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self._match = Match(self.game, seed=self._rng.getrandbits(64))
        self.deal = self.match.next_deal()
        self.turn = encoding.Turn()
        self._decided: tuple[Any, Any] | None = None
        #: each seat's state vector (encoding.state_vector) while the engine state holds
        self._state_vectors: dict[int, np.ndarray] = {}
        self._history = encoding.History()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False  # some reward is not 0 (the match ended)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._selected()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        to_act = seat == self.deal.to_act and agent == self.agent_selection
        base = self._state_vectors.get(seat)
        if base is None:
            base = encoding.state_vector(self.deal, seat, self.layout, self._history)
            self._state_vectors[seat] = base
        vector = base.copy()
        encoding.add_turn(vector, self.layout, self.deal.phase, self.turn if to_act else None)
        allowed = encoding.mask(*self._decision(), self.turn) if to_act else _NOTHING
        return {"observation": vector, "action_mask": allowed}

    def _decision(self) -> tuple[Any, Any]:
        """The legal actions and hand of the seat to act, once per engine state."""
        if self._decided is None:
            self._decided = encoding.decision(self.deal)
        return self._decided

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # rewards are all 0 until the match ends: nothing to clear
            self._clear_rewards()
            self._rewarded = False
        assert action is not None  # a live agent's action (None is for dead agents)
        decided = encoding.advance(*self._decision(), self.turn, int(action))
        if decided is not None:
            self.deal.apply(self._seats[agent], decided)
            self._decided = None
            self._state_vectors = {}
            self.turn = encoding.Turn()
            if self.deal.over:
                self._next_deal()
        if self._rewarded:  # the match ended at this step
            self._accumulate_rewards()
        self.agent_selection = self._selected()
        if self.render_mode == "human":
            self.render()

    def _next_deal(self) -> None:
        self.match.record(self.deal)
        if not self.match.over:
            self.deal = self.match.next_deal()  # History starts again at a new deal
            return
        for agent, reward in zip(self.agents, place_rewards(self.match), strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = True
        self._rewarded = True

    def _selected(self) -> str:
        if self.deal.to_act is None or all(self.terminations.values()):
            return self.agent_selection if self.agents else self.possible_agents[0]
        return self.possible_agents[self.deal.to_act]

    def action_mask(self) -> np.ndarray:
        """The legal actions of the selected agent now."""
        return encoding.mask(*self._decision(), self.turn)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = table_text(self.deal, self.match.losses, self.turn)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


_NOTHING = np.zeros(encoding.ACTIONS, dtype=np.int8)
_NOTHING.flags.writeable = False


class checked_env(raw_env):
    """:class:`raw_env` with PettingZoo's three checks built in, as its wrappers make them
    (the same errors, warnings, rewards and terminations): nothing before ``reset``; an
    action outside the action space raises; an action the mask forbids ends the match
    for every agent, -1 to its author. The wrappers cost two thirds of the rate (each
    layer forwards every attribute and observes again); here each check is a comparison
    on what a step computes anyway."""

    _has_reset = False
    _ended_illegally = False
    #: the mask the selected agent last observed (what its action is checked against)
    _observed_mask: np.ndarray | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._ended_illegally = False
        self._observed_mask = None
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        observation = super().observe(agent)
        if agent == self.agent_selection:
            self._observed_mask = observation["action_mask"]
        return observation

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        dead = self.terminations[agent] or self.truncations[agent]
        if not (action is None and dead) and not _in_space(action):
            raise AssertionError("action is not in action space")
        mask, self._observed_mask = self._observed_mask, None
        if dead:
            self._was_dead_step(action)
            return
        assert action is not None
        if mask is None:
            mask = self.action_mask()
        if not mask[action]:
            self._end_illegally(agent)
            return
        super().step(action)

    def _end_illegally(self, agent: str) -> None:
        """What ``TerminateIllegalWrapper`` does: every agent done, -1 to the author."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.truncations, 0.0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()
        self._ended_illegally = True

    def render(self) -> str | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()


def _in_space(action: Any) -> bool:
    """Whether ``action`` is in the Discrete action space, as ``Discrete.contains`` says:
    an int or a NumPy integer scalar from 0 to ``ACTIONS - 1``."""
    scalar = isinstance(action, np.ndarray) and action.shape == ()
    if isinstance(action, int | np.integer) or (scalar and np.issubdtype(action.dtype, np.integer)):
        return bool(0 <= action < encoding.ACTIONS)
    return False
