"""Pictures of neighborhood_v0 (issue #9): render modes, image size, content, views, whole games.

Rule ids (L1-L40) refer to neighborhood.md and boardenvs/neighborhood/env.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from env_helpers import random_game
from pettingzoo.test import render_test

from boardenvs import neighborhood_v0
from boardenvs.core.state import CHANCE
from boardenvs.neighborhood import draw
from boardenvs.neighborhood.board import MOUNTAINS, cell_of, geometry
from boardenvs.neighborhood.cards import DECKS, PROGRAMS
from boardenvs.neighborhood.env import NeighborhoodGame
from boardenvs.neighborhood.rules import CELL, D_DIRECTION, D_SQUARE, DIR, NeighborhoodState

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighborhood_helpers import draw_card, move, position  # noqa: E402

SHAPE = (draw.HEIGHT, draw.WIDTH, 3)


@pytest.fixture
def no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def picture(state: NeighborhoodState, view: int | None = None) -> np.ndarray:
    return NeighborhoodGame(**_options(state)).render_image(state, view)


def _options(state: NeighborhoodState) -> dict:
    return {"num_players": state.n}


# -- render modes through the env -------------------------------------------------------------------
def test_render_test_passes_for_every_mode(no_display, capsys):
    render_test(lambda render_mode=None: neighborhood_v0.env(num_players=4, render_mode=render_mode))
    out = capsys.readouterr().out
    assert "Silver (player_0)" in out and "round" in out  # "human" without a display prints the text


def test_rgb_array_render_is_the_games_picture():
    env = neighborhood_v0.raw_env(num_players=5, render_mode="rgb_array")
    env.reset(seed=3)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == SHAPE
    assert np.array_equal(frame, env.game.render_image(env.game_state))


# -- the picture ------------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_size_is_fixed_through_a_game_and_every_view_draws_to_the_end(num_players):
    game = NeighborhoodGame(num_players=num_players)
    drawn = terminal = 0
    for seed in range(2):
        state = game.new_initial_state()
        for i, (node, _action) in enumerate(random_game(state, 100 * num_players + seed)):
            if node.current_player() == CHANCE and i % 25:
                continue  # chance nodes are many: draw some (the turn-order roll among them)
            for view in (None, *range(num_players)):
                image = game.draw(node, view)
                assert image.size == (draw.WIDTH, draw.HEIGHT) and image.mode == "RGB"
                drawn += 1
            terminal += node.is_terminal()
    assert terminal == 2 and drawn > 50 * (num_players + 1)


def test_picture_is_not_blank_and_is_deterministic():
    state = draw.example_state(NeighborhoodGame(), 36, 25)
    frame = picture(state)
    assert frame.shape == SHAPE
    colours = np.unique(frame.reshape(-1, 3), axis=0)
    assert len(colours) > 200 and frame.std() > 40
    assert np.array_equal(frame, picture(state))
    assert np.array_equal(frame, picture(state.clone()))
    assert np.array_equal(frame, picture(NeighborhoodState.from_dict(state.to_dict())))


def test_example_state_is_reproducible_and_mid_game():
    a, b = draw.example_state(NeighborhoodGame(), 36, 25), draw.example_state(NeighborhoodGame(), 36, 25)
    assert a == b and not a.is_terminal() and a.current_player() >= 0
    deck, _kind, roles = a.current_card()
    assert deck == 0 and roles[1] >= 0 and roles[2] >= 0  # a Killer card with its Killer and Victim


def test_different_positions_give_different_pictures():
    base = position(hp={1: 6})
    moved = position(pos={0: (3, 3)}, hp={1: 6})
    hurt = position(hp={1: 5})
    frames = [picture(s) for s in (base, moved, hurt)]
    assert not np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[0], frames[2])
    out = base.clone()
    out.alive[2], out.hp[2], out.pos[2] = False, 0, -1
    assert not np.array_equal(frames[0], picture(out))


def test_the_turns_die_and_spinner_are_recorded_and_shown():
    a = move(position(), 4, 2)  # seat 0 from (0, 0): 4 squares E, a quiet square (fast path)
    b = move(position(), 3, 4)  # 3 squares S
    assert a.last_roll == [0, 4, 2, 1] and b.last_roll == [0, 3, 4, 1]
    assert not np.array_equal(picture(a), picture(b))
    c = move(position(), 1, 3)  # onto the Wild Space (1, 1): the general path records it too
    assert c.last_roll == [0, 1, 3, 1]
    assert NeighborhoodState.from_dict(c.to_dict()).last_roll == c.last_roll
    assert c.clone().last_roll == c.last_roll and c.clone().last_roll is not c.last_roll


def test_every_card_has_a_face_and_choices_have_their_options():
    for deck, cards in enumerate(DECKS):
        for kind, card in enumerate(cards):
            black, colour, options = draw.card_text(deck, kind)
            assert black
            assert bool(colour) == bool(card.colours), card.name
            has_branch = any(op[0] == "branch" for op in card.program)
            assert (options is not None) == has_branch, card.name


def test_trap_square_choice_is_marked_and_a_killer_card_shows_its_roles():
    s = draw_card(position(pos={0: (3, 3)}), 1 + MOUNTAINS, "Rockslide Trap", me=0)
    assert s.decision_kind() == D_SQUARE
    asked = draw._decision(s)
    assert sorted(asked["cells"]) == sorted(geometry(15).cells_in[MOUNTAINS]) and "trap" in asked["lines"][0]
    before = picture(s)
    # Flee with a non-blue Victim (seat 3 is Yellow): the Victim picks a straight direction (L24 not used).
    f = draw_card(position(pos={0: (5, 5), 3: (5, 5)}, to_move=0), 0, "Flee", me=0, k=0, v=3)
    assert f.decision_kind() == D_DIRECTION and f.current_player() == 3
    asked = draw._decision(f)
    dirs = [a - DIR for a in f.legal_actions()]
    assert len(asked["arrows"]) == len(dirs) == 8
    assert all(start == cell_of(5, 5) for start, _end in asked["arrows"])
    assert not np.array_equal(before, picture(f))
    top = f.stack[-1]
    assert PROGRAMS[top[2]][top[3]][0] == "line"


def test_player_view_hides_only_who_set_someone_elses_trap():
    s = draw_card(position(pos={0: (3, 3)}), 1 + MOUNTAINS, "Rockslide Trap", me=0)
    s.apply_action(CELL + cell_of(2, 2))
    assert s.trap_owner[MOUNTAINS] == 0
    other = s.clone()
    other.trap_owner[MOUNTAINS] = 2  # the trap set by player 2 instead
    game = NeighborhoodGame()
    for p in (1, 3):  # neither setter: the observation only says "someone else's trap"
        assert np.array_equal(game.observe(s, p), game.observe(other, p))
        assert np.array_equal(picture(s, p), picture(other, p))
    assert not np.array_equal(picture(s, 0), picture(other, 0))  # player 0 knows the trap is its own
    assert not np.array_equal(picture(s), picture(other))  # the spectator sees the setter
    rng = np.random.default_rng(0)
    assert np.array_equal(picture(s, 1), picture(s.determinize(1, rng), 1))


def test_views_differ_only_in_what_they_mark_as_their_own():
    s = position()
    views = [picture(s, v) for v in (None, 0, 1)]
    assert not np.array_equal(views[0], views[1]) and not np.array_equal(views[1], views[2])  # "(you)"
    with pytest.raises(ValueError, match="view"):
        NeighborhoodGame().render_image(s, view=4)


def test_outcome_is_shown():
    won, tied = position(), position()
    won._finish([2])
    tied._finish([0, 3])
    assert won.is_terminal() and tied.is_terminal()
    assert not np.array_equal(picture(won), picture(tied))
    assert not np.array_equal(picture(won), picture(position()))
