"""PettingZoo's parallel API on every game, through ``turn_based_aec_to_parallel``.

(``api_test``, ``seed_test`` and ``render_test`` run in the env contract suite,
tests/test_env_contract.py; ``performance_benchmark`` runs in ``docs/compat_check.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import boardenvs

GAMES = boardenvs.env_names()
#: The games whose players can be knocked out while the others play on.
WITH_ELIMINATIONS = ("gangsi_v0", "lost_city_v0", "neighborhood_v0")


@pytest.mark.parametrize("name", GAMES)
def test_parallel_api_test_passes(name):
    parallel_api_test(turn_based_aec_to_parallel(boardenvs.make(name)), num_cycles=1000)


def play_parallel_game(name: str, seed: int) -> dict:
    """One game through the parallel view, the mover picking uniformly among its legal actions.

    Each step checks that exactly one live agent has a non-zero mask (the mover the wrapper names in
    ``infos[agent]["active_agent"]`` from the second step on) and that its mask is the game's legal
    actions. Returns the summed rewards, the eliminations seen mid-game and the final rules state.
    """
    aec = boardenvs.make(name)  # env(): an illegal action would end the game early with -1
    env = turn_based_aec_to_parallel(aec)
    rng = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    eliminated = []
    active = None
    while env.agents:
        state = aec.unwrapped.game_state
        movers = [a for a in env.agents if observations[a]["action_mask"].any()]
        assert len(movers) == 1, f"{name} seed {seed}: agents with a mask: {movers}"
        mover = movers[0]
        assert active in (None, mover)
        assert np.flatnonzero(observations[mover]["action_mask"]).tolist() == list(state.legal_actions())
        legal = np.flatnonzero(observations[mover]["action_mask"])
        actions = dict.fromkeys(env.agents, 0)  # the others' actions are ignored
        actions[mover] = int(rng.choice(legal))
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if env.agents:
            eliminated += [a for a, done in terminations.items() if done]
            active = infos[env.agents[0]]["active_agent"]
    return {"totals": totals, "eliminated": eliminated, "state": aec.unwrapped.game_state}


@pytest.mark.parametrize("name", GAMES)
def test_whole_games_through_the_parallel_view_with_eliminations(name):
    """Games play to their end with legal moves only, knock-outs included; rewards add up to results.

    Before the mask went to the next mover during a dead step, the first parallel step after an
    elimination found no agent with a mask, and the mover's action was illegal.
    """
    eliminations = 0
    for seed in range(200):
        game = play_parallel_game(name, seed)
        state = game["state"]
        assert state.is_terminal(), f"{name} seed {seed}: the game did not reach its end"
        returns = state.returns()
        assert game["totals"] == {a: returns[i] for i, a in enumerate(boardenvs.make(name).possible_agents)}
        eliminations += len(game["eliminated"])
        if name not in WITH_ELIMINATIONS or eliminations:
            break
    assert (eliminations > 0) == (name in WITH_ELIMINATIONS)
