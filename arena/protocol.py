"""The player protocol's messages <-> the engine's types (used by the referee and the SDK).

The proto's event messages mirror the engine's event NamedTuples field by field,
so events convert generically by field name.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from functools import lru_cache
from operator import attrgetter
from typing import Any

from arena.engine import (
    Action,
    LegalActions,
    LiveGroup,
    Observation,
    Phase,
    Play,
    PlaySpec,
    Quartets,
    Ruleset,
)
from arena.engine.actions import BARE_ACTIONS
from arena.engine.events import EVENT_TYPES, Event
from arena.v1 import player_pb2 as pb

PROTOCOL_VERSION = 1
#: Largest message either side accepts; a bigger one is a protocol violation.
MAX_MESSAGE_BYTES = 64 * 1024
#: how the SDK words a bot's exception in ``act`` (the status details it ends its stream
#: with, code INTERNAL); the referee then says "its act raised ..."
RAISED_IN_ACT = "act raised "

_PHASES = {phase: pb.Phase.Value(f"PHASE_{phase.name}") for phase in Phase}
_PHASE_NAMES = {number: phase for phase, number in _PHASES.items()}


class ProtocolError(ValueError):
    """A message that does not follow the protocol."""


# ------------------------------------------------------------------ rulesets and rankings


def ruleset_to_proto(ruleset: Ruleset) -> pb.Ruleset:
    overrides, effective = _ruleset_json(ruleset)
    return pb.Ruleset(
        preset=ruleset.preset, options_json=overrides, effective_options_json=effective
    )


@functools.lru_cache(maxsize=64)
def _ruleset_json(ruleset: Ruleset) -> tuple[str, str]:
    """The overrides and every option in effect, as JSON: once per ruleset, not once per
    seat of every match."""
    return json.dumps(ruleset.overrides()), json.dumps(ruleset.effective())


def ruleset_from_proto(message: pb.Ruleset) -> Ruleset:
    return Ruleset.parse(message.preset, json.loads(message.options_json or "{}"))


def ranking_to_proto(ranking: tuple[tuple[int, ...], ...]) -> list[pb.Place]:
    return [pb.Place(seats=group) for group in ranking]


def ranking_from_proto(places: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(place.seats) for place in places)


# ------------------------------------------------------------------ events


#: The proto message of each event kind (the proto mirrors the engine's NamedTuples).
_EVENT_MESSAGES = {kind: getattr(pb, cls.__name__) for kind, cls in EVENT_TYPES.items()}
_SCALAR, _REPEATED, _OPTIONAL, _RANKING = range(4)


def _field_readers(kind: str, cls: type[Event]) -> tuple[tuple[str, int], ...]:
    descriptor = _EVENT_MESSAGES[kind].DESCRIPTOR
    readers = []
    for name in cls._fields:
        field = descriptor.fields_by_name[name]
        if name == "ranking":
            readers.append((name, _RANKING))
        elif field.is_repeated:
            readers.append((name, _REPEATED))
        elif field.has_presence:
            readers.append((name, _OPTIONAL))
        else:
            readers.append((name, _SCALAR))
    return tuple(readers)


#: per event kind: the engine class and how to read each of its fields, computed once
_EVENT_READERS = {kind: (cls, _field_readers(kind, cls)) for kind, cls in EVENT_TYPES.items()}


def event_to_proto(event: Event) -> pb.Event:
    message = pb.Event()
    body = getattr(message, event.kind)
    body.SetInParent()
    for (name, how), value in zip(_EVENT_READERS[event.kind][1], event, strict=True):
        if how == _SCALAR:
            setattr(body, name, value)
        elif how == _REPEATED:
            getattr(body, name).extend(value)
        elif how == _OPTIONAL:
            if value is not None:
                setattr(body, name, value)
        else:
            body.ranking.extend(ranking_to_proto(value))  # type: ignore[arg-type]  # a ranking
    return message


@lru_cache(maxsize=4096, typed=True)  # typed: events of different kinds may be equal tuples
def _shared_event_message(event: Event) -> pb.Event:
    """An event's message, built once: a public event goes to every seat (``extend``
    copies it, so the cached message is never changed)."""
    return event_to_proto(event)


def _event_reader(cls: type[Event], readers: tuple[tuple[str, int], ...]) -> Callable[[Any], Event]:
    """A function that reads one kind of event message: its fields fetched in one C call,
    then only the repeated, optional and nested ones fixed up (bots parse every event)."""
    fetch = _fields_getter([name for name, _ in readers])
    fixes = [(index, name, how) for index, (name, how) in enumerate(readers) if how != _SCALAR]
    if not fixes:
        return lambda body: cls._make(fetch(body))

    def read(body: Any) -> Event:
        values = list(fetch(body))
        for index, name, how in fixes:
            if how == _REPEATED:
                values[index] = tuple(values[index])
            elif how == _OPTIONAL:
                values[index] = values[index] if body.HasField(name) else None
            else:
                values[index] = ranking_from_proto(values[index])
        return cls._make(values)

    return read


def _fields_getter(names: list[str]) -> Callable[[Any], tuple]:
    """The named fields of a message, as a tuple (attrgetter of one name gives no tuple)."""
    getter = attrgetter(*names)
    if len(names) > 1:
        return getter
    return lambda body: (getter(body),)


_EVENT_PARSERS = {kind: _event_reader(*reader) for kind, reader in _EVENT_READERS.items()}


def event_from_proto(message: pb.Event) -> Event:
    kind = message.WhichOneof("kind")
    if kind is None:
        raise ProtocolError("an event with no kind")
    return _EVENT_PARSERS[kind](getattr(message, kind))


# ------------------------------------------------------------------ observations


def request_from_observation(
    observation: Observation, request_id: int, deal: int, time_left: float
) -> pb.DecisionRequest:
    """The DecisionRequest that tells a remote seat what ``observation`` holds."""
    message = pb.DecisionRequest(
        request_id=request_id,
        deal=deal,
        turn=observation.turn,
        phase=_PHASES[observation.phase],
        seat=observation.seat,
        hand=observation.hand,
        hand_sizes=observation.hand_sizes,
        stock_size=observation.stock_size,
        pile_size=observation.pile_size,
        discard_size=observation.discard_size,
        round_rank=observation.round_rank or "",
        active=observation.active,
        exits=observation.exits,
        time_left_seconds=time_left,
    )
    if observation.live is not None:
        message.live.CopyFrom(pb.LiveGroup(**observation.live._asdict()))
    legal = observation.legal
    if legal is not None:
        target = message.legal
        target.SetInParent()
        if legal.play is not None:
            spec = legal.play
            target.play = True
            target.ranks.extend(spec.ranks)
            target.max_cards = spec.max_cards
            target.honest = spec.honest
            target.max_count = spec.max_count
        target.challenge = legal.challenge
        target.believe = legal.believe
        setattr(target, "pass", legal.can_pass)
        target.quartets_phase = legal.phase == "quartets"
        target.quartets.extend(legal.quartets)
    message.events.extend(_shared_event_message(event) for event in observation.events)
    return message


def observation_from_request(message: pb.DecisionRequest) -> Observation:
    """The engine Observation a DecisionRequest describes (what the SDK hands a bot)."""
    phase = _PHASE_NAMES.get(message.phase)
    if phase is None:
        raise ProtocolError(f"unknown phase {message.phase}")
    live = None
    if message.HasField("live"):
        group = message.live
        live = LiveGroup(group.author, group.placed, group.rank, group.count, group.opening)
    legal = None
    if message.HasField("legal"):
        source = message.legal
        play = None
        if source.play:
            play = PlaySpec(tuple(source.ranks), source.max_cards, source.honest, source.max_count)
        legal = LegalActions(
            message.seat,
            phase,
            play,
            source.challenge,
            source.believe,
            getattr(source, "pass"),
            tuple(source.quartets),
        )
    return Observation(
        seat=message.seat,
        phase=phase,
        to_act=message.seat if legal is not None else None,
        turn=message.turn,
        hand=tuple(message.hand),
        hand_sizes=tuple(message.hand_sizes),
        stock_size=message.stock_size,
        pile_size=message.pile_size,
        discard_size=message.discard_size,
        round_rank=message.round_rank or None,
        live=live,
        legal=legal,
        events=tuple(event_from_proto(event) for event in message.events),
        active=tuple(message.active),
        exits=tuple(message.exits),
    )


# ------------------------------------------------------------------ actions


def decision_from_action(action: Action, request_id: int) -> pb.Decision:
    message = pb.Decision(request_id=request_id)
    if isinstance(action, Play):
        message.play.cards.extend(action.cards)
        message.play.rank = action.rank
        message.play.count = action.count
    elif isinstance(action, Quartets):
        message.quartets.SetInParent()
        message.quartets.ranks.extend(action.ranks)
    else:
        getattr(message, action.kind).SetInParent()
    return message


def action_from_decision(message: pb.Decision) -> Action:
    """The engine action a Decision carries; :class:`ProtocolError` when it carries none."""
    kind = message.WhichOneof("action")
    if kind is None:
        raise ProtocolError("a decision with no action")
    if kind == "play":
        play = message.play
        return Play.of(tuple(play.cards), play.rank, play.count if play.HasField("count") else None)
    if kind == "quartets":
        return Quartets(tuple(message.quartets.ranks))
    return BARE_ACTIONS[kind]
