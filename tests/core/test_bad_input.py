"""Clear errors for bad input to the envs: an action outside the action space given to ``env()``, an
agent name the env does not have, and the single-agent env's ``action_masks()`` before ``reset()``.
Each names the game, the agent or the method, and what is allowed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import boardenvs
from boardenvs.core.aec import ActionOutOfBoundsError, UnknownAgentError
from boardenvs.core.fields import StateDictError
from boardenvs.core.state import IllegalActionError
from boardenvs.wrappers import SingleAgentEnv

GAMES = {
    "sorry_v0": {"num_players": 2},
    "gangsi_v0": {"num_players": 3},
    "lost_city_v0": {"num_players": 3},
    "neighborhood_v0": {"num_players": 3},
}


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("action", [999, -1])
def test_an_action_outside_the_space_names_the_game_the_agent_and_the_legal_actions(name, action):
    env = boardenvs.make(name, **GAMES[name])
    env.reset(seed=1)
    agent = env.agent_selection
    size = env.action_space(agent).n
    legal = [int(a) for a in np.flatnonzero(env.observe(agent)["action_mask"])]
    with pytest.raises(ActionOutOfBoundsError) as err:
        env.step(action)
    assert str(err.value) == (
        f"{name}: action {action} is not in {agent}'s action space (Discrete({size}): 0..{size - 1}); "
        f"legal actions are {legal}"
    )
    # Still what PettingZoo's AssertOutOfBoundsWrapper raises, and what the raw env raises for a move
    # that is not legal; nothing was played.
    assert isinstance(err.value, AssertionError) and isinstance(err.value, IllegalActionError)
    assert env.agent_selection == agent and not any(env.terminations.values())
    env.step(legal[0])  # the game goes on


@pytest.mark.parametrize("name", GAMES)
def test_a_done_agent_is_told_its_step_is_none(name):
    env = boardenvs.make(name, **GAMES[name])
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))  # illegal: the game stops, every agent is done
    agent = env.agent_selection
    with pytest.raises(ActionOutOfBoundsError, match=f"^{name}: {agent} is done: its step is step\\(None\\)"):
        env.step(999)
    env.step(None)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("raw", [True, False])
def test_an_unknown_agent_is_named_with_the_envs_agents(name, raw):
    env = boardenvs.make(name, raw=raw, **GAMES[name])
    env.reset(seed=1)
    expected = f"{name}: no agent 'player_9'; the agents are {env.possible_agents}"
    for call in (env.observe, env.action_space, env.observation_space):
        with pytest.raises(UnknownAgentError) as err:
            call("player_9")
        assert str(err.value) == expected
        assert isinstance(err.value, KeyError)  # what a lookup of an unknown agent raised before
    with pytest.raises(UnknownAgentError, match=r"no agent \['player_0'\]"):
        env.observe(["player_0"])  # not even a name


def test_action_masks_before_reset_raises_as_step_does():
    env = SingleAgentEnv("sorry_v0", num_players=2)
    with pytest.raises(
        RuntimeError, match=r"^sorry_v0: action_masks\(\) called before reset\(\); call reset\(\)$"
    ):
        env.action_masks()
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.step(0)
    env.reset(seed=0)
    assert env.action_masks().any()


def test_a_single_agent_snapshot_must_have_the_learner_to_move():
    env = SingleAgentEnv("sorry_v0", num_players=2, learner_seat=0)
    env.reset(seed=0)
    snap = json.loads(json.dumps(env.state_dict()))
    data = snap["state"]
    assert data["to_move"] == 0
    other = {**snap, "state": {**data, "to_move": 1}}
    with pytest.raises(
        StateDictError, match="^sorry_v0 single-agent env snapshot: state has player 1 to move"
    ):
        env.load_state_dict(other)
    with pytest.raises(StateDictError, match="unknown key 'extra'"):
        env.load_state_dict({**snap, "extra": 1})
    env.load_state_dict(snap)
    assert env.state_dict() == snap
