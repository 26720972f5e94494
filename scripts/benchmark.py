"""Speed benchmark: random play with action masks, for every env in the package.

For each env it measures, on the same loop of uniformly random legal moves:

* ``env()``: through the PettingZoo AEC API with the standard wrapper stack (what users run);
* ``raw_env()``: through the AEC API without wrappers (our adapter alone);
* ``core``: the rules state alone (legal actions, apply, chance), no adapter and no observations.

PettingZoo's ``connect_four_v3`` (wrapped, same loop) is measured in the same run as the reference.
The table gives moves and games per second, microseconds per move, the ratio to connect four, and
the share of each move's time spent in the adapter (``1 - core / raw_env`` time per move).

Usage::

    python scripts/benchmark.py                 # every env, 3 s per row
    python scripts/benchmark.py --seconds 1 --envs sorry_v0

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


if __name__ == "__main__":
    main()
