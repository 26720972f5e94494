"""The page's Stable-Baselines3 recipe: MaskablePPO on the single-agent view of every game."""

from __future__ import annotations

import gymnasium
import pytest
from sb3_contrib import MaskablePPO

import boardenvs  # noqa: F401  (registers the ids)
from boardenvs.registry import gym_ids


@pytest.mark.parametrize("gym_id", sorted(gym_ids().values()))
def test_maskable_ppo_learns_and_plays_a_game(gym_id):
    env = gymnasium.make(gym_id, opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(32)
    obs, info = env.reset(seed=1)
    for _ in range(10_000):
        masks = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[action]
        obs, reward, terminated, truncated, info = env.step(action)  # a 0-d array
        if terminated or truncated:
            break
    assert terminated or truncated
    assert not info.get("illegal_action", False)
    assert reward in (-1.0, 0.0, 1.0)
