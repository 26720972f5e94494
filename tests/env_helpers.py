"""Helpers shared by every game's env tests: drivers, recorders and state comparisons.

Imported by the per-game ``test_env.py`` files (``tests/`` is on pytest's ``pythonpath``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import numpy as np

from boardenvs.core.state import State


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
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        yield state, action
        state.apply_action(action)
    yield state, None


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
