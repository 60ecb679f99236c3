"""Engine fingerprints: many random deals, each played by a chaotic driver and written out
in full, kept as one short hash a deal (tests/golden/fingerprints.json).

A transcript holds every observation the seat to act receives, every seat's legal
actions, every action (legal, rule-breaking, late, out-of-turn calls, forfeits) and the
deal's end state, so any change in what the engine does or shows changes a hash. It is the
differential test of a faster engine against the engine as it was recorded.

    python -m tests.support.fingerprints write   # after an intended change; review the diff
    python -m tests.support.fingerprints show N  # the transcript of case N
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.engine import Deal
from arena.engine.events import event_to_dict
from arena.policies import RandomLegal
from tests.support.engine import Recorder, random_deal, random_game

CASES = 1500
CHUNK = 50
KEPT = Path(__file__).parents[1] / "golden" / "fingerprints.json"
LATE_RATE = 0.02


def transcript(case: int) -> Iterator[str]:
    """The lines of case ``case``: its rules, then one line a step, then the end state."""
    rng = random.Random(f"fingerprint/{case}")
    game = random_game(rng)
    deal = random_deal(rng, game)
    yield json.dumps({"players": game.players, "rules": game.ruleset.to_dict()}, sort_keys=True)
    recorder = Recorder(rng, illegal_rate=0.15, forfeit_rate=0.01)
    policy = RandomLegal(case)
    cursors = [0] * game.players
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        yield _line("legal", [_legal(deal.legal(s)) for s in range(game.players)])
        yield _line("observation", _observation(deal, seat, cursors[seat]))
        cursors[seat] = len(deal.events)
        if rng.random() < LATE_RATE:
            deal.time_out(seat)
            yield _line("late", seat)
            continue
        before = len(recorder.steps)
        recorder.step(deal, policy)
        for kind, actor, action in recorder.steps[before:]:
            yield _line(kind, [actor, None if action is None else str(action)])
    yield _line("end", _end_state(deal))


def fingerprint(case: int) -> str:
    digest = hashlib.sha256()
    for line in transcript(case):
        digest.update(line.encode())
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def _line(kind: str, value: Any) -> str:
    return json.dumps([kind, value], sort_keys=True, default=str)


def _legal(legal: Any) -> Any:
    if legal is None:
        return None
    play = legal.play
    return {
        "seat": legal.seat,
        "phase": str(legal.phase),
        "play": None
        if play is None
        else [list(play.ranks), play.max_cards, play.honest, play.max_count],
        "challenge": legal.challenge,
        "believe": legal.believe,
        "pass": legal.can_pass,
        "quartets": list(legal.quartets),
        "kinds": list(legal.kinds),
    }


def _observation(deal: Deal, seat: int, since: int) -> dict[str, Any]:
    seen = deal.observation(seat, since)
    live = seen.live
    return {
        "seat": seen.seat,
        "phase": str(seen.phase),
        "to_act": seen.to_act,
        "turn": seen.turn,
        "hand": list(seen.hand),
        "hand_sizes": list(seen.hand_sizes),
        "stock_size": seen.stock_size,
        "pile_size": seen.pile_size,
        "discard_size": seen.discard_size,
        "round_rank": seen.round_rank,
        "live": None
        if live is None
        else [live.author, live.placed, live.rank, live.count, live.opening],
        "legal": _legal(seen.legal),
        "events": [event_to_dict(event) for event in seen.events],
        "active": list(seen.active),
        "exits": list(seen.exits),
    }


def _end_state(deal: Deal) -> dict[str, Any]:
    return {
        "ranking": deal.ranking,
        "reason": str(deal.end_reason),
        "turns": deal.turns,
        "hands": deal.hands,
        "discard": deal.discard,
        "stock": deal.stock,
        "pile": deal.pile_cards(),
        "exits": deal.exits,
        "forfeits": deal.forfeits,
        "events": len(deal.events),
    }


def kept() -> dict[str, str]:
    return json.loads(KEPT.read_text())


def write() -> None:
    table = {str(case): fingerprint(case) for case in range(CASES)}
    KEPT.write_text(json.dumps(table, indent=0) + "\n")
    print(f"wrote {len(table)} fingerprints to {KEPT}")


if __name__ == "__main__":
    command = sys.argv[1:2]
    if command == ["write"]:
        write()
    elif command == ["show"] and len(sys.argv) == 3:
        print("\n".join(transcript(int(sys.argv[2]))))
    else:
        sys.exit(__doc__)


#: AEC episodes fingerprinted (tests/test_rl.py): rules, players, seed
EPISODES = (
    ("classic", {}, 4, 0),
    ("classic", {"calls": "open", "pass": True}, 3, 1),
    ("pagat", {}, 4, 2),
    ("russian", {"jokers": 2}, 5, 3),
    ("classic", {"count": "honest", "hand_size": 5, "final_call": True}, 6, 4),
    ("pagat", {"quartets": "always", "believe": "table"}, 3, 5),
)


def episode_fingerprint(rules: str, options: dict[str, Any], players: int, seed: int) -> str:
    """Every observation vector and action mask of one AEC episode played by random
    legal sub-decisions, as one hash (the encoding's differential test)."""
    import numpy as np

    from arena.rl import raw_env

    env = raw_env(rules, options, players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    digest = hashlib.sha256()
    for agent in env.agent_iter(max_iter=3000):
        observation, reward, terminated, truncated, _ = env.last()
        for other in env.agents:  # every seat's view, not only the one to act
            seen = env.observe(other)
            digest.update(seen["observation"].tobytes() + seen["action_mask"].tobytes())
        digest.update(f"{agent} {reward} {terminated} {truncated}".encode())
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
    return digest.hexdigest()[:16]
