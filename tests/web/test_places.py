"""``Game.action_places``: where the web page lets a move be chosen on the board. Over random games of
each game: only legal actions of the player to move, boxes inside the picture, the same places for
every full state the viewer cannot tell apart (``determinize``: they read only what the picture
shows), and a place for some move in most games."""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.state import CHANCE

GAMES = {"sorry_v0": 2, "gangsi_v0": 2, "lost_city_v0": 3, "neighborhood_v0": 3}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_places_are_legal_moves_inside_the_picture_and_read_only_the_viewers_picture(name):
    game = make_game(name, num_players=GAMES[name])
    rng = np.random.default_rng(0)
    with_places = 0
    decisions = 0
    for _ in range(2):
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal() and steps < 150:
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(state.sample_chance(rng))
                continue
            steps += 1
            if steps % 5 == 0:
                decisions += 1
                image = game.draw(state, player)
                places = game.action_places(state, player)
                legal = set(state.legal_actions())
                assert set(places) <= legal
                for x0, y0, x1, y1 in places.values():
                    assert 0 <= x0 < x1 <= image.width and 0 <= y0 < y1 <= image.height
                with_places += bool(places)
                other = state.determinize(player, np.random.default_rng(steps))
                assert game.action_places(other, player) == places
            legal = list(state.legal_actions())
            state.apply_action(int(legal[rng.integers(len(legal))]))
    assert with_places >= decisions // 3, (with_places, decisions)
