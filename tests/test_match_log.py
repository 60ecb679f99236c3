"""The typed match log (arena.referee.log) reads every log and view the referee writes
and gives back the same JSON."""

from __future__ import annotations

import json
import random

import pytest

from arena.engine import Play
from arena.referee import LocalSeat, play_match
from arena.referee.log import FaceDownPlay, LogFormatError, MatchLog, StepKind
from arena.referee.replay import replay
from arena.referee.views import public_view, seat_view
from sample_bots import SAMPLES
from tests.support.engine import random_game


def _as_json(data: dict) -> dict:
    return json.loads(json.dumps(data))


def _random_log(seed: int) -> MatchLog:
    rng = random.Random(seed)
    game = random_game(rng)
    names = [rng.choice(sorted(SAMPLES)) for _ in range(game.players)]
    seats = [
        LocalSeat(SAMPLES[name](ruleset=game.ruleset, players=game.players, seed=i), name)
        for i, name in enumerate(names)
    ]
    return play_match(game.ruleset, seats, seed=f"log-{seed}")


@pytest.mark.parametrize("seed", range(12))
def test_every_log_and_view_reads_and_writes_back_unchanged(seed: int) -> None:
    log = _random_log(seed)
    for made in (log, public_view(log), seat_view(log, 0)):
        data = _as_json(made.to_dict())
        typed = MatchLog.from_dict(data)
        assert typed.to_dict() == data
        assert json.dumps(typed.to_dict()) == json.dumps(made.to_dict()), "key order kept"
    typed = MatchLog.from_dict(_as_json(log.to_dict()))
    assert not typed.is_view and typed.names == [seat.name for seat in log.seats]
    assert typed == log, "what the referee built and what is read back are one value"
    assert replay(typed).ok and replay(log).ok


def test_a_view_keeps_other_seats_plays_face_down() -> None:
    log = _random_log(3)
    view = MatchLog.from_dict(_as_json(seat_view(log, 0).to_dict()))
    acts = [s for d in view.deals for s in d.steps if s.kind is StepKind.ACT]
    assert view.is_view and view.seed is None
    assert all(d.hands[0] is not None and all(h is None for h in d.hands[1:]) for d in view.deals)
    mine = [s.action for s in acts if s.seat == 0 and s.action.kind == "play"]
    theirs = [s.action for s in acts if s.seat != 0 and s.action.kind == "play"]
    assert mine and all(isinstance(action, Play) for action in mine)
    assert theirs and all(isinstance(action, FaceDownPlay) for action in theirs)
    with pytest.raises(ValueError, match="keeps its cards secret"):
        replay(seat_view(log, 0))


@pytest.mark.parametrize(
    "data",
    [{}, {"format": "arena.match-log/0"}, {"format": None}, []],
    ids=["empty", "older format", "no format", "not an object"],
)
def test_what_is_not_a_log_is_refused_by_name(data: object) -> None:
    with pytest.raises(LogFormatError, match="not an Arena match log"):
        MatchLog.from_dict(data)  # type: ignore[arg-type]
