"""State dicts of every game and env snapshots: read back exactly, bad values and missing keys refused
naming the field (boardenvs/core/fields.py), and clear errors from an env whose game is over."""

from __future__ import annotations

import json

import numpy as np
import pytest

import boardenvs
from boardenvs import make_game
from boardenvs.core.fields import Fields, StateDictError
from boardenvs.core.state import CHANCE

GAMES = {
    "sorry_v0": {"num_players": 2},
    "gangsi_v0": {"num_players": 3},
    "lost_city_v0": {"num_players": 3},
    "neighborhood_v0": {"num_players": 3},
}


def random_states(name, seed, limit=400):
    """The states of a random game, in order (at most ``limit``)."""
    game = make_game(name, **GAMES[name])
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    out = [state.clone()]
    while not state.is_terminal() and len(out) < limit:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        out.append(state.clone())
    return game, out


@pytest.mark.parametrize("name", GAMES)
def test_every_state_of_a_game_reads_back_exactly(name):
    game, states = random_states(name, seed=1)
    for state in states:
        data = json.loads(json.dumps(state.to_dict()))
        assert game.state_from_dict(data).to_dict() == data


# The examples and one more per game: (game, field, bad value, what the message says).
BAD_VALUES = [
    ("sorry_v0", "to_move", -7, "'to_move' must be in 0..1, got -7"),
    ("sorry_v0", "card", -7, "'card' must be in -1..10, got -7"),
    ("sorry_v0", "truncated", "garbage", "'truncated' must be true or false, got 'garbage'"),
    ("sorry_v0", "pos", [0] * 5, "'pos' must have 6 items, got 5"),
    ("sorry_v0", "deck", {"unseen": [1], "bottom": [], "discards": [0]}, "'deck': field 'unseen' must have"),
    ("gangsi_v0", "lives", 999, "'lives' must be a list of integers, got 999"),
    ("gangsi_v0", "lives", [999, 3], "'lives' item 0 must be in 0..3, got 999"),
    ("gangsi_v0", "hand", 999, "'hand' must be a list of integers, got 999"),
    ("gangsi_v0", "hand", [999, 0], "'hand' item 0 holds over 5 cards"),
    ("gangsi_v0", "phase", 42, "'phase' must be in 0..7, got 42"),
    ("gangsi_v0", "truncated", "garbage", "'truncated' must be true or false"),
    ("lost_city_v0", "to_move", -7, "'to_move' must be in 0..2, got -7"),
    ("lost_city_v0", "hp", [250, 250], "'hp' must have 3 items, got 2"),
    ("lost_city_v0", "black", "no", "'black' must be true or false"),
    ("neighborhood_v0", "to_move", -7, "'to_move' must be in -1..2, got -7"),
    ("neighborhood_v0", "hp", [10, 10, 99], "'hp' item 2 must be in 0..10, got 99"),
    ("neighborhood_v0", "alive", [1, 1, 1], "'alive' item 0 must be true or false, got 1"),
    ("neighborhood_v0", "actor", 9, "'actor' must be in -2..2, got 9"),
    ("neighborhood_v0", "over", "garbage", "'over' must be true or false"),
]


@pytest.mark.parametrize("name,field,value,message", BAD_VALUES)
def test_a_bad_value_is_refused_naming_the_field(name, field, value, message):
    game, states = random_states(name, seed=2, limit=30)
    data = {**states[-1].to_dict(), field: value}
    with pytest.raises(StateDictError, match=f"{name} state: field {message}".replace("(", r"\(")):
        type(states[-1]).from_dict(data)
    with pytest.raises(StateDictError):
        game.state_from_dict(data)  # the env's path too


@pytest.mark.parametrize("name", GAMES)
def test_a_missing_key_is_named(name):
    _, states = random_states(name, seed=3, limit=20)
    data = states[-1].to_dict()
    for key in data:
        if key in ("game", "last_roll"):  # Neighborhood's last_roll may be missing (older files)
            continue
        with pytest.raises(StateDictError, match=f"missing key '{key}'"):
            type(states[-1]).from_dict({k: v for k, v in data.items() if k != key})
    with pytest.raises(StateDictError, match="expected a dict, got list"):
        type(states[-1]).from_dict([1, 2])


def test_a_position_where_the_player_to_move_cannot_move_is_refused():
    from boardenvs.core.fields import check_playable

    class Stuck:
        def current_player(self):
            return 0

        def legal_actions(self):
            return []

    with pytest.raises(StateDictError, match="player 0 is to move and cannot"):
        check_playable(Stuck(), 2, "toy state")


def test_fields_name_the_key_the_value_and_what_is_allowed():
    f = Fields({"a": 3, "b": True, "c": [1, 2, 3], "d": "x"}, "toy")
    assert f.int("a", 0, 5) == 3 and f.bool("b") is True and f.ints("c", 3, 0, 3) == [1, 2, 3]
    with pytest.raises(StateDictError, match=r"toy: field 'a' must be in 4\.\.5, got 3"):
        f.int("a", 4, 5)
    with pytest.raises(StateDictError, match="toy: field 'b' must be an integer, got True"):
        f.int("b")
    with pytest.raises(StateDictError, match="toy: field 'c' item 2 must be in <= 2, got 3"):
        f.ints("c", hi=2)
    with pytest.raises(StateDictError, match="toy: field 'd' must be true or false, got 'x'"):
        f.bool("d")
    with pytest.raises(StateDictError, match=r"toy: missing key 'e' \(has \['a', 'b', 'c', 'd'\]\)"):
        f.get("e")


# -- env snapshots and a finished game ---------------------------------------------------------------
def finished_env(name, wrapped):
    env = boardenvs.make(name, raw=not wrapped, **GAMES[name])
    env.reset(seed=1)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return env


@pytest.mark.parametrize("name", GAMES)
def test_step_and_last_after_the_game_say_it_is_over(name):
    raw = finished_env(name, wrapped=False)
    for call in (raw.last, lambda: raw.step(0)):
        with pytest.raises(RuntimeError, match=f"{name}: .* after the game is over .*call reset"):
            call()
    with pytest.raises(RuntimeError, match="after the game is over"):
        finished_env(name, wrapped=True).last()
    fresh = boardenvs.make(name, raw=True, **GAMES[name])
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        fresh.step(0)


def test_an_env_snapshot_with_bad_values_is_refused_and_leaves_the_env_as_it_was():
    env = boardenvs.make("sorry_v0", raw=True, num_players=2)
    env.reset(seed=4)
    good = env.state_dict()
    other = boardenvs.make("sorry_v0", raw=True, num_players=2)
    other.reset(seed=5)
    before = other.state_dict()
    for change, message in [
        ({"agent_selection": "nobody"}, "'agent_selection' must be one of"),
        ({"terminations": {"player_0": "garbage", "player_1": False}}, "'terminations' must map"),
        ({"agents": ["player_0", "player_0"]}, "'agents' must be distinct agents"),
        ({"rng": 5}, "'rng' is not a PCG64 generator state"),
        ({"state": {**good["state"], "to_move": -7}}, "'to_move' must be in 0..1"),
    ]:
        with pytest.raises(StateDictError, match=message):
            other.load_state_dict({**good, **change})
        assert other.state_dict() == before
    with pytest.raises(StateDictError, match="missing key 'rewards'"):
        other.load_state_dict({k: v for k, v in good.items() if k != "rewards"})
    other.load_state_dict(good)
    assert other.state_dict() == good
