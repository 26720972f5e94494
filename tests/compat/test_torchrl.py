"""torchrl's ``PettingZooWrapper`` in AEC mode, as docs/compatibility.md says to use it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import boardenvs

GAMES = boardenvs.env_names()
WITH_ELIMINATIONS = ("gangsi_v0", "lost_city_v0", "neighborhood_v0")
#: Three hunters: the first Gangsi game with a hunter knocked out comes sooner (torchrl steps are slow).
OPTIONS = {"gangsi_v0": {"num_hunters": 3}}

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")


def masked_random_policy(env: PettingZooWrapper, rng: np.random.Generator):
    """A torchrl policy (TensorDict in, actions set) picking uniformly among each group's legal actions."""

    def policy(td):
        for group in env.group_map:
            mask = td.get((group, "action_mask"))
            actions = torch.zeros(mask.shape[:-1], dtype=torch.int64)
            for i in range(mask.shape[0]):
                legal = torch.nonzero(mask[i]).flatten()
                actions[i] = int(legal[rng.integers(len(legal))]) if len(legal) else 0
            td.set((group, "action"), actions)
        return td

    return policy


def wrapped(name: str, keep_eliminated: type, seed: int) -> tuple[PettingZooWrapper, object]:
    aec = boardenvs.make(name, **OPTIONS.get(name, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchrl: "tested using PettingZoo 1.24.3"
        return PettingZooWrapper(keep_eliminated(aec), use_mask=True, seed=seed), aec.unwrapped


@pytest.mark.parametrize("name", GAMES)
def test_whole_games_with_keep_eliminated(name, keep_eliminated):
    """Each rollout is one whole game; every agent's rewards add up to its result, knocked-out agents
    are done from the step that knocked them out and never act again."""
    rng = np.random.default_rng(0)
    eliminations = 0
    for seed in range(100):
        env, raw = wrapped(name, keep_eliminated, seed)
        rollout = env.rollout(100_000, policy=masked_random_policy(env, rng), break_when_any_done=True)
        state = raw.game_state
        assert rollout["next", "done"][-1].item() and not rollout["next", "done"][:-1].any()
        assert state.is_terminal()
        returns = state.returns()
        for i, agent in enumerate(env.possible_agents):  # one group per agent in AEC mode
            assert rollout["next", agent, "reward"].sum().item() == returns[i]
            # one value per step for the group's one agent
            acted, done = rollout[agent, "mask"].flatten(), rollout[agent, "done"].flatten()
            assert not (acted & done).any(), f"{agent} acted after it was done"
            knocked_out = rollout["next", agent, "done"].flatten() & ~rollout["next", "done"].flatten()
            eliminations += int(knocked_out.any())
        if name not in WITH_ELIMINATIONS or eliminations:
            break
    assert (eliminations > 0) == (name in WITH_ELIMINATIONS)


@pytest.mark.parametrize("name", GAMES)
def test_check_env_specs(name, keep_eliminated):
    env, _ = wrapped(name, keep_eliminated, seed=0)
    check_env_specs(env, seed=0)


def test_without_the_wrapper_the_rollout_fails_at_the_first_elimination():
    """The client's fault the page works around: torchrl steps the knocked-out agent's dead step with an
    action drawn from its all-zero mask. When this starts passing, update docs/compatibility.md."""
    aec = boardenvs.make("lost_city_v0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = PettingZooWrapper(aec, use_mask=True, seed=0)
    torch.manual_seed(0)
    with pytest.raises(RuntimeError, match="multinomial"):
        env.rollout(100_000, break_when_any_done=True)  # torchrl's own random policy
    state = aec.unwrapped.game_state
    assert not state.is_terminal()
    assert any(state.is_out(p) for p in range(len(aec.possible_agents)))
