"""API schemas: what the API accepts (``*Create``) and returns (``*Public``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field

from arena.base.names import NAME
from arena.engine import Ruleset
from arena.services.abtests import AbTestRequest
from arena.services.scrimmages import ScrimmageRequest
from arena.services.tournaments import Progress, TournamentRequest
from arena.tournament import formats
from arena.tournament.pacing import DEFAULT_PACE, MAX_PACE
from arena.tournament.ratings import DEFAULT as DEFAULT_RATING
from arena.tournament.ratings import SYSTEMS as RATING_SYSTEMS

#: the error answers a route documents (FastAPI's ``responses``)
Responses = dict[int | str, dict[str, Any]]


#: letters, digits, ".", "_" and "-" (names go in URL paths and in comma lists)
def _creatable_format(name: str) -> str:
    """A format a tournament may be created as (arena.tournament.formats)."""
    if name not in formats.creatable():
        raise ValueError(f"unknown format {name!r}: expected {' or '.join(formats.creatable())}")
    return name


Name = Field(min_length=1, max_length=100, pattern=f"^{NAME.pattern}$")


#: the longest Python source a version may carry, in characters
MAX_SOURCE_CHARS = 256 * 1024
#: an archive's base64 text: 5 MiB packed
MAX_ARCHIVE_CHARS = (5 * 1024 * 1024 * 4) // 3 + 4


#: where a version stands: the one that plays, qualified and waiting for its owner, live
#: once and replaced since, being qualified, or refused
VersionState = Literal["live", "staged", "earlier", "pending", "rejected", "disqualified"]


class VersionPublic(BaseModel):
    number: int
    kind: str
    target: str
    #: the live version (the one competitions seat)
    active: bool
    status: str
    state: VersionState = "live"
    #: when it last went live (None: never)
    live_since: str | None = None
    #: the A/B test that makes it live if it is better (``--promote-if-better``)
    gate: str | None = None
    #: that A/B test's state: ``created`` or ``running`` (deciding), then its verdict
    #: (``accepted``: it went live; ``rejected``; ``stopped``)
    gate_status: str | None = None
    reason: str | None
    #: a rejection in full (the bot's output, its traceback): for its owner only
    detail: str | None = None
    #: an upload's language (a name of arena.sdk.languages.LANGUAGES; None: not an upload)
    language: str | None = None
    #: what its build printed (the compiler's messages): for its owner only
    build_log: str | None = None
    #: the match that qualified or rejected it (GET /matches/{id}); None before it played
    qualification_match: int | None = None
    #: an endpoint's own limit of matches at once, set by its owner (None: not set)
    max_matches: int | None = None
    #: the limit its Hello announced (None: none heard); with neither, 32
    announced_matches: int | None = None
    created_at: str
    #: the operator's reason for disqualifying it: for its team only
    disqualified_reason: str | None = None


class BotPublic(BaseModel):
    name: str
    versions: list[VersionPublic]
    #: the team whose members manage it (None: the operator's)
    team: str | None = None
    #: the operator disqualified it (every version, and no new one)
    disqualified: bool = False
    #: why: for its team only
    disqualified_reason: str | None = None
    #: its owner lets people play it at tables (/play)
    people_may_play: bool = True
    #: its owner lets other owners choose it as a scrimmage's rival
    scrimmage_rival: bool = True


class Consent(BaseModel):
    """What a bot's owner allows (a field left out is unchanged)."""

    people: bool | None = None
    scrimmages: bool | None = None


class VersionCreate(BaseModel):
    """A running bot (``endpoint``: HOST:PORT), a sample bot (``sample``: its name), an
    uploaded Python bot (``python``: the source of a file defining one Bot subclass), or
    a bot's folder in any language (``archive``: a base64 ``.tar.gz`` or ``.zip``)."""

    kind: Literal["endpoint", "sample", "python", "archive"]
    target: str = Field(default="", max_length=500)
    source: str = Field(default="", max_length=MAX_SOURCE_CHARS)
    archive: str = Field(default="", max_length=MAX_ARCHIVE_CHARS)
    #: the competition the bot enters (default: the default competition)
    competition: str | None = Field(default=None, max_length=100)
    #: endpoints: the most matches it serves at once, over every worker (None: no limit)
    max_matches: int | None = Field(default=None, ge=1, le=10_000)
    #: once it qualifies: go ``live``, wait (``stage``) for a promotion, or ``gate``: an
    #: A/B test against the live version makes it live if it is better
    after: Literal["live", "stage", "gate"] = "live"


class Promotion(BaseModel):
    """The version to make live: a number, or ``latest`` (the newest qualified)."""

    version: int | Literal["latest"]


class LiveVersion(BaseModel):
    """The version that plays now, and the competitions that seat it."""

    bot: str
    version: int
    live_since: str | None
    competitions: list[str]


SubmissionStatus = Literal["pending", "ready", "rejected"]


class SubmissionPublic(BaseModel):
    """A submitted version: queued (``pending``) until a worker plays its qualification
    match; then ``ready`` or ``rejected`` with the reason (GET /bots/{name})."""

    bot: str
    version: int
    status: SubmissionStatus
    accepted: bool
    reason: str


class BotCreate(VersionCreate):
    name: str = Name
    #: the team it belongs to, one of the caller's (default: the caller's own team)
    team: str | None = Field(default=None, max_length=100)


class RulesIn(BaseModel):
    preset: Literal["classic", "pagat", "russian"] = "classic"
    options: dict[str, Any] = Field(default_factory=dict)


#: the rating of record, by its registered name (arena.tournament.ratings)
Rating = Field(
    default=DEFAULT_RATING.name,
    pattern=f"^({'|'.join(RATING_SYSTEMS)})$",
    description=f"The rating of record: {' or '.join(RATING_SYSTEMS)}.",
)


class TournamentCreate(
    TournamentRequest.body(  # type: ignore[misc]  # a model made from the request's fields
        "TournamentCreate",
        {"name": (str, Name), "rules": (RulesIn, Field(default_factory=RulesIn))},
    )
):
    """A tournament as an owner asks for it: the request's fields (arena.services.
    tournaments.TournamentRequest) but the operator's, the rules as a preset and options."""

    def request(self) -> TournamentRequest:
        rules = Ruleset.parse(self.rules.preset, self.rules.options)
        return TournamentRequest.asked(**self.model_dump(exclude={"rules"}), rules=rules)


#: a competition's log retention, in days (arena.services.retention)
LogDays = Field(default=None, ge=1, le=100_000)
LogTop = Field(default=0, ge=0, le=100_000)


class CompetitionCreate(BaseModel):
    """A competition (the operator's): a standing ladder every qualified version of an
    entered bot joins by itself (docs/tournaments.md "Competitions")."""

    name: str = Name
    rules: RulesIn = Field(default_factory=RulesIn)
    table_size: int = Field(default=4, ge=2, le=12)
    #: tables in play at once
    tables: int = Field(default=2, ge=1, le=1000)
    #: bots entered now (more join later)
    bots: list[str] = Field(default_factory=list, max_length=1000)
    deadline: float = Field(default=1.0, gt=0, le=60)
    time_bank: float = Field(default=5.0, ge=0, le=600)
    #: ``duplicate-ladder``: each table played once per seat rotation on the same deal
    format: Literal["ladder", "duplicate-ladder"] = "ladder"  # a competition's, not a tournament's
    #: submissions enter it, /leaderboard shows it
    default: bool = False
    #: no table before this moment, and closed (final standings) at this one
    opens_at: AwareDatetime | None = None
    closes_at: AwareDatetime | None = None
    #: tables a minute once every rating is settled (null: every table kept in play)
    pace: float | None = Field(default=DEFAULT_PACE, gt=0, le=MAX_PACE)
    rating: str = Rating
    #: a match's log is dropped this many days after it (null: every log kept)
    log_days: float | None = LogDays
    #: every log of the season's best ``log_top`` entries is kept
    log_top: int = LogTop


class PaceIn(BaseModel):
    #: tables a minute once every rating is settled (null: unpaced)
    pace: float | None = Field(gt=0, le=MAX_PACE)


class LogRetentionIn(BaseModel):
    """A competition's log retention: results, ratings and totals stay for ever."""

    #: a match's log is dropped this many days after it (null: every log kept)
    days: float | None = LogDays
    #: every log of the season's best ``top`` entries is kept
    top: int = LogTop


class TournamentPublic(BaseModel):
    name: str
    status: str
    #: its format's registered name: round_robin, ladder, swiss, knockout, ...
    format: str = formats.DEFAULT.name
    #: what its ``games`` count: matches, tables in play (a ladder), rounds
    unit: str = formats.DEFAULT.unit
    #: it plays until stopped (a ladder): its progress is the matches played
    plays_until_stopped: bool = False
    #: its rating of record: trueskill or openskill
    rating: str = DEFAULT_RATING.name
    rules: dict[str, Any]
    table_size: int
    games: int
    matches: Progress
    created_at: str
    #: two bots of one owner may sit at one table (off by default: no team play)
    same_owner_tables: bool = False


def _three_places(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


#: a figure as pages and the API show it: to 3 places
Figure = Annotated[float, AfterValidator(_three_places)]
MaybeFigure = Annotated[float | None, AfterValidator(_three_places)]


class LeaderboardRow(BaseModel):
    """A leaderboard row as shown (from the store's ``BoardRow``, figures rounded)."""

    model_config = ConfigDict(from_attributes=True)

    rank: int
    bot: str
    version: int
    mu: Figure
    sigma: Figure
    score: Figure
    games: int
    mean_place: MaybeFigure
    win_share: MaybeFigure
    wins: int
    forfeits: int
    strikes: int
    illegal: int
    bluff_rate: MaybeFigure
    challenge_rate: MaybeFigure
    challenge_accuracy: MaybeFigure
    believe_rate: MaybeFigure
    believe_accuracy: MaybeFigure


class TournamentDetail(TournamentPublic):
    leaderboard: list[LeaderboardRow]


class Ranks(BaseModel):
    """Which ranks of a leaderboard a page shows: from ``start`` to ``end`` of ``total``
    (a field of a thousand bots is ten pages, not one of 270 KB)."""

    start: int
    end: int
    total: int
    per_page: int

    @property
    def previous_from(self) -> int | None:
        return max(1, self.start - self.per_page) if self.start > 1 else None

    @property
    def next_from(self) -> int | None:
        return self.end + 1 if self.end < self.total else None


class SeatResult(BaseModel):
    """How a seat's bot did in a match."""

    seat: int
    bot: str
    version: int
    place: int | None
    forfeit: str | None
    reason: str | None
    #: a rejection in full (the bot's output, its traceback): for its owner only
    detail: str | None = None
    strikes: int
    illegal: int


class SeatPublic(SeatResult):
    latency_mean_ms: float | None
    latency_p99_ms: float | None


class MatchPublic(BaseModel):
    id: int
    tournament: str
    index: int
    status: str
    attempts: int
    error: str | None
    finished_at: str | None
    seats: list[SeatPublic]


class Replay(BaseModel):
    """A match's replay as its reader may see it: one frame per step (the table after
    it), every seat's name, the reader's own seats, and why cards are face down."""

    match: int
    names: list[str]
    #: the seats the reader's bots held (their cards are shown)
    mine: list[int]
    #: the full log is public: every card is shown
    public: bool
    disclosure: str
    frames: list[dict[str, Any]]


class MatchPage(BaseModel):
    items: list[MatchPublic]
    page: int
    per_page: int
    has_next: bool
    #: the next page's ``before`` (its matches are older than this one's last); None: none
    next_before: int | None = None


class AbTestCreate(
    AbTestRequest.body(  # type: ignore[misc]  # a model made from the request's fields
        "AbTestCreate",
        {"name": (str, Name), "rules": (RulesIn, Field(default_factory=RulesIn))},
    )
):
    """An A/B test of two of the owner's versions (docs/abtest.md)."""

    def request(self) -> AbTestRequest:
        rules = Ruleset.parse(self.rules.preset, self.rules.options)
        return AbTestRequest.asked(**self.model_dump(exclude={"rules"}), rules=rules)


class Started(BaseModel):
    name: str
    queued: int


class DealGroup(BaseModel):
    group: int
    #: each bot's summed places over the group's rotations (lower is better)
    scores: dict[str, int]


class OwnerPublic(BaseModel):
    name: str
    created_at: str
    token: str  # "active" or "revoked": never the token itself
    bots: list[str]


class NewToken(BaseModel):
    token: str


class OwnSeat(SeatResult):
    """One of the owner's seats in a recorded match, with what its bot printed."""

    match: int
    tournament: str
    finished_at: str | None
    #: what the bot printed while playing this match (its last 4 KB; uploaded bots
    #: only: a bot running elsewhere keeps its own output). A warm process may play
    #: several matches of the same version at once, so lines of those may be mixed in.
    output: str | None


class OwnSeatPage(BaseModel):
    """A page of the owner's seats, newest first, as filtered."""

    items: list[OwnSeat]
    page: int
    per_page: int
    has_next: bool
    #: seats that pass the filters, over every page (counted up to 1,000)
    total: int
    #: False: there are more than ``total`` (the count stopped there)
    total_exact: bool = True


# ------------------------------------------------------------------ pages
# What the pages show: the API's models with more (a route serves the model it declares,
# so these extra fields never reach the API).


class SeatFailure(BaseModel):
    """A seat of one of a bot's versions that forfeited, answered late or broke a rule."""

    match: int
    seat: int
    version: int
    forfeit: str | None
    reason: str | None
    #: a rejection in full (the bot's output, its traceback): for its owner only
    detail: str | None = None
    strikes: int
    illegal: int


class BotPage(BotPublic):
    #: why the active version could not be reached in its last matches, if it could not
    unreachable: str | None
    #: rating histories by tournament, then by version label
    ratings: dict[str, dict[str, list[dict[str, Any]]]]
    recent_matches: list[MatchPublic]
    failures: list[SeatFailure]


class TournamentRow(TournamentPublic):
    bots: int
    #: the best-rated version that has played ("name vN")
    leader: str | None


class CompetitionRow(BaseModel):
    """A competition as the home page lists it."""

    name: str
    season: int
    status: str
    default: bool
    ladder: str
    rules: dict[str, Any]
    table_size: int
    bots: int
    #: its leader now ("name vN"), once one has played
    leader: str | None
    #: matches played this season
    played: int
    #: how it plays now (arena.store.ladder.pace_of)
    pace: dict[str, Any]


class CompetitionPage(CompetitionRow):
    format: str
    #: its rating of record: trueskill or openskill
    rating: str
    tables: int
    opens_at: str | None
    closes_at: str | None
    leaderboard: list[LeaderboardRow]
    #: the ladders of every season, the first first
    seasons: list[str]
    recent_matches: list[MatchPublic]
    #: the versions whose rating is provisional ("bot vN"), and the rule's games
    provisional: list[str]
    provisional_games: int
    #: the ranks ``leaderboard`` holds
    ranks: Ranks
    #: its logs' retention: days kept (None: for ever), and the best entries whose stay
    log_days: float | None = None
    log_top: int = 0


class TournamentPage(TournamentDetail):
    id: int
    duplicate: bool
    #: the newest deal groups (duplicate tournaments), and how many there are
    groups: list[DealGroup]
    groups_total: int
    #: the leaders' head-to-head table (the tournament's page only)
    head_to_head: dict[str, Any] | None = None
    #: what the page draws for its format beside the leaderboard and the ratings
    #: ("rounds" or "bracket", "standings"), and the format in a sentence
    draws: list[str] = []
    explained: str = ""
    #: formats played in rounds: each round's tables (a bracket, for a knockout) and the
    #: format's standings
    rounds: list[dict[str, Any]] = []
    #: the page's ranks of ``leaderboard`` (None: every rank, as the API's detail)
    ranks: Ranks | None = None
    standings: list[dict[str, Any]] = []


class TableCreate(BaseModel):
    """A person's table: the rules preset, the bots beside them in seat order
    (``sample:NAME``, or a qualified bot as ``BOT`` or ``BOT:N`` whose owner lets people
    play it), and their own seat."""

    rules: str = Field("classic", max_length=40)
    bots: list[Annotated[str, Field(max_length=120)]] = Field(min_length=1, max_length=7)
    seat: int = Field(0, ge=0, le=7)


class TableCreated(BaseModel):
    id: str
    seat: int
    match_id: str
    names: list[str]
    #: the page to play it on
    url: str


class TableAction(BaseModel):
    """An action in the match log's JSON form (docs/match-log.md), e.g.
    ``{"do": "play", "cards": ["7C"], "rank": "7"}`` or ``{"do": "challenge"}``."""

    action: dict[str, Any]


class TableState(BaseModel):
    """A table as its person sees it. ``status``: ``your_turn`` (``legal`` lists the
    actions allowed: a play as the ranks it may claim and the cards it may hold),
    ``waiting`` (the bots are moving), ``done`` or ``abandoned`` (the site stopped)."""

    id: str
    match_id: str
    seat: int
    names: list[str]
    status: Literal["your_turn", "waiting", "done", "abandoned"]
    observation: dict[str, Any] | None = None
    legal: list[dict[str, Any]] = []
    seconds_left: float | None = None
    deadline: float | None = None
    deal: int | None = None
    deals: int | None = None
    strikes: int = 0
    illegal: int = 0
    #: why the last action was refused (an illegal action, counted as the rules say)
    refused: str | None = None
    #: the public events of the deal in play so far, and the same in English
    history: list[dict[str, Any]] = []
    said: list[str] = []
    #: once done: the person's place, forfeit, and the ranking by names
    place: int | None = None
    forfeit: str | None = None
    ranking: list[list[str]] = []


class ScrimmageCreate(
    ScrimmageRequest.body("ScrimmageCreate")  # type: ignore[misc]  # the request's fields
):
    """Unranked matches of your bot (``BOT``: its live version, ``BOT:N``: any that
    qualified) against rivals you choose (``sample:NAME``, your bots, or another owner's
    that allows it), every match seating them all, seats rotating."""

    def request(self) -> ScrimmageRequest:
        return ScrimmageRequest.asked(**self.model_dump())
