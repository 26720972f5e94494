"""Speed benchmark: random play with action masks, for every env in the package.

For each env it measures, on the same loop of uniformly random legal moves, ``env()`` (the PettingZoo
AEC API with the standard wrappers, what users run), ``raw_env()`` (our adapter alone) and ``core`` (the
rules state alone), with PettingZoo's ``connect_four_v3`` as the reference; then the search agent's
simulations per second with random rollouts to the end and with ``depth=10,leaf=eval``. The measuring
is :mod:`boardenvs_agents.arena.speed`.

Usage::

    python scripts/benchmark.py                 # every env, 3 s per row
    python scripts/benchmark.py --seconds 1 --envs sorry_v0
    python scripts/benchmark.py --no-mcts       # without the search table

Each row is measured in ``--repeats`` short rounds, interleaved with the other rows, and the best
round is reported: on a shared machine noise only ever slows a round down.
"""

from __future__ import annotations

import argparse
import platform
import warnings

import numpy as np

import boardenvs
from boardenvs_agents.arena.speed import envs_table, measure_envs, measure_search, search_table
from boardenvs_agents.cli import check_extra


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments (an unknown env or a bad number stops with exit code 2)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each row, in total")
    parser.add_argument(
        "--repeats", type=int, default=5,
        help="rounds per row, interleaved across rows; the best round is reported (noise only slows)",
    )  # fmt: skip
    parser.add_argument("--envs", nargs="*", default=None, help="env names (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the move choices")
    parser.add_argument("--no-mcts", action="store_true", help="skip the search agent's table")
    args = parser.parse_args(argv)
    args.envs = args.envs or boardenvs.env_names()
    unknown = sorted(set(args.envs) - set(boardenvs.env_names()))
    if unknown:
        parser.error(f"unknown environment {unknown[0]!r}; available: {boardenvs.env_names()}")
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    try:
        check_extra("test", "pygame")  # PettingZoo's connect_four, the reference row
    except ImportError as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> None:
    """Measure and print the tables."""
    args = parse_args(argv)
    warnings.filterwarnings("ignore")
    rows = measure_envs(args.envs, args.seconds, args.repeats, args.seed)
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"random legal moves; best of {args.repeats} interleaved rounds of {args.seconds / args.repeats:g} s"
    )
    print()
    print(envs_table(rows))
    if args.no_mcts:
        return
    print()
    print("Search (MCTSPolicy, 25 simulations per decision, on decision positions of a random game):")
    print()
    print(search_table(measure_search(args.envs, args.seconds, args.seed)))


if __name__ == "__main__":
    main()
