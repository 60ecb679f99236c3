"""Match seeds no one can predict: keyed hashes of a secret key.

Every tournament (and every ``arena play`` series) has a secret key of 256 bits.
A match's seed is HMAC-SHA256 of that key and the match's place in the schedule
(``match/3``, ``group/2``, ``ladder/41``, ``game/0``), and the match's deals are
dealt from that seed. Knowing any number of match seeds (a settled log shows its
own) tells nothing about another match's seed without the key, and the key never
leaves the server. A key given as ``--seed`` text is derived from that text, so
whoever holds the text can replay the whole tournament (and so can anyone who
guesses it: pick a long one, or none).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: bytes of a random key (256 bits)
KEY_BYTES = 32
_KEY_DOMAIN = b"arena.tournament-key/1\x00"


def new_key() -> str:
    """A fresh random key, as hex."""
    return secrets.token_hex(KEY_BYTES)


def key_from_seed(seed: str | int) -> str:
    """The key a chosen seed stands for (the same text always gives the same key)."""
    return hashlib.sha256(_KEY_DOMAIN + str(seed).encode()).hexdigest()


def key_for(seed: str | int | None) -> str:
    """The key of a new tournament or series: derived from ``seed``, random without one."""
    return new_key() if seed is None else key_from_seed(seed)


def match_seed(key: str, place: str) -> str:
    """The seed of the match at ``place`` in the schedule of the tournament keyed ``key``."""
    return hmac.new(bytes.fromhex(key), place.encode(), hashlib.sha256).hexdigest()


def round_robin_place(index: int) -> str:
    return f"match/{index}"


def group_place(group: int) -> str:
    """Duplicate tournaments: the rotations of a group share their deals, so their seed."""
    return f"group/{group}"


def ladder_place(index: int) -> str:
    return f"ladder/{index}"


def ladder_group_place(group: int) -> str:
    """Duplicate ladders: the rotations of a table share their deal, so their seed."""
    return f"ladder-group/{group}"


def round_place(number: int, table: int) -> str:
    """Formats in rounds: the rotations of a round's table share their deal."""
    return f"round/{number}/table/{table}"


def abtest_place(pair: int) -> str:
    """A/B tests: both matches of a pair deal from one seed."""
    return f"abtest/{pair}"


def game_place(game: int) -> str:
    return f"game/{game}"
