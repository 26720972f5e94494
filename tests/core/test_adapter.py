"""The PettingZoo adapter (boardenvs.core.aec) driven through the toy game of toy_game.py."""

from __future__ import annotations

import json
import pickle
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from boardenvs.core import TERMINAL, IllegalActionError, OptionError, play_chance

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toy_game  # noqa: E402
from toy_game import DOUBLE, PASS, TAKE, ToyGame, ToyState  # noqa: E402

# -- helpers --------------------------------------------------------------------------------------


def pick(rng: np.random.Generator, obs: dict) -> int:
    """A random legal action from the mask (passing less often, so that games last)."""
    legal = np.flatnonzero(obs["action_mask"])
    if len(legal) > 1 and rng.random() < 0.75:
        legal = legal[legal != PASS]
    return int(rng.choice(legal))


def run(env, policy_seed: int = 0, perturb: bool = False, max_steps: int = 5000) -> list:
    """Play to the end with a seeded random policy; one record per agent turn (dead steps included)."""
    rng = np.random.default_rng(policy_seed)
    raw = env.unwrapped
    traj = []
    for agent in env.agent_iter(max_steps):
        obs, rew, term, trunc, _ = env.last()
        action = None if term or trunc else pick(rng, obs)
        traj.append(
            (agent, obs["observation"].tolist(), obs["action_mask"].tolist(), rew, term, trunc, action,
             raw.game_state.to_dict())
        )  # fmt: skip
        env.step(action)
        if perturb:
            random.random()
            np.random.random()
    assert not env.agents, "game did not finish"
    return traj


def play(env, actions: list[int | None]) -> None:
    """Step the given actions in turn."""
    for a in actions:
        env.step(a)


def make_raw(**options) -> toy_game.raw_env:
    e = toy_game.raw_env(**options)
    e.reset(seed=0)
    return e


# -- PettingZoo's own checks ----------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api_test(num_players):
    api_test(toy_game.env(num_players=num_players), num_cycles=300)


def test_pettingzoo_api_test_raw_env():
    api_test(toy_game.raw_env(), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(toy_game.env, num_cycles=300)


# -- dead steps, eliminations, draws, truncation --------------------------------------------------


def test_random_games_dead_steps_masks_and_reward_sums():
    """Over many random games: masks, one final last() per agent, and rewards that add up."""
    outcomes = Counter()
    for seed in range(40):
        env = toy_game.env()
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        finals = Counter()
        from_last = defaultdict(float)
        from_rewards = defaultdict(float)
        eliminated_mid_game = False
        for agent in env.agent_iter(5000):
            obs, rew, term, trunc, info = env.last()
            assert isinstance(info, dict)
            from_last[agent] += rew
            state = raw.game_state
            # The mask is on the player to move in the game: during an eliminated agent's dead step,
            # already on the one who moves after it (what turn_based_aec_to_parallel relies on).
            to_move = None if state.is_terminal() else env.possible_agents[state.current_player()]
            assert (term or trunc) or agent == to_move
            for other in env.agents:
                mask = env.observe(other)["action_mask"]
                assert mask.dtype == np.int8
                if other == to_move:
                    assert np.flatnonzero(mask).tolist() == list(state.legal_actions())
                else:
                    assert not mask.any(), f"{other} has a non-zero mask but is not to act"
            if term or trunc:
                finals[agent] += 1
                if not state.is_terminal():
                    eliminated_mid_game = True
                    assert term and not trunc and rew == -1.0
                    assert state.is_out(raw._player_of[agent])
                env.step(None)
                assert agent not in env.agents
                assert agent not in env.rewards and agent not in env.terminations
            else:
                assert obs["action_mask"].any()
                assert np.flatnonzero(obs["action_mask"]).tolist() == list(state.legal_actions())
                assert state.current_player() == raw._player_of[agent]
                env.step(pick(rng, obs))
            for a, r in env.rewards.items():
                from_rewards[a] += r
        assert finals == dict.fromkeys(env.possible_agents, 1)
        assert env.agents == []
        returns = raw.game_state.returns()
        expected = {a: returns[i] for i, a in enumerate(env.possible_agents)}
        assert dict(from_last) == expected
        for a in env.possible_agents:
            assert from_rewards[a] == expected[a]
        state = raw.game_state
        outcomes["win" if state.winner >= 0 else "draw" if state.draw else "truncated"] += 1
        outcomes["elimination"] += eliminated_mid_game
    # the toy game really exercises every ending in random play
    assert outcomes["win"] and outcomes["draw"] and outcomes["elimination"]


@pytest.mark.parametrize("wrapped", [False, True])
def test_elimination_mid_game_then_win(wrapped):
    # one face of 2: every roll is 2, every secret is face 0 so DOUBLE is always legal
    env = toy_game.env(faces=[2], target=3) if wrapped else toy_game.raw_env(faces=[2], target=3)
    env.reset(seed=0)
    play(env, [TAKE, TAKE, PASS])  # scores 2, 2, 0
    env.step(TAKE)  # player_0 reaches 4 > 3: out
    assert env.agent_selection == "player_0"
    obs, rew, term, trunc, _ = env.last()
    assert (rew, term, trunc) == (-1.0, True, False)
    assert not obs["action_mask"].any()
    assert env.terminations == {"player_0": True, "player_1": False, "player_2": False}
    assert env.unwrapped.game_state.current_player() == 1
    # the mask is already on the next mover, so nothing but agent_selection changes across the dead step
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 1]
    assert not env.observe("player_2")["action_mask"].any()
    env.step(None)
    assert env.agents == ["player_1", "player_2"]
    assert env.agent_selection == "player_1"
    assert env.last()[1:4] == (0.0, False, False)
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 1]
    with pytest.raises(KeyError):
        env.terminations["player_0"]
    play(env, [PASS, TAKE, TAKE])  # player_1 busts: player_2 is the last one left
    assert env.unwrapped.game_state.winner == 2
    seen = {}
    for agent in env.agent_iter():
        _, rew, term, trunc, _ = env.last()
        assert term and not trunc
        seen[agent] = rew
        env.step(None)
    assert seen == {"player_1": -1.0, "player_2": 1.0}
    assert env.agents == []


def test_winner_exactly_on_target():
    env = make_raw(faces=[2], target=4)
    play(env, [TAKE, PASS, PASS, TAKE])
    assert env.terminations == dict.fromkeys(env.possible_agents, True)
    assert env.truncations == dict.fromkeys(env.possible_agents, False)
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_draw_after_an_elimination():
    env = make_raw(faces=[2], target=1)
    env.step(TAKE)  # player_0 out at once
    assert env.agent_selection == "player_0" and env.rewards["player_0"] == -1.0
    env.step(None)
    play(env, [PASS, PASS])  # both players still in pass: draw
    state = env.game_state
    assert state.is_terminal() and state.draw and not state.is_truncated()
    assert state.returns() == [-1.0, 0.0, 0.0]
    assert env.terminations == {"player_1": True, "player_2": True}
    assert env.truncations == {"player_1": False, "player_2": False}
    assert env.rewards == {"player_1": 0.0, "player_2": 0.0}
    play(env, [None, None])
    assert env.agents == []


def test_truncation_sets_truncations_not_terminations():
    env = toy_game.env(max_turns=2)
    env.reset(seed=3)
    play(env, [TAKE, TAKE])
    assert env.unwrapped.game_state.is_truncated()
    assert env.unwrapped.game_state.current_player() == TERMINAL
    assert env.truncations == dict.fromkeys(env.possible_agents, True)
    assert env.terminations == dict.fromkeys(env.possible_agents, False)
    for _agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        assert (rew, term, trunc) == (0.0, False, True)
        assert not obs["action_mask"].any()
        env.step(None)
    assert env.agents == []


def test_truncation_after_elimination_keeps_the_out_players_termination():
    env = make_raw(faces=[1], target=1, max_turns=2, num_players=4)
    env.step(DOUBLE)  # player_0: 2 > 1, out
    assert env.terminations["player_0"] and not env.truncations["player_0"]
    env.step(None)
    env.step(PASS)  # turn 2 == max_turns, with three players still in
    assert env.game_state.is_truncated()
    assert env.game_state.returns() == [-1.0, 0.0, 0.0, 0.0]
    assert env.truncations == dict.fromkeys(["player_1", "player_2", "player_3"], True)
    assert env.terminations == dict.fromkeys(["player_1", "player_2", "player_3"], False)
    assert env.rewards == dict.fromkeys(["player_1", "player_2", "player_3"], 0.0)


def test_player_eliminated_by_the_last_move_before_truncation_is_terminated():
    """Going out is final even when the same move hits ``max_turns``: terminated, not truncated."""
    env = make_raw(faces=[2], target=3, max_turns=4)
    play(env, [TAKE, TAKE, PASS, TAKE])  # player_0 goes out on turn 4 == max_turns
    state = env.game_state
    assert state.is_truncated() and state.is_out(0)
    assert state.returns() == [-1.0, 0.0, 0.0]
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert env.terminations == {"player_0": True, "player_1": False, "player_2": False}
    assert env.truncations == {"player_0": False, "player_1": True, "player_2": True}


def test_dead_step_with_an_action_raises():
    env = make_raw(faces=[2], target=1)
    env.step(TAKE)
    with pytest.raises(ValueError, match="None"):
        env.step(PASS)


# -- illegal actions ------------------------------------------------------------------------------


def _state_where_double_is_illegal(env) -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs = env.observe(env.agent_selection)
        if not obs["action_mask"][DOUBLE]:
            return
        env.step(PASS if obs["action_mask"].sum() == 3 and rng.random() < 0.5 else TAKE)
    raise AssertionError("no position without a legal DOUBLE found")


def test_raw_env_raises_on_illegal_action_with_a_clear_message():
    env = toy_game.raw_env(target=100, max_turns=500)
    env.reset(seed=1)
    _state_where_double_is_illegal(env)
    agent = env.agent_selection
    before = json.dumps(env.state_dict(), sort_keys=True)
    message = rf"toy_v0: action 2 is not legal for {agent}; legal actions are \[0, 1\]"
    with pytest.raises(IllegalActionError, match=message):
        env.step(DOUBLE)
    for bad in (7, -1, None):
        with pytest.raises(IllegalActionError, match=f"not legal for {agent}"):
            env.step(bad)
    assert json.dumps(env.state_dict(), sort_keys=True) == before
    env.step(PASS)  # the env is still usable


def test_raw_env_rejects_non_integer_actions():
    env = toy_game.raw_env()
    env.reset(seed=1)
    agent = env.agent_selection
    before = json.dumps(env.state_dict(), sort_keys=True)
    for bad in (1.5, "1", "x", [1]):
        with pytest.raises(IllegalActionError, match=f"not legal for {agent}"):
            env.step(bad)
    assert json.dumps(env.state_dict(), sort_keys=True) == before
    env.step(np.int64(TAKE))  # numpy integers are actions too
    assert env.agent_selection != agent


def test_wrapped_env_ends_the_game_on_illegal_action():
    env = toy_game.env(target=100, max_turns=500)
    env.reset(seed=1)
    _state_where_double_is_illegal(env.unwrapped)
    offender = env.agent_selection
    env.last()
    env.step(DOUBLE)
    assert all(env.terminations.values())
    seen = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        assert term
        assert not obs["action_mask"].any()
        seen[agent] = rew
        env.step(None)
    expected = {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert seen == expected
    assert env.agents == []


@pytest.mark.parametrize("seed", range(6))
def test_wrapped_env_steps_exactly_as_pettingzoos_own_wrappers(seed):
    """Our wrapper stack (direct paths for legal steps) against PettingZoo's classes over the same game:
    the same observations, rewards and ends, with illegal actions, unobserved steps and dead steps."""
    from pettingzoo.utils import wrappers

    ours = toy_game.env(num_players=3, target=6, max_turns=60)
    theirs = wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(toy_game.raw_env(num_players=3, target=6, max_turns=60), -1)
        )
    )
    rng = np.random.default_rng(seed)
    for env in (ours, theirs):
        env.reset(seed=seed)
    for _ in range(400):
        if not theirs.agents:
            break
        assert ours.agents == theirs.agents and ours.agent_selection == theirs.agent_selection
        if rng.random() < 0.8:  # sometimes step without looking (TerminateIllegalWrapper observes then)
            a, b = ours.last(), theirs.last()
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[1:] == b[1:]
        agent = theirs.agent_selection
        if theirs.terminations[agent] or theirs.truncations[agent]:
            action = None
        else:
            mask = theirs.unwrapped.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            action = DOUBLE if not mask[DOUBLE] and rng.random() < 0.15 else int(rng.choice(legal))
        for env in (ours, theirs):
            env.step(action)
        assert ours.rewards == theirs.rewards and ours.terminations == theirs.terminations
        assert ours.truncations == theirs.truncations
        assert ours._cumulative_rewards == theirs._cumulative_rewards
    assert not ours.agents and not theirs.agents
    for env in (ours, theirs):  # out of the action space: PettingZoo's assertion
        env.reset(seed=seed)
        with pytest.raises(AssertionError, match="action space"):
            env.step(7)


# -- observations ---------------------------------------------------------------------------------


def test_observe_has_no_side_effects():
    env = toy_game.raw_env()
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    checked = 0
    for _agent in env.agent_iter(200):
        before = json.dumps(env.state_dict(), sort_keys=True)
        selection = env.agent_selection
        first = {a: env.observe(a) for a in env.possible_agents}
        second = {a: env.observe(a) for a in env.possible_agents}
        for a in env.possible_agents:
            for key in ("observation", "action_mask"):
                np.testing.assert_array_equal(first[a][key], second[a][key])
            assert first[a]["observation"].dtype == np.float32
            assert env.observation_space(a).contains(first[a])
        assert json.dumps(env.state_dict(), sort_keys=True) == before
        assert env.agent_selection == selection
        checked += 1
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(rng, obs))
    assert checked > 5


def test_hidden_secrets_are_not_observed_and_determinize_resamples_them():
    game = ToyGame()
    state = game.new_initial_state()
    for outcome in (0, 1, 2, 1):  # secrets 0, 1, 2; roll 1 (player_1's secret)
        state.apply_action(outcome)
    assert state.current_player() == 0
    other = state.clone()
    other.secrets[1] = 0
    other.secrets[2] = 0
    np.testing.assert_array_equal(game.observe(state, 0), game.observe(other, 0))
    assert not np.array_equal(game.observe(state, 1), game.observe(other, 1))
    # player_0 passes, player_1 doubles (revealing the secret)
    state.apply_action(PASS)
    state.apply_action(1)
    state.apply_action(DOUBLE)
    assert state.revealed == [False, True, False]
    before = state.to_dict()
    seen_secret_2 = set()
    for seed in range(30):
        det = state.determinize(0, np.random.default_rng(seed))
        assert state.to_dict() == before
        assert det.secrets[0] == state.secrets[0]
        assert det.secrets[1] == state.secrets[1]  # revealed: known to everyone
        seen_secret_2.add(det.secrets[2])
        np.testing.assert_array_equal(game.observe(det, 0), game.observe(state, 0))
        public = {k: v for k, v in det.to_dict().items() if k != "secrets"}
        assert public == {k: v for k, v in before.items() if k != "secrets"}
    assert seen_secret_2 == {0, 1, 2}


# -- seeding and reproducibility ------------------------------------------------------------------


def test_reset_with_seed_reproduces_a_trajectory():
    a, b = toy_game.env(), toy_game.env()
    a.reset(seed=7)
    b.reset(seed=7)
    ta, tb = run(a), run(b)
    assert ta == tb
    b.reset(seed=8)
    assert run(b) != ta
    a.reset(seed=7)
    assert run(a) == ta


def test_unseeded_reset_continues_the_stream():
    def three_games(env):
        env.reset(seed=3)
        games = [run(env)]
        for _ in range(2):
            env.reset()
            games.append(run(env))
        return games

    first = three_games(toy_game.env())
    assert first[0] != first[1] != first[2] != first[0]
    assert three_games(toy_game.env()) == first


def test_global_rng_draws_do_not_change_trajectories():
    a, b = toy_game.env(), toy_game.env()
    a.reset(seed=11)
    random.seed(0)
    np.random.seed(0)
    b.reset(seed=11)
    random.random()
    np.random.random()
    assert run(a) == run(b, perturb=True)


def test_game_state_before_reset_raises():
    with pytest.raises(RuntimeError, match="reset"):
        toy_game.raw_env().game_state  # noqa: B018


# -- snapshots ------------------------------------------------------------------------------------


def _advance(env, n: int, rng: np.random.Generator) -> None:
    for _ in range(n):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(rng, obs))


def _compare_continuations(a, b, policy_seed: int) -> int:
    """Step both envs with the same actions (chosen from ``a``); everything observable must match."""
    rng = np.random.default_rng(policy_seed)
    steps = 0
    while a.agents:
        assert b.agents == a.agents
        assert b.agent_selection == a.agent_selection
        la, lb = a.last(), b.last()
        for key in ("observation", "action_mask"):
            np.testing.assert_array_equal(la[0][key], lb[0][key])
        assert la[1:] == lb[1:]
        assert a.game_state.to_dict() == b.game_state.to_dict()  # includes every chance outcome
        action = None if la[2] or la[3] else pick(rng, la[0])
        a.step(action)
        b.step(action)
        assert a.rewards == b.rewards
        steps += 1
    assert b.agents == []
    return steps


@pytest.mark.parametrize("k", [0, 1, 4, 9])
def test_state_dict_round_trip(k):
    a = toy_game.raw_env()
    a.reset(seed=21)
    _advance(a, k, np.random.default_rng(0))
    snap = json.loads(json.dumps(a.state_dict()))
    b = toy_game.raw_env()
    b.reset(seed=999)
    b.load_state_dict(snap)
    assert json.loads(json.dumps(b.state_dict())) == snap
    assert _compare_continuations(a, b, policy_seed=k) > 0


def test_state_dict_rewind_in_the_same_env():
    env = toy_game.raw_env()
    env.reset(seed=4)
    _advance(env, 2, np.random.default_rng(1))
    snap = json.loads(json.dumps(env.state_dict()))
    first = run(env, policy_seed=2)
    env.load_state_dict(snap)
    assert run(env, policy_seed=2) == first


def test_state_dict_round_trip_with_a_pending_dead_step():
    """A snapshot taken while an eliminated agent waits for its dead step resumes correctly."""
    a = make_raw(faces=[2], target=3)
    play(a, [TAKE, TAKE, PASS, TAKE])  # player_0 out; its dead step is next, then player_1 moves
    assert a.agent_selection == "player_0" and a.terminations["player_0"]
    snap = json.loads(json.dumps(a.state_dict()))
    b = make_raw(faces=[2], target=3)
    b.load_state_dict(snap)
    a.step(None)
    b.step(None)
    assert a.agent_selection == "player_1"
    assert b.agent_selection == "player_1"
    assert _compare_continuations(a, b, policy_seed=0) > 0


def test_load_state_dict_into_an_env_that_was_never_reset():
    a = toy_game.raw_env()
    a.reset(seed=8)
    _advance(a, 3, np.random.default_rng(3))
    b = toy_game.raw_env()
    b.load_state_dict(json.loads(json.dumps(a.state_dict())))
    assert _compare_continuations(a, b, policy_seed=3) > 0


def test_load_state_dict_rejects_other_options():
    a = make_raw(target=5)
    b = make_raw(target=6)
    with pytest.raises(ValueError, match="options"):
        b.load_state_dict(a.state_dict())
    bad = a.state_dict()
    bad["state"]["game"] = "sorry_v0"
    with pytest.raises(ValueError, match="sorry_v0"):
        a.load_state_dict(bad)


@pytest.mark.parametrize("wrapped", [False, True])
def test_pickled_env_replays_the_same_trajectory(wrapped):
    make = toy_game.env if wrapped else toy_game.raw_env
    env = make(target=9, max_turns=40)
    env.reset(seed=2)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.game.options == env.unwrapped.game.options
    env.reset(seed=13)
    copy.reset(seed=13)
    assert run(env) == run(copy)


# -- options ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"bogus": 1}, "bogus"),
        ({"num_players": "3"}, "num_players"),
        ({"num_players": 3.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"faces": [1, "x"]}, "faces"),
        ({"faces": 3}, "faces"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_bad_options_raise_option_error_naming_the_key(options, key):
    with pytest.raises(OptionError, match=key):
        toy_game.raw_env(**options)
    with pytest.raises(OptionError, match=key):
        toy_game.env(**options)
    with pytest.raises(OptionError, match="toy_v0"):
        ToyGame(**options)


def test_options_are_converted_and_spaces_follow_them():
    env = toy_game.raw_env(num_players=4, faces=[1, 5])
    assert env.game.options.faces == (1, 5)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env.action_space("player_3").n == 3
    assert env.observation_space("player_0")["observation"].shape == (4 * 4 + 4 + 2,)


# -- the State protocol defaults ------------------------------------------------------------------


def test_state_protocol_defaults_and_play_chance():
    state = ToyState(ToyGame().options)
    assert state.is_chance_node() and not state.is_terminal()
    assert state.legal_actions() == []
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == [0, 1, 2]
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    play_chance(state, np.random.default_rng(0))
    assert state.current_player() == 0 and state.chance_outcomes() == []
    assert len(state.secrets) == 3 and state.roll >= 0
    with pytest.raises(IllegalActionError):
        state.apply_action(5)
    clone = state.clone()
    clone.apply_action(TAKE)
    assert clone != state and state.turn == 0
    assert ToyState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_game_action_mask_is_zero_unless_the_player_is_to_move():
    game = ToyGame(faces=[1])
    state = game.new_initial_state()
    assert not any(game.action_mask(state, p).any() for p in range(3))  # chance node
    play_chance(state, np.random.default_rng(0))
    assert game.action_mask(state, 0).tolist() == [1, 1, 1]
    assert game.action_mask(state, 0).dtype == np.int8
    assert not game.action_mask(state, 1).any() and not game.action_mask(state, 2).any()


def test_default_sample_chance_matches_the_probabilities():
    state = ToyState(ToyGame(faces=[1, 2, 3, 4]).options)
    rng = np.random.default_rng(123)
    counts = Counter(state.sample_chance(rng) for _ in range(8000))
    assert set(counts) == {0, 1, 2, 3}
    for outcome in range(4):
        assert abs(counts[outcome] / 8000 - 0.25) < 0.02
    terminal = make_raw(faces=[2], target=1, num_players=2)
    terminal.step(TAKE)  # player_0 out, player_1 the last one left
    state = terminal.game_state
    assert state.current_player() == TERMINAL and state.is_terminal() and not state.is_chance_node()
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    assert state.returns() == [-1.0, 1.0]
    with pytest.raises(IllegalActionError):
        state.apply_action(PASS)
