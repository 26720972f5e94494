r"""Evaluate agents against each other: every seat permutation on paired seeds, win rates with 95% intervals.

One agent against opponents (the agent in every seat in turn, ``--opponent`` in the others)::

    python scripts/evaluate.py --agent heuristic --opponent random --game sorry_v0 --num-players 2 \
        --games 400 --seed 0 --json runs/heuristic_vs_random.json

A learned agent is played on the game and options its model was trained for unless they are given
(``--agent ppo:sorry_v0`` plays four-player Sorry!; ``--num-players 2`` with it is refused)::

    python scripts/evaluate.py --agent ppo:sorry_v0 --opponent heuristic --games 400

Several agents in one lineup (``label=spec``, or a bare spec as its own label; seats left over go to
``--opponent``), over two worker processes, with a report directory::

    python scripts/evaluate.py --game sorry_v0 --num-players 4 --games 240 --workers 2 \
        --agents h=heuristic m100=mcts:sims=100 ppo=ppo:sorry_v0 random --out runs/eval_sorry

Or the matchups of a config, by path or by the name of a shipped one (``sorry_v0/league`` is
``configs/sorry_v0/league.yaml``; ``--games`` and ``--seed`` override it)::

    python scripts/evaluate.py --config sorry_v0/league --workers 2 --out runs/league_sorry

Every distinct seat permutation of a lineup is played (a balanced Latin-square sample when there are
more than ``--max-seatings``), each on the same seeds, so every seating sees the same dice and decks.
Prints Markdown tables (and OpenSkill ratings when there are several agents). ``--out DIR`` writes
``results.md``, ``games.jsonl`` (written as games finish: run the same command again after an
interruption and only the missing games are played), ``games.csv``, ``summary.json``,
``win_rates.png`` and, with ``--curves``, ``learning_curves.png`` from training ``eval.csv`` logs.
``--json FILE`` writes every game's result to one JSON file; ``--paired-with FILE`` reads such a file
of another ``--agent`` on the same seeds and opponents and prints the paired difference of the two
win rates with its 95% interval (the games of the same seed and seating, the agents swapped). Bad
specs, missing model files and models for another game or player count stop at once with a one-line
message and exit code 2. Ctrl-C stops the workers and exits with code 130 (the games in
``games.jsonl`` are kept); worker processes exit by themselves if this process is killed. The work
is done by :mod:`boardenvs_agents.arena.evaluation` and :class:`boardenvs_agents.arena.runner.Arena`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from boardenvs import make_game
from boardenvs_agents.arena.evaluation import evaluation_text, lineup_config, write_report
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import paired_difference, read_eval_log
from boardenvs_agents.arena.runner import DEFAULT_MAX_SEATINGS, Arena, ArenaConfig, load_config
from boardenvs_agents.cli import (
    check_extra,
    command,
    command_line,
    fail,
    parse_game_options,
    prog,
    split_label,
)

#: The agent under test when ``--agent`` is not given.
DEFAULT_AGENT = "heuristic"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default=None, help="spec of the agent under test (default 'heuristic')")
    parser.add_argument(
        "--opponent", action="append", default=None,
        help="spec of the opponents (default 'random'); once fills every other seat, or once per other seat",
    )  # fmt: skip
    parser.add_argument(
        "--agents", nargs="+", default=None, metavar="LABEL=SPEC",
        help="a lineup of several agents ('label=spec' or a bare spec), instead of --agent",
    )  # fmt: skip
    parser.add_argument(
        "--config", default=None,
        help="a YAML config of agents and matchups: a path, or a shipped config's name (sorry_v0/league)",
    )  # fmt: skip
    parser.add_argument(
        "--game", default=None, help="registered game name (default: a learned agent's, else sorry_v0)"
    )
    parser.add_argument(
        "--num-players", type=int, default=None,
        help="players in the game (default: a learned agent's, unless --option is given; else the game's)",
    )  # fmt: skip
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option (repeatable; values read as numbers, true/false, [lists] where they are, "
        "else as text)",
    )  # fmt: skip
    parser.add_argument(
        "--games", type=int, default=None,
        help="games per matchup (default 400); rounded up to whole seeds, one game per seating",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=None, help="first game seed (seeds seed, seed+1, ...)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (1: play in this process)")
    parser.add_argument(
        "--max-seatings", type=int, default=None,
        help=f"all seat permutations up to this many, else a Latin-square sample ({DEFAULT_MAX_SEATINGS})",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="directory for the report and games.jsonl")
    parser.add_argument("--json", type=Path, default=None, help="write every game's result to this file")
    parser.add_argument(
        "--paired-with", type=Path, default=None, metavar="JSON",
        help="another --agent run's --json file on the same seeds and opponents: print the paired "
        "difference of the two agents' win rates with its 95%% interval",
    )  # fmt: skip
    parser.add_argument(
        "--curves", nargs="+", default=[], metavar="[LABEL=]EVAL_CSV",
        help="training eval.csv logs (or run directories) to plot learning curves from (with --out)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> tuple[ArenaConfig, str | None]:
    """The config the command line describes (``--config`` with overrides, or the agent flags), and a
    note when a learned agent's model chose the game or its options.

    Raises:
        ValueError: (``OptionError`` among them) for a bad config, option or lineup, naming it.
    """
    overrides = {
        k: getattr(args, k) for k in ("games", "seed", "max_seatings") if getattr(args, k) is not None
    }
    options = parse_game_options(args.option)
    if args.num_players is not None:
        options["num_players"] = args.num_players
    if args.config is not None:
        if args.agent or args.agents or args.opponent:
            raise ValueError(
                "give the agents either in --config or with --agent/--agents/--opponent, not both"
            )
        if args.game is not None:
            overrides["game"] = args.game
        return load_config(args.config, overrides, game_options=options), None
    if args.agent and args.agents:
        raise ValueError("give --agent or --agents, not both")
    agents = args.agents or [args.agent or DEFAULT_AGENT]
    return lineup_config(agents, args.opponent or ["random"], args.game, options, **overrides)


def read_paired(args: argparse.Namespace) -> tuple[str, list[GameResult]]:
    """The agent and games of ``--paired-with`` (a ``--json`` file of one ``--agent``), checked."""
    if args.agents or args.config is not None:
        fail(
            "--paired-with compares one --agent with the --agent of another run, "
            "not with --agents or --config"
        )
    try:
        data = json.loads(args.paired_with.read_text(encoding="utf-8"))
        label = data["args"]["agent"] or DEFAULT_AGENT
        games = [GameResult.from_dict(g) for g in data["games"]]
    except (OSError, ValueError, KeyError, TypeError) as err:
        fail(f"--paired-with {args.paired_with}: not the --json file of an --agent run ({err})")
    return label, games


@command
def main(argv: list[str] | None = None) -> None:
    """Play the games, print the tables and write the outputs."""
    args = parse_args(argv)
    # Check the config, the game and every spec before playing, so mistakes fail at once with one line.
    try:
        # the ratings (openskill), configs (pyyaml) and plots (matplotlib)
        check_extra(
            "train", "openskill", *(["yaml"] if args.config else []), *(["matplotlib"] if args.out else [])
        )
        config, note = build_config(args)
        game = make_game(config.game, **config.game_options)
        matchups = config.make_matchups(game.num_players)
        arena = Arena(game, config.agents)
        arena.check(matchups)
    except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
        fail(str(err))
    if args.workers < 1:
        fail(f"--workers must be at least 1, got {args.workers}")
    if note:
        print(f"note: {note}", file=sys.stderr)
    baseline = read_paired(args) if args.paired_with is not None else None
    curves = dict(split_label(c) for c in args.curves)
    for log in curves.values():
        try:
            read_eval_log(log)
        except (OSError, ValueError) as err:
            fail(f"bad --curves log: {err}")

    start = time.perf_counter()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    try:
        results = arena.run(
            matchups, seed=config.seed, workers=args.workers, progress=not args.no_progress,
            out=args.out / "games.jsonl" if args.out is not None else None,
        )  # fmt: skip
    except ValueError as err:  # a results file of another arena
        fail(str(err))
    except KeyboardInterrupt:
        kept = (
            f"finished games are kept in {args.out / 'games.jsonl'}; the same command plays the rest"
            if args.out is not None
            else "nothing was kept (give --out DIR to keep finished games and resume)"
        )
        print(f"\n{prog()}: interrupted; {kept}", file=sys.stderr)
        raise SystemExit(130) from None
    text, ratings = evaluation_text(game, matchups, results, config.seed, time.perf_counter() - start)
    print(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}
        payload["games"] = [r.to_dict() for r in results]
        args.json.write_text(json.dumps(payload, indent=1))
        print(f"wrote {len(results)} games to {args.json}")
    if baseline is not None:
        label, games = baseline
        mine = args.agent or DEFAULT_AGENT
        try:
            paired = paired_difference(results, mine, games, label)
        except ValueError as err:
            fail(str(err))
        print(f"paired difference, {mine} less {label}: {paired.text()}")
    if args.out is not None:
        command = command_line("evaluate.py", argv)
        write_report(args.out, config, game.name, matchups, results, ratings, text, curves, command)
        print(f"wrote the report to {args.out}")


if __name__ == "__main__":
    raise SystemExit(main())
