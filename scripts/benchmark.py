"""Speed benchmark: random play with action masks, for every env in the package.

For each env it measures, on the same loop of uniformly random legal moves, ``env()`` (the PettingZoo
AEC API with the standard wrappers, what users run), ``raw_env()`` (our adapter alone) and ``core`` (the
rules state alone), with PettingZoo's ``connect_four_v3`` as the reference; then the search agent's
simulations per second with random rollouts to the end and with ``depth=10,leaf=eval``; then training
throughput: MaskablePPO from ``configs/<game>/ppo.yaml`` against random, heuristic and self-play
opponents at 2 and 8 envs (steps per second, the share of the time spent waiting for the envs, and
how many opponent decisions each batched forward pass answered). The measuring is
:mod:`boardenvs_agents.arena.speed` and :mod:`boardenvs_agents.learning.speed`.

Usage::

    python scripts/benchmark.py                 # every env, 3 s per row; training rows of 6,144 steps
    python scripts/benchmark.py --seconds 1 --envs sorry_v0
    python scripts/benchmark.py --no-mcts       # without the search table
    python scripts/benchmark.py --train-steps 0 # without the training table
    python scripts/benchmark.py --train-envs 2 8 32 --train-vec-env batched subproc:1 subproc:2
    python scripts/benchmark.py --envs sorry_v0 --agents champion heuristic --agent-games 20
                                                # also: ms a decision of these agents
    python scripts/benchmark.py --envs sorry_v0 --agents champion --option num_players=2
                                                # ... in two-player games

Each row is measured in ``--repeats`` short rounds, interleaved with the other rows, and the best
round is reported: on a shared machine noise only ever slows a round down.

It needs the ``test`` extra (``pip install "boardenvs[test]"``): PettingZoo's ``connect_four_v3``
imports pygame, which that extra installs; and the ``train`` extra for the training table. Without
one it stops at once with a one-line message naming it (exit code 2).
"""

from __future__ import annotations

import argparse
import platform
import sys
import warnings

import numpy as np

import boardenvs
from boardenvs_agents.arena.speed import (
    decision_table,
    decision_times,
    envs_table,
    measure_envs,
    measure_search,
    search_table,
)
from boardenvs_agents.cli import check_extra, command, fail, parse_game_options


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
    parser.add_argument(
        "--agents", nargs="+", default=[], metavar="SPEC",
        help="also time these agents' decisions with a choice, in games against the heuristic",
    )  # fmt: skip
    parser.add_argument("--agent-games", type=int, default=8, help="games per agent and env for --agents")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option of the --agents games, e.g. --option num_players=2 (values read as numbers, "
        "true/false, [lists] where they are, else as text)",
    )  # fmt: skip
    train = parser.add_argument_group("training throughput")
    train.add_argument(
        "--train-steps", type=int, default=6144,
        help="learner steps per training row and round (0: no training table)",
    )  # fmt: skip
    train.add_argument("--train-envs", type=int, nargs="+", default=[2, 8], help="numbers of envs (rows)")
    train.add_argument("--train-rounds", type=int, default=3, help="interleaved rounds per row, best kept")
    train.add_argument("--train-game", default="sorry_v0", help="game (its configs/<game>/ppo.yaml)")
    train.add_argument("--train-rollout", type=int, default=2048, help="PPO rollout size, all envs together")
    train.add_argument(
        "--train-vec-env", nargs="+", default=["batched"],
        help="vector envs (rows for each): batched, dummy, subproc or subproc:N (N worker processes)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    args.envs = args.envs or boardenvs.env_names()
    unknown = sorted(set(args.envs) - set(boardenvs.env_names()))
    if unknown:
        parser.error(f"unknown environment {unknown[0]!r}; available: {boardenvs.env_names()}")
    if args.seconds <= 0 or args.repeats < 1 or args.agent_games < 1:
        parser.error("--seconds must be positive, and --repeats and --agent-games at least 1")
    if args.train_steps < 0 or min(args.train_rounds, args.train_rollout, *args.train_envs) < 1:
        parser.error("--train-steps must be >= 0, and --train-rounds, --train-rollout, --train-envs >= 1")
    try:  # the --agents games, built here so that a bad option stops before anything is measured
        args.game_options = parse_game_options(args.option)
        args.timed_games = (
            [boardenvs.make_game(name, **args.game_options) for name in args.envs] if args.agents else []
        )
    except ValueError as err:
        parser.error(str(err))
    if args.train_game not in boardenvs.env_names():
        parser.error(f"unknown --train-game {args.train_game!r}; available: {boardenvs.env_names()}")
    try:  # an extra missing: one line, no usage (the command line is right)
        check_extra("test", "pygame")  # PettingZoo's connect_four_v3 (the reference row) imports it
        if args.train_steps:
            check_extra("train", "torch", "stable_baselines3", "sb3_contrib", "yaml")
    except ImportError as err:
        fail(str(err))
    if args.train_steps:
        # The training table's module imports torch and Stable-Baselines3: only once the extra is there.
        from boardenvs_agents.learning.speed import parse_vec_env

        for spec in args.train_vec_env:
            try:
                parse_vec_env(spec)
            except ValueError as err:
                parser.error(f"--train-vec-env: {err}")
    return args


@command
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
    if not args.no_mcts:
        print()
        print("Search (MCTSPolicy, 25 simulations per decision, on decision positions of a random game):")
        print()
        print(search_table(measure_search(args.envs, args.seconds, args.seed)))
    if args.agents:
        print()
        options = "".join(f", {key}={value}" for key, value in args.game_options.items())
        print(
            f"Time per decision with a choice ({args.agent_games} games per row against heuristic players "
            f"in every other seat, the agent's seat rotated, one process{options}):"
        )
        print()
        rows = [
            decision_times(game, spec, games=args.agent_games, seed=args.seed)
            for game in args.timed_games
            for spec in args.agents
        ]
        print(decision_table(rows))
    if args.train_steps:
        from boardenvs_agents.learning.speed import measure_training, training_table

        def progress(label: str) -> None:
            print(f"training: {label}", file=sys.stderr, flush=True)

        training = measure_training(
            args.train_game, args.train_envs, args.train_steps, args.train_rounds, args.train_vec_env,
            args.train_rollout, args.seed, progress,
        )  # fmt: skip
        print()
        print(
            f"Training throughput (MaskablePPO, configs/{args.train_game}/ppo.yaml, rollouts of "
            f"{args.train_rollout:,} steps, "
            f"torch_threads=1; best of {args.train_rounds} interleaved rounds of {args.train_steps:,} steps; "
            "self-play: every other seat a snapshot of the learner):"
        )
        print()
        print(training_table(training))


if __name__ == "__main__":
    raise SystemExit(main())
