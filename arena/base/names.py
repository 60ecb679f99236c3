"""What a name may be: bots, tournaments, competitions and owners are named in URLs,
command lines and comma lists."""

from __future__ import annotations

import re

#: names of bots and tournaments: they go in URLs, command lines and comma lists
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
