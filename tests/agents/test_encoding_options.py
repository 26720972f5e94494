"""Encoding options (``ENCODING_OPTIONS``: Gangsi's ``action_features`` and ``action_ranks``) change
only observations, so a learned agent brings its own to any table of the same rules: ``ppo:gangsi_v0``
was trained with the action features and plays a game without them, and a game of other rules is
still refused. A model saved before an option existed reads as trained with its default."""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.options import encoding_keys, options_to_dict, rules_options
from boardenvs.core.state import CHANCE
from boardenvs_agents.learning.models import read_metadata, resolve_model_path
from boardenvs_agents.registry import make_policy


def test_encoding_options_are_declared_and_left_out_of_the_rules():
    game = make_game("gangsi_v0", num_players=4, action_features=True, action_ranks=True)
    assert encoding_keys(game.options) == ("action_features", "action_ranks")
    assert {"action_features", "action_ranks"} <= set(options_to_dict(game.options))
    assert rules_options(game.options) == rules_options(make_game("gangsi_v0", num_players=4).options)
    assert encoding_keys(make_game("sorry_v0").options) == ()


def plays_legally(policy, table, moves: int = 300) -> int:
    """Decisions ``policy`` made, every one legal, seating it at every seat of a game of ``table``."""
    rng = np.random.default_rng(0)
    state = table.new_initial_state()
    made = 0
    while not state.is_terminal() and made < moves:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        action = policy.act(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        made += 1
    return made


def test_the_shipped_gangsi_model_plays_a_table_without_the_features():
    path = resolve_model_path("gangsi_v0", "ppo")
    assert read_metadata(path)["options"]["action_features"] is True
    policy = make_policy("ppo:gangsi_v0", "gangsi_v0", seed=0, game_options={"num_players": 4})
    assert policy.game.options.action_features is True  # it encodes with its own
    table = make_game("gangsi_v0", num_players=4)
    assert table.options.action_features is False
    assert plays_legally(policy, table) > 50


def test_the_two_player_lost_city_model_brings_its_move_features_the_four_player_one_none():
    two = make_policy("ppo:lost_city_v0", "lost_city_v0", seed=0, game_options={"num_players": 2})
    two_player_options = options_to_dict(make_game("lost_city_v0", num_players=2).options)
    path = resolve_model_path("lost_city_v0", "ppo", two_player_options, ignore=("action_features",))
    assert path.name == "ppo_lost_city_v0__2p.zip"
    assert two.game.options.action_features is True and two.game.num_players == 2
    four = make_policy("ppo:lost_city_v0", "lost_city_v0", seed=0, game_options={"num_players": 4})
    assert four.game.options.action_features is False
    assert plays_legally(two, make_game("lost_city_v0", num_players=2)) > 20


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


def test_a_model_saved_before_an_option_existed_reads_as_trained_with_its_default(tmp_path):
    import json
    import shutil
    import zipfile

    from boardenvs_agents.learning.models import METADATA_NAME

    old = tmp_path / "old.zip"
    shutil.copy(resolve_model_path("gangsi_v0", "ppo"), old)
    with zipfile.ZipFile(old) as zf:
        metadata = json.loads(zf.read(METADATA_NAME))
        entries = {name: zf.read(name) for name in zf.namelist()}
    metadata["options"].pop("action_ranks", None)
    entries[METADATA_NAME] = json.dumps(metadata).encode()
    with zipfile.ZipFile(old, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    assert read_metadata(old)["options"]["action_ranks"] is False
    metadata["options"]["no_such_option"] = 1
    entries[METADATA_NAME] = json.dumps(metadata).encode()
    with zipfile.ZipFile(old, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    with pytest.raises(ValueError, match="options this version does not know"):
        read_metadata(old)
