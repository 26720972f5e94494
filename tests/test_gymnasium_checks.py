"""The first checks a Gymnasium / Stable-Baselines3 user runs, on defaults, for every registered id.

``gymnasium.make(id)`` with nothing else: Gymnasium's and SB3's env checkers (which step random, often
illegal, actions: the default ``illegal_action="lose"`` ends the episode as ``env()`` does), SB3's
``make_vec_env`` (which asks for ``render_mode="rgb_array"``), the two documented ways to reach
``action_masks()`` through Gymnasium 1.x wrappers, ``env.step(model.predict(obs)[0])`` with a shipped
model, and the ``"boardenvs:<id>"`` form in a process that never imports boardenvs.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.env_util import make_vec_env

import boardenvs  # noqa: F401  (registers the ids)
from boardenvs.registry import gym_ids

IDS = sorted(gym_ids().values())


@pytest.mark.parametrize("gym_id", IDS)
def test_gymnasiums_env_checker_passes_on_defaults(gym_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker reports much as warnings: none expected but this one
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version")
        gymnasium_check_env(gymnasium.make(gym_id))
        for render_mode in (None, "ansi", "rgb_array"):  # the render checks too
            gymnasium_check_env(gymnasium.make(gym_id, render_mode=render_mode).unwrapped)


@pytest.mark.parametrize("gym_id", IDS)
def test_sb3s_env_checker_passes_on_defaults(gym_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 reports what it dislikes as warnings: none expected
        sb3_check_env(gymnasium.make(gym_id))


@pytest.mark.parametrize("gym_id", IDS)
def test_random_actions_lose_the_game_and_say_so(gym_id):
    env = gymnasium.make(gym_id)
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(~mask)[0]))
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    raising = gymnasium.make(gym_id, illegal_action="raise")
    raising.reset(seed=0)
    with pytest.raises(boardenvs.core.IllegalActionError, match="legal actions are"):
        raising.step(int(np.flatnonzero(~mask)[0]))


@pytest.mark.parametrize("gym_id", IDS)
def test_make_vec_env_works_renders_and_gives_masks(gym_id):
    vec = make_vec_env(gym_id, n_envs=2, seed=0)
    try:
        obs = vec.reset()
        assert obs.shape == (2, *vec.observation_space.shape)
        masks = get_action_masks(vec)  # what MaskablePPO calls: env_method("action_masks")
        assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()
        vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        picture = vec.render()
        assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    finally:
        vec.close()


@pytest.mark.parametrize("gym_id", IDS)
def test_the_documented_ways_to_the_action_mask_through_gymnasium_make(gym_id):
    env = gymnasium.make(gym_id)
    env.reset(seed=1)
    by_unwrapped = env.unwrapped.action_masks()
    by_wrapper_attr = env.get_wrapper_attr("action_masks")()
    assert by_unwrapped.dtype == bool and by_unwrapped.any()
    assert np.array_equal(by_unwrapped, by_wrapper_attr)
    state = env.unwrapped.state
    assert set(np.flatnonzero(by_unwrapped)) == set(state.legal_actions())


def test_a_shipped_models_predict_output_steps_both_views():
    """``env.step(model.predict(obs)[0])``: SB3 returns a 0-d array for one observation."""
    from boardenvs_agents.learning.models import MODELS_DIR, load_model

    model, meta = load_model(MODELS_DIR / "ppo_sorry_v0.zip")
    env = gymnasium.make("boardenvs/Sorry-v0", **meta["options"])
    obs, _ = env.reset(seed=0)
    for _ in range(60):
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, reward, terminated, truncated, info = env.step(action)
        assert "illegal_action" not in info
        if terminated or truncated:
            break
    raw = boardenvs.make("sorry_v0", raw=True, **meta["options"])  # raises on an illegal action
    raw.reset(seed=0)
    moves = 0
    for _ in raw.agent_iter(200):
        obs, _, terminated, truncated, _ = raw.last()
        if terminated or truncated:
            raw.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        raw.step(model.predict(obs["observation"], action_masks=mask, deterministic=True)[0])
        moves += 1
    assert moves > 100


CHILD = """
import sys
import gymnasium
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

try:
    gymnasium.make("boardenvs/Sorry-v0")
    raise SystemExit("the id was found without importing boardenvs")
except gymnasium.error.Error:
    pass
vec = make_vec_env(
    "boardenvs:boardenvs/Sorry-v0", n_envs=1, vec_env_cls=SubprocVecEnv,
    vec_env_kwargs={"start_method": "spawn"}, env_kwargs={"num_players": 2},
)
vec.reset()
masks = vec.env_method("action_masks")
vec.step([int(masks[0].nonzero()[0][0])])
vec.close()
assert "boardenvs" not in sys.modules, "the parent imported boardenvs"
print("ok", masks[0].shape)
"""


def test_the_module_prefixed_id_works_in_subprocess_children_of_a_process_without_boardenvs():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", "(79,)"]


def test_maskable_ppo_trains_on_make_vec_env_of_the_id_as_it_is():
    from sb3_contrib import MaskablePPO

    vec = make_vec_env("boardenvs/Sorry-v0", n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=32)
    model.learn(32)
    assert model.num_timesteps == 32
