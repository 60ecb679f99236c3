"""A situation (*stratum*) as text, as the totals read it, and as the number it packs
into, as a pair's stored row keeps it (arena.store.pair_packing): a number costs two
bytes where its text cost twelve.

- ``calls``: ``t1e7c2p0a2w1`` (true, the plausibility in its steps: ``q`` fifths, ``e``
  tenths, the claimed count, the pile, the author's hand, the responder's record of
  calls); true groups counted before 2026-12-06 were in fifths (``t1q3…``): a bit of
  their own keeps them apart;
- ``plays``: ``L2w1`` for a lead, ``R12w1`` and ``C02w0`` otherwise (the phase, the due
  rank held, the hand, the responder's record of calls);
- ``places``: a version's own place (``2``) or a pair's two places (``1-3``);
- ``tables``: a third bot's version id (``397``).

Pure. The counter packs its situations in the same numbers (arena.fairplay.counting).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: a ``calls`` stratum's steps letter is not its truth's (``t1q…``, before 2026-12-06)
_OTHER_STEPS = 1 << 13
#: a ``places`` stratum is a pair's two places (else a version's own place)
_PAIR_PLACES = 1 << 14
_CALLS = re.compile(r"t([01])([qe])(\d{1,2})c(\d)p(\d)a(\d)w(\d)", re.ASCII)
_PLAYS = re.compile(r"(?:L(\d)|([RC])(\d)(\d))w(\d)", re.ASCII)
_PLACES = re.compile(r"(\d{1,3})(?:-(\d{1,3}))?", re.ASCII)
_PHASES = "LRC"


@lru_cache(maxsize=1 << 16)
def text(chance: str, code: int) -> str:
    """The stratum's text from its number."""
    if chance == "calls":
        t, q, c = code & 1, code >> 1 & 15, code >> 5 & 3
        steps = "qe"[t ^ bool(code & _OTHER_STEPS)]
        return f"t{t}{steps}{q}c{c}p{code >> 7 & 3}a{code >> 9 & 3}w{code >> 11 & 3}"
    if chance == "plays":
        phase, held, hand, wary = _PHASES[code >> 4 & 3], code >> 2 & 3, code & 3, code >> 6 & 3
        return f"L{hand}w{wary}" if phase == "L" else f"{phase}{held}{hand}w{wary}"
    if chance == "places":
        if code & _PAIR_PLACES:
            return f"{code >> 7 & 127}-{code & 127}"
        return str(code)
    return str(code)


@lru_cache(maxsize=1 << 16)
def code(chance: str, stratum: str) -> int | None:
    """The stratum's number (``text`` gives the same text back), or None for a text
    this codec does not know (a row holding one is stored as text)."""
    number = _parsed(chance, stratum)
    if number is None or text(chance, number) != stratum:
        return None
    return number


def _parsed(chance: str, stratum: str) -> int | None:
    if chance == "calls":
        found = _CALLS.fullmatch(stratum)
        if found is None:
            return None
        t, steps, q, c, p, a, w = found.groups()
        if int(q) > 15 or max(int(c), int(p), int(a), int(w)) > 3:
            return None
        other = _OTHER_STEPS if steps != "qe"[int(t)] else 0
        return int(t) | int(q) << 1 | int(c) << 5 | int(p) << 7 | int(a) << 9 | int(w) << 11 | other
    if chance == "plays":
        found = _PLAYS.fullmatch(stratum)
        if found is None:
            return None
        lead_hand, phase, held, hand, wary = found.groups()
        if lead_hand is not None:
            return int(lead_hand) | int(wary) << 6
        return int(hand) | int(held) << 2 | _PHASES.index(phase) << 4 | int(wary) << 6
    if chance == "places":
        found = _PLACES.fullmatch(stratum)
        if found is None:
            return None
        first, second = found.groups()
        if second is None:
            return int(first) if int(first) < _PAIR_PLACES else None
        if int(first) > 127 or int(second) > 127:
            return None
        return _PAIR_PLACES | int(first) << 7 | int(second)
    if chance == "tables" and stratum.isascii() and stratum.isdigit():
        return int(stratum)
    return None
