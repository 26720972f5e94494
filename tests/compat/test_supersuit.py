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
