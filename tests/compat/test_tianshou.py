"""Tianshou's ``PettingZooEnv``, as docs/compatibility.md says to use it."""

from __future__ import annotations

import numpy as np
import pytest
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector
from tianshou.env import DummyVectorEnv, PettingZooEnv

import boardenvs

GAMES = boardenvs.env_names()
WITH_ELIMINATIONS = ("gangsi_v0", "lost_city_v0", "neighborhood_v0")


def play_episode(env: PettingZooEnv, seed: int, rng: np.random.Generator) -> np.ndarray:
    """One Tianshou episode with uniformly random legal actions: its reward vectors, one row a step."""
    obs, _ = env.reset(seed=seed)
    rewards = []
    while True:
        legal = np.flatnonzero(obs["mask"])
        obs, reward, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        rewards.append(list(reward))
        if terminated or truncated:
            return np.array(rewards)


@pytest.mark.parametrize("name", GAMES)
def test_whole_games_with_the_wrappers(name, keep_eliminated, pad_spaces):
    """An episode is a whole game, knock-outs included: the winner's +1 is seen."""
    rng = np.random.default_rng(0)
    eliminations = 0
    for seed in range(100):
        aec = boardenvs.make(name)
        env = PettingZooEnv(pad_spaces(keep_eliminated(aec)))
        rewards = play_episode(env, seed, rng)
        state = aec.unwrapped.game_state
        assert state.is_terminal()
        assert rewards.sum(axis=0).tolist() == list(state.returns())
        eliminations += int(np.count_nonzero(rewards[:-1]))  # a -1 paid before the last step
        if name not in WITH_ELIMINATIONS or eliminations:
            break
    assert (eliminations > 0) == (name in WITH_ELIMINATIONS)


def test_without_the_wrapper_the_episode_stops_at_the_first_elimination():
    """The client's fault the page works around. When this starts failing, update docs/compatibility.md."""
    aec = boardenvs.make("lost_city_v0")
    totals = play_episode(PettingZooEnv(aec), seed=0, rng=np.random.default_rng(0)).sum(axis=0)
    state = aec.unwrapped.game_state
    assert not state.is_terminal()
    out = [p for p in range(len(aec.possible_agents)) if state.is_out(p)]
    assert len(out) == 1
    assert totals.tolist() == [-1.0 if p in out else 0.0 for p in range(len(aec.possible_agents))]


def test_gangsi_needs_padded_spaces():
    with pytest.raises(AssertionError, match="spaces for all agents must be identical"):
        PettingZooEnv(boardenvs.make("gangsi_v0"))


def test_the_pages_collector_recipe(keep_eliminated, pad_spaces):
    def make_env():
        return PettingZooEnv(pad_spaces(keep_eliminated(boardenvs.make("gangsi_v0"))))

    env = make_env()
    random_players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_players, env=env)
    venv = DummyVectorEnv([make_env])
    venv.seed(0)
    np.random.seed(0)  # Tianshou's random players draw from numpy's global generator
    result = Collector(algorithm, venv).collect(n_episode=1, reset_before_collect=True)
    assert result.returns.shape == (1, len(env.agents))
    # Gangsi pays +1 to the one winner (K20): the episode went on to the end of its game
    assert (result.returns == 1.0).sum(axis=1).tolist() == [1]
