"""How fast the envs and the search agent run: random play with action masks, measured three ways.

For each env, on the same loop of uniformly random legal moves:

* ``env()``: through the PettingZoo AEC API with the standard wrapper stack (what users run);
* ``raw_env()``: through the AEC API without wrappers (our adapter alone);
* ``core``: the rules state alone (legal actions, apply, chance), no adapter and no observations.

PettingZoo's ``connect_four_v3`` (wrapped, same loop) is the reference row. :func:`measure_envs` gives
the rows (each the best of several short rounds interleaved with the other rows: on a shared machine
noise only ever slows a round down), :func:`envs_table` the Markdown table with the ratio to connect
four and the adapter's share of a move (``1 - core / raw_env`` time per move). :func:`mcts_speed`
measures the search agent (:mod:`boardenvs_agents.search.mcts`) in simulations per second, and
:func:`env_speed` is the short measurement the league reports carry.

The training table (learner steps per second against each kind of opponent) is
:mod:`boardenvs_agents.learning.speed`'s; ``scripts/benchmark.py`` prints the three tables.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import boardenvs
from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State, play_chance
from boardenvs_agents.search.mcts import MCTSPolicy

#: The reference row's label.
REFERENCE = "connect_four_v3 (PettingZoo)"
#: Search settings measured by :func:`measure_search`: label and ``MCTSPolicy`` options.
MCTS_SETTINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("random rollouts to the end", {}),
    ("depth=10,leaf=eval", {"depth": 10, "leaf": "eval"}),
)


@dataclass
class Speed:
    """One measurement: moves (decisions) and games played in ``seconds``."""

    moves: int
    games: int
    seconds: float

    @property
    def moves_per_second(self) -> float:
        """Decisions per second."""
        return self.moves / self.seconds

    @property
    def games_per_second(self) -> float:
        """Finished games per second."""
        return self.games / self.seconds

    @property
    def us_per_move(self) -> float:
        """Microseconds per decision."""
        return 1e6 * self.seconds / self.moves


@dataclass
class SpeedRow:
    """A row of the env table: the env's name, the layer measured and the best round."""

    env: str
    layer: str
    speed: Speed


def aec_random_play(env: Any, seconds: float, seed: int) -> Speed:
    """Play random legal moves (read from the action mask) through the AEC API for ``seconds``."""
    rng = np.random.default_rng(seed)
    moves = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[int(rng.random() * len(legal))])
                moves += 1
            env.step(action)
        games += 1
    return Speed(moves, games, time.perf_counter() - start)


def core_random_play(game: Game, seconds: float, seed: int) -> Speed:
    """Play random legal moves on the rules state alone for ``seconds``."""
    rng = np.random.default_rng(seed)
    moves = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        play_chance(state, rng)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            moves += 1
            play_chance(state, rng)
        games += 1
    return Speed(moves, games, time.perf_counter() - start)


def connect_four() -> Callable[[], Any]:
    """PettingZoo's connect_four_v3 constructor (needs pygame, from the ``[test]`` extra)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pettingzoo

    if hasattr(pettingzoo, "make"):  # PettingZoo 1.27+: the registry
        return lambda: pettingzoo.make("aec", "classic/connect_four-v3")
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env


def measure_envs(names: Sequence[str], seconds: float, repeats: int = 5, seed: int = 0) -> list[SpeedRow]:
    """The env table: the reference, then ``env()``, ``raw_env()`` and ``core`` of every env in ``names``.

    Each row gets ``seconds`` in all, in ``repeats`` rounds interleaved with the other rows; the best
    round (fewest microseconds per move) is kept.

    Raises:
        ValueError: for an unknown env name or a non-positive ``seconds`` / ``repeats``.
    """
    unknown = sorted(set(names) - set(boardenvs.env_names()))
    if unknown:
        raise ValueError(f"unknown environment {unknown[0]!r}; available: {boardenvs.env_names()}")
    if seconds <= 0 or repeats < 1:
        raise ValueError(f"seconds must be positive and repeats at least 1, got {seconds} and {repeats}")
    make_c4 = connect_four()
    measures: list[tuple[str, str, Callable[[float], Speed]]] = [
        (REFERENCE, "env()", lambda t: aec_random_play(make_c4(), t, seed))
    ]
    for name in names:
        measures += [
            (name, "env()", lambda t, n=name: aec_random_play(boardenvs.make(n), t, seed)),
            (name, "raw_env()", lambda t, n=name: aec_random_play(boardenvs.make(n, raw=True), t, seed)),
            (name, "core", lambda t, n=name: core_random_play(boardenvs.make_game(n), t, seed)),
        ]
    rows: list[SpeedRow] = []
    for round_ in range(repeats):
        for i, (name, layer, measure) in enumerate(measures):
            speed = measure(seconds / repeats)
            if round_ == 0:
                rows.append(SpeedRow(name, layer, speed))
            elif speed.us_per_move < rows[i].speed.us_per_move:
                rows[i].speed = speed
    return rows


def envs_table(rows: Sequence[SpeedRow]) -> str:
    """The Markdown table of :func:`measure_envs` rows (the first row is the reference)."""
    lines = [
        "| env | layer | moves/s | games/s | us/move | vs connect_four | adapter share of a move |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    reference = rows[0].speed
    for i, row in enumerate(rows):
        speed = row.speed
        share = ""
        if row.layer == "raw_env()" and i + 1 < len(rows) and rows[i + 1].layer == "core":
            share = f"{1.0 - rows[i + 1].speed.us_per_move / speed.us_per_move:.0%}"
        ratio = speed.moves_per_second / reference.moves_per_second
        lines.append(
            f"| {row.env} | {row.layer} | {speed.moves_per_second:,.0f} | {speed.games_per_second:,.1f} | "
            f"{speed.us_per_move:.1f} | {ratio:.2f}x | {share} |"
        )
    return "\n".join(lines)


def env_speed(game_name: str, options: dict[str, Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal moves through ``env()`` (the wrapped PettingZoo env) for ``seconds``: the best of
    three rounds, as the league reports give it."""
    rounds = [aec_random_play(boardenvs.make(game_name, **options), seconds / 3, seed) for _ in range(3)]
    best = min(rounds, key=lambda s: s.us_per_move)
    return {
        "moves_per_second": best.moves_per_second,
        "games_per_second": best.games_per_second,
        "us_per_move": best.us_per_move,
        "seconds": seconds,
    }


def decision_positions(game: Game, seed: int, count: int = 12) -> list[State]:
    """Up to ``count`` decision nodes with a choice, spread over a seeded random game of ``game``."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    found = []
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            found.append(state.clone())
        state.apply_action(legal[int(rng.random() * len(legal))])
    step = max(1, len(found) // count)
    return found[::step][:count]


def mcts_speed(game: Game, seconds: float, seed: int, options: dict[str, Any]) -> tuple[float, int]:
    """Simulations per second of ``MCTSPolicy(**options)`` searching 25 simulations per decision, in turn
    on the positions of :func:`decision_positions`, for about ``seconds``; and the decisions searched."""
    positions = decision_positions(game, seed)
    policy = MCTSPolicy(seed=seed, sims=25, **options)
    sims = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or decisions == 0:
        policy.act(positions[decisions % len(positions)])
        sims += policy.last_search["sims"]
        decisions += 1
    return sims / (time.perf_counter() - start), decisions


def measure_search(names: Sequence[str], seconds: float, seed: int = 0) -> list[tuple[str, str, float]]:
    """``(env, setting, simulations per second)`` for every env and every :data:`MCTS_SETTINGS` entry."""
    return [
        (name, label, mcts_speed(boardenvs.make_game(name), seconds, seed, options)[0])
        for name in names
        for label, options in MCTS_SETTINGS
    ]


def search_table(rows: Sequence[tuple[str, str, float]]) -> str:
    """The Markdown table of :func:`measure_search` rows."""
    lines = ["| env | rollouts | sims/s | ms per decision at 100 sims |", "|---|---|---:|---:|"]
    lines += [f"| {name} | {label} | {rate:,.0f} | {100_000 / rate:,.1f} |" for name, label, rate in rows]
    return "\n".join(lines)


@dataclass(frozen=True)
class DecisionTimes:
    """How long an agent takes over its decisions with a choice (:func:`decision_times`)."""

    #: The env and the agent's spec.
    game: str
    spec: str
    #: Seconds of each decision with more than one legal action, in the order played.
    seconds: tuple[float, ...]

    def milliseconds(self, q: float | None = None) -> float:
        """The mean (``q`` None) or the ``q`` quantile (0.5: the median) of the decisions, in ms."""
        values = np.asarray(self.seconds) * 1000.0
        return float(values.mean() if q is None else np.quantile(values, q))


def decision_times(
    game: Game, spec: str, opponent: str = "heuristic", games: int = 4, seed: int = 0
) -> DecisionTimes:
    """Time every decision with a choice of the agent ``spec`` (built by the registry for ``game``'s
    options) over ``games`` games against ``opponent`` in every other seat, its seat rotated (game
    ``g`` in seat ``g mod players``, seed ``seed + g``), in this process: CPU-bound wall-clock time,
    so measure with the machine to yourself."""
    from boardenvs.core.options import options_to_dict
    from boardenvs_agents.arena.match import play_game
    from boardenvs_agents.registry import make_policy

    options = options_to_dict(game.options)
    agent = make_policy(spec, game.name, seed=seed, game_options=options)
    others = [
        make_policy(opponent, game.name, seed=seed, game_options=options) for _ in range(game.num_players)
    ]
    times: list[float] = []
    choose = agent.act

    def timed(state: State) -> int:
        began = time.perf_counter()
        action = choose(state)
        if len(state.legal_actions()) > 1:
            times.append(time.perf_counter() - began)
        return action

    agent.act = timed  # type: ignore[method-assign]
    for g in range(games):
        seat = g % game.num_players
        play_game(game, [agent if p == seat else others[p] for p in range(game.num_players)], seed + g)
    return DecisionTimes(game.name, spec, tuple(times))


def decision_table(rows: Sequence[DecisionTimes]) -> str:
    """The Markdown table of :func:`decision_times` results."""
    lines = [
        "| env | agent | decisions | ms a decision (mean) | median | 95th percentile |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r.game} | `{r.spec}` | {len(r.seconds)} | {r.milliseconds():.1f} | {r.milliseconds(0.5):.1f} | "
        f"{r.milliseconds(0.95):.1f} |"
        for r in rows
    ]
    return "\n".join(lines)
