"""Train a bot for the field it will meet, with NumPy on the CPU.

    python examples/train_policy.py --minutes 12 --out my_bot

The policy is linear: a softmax over the 43 sub-decisions of ``arena.rl``
(docs/learning.md), its logits ``W @ features(observation)``, masked to the legal ones.
It plays at tables of 4 in ``arena.rl.single_agent_env`` (one learning seat, a random
seat each match) against three bots drawn each match from ``--field`` (default counter,
honest, truthful and random: the samples a competition seats, and the README's first
bot, ``examples/truthful.py``). First it imitates ``--imitate`` (default truthful: the
learner's seat plays that bot's actions, made in sub-decisions, and the policy is pulled
towards them) for ``--imitate-minutes``; then REINFORCE: each decision's log-probability
is pushed up by how much better its match ended than a linear value of the same
features expected, and Adam steps the weights after each ``--batch`` of matches.

Every ``--report`` seconds of CPU it plays ``--eval`` matches against counter, honest
and truthful (the field a new bot meets, without the easy random) and prints the curve:
CPU minutes, matches trained on, the mean place while training and the evaluation's
mean place (of 4). It keeps the weights that evaluated best and writes them, with the
bot that serves them, to ``--out`` (a new folder: never the committed example).

With ``--matches N`` the budget is counted in matches instead of CPU time (imitation for
``--imitate-matches``, a line every ``--report-matches``): the same seed then gives the
same run, and the same weights, on any machine however loaded.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.engine import Ruleset
from arena.rl import encoding, linear, single_agent_env

HERE = Path(__file__).parent
#: the committed example: training never overwrites it
COMMITTED = HERE / "trained_bot"
FIELD = ("counter", "honest", "truthful", "random")
EVALUATED = ("counter", "honest", "truthful")


def truthful_bot() -> Any:
    """The README's first bot (examples/truthful.py), as an in-process policy."""
    spec = importlib.util.spec_from_file_location("truthful_example", HERE / "truthful.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Truthful()


def opponent(name: str) -> Any:
    """A sample bot's name as the environment takes it, or the README's truthful bot."""
    return truthful_bot() if name == "truthful" else name


def bot_factory(name: str) -> Callable[[Ruleset, int, int], Any]:
    """Makes the bot ``name`` for a match (a teacher's actions come from it)."""
    if name == "truthful":
        return lambda ruleset, players, seed: truthful_bot()
    from sample_bots import SAMPLES

    return lambda ruleset, players, seed: SAMPLES[name](ruleset=ruleset, players=players, seed=seed)


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
    With a ``teacher`` (a bot factory) the learner's seat plays the teacher's actions,
    made in sub-decisions, for the policy to imitate."""
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
    """A bot in the learner's seat: the sub-decisions of its actions, one by one."""

    def __init__(self, env, make: Callable[[Ruleset, int, int], Any], seed: int) -> None:
        self.env, self.deal, self.cursor, self.queue = env, None, 0, []
        self.bot = make(env.ruleset, env.players, seed)

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


def evaluate(weights: np.ndarray, matches: int, seed: int) -> float:
    """The policy's mean place in ``matches`` against counter, honest and truthful."""
    env = single_agent_env(opponents=[opponent(name) for name in EVALUATED])
    rng = np.random.default_rng(seed)
    places = [
        place(play_match(env, weights, rng, seed * 7_919 + index)[0], 4) for index in range(matches)
    ]
    return float(np.mean(places))


@dataclass(frozen=True)
class Budget:
    """How long training runs, imitates and waits between reports: in CPU seconds, or
    in matches (``in_matches``), which makes a run the same on any machine."""

    total: float
    imitate: float
    report: float
    in_matches: bool = False

    @classmethod
    def of(cls, args: argparse.Namespace) -> Budget:
        if args.matches:
            imitate = args.imitate_matches
            report = args.report_matches
            return cls(
                total=args.matches,
                imitate=args.matches // 6 if imitate is None else imitate,
                report=max(1, args.matches // 10) if report is None else report,
                in_matches=True,
            )
        return cls(args.minutes * 60, args.imitate_minutes * 60, args.report)

    def spent(self, began: float, matches: int) -> float:
        """The budget used so far, since CPU time ``began``, after ``matches``."""
        return matches if self.in_matches else time.process_time() - began


def train(args: argparse.Namespace) -> tuple[np.ndarray, float, int]:
    """Imitate, then learn from the matches' ends; the weights that evaluated best
    (the last ones are evaluated too), their mean place, and the matches trained on."""
    tables = [
        single_agent_env(opponents=[opponent(name) for name in drawn])
        for drawn in itertools.combinations(args.field, 3)
    ]
    teacher = bot_factory(args.imitate) if args.imitate else None
    size = tables[0].observation_space["observation"].shape[0] + 1
    weights, value = np.zeros((encoding.ACTIONS, size)), np.zeros(size)
    adam, adam_value = Adam(weights.shape, args.rate), Adam(value.shape, args.rate)
    rng, recent, matches = np.random.default_rng(args.seed), [], 0
    best, best_place = weights.copy(), float("inf")
    budget, began = Budget.of(args), time.process_time()
    last_report, reported_at = 0.0, -1

    def report(imitating: bool) -> None:
        nonlocal best, best_place, reported_at
        scored = evaluate(weights, args.eval, seed=matches)
        if scored < best_place:
            best, best_place = weights.copy(), scored
        reported_at = matches
        print(
            f"{(time.process_time() - began) / 60:7.1f}  {matches:7d}  "
            f"{'imitating' if imitating else 'learning':9}  {np.mean(recent[-500:]):8.3f}  "
            f"{scored:9.3f}",
            flush=True,
        )

    print("cpu min  matches  phase      training  evaluated (mean place of 4)", flush=True)
    imitating = teacher is not None
    while (spent := budget.spent(began, matches)) < budget.total:
        imitating = teacher is not None and spent < budget.imitate
        gradient, value_gradient = np.zeros_like(weights), np.zeros_like(value)
        for _ in range(args.batch):
            env = tables[int(rng.integers(len(tables)))]
            match_seed = args.seed * 1_000_003 + matches
            reward, steps = play_match(
                env, weights, rng, match_seed, teacher if imitating else None
            )
            matches += 1
            recent.append(place(reward, 4))
            for x, probabilities, action in steps:
                # imitating: towards the teacher's choice; else the decision's advantage,
                # the match's end against what a linear value of the features expected
                advantage = reward - value @ x
                value_gradient += advantage * x
                chosen = -probabilities
                chosen[action] += 1
                gradient += (1.0 if imitating else advantage) * np.outer(chosen, x)
        weights += adam.step(gradient / args.batch)
        value += adam_value.step(value_gradient / args.batch)
        if budget.spent(began, matches) - last_report >= budget.report:
            report(imitating)
            last_report = budget.spent(began, matches)
    if reported_at != matches:
        report(imitating)
    return best, best_place, matches


def write_bot(folder: Path, weights: np.ndarray) -> Path:
    """The bot (examples/trained_bot/bot.py) and its weights, in a new folder."""
    if folder.resolve() == COMMITTED.resolve():
        raise SystemExit(
            f"{folder} holds the committed example: write the new bot elsewhere (--out DIR)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(COMMITTED / "bot.py", folder / "bot.py")
    linear.save(folder / "policy.npz", weights)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=12.0, help="CPU minutes in all")
    parser.add_argument("--field", nargs="+", default=list(FIELD), help="at least 3 bots")
    parser.add_argument("--batch", type=int, default=32, help="matches per step")
    parser.add_argument("--rate", type=float, default=0.003, help="Adam's step size")
    parser.add_argument("--report", type=float, default=60.0, help="CPU seconds between lines")
    parser.add_argument("--eval", type=int, default=400, help="matches per evaluation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--imitate", default="truthful", help="a bot to imitate first")
    parser.add_argument(
        "--imitate-minutes", type=float, default=2.0, help="CPU minutes of imitation (0: none)"
    )
    parser.add_argument("--out", type=Path, default=Path("trained_bot"), help="a new folder")
    parser.add_argument(
        "--matches", type=int, help="train on this many matches instead of --minutes"
    )
    parser.add_argument(
        "--imitate-matches", type=int, help="with --matches: matches of imitation (a sixth)"
    )
    parser.add_argument(
        "--report-matches", type=int, help="with --matches: matches between lines (a tenth)"
    )
    args = parser.parse_args()
    if args.matches is not None and args.matches < 1:
        parser.error("--matches must be at least 1")
    if len(args.field) < 3:
        parser.error("the field needs at least 3 bots: tables of 4")
    if Path(args.out).resolve() == COMMITTED.resolve():
        parser.error(f"{args.out} holds the committed example: write the new bot elsewhere")
    weights, scored, matches = train(args)
    folder = write_bot(args.out, weights)
    print(
        f"trained on {matches} matches; the best evaluation: mean place {scored:.3f} of 4 "
        f"against {', '.join(EVALUATED)}; saved {folder / 'policy.npz'} beside its bot.py "
        f"(arena play {folder / 'bot.py'} sample:counter sample:honest "
        f"{HERE / 'truthful.py'} --games 500)"
    )


if __name__ == "__main__":
    sys.exit(main())
