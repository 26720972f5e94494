"""Rendering through the adapter (ansi, rgb_array, human) and the shared drawing helpers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import render_test

from boardenvs.core import render

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toy_game  # noqa: E402
from toy_game import TAKE, ToyGame  # noqa: E402


@pytest.fixture
def no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def test_render_ansi_returns_text():
    env = toy_game.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    assert text == env.game_state.render_text()
    assert "player_0" in text


def test_render_rgb_array_is_the_games_picture():
    env = toy_game.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (40 + 30 * 3, 240, 3)
    assert np.array_equal(frame, env.game.render_image(env.game_state))
    env.step(TAKE)
    assert not np.array_equal(frame, env.render())  # the mover's bar grew


def test_render_test_passes_for_every_mode(no_display, capsys):
    render_test(toy_game.env)
    assert "player_0: score" in capsys.readouterr().out  # "human" without a display prints the text


def test_render_human_without_display_prints(no_display, capsys):
    env = toy_game.env(render_mode="human")
    env.reset(seed=0)
    env.step(TAKE)
    assert "player_0: score" in capsys.readouterr().out
    assert env.unwrapped._window is None


def test_render_human_with_display_shows_the_picture(monkeypatch, capsys):
    import pygame  # the [test] extra installs it

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a display without a screen
    env = toy_game.raw_env(render_mode="human")
    env.reset(seed=0)
    env.step(TAKE)
    assert env._window is not None
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    assert np.array_equal(shown, env.game.render_image(env.game_state))
    assert capsys.readouterr().out == ""
    env.close()
    assert env._window is None and not pygame.display.get_init()


def test_render_without_mode_warns_and_returns_none():
    env = toy_game.raw_env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_bad_render_mode_raises():
    with pytest.raises(ValueError, match="rgb_array"):
        toy_game.raw_env(render_mode="picture")


def test_render_image_views_hide_secrets():
    game = ToyGame(num_players=2)
    state = game.new_initial_state()
    state.apply_action(0)  # player 0's secret
    state.apply_action(2)  # player 1's secret
    other = state.clone()
    other.secrets[1] = 0  # differs only in what player 0 may not know
    assert np.array_equal(game.render_image(state, view=0), game.render_image(other, view=0))
    assert not np.array_equal(game.render_image(state, view=1), game.render_image(other, view=1))
    assert not np.array_equal(game.render_image(state), game.render_image(other))
    with pytest.raises(ValueError, match="view"):
        game.render_image(state, view=2)


def test_game_without_pictures_says_so():
    from boardenvs.core.game import Game

    class Blind(ToyGame):
        draw = Game.draw

    with pytest.raises(NotImplementedError, match="no pictures"):
        Blind().render_image(Blind().new_initial_state())


def test_helpers_draw_visible_marks():
    from PIL import ImageDraw

    image = render.new_image(300, 100)
    blank = render.to_array(image).copy()
    draw = ImageDraw.Draw(image)
    render.die(draw, (10, 10, 60, 60), 5)
    render.die(draw, (70, 10, 120, 60), 12)
    render.pawn(draw, (150, 40), 15, render.NAMED_COLORS["red"], "1")
    render.card(draw, (180, 10, 240, 90), "Sorry!\n11", fill=render.NAMED_COLORS["blue"])
    render.text_lines(draw, (250, 10), ["a", "b"])
    frame = render.to_array(image)
    assert frame.shape == (100, 300, 3) and frame.flags["C_CONTIGUOUS"]
    for x0, x1 in ((10, 60), (70, 120), (135, 165), (180, 240), (250, 270)):
        assert not np.array_equal(frame[:, x0:x1], blank[:, x0:x1])


def test_contrast_picks_readable_ink():
    assert render.contrast((255, 255, 255)) == render.INK
    assert render.contrast((0, 0, 0)) == (255, 255, 255)


def test_mix_moves_a_colour_towards_another():
    assert render.mix((0, 100, 255), (255, 100, 0), 0) == (0, 100, 255)
    assert render.mix((0, 100, 255), (255, 100, 0), 1) == (255, 100, 0)
    assert render.mix((0, 0, 0), (200, 101, 10), 0.5) == (100, 50, 5)  # round half to even: 50.5 -> 50


def test_fit_text_cuts_long_messages_to_the_width():
    assert render.fit_text("short", 12, 500) == "short"
    long = "a rather long message that cannot fit"
    cut = render.fit_text(long, 12, 80)
    assert cut.endswith("...") and len(cut) < len(long) and render.text_length(cut, 12) <= 80
    assert long.startswith(cut[:-3])
    spaced = next(w for w in range(30, 200) if render.fit_text(long, 12, w).endswith(" ..."))
    assert render.fit_text(long, 12, spaced, strip=True) == render.fit_text(long, 12, spaced)[:-4] + "..."


def test_wrap_text_keeps_lines_within_the_width():
    message = "the killer moves two squares toward the park and waits there"
    lines = render.wrap_text(message, 13, 120)
    assert len(lines) > 1 and " ".join(lines) == message
    assert all(render.text_length(line, 13) <= 120 for line in lines)
    assert render.wrap_text("unbreakablewordthatiswide", 13, 20) == ("unbreakablewordthatiswide",)


def test_text_mask_is_ink_placed_around_the_anchor():
    mask, dx, dy = render.text_mask("Hello", 14, "mm")
    assert mask.mode == "L" and mask.getextrema()[1] == 255
    assert dx < 0 < dx + mask.width and dy < 0 < dy + mask.height
    assert render.text_mask("Hello", 14, "mm") is render.text_mask("Hello", 14, "mm")  # cached


def test_star_points_alternate_outer_and_inner_radius():
    points = render.star_points(10, 20, 8, 3, 5)
    assert len(points) == 10
    assert points[0] == pytest.approx((10, 12))  # first point straight up
    radii = [np.hypot(x - 10, y - 20) for x, y in points]
    assert radii == pytest.approx([8, 3] * 5)
