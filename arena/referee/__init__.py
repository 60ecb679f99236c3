"""The referee: plays matches between bots under deadlines and writes match logs.

Its names load on first use (PEP 562), so a module that needs only the match log
(``arena.referee.log``, read by the store) is imported without gRPC and the seats.
``replay`` is a module here: the function is ``arena.referee.replay.replay``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.referee.failures import FailureKind, SeatFailure, SeatTimeout
    from arena.referee.log import LOG_FORMAT
    from arena.referee.referee import Referee, RefereeSettings, play_match
    from arena.referee.replay import ReplayReport
    from arena.referee.seats import GrpcSeat, LocalSeat, Seat

#: each exported name, and the module it comes from
_EXPORTS = {
    **dict.fromkeys(["LOG_FORMAT", "Referee", "RefereeSettings", "play_match"], "referee"),
    "ReplayReport": "replay",  # the function: arena.referee.replay.replay
    **dict.fromkeys(["FailureKind", "SeatFailure", "SeatTimeout"], "failures"),
    **dict.fromkeys(["GrpcSeat", "LocalSeat", "Seat"], "seats"),
}

__all__ = [
    "LOG_FORMAT", "FailureKind", "GrpcSeat", "LocalSeat", "Referee", "RefereeSettings",
    "ReplayReport", "Seat", "SeatFailure", "SeatTimeout", "play_match",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"arena.referee.{module}"), name)
