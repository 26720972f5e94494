"""What the AEC envs take as an action (boardenvs.core.aec.action_index): ints, numpy integers and 0-d
integer arrays (what SB3's ``model.predict(obs)[0]`` returns) are actions; bools, floats and arrays of
several values are refused with a message that says why, on ``raw_env()`` and through ``env()``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import boardenvs
from boardenvs.core.aec import action_index
from boardenvs.core.state import IllegalActionError

GAMES = boardenvs.env_names()


@pytest.mark.parametrize(
    "action", [5, np.int64(5), np.int8(5), np.uint16(5), np.array(5), np.array(5, dtype=np.int32)]
)
def test_integers_of_every_kind_are_the_same_action(action):
    index = action_index(action)
    assert index == 5 and type(index) is int


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (True, "not a bool"),
        (np.bool_(False), "not a bool"),
        (np.array(True), "not a bool"),
        (5.0, "not a float (whole floats are refused too)"),
        (np.float64(5), "not a float"),
        (np.array(5.0), "not a float"),
        (np.array([5]), "not an array of shape (1,) (of a vectorised predict, pass actions[i])"),
        (np.array([[5]]), "not an array of shape (1, 1)"),
        ("5", "not str"),
        ([5], "not list"),
        (None, "not NoneType"),
    ],
)
def test_bools_floats_and_other_things_are_refused_saying_why(action, why):
    with pytest.raises(TypeError, match=re.escape(why)):
        action_index(action)


def play(env, convert, steps: int = 40) -> dict:
    """``steps`` moves of a fixed rule (the highest legal action), each passed through ``convert``."""
    env.reset(seed=3)
    for _ in env.agent_iter(steps):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else convert(int(np.flatnonzero(obs["action_mask"])[-1])))
    return env.unwrapped.state_dict()


@pytest.mark.parametrize("name", GAMES)
def test_zero_d_arrays_and_numpy_integers_play_as_ints_on_raw_and_wrapped_envs(name):
    for make in (boardenvs.make, lambda n: boardenvs.make(n, raw=True)):
        plain = play(make(name), int)
        for convert in (np.array, np.int64):
            assert play(make(name), convert) == plain


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_zero_d_array_is_named_as_its_number(name):
    raw = boardenvs.make(name, raw=True)
    raw.reset(seed=0)
    agent = raw.agent_selection
    mask = raw.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[-1])
    legal = [int(a) for a in np.flatnonzero(mask)]
    message = re.escape(f"{name}: action {illegal} is not legal for {agent}; legal actions are {legal}")
    with pytest.raises(IllegalActionError, match=message) as raised:
        raw.step(np.array(illegal))
    assert "array(" not in str(raised.value) and illegal not in legal
    # through env() the same array is an illegal move like any other: the game ends, -1 for the mover
    env = boardenvs.make(name)
    env.reset(seed=0)
    env.step(np.array(illegal))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (True, "not a bool"),
        (1.0, "not a float"),
        (np.float32(0), "not a float"),
        (np.array([0]), "shape (1,)"),
    ],
)
def test_bools_floats_and_batches_are_refused_by_the_env_and_change_nothing(wrapped, bad, why):
    env = boardenvs.make("sorry_v0", raw=not wrapped, num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.state_dict()
    agent = env.agent_selection
    message = f"sorry_v0: action {re.escape(repr(bad))} is not legal for {agent}: .*{re.escape(why)}"
    with pytest.raises(IllegalActionError, match=message):
        env.step(bad)
    assert env.unwrapped.state_dict() == before
    assert not any(env.terminations.values())  # not a lost game: not an action at all
    env.step(0)  # and the env goes on (0 is legal at the start of Sorry!: draw a card)
