r"""Evaluate agents against each other: every seat permutation on paired seeds, win rates with 95% intervals.

One agent against opponents (the agent in every seat in turn, ``--opponent`` in the others)::

    python scripts/evaluate.py --agent heuristic --opponent random --game sorry_v0 --num-players 2 \
        --games 400 --seed 0 --json runs/heuristic_vs_random.json

Several agents in one lineup (``label=spec``, or a bare spec as its own label; seats left over go to
``--opponent``), over two worker processes, with a report directory::

    python scripts/evaluate.py --game sorry_v0 --num-players 4 --games 240 --workers 2 \
        --agents h=heuristic m100=mcts:sims=100 ppo=ppo:sorry_v0 random --out runs/eval_sorry

Or the matchups of a config (``configs/<game>/league.yaml``; ``--games`` and ``--seed`` override it)::

    python scripts/evaluate.py --config configs/sorry_v0/league.yaml --workers 2 --out runs/league_sorry

Every distinct seat permutation of a lineup is played (a balanced Latin-square sample when there are
more than ``--max-seatings``), each on the same seeds, so every seating sees the same dice and decks.
Prints Markdown tables (and OpenSkill ratings when there are several agents). ``--out DIR`` writes
``results.md``, ``games.jsonl`` (written as games finish: run the same command again after an
interruption and only the missing games are played), ``games.csv``, ``summary.json``,
``win_rates.png`` and, with ``--curves``, ``learning_curves.png`` from training ``eval.csv`` logs.
``--json FILE`` writes every game's result to one JSON file. Bad specs, missing model files and models
for another game or player count stop at once with a one-line message and exit code 2. Ctrl-C stops
the workers and exits with code 130 (the games in ``games.jsonl`` are kept); worker processes exit
by themselves if this process is killed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from boardenvs import make_game
from boardenvs.core.options import make_options
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import (
    agent_stats,
    matchup_results,
    matchup_section,
    plot_learning_curves,
    plot_win_rates,
    rate,
    ratings_table,
    read_eval_log,
    summary,
    write_games_csv,
)
from boardenvs_agents.arena.runner import DEFAULT_MAX_SEATINGS, Arena, ArenaConfig, Matchup, load_config


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
    parser.add_argument("--config", type=Path, default=None, help="a YAML config of agents and matchups")
    parser.add_argument("--game", default=None, help="registered game name (default sorry_v0)")
    parser.add_argument("--num-players", type=int, default=None, help="players in the game (default 2)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)"
    )
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
        "--curves", nargs="+", default=[], metavar="[LABEL=]EVAL_CSV",
        help="training eval.csv logs (or run directories) to plot learning curves from (with --out)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def fail(message: str) -> NoReturn:
    """Stop with a one-line error message and exit code 2 (as argparse does for usage errors)."""
    print(f"evaluate.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def split_label(text: str) -> tuple[str, str]:
    """``"m=mcts:sims=100"`` -> ``("m", "mcts:sims=100")``; a bare spec is its own label."""
    label, eq, spec = text.partition("=")
    if eq and ":" not in label and label and spec:
        return label, spec
    return text, text


def parse_options(items: list[str]) -> dict[str, Any]:
    """``["num_players=3", "colors=[0, 2]"]`` -> game options (values read as YAML)."""
    import yaml

    options = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            fail(f"--option takes KEY=VALUE, got {item!r}")
        options[key.strip()] = yaml.safe_load(value)
    return options


def build_config(args: argparse.Namespace) -> ArenaConfig:
    """The config the command line describes: ``--config`` with overrides, or the agent flags.

    Raises:
        OptionError: for a bad config or option, naming the key.
    """
    overrides: dict[str, Any] = {}
    for key in ("game", "games", "seed", "max_seatings"):
        if getattr(args, key) is not None:
            overrides[key] = getattr(args, key)
    options = parse_options(args.option)
    if args.num_players is not None:
        options["num_players"] = args.num_players
    if args.config is not None:
        if args.agent or args.agents or args.opponent:
            fail("give the agents either in --config or with --agent/--agents/--opponent, not both")
        return load_config(args.config, overrides, game_options=options)
    if args.agent and args.agents:
        fail("give --agent or --agents, not both")
    options.setdefault("num_players", 2)
    n = options["num_players"]
    lineup = (
        [split_label(a) for a in args.agents] if args.agents else [split_label(args.agent or "heuristic")]
    )
    opponents = args.opponent or ["random"]
    free = n - len(lineup)
    if free < 0:
        fail(f"{len(lineup)} agents do not fit in {n} seats")
    if free and len(opponents) not in (1, free):
        fail(f"give --opponent once, or once per other seat ({free}), not {len(opponents)} times")
    fillers = (
        [split_label(o) for o in (opponents * free if len(opponents) == 1 else opponents)] if free else []
    )
    agents: dict[str, str] = {}
    for label, spec in lineup + fillers:
        if agents.setdefault(label, spec) != spec:
            fail(f"label {label!r} names two specs, {agents[label]!r} and {spec!r}")
    name = " ".join(label for label, _ in lineup)
    if fillers:
        name += " vs " + " ".join(dict.fromkeys(label for label, _ in fillers))
    raw = {
        "game": "sorry_v0",
        "game_options": options,
        "agents": agents,
        "matchups": [{"name": name, "lineup": [label for label, _ in lineup + fillers]}],
        "games": 400,
        **overrides,
    }
    return make_options(ArenaConfig, raw, where="evaluate.py: ")


def main(argv: list[str] | None = None) -> None:
    """Play the games, print the tables and write the outputs."""
    args = parse_args(argv)

    # Check the config, the game and every spec before playing, so mistakes fail at once with one line.
    try:
        config = build_config(args)
        game = make_game(config.game, **config.game_options)
        matchups = config.make_matchups(game.num_players)
        arena = Arena(game, config.agents)
        arena.check(matchups)
    except (ValueError, TypeError, FileNotFoundError) as err:
        fail(str(err))
    if args.workers < 1:
        fail(f"--workers must be at least 1, got {args.workers}")
    curves = dict(split_label(c) for c in args.curves)
    for log in curves.values():
        try:
            read_eval_log(log)
        except (OSError, ValueError) as err:
            fail(f"bad --curves log: {err}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    try:
        results = arena.run(
            matchups,
            seed=config.seed,
            workers=args.workers,
            out=args.out / "games.jsonl" if args.out is not None else None,
            progress=not args.no_progress,
        )
    except ValueError as err:  # a results file of another arena
        fail(str(err))
    except KeyboardInterrupt:
        kept = (
            f"finished games are kept in {args.out / 'games.jsonl'}; the same command plays the rest"
            if args.out is not None
            else "nothing was kept (give --out DIR to keep finished games and resume)"
        )
        print(f"\nevaluate.py: interrupted; {kept}", file=sys.stderr)
        raise SystemExit(130) from None
    elapsed = time.perf_counter() - start

    n = game.num_players
    total = sum(m.num_games for m in matchups)
    lines = [
        f"{game.name}, {n} players, {total} games in {len(matchups)} matchup(s), first seed {config.seed}, "
        f"{elapsed:.1f} s",
        "",
    ]
    for m in matchups:
        lines += [matchup_section(m, results, n), ""]
    labels = list(dict.fromkeys(label for m in matchups for label in m.labels))
    ratings = rate(results) if len(labels) > 1 else {}
    if ratings:
        lines += [
            "### OpenSkill ratings (Plackett-Luce, all games in schedule order)",
            "",
            ratings_table(ratings),
        ]
    text = "\n".join(lines).rstrip()
    print(text)

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}
        payload["games"] = [r.to_dict() for r in results]
        args.json.write_text(json.dumps(payload, indent=1))
        print(f"wrote {len(results)} games to {args.json}")
    if args.out is not None:
        write_outputs(args.out, config, game.name, matchups, results, ratings, text, curves)
        print(f"wrote the report to {args.out}")


def write_outputs(
    out: Path,
    config: ArenaConfig,
    game_name: str,
    matchups: list[Matchup],
    results: list[GameResult],
    ratings: dict[str, Any],
    text: str,
    curves: dict[str, str],
) -> None:
    """results.md, games.csv, summary.json and the plots, in ``out``."""
    command = "python scripts/evaluate.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    (out / "results.md").write_text(f"# Evaluation: {game_name}\n\n```bash\n{command}\n```\n\n{text}\n")
    write_games_csv(results, out / "games.csv")
    data = {"command": command, "config": config.to_dict(), **summary(matchups, results, ratings)}
    (out / "summary.json").write_text(json.dumps(data, indent=1))
    groups = {m.name: [agent_stats(matchup_results(results, m.name), a) for a in m.labels] for m in matchups}
    plot_win_rates(groups, out / "win_rates.png", f"{game_name}, {config.game_options}")
    if curves:
        plot_learning_curves(curves, out / "learning_curves.png", f"{game_name}: training evaluations")


if __name__ == "__main__":
    main()
