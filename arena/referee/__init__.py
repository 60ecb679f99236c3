"""The referee: plays matches between bots under deadlines and writes match logs."""

from arena.referee.referee import LOG_FORMAT, Referee, RefereeSettings, play_match
from arena.referee.replay import ReplayReport, replay
from arena.referee.seats import FailureKind, GrpcSeat, LocalSeat, Seat, SeatFailure, SeatTimeout

__all__ = [
    "LOG_FORMAT", "FailureKind", "GrpcSeat", "LocalSeat", "Referee", "RefereeSettings",
    "ReplayReport", "Seat", "SeatFailure", "SeatTimeout", "play_match", "replay",
]  # fmt: skip
