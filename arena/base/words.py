"""The sentences the store says: its refusals, and what it records of a match that did
not play. The store names a sentence by its key and gives the values; the words are
here, in one place (to reword them, or one day to translate them), and the key travels
with a refusal (``Refused.key``) so an adapter can tell refusals apart without reading
their words."""

from __future__ import annotations

SENTENCES: dict[str, str] = {
    # names and lookups
    "name.invalid": (
        "{name!r} is not a valid {what} name: use 1 to 100 letters, digits, '.', '_' and '-',"
        " starting with a letter or digit"
    ),
    "name.taken": "a {what} named {name!r} exists already",
    "name.taken_folded": (
        "a {what} named {name!r} exists already (as {taken!r}: names differ by more than case)"
    ),
    "name.missing": "no {what} named {name!r}",
    "owner.name_length": "an owner name has 1 to 100 characters",
    "owner.taken": "an owner named {name!r} exists already",
    # bots and their versions
    "bot.no_sample": "no sample bot {target!r}: expected one of {samples}",
    "bot.cannot_play": "bot {name!r} has no version that can play: {versions}",
    "bot.operators": "bot {name!r} has no owner: only the platform's operator can change it",
    "bot.anothers": "bot {name!r} belongs to a team you are not in",
    "bot.needs_member": (
        "bot {name!r} belongs to team {team!r}: act as one of its members (arena login,"
        " --token or ARENA_TOKEN)"
    ),
    "bot.max_matches_kind": (
        "only an endpoint serves several matches at once: --max-matches is for one"
    ),
    "bot.max_matches_range": "max matches at once is 1 to {most}, not {asked}",
    "versions.none": "no versions",
    # teams
    "team.one_per_competition": (
        "{person} plays in competition {competition!r} for team {team!r} (bot {bot!r}):"
        " a person plays in one team per competition"
    ),
    "team.not_member": "you are not in team {team!r}",
    # logs
    "logs.no_cold_store": "match {match}'s log is in a cold store this process cannot read",
    "logs.dropped": (
        "match {match}'s log was dropped by its competition's retention (its result and"
        " ratings stay)"
    ),
    "logs.retention_days": "a log is kept at least one day, not {days:g}",
    "logs.retention_top": "the best kept are 0 or more entries, not {top}",
    # moderation
    "moderation.again": "{what} is disqualified already",
    "moderation.no_match": "no match {match}",
    "moderation.not_a_result": "match {match} is {status}: only a result is voided",
    "moderation.voided": "match {match} is voided already",
    "moderation.pairs": "an A/B test counts its matches in pairs: stop the test instead",
    "moderation.qualification": (
        "a qualification match rates nothing: disqualify the version instead"
    ),
    "bot.disqualified": "bot {name!r} is disqualified: {reason}",
    "version.disqualified": "{name} v{number} is disqualified: {reason}",
    # uploads
    "upload.missing": "no bot file or folder at {source}",
    "upload.no_kit": "the folder {source} is no bot: {why}",
    "upload.not_a_bot": "{source} is not a Python file or a bot's folder",
    "upload.unpacked_size": "the upload holds {size:,} bytes: over {most:,} unpacked",
    "upload.packed_size": "the upload is {size:,} bytes packed: over {most:,}",
    "upload.symlink": "{path} is a symbolic link: upload plain files",
    "upload.not_plain": "{path} is not a plain file",
    "upload.files": "the upload holds more than {most} files",
    "artifact.missing": "no artifact {digest}",
    "artifact.corrupt": "artifact {digest} is corrupt in the database",
    "archive.outside": "the archive names a file outside its folder: {name!r}",
    "archive.over_limits": "the archive is over the unpacked limits (files or bytes)",
    "archive.not_plain": "the archive holds something else than plain files",
    "archive.kind": "the archive is not a .tar.gz or a .zip",
    # tournaments
    "tournament.listed_twice": "listed more than once: {names}",
    "tournament.reserved": "tournament names starting with {prefixes} are the platform's",
    "tournament.no_games": "a tournament plays at least one game",
    "tournament.table_size": "table size {size}: {error}",
    "tournament.reveal_delay": "the reveal delay is a number of seconds, 0 or more",
    "tournament.not_a_ladder": "{name!r} is not a ladder (a {format} ends by itself)",
    "tournament.over": "tournament {name!r} is over",
    # competitions
    "competition.format": "unknown competition format {format!r}: expected {formats}",
    "competition.closes_first": "a competition closes after it opens",
    "competition.closed": "competition {name!r} is closed (open a new season)",
    "competition.endpoints": (
        "competition {name!r} plays duplicate deals and seats uploaded bots only: a bot"
        " served from its owner's machine could remember a deal's hands from one rotation"
        " to the next"
    ),
    # people's tables
    "table.missing": "no table {id!r}",
    "table.no_log": "table {id!r} has no log: it is {status}",
    # what a match that did not play records
    "match.ladder_stopped": "the ladder was stopped",
    "match.worker_lost": "the worker playing it was lost (attempt {attempt})",
    "match.not_started": "the platform could not start the match",
    "match.abtest_over": "the A/B test is over ({status})",
    "match.stale": "stale: replaced since scheduled: {versions}",
    # the schema
    "schema.too_new": (
        "the database is at schema {found}, newer than this release's {head}: install the"
        " release the other hosts run on this one (docs/deploy.md)"
    ),
    "schema.broken_keys": "a migration left foreign keys that point nowhere: {rows}",
}


def said(key: str, **values: object) -> str:
    """The sentence ``key`` names, with ``values`` in it."""
    return SENTENCES[key].format(**values)
