"""A bot's folder sent over the API or the site, as an archive."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from arena.base.errors import Invalid
from arena.store import artifacts


def unpacked(encoded: str, folder: Path) -> Path:
    """The bot's folder from ``encoded`` (a base64 ``.tar.gz`` or ``.zip``), extracted
    into ``folder``."""
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise Invalid("the archive is not base64") from None
    return artifacts.unpack_upload(data, folder)
