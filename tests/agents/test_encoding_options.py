"""Encoding options (``ENCODING_OPTIONS``: Gangsi's ``action_features``) change only observations, so a
learned agent brings its own to any table of the same rules: ``ppo:gangsi_v0`` was trained with the
action features and plays a game without them, and a game of other rules is still refused."""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.options import encoding_keys, options_to_dict, rules_options
from boardenvs.core.state import CHANCE
from boardenvs_agents.learning.models import read_metadata, resolve_model_path
from boardenvs_agents.registry import make_policy


def test_encoding_options_are_declared_and_left_out_of_the_rules():
    game = make_game("gangsi_v0", num_players=4, action_features=True)
    assert encoding_keys(game.options) == ("action_features",)
    assert "action_features" in options_to_dict(game.options)
    assert rules_options(game.options) == rules_options(make_game("gangsi_v0", num_players=4).options)
    assert encoding_keys(make_game("sorry_v0").options) == ()


def test_the_shipped_gangsi_model_plays_a_table_without_the_features():
    path = resolve_model_path("gangsi_v0", "ppo")
    assert read_metadata(path)["options"]["action_features"] is True
    policy = make_policy("ppo:gangsi_v0", "gangsi_v0", seed=0, game_options={"num_players": 4})
    assert policy.game.options.action_features is True  # it encodes with its own
    table = make_game("gangsi_v0", num_players=4)
    assert table.options.action_features is False
    rng = np.random.default_rng(0)
    state = table.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 300:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        action = policy.act(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves > 50


def test_other_rules_are_still_refused():
    with pytest.raises(ValueError, match="no shipped ppo model of gangsi_v0 fits"):
        make_policy("ppo:gangsi_v0", "gangsi_v0", seed=0, game_options={"num_players": 3})
    policy = make_policy("ppo:gangsi_v0", "gangsi_v0", seed=0, game_options={"num_players": 4})
    other = make_game("gangsi_v0", num_players=4, max_rounds=40).new_initial_state()
    rng = np.random.default_rng(0)
    while other.current_player() == CHANCE:
        other.apply_action(other.sample_chance(rng))
    with pytest.raises(ValueError, match="was trained for gangsi_v0 with"):
        policy.act(other)
