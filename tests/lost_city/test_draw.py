"""Pictures of lost_city_v0 positions (issue #9): render modes, size, content, views.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and ``boardenvs/lost_city/env.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from env_helpers import load_position
from pettingzoo.test import render_test

from boardenvs import lost_city_v0
from boardenvs.core import render
from boardenvs.core.state import CHANCE
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.draw import (
    EXAMPLE_OPTIONS,
    EXAMPLE_PLAYERS,
    EXAMPLE_SEED,
    EXAMPLE_STEPS,
    example_state,
    image_size,
    save_example,
    turn_lines,
)
from boardenvs.lost_city.env import LostCityGame
from boardenvs.lost_city.rules import P_HIT, P_MOVE, P_OVER, P_POSTROLL, PICK

DOCS_IMAGE = Path(__file__).resolve().parents[2] / "docs" / "images" / "lost_city.png"
SMALL = {
    "num_players": 2,
    "board_size": 6,
    "ruins": ((2, 2), (2, 3), (3, 2), (3, 3)),
    "spawns": ((0, 0), (5, 5)),
}


def colours(frame: np.ndarray) -> np.ndarray:
    """The distinct colours of a picture, packed as 0xRRGGBB."""
    f = frame.astype(np.int32)
    return np.unique((f[..., 0] << 16) | (f[..., 1] << 8) | f[..., 2])


def edited(game: LostCityGame, state, **changes):
    """A copy of ``state`` through to_dict/from_dict with per-seat or scalar fields replaced."""
    data = json.loads(json.dumps(state.to_dict()))
    for key, value in changes.items():
        if key == "held":  # a card in hand comes from the draw pile, the one it replaces goes back
            unseen = data["deck"]["unseen"]
            for seat, card in value.items():
                unseen[data["held"][seat]] += data["held"][seat] >= 0
                unseen[card] -= card >= 0
        if isinstance(value, dict):  # {seat: value}
            for seat, v in value.items():
                data[key][seat] = v
        else:
            data[key] = value
    return game.state_from_dict(data)


@pytest.fixture(scope="module")
def example():
    game = LostCityGame(**EXAMPLE_OPTIONS)
    return game, example_state(game, EXAMPLE_SEED, EXAMPLE_STEPS)


# -- render modes ---------------------------------------------------------------------------------------
def test_render_test_every_mode(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    frames = []

    def rgb_ok(frame):
        frames.append(frame)
        return frame.shape == (788, 900, 3) and len(colours(frame)) > 50

    render_test(
        lambda render_mode: lost_city_v0.env(num_players=6, render_mode=render_mode), {"rgb_array": rgb_ok}
    )
    assert len(frames) == 5
    out = capsys.readouterr().out
    # "human" without a display prints the position as text (a grid line and a line per seat)
    assert "player_0:" in out and "player_5:" in out and "round" in out


def test_rgb_array_render_is_the_spectator_picture():
    env = lost_city_v0.env(render_mode="rgb_array")
    env.reset(seed=3)
    raw = env.unwrapped
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (*image_size(raw.game)[::-1], 3)
    assert np.array_equal(frame, raw.game.render_image(raw.game_state))


# -- size and content ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, size",
    [
        ({}, (900, 788)),
        ({"num_players": 7}, (900, 788)),
        (SMALL, (900, 632)),
        ({"board_size": 32}, (900, 760)),
    ],
)
def test_size_depends_only_on_options(options, size):
    game = LostCityGame(**options)
    assert image_size(game) == size
    assert game.draw(game.new_initial_state()).size == size
    assert game.render_image(example_state(game, 1, 40), view=1).shape == (size[1], size[0], 3)


def test_picture_is_not_blank(example):
    game, state = example
    frame = game.render_image(state)
    assert len(colours(frame)) > 300
    assert frame.std() > 40
    # every living seat's colour is in the picture (its token, its panel row)
    present = set(colours(frame).tolist())
    for p in range(state.n):
        if state.hp[p] > 0:
            r, g, b = render.SEAT_COLORS[p]
            assert (r << 16 | g << 8 | b) in present


def test_same_state_same_picture(example):
    game, state = example
    first = game.render_image(state)
    assert np.array_equal(first, game.render_image(state))
    assert np.array_equal(first, game.render_image(game.state_from_dict(state.to_dict())))
    assert np.array_equal(first, game.render_image(state.clone()))


def test_next_position_gives_a_different_picture(example):
    game, state = example
    later = example_state(game, EXAMPLE_SEED, EXAMPLE_STEPS + 1)
    assert later != state
    assert not np.array_equal(game.render_image(state), game.render_image(later))


@pytest.mark.parametrize(
    "changes",
    [
        {"hp": {3: 100}},  # Safina's HP
        {"pos": {4: 0}},  # Jack moved to (0, 0)
        {"held": {3: cards.SPECIAL}},  # a battle card in hand
        {"held": {2: cards.DAMAGE_10}},  # another card in place of Chris's +20 Damage
        {"burn": {4: 2}},  # Fire (T21)
        {"skip": {3: 1}},  # a turn to skip (T15, T24)
        {"ctrl": {0: -1}, "ctrl_turns": {0: 0}},  # Aaron no longer seduced (T20)
        {"hp": {4: 0}, "pos": {4: -1}},  # Jack eliminated (T26, T38)
        {"roll": 2},  # the damage die
        {"black": False},  # the colour die
        {"crit": True},  # Critical used (T19)
        {"bonus": 20},  # a +Damage card played (T11)
        {"round": 34},
    ],
)
def test_each_fact_of_a_position_shows(example, changes):
    game, state = example
    assert state.phase == P_POSTROLL and state.target == 3 and state.ctrl[0] == 5  # the docs position
    other = edited(game, state, **changes)
    assert not np.array_equal(game.render_image(state), game.render_image(other))


def test_deck_counts_show(example):
    game, state = example
    data = state.to_dict()
    data["deck"] = json.loads(json.dumps(data["deck"]))
    data["deck"]["unseen"][cards.NULL] -= 1
    data["deck"]["discards"][cards.NULL] += 1
    assert not np.array_equal(game.render_image(state), game.render_image(game.state_from_dict(data)))


# -- views ---------------------------------------------------------------------------------------------
def test_views_mark_the_viewer_only(example):
    game, state = example
    full = game.render_image(state)
    views = [game.render_image(state, view=p) for p in range(state.n)]
    for p, image in enumerate(views):
        assert image.shape == full.shape
        assert not np.array_equal(image, full)  # "YOU" and "view of player_p"
        differs = np.any(image != full, axis=2)
        assert differs.mean() < 0.02  # nothing else changes: everything but the deck order is public
        for q in range(p):
            assert not np.array_equal(image, views[q])


def test_view_ignores_what_the_player_may_not_know(example):
    game, state = example
    rng = np.random.default_rng(5)
    for p in range(state.n):
        # the only secret is the order of the unseen cards, which a state does not hold (4.3)
        assert np.array_equal(
            game.render_image(state, view=p), game.render_image(state.determinize(p, rng), view=p)
        )
    # the env's generator (the dice and draws to come) is not part of the picture either
    envs = []
    for seed in (1, 2):
        env = lost_city_v0.raw_env(**EXAMPLE_OPTIONS, render_mode="rgb_array")
        env.reset(seed=seed)
        load_position(env, state)
        envs.append(env)
    assert not np.array_equal(envs[0].np_random.random(3), envs[1].np_random.random(3))
    assert np.array_equal(envs[0].render(), envs[1].render())


def test_bad_view_is_refused(example):
    game, state = example
    with pytest.raises(ValueError, match="view"):
        game.render_image(state, view=EXAMPLE_PLAYERS)
    from boardenvs.lost_city.draw import draw_state

    with pytest.raises(ValueError, match="view"):
        draw_state(game, state, -1)


@pytest.mark.parametrize(
    "options, seed", [({}, 0), ({"num_players": 7}, 1), (SMALL, 2), ({"num_players": 3}, 3)]
)
def test_every_view_draws_through_whole_games(options, seed):
    """Every node kind (setup draws, decisions, dice, card draws, the end) in every view keeps the size."""
    game = LostCityGame(**options)
    size = image_size(game)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    phases_drawn = set()
    node = 0
    while True:
        view = None if node % (game.num_players + 1) == 0 else node % (game.num_players + 1) - 1
        if node % 5 == 0 or state.phase not in phases_drawn or state.is_terminal():
            assert game.draw(state, view).size == size
            phases_drawn.add(state.phase)
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            fights = [a for a in legal if a >= 25 and a != 62]
            pool = fights if fights and rng.random() < 0.8 else legal
            state.apply_action(int(pool[int(rng.integers(len(pool)))]))
        node += 1
    assert state.phase == P_OVER
    for view in [None, *range(game.num_players)]:
        assert game.draw(state, view).size == size
    assert {P_MOVE, P_HIT, P_OVER} <= phases_drawn


# -- words ---------------------------------------------------------------------------------------------
def test_header_names_the_seducer_as_the_decider(example):
    """T20: while Aaron is seduced, Rob's seat decides Aaron's turn, and the header says so."""
    game, state = example
    aaron, rob = state.char.index(ch.AARON), state.char.index(ch.ROB)
    turn = edited(game, state, to_move=aaron, phase=P_MOVE, target=-1, roll=0, black=False, bonus=0)
    assert turn.current_player() == rob
    who, what = turn_lines(turn)
    assert who == f"Rob (player_{rob}) controls seduced Aaron (player_{aaron})"
    assert what.startswith("Move Aaron up to 2 squares")
    assert turn_lines(state)[1].startswith("Hit! 60 damage rolled")


def test_t2_the_draft_shows_who_picks_and_what_is_free():
    game = LostCityGame(num_players=3)
    state = game.new_initial_state()
    state.apply_action(1)  # T30: player_1 goes first, so picks first
    assert turn_lines(state) == (
        "player_1 to pick a character (T2)",
        "Still free: Rob, Aaron, Safina, Jack, Jamie, Josh, Chris",
    )
    before = game.render_image(state)
    state.apply_action(PICK + ch.JOSH)
    assert turn_lines(state)[1] == "Still free: Rob, Aaron, Safina, Jack, Jamie, Chris"
    assert not np.array_equal(before, game.render_image(state))  # Josh's portrait in the panel


def test_header_at_the_end():
    game = LostCityGame()
    state = example_state(game, 3, 5000)
    assert state.phase == P_OVER
    who, _ = turn_lines(state)
    if len(state.outcome) == 1:
        assert who == f"{ch.NAMES[state.char[state.outcome[0]]]} (player_{state.outcome[0]}) wins!"
    else:
        assert who == "Draw"


# -- the docs picture ------------------------------------------------------------------------------------
def test_docs_picture_is_made_by_save_example(tmp_path):
    from PIL import Image

    path = tmp_path / "lost_city.png"
    save_example(LostCityGame(**EXAMPLE_OPTIONS), str(path))
    with Image.open(path) as made:
        assert made.size == image_size(LostCityGame(num_players=EXAMPLE_PLAYERS))
        made_pixels = np.asarray(made.convert("RGB"))
    with Image.open(DOCS_IMAGE) as committed:
        assert committed.size == made.size
        # the committed file is this command's output; a tolerance for glyph antialiasing, which may
        # differ slightly between FreeType builds (a different position changes far more pixels)
        differs = np.any(np.asarray(committed.convert("RGB")) != made_pixels, axis=2)
        assert differs.mean() < 0.01
