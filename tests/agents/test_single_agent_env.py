"""The single-agent Gymnasium view: one learner seat, opponents inside step(), masks, seeding, pickling."""

import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import boardenvs  # noqa: F401  (registers the Gymnasium ids)
from boardenvs.core.game import Game
from boardenvs.core.state import IllegalActionError
from boardenvs.sorry.rules import SorryState
from boardenvs.wrappers import LearnerView, SingleAgentEnv
from boardenvs_agents.base import RandomPolicy


class Recorder(RandomPolicy):
    """A random opponent that records the seats it was asked to play."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.seats = []

    def act(self, state):
        self.seats.append(state.current_player())
        return super().act(state)


def play_episode(env, seed):
    obs, info = env.reset(seed=seed)
    total, steps, rng = 0.0, 0, np.random.default_rng(seed)
    while True:
        legal = np.flatnonzero(env.action_masks())
        assert len(legal) > 0
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


def test_gymnasium_make_with_opponents_by_spec():
    env = gymnasium.make("boardenvs/Sorry-v0", opponents="heuristic", num_players=2)
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape == (843,)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.any()  # valid right after reset
    state = env.unwrapped.state
    assert state.current_player() == info["learner_seat"]
    assert set(np.flatnonzero(mask)) == set(state.legal_actions())


def test_passes_gymnasium_env_checker():
    check_env(SingleAgentEnv("sorry_v0", num_players=3, illegal_action="lose"), skip_render_check=True)
    check_env(
        SingleAgentEnv("sorry_v0", num_players=2, mask_in_observation=True, illegal_action="lose"),
        skip_render_check=True,
    )


def test_opponents_play_every_other_seat_inside_step_and_reward_comes_at_the_end():
    opponent = Recorder()
    env = SingleAgentEnv("sorry_v0", opponents=opponent, num_players=4)
    for seed in range(6):
        total, steps, info = play_episode(env, seed)
        seat = info["learner_seat"]
        assert total in (1.0, -1.0)
        assert seat not in opponent.seats and set(opponent.seats) == {0, 1, 2, 3} - {seat}
        opponent.seats.clear()


def test_learner_seat_is_drawn_by_the_env_generator_or_fixed():
    env = SingleAgentEnv("sorry_v0", num_players=4)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    assert [env.reset(seed=s)[1]["learner_seat"] for s in range(10)] == [
        env.reset(seed=s)[1]["learner_seat"] for s in range(10)
    ]
    fixed = SingleAgentEnv("sorry_v0", num_players=4, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {2}


def test_same_seed_same_episode_and_pickling_keeps_behaviour():
    env = SingleAgentEnv("sorry_v0", opponents="heuristic", num_players=3)
    copy = pickle.loads(pickle.dumps(env))
    assert play_episode(env, 11) == play_episode(copy, 11)


def test_illegal_action_raises_or_loses():
    env = SingleAgentEnv("sorry_v0", num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal"):
        env.step(illegal)
    losing = SingleAgentEnv("sorry_v0", num_players=2, illegal_action="lose")
    losing.reset(seed=0)
    _, reward, terminated, _, info = losing.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert not losing.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        losing.step(0)


def test_mask_in_observation_matches_action_masks():
    env = SingleAgentEnv("sorry_v0", num_players=2, mask_in_observation=True)
    obs, _ = env.reset(seed=5)
    assert obs["action_mask"].dtype == np.int8
    assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())


def test_subproc_vec_env_works_and_gives_masks():
    vec = SubprocVecEnv([lambda: SingleAgentEnv("sorry_v0", num_players=2) for _ in range(2)])
    try:
        vec.seed(0)
        vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 79) and masks.any(axis=1).all()
    finally:
        vec.close()


class TwoRoles(Game):
    """Sorry! with seat 1's spaces made different, to exercise the padded view of asymmetric games."""

    name = "sorry_v0"
    Options = boardenvs.make_game("sorry_v0").Options
    state_class = SorryState

    @property
    def num_players(self):
        return 2

    def num_actions(self, player):
        return 79 if player == 0 else 80

    def observation_shape(self, player):
        return (843,) if player == 0 else (10,)

    def new_initial_state(self):
        return SorryState(self.options)

    def observe(self, state, player):
        obs = boardenvs.make_game("sorry_v0", num_players=2).observe(state, player)
        return obs if player == 0 else obs[:10]


def test_seats_with_different_spaces_share_a_padded_space_with_a_seat_one_hot():
    game = TwoRoles(num_players=2)
    view = LearnerView(game, None, False)
    assert view.box.shape == (843 + 2,) and view.num_actions == 80
    env = SingleAgentEnv(game)
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        seat = info["learner_seat"]
        assert obs.shape == (845,)
        assert obs[843 + seat] == 1.0 and obs[843 + 1 - seat] == 0.0
        if seat == 1:
            assert not obs[10:843].any()  # padding
    fixed = LearnerView(game, 1, False)
    assert fixed.box.shape == (10,) and fixed.num_actions == 80


def continue_episodes(env, rng, steps):
    """``steps`` random learner moves (resetting at episode ends); the observations and rewards."""
    out = []
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        out.append((obs.tobytes(), reward))
        if terminated or truncated:
            obs, _ = env.reset()
            out.append((obs.tobytes(), None))
    return out


@pytest.mark.parametrize("game", ["sorry_v0", "gangsi_v0"])
def test_a_state_dict_restores_the_env_mid_episode_exactly(game):
    import json

    env = SingleAgentEnv(game, opponents=["heuristic", "random"], num_players=3)
    env.reset(seed=3)
    continue_episodes(env, np.random.default_rng(0), 25)
    snapshot = json.loads(json.dumps(env.state_dict()))  # JSON-able
    expected = continue_episodes(env, np.random.default_rng(1), 200)  # across several resets
    other = SingleAgentEnv(game, opponents=["heuristic", "random"], num_players=3)
    other.load_state_dict(snapshot)
    assert continue_episodes(other, np.random.default_rng(1), 200) == expected


def test_a_bad_state_dict_is_refused_naming_the_field():
    from boardenvs.core.fields import StateDictError

    env = SingleAgentEnv("sorry_v0", opponents="random", num_players=2)
    env.reset(seed=1)
    good = env.state_dict()
    for change, field in [
        ({"seat": 5}, "'seat'"),
        ({"forfeited": "no"}, "'forfeited'"),
        ({"rng": {"bit_generator": "PCG64"}}, "'rng'"),
        ({"opponents": [[0, 3, None]]}, "'opponents'"),
    ]:
        with pytest.raises(StateDictError, match=field):
            env.load_state_dict({**good, **change})
    with pytest.raises(StateDictError, match="missing key 'sampler'"):
        env.load_state_dict({k: v for k, v in good.items() if k != "sampler"})
    fixed = SingleAgentEnv("sorry_v0", opponents="random", num_players=2, learner_seat=1)
    with pytest.raises(StateDictError, match="fixed at 1"):
        fixed.load_state_dict({**good, "seat": 0})
