"""Helpers shared by every game's env tests: drivers, recorders, state comparisons and the checks the
env contract is made of.

Imported by ``tests/env_contract.py`` (the contract every registered env keeps, run by
``tests/test_env_contract.py``) and by the per-game tests (``tests/`` is on pytest's ``pythonpath``).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from boardenvs.core.state import IllegalActionError, State


def masked_random(seed: int) -> Callable[[np.ndarray, int], int]:
    """A chooser ``(mask, step) -> action`` picking uniformly among legal actions with its own generator."""
    rng = np.random.default_rng(seed)

    def choose(mask: np.ndarray, step: int) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[int(rng.integers(len(legal)))])

    return choose


def fixed_rule(mask: np.ndarray, step: int) -> int:
    """A chooser that uses no generator at all: legal action number ``7 step + 3`` (cyclically)."""
    legal = np.flatnonzero(mask)
    return int(legal[(7 * step + 3) % len(legal)])


def play(env, choose, max_steps: int = 100_000, between=None, snapshots=None, start_step: int = 0) -> list:
    """Step ``env`` (already reset) through dead steps to the end; record everything observable.

    Each record holds the agent, its observation and mask, reward, flags, the action, every agent's
    observation and mask, the reward and termination dicts and the rules state. ``between(step)`` runs
    after every step; ``snapshots``, if given, collects the JSON of ``state_dict()`` before every step.
    """
    raw = env.unwrapped
    record = []
    step = start_step
    while env.agents and step - start_step < max_steps:
        if snapshots is not None:
            snapshots.append(json.dumps(raw.state_dict()))
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        all_obs = tuple(
            (env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
            for a in env.possible_agents
        )
        action = None if (term or trunc) else choose(obs["action_mask"], step)
        record.append(
            (
                agent,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                float(reward),
                bool(term),
                bool(trunc),
                action,
                all_obs,
                dict(raw.rewards),
                dict(raw._cumulative_rewards),
                dict(raw.terminations),
                dict(raw.truncations),
                json.dumps(raw.game_state.to_dict(), sort_keys=True),
            )
        )
        env.step(action)
        if between is not None:
            between(step)
        step += 1
    return record


def random_game(state: State, seed: int) -> Iterator[tuple[State, int | None]]:
    """Every node of a seeded random game from ``state`` (played in place) with the action taken there."""
    return random_game_with(state, np.random.default_rng(seed))


def random_game_with(state: State, rng: np.random.Generator) -> Iterator[tuple[State, int | None]]:
    """As :func:`random_game`, drawing from ``rng``."""
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        yield state, action
        state.apply_action(action)
    yield state, None


def decisions(
    state: State, rng: np.random.Generator, choose: Callable[[State], int] | None = None
) -> Iterator[tuple[State, int]]:
    """Every decision of a game from ``state`` (played in place, chance drawn with ``rng``) with the
    action about to be taken there: ``choose(state)`` (a policy's ``act``), or uniform with ``rng``."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        if choose is None:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = choose(state)
        yield state, action
        state.apply_action(action)


def play_out(state: State, rng: np.random.Generator) -> State:
    """Play ``state`` to the end in place, chance and choices drawn uniformly with ``rng``."""
    for _ in random_game_with(state, rng):
        pass
    return state


def json_copy(state: State) -> State:
    """``state`` rebuilt from its dict after a trip through JSON text."""
    return type(state).from_dict(json.loads(json.dumps(state.to_dict())))


def assert_same_state(a: State, b: State) -> None:
    """Two states are the same position: dicts, equality, turn, legal moves, chance, returns, flags."""
    assert a.to_dict() == b.to_dict()
    assert a == b
    assert a.current_player() == b.current_player()
    assert list(a.legal_actions()) == list(b.legal_actions())
    assert a.chance_outcomes() == b.chance_outcomes()
    assert a.returns() == b.returns()
    assert a.is_terminal() == b.is_terminal()
    assert a.is_truncated() == b.is_truncated()
    players = range(len(a.returns()))
    assert [a.is_out(p) for p in players] == [b.is_out(p) for p in players]


# -- the checks the env contract runs (tests/env_contract.py) ----------------------------------------
def check_copies_follow(nodes, spawn_every: int, lifetime: int, check_every: int = 1) -> tuple[State, int]:
    """Clone and JSON round trips over a game's ``(state, action)`` nodes, as a rules lawyer would check.

    At every ``check_every``-th node a clone and a JSON copy equal the state; every ``spawn_every`` nodes
    a clone and a JSON copy are taken and then fed the same actions and chance outcomes for ``lifetime``
    nodes, staying equal to the original all along. Returns the last state and the number of actions.
    """
    followers: list[tuple[State, int]] = []
    count = 0
    state = None
    for step, (state, action) in enumerate(nodes):
        if step % check_every == 0:
            assert_same_state(state.clone(), state)
            assert_same_state(json_copy(state), state)
        for follower, _ in followers:
            assert_same_state(follower, state)
        if step % spawn_every == 0:
            followers += [(state.clone(), step), (json_copy(state), step)]
        if action is None:
            break
        for follower, _ in followers:
            follower.apply_action(action)
        followers = [(f, born) for f, born in followers if step - born < lifetime]
        count += 1
    return state, count


def check_snapshots_replay(make_raw, seed: int, extra_points=(), choose=fixed_rule) -> list:  # noqa: B008
    """Whole-env ``state_dict()`` round trips: snapshots taken along a game (JSON text, generator
    included) restore into a fresh env and into one in the middle of another game, and the rest of
    the game replays identically under ``choose`` (which must use no generator). Returns the record
    of the full game."""
    env = make_raw()
    env.reset(seed=seed)
    snapshots: list[str] = []
    full = play(env, choose, snapshots=snapshots)
    total = len(full)
    points = {0, 1, 17, total // 3, total // 2, total - 2, total - 1}
    points |= {p if p >= 0 else total + p for p in extra_points}  # negative: counted from the end
    for i in sorted(p for p in points if 0 <= p < total):
        fresh = make_raw()
        fresh.load_state_dict(json.loads(snapshots[i]))
        assert json.dumps(fresh.state_dict()) == snapshots[i]
        assert play(fresh, choose, start_step=i) == full[i:], f"restored at step {i}"
        assert fresh.agents == []
    middle = min(17, total // 2)
    used = make_raw()
    used.reset(seed=seed + 1234)
    play(used, masked_random(0), max_steps=9)
    used.load_state_dict(json.loads(snapshots[middle]))
    assert play(used, choose, start_step=middle) == full[middle:]
    return full


def check_observe_is_pure(env, choose, max_steps: int = 10**9, permute_every: int = 25) -> int:
    """``observe()`` in any order, any number of times, changes neither the game, the generator nor the
    bookkeeping, and returns equal arrays; ``env`` (raw, reset) is played on with ``choose``. Returns
    the steps played."""
    step = 0
    while env.agents and step < max_steps:
        state = env.game_state
        before_state = json.dumps(state.to_dict(), sort_keys=True)
        before_rng = json.dumps(env.np_random.bit_generator.state, sort_keys=True)
        before_books = (env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards))
        reference = {a: env.observe(a) for a in env.possible_agents}
        agents = env.possible_agents
        if step % permute_every:
            orders = [agents, agents[::-1]]
        elif len(agents) <= 5:  # every order now and then
            orders = list(itertools.permutations(agents))
        else:  # 7! orders would be slow: every rotation, both ways
            orders = [agents[k:] + agents[:k] for k in range(len(agents))]
            orders += [order[::-1] for order in orders]
        for order in orders:
            for agent in order:
                obs = env.observe(agent)
                assert np.array_equal(obs["observation"], reference[agent]["observation"])
                assert np.array_equal(obs["action_mask"], reference[agent]["action_mask"])
        assert json.dumps(state.to_dict(), sort_keys=True) == before_state
        assert json.dumps(env.np_random.bit_generator.state, sort_keys=True) == before_rng
        assert (env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards)) == before_books
        _, _, term, trunc, _ = env.last()
        env.step(None if (term or trunc) else choose(reference[env.agent_selection]["action_mask"], step))
        step += 1
    return step


def perturb_global_rngs(step: int) -> None:
    """Burn draws from ``random`` and ``np.random``, and reseed them now and then."""
    random.random()
    random.randint(0, 10**6)
    np.random.rand(3)
    np.random.randint(0, 100, size=5)
    if step % 5 == 0:
        random.seed(step)
        np.random.seed(step)


def check_global_rngs_do_not_matter(make_env, seed: int = 17) -> list:
    """Two games in a row (the second from the env's own continuing stream) play identically whether or
    not ``random`` and ``np.random`` are disturbed between steps. Returns the record."""
    random.seed(1)
    np.random.seed(1)
    calm = make_env()
    calm.reset(seed=seed)
    calm_record = play(calm, masked_random(2))
    calm.reset()
    calm_record += play(calm, masked_random(3))
    random.seed(12345)
    np.random.seed(54321)
    shaken = make_env()
    shaken.reset(seed=seed)
    shaken_record = play(shaken, masked_random(2), between=perturb_global_rngs)
    perturb_global_rngs(0)
    shaken.reset()
    shaken_record += play(shaken, masked_random(3), between=perturb_global_rngs)
    assert calm_record == shaken_record
    return calm_record


def check_illegal_action_loses(env, warmup: int = 0) -> None:
    """Through ``env()`` (PettingZoo's TerminateIllegal): after ``warmup`` fixed-rule moves, an illegal
    action ends the game at once, -1 for the offender and 0 for everyone else, every agent done."""
    env.reset(seed=2)
    for step in range(warmup):
        env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        totals[agent] += reward
        env.step(None)
    assert totals == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


def check_illegal_action_raises(raw) -> None:
    """On ``raw_env()``: an illegal action raises IllegalActionError naming it and changes nothing."""
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[-1])
    before = raw.game_state.to_dict()
    with pytest.raises(IllegalActionError, match=str(illegal)):
        raw.step(illegal)
    assert raw.game_state.to_dict() == before


def load_position(env, state: State) -> None:
    """Put ``env`` (raw, reset) at the rules position ``state`` as play would have reached it: the
    players out of the game have taken their dead steps, the agent of the player to move is selected,
    no reward is waiting (an env snapshot must fit its rules state)."""
    agents = [agent for p, agent in enumerate(env.possible_agents) if not state.is_out(p)]
    snap = env.state_dict()
    snap.update(
        state=state.to_dict(),
        agents=agents,
        agent_selection=env.possible_agents[state.current_player()],
        rewards=dict.fromkeys(agents, 0.0),
        cumulative_rewards=dict.fromkeys(agents, 0.0),
        terminations=dict.fromkeys(agents, False),
        truncations=dict.fromkeys(agents, False),
        skip_agent_selection=None,
        stopped_by=None,
    )
    env.load_state_dict(snap)
