"""sorry_v0 as a PettingZoo AEC env, what only Sorry! has: the observation layout and its perspective,
seat rotation, copies of its state's containers, option errors and the rendered text. The contract every
env keeps (API, seeding, pickling, copies and snapshots, masks, dead steps, illegal actions, render
modes) is tests/test_env_contract.py.

Rule ids (S1-S24) refer to ``docs/rules/sorry.md`` and ``boardenvs/sorry/rules.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from env_helpers import fixed_rule, json_copy, masked_random, play_out, random_game

import boardenvs
from boardenvs import sorry_v0
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.sorry.board import COLOR_NAMES, HOME, NUM_POSITIONS, SAFE_BASE, START, TRACK_LEN
from boardenvs.sorry.cards import CARD_COUNTS, CARD_NAMES, ELEVEN, SEVEN, SORRY
from boardenvs.sorry.rules import PASS, PAWNS, SorryOptions, SorryState

CONFIGS = [(n, rule) for n in (2, 3, 4) for rule in ("own_color", "classic")]
OBS_SIZE = 843
COLOR_BASE = 4 * PAWNS * NUM_POSITIONS  # 804
CARD_BASE = COLOR_BASE + 16  # 820
PILE_BASE = CARD_BASE + len(CARD_COUNTS)  # 831
TURN_INDEX = PILE_BASE + len(CARD_COUNTS)  # 842


# -- helpers ----------------------------------------------------------------------------------------
def random_rules_game(num_players: int, slide_rule: str, seed: int, **options):
    """Every node of a seeded random game on the rules state, with the action taken from it."""
    return random_game(
        SorryState(SorryOptions(num_players=num_players, slide_rule=slide_rule, **options)), seed
    )


def rotate_dict(data: dict, num_players: int, colors: tuple[int, ...]) -> dict:
    """The same position with every seat's pawns moved to the next seat (track squares shifted by the
    colour difference) and the move passed on likewise. Requires a rotation-symmetric seating."""
    diffs = {(colors[(p + 1) % num_players] - colors[p]) % 4 for p in range(num_players)}
    assert len(diffs) == 1, "seating is not symmetric under a one-seat rotation"
    shift = 15 * diffs.pop()
    pos = data["pos"]
    new_pos = [0] * len(pos)
    for p in range(num_players):
        q = (p + 1) % num_players
        for i in range(PAWNS):
            at = pos[PAWNS * p + i]
            new_pos[PAWNS * q + i] = (at + shift) % TRACK_LEN if at < TRACK_LEN else at
    rotated = json.loads(json.dumps(data))
    rotated["pos"] = new_pos
    rotated["to_move"] = (data["to_move"] + 1) % num_players
    if data["winner"] >= 0:
        rotated["winner"] = (data["winner"] + 1) % num_players
    return rotated


def load_position(env, state_data: dict, agent: str) -> None:
    """Put ``env`` (raw, reset) at the rules position ``state_data`` with ``agent`` to act."""
    snap = env.state_dict()
    snap["state"] = state_data
    snap["agent_selection"] = agent
    env.load_state_dict(snap)


# -- clones and dict round trips of the rules state -------------------------------------------------
@pytest.mark.parametrize("num_players,slide_rule", [(2, "classic"), (3, "own_color"), (4, "own_color")])
def test_mutating_a_copy_leaves_the_original_alone(num_players, slide_rule):
    side_rng = np.random.default_rng(99)
    for step, (state, _action) in enumerate(random_rules_game(num_players, slide_rule, 4)):
        if step % 17:
            continue
        before = json.dumps(state.to_dict(), sort_keys=True)
        legal_before = list(state.legal_actions())
        for copy in (state.clone(), json_copy(state)):
            # Play the copy to the end with another generator ...
            play_out(copy, side_rng)
            # ... and scribble on its containers.
            copy.pos[0] = HOME
            copy.pos[-1] = 7
            copy.deck.discard(0)
            copy.deck.unseen[1] += 3
            copy.deck.discards[2] += 1
        assert json.dumps(state.to_dict(), sort_keys=True) == before
        assert list(state.legal_actions()) == legal_before
        # The dict is a copy too: editing it does not reach back into the state.
        data = state.to_dict()
        data["pos"][0] = 5
        data["deck"]["unseen"][0] = 99
        assert json.dumps(state.to_dict(), sort_keys=True) == before


# -- masks and observations -------------------------------------------------------------------------
def expected_slot(state: SorryState, observer: int, r: int, i: int) -> int:
    """Where pawn ``i`` of relative seat ``r`` should be hot, per the env docstring."""
    n = state.options.num_players
    p = (observer + r) % n
    at = state.pos[PAWNS * p + i]
    if at < TRACK_LEN:
        at = (at - 15 * state.colors[observer]) % TRACK_LEN
    return NUM_POSITIONS * (PAWNS * r + i) + at


def check_observation(env, state: SorryState, agent: str, obs: dict) -> None:
    observation = obs["observation"]
    assert observation.shape == (OBS_SIZE,)
    player = env.possible_agents.index(agent)
    n = state.options.num_players
    # Pawn one-hots in the observer's perspective; absent seats all zero.
    hot = set()
    for r in range(n):
        for i in range(PAWNS):
            slot = expected_slot(state, player, r, i)
            block = observation[slot - slot % NUM_POSITIONS : slot - slot % NUM_POSITIONS + NUM_POSITIONS]
            assert block.sum() == 1.0 and observation[slot] == 1.0
            hot.add(slot)
    assert not observation[NUM_POSITIONS * PAWNS * n : COLOR_BASE].any()
    # Seat colours relative to mine.
    colours = observation[COLOR_BASE:CARD_BASE].reshape(4, 4)
    for r in range(4):
        if r < n:
            rel = (state.colors[(player + r) % n] - state.colors[player]) % 4
            assert colours[r].sum() == 1.0 and colours[r, rel] == 1.0
        else:
            assert not colours[r].any()
    # The drawn card, seen by everybody.
    card = observation[CARD_BASE:PILE_BASE]
    if state.card >= 0:
        assert card.sum() == 1.0 and card[state.card] == 1.0
    else:
        assert not card.any()
    pile = np.asarray(state.deck.draw_pile_counts(), dtype=np.float32) / np.asarray(CARD_COUNTS)
    assert np.allclose(observation[PILE_BASE:TURN_INDEX], pile)
    assert observation[TURN_INDEX] == pytest.approx(state.turn / state.options.max_turns)


@pytest.mark.parametrize("num_players,slide_rule", CONFIGS)
def test_observations_follow_the_documented_layout(num_players, slide_rule):
    # Masks against the legal actions, dtypes and spaces: tests/test_env_contract.py.
    env = sorry_v0.raw_env(num_players=num_players, slide_rule=slide_rule)
    env.reset(seed=num_players * 10)
    choose = masked_random(1)
    step = 0
    seen_cards = set()
    while env.agents:
        state = env.game_state
        _, _, term, trunc, _ = env.last()
        for agent in env.possible_agents:
            check_observation(env, state, agent, env.observe(agent))
        if not (term or trunc):
            seen_cards.add(state.card)
        env.step(None if (term or trunc) else choose(env.observe(env.agent_selection)["action_mask"], step))
        step += 1
    assert step > 50
    assert len(seen_cards) == len(CARD_NAMES)


# -- the perspective of the player to move ----------------------------------------------------------
def constructed_position(slide_rule: str, card: int) -> dict:
    """Pawns on the track, in safety zones, Home and Start for all four colours; ``card`` drawn."""
    data = SorryState(SorryOptions(num_players=4, slide_rule=slide_rule)).to_dict()
    data["pos"] = [
        5, SAFE_BASE + 1, START,  # seat 0 (Red)
        20, HOME, 33,  # seat 1 (Blue)
        START, START, 47,  # seat 2 (Yellow)
        59, SAFE_BASE + 3, 0,  # seat 3 (Green)
    ]  # fmt: skip
    unseen = list(CARD_COUNTS)
    discards = [0] * len(CARD_COUNTS)
    for kind in (0, 3, 10, 7, 0):
        unseen[kind] -= 1
        discards[kind] += 1
    unseen[card] -= 1
    data["deck"] = {"unseen": unseen, "bottom": [], "discards": discards}
    data["card"] = card
    data["turn"] = 6
    data["to_move"] = 0
    return data


@pytest.mark.parametrize("slide_rule", ["own_color", "classic"])
@pytest.mark.parametrize("card", [SEVEN, ELEVEN, SORRY, 3], ids=lambda c: f"card_{CARD_NAMES[c]}")
def test_observation_is_in_the_perspective_of_the_mover(slide_rule, card):
    data = constructed_position(slide_rule, card)
    rotated = rotate_dict(data, 4, (0, 1, 2, 3))
    assert rotated["pos"][3:6] == [20, SAFE_BASE + 1, START]  # Red's pawns, now Blue's, one side on
    env_a = sorry_v0.raw_env(num_players=4, slide_rule=slide_rule)
    env_a.reset(seed=0)
    load_position(env_a, data, "player_0")
    env_b = sorry_v0.raw_env(num_players=4, slide_rule=slide_rule)
    env_b.reset(seed=1)
    load_position(env_b, rotated, "player_1")

    mover_a = env_a.observe("player_0")
    mover_b = env_b.observe("player_1")
    assert np.array_equal(mover_a["observation"], mover_b["observation"])
    assert np.array_equal(mover_a["action_mask"], mover_b["action_mask"])
    assert mover_a["action_mask"].any()
    for q in range(4):
        a = env_a.observe(f"player_{q}")["observation"]
        b = env_b.observe(f"player_{(q + 1) % 4}")["observation"]
        assert np.array_equal(a, b)
    # Not trivially equal: the same seat sees a different picture after the rotation.
    assert not np.array_equal(mover_a["observation"], env_b.observe("player_0")["observation"])

    # The documented layout, read off the constructed position from Red's seat.
    obs = mover_a["observation"]
    expected = {
        0 * NUM_POSITIONS + 5,  # my pawn 0 on square 5
        1 * NUM_POSITIONS + SAFE_BASE + 1,  # my pawn 1 on my safety square 1
        2 * NUM_POSITIONS + START,
        3 * NUM_POSITIONS + 20,  # next seat (Blue) pawn 0
        4 * NUM_POSITIONS + HOME,
        5 * NUM_POSITIONS + 33,
        6 * NUM_POSITIONS + START,
        7 * NUM_POSITIONS + START,
        8 * NUM_POSITIONS + 47,
        9 * NUM_POSITIONS + 59,
        10 * NUM_POSITIONS + SAFE_BASE + 3,
        11 * NUM_POSITIONS + 0,
        COLOR_BASE + 0,
        COLOR_BASE + 4 + 1,
        COLOR_BASE + 8 + 2,
        COLOR_BASE + 12 + 3,
        CARD_BASE + card,
    }
    assert set(np.flatnonzero(obs[:PILE_BASE])) == expected
    # Blue's view of the same position: Blue's square 20 is its square 5, Red is three seats on.
    blue = env_a.observe("player_1")["observation"]
    assert blue[0 * NUM_POSITIONS + 5] == 1.0
    assert blue[9 * NUM_POSITIONS + (5 - 15) % TRACK_LEN] == 1.0
    assert blue[COLOR_BASE + 12 + 3] == 1.0
    assert blue[CARD_BASE + card] == 1.0


def test_two_player_observation_perspective():
    # Two players sit opposite (Red, Yellow): seat 1's picture is seat 0's turned by half the board.
    data = SorryState(SorryOptions(num_players=2)).to_dict()
    data["pos"] = [4, 58, START, 34, 28, SAFE_BASE + 2]
    data["deck"]["unseen"][SORRY] -= 1
    data["card"] = SORRY
    data["turn"] = 1
    env = sorry_v0.raw_env(num_players=2)
    env.reset(seed=0)
    load_position(env, data, "player_0")
    red = env.observe("player_0")["observation"]
    yellow = env.observe("player_1")["observation"]
    assert yellow[0 * NUM_POSITIONS + 4] == 1.0  # Yellow's square 34 is its square 4
    assert yellow[1 * NUM_POSITIONS + 58] == 1.0
    assert yellow[2 * NUM_POSITIONS + SAFE_BASE + 2] == 1.0
    assert yellow[3 * NUM_POSITIONS + 34] == 1.0  # Red's 4, seen from Yellow
    assert yellow[COLOR_BASE + 4 + 2] == 1.0  # the other seat is two colours on
    assert red[COLOR_BASE + 4 + 2] == 1.0
    assert not red[6 * NUM_POSITIONS : COLOR_BASE].any()
    rotated = rotate_dict(data, 2, (0, 2))
    load_position(env, rotated, "player_1")
    assert np.array_equal(env.observe("player_1")["observation"], red)
    assert np.array_equal(env.observe("player_0")["observation"], yellow)


@pytest.mark.parametrize("num_players,slide_rule", [(4, "own_color"), (4, "classic"), (2, "own_color")])
def test_rules_and_observations_commute_with_rotation(num_players, slide_rule):
    # The action encoding is relative too, so the rotated position has the same legal actions, and
    # every action leads to the rotation of the original's successor.
    colors = SorryOptions(num_players=num_players).seat_colors
    game = sorry_v0.SorryGame(num_players=num_players, slide_rule=slide_rule)
    decisions = 0
    for seed in range(2):
        for state, _ in random_rules_game(num_players, slide_rule, 30 + seed):
            if state.current_player() < 0:
                continue
            data = state.to_dict()
            turned = SorryState.from_dict(rotate_dict(data, num_players, colors))
            mover = state.current_player()
            assert turned.current_player() == (mover + 1) % num_players
            assert np.array_equal(game.observe(state, mover), game.observe(turned, (mover + 1) % num_players))
            assert list(turned.legal_actions()) == list(state.legal_actions())
            for action in state.legal_actions():
                after, turned_after = state.clone(), turned.clone()
                after.apply_action(action)
                turned_after.apply_action(action)
                assert turned_after.to_dict() == rotate_dict(after.to_dict(), num_players, colors)
            decisions += 1
    assert decisions > 100


# -- options -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "factory",
    [sorry_v0.env, sorry_v0.raw_env, lambda **kw: boardenvs.make("sorry_v0", **kw)],
)
def test_bad_options_raise(factory):
    # Unknown keys and render modes: tests/test_env_contract.py.
    with pytest.raises(ValueError, match="num_players"):
        factory(num_players=5)
    with pytest.raises(ValueError, match="slide_rule"):
        factory(slide_rule="sideways")


# -- rendering --------------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_ansi_render_shows_card_and_colours(num_players):
    env = sorry_v0.env(num_players=num_players, render_mode="ansi")
    env.reset(seed=num_players)
    colours = [COLOR_NAMES[c] for c in SorryOptions(num_players=num_players).seat_colors]
    cards_seen = set()
    for step in range(40):
        state = env.unwrapped.game_state
        text = env.render()
        assert isinstance(text, str)
        for colour in colours:
            assert colour in text
        for colour in set(COLOR_NAMES) - set(colours):
            assert colour not in text
        assert state.card >= 0 and state.current_player() not in (CHANCE, TERMINAL)
        assert f"drew {CARD_NAMES[state.card]}" in text
        cards_seen.add(state.card)
        env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))
    assert len(cards_seen) > 3


def test_pass_is_offered_alone_when_nothing_moves():
    # All pawns in Start and a 4 drawn: nothing can move backward, so PASS is the only action.
    data = SorryState(SorryOptions(num_players=2)).to_dict()
    data["deck"]["unseen"][3] -= 1
    data["card"] = 3
    env = sorry_v0.raw_env(num_players=2)
    env.reset(seed=0)
    load_position(env, data, "player_0")
    mask = env.observe("player_0")["action_mask"]
    assert list(np.flatnonzero(mask)) == [PASS]
