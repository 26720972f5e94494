"""The games registry (boardenvs/registry.py): games come from entry points, the built-in four too; the
Gymnasium id follows from the env name; unknown names are refused naming the registered ones. Plug-in
games and broken entry points: tests/test_plugin_game.py."""

import gymnasium
import pytest

import boardenvs
from boardenvs.registry import GAMES_GROUP, game_class, game_entry_points, gym_id, gym_ids


def test_the_four_games_register_through_the_entry_point_group():
    entries = game_entry_points()
    for name in ("sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"):
        (entry,) = entries[name]
        assert entry.group == GAMES_GROUP and entry.value == f"boardenvs.{name}"
        assert entry.dist is not None and entry.dist.name == "boardenvs"
    assert boardenvs.env_names() == sorted(entries)


def test_the_game_class_is_the_env_modules_raw_env_game_class():
    assert game_class("sorry_v0").__name__ == "SorryGame"
    assert type(boardenvs.make_game("lost_city_v0")) is boardenvs.make("lost_city_v0", raw=True).game_class


@pytest.mark.parametrize(
    ("name", "expected"),
    [("sorry_v0", "boardenvs/Sorry-v0"), ("lost_city_v0", "boardenvs/LostCity-v0"),
     ("neighborhood_v0", "boardenvs/Neighborhood-v0"), ("my_game2_v13", "boardenvs/MyGame2-v13")],
)  # fmt: skip
def test_gymnasium_ids_follow_from_the_env_name(name, expected):
    assert gym_id(name) == expected


@pytest.mark.parametrize("bad", ["Sorry_v0", "sorry", "sorry-v0", "sorry_v", "_v0", "sorry__x_v0"])
def test_names_that_give_no_gymnasium_id_are_refused(bad):
    with pytest.raises(ValueError, match="lower-case words joined by '_' ending in '_v<N>'"):
        gym_id(bad)


def test_every_game_is_registered_with_gymnasium_at_import():
    assert set(gym_ids()) == set(boardenvs.env_names())
    for name, identifier in gym_ids().items():
        assert gymnasium.spec(identifier).kwargs == {"game": name}


def test_an_unknown_name_is_refused_naming_the_registered_ones():
    with pytest.raises(ValueError, match=r"unknown environment 'chess_v0'; available: \['gangsi_v0'"):
        boardenvs.make("chess_v0")
    with pytest.raises(ValueError, match="unknown environment"):
        boardenvs.make_game("chess_v0")
