"""The turn-based MultiAgentEnv adapter, without a Ray cluster: protocol, spaces, rewards, illegal actions."""

import numpy as np
import pytest

from boardenvs.core.state import IllegalActionError
from boardenvs_agents.rllib.env import TurnBasedMultiAgentEnv


def play(env, rng, episodes=1):
    """Random legal play through the RLlib protocol, checking it at every step; returns the episodes."""
    out = []
    for _ in range(episodes):
        obs, infos = env.reset()
        assert len(obs) == 1 and set(infos) <= set(obs)
        done, observed, totals, steps = set(), set(obs), dict.fromkeys(obs, 0.0), 0
        while True:
            acting = [a for a in obs if a not in done]
            assert len(acting) == 1, f"exactly one agent acts per step, got {sorted(obs)}"
            agent = acting[0]
            mask = obs[agent]["action_mask"]
            assert mask.dtype == np.int8 and mask.any()
            assert env.observation_spaces[agent]["observation"].contains(obs[agent]["observation"])
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, terms, truncs, infos = env.step({agent: action})
            steps += 1
            assert set(rewards) == set(obs)  # rewards reach an agent with its next observation
            for a in obs:
                observed.add(a)
                totals[a] = totals.get(a, 0.0) + rewards[a]
                if terms.get(a) or truncs.get(a):
                    assert a not in done, f"{a} finished twice"
                    assert not obs[a]["action_mask"].any(), (
                        "a done agent's last observation has no legal action"
                    )
                    done.add(a)
            if terms["__all__"] or truncs["__all__"]:
                assert not (terms["__all__"] and truncs["__all__"])
                assert done == observed, "every agent that observed is closed with a last observation"
                break
            assert not (done >= observed)
        out.append({"totals": totals, "steps": steps, "truncated": truncs["__all__"], "done": done})
    return out


@pytest.mark.parametrize(
    "game, options, mapping",
    [
        ("sorry_v0", {"num_players": 4}, "shared"),
        ("gangsi_v0", {"num_players": 4}, "per_role"),
        ("lost_city_v0", {"num_players": 4}, "shared"),
        ("neighborhood_v0", {"num_players": 3}, "shared"),
    ],
)
def test_turn_based_protocol_and_final_rewards(game, options, mapping):
    env = TurnBasedMultiAgentEnv({"game": game, "game_options": options, "mapping": mapping, "seed": 3})
    rng = np.random.default_rng(0)
    for _ in range(3):
        (episode,) = play(env, rng)
        # The rewards RLlib received add up to the rules' returns, for every agent that played.
        returns = env.env.game_state.returns()
        for agent, total in episode["totals"].items():
            assert total == pytest.approx(returns[env.env.possible_agents.index(agent)])
    assert env.num_actions_checked > 0 and env.num_illegal_actions == 0
    assert env.num_episodes == 3


def test_eliminated_agents_leave_while_the_others_play_on():
    # Lost City with 4 players: knocked-out characters leave before the game ends (T-rules on death).
    env = TurnBasedMultiAgentEnv({"game": "lost_city_v0", "game_options": {"num_players": 4}, "seed": 1})
    rng = np.random.default_rng(1)
    early_exits = 0
    for _ in range(10):
        obs, _ = env.reset()
        done = set()
        while True:
            agent = next(a for a in obs if a not in done)
            obs, rewards, terms, truncs, _ = env.step(
                {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))}
            )
            finished = {a for a in obs if terms.get(a) or truncs.get(a)}
            if finished and not (terms["__all__"] or truncs["__all__"]):
                early_exits += 1
                assert all(rewards[a] == -1.0 for a in finished)
                assert len(env.agents) == 4 - len(done | finished)
            done |= finished
            if terms["__all__"] or truncs["__all__"]:
                break
    assert early_exits > 0


def test_gangsi_roles_have_their_own_spaces():
    env = TurnBasedMultiAgentEnv(
        {"game": "gangsi_v0", "game_options": {"num_players": 4}, "mapping": "per_role"}
    )
    assert env.possible_agents == ["kyonshi", "hunter_0", "hunter_1", "hunter_2"]
    assert env.modules == {
        "kyonshi": "kyonshi",
        "hunter_0": "hunter",
        "hunter_1": "hunter",
        "hunter_2": "hunter",
    }
    assert env.action_spaces["kyonshi"].n == 5 and env.action_spaces["hunter_0"].n == 12
    assert env.observation_spaces["kyonshi"]["observation"].shape == (1499,)
    assert env.observation_spaces["hunter_1"]["observation"].shape == (1807,)
    with pytest.raises(ValueError, match="per_role"):
        TurnBasedMultiAgentEnv({"game": "gangsi_v0", "mapping": "shared"})


def test_truncation_gives_every_agent_a_last_observation():
    env = TurnBasedMultiAgentEnv(
        {"game": "sorry_v0", "game_options": {"num_players": 3, "max_turns": 12}, "seed": 0}
    )
    (episode,) = play(env, np.random.default_rng(0))
    assert episode["truncated"]
    assert episode["done"] == {"player_0", "player_1", "player_2"}
    assert all(total == 0.0 for total in episode["totals"].values())


def test_illegal_action_raises_and_is_counted():
    env = TurnBasedMultiAgentEnv({"game": "sorry_v0", "game_options": {"num_players": 2}, "seed": 0})
    obs, _ = env.reset()
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action reached the env"):
        env.step({agent: illegal})
    assert (env.num_actions_checked, env.num_illegal_actions) == (1, 1)
    assert env.pop_counts() == (1, 1) and env.pop_counts() == (0, 0)
    with pytest.raises(ValueError, match="the agent to act"):
        env.step({"player_1" if agent == "player_0" else "player_0": 0})


def test_vs_fixed_exposes_only_the_learner_and_draws_its_seat():
    config = {
        "game": "sorry_v0",
        "game_options": {"num_players": 4},
        "mapping": "vs_fixed",
        "opponents": {"heuristic": 1.0, "random": 1.0},
        "seed": 5,
    }
    env = TurnBasedMultiAgentEnv(config)
    rng = np.random.default_rng(0)
    seats = set()
    for _ in range(12):
        obs, _ = env.reset()
        (learner,) = obs
        seats.add(learner)
        while True:
            assert set(obs) == {learner}
            obs, rewards, terms, truncs, _ = env.step(
                {learner: int(rng.choice(np.flatnonzero(obs[learner]["action_mask"])))}
            )
            if terms["__all__"] or truncs["__all__"]:
                assert rewards[learner] in (-1.0, 1.0, 0.0)
                break
    assert seats == {"player_0", "player_1", "player_2", "player_3"}

    fixed = TurnBasedMultiAgentEnv({**config, "learner_seat": 2})
    assert fixed.possible_agents == ["player_2"]
    for _ in range(3):
        obs, _ = fixed.reset()
        assert set(obs) == {"player_2"}


def test_same_seed_same_games():
    config = {"game": "gangsi_v0", "game_options": {"num_players": 3}, "mapping": "vs_fixed",
              "learner_seat": 0, "opponents": {"heuristic": 1.0, "random": 1.0}, "seed": 11}  # fmt: skip
    runs = []
    for _ in range(2):
        env = TurnBasedMultiAgentEnv(config)
        rng = np.random.default_rng(4)
        trace = []
        for _ in range(2):
            obs, _ = env.reset()
            while True:
                (agent,) = [a for a in obs]
                trace.append(obs[agent]["observation"].tobytes())
                obs, _, terms, truncs, _ = env.step(
                    {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))}
                )
                if terms["__all__"] or truncs["__all__"]:
                    break
        runs.append(trace)
    assert runs[0] == runs[1]


def test_bad_env_config_raises():
    with pytest.raises(ValueError, match="game"):
        TurnBasedMultiAgentEnv({})
    with pytest.raises(ValueError, match="unknown env_config key 'gmae'"):
        TurnBasedMultiAgentEnv({"game": "sorry_v0", "gmae": 1})
    with pytest.raises(ValueError, match="unknown mapping"):
        TurnBasedMultiAgentEnv({"game": "sorry_v0", "mapping": "everyone"})
