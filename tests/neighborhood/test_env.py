"""neighborhood_v0 as a PettingZoo AEC env: API, seeding, copies and snapshots, observations, masks,
eliminations, rendering. Rule ids (L1-L40) refer to neighborhood.md and boardenvs/neighborhood/env.py.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from env_helpers import (
    check_copies_follow,
    check_global_rngs_do_not_matter,
    check_illegal_action_loses,
    check_illegal_action_raises,
    check_observe_is_pure,
    check_snapshots_replay,
    fixed_rule,
    json_copy,
    masked_random,
    play,
    play_out,
    random_game,
)
from pettingzoo.test import api_test, seed_test

import boardenvs
from boardenvs import neighborhood_v0
from boardenvs.core.state import IllegalActionError
from boardenvs.neighborhood.board import COLOR_NAMES
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.env import OBS_SIZE, SEAT
from boardenvs.neighborhood.rules import (
    CH_MOVE,
    D_BRANCH,
    NUM_ACTIONS,
    OPTION_A,
    NeighborhoodOptions,
    NeighborhoodState,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighborhood_helpers import FIRST_BOARD, cell, draw_card, position  # noqa: E402

COUNTS = [3, 4, 5]


# -- helpers ----------------------------------------------------------------------------------------
# -- PettingZoo conformance -------------------------------------------------------------------------
def random_rules_game(num_players: int, seed: int, **options):
    """Every node of a seeded random game on the rules state, with the action taken from it."""
    return random_game(NeighborhoodState(NeighborhoodOptions(num_players=num_players, **options)), seed)


@pytest.mark.parametrize("num_players", COUNTS)
def test_api_test(num_players):
    api_test(neighborhood_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", COUNTS)
def test_seed_test(num_players):
    seed_test(lambda: neighborhood_v0.env(num_players=num_players), num_cycles=300)


def test_api_and_seed_test_with_move_features():
    api_test(neighborhood_v0.env(num_players=4, action_features=True), num_cycles=300)
    seed_test(lambda: neighborhood_v0.env(num_players=3, action_features=True), num_cycles=300)


def test_observe_with_move_features_has_no_side_effects():
    env = neighborhood_v0.raw_env(num_players=4, action_features=True)
    env.reset(seed=5)
    assert check_observe_is_pure(env, masked_random(6)) > 10


def test_seed_test_other_options():
    seed_test(
        lambda: neighborhood_v0.env(num_players=5, spinner=4, triple_arrival_killer="higher"), num_cycles=200
    )


def test_reset_with_same_seed_repeats_the_game_and_seeds_differ():
    env = neighborhood_v0.env(num_players=4)
    env.reset(seed=11)
    first = play(env, masked_random(5))
    env.reset(seed=11)
    second = play(env, masked_random(5))
    assert first == second and (first[-1][4] or first[-1][5])
    games = set()
    for seed in range(6):
        env.reset(seed=seed)
        games.add(tuple(r[-1] for r in play(env, fixed_rule, max_steps=5)))
    assert len(games) > 1


# -- pickling, clones, dicts ------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [3, 5])
def test_pickled_env_plays_the_same(num_players):
    env = neighborhood_v0.env(num_players=num_players)
    env.reset(seed=3)
    play(env, fixed_rule, max_steps=10)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.game.options == env.unwrapped.game.options
    env.reset(seed=21)
    copy.reset(seed=21)
    a, b = play(env, masked_random(8)), play(copy, masked_random(8))
    assert a == b and len(a) > 10


@pytest.mark.parametrize("num_players", COUNTS)
def test_clone_and_dict_round_trip_play_on_identically(num_players):
    for seed in range(3):
        # every node is checked against its copies, with new clone/JSON checks every 3rd
        state, nodes = check_copies_follow(random_rules_game(num_players, seed), 29, 60, check_every=3)
        assert state.is_terminal() and nodes > 100


def test_mutating_a_copy_leaves_the_original_alone():
    side = np.random.default_rng(99)
    for step, (state, _action) in enumerate(random_rules_game(4, 4)):
        if step % 97:
            continue
        before = json.dumps(state.to_dict(), sort_keys=True)
        legal_before = list(state.legal_actions())
        for copy in (state.clone(), json_copy(state)):
            play_out(copy, side)
            copy.hp[0] = 3
            copy.decks[0].bottom.append(1)
            copy.draw.append(2)
        assert json.dumps(state.to_dict(), sort_keys=True) == before
        assert list(state.legal_actions()) == legal_before
        data = state.to_dict()
        data["hp"][0] = 1
        data["stack"].append([0])
        assert json.dumps(state.to_dict(), sort_keys=True) == before


def test_fast_path_equals_the_general_resolution(monkeypatch):
    """The quiet-turn fast path does exactly what the frame handlers would do."""
    fast = [json.dumps(s.to_dict(), sort_keys=True) for s, _ in random_rules_game(4, 12)]
    monkeypatch.setattr(NeighborhoodState, "_quiet_turn", lambda self, outcome: False)
    slow = [json.dumps(s.to_dict(), sort_keys=True) for s, _ in random_rules_game(4, 12)]
    assert fast == slow and len(fast) > 200


# -- whole-env snapshots ----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", COUNTS)
def test_env_state_dict_round_trip(num_players):
    full = check_snapshots_replay(lambda: neighborhood_v0.raw_env(num_players=num_players), seed=num_players)
    assert len(full) > 10


def test_state_dict_of_other_options_is_refused():
    env = neighborhood_v0.raw_env(num_players=3)
    env.reset(seed=0)
    other = neighborhood_v0.raw_env(num_players=4)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="options"):
        other.load_state_dict(env.state_dict())


# -- observe() is pure; global RNGs do not matter ---------------------------------------------------
def test_observe_has_no_side_effects():
    env = neighborhood_v0.raw_env(num_players=4)
    env.reset(seed=5)
    assert check_observe_is_pure(env, masked_random(6)) > 10


@pytest.mark.parametrize("num_players", [3, 5])
def test_global_rng_perturbation_does_not_change_play(num_players):
    check_global_rngs_do_not_matter(lambda: neighborhood_v0.env(num_players=num_players))


# -- masks, observations, eliminations --------------------------------------------------------------
@pytest.mark.parametrize("num_players", COUNTS)
def test_masks_and_observations(num_players):
    for wrapped in (False, True):
        env = (neighborhood_v0.env if wrapped else neighborhood_v0.raw_env)(num_players=num_players)
        kinds = set()
        for game in range(4):
            env.reset(seed=100 * num_players + 10 * wrapped + game)
            choose = masked_random(game)
            step = 0
            while env.agents:
                state = env.unwrapped.game_state
                acting = env.agent_selection
                _, _, term, trunc, _ = env.last()
                # The mask is on the player to move, also while an eliminated agent takes its dead step.
                to_move = None if state.is_terminal() else env.possible_agents[state.current_player()]
                assert term or trunc or acting == to_move
                for agent in env.possible_agents:
                    if agent not in env.agents:
                        continue
                    obs = env.observe(agent)
                    mask, o = obs["action_mask"], obs["observation"]
                    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                    assert o.dtype == np.float32 and o.shape == (OBS_SIZE,)
                    assert np.all(o >= 0.0) and np.all(o <= 1.0)
                    assert env.observation_space(agent).contains(obs)
                    player = env.possible_agents.index(agent)
                    assert o[SEAT * 0 + 225] == pytest.approx(state.hp[player] / 10)
                    if agent == to_move:
                        assert state.current_player() == player
                        assert list(np.flatnonzero(mask)) == list(state.legal_actions())
                        assert mask.sum() >= 2  # one-option decisions are applied by the state
                        assert o[239] == 1.0  # "I decide now"
                        kinds.add(state.decision_kind())
                    else:
                        assert not mask.any()
                env.step(None if (term or trunc) else choose(env.observe(acting)["action_mask"], step))
                step += 1
        assert len(kinds) >= 6


def test_observation_layout_in_the_observers_perspective():
    s = position(pos={0: (7, 3), 1: (2, 2), 2: (12, 12), 3: (10, 1)}, hp={2: 4})
    s.pending[3] = 2
    s.trap_cell[0], s.trap_owner[0] = cell(3, 3), 1
    game = neighborhood_v0.NeighborhoodGame()
    o1 = game.observe(s, 1)
    assert o1[cell(2, 2)] == 1.0 and o1[225] == 1.0 and o1[227 + 1] == 1.0  # me: Light Blue
    assert o1[SEAT + cell(12, 12)] == 1.0 and o1[SEAT + 225] == pytest.approx(0.4)  # next: Purple
    assert o1[2 * SEAT + 232 + 2] == 1.0  # Yellow's pending City card
    assert o1[3 * SEAT + cell(7, 3)] == 1.0 and o1[3 * SEAT + 238] == 1.0  # Silver, to move
    assert o1[1202 + cell(3, 3)] == 1.0 and o1[1427 + cell(3, 3)] == 0.0  # my trap
    o0 = game.observe(s, 0)
    assert o0[1427 + cell(3, 3)] == 1.0 and o0[1202 + cell(3, 3)] == 0.0
    assert not o0[4 * SEAT : 5 * SEAT].any()  # no fifth seat with four players
    # The card being resolved and its roles, seen from the Victim's seat.
    draw_card(s, KILLER_DECK, "Mercy", me=0, k=0, v=1)
    assert s.decision_kind() == D_BRANCH
    o1 = game.observe(s, 1)
    assert o1[1753 + D_BRANCH] == 1.0 and o1[1762 + 4] == 1.0  # Mercy is the Killer deck's 5th kind
    assert o1[1810 + 5 * 1 + 3] == 1.0 and o1[1810 + 5 * 2 + 0] == 1.0  # K three seats on, V me
    s.apply_action(OPTION_A)
    assert game.observe(s, 1)[1762:1830].sum() == 0.0


def test_observation_slots_follow_the_table_and_squares_the_15_wide_frame():
    # L9: seat slots go around the table (here clockwise 0, 2, 1, 3), not by seat number.
    s = position(
        pos={0: (0, 0), 1: (0, 8), 2: (8, 8), 3: (8, 0)},
        hp={0: 7, 2: 5, 3: 3},
        board_size=9,
        wild_spaces=None,
    )
    s._set_table([0, 2, 1, 3])
    game = neighborhood_v0.NeighborhoodGame()
    o1 = game.observe(s, 1)
    assert [o1[r * SEAT + 225] for r in range(4)] == pytest.approx([1.0, 0.3, 0.7, 0.5])  # seats 1, 3, 0, 2
    assert o1[cell(0, 8)] == 1.0 and o1[SEAT + cell(8, 0)] == 1.0  # (row, col) is 15 row + col on 9x9 too
    assert o1[2 * SEAT + 238] == 1.0  # seat 0, two places on, is to move
    assert game.observe(s, 0)[1200] == 1.0  # play goes clockwise
    s.direction = -1
    assert game.observe(s, 0)[1200] == 0.0


def test_elimination_terminates_the_agent_and_play_goes_on():
    env = neighborhood_v0.raw_env(num_players=4, **FIRST_BOARD)  # the scripted positions' board
    env.reset(seed=0)
    s = draw_card(position(hp={1: 2}), KILLER_DECK, "Mercy", me=0, k=0, v=1)
    snap = env.state_dict()
    snap["state"] = s.to_dict()
    snap["agent_selection"] = "player_0"
    env.load_state_dict(snap)
    env.step(OPTION_A)  # Mercy: the Victim loses 2 HP and is out (L21)
    assert env.terminations["player_1"] and env.rewards["player_1"] == -1.0
    assert env.game_state.is_out(1) and not env.game_state.is_terminal()
    assert env.agent_selection == "player_1"  # its dead step comes first
    _, reward, term, _, _ = env.last()
    assert term and reward == -1.0
    env.step(None)
    assert "player_1" not in env.agents and env.agent_selection != "player_1"
    assert not any(env.terminations[a] for a in env.agents)


# -- construction, options, illegal actions, rendering ----------------------------------------------
def test_make_is_the_same_as_env():
    by_name = boardenvs.make("neighborhood_v0", num_players=3)
    direct = neighborhood_v0.env(num_players=3)
    assert type(by_name) is type(direct)
    by_name.reset(seed=4)
    direct.reset(seed=4)
    assert play(by_name, masked_random(0)) == play(direct, masked_random(0))
    assert isinstance(boardenvs.make_game("neighborhood_v0"), neighborhood_v0.NeighborhoodGame)
    assert type(boardenvs.make("neighborhood_v0", raw=True)) is neighborhood_v0.raw_env


@pytest.mark.parametrize("factory", [neighborhood_v0.env, neighborhood_v0.raw_env])
def test_unknown_and_bad_options_raise(factory):
    with pytest.raises(ValueError, match="num_playerz"):
        factory(num_playerz=3)
    with pytest.raises(ValueError, match="num_players"):
        factory(num_players=2)
    with pytest.raises(ValueError, match="spinner"):
        factory(spinner=5)
    with pytest.raises(ValueError, match="render_mode"):
        factory(render_mode="svg")


def test_illegal_action_through_wrapped_env_loses_the_game():
    check_illegal_action_loses(neighborhood_v0.env(num_players=3), warmup=1)


def test_illegal_action_on_raw_env_raises_and_changes_nothing():
    check_illegal_action_raises(neighborhood_v0.raw_env(num_players=4))
    chance = position()
    before = chance.to_dict()
    with pytest.raises(IllegalActionError):
        chance.apply_action(8 * 7 + 0)  # a die face 8 is not a chance outcome
    assert chance.to_dict() == before


@pytest.mark.parametrize("num_players", COUNTS)
def test_ansi_render(num_players):
    env = neighborhood_v0.env(num_players=num_players, render_mode="ansi")
    env.reset(seed=num_players)
    colours = [COLOR_NAMES[c] for c in NeighborhoodOptions(num_players=num_players).seat_colors]
    for step in range(5):
        text = env.render()
        assert isinstance(text, str) and "to decide" in text and "HP" in text
        assert all(colour in text for colour in colours)
        env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))
    s = env.unwrapped.game_state
    assert s.action_to_string(s.legal_actions()[0])
    assert s.current_player() >= 0 and s._chance[0] in (CH_MOVE,) + tuple(range(4))
