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

:func:`measure_training` times training itself (MaskablePPO from a game's ``ppo`` config, rollouts of
a fixed size) against random, heuristic and self-play opponents at several numbers of envs:
learner steps per second, the share of the time the learner waits for the envs (opponents and their
forward passes included) and, for network opponents, how many decisions each batched forward pass
answered; :func:`training_table` is its Markdown table. ``scripts/benchmark.py`` prints the three
tables.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import boardenvs
from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State, play_chance

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
    from boardenvs_agents.search.mcts import MCTSPolicy

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


#: Opponents of the training table: label and the config's ``opponents`` (``self``: a snapshot of the
#: learner, taken before the clock starts, in every other seat).
TRAINING_OPPONENTS: tuple[tuple[str, dict[str, float]], ...] = (
    ("random", {"random": 1.0}),
    ("heuristic", {"heuristic": 1.0}),
    ("self-play", {"self": 1.0}),
)


@dataclass
class TrainingSpeed:
    """One row of the training table: ``steps`` learner steps trained in ``seconds``."""

    opponents: str
    n_envs: int
    vec_env: str
    workers: int | None
    steps: int
    seconds: float
    #: Seconds the learner waited for the envs (their games, opponents and forward passes).
    env_seconds: float
    #: Opponent decisions answered in batches, and the batched forward passes that answered them.
    decisions: int = 0
    forward_calls: int = 0

    @property
    def steps_per_second(self) -> float:
        """Learner steps (decisions) trained per second."""
        return self.steps / self.seconds

    @property
    def env_share(self) -> float:
        """Share of the time spent waiting for the envs."""
        return self.env_seconds / self.seconds


def training_config(
    game: str, opponents: dict[str, float], n_envs: int, steps: int, rollout: int = 2048,
    vec_env: str = "batched", workers: int | None = None, seed: int = 0,
) -> Any:  # fmt: skip
    """The ``<game>/ppo`` config for a timing run: ``steps`` steps, no evaluation, ``n_envs`` envs with
    rollouts of ``rollout`` steps in all (``n_steps = rollout / n_envs``), the given opponents."""
    from boardenvs_agents.learning.config import load_config

    overrides = [
        f"total_timesteps={steps}", "eval.every=0", f"n_envs={n_envs}", f"vec_env={vec_env}", f"seed={seed}",
        f"hyperparameters.n_steps={max(1, rollout // n_envs)}",
        "opponents={" + ", ".join(f"{k}: {v}" for k, v in opponents.items()) + "}",
    ]  # fmt: skip
    if workers is not None:
        overrides.append(f"workers={workers}")
    return load_config(f"{game}/ppo", overrides)


def training_speed(config: Any, label: str = "") -> TrainingSpeed:
    """Train ``config``'s learner for ``config.total_timesteps`` steps and time it (nothing written but
    a temporary self-play snapshot: with ``self`` among the opponents, the untrained learner is added to
    every env's pool before the clock starts)."""
    import torch

    from boardenvs_agents.learning.models import save_model
    from boardenvs_agents.learning.training import env_wait_seconds, final_metadata, make_vec_env
    from boardenvs_agents.learning.vec_env import BatchedVecEnv

    torch.set_num_threads(config.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        vec = make_vec_env(config, root=tmp)
        try:
            algorithm = config.algorithm
            model = algorithm.build(vec, config.hyperparameters, config.policy_kwargs, seed=config.seed)
            if config.opponents.get("self", 0) > 0:
                path = save_model(model, Path(tmp) / "snapshot.zip", final_metadata(config, 0))
                vec.env_method("update_opponents", "add_snapshot", str(path))
            waited = env_wait_seconds(vec)
            start = time.perf_counter()
            algorithm.train(model, config.total_timesteps)
            seconds = time.perf_counter() - start
            waited = env_wait_seconds(vec) - waited
            batched = isinstance(vec, BatchedVecEnv)
            return TrainingSpeed(
                label or ",".join(config.opponents), config.n_envs, config.vec_env,
                vec.workers if batched and config.vec_env == "subproc" else None,
                model.num_timesteps, seconds, waited,
                vec.decisions if batched else 0, vec.forward_calls if batched else 0,
            )  # fmt: skip
        finally:
            vec.close()


def parse_vec_env(spec: str) -> tuple[str, int | None]:
    """``"batched"``, ``"dummy"``, ``"subproc"`` or ``"subproc:N"`` (N worker processes) as
    ``(vec_env, workers)``.

    Raises:
        ValueError: for anything else.
    """
    kind, colon, count = spec.partition(":")
    if kind in ("batched", "dummy", "subproc") and not colon:
        return kind, None
    if kind == "subproc" and count.isdigit() and int(count) >= 1:
        return kind, int(count)
    raise ValueError(f"a vec env is batched, dummy, subproc or subproc:N (N >= 1 workers), got {spec!r}")


def measure_training(
    game: str = "sorry_v0", envs: Sequence[int] = (2, 8), steps: int = 6144, rounds: int = 3,
    vec_envs: Sequence[str] = ("batched",), rollout: int = 2048, seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[TrainingSpeed]:  # fmt: skip
    """The training table: every :data:`TRAINING_OPPONENTS` entry at every number of ``envs`` with every
    vector env of ``vec_envs`` (:func:`parse_vec_env`), each trained ``steps`` steps in each of
    ``rounds`` interleaved rounds; the fastest round is kept (on a shared machine noise only ever slows
    a round down). ``progress(label)`` is called before each run.

    Raises:
        ValueError: for a non-positive ``steps``, ``rounds`` or number of envs, or a bad vec env.
    """
    if steps < 1 or rounds < 1 or not envs or min(envs) < 1:
        raise ValueError(
            f"steps, rounds and every number of envs must be at least 1, got {steps}, {rounds}, {list(envs)}"
        )
    setups = [parse_vec_env(spec) for spec in vec_envs]
    runs = [
        (label, opponents, n, kind, workers)
        for kind, workers in setups
        for n in envs
        for label, opponents in TRAINING_OPPONENTS
    ]
    best: dict[int, TrainingSpeed] = {}
    for round_ in range(rounds):
        for i, (label, opponents, n, kind, workers) in enumerate(runs):
            if progress is not None:
                where = kind + (f":{workers}" if workers else "")
                progress(f"round {round_ + 1}/{rounds}: {label}, {n} envs, {where}")
            config = training_config(game, opponents, n, steps, rollout, kind, workers, seed)
            row = training_speed(config, label)
            if i not in best or row.steps_per_second > best[i].steps_per_second:
                best[i] = row
    return [best[i] for i in range(len(runs))]


def training_table(rows: Sequence[TrainingSpeed]) -> str:
    """The Markdown table of :func:`measure_training` rows (``vs random``: against the random row with
    the same envs)."""
    columns = (
        "opponents", "envs", "vec env", "steps/s", "env share of time", "vs random",
        "decisions per forward pass",
    )  # fmt: skip
    lines = ["| " + " | ".join(columns) + " |", "|---|---:|---|---:|---:|---:|---:|"]
    reference = {(r.n_envs, r.vec_env, r.workers): r for r in rows if r.opponents == "random"}
    for row in rows:
        ref = reference.get((row.n_envs, row.vec_env, row.workers))
        ratio = f"{row.steps_per_second / ref.steps_per_second:.2f}x" if ref else ""
        kind = row.vec_env + (f":{row.workers}" if row.workers else "")
        per_call = f"{row.decisions / row.forward_calls:.1f}" if row.forward_calls else ""
        speed = f"{row.steps_per_second:,.0f} | {row.env_share:.0%}"
        lines.append(f"| {row.opponents} | {row.n_envs} | {kind} | {speed} | {ratio} | {per_call} |")
    return "\n".join(lines)
