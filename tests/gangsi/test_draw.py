"""Pictures of gangsi_v0 (issue #9): the render modes, the picture's size, content and views, and that a
view shows no more than its player may know (K9, K32: the Kyonshi sees possibility sets, never the
hunters' squares, hands or rolls; a hunter never sees another hunter's hand).
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import masked_random, random_game
from pettingzoo.test import render_test

from boardenvs import gangsi_v0
from boardenvs.gangsi import draw
from boardenvs.gangsi.cards import COLOR_MASK
from boardenvs.gangsi.draw import image_size, save_example
from boardenvs.gangsi.env import GangsiGame
from boardenvs.gangsi.rules import KYONSHI, PH_CHOOSE, PH_DIR, PH_KY_MOVE, GangsiState, bits

OPTION_SETS = ({}, {"num_hunters": 2}, {"num_players": 2}, {"num_hunters": 3, "hunter_turns": True})


def example_state(decisions: int = 140) -> tuple[GangsiGame, GangsiState]:
    """The docs' position (four hunters, seed 3) or an earlier one of the same game."""
    game = GangsiGame()
    return game, draw.example_state(game, decisions=decisions)


def image(game: GangsiGame, state: GangsiState, view: int | None = None) -> np.ndarray:
    """The picture as an array."""
    return game.render_image(state, view)


def decision_states(options: dict, seed: int, every: int = 23, limit: int = 40) -> tuple[GangsiGame, list]:
    """Copies of every ``every``-th decision node of a seeded random game (at most ``limit``)."""
    game = GangsiGame(**options)
    out = []
    count = 0
    for state, _ in random_game(game.new_initial_state(), seed):
        if state.is_terminal() or state.is_chance_node():
            continue
        if count % every == 0 and len(out) < limit:
            out.append(state.clone())
        count += 1
    return game, out


# -- render modes -------------------------------------------------------------------------------------------
def test_pettingzoo_render_test_every_mode(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    render_test(lambda render_mode=None: gangsi_v0.env(render_mode=render_mode, num_hunters=3))
    # "human" without a display prints the position as text.
    assert "kyonshi at" in capsys.readouterr().out


def test_rgb_array_keeps_its_size_through_a_whole_game():
    env = gangsi_v0.env(render_mode="rgb_array", num_hunters=2)
    env.reset(seed=3)
    expected = image_size(env.unwrapped.game)
    choose = masked_random(3)
    shapes = set()
    step = 0
    while env.agents:
        if step % 9 == 0:
            frame = env.render()
            assert frame.dtype == np.uint8
            shapes.add(frame.shape)
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else choose(obs["action_mask"], step))
        step += 1
    assert env.unwrapped.game_state.is_terminal()
    shapes.add(env.render().shape)
    assert shapes == {(expected[1], expected[0], 3)}
    assert 600 <= expected[0] <= 950


def test_render_is_the_full_view_of_the_env_state():
    env = gangsi_v0.env(render_mode="rgb_array", num_hunters=3)
    env.reset(seed=1)
    for step in range(25):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[step % 2 - 1]))
    raw = env.unwrapped
    assert np.array_equal(env.render(), raw.game.render_image(raw.game_state))


# -- content ------------------------------------------------------------------------------------------------
def test_picture_is_not_blank():
    game, state = example_state()
    for view in (None, KYONSHI, 1):
        frame = image(game, state, view)
        packed = (
            (frame[..., 0].astype(np.int32) << 16) | (frame[..., 1].astype(np.int32) << 8) | frame[..., 2]
        )
        colours = np.unique(packed)
        assert len(colours) > 200
        assert frame.std() > 40


def test_same_state_same_picture_and_different_positions_differ():
    game, state = example_state()
    again = game.state_from_dict(state.to_dict())
    assert np.array_equal(image(game, state), image(game, again))
    assert np.array_equal(image(game, state, KYONSHI), image(game, state.clone(), KYONSHI))
    moved = state.clone()
    legal = moved.legal_actions()
    moved.apply_action(legal[-1])
    assert not np.array_equal(image(game, state), image(game, moved))
    _, earlier = example_state(decisions=60)
    for view in (None, KYONSHI, 2):
        assert not np.array_equal(image(game, state, view), image(game, earlier, view))


def test_the_kyonshi_view_draws_possibility_sets_and_hides_what_the_full_view_shows():
    game, state = example_state()
    full, kyonshi = image(game, state), image(game, state, KYONSHI)
    assert full.shape == kyonshi.shape
    assert not np.array_equal(full, kyonshi)
    # A piece whose possibility set grows is drawn on more squares (K32).
    wider = state.clone()
    j = next(j for j in range(state.n) if state.lives[j] > 0)
    wider.maybe[j] |= 1 << state.maze.treasure_cell[0]
    assert not np.array_equal(image(game, state, KYONSHI), image(game, wider, KYONSHI))


def test_bad_view_raises():
    game, state = example_state()
    with pytest.raises(ValueError, match="view"):
        game.draw(state, view=game.num_players)
    with pytest.raises(ValueError, match="view"):
        game.render_image(state, view=-1)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_every_view_draws_through_random_games_to_the_end(options):
    game = GangsiGame(**options)
    size = image_size(game)
    views = [None, *range(game.num_players)]
    state = game.new_initial_state()
    nodes = 0
    for node, _ in random_game(state, 5):
        if node.is_terminal() or nodes % 131 == 0:
            for view in views:
                assert game.draw(node, view).size == size
        nodes += 1
    assert state.is_terminal()


# -- hidden information -------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTION_SETS[::3])
def test_kyonshi_view_is_blind_to_squares_hands_and_rolls(options):
    """K9: determinize redraws the hunters' squares, hands, the roll and a move in progress from the
    Kyonshi's possibility sets; its observation and its picture stay the same."""
    game, states = decision_states(options, seed=11, every=37, limit=16)
    rng = np.random.default_rng(0)
    changed = 0
    phases = set()
    for state in states:
        other = state.determinize(KYONSHI, rng)
        assert np.array_equal(game.observe(state, KYONSHI), game.observe(other, KYONSHI))
        assert np.array_equal(image(game, state, KYONSHI), image(game, other, KYONSHI))
        if other.pos != state.pos or other.hand != state.hand:
            changed += 1
            assert not np.array_equal(image(game, state), image(game, other))
        phases.add(state.phase)
    assert changed >= len(states) // 2
    assert {PH_CHOOSE, PH_DIR, PH_KY_MOVE} <= phases


def swap_hidden_cards(state: GangsiState, j: int, k: int) -> dict:
    """``state.to_dict()`` with the unrevealed cards of pieces ``j`` and ``k`` swapped colour by colour."""
    data = state.to_dict()
    hand = list(state.hand)
    for colour_mask in COLOR_MASK:
        a, b = state.hand[j] & colour_mask, state.hand[k] & colour_mask
        if a and b and not (state.revealed[j] | state.revealed[k]) & colour_mask:
            hand[j] = hand[j] & ~colour_mask | b
            hand[k] = hand[k] & ~colour_mask | a
    assert hand != state.hand
    data["hand"] = hand
    return data


def test_kyonshi_view_ignores_hidden_fields_edited_by_hand():
    game, state = example_state()
    j = next(j for j in range(state.n) if state.lives[j] > 0 and bin(state.maybe[j]).count("1") > 1)
    k = next(k for k in range(state.n) if k != j and state.lives[k] > 0)
    data = swap_hidden_cards(state, j, k)
    data["pos"][j] = next(c for c in bits(state.maybe[j]) if c != state.pos[j] and c not in state.pos)
    data["faces"] = [0, 0, 0, 0, sum(state.faces)]
    data["excluded"] = [0] * state.n
    edited = game.state_from_dict(data)
    assert np.array_equal(game.observe(state, KYONSHI), game.observe(edited, KYONSHI))
    assert np.array_equal(image(game, state, KYONSHI), image(game, edited, KYONSHI))
    assert not np.array_equal(image(game, state), image(game, edited))


def test_a_hunter_sees_its_own_hand_but_not_the_others():
    game, state = example_state()
    edited = game.state_from_dict(swap_hidden_cards(state, 1, 2))
    for player, knows in ((2, True), (3, True), (1, False), (4, False)):
        assert np.array_equal(game.observe(state, player), game.observe(edited, player)) != knows
        assert np.array_equal(image(game, state, player), image(game, edited, player)) != knows


def test_hunter_view_is_blind_to_other_hands_and_to_the_kyonshis_bookkeeping():
    game, states = decision_states({"num_hunters": 4}, seed=4, every=61, limit=8)
    rng = np.random.default_rng(1)
    for state in states:
        for player in range(1, game.num_players):
            other = state.determinize(player, rng)
            # The Kyonshi's possibility sets and counters are not in a hunter's observation either.
            other.maybe = [(m << 1 | 1) & state.maze.full for m in other.maybe]
            other.since = [s + 3 for s in other.since]
            other.last_face = [(f + 1) % 5 for f in other.last_face]
            assert np.array_equal(game.observe(state, player), game.observe(other, player))
            assert np.array_equal(image(game, state, player), image(game, other, player))
    # The hands did change somewhere, and the full view shows it.
    assert any(
        not np.array_equal(image(game, s), image(game, s.determinize(1, rng))) for s in states if s.phase != 0
    )


def test_save_example_writes_both_pictures(tmp_path):
    from PIL import Image

    paths = save_example(GangsiGame(), str(tmp_path))
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["gangsi.png", "gangsi_kyonshi.png"]
    game, _ = example_state()
    for path in paths:
        with Image.open(path) as picture:
            assert picture.size == image_size(game)
