"""The standard league of a game: every agent against random and heuristic players, ratings, env speed.

    python scripts/league.py --game sorry_v0 --workers 2
    python scripts/league.py --all --workers 2          # the four games, one after the other

For each game it reads the league config (``--config``: a path, or a shipped config's name; by default
the shipped ``configs/<game>/league.yaml``, i.e. ``<game>/league``: agents, games per matchup, seed; see
:class:`boardenvs_agents.arena.runner.ArenaConfig`), plays every agent in one seat against each
baseline in all the others (every seat permutation on paired seeds, ``--workers`` processes; games are
appended to ``<out>/<game>/games.jsonl`` as they finish, so running the command again after an
interruption plays only the missing games), rates every agent with OpenSkill, measures the env's speed,
and writes ``<out>/<game>.md`` (the tables and this command), ``<out>/<game>/`` (games, summary.json,
plots) and the headline table of ``--readme`` between ``<!-- league:start -->`` and
``<!-- league:end -->``. The work is :mod:`boardenvs_agents.arena.league`.

``--out`` and ``--readme`` default to ``docs/results`` and ``README.md`` in the current directory (run
it from the checkout to update the project's pages); relative training logs named by a config
(``learning_curves``) are read from the current directory too. ``--scale 0.1`` plays a tenth of the
games (at least one seed per matchup) for a quick look.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import boardenvs
from boardenvs_agents.arena.league import league_config, league_games, run_league, update_readme
from boardenvs_agents.cli import check_extra, command, command_line, fail


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--game", help="the game whose league to run (default config: <game>/league)")
    which.add_argument("--all", action="store_true", help="every game that has a shipped league config")
    parser.add_argument(
        "--config", default=None,
        help="another league config (with --game): a path, or a shipped config's name (sorry_v0/league)",
    )  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every matchup's games by this")
    parser.add_argument(
        "--out", type=Path, default=Path("docs/results"),
        help="results directory (default docs/results, relative to the current directory)",
    )  # fmt: skip
    parser.add_argument(
        "--readme", type=Path, default=Path("README.md"),
        help="the README whose league table to update (default README.md in the current directory)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


@command
def main(argv: list[str] | None = None) -> None:
    """Run the league(s) and update the README."""
    args = parse_args(argv)
    if args.workers < 1 or args.scale <= 0:
        fail("--workers must be at least 1 and --scale positive")
    if args.all and args.config is not None:
        fail("--config goes with --game, not --all")
    if not args.all and args.game not in boardenvs.env_names():
        fail(f"unknown environment {args.game!r}; available: {boardenvs.env_names()}")
    try:
        check_extra("train", "yaml", "openskill", "matplotlib")  # configs, ratings, plots
    except ImportError as err:
        fail(str(err))
    if not args.readme.is_file():
        fail(f"no README {args.readme} to update (give --readme, or run from the checkout)")
    argv = sys.argv[1:] if argv is None else argv
    for game_name in league_games() if args.all else [args.game]:
        command = command_line("league.py", argv)
        if args.all:
            command = command_line("league.py", ["--game", game_name, *argv], drop=["--all"])
        try:
            data = run_league(
                args.config or league_config(game_name), args.out, game_name=game_name, workers=args.workers,
                scale=args.scale, progress=not args.no_progress, command=command,
            )  # fmt: skip
        except (ValueError, TypeError, FileNotFoundError) as err:
            fail(str(err))
        for note in data["notes"]:
            print(f"note: {note}", file=sys.stderr)
        page = args.out / f"{data['page']}.md"
        print(f"{game_name}: {data['games']} games, {data['seconds']:.0f} s; wrote {page}")
    try:
        update_readme(args.readme, args.out)
    except ValueError as err:
        fail(str(err))
    print(f"updated the league table in {args.readme}")


if __name__ == "__main__":
    raise SystemExit(main())
