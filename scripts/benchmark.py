"""Speed benchmark: random play with action masks, for every env in the package.

For each env it measures, on the same loop of uniformly random legal moves:

* ``env()``: through the PettingZoo AEC API with the standard wrapper stack (what users run);
* ``raw_env()``: through the AEC API without wrappers (our adapter alone);
* ``core``: the rules state alone (legal actions, apply, chance), no adapter and no observations.

PettingZoo's ``connect_four_v3`` (wrapped, same loop) is measured in the same run as the reference.
The table gives moves and games per second, microseconds per move, the ratio to connect four, and
the share of each move's time spent in the adapter (``1 - core / raw_env`` time per move).

Usage::

    python scripts/benchmark.py                 # every env, 3 s per measurement
    python scripts/benchmark.py --seconds 1 --envs sorry_v0
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
from boardenvs.core.state import play_chance


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
                legal = np.flatnonzero(obs["action_mask"])
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
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget of each measurement")
    parser.add_argument("--envs", nargs="*", default=None, help="env names (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the move choices")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")

    names = args.envs or boardenvs.env_names()
    unknown = sorted(set(names) - set(boardenvs.env_names()))
    if unknown:
        parser.error(f"unknown environment {unknown[0]!r}; available: {boardenvs.env_names()}")
    reference = aec_random_play(connect_four()(), args.seconds, args.seed)
    rows = [("connect_four_v3 (PettingZoo)", "env()", reference, None)]
    for name in names:
        wrapped = aec_random_play(boardenvs.make(name), args.seconds, args.seed)
        raw = aec_random_play(boardenvs.make(name, raw=True), args.seconds, args.seed)
        core = core_random_play(boardenvs.make_game(name), args.seconds, args.seed)
        share = 1.0 - core.us_per_move / raw.us_per_move
        rows += [(name, "env()", wrapped, None), (name, "raw_env()", raw, share), (name, "core", core, None)]

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"{args.seconds:g} s per row, random legal moves"
    )
    print()
    print("| env | layer | moves/s | games/s | us/move | vs connect_four | adapter share of a move |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, layer, speed, adapter in rows:
        ratio = speed.moves_per_second / reference.moves_per_second
        share = f"{adapter:.0%}" if adapter is not None else ""
        print(
            f"| {name} | {layer} | {speed.moves_per_second:,.0f} | {speed.games_per_second:,.1f} | "
            f"{speed.us_per_move:.1f} | {ratio:.2f}x | {share} |"
        )


if __name__ == "__main__":
    main()
