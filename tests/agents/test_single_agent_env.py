"""The single-agent Gymnasium view: one learner seat, opponents inside step(), masks, seeding, pickling,
rendering, the actions it takes, and its opponents (built-in random, specs through the entry point)."""

import pickle
import re
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import boardenvs  # noqa: F401  (registers the Gymnasium ids)
from boardenvs.core.game import Game
from boardenvs.core.state import IllegalActionError
from boardenvs.sorry.rules import SorryState
from boardenvs.wrappers import LearnerView, RandomOpponent, SingleAgentEnv, single_agent
from boardenvs.wrappers.single_agent import opponent_providers
from boardenvs_agents.base import RandomPolicy
from boardenvs_agents.games.sorry import SorryHeuristic
from boardenvs_agents.learning.envs import make_single_agent_env
from boardenvs_agents.registry import make_policy


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


def test_passes_gymnasium_env_checker_on_defaults_and_with_the_mask_in_the_observation():
    check_env(SingleAgentEnv("sorry_v0", num_players=3, render_mode="ansi"))
    check_env(SingleAgentEnv("sorry_v0", num_players=2, mask_in_observation=True), skip_render_check=True)


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


def test_illegal_action_loses_by_default_or_raises_when_asked():
    losing = SingleAgentEnv("sorry_v0", num_players=2)
    losing.reset(seed=0)
    illegal = int(np.flatnonzero(~losing.action_masks())[0])
    _, reward, terminated, truncated, info = losing.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not losing.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        losing.step(0)
    env = SingleAgentEnv("sorry_v0", num_players=2, illegal_action="raise")
    env.reset(seed=0)
    legal = list(env.state.legal_actions())
    message = re.escape(f"action {illegal} is not legal; legal actions are {legal}")
    with pytest.raises(IllegalActionError, match=message):
        env.step(np.array(illegal))  # named as the number it is, not as array(...)
    with pytest.raises(ValueError, match="'lose' or 'raise'"):
        SingleAgentEnv("sorry_v0", illegal_action="ignore")


def test_legal_moves_never_carry_the_illegal_action_flag():
    env = SingleAgentEnv("sorry_v0", num_players=2)
    total, steps, info = play_episode(env, 4)
    assert total in (1.0, -1.0) and "illegal_action" not in info


def test_zero_d_integer_arrays_and_numpy_integers_are_actions_bools_and_floats_are_not():
    def trajectory(convert):
        env = SingleAgentEnv("sorry_v0", num_players=2, opponents="heuristic")
        obs, _ = env.reset(seed=9)
        out = [obs]
        for _ in range(30):
            action = int(np.flatnonzero(env.action_masks())[-1])
            obs, reward, terminated, truncated, _ = env.step(convert(action))
            out.append(obs)
            if terminated or truncated:
                break
        return out

    plain = trajectory(int)
    for convert in (np.array, np.int64, np.int32, lambda a: np.array(a, dtype=np.uint8)):
        assert all(np.array_equal(a, b) for a, b in zip(plain, trajectory(convert), strict=True))

    env = SingleAgentEnv("sorry_v0", num_players=2)
    env.reset(seed=1)
    legal = int(np.flatnonzero(env.action_masks())[0])
    before = env.state.to_dict()
    for bad, why in [
        (True, "not a bool"),
        (np.bool_(True), "not a bool"),
        (float(legal), "not a float"),
        (np.float32(legal), "not a float"),
        (np.array(float(legal)), "not a float"),
        (np.array([legal]), r"not an array of shape \(1,\)"),
        ("1", "not str"),
    ]:
        message = f"the learner's action .* is not legal: an action is .*{why}"
        with pytest.raises(IllegalActionError, match=message):
            env.step(bad)  # raised even though illegal actions only lose: it is not an action at all
    assert env.state.to_dict() == before


def test_renders_text_and_the_learners_picture():
    assert SingleAgentEnv.metadata["render_modes"] == ["ansi", "rgb_array"]
    assert SingleAgentEnv.metadata["render_fps"] > 0
    text = SingleAgentEnv("sorry_v0", num_players=2, render_mode="ansi")
    assert text.render() is None  # nothing to show before reset
    text.reset(seed=0)
    assert text.render() == text.state.render_text()
    env = SingleAgentEnv("gangsi_v0", render_mode="rgb_array")
    for seed in range(6):
        _, info = env.reset(seed=seed)
        picture = env.render()
        assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
        # what the learner's seat may know, as that seat's observation
        assert np.array_equal(picture, env.game.render_image(env.state, view=info["learner_seat"]))
    assert SingleAgentEnv("sorry_v0", render_mode=None).render() is None
    with pytest.raises(ValueError, match=r"render_mode must be None or one of \['ansi', 'rgb_array'\]"):
        SingleAgentEnv("sorry_v0", render_mode="human")


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


# -- opponents: policies, the built-in "random", specs through the entry-point provider ---------------


def test_random_is_built_in_and_reseeded_by_the_env_every_episode():
    env = SingleAgentEnv("sorry_v0", num_players=3)
    assert {type(p) for p in env.sampler.policies} == {RandomOpponent}
    again = SingleAgentEnv("sorry_v0", num_players=3)
    assert [play_episode(env, s) for s in range(3)] == [play_episode(again, s) for s in range(3)]
    # the same moves as the agents package's RandomPolicy, which this opponent stands in for
    reference = SingleAgentEnv("sorry_v0", opponents=RandomPolicy(), num_players=3)
    assert [play_episode(env, s) for s in range(3)] == [play_episode(reference, s) for s in range(3)]


def test_spec_strings_come_from_the_installed_provider_for_the_games_options():
    assert "boardenvs_agents" in dict(opponent_providers())
    env = SingleAgentEnv("sorry_v0", opponents=["heuristic", "mcts:sims=7"], num_players=3)
    heuristic, mcts = env.sampler.policies
    assert isinstance(heuristic, SorryHeuristic) and (type(mcts).__name__, mcts.sims) == ("MCTSPolicy", 7)
    # a learned agent is checked against the options of the env's game
    with pytest.raises(ValueError, match="other options"):  # shipped for four and two players only
        SingleAgentEnv("sorry_v0", opponents="ppo:sorry_v0", num_players=3)
    with pytest.raises(ValueError, match=r"no installed opponent provider \(boardenvs_agents\) knows 'nope'"):
        SingleAgentEnv("sorry_v0", opponents="nope:x=1")
    with pytest.raises(TypeError, match="act"):
        SingleAgentEnv("sorry_v0", opponents=[object()], num_players=2)


def test_without_a_provider_a_spec_string_says_what_to_install(monkeypatch):
    monkeypatch.setattr(single_agent, "entry_points", lambda group: [])
    single_agent.opponent_providers.cache_clear()
    try:
        message = r"only 'random' is built into boardenvs.*pip install boardenvs"
        with pytest.raises(ImportError, match=message):
            gymnasium.make("boardenvs/Sorry-v0", opponents="heuristic")
        env = gymnasium.make("boardenvs/Sorry-v0", num_players=2)  # "random" needs no provider
        env.reset(seed=0)
    finally:
        single_agent.opponent_providers.cache_clear()


def test_make_single_agent_env_resolves_specs_with_make_policy_and_passes_samplers_on():
    env = make_single_agent_env("sorry_v0", num_players=2)
    assert env.game.options.num_players == 2 and isinstance(env.sampler.policies[0], SorryHeuristic)
    assert env.illegal_action == "lose"
    listed = make_single_agent_env(boardenvs.make_game("sorry_v0"), ["random", "heuristic", "random"])
    assert [type(p) for p in listed.sampler.policies] == [RandomPolicy, SorryHeuristic, RandomPolicy]
    recorder = Recorder()
    sampler = make_single_agent_env("sorry_v0", lambda rng, seats: [recorder] * len(seats), learner_seat=0)
    total, _, info = play_episode(sampler, 2)
    assert info["learner_seat"] == 0 and set(recorder.seats) == {1, 2, 3}
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        make_single_agent_env("sorry_v0", "nope")
    with pytest.raises(ValueError, match="not both"):
        make_single_agent_env(boardenvs.make_game("sorry_v0"), num_players=2)


@pytest.mark.parametrize("how", ["make_policy", "gymnasium.make", "make_single_agent_env"])
def test_a_learned_agent_without_the_train_extra_names_the_extra(monkeypatch, how):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if sb3-contrib were not installed
    build = {
        "make_policy": lambda: make_policy("ppo:sorry_v0", "sorry_v0"),
        "gymnasium.make": lambda: gymnasium.make("boardenvs/Sorry-v0", opponents="ppo:sorry_v0"),
        "make_single_agent_env": lambda: make_single_agent_env("sorry_v0", "ppo:sorry_v0"),
    }[how]
    with pytest.raises(ImportError, match=re.escape('pip install "boardenvs[train]"')) as raised:
        build()
    assert "sb3_contrib" in str(raised.value) and not isinstance(raised.value, ModuleNotFoundError)


def test_training_envs_raise_on_an_illegal_action_instead_of_learning_from_it():
    from boardenvs_agents.learning.config import TrainConfig
    from boardenvs_agents.learning.training import make_vec_env

    config = TrainConfig(
        game="sorry_v0", game_options={"num_players": 2}, n_envs=1, opponents={"heuristic": 1.0}
    )
    vec = make_vec_env(config)
    try:
        vec.reset()
        env = vec.envs[0].unwrapped
        assert env.illegal_action == "raise" and env.game.options.num_players == 2
        illegal = int(np.flatnonzero(~env.action_masks())[0])
        with pytest.raises(IllegalActionError, match="legal actions are"):
            vec.step(np.array([illegal]))
    finally:
        vec.close()


# -- snapshots ----------------------------------------------------------------------------------------


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
        ({"seat": 5}, "seat = 5"),
        ({"forfeited": "no"}, "forfeited = 'no'"),
        ({"rng": {"bit_generator": "PCG64"}}, "rng is not"),
        ({"opponents": [[0, 3, None]]}, "opponents names no opponent"),
    ]:
        with pytest.raises(StateDictError, match=field):
            env.load_state_dict({**good, **change})
    with pytest.raises(StateDictError, match="missing key 'sampler'"):
        env.load_state_dict({k: v for k, v in good.items() if k != "sampler"})
    fixed = SingleAgentEnv("sorry_v0", opponents="random", num_players=2, learner_seat=1)
    with pytest.raises(StateDictError, match="fixed at 1"):
        fixed.load_state_dict({**good, "seat": 0})


# -- opponent decisions handed to the caller (batched opponents) ----------------------------------------


class Deferred(RandomPolicy):
    """A random opponent whose decisions the env hands out (a stand-in for a network)."""


def test_step_moves_hands_out_the_deferred_decisions_and_plays_the_same_game():
    env = SingleAgentEnv("sorry_v0", opponents=[Deferred(), "random", Deferred()], num_players=4)
    reference = SingleAgentEnv("sorry_v0", opponents=[Deferred(), "random", Deferred()], num_players=4)

    def drive(moves, env):
        """Answer every handed-out decision with the opponent's own act(); count them per seat."""
        seats = []
        try:
            seat, policy = next(moves)
            while True:
                assert isinstance(policy, Deferred) and env.opponents[seat] is policy
                assert env.state.current_player() == seat != env.seat
                seats.append(seat)
                seat, policy = moves.send(policy.act(env.state))
        except StopIteration as done:
            return done.value, seats

    defer = lambda policy: isinstance(policy, Deferred)  # noqa: E731
    rng, handed = np.random.default_rng(0), []
    for seed in range(3):
        (obs, info), seats = drive(env.reset_moves(seed=seed, defer=defer), env)
        expected_obs, expected_info = reference.reset(seed=seed)
        assert np.array_equal(obs, expected_obs) and info == expected_info
        handed += seats
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            (obs, reward, terminated, truncated, info), seats = drive(env.step_moves(action, defer), env)
            assert np.array_equal(obs, reference.step(action)[0])
            assert env.state_dict() == reference.state_dict()
            handed += seats
            done = terminated or truncated
    assert len(handed) > 20  # only the Deferred seats' decisions (checked in drive); "random" played inside


def test_a_step_waiting_for_an_opponent_cannot_be_snapshotted_or_stepped_again():
    env = SingleAgentEnv("sorry_v0", opponents=Deferred(), num_players=2, learner_seat=0)
    env.reset(seed=0)
    defer = lambda policy: isinstance(policy, Deferred)  # noqa: E731
    for _ in range(50):  # until a step hands out a decision
        moves = env.step_moves(int(np.flatnonzero(env.action_masks())[0]), defer)
        try:
            seat, policy = next(moves)
            break
        except StopIteration:
            continue
    else:
        pytest.fail("no decision was handed out")
    assert seat == 1
    with pytest.raises(RuntimeError, match="middle of a step"):
        env.state_dict()
    with pytest.raises(RuntimeError, match="still to answer"):
        next(env.step_moves(0))
    env.reset(seed=1)  # a reset abandons the unfinished step
    assert env.state_dict()["seat"] == 0
