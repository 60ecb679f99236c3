"""What a name may be: bots, tournaments, competitions and owners are named in URLs,
command lines and comma lists."""

from __future__ import annotations

import re

from arena.base.errors import Invalid

#: names of bots and tournaments: they go in URLs, command lines and comma lists
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def check_name(name: str, what: str) -> str:
    """A name shown in pages and used in URL paths and in ``--bots a,b``: 1 to 100
    letters, digits, '.', '_' and '-', starting with a letter or digit."""
    name = name.strip()
    if not NAME.fullmatch(name):
        raise Invalid.of("name.invalid", name=name, what=what)
    return name
