"""Train a bot against the sample bots, with NumPy on the CPU.

    python examples/train_policy.py --minutes 6 --out examples/trained_bot/policy.npz

The policy is linear: a softmax over the 43 sub-decisions of ``arena.rl`` (docs/learning.md),
its logits ``W @ features(observation)``, masked to the legal ones. It learns in
``arena.rl.single_agent_env`` (one learning seat; a random seat and order each match)
against ``--opponents`` (default ``random honest``): first it imitates ``--imitate``
(default ``honest``: the learner's seat plays that bot's actions and the policy is pulled
towards them) for ``--imitate-minutes``, then REINFORCE: each decision's log-probability
is pushed up by how much better its match ended than a linear value of the same features
expected, and Adam steps the weights after each ``--batch`` of matches. Every ``--report``
seconds it prints its mean place over the last matches. ``examples/trained_bot/bot.py``
serves the saved policy.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from arena.rl import encoding, linear, single_agent_env


class Adam:
    def __init__(self, shape: tuple[int, ...], rate: float) -> None:
        self.rate, self.m, self.v, self.t = rate, np.zeros(shape), np.zeros(shape), 0

    def step(self, gradient: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * gradient
        self.v = 0.999 * self.v + 0.001 * gradient**2
        m, v = self.m / (1 - 0.9**self.t), self.v / (1 - 0.999**self.t)
        return self.rate * m / (np.sqrt(v) + 1e-8)


def play_match(env, weights: np.ndarray, rng: np.random.Generator, seed: int, teacher=None):
    """One match: its reward and every decision's (features, probabilities, action).
    With a ``teacher`` (a sample bot's name) the learner's seat plays the teacher's
    actions, made in sub-decisions, for the policy to imitate."""
    observation, _ = env.reset(seed=seed)
    coach = Coach(env, teacher, seed) if teacher else None
    steps, done, reward = [], False, 0.0
    while not done:
        x, mask = linear.features(observation["observation"]), observation["action_mask"]
        probabilities = linear.probabilities(weights, x, mask)
        if coach is not None:
            action = coach.next_step()
        else:
            action = int(rng.choice(len(probabilities), p=probabilities))
        steps.append((x, probabilities, action))
        observation, reward, done, _, _ = env.step(action)
    return reward, steps


class Coach:
    """A sample bot in the learner's seat: the sub-decisions of its actions, one by one."""

    def __init__(self, env, name: str, seed: int) -> None:
        from sample_bots import SAMPLES

        self.env, self.deal, self.cursor, self.queue = env, None, 0, []
        self.bot = SAMPLES[name](ruleset=env.ruleset, players=env.players, seed=seed)

    def next_step(self) -> int:
        if not self.queue:
            deal, seat = self.env.deal, self.env.seat
            if deal is not self.deal:  # a new deal: its events start again
                self.deal, self.cursor = deal, 0
            observation = deal.observation(seat, self.cursor)
            self.cursor = len(deal.events)
            self.queue = encoding.steps_for(self.bot.act(observation), observation.legal)
        return self.queue.pop(0)


def place(reward: float, players: int) -> float:
    """The place a reward stands for: reward = 1 - 2 (place - 1) / (players - 1)."""
    return 1 + (1 - reward) * (players - 1) / 2


def train(
    minutes: float,
    opponents: list[str],
    batch: int,
    rate: float,
    report: float,
    seed: int,
    teacher: str | None = None,
    imitate_minutes: float = 0.0,
):
    """Imitate ``teacher`` for ``imitate_minutes`` (if any), then learn from the matches'
    ends for the rest of ``minutes``."""
    env = single_agent_env(opponents=opponents)
    players = len(opponents) + 1
    size = env.observation_space["observation"].shape[0] + 1
    weights, value = np.zeros((encoding.ACTIONS, size)), np.zeros(size)
    adam, adam_value = Adam(weights.shape, rate), Adam(value.shape, rate)
    rng, recent, matches = np.random.default_rng(seed), [], 0
    began = last_report = time.monotonic()
    while (spent := time.monotonic() - began) < minutes * 60:
        imitating = teacher is not None and spent < imitate_minutes * 60
        gradient, value_gradient = np.zeros_like(weights), np.zeros_like(value)
        for _ in range(batch):
            match_seed = seed * 1_000_003 + matches
            reward, steps = play_match(
                env, weights, rng, match_seed, teacher if imitating else None
            )
            matches += 1
            recent.append(place(reward, players))
            for x, probabilities, action in steps:
                # imitating: towards the teacher's choice; else the decision's advantage,
                # the match's end against what a linear value of the features expected
                advantage = reward - value @ x
                value_gradient += advantage * x
                chosen = -probabilities
                chosen[action] += 1
                gradient += (1.0 if imitating else advantage) * np.outer(chosen, x)
        weights += adam.step(gradient / batch)
        value += adam_value.step(value_gradient / batch)
        if time.monotonic() - last_report >= report:
            last_report = time.monotonic()
            tail = recent[-500:]
            print(
                f"{(last_report - began) / 60:5.1f} min  {matches:6d} matches  "
                f"{'imitating ' + teacher if imitating else 'learning'}: mean place of "
                f"the last {len(tail)}: {np.mean(tail):.3f} (of {players})",
                flush=True,
            )
    return weights, matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--opponents", nargs="+", default=["random", "honest"])
    parser.add_argument("--batch", type=int, default=16, help="matches per step")
    parser.add_argument("--rate", type=float, default=0.01, help="Adam's step size")
    parser.add_argument("--report", type=float, default=30.0, help="seconds between lines")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--imitate", default="honest", help="a sample bot to imitate first")
    parser.add_argument(
        "--imitate-minutes", type=float, default=2.0, help="minutes of imitation (0: none)"
    )
    here = Path(__file__).parent
    parser.add_argument("--out", type=Path, default=here / "trained_bot" / "policy.npz")
    args = parser.parse_args()
    weights, matches = train(
        args.minutes,
        args.opponents,
        args.batch,
        args.rate,
        args.report,
        args.seed,
        args.imitate or None,
        args.imitate_minutes,
    )
    linear.save(args.out, weights)
    print(f"trained on {matches} matches; saved {args.out}")


if __name__ == "__main__":
    main()
