"""Random play under random rulesets: the invariants hold after every step.

Cards are conserved, every deal ends (by the rules or ``max_turns``), the ranking
is a permutation of the seats, and replaying the recorded steps gives the same
events. The driver also breaks rules, calls out of turn and forfeits seats.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.engine import Deal, Game, Phase, Ruleset
from arena.engine.events import Illegal, IllegalReason, illegal_reason, illegal_text
from arena.policies import RandomLegal
from tests.support.engine import Recorder, random_game, replay, seeds, table_cards


def check_state(deal: Deal, dealt: Counter[str]) -> None:
    assert table_cards(deal) == dealt, "cards are conserved"
    assert deal.pile_count == len(deal.pile_cards())
    in_hands = sum(map(len, deal.hands))
    assert deal.cards_in_play() == in_hands + deal.pile_count + len(deal.stock)
    if deal.over:
        assert deal.round_rank is None
    assert all(not deal.active[s] for s in deal.exits + deal.forfeits)
    if deal.over:
        assert deal.to_act is None and deal.phase is Phase.OVER
        return
    assert deal.to_act is not None and deal.active[deal.to_act]
    assert deal.live == (deal.phase in (Phase.RESPOND, Phase.FINAL_CALL)) or deal.phase in (
        Phase.QUARTETS,
    )
    if deal.phase is Phase.LEAD:
        assert deal.pile_count == 0 and deal.round_rank is None
    if deal.options.hand_size is None:
        assert not deal.stock


def play_recorded(seed: int, game: Game | None = None) -> tuple[Deal, Recorder, tuple]:
    rng = random.Random(seed)
    game = game or random_game(rng)
    dealer = rng.randrange(game.players)
    hands, stock, hidden = game.shuffled_layout(seed, dealer)
    layout = (hands, stock, hidden, dealer, seed)
    deal = Deal(game, hands, dealer=dealer, stock=stock, hidden=hidden, seed=seed)
    dealt = table_cards(deal)
    assert dealt == Counter(game.deck), "the whole deck is dealt"
    recorder = Recorder(rng)
    policies = [RandomLegal(f"{seed}/{s}") for s in range(game.players)]
    check_state(deal, dealt)
    while not deal.over:
        recorder.step(deal, policies[deal.to_act])
        check_state(deal, dealt)
        assert deal.turns <= game.options.max_turns
    return deal, recorder, layout


@pytest.mark.parametrize("seed", seeds(400))
def test_random_rulesets_keep_every_invariant(seed: int) -> None:
    deal, recorder, layout = play_recorded(seed)
    ranked = [seat for group in deal.ranking for seat in group]
    assert sorted(ranked) == list(range(deal.players)), "the ranking is a permutation of seats"
    assert ranked[-len(deal.forfeits) or len(ranked) :] == list(reversed(deal.forfeits)) or not (
        deal.forfeits
    ), "forfeits rank last, earlier ones lower"
    again = replay(deal.game, deal, layout, recorder.steps)
    assert again.events == deal.events, "replaying the recorded steps gives the same events"
    assert again.ranking == deal.ranking


@pytest.mark.parametrize("preset", ["classic", "pagat", "russian"])
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_presets_end_without_max_turns_under_legal_play(preset: str, players: int) -> None:
    game = Game(Ruleset.parse(preset), players)
    for seed in range(20):
        hands, stock, hidden = game.shuffled_layout(seed, 0)
        deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden, seed=seed)
        policies = [RandomLegal(seed * 10 + s) for s in range(players)]
        while not deal.over:
            deal.apply(deal.to_act, policies[deal.to_act].act(deal.observation(deal.to_act)))
        assert deal.end_reason == "finished"
        assert not any(isinstance(e, Illegal) for e in deal.events), "legal play is legal"
        assert len(deal.exits) == players - 1


def test_max_turns_stops_a_deal_and_ranks_by_cards_held() -> None:
    game = Game(Ruleset.parse("classic", {"max_turns": 5}), 4)
    hands, stock, hidden = game.shuffled_layout(3, 0)
    deal = Deal(game, hands, dealer=0, stock=stock, hidden=hidden)
    policy = RandomLegal(1)
    while not deal.over:
        deal.apply(deal.to_act, policy.act(deal.observation(deal.to_act)))
    assert deal.turns == 5 and deal.end_reason == "max_turns"
    sizes = [len(deal.hands[group[0]]) for group in deal.ranking]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes), "fewer cards rank higher"


def test_same_seed_same_deal_and_events() -> None:
    game = Game(Ruleset.parse("classic"), 4)
    assert game.shuffled_layout(42, 1) == game.shuffled_layout(42, 1)
    assert game.shuffled_layout(42, 1) != game.shuffled_layout(43, 1)
    first, _, _ = play_recorded(7, game)
    second, _, _ = play_recorded(7, game)
    assert first.events == second.events


def test_every_illegal_action_names_the_rule_it_broke() -> None:
    """Random rule breaking under random rulesets: each ``Illegal`` event's text reads back
    as one :class:`IllegalReason`, and that reason's text with the same details is the
    text again (one table says both ways)."""
    seen: Counter[IllegalReason] = Counter()
    for seed in range(300):
        deal, _, _ = play_recorded(seed)
        for event in deal.events:
            if isinstance(event, Illegal):
                seen[event.rule] += 1
    assert len(seen) >= 10, seen  # the driver breaks most rules somewhere in 300 deals
    assert illegal_text(IllegalReason.WRONG_RANK, rank="Q", due="K") == "rank 'Q' where 'K' is due"
    assert Illegal(0, "rank 'Q' where 'K' is due").rule is IllegalReason.WRONG_RANK
    assert Illegal(0, illegal_text(IllegalReason.LATE_ANSWER)).rule is IllegalReason.LATE_ANSWER
    with pytest.raises(ValueError, match="not the text of an illegal action"):
        illegal_reason("a made-up rule")


@pytest.mark.parametrize("reason", list(IllegalReason))
def test_each_illegal_reason_reads_back_from_its_text(reason: IllegalReason) -> None:
    details = {"kind": "challenge", "limit": 4, "rank": "7", "due": "8", "phase": "lead"}
    text = illegal_text(reason, **details, ranks=["Q", "K"])
    assert illegal_reason(text) is reason
