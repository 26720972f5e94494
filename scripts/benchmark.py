"""Speed benchmark: random play with action masks, for every env in the package.

For each env it measures, on the same loop of uniformly random legal moves:

* ``env()``: through the PettingZoo AEC API with the standard wrapper stack (what users run);
* ``raw_env()``: through the AEC API without wrappers (our adapter alone);
* ``core``: the rules state alone (legal actions, apply, chance), no adapter and no observations.

PettingZoo's ``connect_four_v3`` (wrapped, same loop) is measured in the same run as the reference.
The table gives moves and games per second, microseconds per move, the ratio to connect four, and
the share of each move's time spent in the adapter (``1 - core / raw_env`` time per move).

A second table gives the search agent's speed (:mod:`boardenvs_agents.search.mcts`): simulations per
second on decision
positions of a seeded random game, with random rollouts to the end of the game (the default) and with
rollouts cut after 10 decisions and scored by the game's progress measure (``depth=10,leaf=eval``).

Usage::

    python scripts/benchmark.py                 # every env, 3 s per row
    python scripts/benchmark.py --seconds 1 --envs sorry_v0
    python scripts/benchmark.py --no-mcts       # without the search table

Each row is measured in ``--repeats`` short rounds, interleaved with the other rows, and the best
round is reported: on a shared machine noise only ever slows a round down.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import boardenvs
from boardenvs.core.state import CHANCE, play_chance


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


def aec_random_play(env, seconds: float, seed: int) -> Speed:
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


def core_random_play(game: boardenvs.core.Game, seconds: float, seed: int) -> Speed:
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


#: Search settings measured by the second table: label and ``MCTSPolicy`` options.
MCTS_SETTINGS = (("random rollouts to the end", {}), ("depth=10,leaf=eval", {"depth": 10, "leaf": "eval"}))


def decision_positions(game: boardenvs.core.Game, seed: int, count: int = 12) -> list:
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


def mcts_speed(game: boardenvs.core.Game, seconds: float, seed: int, options: dict) -> tuple[float, int]:
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


def connect_four() -> Callable[[], object]:
    """PettingZoo's connect_four_v3 constructor (needs pygame, from the ``[bench]`` extra)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pettingzoo

    if hasattr(pettingzoo, "make"):  # PettingZoo 1.27+: the registry
        return lambda: pettingzoo.make("aec", "classic/connect_four-v3")
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each row, in total")
    parser.add_argument(
        "--repeats", type=int, default=5,
        help="rounds per row, interleaved across rows; the best round is reported (noise only slows)",
    )  # fmt: skip
    parser.add_argument("--envs", nargs="*", default=None, help="env names (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the move choices")
    parser.add_argument("--no-mcts", action="store_true", help="skip the search agent's table")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    names = args.envs or boardenvs.env_names()
    unknown = sorted(set(names) - set(boardenvs.env_names()))
    if unknown:
        parser.error(f"unknown environment {unknown[0]!r}; available: {boardenvs.env_names()}")

    # Each row: (env name, layer, measurement of one round).
    make_c4 = connect_four()
    rows: list[tuple[str, str, Callable[[float], Speed]]] = [
        ("connect_four_v3 (PettingZoo)", "env()", lambda t: aec_random_play(make_c4(), t, args.seed))
    ]
    for name in names:
        rows += [
            (name, "env()", lambda t, n=name: aec_random_play(boardenvs.make(n), t, args.seed)),
            (name, "raw_env()", lambda t, n=name: aec_random_play(boardenvs.make(n, raw=True), t, args.seed)),
            (name, "core", lambda t, n=name: core_random_play(boardenvs.make_game(n), t, args.seed)),
        ]
    best: list[Speed | None] = [None] * len(rows)
    for _ in range(args.repeats):
        for i, (_name, _layer, measure) in enumerate(rows):
            speed = measure(args.seconds / args.repeats)
            if best[i] is None or speed.us_per_move < best[i].us_per_move:  # type: ignore[union-attr]
                best[i] = speed

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"random legal moves; best of {args.repeats} interleaved rounds of {args.seconds / args.repeats:g} s"
    )
    print()
    print("| env | layer | moves/s | games/s | us/move | vs connect_four | adapter share of a move |")
    print("|---|---|---:|---:|---:|---:|---:|")
    reference = best[0]
    assert reference is not None
    for i, (name, layer, _measure) in enumerate(rows):
        speed = best[i]
        assert speed is not None
        share = ""
        if layer == "raw_env()":
            core = best[i + 1]
            assert core is not None
            share = f"{1.0 - core.us_per_move / speed.us_per_move:.0%}"
        ratio = speed.moves_per_second / reference.moves_per_second
        print(
            f"| {name} | {layer} | {speed.moves_per_second:,.0f} | {speed.games_per_second:,.1f} | "
            f"{speed.us_per_move:.1f} | {ratio:.2f}x | {share} |"
        )

    if args.no_mcts:
        return
    print()
    print("Search (MCTSPolicy, 25 simulations per decision, on decision positions of a random game):")
    print()
    print("| env | rollouts | sims/s | ms per decision at 100 sims |")
    print("|---|---|---:|---:|")
    for name in names:
        for label, options in MCTS_SETTINGS:
            rate, _ = mcts_speed(boardenvs.make_game(name), args.seconds, args.seed, options)
            print(f"| {name} | {label} | {rate:,.0f} | {100_000 / rate:,.1f} |")


if __name__ == "__main__":
    main()
