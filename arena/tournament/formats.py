"""The formats played in rounds, by name: each is one module (its pairing and its
standings) registered here."""

from __future__ import annotations

from arena.tournament.knockout import Knockout
from arena.tournament.rounds import RoundFormat
from arena.tournament.swiss import Swiss

ROUND_FORMATS: dict[str, RoundFormat] = {f.name: f for f in (Swiss(), Knockout())}
