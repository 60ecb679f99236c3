"""What a bot's folder is (arena.toml or a starter kit's files) and the line protocol that
bots in other languages speak: pure, no process."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.engine import BELIEVE, CHALLENGE, PASS, Play, Quartets
from arena.policies import RandomLegal
from arena.sdk.languages import LANGUAGES, MANIFEST, KitError, kit_of
from arena.sdk.lines import BadAnswer, decide_line, event_text, parse_action
from sample_bots import kit
from tests.support.cli import arena
from tests.support.engine import random_deal


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_each_starter_kit_is_recognised_by_its_files_and_by_its_manifest(
    language: str, tmp_path: Path
) -> None:
    folder = kit(language)
    assert kit_of(folder).language.name == language
    bare = tmp_path / language
    for mark in LANGUAGES[language].marks:
        (bare / mark).parent.mkdir(parents=True, exist_ok=True)
        (bare / mark).write_text("")
    found = kit_of(bare)
    assert found.language.name == language and found.build == LANGUAGES[language].build


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_bot_new_writes_each_languages_starter_kit(language: str, tmp_path: Path) -> None:
    """``arena bot new FOLDER --lang L`` copies the kit's own files (nothing a build or
    Python left there), and says how to play and submit it."""
    folder = tmp_path / "mine"
    made = arena("bot", "new", str(folder), "--lang", language)
    assert made.returncode == 0, made.stderr
    assert f"wrote a {LANGUAGES[language].title} bot" in made.stdout
    assert kit_of(folder).language.name == language
    own = {p.relative_to(kit(language)) for p in kit(language).rglob("*") if p.is_file()}
    kept = {path for path in own if "__pycache__" not in path.parts}
    assert {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()} == kept
    again = arena("bot", "new", str(folder), "--lang", language)
    assert again.returncode != 0 and "exists already" in again.stderr


def test_bot_new_names_the_languages_it_knows(tmp_path: Path) -> None:
    made = arena("bot", "new", str(tmp_path / "mine"), "--lang", "cobol")
    assert made.returncode != 0 and "no language 'cobol'" in made.stderr
    assert all(language in made.stderr for language in LANGUAGES)


def test_a_manifest_sets_the_build_and_run_and_is_checked(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text('language = "cpp"\nbuild = "make"\nrun = "./mine --fast"\n')
    found = kit_of(tmp_path)
    assert (found.build, found.argv()) == ("make", ["./mine", "--fast"])
    assert not found.interleave, "a program plays one match at a time unless it says"
    (tmp_path / MANIFEST).write_text('language = "go"\ninterleave = true\n')
    assert kit_of(tmp_path).interleave
    assert kit_of(tmp_path).built().manifest().endswith("interleave = true\n")
    assert kit_of(tmp_path).built().build is None
    built = tmp_path / "built"
    built.mkdir()
    (built / MANIFEST).write_text(found.built().manifest())
    assert kit_of(built) == found.built(), "a built manifest reads back as built"
    for text, said in [
        ('language = "cobol"\n', "is not one of"),
        ('language = "rust"\nflavour = "x"\n', "unknown keys flavour"),
        ('language = "go"\nrun = ""\n', "run is empty"),
        ('language = "go"\nbuild = "a\\nb"\n', "one line"),
        ('language = "python"\nrun = "python3 other.py"\n', "a Python bot is bot.py"),
        ('language = "rust"\ninterleave = "yes"\n', "interleave must be true or false"),
        ('language = "python"\ninterleave = true\n', "interleave is for programs"),
        ("language = [\n", "not valid TOML"),
    ]:
        (tmp_path / MANIFEST).write_text(text)
        with pytest.raises(KitError, match=said):
            kit_of(tmp_path)
    (tmp_path / MANIFEST).unlink()
    with pytest.raises(KitError, match="languages accepted: Python, C\\+\\+, Rust, Go"):
        kit_of(tmp_path)


def _fields(line: str) -> dict[str, str]:
    word, *rest = line.split(" ")
    assert word == "decide"
    return dict(field.split("=", 1) for field in rest)


def test_a_decide_line_says_what_the_observation_says() -> None:
    """Over random deals of random rules: every field a kit reads, as the kits parse it."""
    rng = random.Random(5)
    seen_kinds: set[str] = set()
    for _ in range(60):
        deal = random_deal(rng)
        policy = RandomLegal(rng.random())
        since = [0] * deal.players  # as the referee sends them: the events since the last
        while deal.to_act is not None:
            seat = deal.to_act
            obs = deal.observation(seat, since[seat])
            since[seat] = len(deal.events)
            legal = obs.legal
            assert legal is not None
            line = decide_line(obs, 7)
            assert "\n" not in line and "  " not in line
            fields = _fields(line)
            assert fields["match"] == "7"
            assert fields["phase"] == obs.phase.value and fields["seat"] == str(seat)
            assert fields["hand"] == (",".join(obs.hand) or "-")
            assert fields["hand_sizes"] == ",".join(map(str, obs.hand_sizes))
            assert [fields["stock"], fields["pile"], fields["discard"], fields["turn"]] == [
                str(obs.stock_size), str(obs.pile_size), str(obs.discard_size), str(obs.turn)
            ]  # fmt: skip
            assert fields["round_rank"] == (obs.round_rank or "-")
            assert fields["active"] == ",".join("1" if on else "0" for on in obs.active)
            assert fields["exits"] == (",".join(map(str, obs.exits)) or "-")
            if legal.play is None:
                assert fields["play"] == "-" and fields["max_cards"] == "0"
            else:
                assert fields["play"].split(",") == list(legal.play.ranks)
                assert fields["max_cards"] == str(legal.play.max_cards)
                assert fields["max_count"] == str(legal.play.max_count)
                assert fields["honest"] == ("1" if legal.play.honest else "0")
            assert fields["challenge"] == ("1" if legal.challenge else "0")
            assert fields["believe"] == ("1" if legal.believe else "0")
            assert fields["pass"] == ("1" if legal.can_pass else "0")
            assert fields["quartets"] == (",".join(legal.quartets) or "-")
            if obs.live is None:
                assert fields["live"] == "-"
            else:
                live = fields["live"].split(",")
                assert live[:4] == [str(obs.live.author), str(obs.live.placed), obs.live.rank,
                                    str(obs.live.count)]  # fmt: skip
            events = fields["events"]
            if obs.events:
                texts = events.split(";")
                assert len(texts) == len(obs.events)
                seen_kinds |= {text.split(":")[0] for text in texts}
            action = policy.act(obs)
            deal.apply(seat, action)
    assert {"dealt", "played"} <= seen_kinds


def test_an_event_is_its_name_and_its_fields_in_order() -> None:
    rng = random.Random(2)
    deal = random_deal(rng)
    first = deal.observation(deal.to_act or 0).events[0]
    text = event_text(first)
    assert text.startswith(type(first).__name__.lower() + ":")
    assert text.count(":") == len(first)


def test_answers_are_parsed_strictly() -> None:
    assert parse_action("challenge") is CHALLENGE or parse_action("challenge") == CHALLENGE
    assert parse_action("believe") == BELIEVE and parse_action("pass") == PASS
    assert parse_action("  play 7h,JK 7 3 ") == Play(("7H", "JK"), "7", 3)
    assert parse_action("play AS A") == Play(("AS",), "A", 1)
    assert parse_action("quartets -") == Quartets(()) == parse_action("quartets")
    assert parse_action("quartets K,A") == Quartets(("K", "A"))
    for bad in ["", "fold", "play AS", "play AS A two", "challenge now", "x" * 5000]:
        with pytest.raises(BadAnswer):
            parse_action(bad)
