"""Bots and their versions."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.launcher import BotSpecError, parse_bot
from arena.store.models import Bot, BotKind, BotVersion


class StoreError(ValueError):
    """A request the store refuses, with a message for the user."""


def check_name(name: str, what: str) -> str:
    """A name shown in pages and used in URL paths: 1 to 100 printable characters, no '/'."""
    name = name.strip()
    if not name or len(name) > 100 or "/" in name or not name.isprintable():
        raise StoreError(f"a {what} name has 1 to 100 printable characters and no '/'")
    return name


def parse_target(kind: BotKind, target: str) -> str:
    """Validate a version's target; return it canonical (a file path made absolute)."""
    if kind is BotKind.PATH and Path(target).is_dir():
        if not (Path(target) / "bot.py").is_file():
            raise StoreError(f"the folder {target} has no bot.py")
        return str(Path(target).resolve())
    text = f"sample:{target}" if kind is BotKind.SAMPLE else target
    try:
        spec = parse_bot(text)
    except BotSpecError as error:
        raise StoreError(str(error)) from None
    if spec.kind != {BotKind.PATH: "file"}.get(kind, kind.value):
        raise StoreError(f"{target!r} is not a valid {kind.value}")
    return str(Path(spec.value).resolve()) if kind is BotKind.PATH else spec.value


def add_bot(
    session: Session, name: str, kind: BotKind, target: str, owner_id: int | None = None
) -> BotVersion:
    """A new bot with its first version."""
    name = check_name(name, "bot")
    if session.scalar(select(Bot).where(Bot.name == name)) is not None:
        raise StoreError(f"a bot named {name!r} exists already")
    bot = Bot(name=name, owner_id=owner_id)
    version = BotVersion(bot=bot, number=1, kind=kind, target=parse_target(kind, target))
    session.add_all([bot, version])
    session.flush()
    return version


def active_version(session: Session, name: str) -> BotVersion:
    version = session.scalar(
        select(BotVersion)
        .join(Bot)
        .where(Bot.name == name, BotVersion.active.is_(True))
        .order_by(BotVersion.number.desc())
    )
    if version is None:
        raise StoreError(f"no bot named {name!r}: add it with 'arena bot add'")
    return version


def all_bots(session: Session) -> list[Bot]:
    return list(session.scalars(select(Bot).order_by(Bot.name)))


def add_version(
    session: Session,
    name: str,
    kind: BotKind,
    target: str,
    owner_id: int | None = None,
    *,
    retire_others: bool = True,
) -> BotVersion:
    """A new version of a bot. With ``retire_others`` (the default) it becomes the active
    one and the earlier versions stop being scheduled; otherwise it starts inactive."""
    bot = session.scalar(select(Bot).where(Bot.name == name))
    if bot is None:
        raise StoreError(f"no bot named {name!r}")
    if bot.owner_id is not None and bot.owner_id != owner_id:
        raise PermissionError(f"bot {name!r} belongs to another owner")
    if retire_others:
        for version in bot.versions:
            version.active = False
    number = max((v.number for v in bot.versions), default=0) + 1
    version = BotVersion(
        bot=bot, number=number, kind=kind, target=parse_target(kind, target), active=retire_others
    )
    session.add(version)
    session.flush()
    return version
