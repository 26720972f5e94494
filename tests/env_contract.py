"""The contract every registered env keeps, as plain functions of an env name and its options.

``tests/test_env_contract.py`` runs every check of :data:`CHECKS` on every configuration of
:func:`contract_configs` for every env of ``boardenvs.env_names()``; a newly registered game gets the
suite with no edit. A test that registers a game of its own can run the whole contract with
:func:`run_contract` (or pick checks from :data:`CHECKS`): each check is
``check(name: str, options: dict) -> None`` and raises ``AssertionError`` on a breach.

The configurations come from the env itself: the default options and every other player count that
``boardenvs.make(name, num_players=n)`` accepts (:func:`boardenvs.core.playthrough.player_counts`),
plus the few option sets of :data:`EXTRA_OPTIONS` worth covering for the built-in games. Checks that
play whole games many times over add :data:`SHORT_GAME`'s options (a round cap) for the games whose
default games are long.

What the per-game ``tests/<game>/test_env.py`` files keep is what only that game has: its observation
layout, perspective (seat rotation) and hidden-information checks, its option errors, eliminations,
rendered text and the mutation of its state's own containers.
"""

from __future__ import annotations

import dataclasses
import pickle
import warnings
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import pytest
from env_helpers import (
    assert_same_state,
    check_copies_follow,
    check_global_rngs_do_not_matter,
    check_illegal_action_loses,
    check_illegal_action_raises,
    check_observe_is_pure,
    check_snapshots_replay,
    fixed_rule,
    json_copy,
    masked_random,
    play,
    random_game,
)
from pettingzoo.test import api_test, render_test, seed_test

import boardenvs
import boardenvs.registry
from boardenvs.core import render
from boardenvs.core.playthrough import player_counts
from boardenvs.core.state import TERMINAL, IllegalActionError

#: Option sets worth covering beyond the player counts (rules variants, extra observation features).
EXTRA_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "sorry_v0": [
        {"slide_rule": "classic"},
        {"num_players": 2, "slide_rule": "classic"},
        {"num_players": 3, "slide_rule": "classic"},
        {"num_players": 3, "first_player": "random"},
    ],
    "gangsi_v0": [
        {"num_hunters": 3, "hunter_turns": True},
        {"num_hunters": 3, "action_features": True},
    ],
    "lost_city_v0": [
        {"num_players": 3, "action_features": True},
        {"num_players": 3, "characters": ["Jamie", "Rob", "Josh"], "first_player": "seat0"},
    ],
    "neighborhood_v0": [
        {"num_players": 4, "action_features": True},
        {"num_players": 5, "spinner": 4, "triple_arrival_killer": "higher"},
    ],
}
#: Options that keep a game short, for the checks that play whole games many times (an unlisted game
#: plays its default length).
SHORT_GAME: dict[str, dict[str, Any]] = {
    "gangsi_v0": {"max_rounds": 20},
    "lost_city_v0": {"max_rounds": 30},
}
#: ``num_cycles`` of PettingZoo's api_test and seed_test.
NUM_CYCLES = 300


# -- configurations -----------------------------------------------------------------------------------
def contract_configs(name: str) -> list[dict[str, Any]]:
    """The option sets env ``name`` is checked with: defaults, other player counts, :data:`EXTRA_OPTIONS`."""
    default = len(boardenvs.make(name, raw=True).possible_agents)
    configs: list[dict[str, Any]] = [{}]
    configs += [{"num_players": n} for n in player_counts(name) if n != default]
    return configs + EXTRA_OPTIONS.get(name, [])


def config_id(options: dict[str, Any]) -> str:
    """A short test id for an option set."""
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def short(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with :data:`SHORT_GAME`'s round cap for ``name`` (``options`` win)."""
    return {**SHORT_GAME.get(name, {}), **options}


def other_options(name: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """Options of ``name`` that make another game than ``options`` (one bool flipped or one integer
    moved by one, whichever the env accepts first), or ``None`` when there are none."""
    base = boardenvs.make(name, raw=True, **options).game.options
    for field in dataclasses.fields(base):
        value = getattr(base, field.name)
        if isinstance(value, bool):
            candidates: list[Any] = [not value]
        elif isinstance(value, int):
            candidates = [value + 1, value - 1]
        else:
            continue
        for candidate in candidates:
            changed = {**options, field.name: candidate}
            try:
                env = boardenvs.make(name, raw=True, **changed)
            except ValueError:
                continue
            if env.game.options != base:
                return changed
    return None


def has_chance(name: str, options: dict[str, Any]) -> bool:
    """Whether a random game of ``name`` meets a chance node (then seeds make different games)."""
    state = boardenvs.make_game(name, **short(name, options)).new_initial_state()
    return any(s.is_chance_node() for s, _ in random_game(state, 0))


# -- the checks -----------------------------------------------------------------------------------------
def check_pettingzoo_api(name: str, options: dict[str, Any]) -> None:
    """PettingZoo's ``api_test`` passes on ``env()``; action and observation spaces agree."""
    env = boardenvs.make(name, **options)
    api_test(env, num_cycles=NUM_CYCLES)
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        n = env.action_space(agent).n
        assert space["action_mask"].shape == (n,) and space["action_mask"].dtype == np.int8
        box = space["observation"]
        assert box.dtype == np.float32 and np.all(box.low == 0.0) and np.all(box.high == 1.0)


def check_seeding(name: str, options: dict[str, Any]) -> None:
    """PettingZoo's ``seed_test`` passes; a reset with the same seed repeats the whole game; different
    seeds make different games (if the game has chance)."""
    seed_test(lambda: boardenvs.make(name, **options), num_cycles=NUM_CYCLES)
    env = boardenvs.make(name, **options)
    env.reset(seed=11)
    first = play(env, masked_random(5))
    env.reset(seed=11)
    assert play(env, masked_random(5)) == first
    assert first[-1][4] or first[-1][5]  # played to the end
    if has_chance(name, options):
        env = boardenvs.make(name, **short(name, options))
        games = set()
        for seed in range(4):
            env.reset(seed=seed)
            games.add(tuple(r[12] for r in play(env, fixed_rule)))
        assert len(games) > 1


def check_pickling(name: str, options: dict[str, Any]) -> None:
    """A pickled env (mid-game) has the same options and plays the same games; states pickle."""
    options = short(name, options)
    env = boardenvs.make(name, **options)
    env.reset(seed=3)
    play(env, fixed_rule, max_steps=10)  # pickle mid-game: the copy is made from the options
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.game.options == env.unwrapped.game.options
    env.reset(seed=21)
    copy.reset(seed=21)
    original = play(env, masked_random(8))
    assert play(copy, masked_random(8)) == original
    assert original[-1][4] or original[-1][5]
    state = env.unwrapped.game_state
    assert pickle.loads(pickle.dumps(state)) == state


def check_global_rngs(name: str, options: dict[str, Any]) -> None:
    """Draws from and reseeding of ``random`` and ``np.random`` between steps change no game."""
    check_global_rngs_do_not_matter(lambda: boardenvs.make(name, **short(name, options)))


def check_dead_steps(name: str, options: dict[str, Any]) -> None:
    """Through ``env()``: an agent that is done takes exactly one dead step (``step(None)``), which
    removes it; its mask is all zeros; every agent's rewards add up to the rules' returns; when the
    game ends every agent still in it is done and takes its dead step next; the raw env refuses a
    step after the end."""
    for seed in range(2):
        env = boardenvs.make(name, **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        dead_steps = dict.fromkeys(env.possible_agents, 0)
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                assert not obs["action_mask"].any()
                dead_steps[agent] += 1
                env.step(None)
                assert agent not in env.agents
                continue
            if env.unwrapped.game_state.is_terminal():
                raise AssertionError(f"{agent} is selected to act in a finished game")
            before = len(env.agents)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if env.unwrapped.game_state.is_terminal():
                assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
                assert len(env.agents) == before  # they leave one dead step at a time
        state = env.unwrapped.game_state
        assert state.is_terminal()
        assert dead_steps == dict.fromkeys(env.possible_agents, 1)
        assert totals == dict(zip(env.possible_agents, map(float, state.returns()), strict=True))
    raw = boardenvs.make(name, raw=True, **options)
    raw.reset(seed=0)
    while raw.agents:
        _, _, term, trunc, _ = raw.last()
        raw.step(None if (term or trunc) else fixed_rule(raw.observe(raw.agent_selection)["action_mask"], 0))
    with pytest.raises(RuntimeError, match="game is over"):
        raw.step(0)


def check_render_modes(name: str, options: dict[str, Any]) -> None:
    """Every mode of ``metadata["render_modes"]`` works: PettingZoo's ``render_test`` (``"human"``
    without a display prints the text), ``"ansi"`` is the state's text, ``"rgb_array"`` its picture;
    no mode warns and returns ``None``."""
    modes = boardenvs.make(name, raw=True, **options).metadata["render_modes"]
    with mock.patch.object(render, "display_available", return_value=False):
        render_test(lambda render_mode=None: boardenvs.make(name, render_mode=render_mode, **options))
    for mode in modes:
        env = boardenvs.make(name, render_mode=mode, **options)
        env.reset(seed=1)
        for step in range(3):
            env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))
        state = env.unwrapped.game_state
        if mode == "ansi":
            assert env.render() == state.render_text()
        elif mode == "rgb_array":
            frame = env.render()
            assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
            assert np.array_equal(frame, env.unwrapped.game.render_image(state))
        env.close()
    env = boardenvs.make(name, **options)
    env.reset(seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env.render() is None
    assert any("render_mode" in str(w.message) for w in caught)


def check_state_dict_round_trip(name: str, options: dict[str, Any]) -> None:
    """Whole-env snapshots (JSON, generator included) taken along a game, around the last move and
    the dead steps after it too, restore into fresh and used envs and replay the rest identically;
    a snapshot of other options is refused."""
    options = short(name, options)
    n = len(boardenvs.make(name, raw=True, **options).possible_agents)
    full = check_snapshots_replay(
        lambda: boardenvs.make(name, raw=True, **options), seed=n, extra_points=(-n - 1, -n)
    )
    assert full[-1][4] or full[-1][5]
    other = other_options(name, options)
    if other is not None:
        env = boardenvs.make(name, raw=True, **options)
        env.reset(seed=0)
        elsewhere = boardenvs.make(name, raw=True, **other)
        elsewhere.reset(seed=0)
        with pytest.raises(ValueError, match="options"):
            elsewhere.load_state_dict(env.state_dict())


def check_state_copies(name: str, options: dict[str, Any]) -> None:
    """Clones and JSON round trips of the rules state equal it at every node of a random game and,
    fed the same actions and chance outcomes, play on identically; a finished game round-trips too."""
    state = boardenvs.make_game(name, **short(name, options)).new_initial_state()
    last, nodes = check_copies_follow(random_game(state, 0), spawn_every=13, lifetime=60)
    assert last.is_terminal() and nodes > 0
    assert_same_state(json_copy(last), last)
    assert_same_state(last.clone(), last)
    assert json_copy(last).current_player() == TERMINAL


def check_observe_purity(name: str, options: dict[str, Any]) -> None:
    """``observe()`` in any order, any number of times, changes nothing (state, generator, books)."""
    env = boardenvs.make(name, raw=True, **short(name, options))
    env.reset(seed=5)
    assert check_observe_is_pure(env, masked_random(6), max_steps=600, permute_every=50) > 0


def check_masks_and_observations(name: str, options: dict[str, Any]) -> None:
    """On ``raw_env()`` and ``env()``, every live agent's observation is float32 in [0, 1] of its
    space's shape and in its space; masks are int8 of the action count; the mask of the player to
    move is its legal actions (never empty), everyone else's is all zeros (also while a done agent
    takes its dead step, when the mask is already on the next mover)."""
    for wrapped in (False, True):
        env = boardenvs.make(name, raw=not wrapped, **short(name, options))
        env.reset(seed=10 + wrapped)
        choose = masked_random(1)
        step = 0
        while env.agents:
            state = env.unwrapped.game_state
            acting = env.agent_selection
            _, _, term, trunc, _ = env.last()
            to_move = None if state.is_terminal() else env.possible_agents[state.current_player()]
            assert term or trunc or acting == to_move
            for agent in env.agents:
                obs = env.observe(agent)
                space = env.observation_space(agent)
                o, mask = obs["observation"], obs["action_mask"]
                assert o.dtype == np.float32 and o.shape == space["observation"].shape
                assert np.all(o >= 0.0) and np.all(o <= 1.0)
                assert mask.dtype == np.int8 and mask.shape == (env.action_space(agent).n,)
                assert set(np.unique(mask)) <= {0, 1}
                assert space.contains(obs)
                if agent == to_move:
                    assert list(np.flatnonzero(mask)) == list(state.legal_actions())
                    assert mask.any()
                else:
                    assert not mask.any()
            env.step(None if (term or trunc) else choose(env.observe(acting)["action_mask"], step))
            step += 1
        assert step > 0


def check_illegal_actions(name: str, options: dict[str, Any]) -> None:
    """Through ``env()`` an illegal action ends the game, -1 for the offender and 0 for the others
    (at the first decision and a few moves in); ``raw_env()`` raises ``IllegalActionError`` naming it,
    for a masked-out id and for a non-integer, and changes nothing."""
    for warmup in (0, 3):
        check_illegal_action_loses(boardenvs.make(name, **options), warmup=warmup)
    raw = boardenvs.make(name, raw=True, **options)
    check_illegal_action_raises(raw)
    before = raw.game_state.to_dict()
    with pytest.raises(IllegalActionError):
        raw.step(1.5)
    assert raw.game_state.to_dict() == before


def check_construction(name: str, options: dict[str, Any]) -> None:
    """``make(name)`` is the env module's ``env()`` (same wrappers, same games) around its
    ``raw_env``; ``make_game`` builds that env's game with the same options; an unknown option and
    a bad ``render_mode`` raise a ``ValueError`` naming them, from ``make`` and from the module."""
    env = boardenvs.make(name, **options)
    raw = boardenvs.make(name, raw=True, **options)
    module = boardenvs.registry.env_module(name)
    direct = module.env(**options)
    assert type(env) is type(direct) and type(env.unwrapped) is type(raw)
    assert type(module.raw_env(**options)) is type(raw)
    assert env.unwrapped.game.options == direct.unwrapped.game.options == raw.game.options
    game = boardenvs.make_game(name, **options)
    assert type(game) is type(raw.game) and game.options == raw.game.options
    assert game.agents == raw.possible_agents
    env.reset(seed=4)
    direct.reset(seed=4)
    assert play(env, masked_random(0), max_steps=200) == play(direct, masked_random(0), max_steps=200)
    for factory in (module.env, module.raw_env, lambda **kw: boardenvs.make(name, **kw)):
        with pytest.raises(ValueError, match="no_such_optionz"):
            factory(**options, no_such_optionz=1)
        with pytest.raises(ValueError, match="render_mode"):
            factory(**options, render_mode="svg")


#: Every check of the contract, by the name its tests carry.
CHECKS: dict[str, Callable[[str, dict[str, Any]], None]] = {
    "pettingzoo_api": check_pettingzoo_api,
    "seeding": check_seeding,
    "pickling": check_pickling,
    "global_rngs": check_global_rngs,
    "dead_steps": check_dead_steps,
    "render_modes": check_render_modes,
    "state_dict_round_trip": check_state_dict_round_trip,
    "state_copies": check_state_copies,
    "observe_purity": check_observe_purity,
    "masks_and_observations": check_masks_and_observations,
    "illegal_actions": check_illegal_actions,
    "construction": check_construction,
}


def run_contract(
    name: str, configs: list[dict[str, Any]] | None = None, checks: list[str] | None = None
) -> None:
    """Run the checks of :data:`CHECKS` named in ``checks`` (default: all) on env ``name`` with each
    option set of ``configs`` (default: :func:`contract_configs`); a breach raises ``AssertionError``
    naming the env, the options and the check."""
    selected = {key: CHECKS[key] for key in (CHECKS if checks is None else checks)}
    for options in contract_configs(name) if configs is None else configs:
        for check_name, check in selected.items():
            try:
                check(name, options)
            except AssertionError as err:
                raise AssertionError(f"{name} {config_id(options)}: {check_name}: {err}") from err
