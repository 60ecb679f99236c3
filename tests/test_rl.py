"""The learning environments, judged by PettingZoo's, Gymnasium's and OpenSpiel's own
conformance tests, and the encoding checked against the engine."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

from arena import protocol
from arena.engine import Game, Play, Quartets, Ruleset
from arena.engine.events import Illegal
from arena.engine.match import Match
from arena.policies import RandomLegal
from arena.rl import aec_env, encoding, raw_env, single_agent_env
from arena.rl import openspiel as arena_openspiel

#: one override per variant of docs/rules.md (each with the preset it suits)
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("classic", {"calls": "open"}),
    ("classic", {"count": "honest"}),
    ("classic", {"decks": 2}),
    ("classic", {"jokers": 2}),
    ("classic", {"hidden_card": True}),
    ("classic", {"hand_size": 5}),
    ("classic", {"quartets": "always"}),
    ("classic", {"quartets": "after_pickup", "quartet_exempt": ["K"]}),
    ("classic", {"pass": True}),
    ("classic", {"final_call": True}),
    ("classic", {"end": "first_out"}),
    ("classic", {"deals": 3, "next_dealer": "loser"}),
    ("classic", {"sequence": "ascending"}),
    ("classic", {"believe": "table", "reveal": "one"}),
    ("classic", {"believe": "none"}),
    ("classic", {"after_pickup": "keep_value"}),
    ("classic", {"protect_single_lead": True, "first_player": "dealer"}),
    ("classic", {"banned_ranks": ["A"], "max_play": "possible"}),
    ("classic", {"deck": 52, "max_play": 3}),
    ("pagat", {}),
    ("russian", {}),
]


def _ids(variant: tuple[str, dict[str, Any]]) -> str:
    preset, options = variant
    return preset + "".join(f"-{k}={v}" for k, v in options.items())


@pytest.fixture(autouse=True)
def _quiet() -> None:
    """The conformance tests warn that a dict observation is not a Box (as for
    PettingZoo's own classic games)."""
    warnings.filterwarnings("ignore", category=UserWarning, module=r"(pettingzoo|gymnasium)\.")


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("preset", ["classic", "pagat", "russian"])
def test_the_aec_env_passes_pettingzoos_api_test(preset: str, players: int) -> None:
    api_test(aec_env(rules=preset, players=players), num_cycles=300)


@pytest.mark.parametrize("preset", ["classic", "pagat", "russian"])
def test_the_aec_env_passes_pettingzoos_seed_and_render_tests(preset: str) -> None:
    seed_test(lambda **kw: aec_env(rules=preset, **kw), num_cycles=300)
    render_test(lambda **kw: aec_env(rules=preset, **kw), {"ansi": lambda text: "seat 0" in text})


def _outcome(env: Any, call: Any) -> tuple[str, Any]:
    """What a call did: its error's type, or None; the environment's warnings are part of
    it (not a ResourceWarning the garbage collector raised meanwhile for another test's
    leftovers)."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            call()
            error = None
        except Exception as raised:  # the same kind of error from both is the point
            error = type(raised).__name__
    return error, [str(w.message) for w in said if not issubclass(w.category, ResourceWarning)]


def _state(env: Any) -> tuple[Any, ...]:
    agent = env.agent_selection
    observed = env.observe(agent)
    return (
        agent,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        observed["observation"].tobytes(),
        observed["action_mask"].tobytes(),
    )


def test_aec_envs_checks_do_what_pettingzoos_wrappers_do() -> None:
    """``aec_env()`` builds PettingZoo's three wrappers' checks in (for speed): driven by
    the same actions (legal ones, forbidden ones, out of range, None, calls before reset
    and after the end), it answers as the raw environment in those wrappers does."""
    from arena.rl.aec import pettingzoo_wrapped

    ours, theirs = aec_env(players=4), pettingzoo_wrapped(players=4)
    for env in (ours, theirs):
        assert _outcome(env, lambda env=env: env.step(0))[0] is not None, "no step before reset"
        assert _outcome(env, lambda env=env: env.observe("player_0"))[0] is not None
    rng, endings, errors = random.Random(7), set(), 0
    for match in range(60):
        ours.reset(seed=match)
        theirs.reset(seed=match)
        for _ in range(3000):
            mask = ours.observe(ours.agent_selection)["action_mask"]
            dead = ours.terminations[ours.agent_selection] or ours.truncations[ours.agent_selection]
            if dead:
                action: Any = None if rng.random() < 0.9 else 3
            else:
                legal = np.flatnonzero(mask)
                roll = rng.random()
                action = (
                    int(rng.choice(list(legal))) if roll < 0.995
                    else rng.choice([int(np.flatnonzero(mask == 0)[0]), 43, -1, None, "x", 2.0])
                )  # fmt: skip
            if rng.random() < 0.5:  # last() before the step, or not
                ours.last()
                theirs.last()
            done = _outcome(ours, lambda action=action: ours.step(action))
            assert done == _outcome(theirs, lambda action=action: theirs.step(action)), action
            errors += done[0] is not None
            if all(ours.terminations.values()) and ours.agents:
                endings.add("illegal" if any(ours.truncations.values()) else "played out")
            if not ours.agents:
                assert _outcome(ours, lambda: ours.step(None)) == _outcome(
                    theirs, lambda: theirs.step(None)
                )
                break
            assert _state(ours) == _state(theirs)
    assert endings == {"illegal", "played out"} and errors > 0, (endings, errors)


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_masked_sub_decisions_only_ever_make_legal_actions(
    variant: tuple[str, dict[str, Any]],
) -> None:
    """Under every option, random masked play finishes its matches with no illegal
    action, and the rewards are the places'."""
    preset, options = variant
    rng = random.Random(_ids(variant))
    for players in (3, 5):
        env = raw_env(rules=preset, options=options, players=players)
        for _ in range(3):
            env.reset(seed=rng.randrange(2**31))
            finished = dict.fromkeys(env.possible_agents, 0.0)
            steps, events = 0, []
            while env.agents:
                agent = env.agent_selection
                if env.terminations[agent]:
                    finished[agent] = env._cumulative_rewards[agent]
                    env.step(None)
                    continue
                events.extend(e for e in env.deal.events if isinstance(e, Illegal))
                legal = np.flatnonzero(env.observe(agent)["action_mask"])
                env.step(int(rng.choice(legal)))
                steps += 1
            assert steps > 0 and not events, events
            assert max(finished.values()) == 1.0 and min(finished.values()) <= 0.0


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"count": "honest"},
        {"jokers": 2, "decks": 2},
        {"quartets": "after_pickup", "pass": True},
    ],
    ids=["free", "honest", "jokers", "quartets"],
)
def test_every_action_a_bot_takes_can_be_made_in_sub_decisions(options: dict[str, Any]) -> None:
    """RandomLegal's actions (any cards, any allowed rank, a count above the cards
    placed, calls, passes, fours) are reachable through the mask, suits aside: what
    ``steps_for`` gives makes the same action (``examples/`` imitates bots with it)."""
    game = Game(Ruleset.parse("classic", options), 4)
    made: dict[str, int] = {}
    for index in range(40):
        deal = Match(game, seed=index).next_deal()
        policy = RandomLegal(index)
        while not deal.over:
            seat = deal.to_act
            action = policy.act(deal.observation(seat))
            if not isinstance(action, Play) or action.count <= encoding.MAX_COUNT:
                _assert_reachable(deal, action)
                made[action.kind] = made.get(action.kind, 0) + 1
            deal.apply(seat, action)
    assert made.get("play", 0) >= 200 and made.get("challenge", 0) > 0
    if options.get("quartets"):
        assert made.get("quartets", 0) > 0 and made.get("pass", 0) > 0


def _assert_reachable(deal: Any, action: Any) -> None:
    legal, hand = encoding.decision(deal)
    turn, made = encoding.Turn(), None
    for step in encoding.steps_for(action, legal):
        assert made is None, f"{action}: made before its last step"
        assert encoding.mask(legal, hand, turn)[step], f"{action}: step {step} is masked"
        made = encoding.advance(legal, hand, turn, step)
    if isinstance(action, Play):
        assert isinstance(made, Play)
        assert sorted(map(_rank, made.cards)) == sorted(map(_rank, action.cards))
        assert (made.rank, made.count) == (action.rank, action.count)
    elif isinstance(action, Quartets):
        assert sorted(made.ranks) == sorted(action.ranks)
    else:
        assert made == action


def _rank(card: str) -> str:
    return "JK" if card == "JK" else card[0]


def test_an_observation_holds_no_other_hand() -> None:
    """Two deals that differ only in the other seats' hands look the same to seat 0."""
    env = raw_env(players=4)
    env.reset(seed=3)
    seat0 = env.observe("player_0")["observation"].copy()
    hands = env.deal.hands
    hands[1], hands[2] = hands[2], hands[1]  # same sizes: 9 cards each in a 36-card deal
    assert np.array_equal(env.observe("player_0")["observation"], seat0)
    assert not np.array_equal(env.observe("player_1")["observation"], seat0)


@pytest.mark.parametrize("variant", VARIANTS[:6] + VARIANTS[-2:], ids=_ids)
def test_a_bot_computes_the_same_vector_from_what_it_is_sent(
    variant: tuple[str, dict[str, Any]],
) -> None:
    """``observe_view`` (a bot's observations and their events put together) is the
    environment's vector at every decision: the environment shows nothing a bot
    could not know."""
    preset, options = variant
    game = Game(Ruleset.parse(preset, options), 4)
    layout = encoding.Layout.of(game)
    rng = random.Random(_ids(variant))
    for index in range(4):
        match = Match(game, seed=index)
        while not match.over:
            deal = match.next_deal()
            seen: list[list[Any]] = [[] for _ in range(4)]
            cursors = [0] * 4
            policy = RandomLegal(rng.random())
            while not deal.over:
                seat = deal.to_act
                observation = deal.observation(seat, cursors[seat])
                cursors[seat] = len(deal.events)
                sent = protocol.request_from_observation(observation, 1, 0, 1.0)
                observation = protocol.observation_from_request(sent)  # as a bot has it
                seen[seat].extend(observation.events)
                turn = encoding.Turn()
                for other in range(4):
                    mine = turn if other == seat else None
                    view = deal.observation(other, cursors[other]) if other != seat else None
                    events = seen[other] + list(view.events) if view else seen[other]
                    expected = encoding.observe(deal, other, mine, layout)
                    got = encoding.observe_view(view or observation, events, mine, layout)
                    assert np.array_equal(got, expected), (seat, other)
                deal.apply(seat, policy.act(observation))
            match.record(deal)


def test_the_observation_layout_is_documented_in_order() -> None:
    layout = encoding.Layout(4)
    assert layout.size == 343 and encoding.Layout(3).size == 343
    offsets = list(layout.offsets.values())
    assert offsets == sorted(offsets) and layout.size == offsets[-1] + layout.parts["history"]
    env = raw_env(players=4)
    env.reset(seed=1)
    vector = env.observe(env.agent_selection)["observation"]
    at = layout.offsets
    hand = vector[at["hand"] : at["hand"] + len(encoding.CARD_RANKS)]
    assert hand.sum() == len(env.deal.hands[env.possible_agents.index(env.agent_selection)])
    assert vector[at["stage"] + encoding.STAGES.index("choose")] == 1


@pytest.mark.parametrize("preset", ["classic", "pagat", "russian"])
def test_the_single_agent_env_passes_gymnasiums_check_env(preset: str) -> None:
    def first_legal(seen: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(seen["action_mask"])[0])

    check_env(single_agent_env(opponents=["random", "honest", first_legal], rules=preset))


def test_the_single_agent_env_plays_sample_bots_policies_and_frozen_agents() -> None:
    def last_legal(seen: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(seen["action_mask"])[-1])

    env = single_agent_env(opponents=["counter", RandomLegal(2), last_legal], seat=None)
    rng = np.random.default_rng(0)
    seats, rewards = set(), []
    for episode in range(12):
        obs, info = env.reset(seed=episode)
        seats.add(info["seat"])
        done = False
        while not done:
            assert obs["action_mask"].any(), "the learner is asked only when it may act"
            obs, reward, done, truncated, info = env.step(
                rng.choice(np.flatnonzero(obs["action_mask"]))
            )
            assert not truncated
        rewards.append(reward)
        assert {seat for group in info["ranking"] for seat in group} == set(range(4))
    assert len(seats) > 1, "a random seat each match"
    places = {round(r, 6) for r in rewards}
    assert places <= {1.0, 0.333333, -0.333333, -1.0} and len(places) > 1


def test_an_illegal_action_ends_the_match_with_the_last_places_reward() -> None:
    env = single_agent_env(opponents=["random"], seat=0)
    obs, _ = env.reset(seed=5)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info) == (-1.0, True, {"illegal": illegal})
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize(
    ("players", "preset", "options"),
    [
        (3, "classic", "{}"),
        (4, "pagat", "{}"),
        (4, "russian", "{}"),
        (5, "classic", '{"decks": 2}'),
    ],
)
def test_the_openspiel_game_passes_random_sim_test(players: int, preset: str, options: str) -> None:
    game = pyspiel.load_game(
        arena_openspiel.NAME, {"players": players, "preset": preset, "options": options}
    )
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_the_openspiel_deal_is_the_engines_deal_from_the_same_shuffle() -> None:
    """Chance outcomes that place the deck as a seed's shuffle does deal what the
    engine deals from that seed."""
    game = pyspiel.load_game(arena_openspiel.NAME, {"players": 4, "preset": "pagat"})
    engine = Ruleset.parse("pagat")
    expected = Match(Game(engine, 4), seed="s").next_deal()
    positions = list(range(len(expected.game.deck)))
    random.Random("s/0").shuffle(positions)
    state = game.new_initial_state()
    for position in positions:
        assert state.is_chance_node()
        state.apply_action(position)
    assert not state.is_chance_node()
    assert state.deal.hands == expected.hands and state.deal.hidden == expected.hidden


def test_tabular_q_learning_from_openspiel_runs_on_the_game() -> None:
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import random_agent, tabular_qlearner

    game = pyspiel.load_game(arena_openspiel.NAME, {"players": 3, "options": '{"hand_size": 3}'})
    env = rl_environment.Environment(game)
    actions = env.action_spec()["num_actions"]
    learner = tabular_qlearner.QLearner(player_id=0, num_actions=actions)
    agents = [learner, *(random_agent.RandomAgent(i, actions) for i in (1, 2))]
    returns = []
    for _ in range(10):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
        for agent in agents:
            agent.step(step)
        returns.append(step.rewards)
    assert learner._q_values, "the learner updated its table"
    assert all(-1.0 <= r <= 1.0 for rewards in returns for r in rewards)
