"""Pictures of sorry_v0 (render_mode "rgb_array" / "human"): size, content, views, determinism."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from pettingzoo.test import render_test

from boardenvs import sorry_v0
from boardenvs.core import render
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.sorry.board import HOME, SAFE_BASE
from boardenvs.sorry.cards import CARD_NAMES
from boardenvs.sorry.draw import (
    CELL,
    COLOR_RGB,
    HEIGHT,
    SAFE_POINTS,
    SQUARE,
    START_POINT,
    WIDTH,
    _px,
    _track_point,
    active_pawns,
    example_state,
    view_turns,
)
from boardenvs.sorry.env import SorryGame
from boardenvs.sorry.rules import SorryState


@pytest.fixture
def no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def pixel(image: np.ndarray, xy: tuple[float, float]) -> np.ndarray:
    """The RGB of ``image`` at pixel ``(x, y)``."""
    return image[round(xy[1]), round(xy[0])].astype(int)


def close(a: np.ndarray, b: tuple[int, ...], tol: int = 12) -> bool:
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max() <= tol)


def sample_position(num_players: int = 4, seed: int = 7, draws: int = 60) -> tuple[SorryGame, SorryState]:
    """A seeded mid-game position after ``draws`` draws (the docs' picture with the defaults)."""
    game = SorryGame(num_players=num_players)
    return game, example_state(game, seed, draws)


def play_random(state, seed: int):
    """Yield every node of a seeded random game played in place (terminal included)."""
    rng = np.random.default_rng(seed)
    while True:
        yield state
        player = state.current_player()
        if player == TERMINAL:
            return
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[int(rng.integers(len(legal)))]))


def with_pawns(game: SorryGame, placements: dict[int, int], card: str = "5", to_move: int = 0):
    """A state of ``game`` with pawn index -> position placements and ``card`` in ``to_move``'s hand."""
    data = game.new_initial_state().to_dict()
    for k, at in placements.items():
        data["pos"][k] = at
    kind = CARD_NAMES.index(card)
    data["deck"]["unseen"][kind] -= 1
    data["card"] = kind
    data["turn"] = 1
    data["to_move"] = to_move
    return game.state_from_dict(data)


# -- the PettingZoo render contract -------------------------------------------------------------------
def test_render_test_passes_for_every_mode(no_display, capsys):
    render_test(lambda render_mode: sorry_v0.env(render_mode=render_mode, num_players=3))
    out = capsys.readouterr().out
    assert "Red (player_0)" in out  # "human" without a display prints the text board


def test_rgb_array_render_is_the_games_picture_and_changes_with_play():
    env = sorry_v0.env(num_players=4, render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (HEIGHT, WIDTH, 3)
    raw = env.unwrapped
    assert np.array_equal(first, raw.game.render_image(raw.game_state))
    for _ in range(6):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert not np.array_equal(first, env.render())


# -- size, content, determinism -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},  # played to a winner
        {"num_players": 3, "slide_rule": "classic", "max_turns": 60},  # truncated
        {"num_players": 4, "first_player": "random", "max_turns": 50},
    ],
)
def test_image_size_is_fixed_through_a_game_and_every_view_draws(options):
    game = SorryGame(**options)
    n = game.num_players
    views = [None, *range(n)]
    state = game.new_initial_state()
    for j, node in enumerate(play_random(state, seed=5)):
        view = views[j % len(views)]  # every node drawn once, the views taking turns
        assert game.render_image(node, view).shape == (HEIGHT, WIDTH, 3)
    assert state.current_player() == TERMINAL
    for view in views:  # the finished game, from every seat
        assert game.render_image(state, view).shape == (HEIGHT, WIDTH, 3)


def test_picture_is_not_blank():
    game, state = sample_position()
    image = game.render_image(state)
    packed = image.reshape(-1, 3).astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
    assert len(np.unique(packed)) > 500  # many distinct colours
    assert image.std() > 40
    for c in range(4):  # every colour is on the board (Start circles, zones, pawns)
        assert np.any(np.all(np.abs(image.astype(int) - COLOR_RGB[c]) <= 3, axis=2))


def test_same_state_same_picture_and_different_positions_differ():
    game, state = sample_position(seed=2, draws=30)
    a = game.render_image(state)
    assert np.array_equal(a, game.render_image(state.clone()))
    assert np.array_equal(a, game.render_image(game.state_from_dict(state.to_dict())))
    after = state.clone()
    after.apply_action(after.legal_actions()[-1])
    assert not np.array_equal(a, game.render_image(after))
    _, other = sample_position(seed=3, draws=30)
    assert not np.array_equal(a, game.render_image(other))


def test_pawns_are_drawn_in_their_colour_where_they_stand():
    game = SorryGame(num_players=4)
    # Red 1 on square 20, Blue 0 on square 40, Yellow 2 in its safety square 3, Green 0 Home.
    placements = {1: 20, 3: 40, 8: SAFE_BASE + 3, 9: HOME}
    state = with_pawns(game, placements)
    image = game.render_image(state)
    empty = game.render_image(with_pawns(game, {}))
    for square, color in ((20, 0), (40, 1)):
        x, y = _px(*_track_point(square), 0)
        spot = (x + 0.25 * CELL, y + 0.08 * CELL)  # beside the pawn's number
        assert close(pixel(image, spot), COLOR_RGB[color])
        assert not close(pixel(empty, spot), COLOR_RGB[color])
    x, y = _px(*SAFE_POINTS[2], 2)  # Yellow's zone: Yellow (colour 2) is turned twice
    assert close(pixel(image, (x + 0.25 * CELL, y + 0.08 * CELL)), COLOR_RGB[2])


def test_a_player_view_turns_the_board_to_that_seat():
    game, state = sample_position(num_players=4)
    full = game.render_image(state)
    for seat, color in enumerate(state.colors):
        turns = view_turns(state.options, seat)
        # The player's own Start circle sits at the bottom of its view.
        x, y = _px(*START_POINT, color + turns)
        assert y > HEIGHT / 2 + 4 * CELL
        image = game.render_image(state, seat)
        inside = pixel(image, (x - 0.9 * CELL, y + 0.3 * CELL))  # the circle's tint, off pawns and label
        assert close(inside, render.mix(SQUARE, COLOR_RGB[color], 0.55), tol=6)
        assert turns == 0 or not np.array_equal(image[:, :HEIGHT], full[:, :HEIGHT])
    # Yellow already sits at the bottom of the full view: the board is the same, the panel says "you".
    yellow = state.colors.index(2)
    image = game.render_image(state, yellow)
    assert np.array_equal(image[:, : HEIGHT - 10], full[:, : HEIGHT - 10])
    assert not np.array_equal(image, full)


def test_views_hide_nothing_the_observation_shows_and_show_nothing_it_hides():
    # Sorry!'s secret is the order of the unseen cards, which no state holds: a determinization for a
    # player (every state consistent with what it knows) draws the same picture in its view.
    game, state = sample_position(num_players=3, seed=9)
    rng = np.random.default_rng(0)
    for seat in range(3):
        other = state.determinize(seat, rng)
        np.testing.assert_array_equal(game.observe(state, seat), game.observe(other, seat))
        assert np.array_equal(game.render_image(state, seat), game.render_image(other, seat))


def test_movable_pawns_are_ringed_in_gold():
    game = SorryGame(num_players=2)
    # Red 0 on square 10, Red 1 on square 30, Red 2 in Start; card 5: all three may move.
    state = with_pawns(game, {0: 10, 1: 30}, card="5")
    assert active_pawns(state) == {0, 1, 2}
    # With a 4 (backward) the Start pawn may not move (S6: backward moves never start a pawn).
    back = with_pawns(game, {0: 10, 1: 30}, card="4")
    assert active_pawns(back) == {0, 1}
    image = game.render_image(state)
    x, y = _px(*_track_point(10), 0)
    ring = pixel(image, (x, y - 0.37 * CELL - 2.5))
    assert close(ring, (255, 196, 0), tol=40)
    # At a chance node nobody is ringed.
    data = state.to_dict()
    data["deck"]["unseen"][data["card"]] += 1
    data["card"] = -1
    chance = game.state_from_dict(data)
    assert active_pawns(chance) == set()
    image = game.render_image(chance)
    assert not close(pixel(image, (x, y - 0.37 * CELL - 2.5)), (255, 196, 0), tol=40)


def test_winner_and_card_are_shown():
    game = SorryGame(num_players=2)
    state = game.new_initial_state()
    for _ in play_random(state, seed=1):
        pass
    assert state.winner >= 0
    assert state.pos[3 * state.winner : 3 * state.winner + 3] == [HOME] * 3
    image = game.render_image(state)
    # The centre card slot shows the winner's colour instead of a card.
    cx = 12 + 8 * CELL + 54
    assert close(pixel(image, (cx - 30, 12 + 6 * CELL + 10)), COLOR_RGB[state.colors[state.winner]])


def test_bad_view_raises():
    game, state = sample_position(num_players=2)
    with pytest.raises(ValueError, match="view"):
        game.draw(state, view=2)
    with pytest.raises(ValueError, match="view"):
        game.render_image(state, view=-1)
