"""RLlib configs and policy mappings: checked before Ray starts, with messages naming the key and file."""

from pathlib import Path

import pytest

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs_agents.rllib.config import load_rllib_config, module_map, role_of

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("game", ["sorry_v0", "gangsi_v0"])
def test_shipped_configs_load(game):
    config = load_rllib_config(CONFIGS / game / "rllib.yaml")
    assert config.game == game
    assert config.mapping == ("per_role" if game == "gangsi_v0" else "shared")


def test_mappings():
    sorry = make_game("sorry_v0", num_players=3)
    assert module_map(sorry, "shared") == dict.fromkeys(["player_0", "player_1", "player_2"], "shared")
    assert set(module_map(sorry, "per_role").values()) == {"player"}
    assert module_map(sorry, "vs_fixed", learner_seat=1) == {"player_1": "learner"}
    gangsi = make_game("gangsi_v0", num_players=3)
    assert module_map(gangsi, "per_role") == {
        "kyonshi": "kyonshi",
        "hunter_0": "hunter",
        "hunter_1": "hunter",
    }
    assert module_map(gangsi, "vs_fixed", learner_seat=0) == {"kyonshi": "learner"}
    with pytest.raises(ValueError, match="fix learner_seat"):
        module_map(gangsi, "vs_fixed")
    assert role_of("hunter_12") == "hunter" and role_of("kyonshi") == "kyonshi"


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["iteratons=3"], "unknown option 'iteratons'"),
        (["mapping=everyone"], "mapping"),
        (["game=gangsi_v0", "mapping=shared"], "use mapping: per_role"),
        (["training.learning_rate=0.1"], "training.learning_rate is not a PPOConfig.training argument"),
        (["mapping=vs_fixed", "opponents={herustic: 1.0}"], "opponents: unknown agent 'herustic'"),
        (["learner_seat=1"], "learner_seat is for mapping: vs_fixed"),
        (["mapping=vs_fixed", "learner_seat=7"], "learner_seat must be in 0..3"),
        (["game_options.num_players=9"], "game_options"),
        (["eval.opponents=[nobody]"], "eval.opponents"),
        (["num_env_runners=-1"], "num_env_runners"),
        (["num_cpus=2", "num_env_runners=3"], "Ray would wait for CPUs forever"),
    ],
)
def test_bad_configs_name_the_key_and_file(overrides, message):
    path = CONFIGS / "sorry_v0" / "rllib.yaml"
    with pytest.raises(OptionError, match=message) as err:
        load_rllib_config(path, overrides)
    assert str(path) in str(err.value)
