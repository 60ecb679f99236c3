from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_LEAD: _ClassVar[Phase]
    PHASE_RESPOND: _ClassVar[Phase]
    PHASE_CONTINUE: _ClassVar[Phase]
    PHASE_QUARTETS: _ClassVar[Phase]
    PHASE_FINAL_CALL: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]
PHASE_UNSPECIFIED: Phase
PHASE_LEAD: Phase
PHASE_RESPOND: Phase
PHASE_CONTINUE: Phase
PHASE_QUARTETS: Phase
PHASE_FINAL_CALL: Phase
PHASE_OVER: Phase

class PlayRequest(_message.Message):
    __slots__ = ("start", "decide", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: MatchStart
    decide: DecisionRequest
    end: MatchEnd
    def __init__(self, start: _Optional[_Union[MatchStart, _Mapping]] = ..., decide: _Optional[_Union[DecisionRequest, _Mapping]] = ..., end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("hello", "decision")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    decision: Decision
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("protocol_version", "match_id", "seat", "players", "rules", "deadline_seconds", "time_bank_seconds", "deals")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    match_id: str
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    rules: Ruleset
    deadline_seconds: float
    time_bank_seconds: float
    deals: int
    def __init__(self, protocol_version: _Optional[int] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., rules: _Optional[_Union[Ruleset, _Mapping]] = ..., deadline_seconds: _Optional[float] = ..., time_bank_seconds: _Optional[float] = ..., deals: _Optional[int] = ...) -> None: ...

class Ruleset(_message.Message):
    __slots__ = ("preset", "options_json", "effective_options_json")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    preset: str
    options_json: str
    effective_options_json: str
    def __init__(self, preset: _Optional[str] = ..., options_json: _Optional[str] = ..., effective_options_json: _Optional[str] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol_version", "name", "version", "want_log", "max_matches")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    WANT_LOG_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    name: str
    version: str
    want_log: bool
    max_matches: int
    def __init__(self, protocol_version: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., want_log: _Optional[bool] = ..., max_matches: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "deal", "turn", "phase", "seat", "hand", "hand_sizes", "stock_size", "pile_size", "discard_size", "round_rank", "live", "legal", "events", "active", "exits", "time_left_seconds")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROUND_RANK_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    EXITS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    deal: int
    turn: int
    phase: Phase
    seat: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stock_size: int
    pile_size: int
    discard_size: int
    round_rank: str
    live: LiveGroup
    legal: Legal
    events: _containers.RepeatedCompositeFieldContainer[Event]
    active: _containers.RepeatedScalarFieldContainer[bool]
    exits: _containers.RepeatedScalarFieldContainer[int]
    time_left_seconds: float
    def __init__(self, request_id: _Optional[int] = ..., deal: _Optional[int] = ..., turn: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., seat: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stock_size: _Optional[int] = ..., pile_size: _Optional[int] = ..., discard_size: _Optional[int] = ..., round_rank: _Optional[str] = ..., live: _Optional[_Union[LiveGroup, _Mapping]] = ..., legal: _Optional[_Union[Legal, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., active: _Optional[_Iterable[bool]] = ..., exits: _Optional[_Iterable[int]] = ..., time_left_seconds: _Optional[float] = ...) -> None: ...

class LiveGroup(_message.Message):
    __slots__ = ("author", "placed", "rank", "count", "opening")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    author: int
    placed: int
    rank: str
    count: int
    opening: bool
    def __init__(self, author: _Optional[int] = ..., placed: _Optional[int] = ..., rank: _Optional[str] = ..., count: _Optional[int] = ..., opening: _Optional[bool] = ...) -> None: ...

class Legal(_message.Message):
    __slots__ = ("play", "ranks", "max_cards", "honest", "max_count", "challenge", "believe", "quartets_phase", "quartets")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    MAX_CARDS_FIELD_NUMBER: _ClassVar[int]
    HONEST_FIELD_NUMBER: _ClassVar[int]
    MAX_COUNT_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    BELIEVE_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    QUARTETS_PHASE_FIELD_NUMBER: _ClassVar[int]
    QUARTETS_FIELD_NUMBER: _ClassVar[int]
    play: bool
    ranks: _containers.RepeatedScalarFieldContainer[str]
    max_cards: int
    honest: bool
    max_count: int
    challenge: bool
    believe: bool
    quartets_phase: bool
    quartets: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, play: _Optional[bool] = ..., ranks: _Optional[_Iterable[str]] = ..., max_cards: _Optional[int] = ..., honest: _Optional[bool] = ..., max_count: _Optional[int] = ..., challenge: _Optional[bool] = ..., believe: _Optional[bool] = ..., quartets_phase: _Optional[bool] = ..., quartets: _Optional[_Iterable[str]] = ..., **kwargs) -> None: ...

class Decision(_message.Message):
    __slots__ = ("request_id", "play", "challenge", "believe", "quartets")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    BELIEVE_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    QUARTETS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    play: PlayCards
    challenge: Challenge
    believe: Believe
    quartets: DiscardQuartets
    def __init__(self, request_id: _Optional[int] = ..., play: _Optional[_Union[PlayCards, _Mapping]] = ..., challenge: _Optional[_Union[Challenge, _Mapping]] = ..., believe: _Optional[_Union[Believe, _Mapping]] = ..., quartets: _Optional[_Union[DiscardQuartets, _Mapping]] = ..., **kwargs) -> None: ...

class PlayCards(_message.Message):
    __slots__ = ("cards", "rank", "count")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    rank: str
    count: int
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., rank: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class Challenge(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Believe(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Pass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DiscardQuartets(_message.Message):
    __slots__ = ("ranks",)
    RANKS_FIELD_NUMBER: _ClassVar[int]
    ranks: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ranks: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("ranking", "forfeit_reason", "log_json")
    RANKING_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_REASON_FIELD_NUMBER: _ClassVar[int]
    LOG_JSON_FIELD_NUMBER: _ClassVar[int]
    ranking: _containers.RepeatedCompositeFieldContainer[Place]
    forfeit_reason: str
    log_json: str
    def __init__(self, ranking: _Optional[_Iterable[_Union[Place, _Mapping]]] = ..., forfeit_reason: _Optional[str] = ..., log_json: _Optional[str] = ...) -> None: ...

class Place(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("dealt", "drew", "played", "called", "revealed", "picked_up", "discarded", "passed", "left", "illegal", "forfeited", "deal_over")
    DEALT_FIELD_NUMBER: _ClassVar[int]
    DREW_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    CALLED_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    PICKED_UP_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    DEAL_OVER_FIELD_NUMBER: _ClassVar[int]
    dealt: Dealt
    drew: Drew
    played: Played
    called: Called
    revealed: Revealed
    picked_up: PickedUp
    discarded: Discarded
    passed: Passed
    left: Left
    illegal: Illegal
    forfeited: Forfeited
    deal_over: DealOver
    def __init__(self, dealt: _Optional[_Union[Dealt, _Mapping]] = ..., drew: _Optional[_Union[Drew, _Mapping]] = ..., played: _Optional[_Union[Played, _Mapping]] = ..., called: _Optional[_Union[Called, _Mapping]] = ..., revealed: _Optional[_Union[Revealed, _Mapping]] = ..., picked_up: _Optional[_Union[PickedUp, _Mapping]] = ..., discarded: _Optional[_Union[Discarded, _Mapping]] = ..., passed: _Optional[_Union[Passed, _Mapping]] = ..., left: _Optional[_Union[Left, _Mapping]] = ..., illegal: _Optional[_Union[Illegal, _Mapping]] = ..., forfeited: _Optional[_Union[Forfeited, _Mapping]] = ..., deal_over: _Optional[_Union[DealOver, _Mapping]] = ...) -> None: ...

class Dealt(_message.Message):
    __slots__ = ("dealer", "hand_sizes", "stock", "hidden")
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCK_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    dealer: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stock: int
    hidden: bool
    def __init__(self, dealer: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stock: _Optional[int] = ..., hidden: _Optional[bool] = ...) -> None: ...

class Drew(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class Played(_message.Message):
    __slots__ = ("seat", "placed", "rank", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    placed: int
    rank: str
    count: int
    def __init__(self, seat: _Optional[int] = ..., placed: _Optional[int] = ..., rank: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class Called(_message.Message):
    __slots__ = ("seat", "call", "author")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    call: str
    author: int
    def __init__(self, seat: _Optional[int] = ..., call: _Optional[str] = ..., author: _Optional[int] = ...) -> None: ...

class Revealed(_message.Message):
    __slots__ = ("author", "cards", "truthful")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TRUTHFUL_FIELD_NUMBER: _ClassVar[int]
    author: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    truthful: bool
    def __init__(self, author: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., truthful: _Optional[bool] = ...) -> None: ...

class PickedUp(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class Discarded(_message.Message):
    __slots__ = ("seat", "reason", "cards", "unseen")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    unseen: int
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., unseen: _Optional[int] = ...) -> None: ...

class Passed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class Left(_message.Message):
    __slots__ = ("seat", "place")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    place: int
    def __init__(self, seat: _Optional[int] = ..., place: _Optional[int] = ...) -> None: ...

class Illegal(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class Forfeited(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class DealOver(_message.Message):
    __slots__ = ("ranking", "reason")
    RANKING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ranking: _containers.RepeatedCompositeFieldContainer[Place]
    reason: str
    def __init__(self, ranking: _Optional[_Iterable[_Union[Place, _Mapping]]] = ..., reason: _Optional[str] = ...) -> None: ...
