"""The platform's tables (SQLAlchemy 2). The database is the source of truth; Redis
only carries work to the workers."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    REAL,
    Boolean,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    func,
    literal_column,
    or_,
    text,
)
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, Mapper, mapped_column, relationship
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

from arena.base.people import OWNER
from arena.base.states import (
    AbTestStatus,
    AfterQualifying,
    BotKind,
    CompetitionStatus,
    LogState,
    MatchStatus,
    TableStatus,
    TournamentStatus,
    VersionStatus,
)
from arena.store.db import upsert
from arena.tournament import formats, ratings


def now() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """Every time the platform keeps: written in UTC, read back aware of it, on every
    database (SQLite keeps no time zone and gives back naive times)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value  # naive: already UTC
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class Millis(TypeDecorator[float]):
    """A duration in milliseconds to the microsecond, as the referee rounds it, kept in 4
    bytes (a season's seats are tens of millions of rows): read back rounded again, so a
    seat shows what was measured, not the nearest single-precision float."""

    impl = REAL
    cache_ok = True

    def process_result_value(self, value: float | None, dialect: Dialect) -> float | None:
        return None if value is None else round(value, 3)


class Base(DeclarativeBase):
    pass


def table_of(model: type[Base]) -> Table:
    """A mapped class's table, typed as one (``__table__`` is typed as any FROM clause)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


def _enum(cls: type[StrEnum]) -> Enum:
    """Store a string-valued enum as its value, with a CHECK constraint."""
    return Enum(
        cls,
        native_enum=False,
        values_callable=lambda e: [m.value for m in e],
        length=32,
        validate_strings=True,
    )


class PlayStyle:
    """Play-style counters (arena.referee.style): per seat for a match, summed per entry."""

    plays: Mapped[int] = mapped_column(Integer, default=0)
    bluffs: Mapped[int] = mapped_column(Integer, default=0)
    challenges: Mapped[int] = mapped_column(Integer, default=0)
    challenges_right: Mapped[int] = mapped_column(Integer, default=0)
    believes: Mapped[int] = mapped_column(Integer, default=0)
    believes_right: Mapped[int] = mapped_column(Integer, default=0)


class Owner(Base):
    """An owner: an account a person signed up for (with a password), or one the
    operator made (``arena owner add``: a token only)."""

    __tablename__ = "owners"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    token_hash: Mapped[str] = mapped_column(String(128), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    #: Argon2id (its parameters and salt in the string); None: no password, no sign-in
    password_hash: Mapped[str | None] = mapped_column(String(255))
    #: ``owner``, or ``operator`` (the console and the operator's API: arena operator grant)
    role: Mapped[str] = mapped_column(String(16), default=OWNER, server_default=OWNER)
    #: when the operator suspended it (its sessions and tokens stop working), and why
    suspended_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    suspended_reason: Mapped[str | None] = mapped_column(Text)


class AuditEntry(Base):
    """An operator's action: who, what, on what, when and why (kept for ever)."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text, default="")


class ApiToken(Base):
    """A named API token of an account: only its SHA-256 is kept; what it may do
    (``scopes``, comma-separated), until when (None: until revoked)."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id"), index=True)
    label: Mapped[str] = mapped_column(String(100))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Identity(Base):
    """An account's identity at an OpenID Connect provider (its ``sub`` there)."""

    __tablename__ = "identities"
    __table_args__ = (UniqueConstraint("issuer", "subject", name="uq_identities_subject"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


class SignInAttempt(Base):
    """A browser at the provider: the state it comes back with, the nonce its
    ``id_token`` must hold and the PKCE verifier; used once."""

    __tablename__ = "sign_in_attempts"
    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64))
    verifier: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class AccountSession(Base):
    """A signed-in browser: the cookie holds a random secret, the database its SHA-256
    only; the CSRF token its cookie-authenticated writes carry. Ended (signed out, the
    password changed) or expired, it no longer works."""

    __tablename__ = "account_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Throttle(Base):
    """Failures (or attempts) counted per key (an account's name, an address) in a
    window: over the limit, the next is refused until the window ends."""

    __tablename__ = "throttles"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(UtcDateTime())
    count: Mapped[int] = mapped_column(Integer, default=0)


class Team(Base):
    """A team: its members submit and manage its bots (arena.store.teams). Every account
    starts with a team of one under its own name."""

    __tablename__ = "teams"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


class TeamMember(Base):
    """A person in a team: its ``captain`` invites and removes, every member plays."""

    __tablename__ = "team_members"
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id"), primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("owners.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


class TeamInvite(Base):
    """A captain's one-time invitation: the code is shown once, its SHA-256 kept."""

    __tablename__ = "team_invites"
    id: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("owners.id"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    used_by: Mapped[int | None] = mapped_column(ForeignKey("owners.id"))


class Disqualifiable:
    """The operator's disqualification: off every leaderboard, no new table, the reason
    shown to the team."""

    disqualified_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    disqualified_reason: Mapped[str | None] = mapped_column(Text)


class RegisteredBot(Disqualifiable, Base):
    __tablename__ = "bots"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    #: the account that made it (None: the operator's)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("owners.id"))
    #: the team whose members submit and manage it (None: the operator's)
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id"), index=True)
    team: Mapped[Team | None] = relationship()
    #: the owner's consent: people may sit at a table with this bot (/play)
    people_may_play: Mapped[bool] = mapped_column(Boolean, default=True)
    #: the owner's consent: other owners may choose this bot as a scrimmage's rival
    scrimmage_rival: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    versions: Mapped[list[BotVersion]] = relationship(
        back_populates="bot", order_by="BotVersion.number"
    )


class BotVersion(Disqualifiable, Base):
    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[BotKind] = mapped_column(_enum(BotKind))
    #: the endpoint, the sample bot's name, or an upload's ``sha256:<digest>`` (artifacts)
    target: Mapped[str] = mapped_column(String(500))
    #: the live version: the one a competition seats and a bare ``BOT`` names (one a bot)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    #: when it last became the live version (None: never live)
    live_since: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: what it does once it qualifies
    after_qualifying: Mapped[AfterQualifying] = mapped_column(
        _enum(AfterQualifying), default=AfterQualifying.LIVE
    )
    status: Mapped[VersionStatus] = mapped_column(_enum(VersionStatus), default=VersionStatus.READY)
    #: why it was rejected, or how it qualified
    reason: Mapped[str | None] = mapped_column(Text)  # public: a kind, never output
    detail: Mapped[str | None] = mapped_column(Text)  # its owner's: output, traceback
    #: an uploaded version's language (arena.sdk.languages), once its upload is read
    language: Mapped[str | None] = mapped_column(String(16))
    #: the upload it was built from (a build's source digest; its log is its owner's)
    build_source: Mapped[str | None] = mapped_column(String(64))
    build: Mapped[Build | None] = relationship(
        primaryjoin="foreign(BotVersion.build_source) == Build.source", viewonly=True
    )
    #: the matches.id of its qualification match, once it played one
    qualification_match_id: Mapped[int | None] = mapped_column(Integer)
    #: an endpoint's own limit set by its owner: matches it serves at once, counted in
    #: seats over every worker (None: not set)
    max_matches: Mapped[int | None] = mapped_column(Integer)
    #: the limit the endpoint announced in its last recorded Hello (None: it said none);
    #: the owner's ``max_matches`` wins, and with neither, ``DEFAULT_ENDPOINT_MATCHES``
    announced_matches: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    bot: Mapped[RegisteredBot] = relationship(back_populates="versions")

    @property
    def label(self) -> str:
        return f"{self.bot.name} v{self.number}"


class FormatName(Base):
    """A format's registered name (arena.tournament.formats), the first time a tournament
    of it was stored: a tournament's format is one of these (a foreign key), so no other
    string is ever stored as one. Formats are registered in code, an operator's too
    (``ARENA_FORMATS``), so the rows follow the registry rather than a fixed list."""

    __tablename__ = "formats"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)


class Tournament(Base):
    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)  # {"preset": ..., "options": {...}}
    #: its format's registered name (arena.tournament.formats)
    format: Mapped[str] = mapped_column(
        String(32),
        ForeignKey("formats.name", name="fk_tournaments_format"),
        default=formats.DEFAULT.name,
    )
    #: a knockout's: how many of each table go on
    advance: Mapped[int | None] = mapped_column(Integer)
    #: the rating of record's registered name (arena.tournament.ratings.SYSTEMS)
    rating_system: Mapped[str] = mapped_column(
        String(16), default=ratings.DEFAULT.name, server_default=ratings.DEFAULT.name
    )
    table_size: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    #: each deal is played once per seat rotation (deal groups)
    duplicate: Mapped[bool] = mapped_column(Boolean, default=False)
    #: uploaded bots get a new process per match instead of a warm one (worker.warm)
    fresh_processes: Mapped[bool] = mapped_column(Boolean, default=False)
    #: bots of one owner may sit at one table (the operator's choice; off by default)
    same_owner_tables: Mapped[bool] = mapped_column(Boolean, default=False)
    #: ladders: tables seated a minute once every entry is settled (None: unpaced, every
    #: table kept in play; arena.store.pacing)
    pace: Mapped[float | None] = mapped_column(Float)
    #: a paced ladder's next settled table is not seated before this moment
    next_table_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: its competition's log retention swept its logs up to this match id (the next
    #: sweep starts after it; arena.services.retention)
    logs_swept_to: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the secret its match seeds are derived from (arena.tournament.seeds); never shown
    secret_key: Mapped[str] = mapped_column(String(64))
    #: ladders: seconds after a match before its full log (seed, hands) is public
    reveal_delay: Mapped[int] = mapped_column(Integer, default=3600)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)  # referee settings
    status: Mapped[TournamentStatus] = mapped_column(
        _enum(TournamentStatus), default=TournamentStatus.CREATED
    )
    #: the owner who made it (a private tournament), or None: the operator's, which count
    owner_id: Mapped[int | None] = mapped_column(Integer)  # an owners.id
    #: matches recorded so far; a recorded match takes the next number (completion order)
    completed: Mapped[int] = mapped_column(Integer, default=0)
    #: recorded matches the operator voided (each took a completion number too): the
    #: matches done are ``completed - voided``, counted without reading them
    voided: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    entries: Mapped[list[Entry]] = relationship(order_by="Entry.id")

    @property
    def rating(self) -> ratings.RatingSystem:
        """Its rating of record."""
        return ratings.named(self.rating_system)

    def new_entry(self, version_id: int) -> Entry:
        """An entry of bot version ``version_id`` at its rating system's start."""
        mu, sigma = self.rating.start()
        return Entry(tournament_id=self.id, bot_version_id=version_id, mu=mu, sigma=sigma)


@event.listens_for(Tournament, "before_insert")
def _store_its_format(_mapper: Mapper[Tournament], connection: Connection, row: Tournament) -> None:
    """A registered format's name joins ``formats`` with its first tournament (an unknown
    name is refused here, before the database's foreign key would)."""
    name = formats.named(row.format or formats.DEFAULT.name).name
    insert = upsert(connection.dialect, table_of(FormatName))
    connection.execute(insert.values(name=name).on_conflict_do_nothing())


class Entry(PlayStyle, Base):
    """A bot version taking part in a tournament, with its current rating."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("tournament_id", "bot_version_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    # running totals over the recorded matches, kept with the rating (the leaderboard
    # reads them instead of aggregating every seat of every match)
    place_sum: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    forfeits: Mapped[int] = mapped_column(Integer, default=0)
    strikes: Mapped[int] = mapped_column(Integer, default=0)
    illegal: Mapped[int] = mapped_column(Integer, default=0)
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    #: ladders: how many of its tables seated it at each position (index = seat)
    seat_counts: Mapped[list[int] | None] = mapped_column(JSON)
    #: a competition's entry replaced by a newer version of its bot: no longer seated
    #: or ranked (its matches and rating stay)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
    #: its oldest rating updates numbered and thinned so far (arena.store.history)
    history_numbered: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    version: Mapped[BotVersion] = relationship()


class Competition(Base):
    """A standing ladder that every qualified version of an entered bot joins by itself
    (arena.store.competitions); its season is one ladder (a tournament)."""

    __tablename__ = "competitions"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    season: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[CompetitionStatus] = mapped_column(
        _enum(CompetitionStatus), default=CompetitionStatus.OPEN
    )
    #: the competition a submission enters unless it names another (and /leaderboard's)
    is_default: Mapped[bool] = mapped_column(Boolean, default=False)
    #: no table before this moment; at the first refill after ``closes_at`` it closes
    opens_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    closes_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: its logs' retention: a match's log is dropped this many days after it finished,
    #: unless one of its season's ``log_top`` best sat at its table (None: every log kept;
    #: arena.services.retention). Results, ratings and totals stay for ever.
    log_days: Mapped[float | None] = mapped_column(Float)
    log_top: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    tournament: Mapped[Tournament] = relationship()


class CompetitionBot(Base):
    """A bot entered in a competition: each of its qualified versions plays there."""

    __tablename__ = "competition_bots"
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)


class AbTest(Base):
    """A sequential test of a new version against a base on paired duplicate deals
    (arena.abtest); its matches are those of a tournament of the A/B test format, rated
    never. ``counts``: pairs per pair-score class; ``llr``: the SPRT's statistic."""

    __tablename__ = "abtests"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), unique=True)
    new_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    base_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    #: the opponents' versions, in the order the pairs take them
    field: Mapped[list[int]] = mapped_column(JSON)
    elo0: Mapped[float] = mapped_column(Float)
    elo1: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    max_matches: Mapped[int] = mapped_column(Integer)
    #: pairs in play at once
    batch: Mapped[int] = mapped_column(Integer)
    status: Mapped[AbTestStatus] = mapped_column(_enum(AbTestStatus), default=AbTestStatus.CREATED)
    counts: Mapped[list[int]] = mapped_column(JSON)
    llr: Mapped[float] = mapped_column(Float, default=0.0)
    pairs: Mapped[int] = mapped_column(Integer, default=0)
    #: a gate (``--promote-if-better``): the new version goes live if it is accepted
    promote: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("owners.id"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    tournament: Mapped[Tournament] = relationship()
    new_version: Mapped[BotVersion] = relationship(foreign_keys=[new_version_id])
    base_version: Mapped[BotVersion] = relationship(foreign_keys=[base_version_id])


class AbTestPair(Base):
    """A pair counted by its test, once: its class and the LLR after it (the chart)."""

    __tablename__ = "abtest_pairs"
    abtest_id: Mapped[int] = mapped_column(ForeignKey("abtests.id"), primary_key=True)
    pair: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: the order pairs were counted in (1, 2, ...)
    counted: Mapped[int] = mapped_column(Integer)
    pair_class: Mapped[int] = mapped_column(Integer)
    new_place: Mapped[int] = mapped_column(Integer)
    base_place: Mapped[int] = mapped_column(Integer)
    llr: Mapped[float] = mapped_column(Float)


class PairResult(Base):
    """How two bot versions of a tournament fared when they met (the head-to-head table),
    kept as running totals when matches are recorded; ``low`` is the smaller version id."""

    __tablename__ = "pair_results"
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    low_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    high_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    #: matches in which ``low`` finished ahead of ``high``, behind it, and level
    low_ahead: Mapped[int] = mapped_column(Integer, default=0)
    high_ahead: Mapped[int] = mapped_column(Integer, default=0)
    level: Mapped[int] = mapped_column(Integer, default=0)


class FairPlayPair(Base):
    """What two bot versions of a tournament did about each other (and, for a version
    with itself, about its own places): the running totals of arena.fairplay.counting
    for the pair, packed in one row (arena.store.fairplay). A row a pair, not a row a
    situation: a season of a thousand bots has half a million pairs, each seen in dozens
    of situations and beside hundreds of third bots."""

    __tablename__ = "fairplay_pairs"
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    low_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    high_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    #: the pair's totals, packed in columns and compressed (arena.store.pair_packing)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class FairPlayPending(Base):
    """A recorded batch's fair-play rows, kept in the recording transaction as one blob
    (one insert instead of hundreds of upserts) until a fold adds them to the totals."""

    __tablename__ = "fairplay_pending"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    #: the merged rows, JSON, zlib-compressed (arena.store.fairplay)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class TournamentMatch(Base):
    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "index"),
        Index("ix_matches_tournament_status", "tournament_id", "status"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    #: looked up through (tournament_id, index) and (tournament_id, status)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    index: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(120))
    #: duplicate tournaments: the matches of a group share a deal, seats rotated
    deal_group: Mapped[int | None] = mapped_column(Integer)
    #: formats played in rounds: the round (0 first)
    round: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[MatchStatus] = mapped_column(
        _enum(MatchStatus), default=MatchStatus.PENDING, index=True
    )
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: the RQ job carrying the current attempt (none once recorded: a season's matches
    #: are tens of millions of rows)
    job_id: Mapped[str | None] = mapped_column(String(100))
    worker: Mapped[str | None] = mapped_column(String(200))
    #: who may record the result: the claim of the worker playing it now
    claim: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    queued_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: the position in the tournament's completion order (ratings are applied in it)
    completion: Mapped[int | None] = mapped_column(Integer)
    #: the operator voided it: its result left the ratings (recomputed), and why
    voided_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    void_reason: Mapped[str | None] = mapped_column(Text)
    referee_ms: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
    #: where its log went once it left the database (None: in match_logs, or no log yet);
    #: a cold log keeps no row there (a season's matches are tens of millions)
    log_state: Mapped[LogState | None] = mapped_column(_enum(LogState))
    seats: Mapped[list[MatchSeat]] = relationship(order_by="MatchSeat.seat")

    @classmethod
    def queued(
        cls,
        tournament_id: int,
        index: int,
        seed: str,
        bots: list[int],
        deal_group: int | None = None,
        round: int | None = None,
    ) -> TournamentMatch:
        """A match seated as it plays (a ladder's table, a round's): queued now, ``bots``
        by seat (its job id is given once it has its own id)."""
        match = cls(
            tournament_id=tournament_id,
            index=index,
            seed=seed,
            deal_group=deal_group,
            round=round,
            status=MatchStatus.QUEUED,
            queued_at=now(),
        )
        match.seats = [MatchSeat(seat=seat, bot_version_id=v) for seat, v in enumerate(bots)]
        return match


class MatchSeat(PlayStyle, Base):
    """A seat of a match: who sat there and, once played, how it went."""

    __tablename__ = "seats"
    #: a version's seats by match: its matches newest first are an index walk (and its
    #: failed seats alone: ``ix_seats_version_failed``, below the class)
    __table_args__ = (Index("ix_seats_version_match", "bot_version_id", "match_id"),)
    #: keyed by its match and its place at the table (no surrogate id: a season's seats
    #: are a table of tens of millions of rows)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    place: Mapped[int | None] = mapped_column(SmallInteger)
    forfeit: Mapped[bool] = mapped_column(Boolean, default=False)
    forfeit_kind: Mapped[str | None] = mapped_column(String(32))
    forfeit_reason: Mapped[str | None] = mapped_column(Text)
    #: each stops at its forfeit limit (RefereeSettings: at most COUNT_LIMIT)
    strikes: Mapped[int] = mapped_column(SmallInteger, default=0)
    illegal: Mapped[int] = mapped_column(SmallInteger, default=0)
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    latency_mean_ms: Mapped[float | None] = mapped_column(Millis)
    latency_p99_ms: Mapped[float | None] = mapped_column(Millis)
    #: an uploaded bot's output (stdout and stderr) while it played this match, its last
    #: ``OUTPUT_BYTES``; its process may have served other matches of the same version
    #: at the same time. For the bot's owner only: never in a public page or log.
    output: Mapped[str | None] = mapped_column(Text)
    version: Mapped[BotVersion] = relationship()


def seat_failed() -> ColumnElement[bool]:
    """A seat that failed: forfeited, or late or illegal at least once. A query that asks
    it so may use the partial index on it (its zeros are written in the SQL, not sent as
    parameters: PostgreSQL proves the index serves the query from the words)."""
    zero: ColumnElement[int] = literal_column("0")
    return or_(MatchSeat.forfeit, MatchSeat.strikes > zero, MatchSeat.illegal > zero)


#: a version's failed seats alone: the few a bot's page lists
Index(
    "ix_seats_version_failed", MatchSeat.bot_version_id, MatchSeat.match_id,
    postgresql_where=seat_failed(), sqlite_where=seat_failed(),
)  # fmt: skip


class RatingChange(Base):
    """A bot version's rating after a match, in the tournament's completion order."""

    __tablename__ = "rating_history"
    #: a version's history in a tournament, in order, with its update numbers (charts
    #: read every update's completion and number from the index alone)
    __table_args__ = (
        Index(
            "ix_rating_history_version", "tournament_id", "bot_version_id", "completion", "number"
        ),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    #: looked up through ix_rating_history_version
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    completion: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: the version's update number, once its history was thinned this far (None: a young
    #: update, numbered by its place after the numbered ones; arena.store.history)
    number: Mapped[int | None] = mapped_column(Integer)


class StoredLog(Base):
    """A match's log while it is young, compressed (read it as arena.referee.log.MatchLog).
    Once old it moves to the cold store and its row goes (the match's ``log_state`` says
    so); a dropped log's row stays, without data, only until its cold object is deleted.
    Read back through arena.store.logs either way."""

    __tablename__ = "match_logs"
    #: the dropped logs whose cold object is still to delete: a handful at any time
    __table_args__ = (
        Index(
            "ix_match_logs_objects_to_delete",
            "match_id",
            postgresql_where=text("data IS NULL"),
            sqlite_where=text("data IS NULL"),
        ),
    )
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    #: the JSON match log, zlib-compressed (None: dropped, its cold object to delete)
    data: Mapped[bytes | None] = mapped_column(LargeBinary)
    size: Mapped[int] = mapped_column(Integer)


class PlayedTable(Base):
    """A match a person played at a table with bots (/play): unranked, never on a
    leaderboard. Its id is the person's key to the seat: long and unguessable."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    #: the match log's id
    match_id: Mapped[str] = mapped_column(String(64), unique=True)
    #: the person's name at the table: an owner's name, else a guest's
    person: Mapped[str] = mapped_column(String(100))
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("owners.id"), index=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: the players' names by seat
    names: Mapped[list[str]] = mapped_column(JSON)
    seat: Mapped[int] = mapped_column(Integer)
    status: Mapped[TableStatus] = mapped_column(_enum(TableStatus), default=TableStatus.PLAYING)
    #: the person's place once it is over (1 first)
    place: Mapped[int | None] = mapped_column(Integer)
    forfeit_kind: Mapped[str | None] = mapped_column(String(32))
    #: the full match log, as arena.store.logs stores one
    log: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Artifact(Base):
    """An uploaded bot's code: a deterministic .tar.gz, named by its SHA-256."""

    __tablename__ = "artifacts"
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


class Build(Base):
    """An upload's build, made once whoever uploads it again: the artifact it made
    (None: it failed), its log (its owner's to read) and how long it took."""

    __tablename__ = "builds"
    source: Mapped[str] = mapped_column(String(64), primary_key=True)
    built: Mapped[str | None] = mapped_column(String(64))
    language: Mapped[str] = mapped_column(String(16))
    log: Mapped[str] = mapped_column(Text)
    seconds: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=now)


# names are unique whatever their case: ALICEBOT is not a new name beside alicebot
Index("uq_bots_name_folded", func.lower(RegisteredBot.name), unique=True)
Index("uq_owners_name_folded", func.lower(Owner.name), unique=True)
Index("uq_teams_name_folded", func.lower(Team.name), unique=True)
