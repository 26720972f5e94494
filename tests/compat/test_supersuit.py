"""SuperSuit's wrappers on the AEC envs: which work, which refuse ``Dict`` observations."""

from __future__ import annotations

import numpy as np
import pytest
import supersuit as ss
from pettingzoo.test import api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import boardenvs

GAMES = boardenvs.env_names()
SAME_SPACES = [name for name in GAMES if name != "gangsi_v0"]


@pytest.mark.parametrize("name", GAMES)
def test_clip_reward_passes_api_test(name):
    api_test(ss.clip_reward_v0(boardenvs.make(name), lower_bound=-1, upper_bound=1), num_cycles=300)


@pytest.mark.parametrize("name", SAME_SPACES)
def test_pad_action_space_passes_api_test_where_every_agent_has_one_space(name):
    api_test(ss.pad_action_space_v0(boardenvs.make(name)), num_cycles=300)


def test_pad_action_space_does_not_pad_gangsis_masks():
    env = ss.pad_action_space_v0(boardenvs.make("gangsi_v0"))
    env.reset(seed=0)
    assert env.action_space("kyonshi").n == env.action_space("hunter_0").n == 12
    assert env.observe("kyonshi")["action_mask"].shape == (5,)  # hence PadSpaces on the page


@pytest.mark.parametrize(
    "wrap",
    [
        ss.pad_observations_v0,
        ss.flatten_v0,
        lambda env: ss.dtype_v0(env, np.float16),
        lambda env: ss.frame_stack_v1(env, 2),
        lambda env: ss.black_death_v3(turn_based_aec_to_parallel(env)),
    ],
    ids=["pad_observations_v0", "flatten_v0", "dtype_v0", "frame_stack_v1", "black_death_v3"],
)
def test_observation_wrappers_refuse_dict_observations(wrap):
    """What the page says SuperSuit cannot do; when one starts working, update docs/compatibility.md."""
    with pytest.raises((AssertionError, AttributeError)):
        env = wrap(boardenvs.make("sorry_v0"))
        env.reset(seed=0)


def test_vec_env_runs_on_sorry_with_dict_observations_one_seat_a_slot():
    """``pettingzoo_env_to_vec_env_v1`` on the parallel view takes our ``Dict`` observations: every seat
    is a slot of the vector env, and only the seat to move has a legal action."""
    vec = ss.pettingzoo_env_to_vec_env_v1(turn_based_aec_to_parallel(boardenvs.make("sorry_v0")))
    obs, _ = vec.reset(seed=0)
    assert vec.num_envs == 4 and set(obs) == {"observation", "action_mask"}
    ends = 0
    for _ in range(1000):
        movers = obs["action_mask"].any(axis=1)
        assert movers.sum() == 1  # the three seats not to move have all-zero masks
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in obs["action_mask"]])
        obs, rewards, terminations, truncations, _ = vec.step(actions)
        ends += bool(terminations.all())
    assert ends >= 1  # whole games played, one after the other


def test_vec_env_gives_maskable_ppo_no_masks():
    """SuperSuit's SB3 wrapper cannot hand the masks on: sb3-contrib's get_action_masks fails on it."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    vec = ss.pettingzoo_env_to_vec_env_v1(turn_based_aec_to_parallel(boardenvs.make("sorry_v0")))
    sb3_vec = ss.concat_vec_envs_v1(vec, 1, base_class="stable_baselines3")
    sb3_vec.reset()
    with pytest.raises(AttributeError):
        get_action_masks(sb3_vec)


@pytest.mark.parametrize("name", [name for name in GAMES if name != "sorry_v0"])
def test_vec_env_refuses_role_spaces_and_eliminations(name):
    """Gangsi's roles have different observation spaces; Lost City and Neighborhood knock players out,
    which needs its ``black_death`` (a wrapper that refuses ``Dict`` observations, above)."""
    message = "observation spaces not consistent" if name == "gangsi_v0" else "varying numbers of active"
    with pytest.raises(AssertionError, match=message):
        vec = ss.pettingzoo_env_to_vec_env_v1(turn_based_aec_to_parallel(boardenvs.make(name)))
        obs, _ = vec.reset(seed=0)
        for _ in range(5000):
            masks = obs["action_mask"]
            obs, *_ = vec.step(np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]))
