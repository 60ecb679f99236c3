"""Rating systems side by side for ``arena bench ranking``: the ratings of record
(TrueSkill, the default, and OpenSkill: arena.tournament.ratings) and Elo-MMR, behind one
protocol.

A system makes a :class:`RatedField`: the players it rates, each match's ranking fed in
turn (groups of players sharing a place, best first), and each player's rating and
leaderboard score read back (``mu - 3 sigma``: :func:`ratings.conservative` for every
system). TrueSkill and OpenSkill keep a ``(mu, sigma)`` per player; Elo-MMR keeps each
player's history of performances (its Rust rater holds it). ``arena bench ranking``
compares them on the same matches.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol

from arena.tournament import ratings

Player = Hashable
#: a match's result: groups of players sharing a place, best first
Ranking = Sequence[Sequence[Player]]


class RatedField(Protocol):
    """The ratings of a field of players under one system."""

    def record(self, ranking: Ranking) -> None:
        """Rate one match (every player in ``ranking`` is in the field)."""

    def rating(self, player: Player) -> tuple[float, float]:
        """``(mu, sigma)`` on the system's own scale."""


class FieldSystem(Protocol):
    """A rating system as the benchmark drives it: a field of players rated in turn."""

    name: str

    def field(self, players: Iterable[Player]) -> RatedField:
        """A field of ``players``, each at the system's starting rating."""


def score(field: RatedField, player: Player) -> float:
    """The leaderboard key of ``player`` in ``field``: its conservative rating."""
    return ratings.conservative(*field.rating(player))


class _RecordField:
    """A field rated by a rating of record, exactly as the platform records matches."""

    def __init__(self, system: ratings.RatingSystem, players: Iterable[Player]) -> None:
        self._system = system
        self._ratings = {player: system.start() for player in players}

    def record(self, ranking: Ranking) -> None:
        # in the field's order, as the platform rates seats in seat order (TrueSkill's
        # update of tied players depends a little on their order)
        playing = {player for group in ranking for player in group}
        seated = [player for player in self._ratings if player in playing]
        index = {player: seat for seat, player in enumerate(seated)}
        rated = self._system.rate(
            [self._ratings[player] for player in seated],
            [[index[player] for player in group] for group in ranking],
        )
        self._ratings.update(zip(seated, rated, strict=True))

    def rating(self, player: Player) -> tuple[float, float]:
        return self._ratings[player]


class OfRecord:
    """A rating of record (arena.tournament.ratings) in the benchmark: the same figures."""

    def __init__(self, system: ratings.RatingSystem) -> None:
        self.system = system
        self.name = system.name

    def field(self, players: Iterable[Player]) -> RatedField:
        return _RecordField(self.system, players)


class _EloMmrField:
    def __init__(self, players: Iterable[Player]) -> None:
        import elo_mmr_py

        self._module = elo_mmr_py
        self._rater = elo_mmr_py.Rater("mmr")
        self._names = {player: str(number) for number, player in enumerate(players)}
        self._start = (self._rater.mu_noob, self._rater.sig_noob)
        self._matches = 0

    def record(self, ranking: Ranking) -> None:
        standings = []
        low = 0
        for group in ranking:
            high = low + len(group) - 1  # a tie spans the places its players share
            standings += [(self._names[player], low, high) for player in group]
            low = high + 1
        self._matches += 1  # one second apart: no rating drift between matches
        self._rater.add(self._module.Contest(standings, time_seconds=self._matches))

    def rating(self, player: Player) -> tuple[float, float]:
        rated = self._rater.ratings.get(self._names[player])
        return self._start if rated is None else (rated.mu, rated.sig)


class EloMmr:
    """Elo-MMR (Ebtekar & Liu), exact ``mmr`` mode (``elo-mmr-py``; mu 1500, sigma 350)."""

    name = "elo-mmr"

    def field(self, players: Iterable[Player]) -> RatedField:
        return _EloMmrField(players)


#: every rating system the benchmark compares, by name: the ratings of record, and Elo-MMR
SYSTEMS: dict[str, FieldSystem] = {
    **{name: OfRecord(system) for name, system in ratings.SYSTEMS.items()},
    EloMmr.name: EloMmr(),
}


def named(names: Iterable[str]) -> list[FieldSystem]:
    """The systems called ``names``; ValueError names the unknown ones."""
    names = list(names)
    unknown = [name for name in names if name not in SYSTEMS]
    if unknown:
        known = ", ".join(SYSTEMS)
        raise ValueError(f"unknown rating system {', '.join(unknown)} (known: {known})")
    return [SYSTEMS[name] for name in names]
