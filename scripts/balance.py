r"""Measure whether a game's defaults (or a variant's options) make a real game, and check the targets.

For every player count it plays the agent (``--agents``, default the heuristic) in every seat, and the
heuristic in one rotated seat against random players (plus random players in every seat for a game of
asymmetric sides), then prints how games ended, draws, game lengths, win rates per seat and role with
95% intervals, the heuristic's margin over its even share, and the game's own figures::

    boardenvs-balance --game sorry_v0 --num-players 2 3 4 --games 1000 --check

A variant is a set of options (``--option`` values read by the one ``key=value`` grammar of
:mod:`boardenvs_agents.keyvalue`, an ``--options`` file as YAML)::

    boardenvs-balance --game neighborhood_v0 --num-players 4 --option board_size=11 \
        --option max_rounds=40 --games 1000 --check --json runs/nb11.json
    boardenvs-balance --game gangsi_v0 --options my_map.yaml --check   # maze: [lines of the drawing]

``--check`` compares the figures with the rules README's balance targets and the game's own (Gangsi
K7, Neighborhood 1.1b, Lost City T9/T28) and exits 1 naming each target missed. A game without an
agents record (the heuristic, its figures) is measured with random players and its generic figures::

    boardenvs-balance --game my_game_v0 --agents random --no-versus --games 200
 Games are seeded
(``--seed``) and ``--workers`` changes no figure. Bad arguments exit 2 with a one-line message.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from boardenvs_agents import cli
from boardenvs_agents.arena.balance import (
    BalanceConfig,
    balance_of,
    format_setting,
    format_targets,
    missed,
    run_balance,
)
from boardenvs_agents.cli import fail
from boardenvs_agents.keyvalue import KeyValueError, parse_items


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, help="registered game name, e.g. sorry_v0")
    parser.add_argument(
        "--num-players", type=int, nargs="+", default=None, metavar="N",
        help="player counts to measure (default: every count the game supports)",
    )  # fmt: skip
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. --option board_size=11 --option colors=[0,2] (values read as numbers, "
        "true/false, [lists] where they are, else as text; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--options", type=Path, default=None, metavar="FILE",
        help="a YAML file of game options (a mapping; --option entries override it), e.g. a Gangsi maze",
    )  # fmt: skip
    parser.add_argument(
        "--games", type=int, default=1000,
        help="games per run and player count (default 1000; the README's targets need at least 1000)",
    )  # fmt: skip
    parser.add_argument(
        "--agents", default="heuristic", metavar="SPEC",
        help="agent spec in every seat: heuristic (default), random, or any spec (mcts:sims=100, ...)",
    )  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="worker processes (changes no figure)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--check", action="store_true", help="check the targets; exit 1 if one is missed")
    parser.add_argument(
        "--no-versus", action="store_true", help="skip the heuristic-vs-random run (and its target)"
    )
    parser.add_argument("--json", type=Path, default=None, help="write every figure to this JSON file")
    parser.add_argument("--report", type=Path, default=None, help="write the printed report to this file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def parse_options(items: list[str], path: Path | None = None) -> dict[str, Any]:
    """The options of the YAML file ``path`` (which needs the train extra's pyyaml), then
    ``["board_size=11", "colors=[0, 2]"]`` (:func:`boardenvs_agents.keyvalue.parse_items`); lists as
    tuples."""
    options: dict[str, Any] = {}
    if path is not None:
        import yaml

        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as err:
            fail(f"--options {path}: cannot read it ({err.__class__.__name__}: {err})".splitlines()[0])
        if not isinstance(loaded, dict):
            fail(f"--options {path}: must be a YAML mapping of option: value, got {type(loaded).__name__}")
        options = {str(k): _tuples(v) for k, v in loaded.items()}
    try:
        items_read = parse_items(items, "--option")
    except KeyValueError as err:
        fail(str(err))
    options.update({key: _tuples(value) for key, value in items_read.items()})
    return options


def _tuples(value: Any) -> Any:
    """Lists as tuples, nested too (the games' options are tuples)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def build_config(args: argparse.Namespace) -> BalanceConfig:
    """The :class:`BalanceConfig` of the command line; exits 2 naming what is wrong."""
    try:
        balance_of(args.game)
    except ValueError as err:
        fail(str(err))
    options = parse_options(args.option, args.options)
    if "num_players" in options:
        fail("give the player counts with --num-players, not --option num_players=...")
    try:
        return BalanceConfig(
            game=args.game,
            player_counts=tuple(args.num_players or ()),
            options=options,
            games=args.games,
            agent=args.agents,
            seed=args.seed,
            workers=args.workers,
            versus_random=not args.no_versus,
        )
    except ValueError as err:
        fail(f"--{str(err).replace('_', '-', 1)}" if str(err).startswith(("games", "workers")) else str(err))


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Play, print the report, write the outputs; exit 1 with ``--check`` if a target is missed."""
    args = parse_args(argv)
    config = build_config(args)
    from boardenvs.registry import make_game
    from boardenvs_agents.arena.balance.run import HEURISTIC
    from boardenvs_agents.arena.runner import build_policy

    # Check every player count, the options and the agent specs before playing anything.
    balance = balance_of(config.game)
    counts = config.player_counts or balance.player_counts
    for n in counts:
        try:
            game = make_game(config.game, **config.options, num_players=n)
            build_policy(config.agent, config.agent, game)
        except (ValueError, TypeError, FileNotFoundError) as err:
            fail(f"{config.game} with {n} players: {err}")
        if config.versus_random:
            try:
                build_policy(HEURISTIC, HEURISTIC, game)
            except ValueError as err:
                fail(f"{config.game}: the heuristic-vs-random run (skip it with --no-versus): {err}")

    start = time.perf_counter()
    settings = run_balance(config, progress=not args.no_progress)
    elapsed = time.perf_counter() - start

    words = argv if argv is not None else sys.argv[1:]
    command = "boardenvs-balance " + " ".join(shlex.quote(a) for a in words)
    parts = [
        f"`{command}`",
        "",
        f"{config.game}, first seed {config.seed}, {elapsed:.0f} s",
        "",
    ]
    for s in settings:
        parts += [format_setting(s, balance.figures, balance.cap_name), ""]
    if args.check:
        parts += [format_targets(settings), ""]
    text = "\n".join(parts).rstrip() + "\n"
    print(text, end="", flush=True)
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "command": command,
            "game": config.game,
            "seed": config.seed,
            "games": config.games,
            "agent": config.agent,
            "seconds": elapsed,
            "settings": [s.to_dict() for s in settings],
        }
        args.json.write_text(json.dumps(payload, indent=1, default=str))
    if args.check:
        misses = missed(settings)
        if misses:
            print(f"{cli.prog()}: {len(misses)} target(s) missed:", file=sys.stderr)
            for line in misses:
                print(f"  - {line}", file=sys.stderr)
            return 1
        print(f"{cli.prog()}: every target met", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
