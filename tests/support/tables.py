"""Playing a person's seat through the table API: a random legal action from what the
API says is legal, and a whole table played so."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient


def random_action(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One of the actions ``state["legal"]`` allows, drawn at random."""
    choice = rng.choice(state["legal"])
    hand = state["observation"]["hand"]
    if choice["do"] == "play":
        placed = rng.sample(hand, rng.randint(1, min(choice["max_cards"], len(hand))))
        count = len(placed) if choice["honest"] else rng.randint(1, choice["max_count"])
        return {"do": "play", "cards": placed, "rank": rng.choice(choice["ranks"]), "count": count}
    if choice["do"] == "quartets":
        return {"do": "quartets", "ranks": [r for r in choice["ranks"] if rng.random() < 0.5]}
    return {"do": choice["do"]}


def play_table(
    client: TestClient, table_id: str, rng: random.Random, headers: dict[str, str] | None = None
) -> tuple[dict[str, Any], int]:
    """Play the person's seat with random legal actions to the end: the final state and
    the actions played."""
    actions = 0
    state = client.get(f"/api/v1/tables/{table_id}?wait=30").json()
    while state["status"] not in ("done", "abandoned"):
        if state["status"] == "your_turn":
            answer = client.post(
                f"/api/v1/tables/{table_id}/act", json={"action": random_action(state, rng)}
            )
            assert answer.status_code == 200, answer.text
            state = answer.json()
            assert state["refused"] is None, state["refused"]
            actions += 1
        else:
            state = client.get(f"/api/v1/tables/{table_id}?wait=30").json()
    return state, actions
