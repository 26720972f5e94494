"""neighborhood_v0 as a PettingZoo AEC env, what only Neighborhood has: the observation layout in the
observer's perspective, its decisions as the masks offer them, eliminations, the quiet-turn fast path,
copies of its state's containers, option errors and the rendered text. The contract every env keeps
(API, seeding, pickling, copies and snapshots, masks, dead steps, illegal actions, render modes) is
tests/test_env_contract.py. Rule ids (L1-L40) refer to neighborhood.md and boardenvs/neighborhood/env.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from env_helpers import fixed_rule, json_copy, masked_random, play_out, random_game

from boardenvs import neighborhood_v0
from boardenvs.core.state import IllegalActionError
from boardenvs.neighborhood.board import COLOR_NAMES
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.env import SEAT
from boardenvs.neighborhood.rules import (
    CH_MOVE,
    D_BRANCH,
    OPTION_A,
    NeighborhoodOptions,
    NeighborhoodState,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighborhood_helpers import FIRST_BOARD, cell, draw_card, position  # noqa: E402

COUNTS = [3, 4, 5]


# -- helpers ----------------------------------------------------------------------------------------
def random_rules_game(num_players: int, seed: int, **options):
    """Every node of a seeded random game on the rules state, with the action taken from it."""
    return random_game(NeighborhoodState(NeighborhoodOptions(num_players=num_players, **options)), seed)


# -- copies ---------------------------------------------------------------------------------------
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


# -- masks, observations, eliminations --------------------------------------------------------------
@pytest.mark.parametrize("num_players", COUNTS)
def test_decisions_and_own_seat_features(num_players):
    # Masks against the legal actions, dtypes, bounds and spaces: tests/test_env_contract.py.
    env = neighborhood_v0.raw_env(num_players=num_players)
    kinds = set()
    for game in range(4):
        env.reset(seed=100 * num_players + game)
        choose = masked_random(game)
        step = 0
        while env.agents:
            state = env.game_state
            _, _, term, trunc, _ = env.last()
            to_move = None if state.is_terminal() else env.possible_agents[state.current_player()]
            for agent in env.agents:
                obs = env.observe(agent)
                mask, o = obs["action_mask"], obs["observation"]
                player = env.possible_agents.index(agent)
                assert o[SEAT * 0 + 225] == pytest.approx(state.hp[player] / 10)
                if agent == to_move:
                    assert mask.sum() >= 2  # one-option decisions are applied by the state
                    assert o[239] == 1.0  # "I decide now"
                    kinds.add(state.decision_kind())
                else:
                    assert o[239] == 0.0
            env.step(
                None if (term or trunc) else choose(env.observe(env.agent_selection)["action_mask"], step)
            )
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


# -- options, chance outcomes, rendering -----------------------------------------------------------
@pytest.mark.parametrize("factory", [neighborhood_v0.env, neighborhood_v0.raw_env])
def test_bad_options_raise(factory):
    # Unknown keys and render modes: tests/test_env_contract.py.
    with pytest.raises(ValueError, match="num_players"):
        factory(num_players=2)
    with pytest.raises(ValueError, match="spinner"):
        factory(spinner=5)


def test_an_outcome_that_is_not_a_chance_outcome_raises_and_changes_nothing():
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
