"""The standard league of a game: every agent against random and heuristic players, ratings, env speed.

    python scripts/league.py --game sorry_v0 --workers 2
    python scripts/league.py --all --workers 2          # the four games, one after the other

For each game it reads ``configs/<game>/league.yaml`` (agents, games per matchup, seed; see
:class:`boardenvs_agents.arena.runner.ArenaConfig`), plays every agent in one seat against each baseline
in all the
others on the arena (every seat permutation on paired seeds, ``--workers`` processes; games are
appended to ``docs/results/<game>/games.jsonl`` as they finish, so running the command again after an
interruption plays only the missing games), rates every agent with OpenSkill over all the games,
measures the env's speed with a short random-play benchmark, and writes

* ``docs/results/<game>.md``: the tables (each agent against random and against heuristic, ratings,
  env speed, every matchup per seat) and the exact command;
* ``docs/results/<game>/``: ``games.jsonl``, ``games.csv``, ``summary.json``, ``win_rates.png`` and
  ``learning_curves.png`` (from the training logs the config names, copied beside it);
* the headline table of ``README.md``, between ``<!-- league:start -->`` and ``<!-- league:end -->``,
  rebuilt from every game's ``summary.json``.

``--scale 0.1`` plays a tenth of the games (at least one seed per matchup) for a quick look.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import boardenvs
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import (
    AgentStats,
    agent_stats,
    fmt_rate,
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
from boardenvs_agents.arena.runner import Arena, ArenaConfig, Matchup, load_config
from boardenvs_agents.scripts.benchmark import aec_random_play

#: The checkout the league's pages are written into (run it from there).
REPO = Path.cwd()
START, END = "<!-- league:start -->", "<!-- league:end -->"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--game", help="the game whose league to run (configs/<game>/league.yaml)")
    which.add_argument("--all", action="store_true", help="every game that has a league config")
    parser.add_argument("--config", type=Path, default=None, help="another config file (with --game)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every matchup's games by this")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results", help="results directory")
    parser.add_argument("--readme", type=Path, default=REPO / "README.md", help="README with the markers")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def fail(message: str) -> NoReturn:
    """Stop with a one-line error message and exit code 2."""
    print(f"league.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def env_speed(game_name: str, options: dict[str, Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal moves through ``env()`` (the wrapped PettingZoo env): best of three rounds."""
    rounds = [aec_random_play(boardenvs.make(game_name, **options), seconds / 3, seed) for _ in range(3)]
    best = min(rounds, key=lambda s: s.us_per_move)
    return {
        "moves_per_second": best.moves_per_second,
        "games_per_second": best.games_per_second,
        "us_per_move": best.us_per_move,
        "seconds": seconds,
    }


def versus(results: list[GameResult], agent: str, baseline: str) -> AgentStats | None:
    """The agent's record in the matchup ``"<agent> vs <baseline>"`` (None if not played)."""
    games = matchup_results(results, f"{agent} vs {baseline}")
    return agent_stats(games, agent) if games else None


def summary_table(config: ArenaConfig, results: list[GameResult], ratings: dict[str, Any]) -> str:
    """One row per agent: its spec, its win rate against each baseline, its rating."""
    header = " | ".join(f"vs {b} [95% CI] (even share)" for b in config.baselines)
    lines = [
        f"| agent | spec | {header} | rating mu +- sigma |",
        "|---|---|" + "---|" * len(config.baselines) + "---:|",
    ]
    for label, spec in config.agents.items():
        cells = []
        for baseline in config.baselines:
            s = versus(results, label, baseline)
            cells.append(f"{fmt_rate(s)} ({s.even_share:.3f})" if s else "-")
        r = ratings.get(label)
        rating = f"{r.mu:.2f} +- {r.sigma:.2f}" if r else "-"
        lines.append(f"| {label} | `{spec}` | {' | '.join(cells)} | {rating} |")
    return "\n".join(lines)


def run_league(game_name: str, config_path: Path, args: argparse.Namespace) -> None:
    """Play one game's league and write its results."""
    try:
        config = load_config(config_path)
        if config.game != game_name:
            fail(f"{config_path} is a config of {config.game}, not {game_name}")
        game = boardenvs.make_game(config.game, **config.game_options)
        matchups = config.make_matchups(game.num_players, args.scale)
        arena = Arena(game, config.agents)
        arena.check(matchups)
    except (ValueError, TypeError, FileNotFoundError) as err:
        fail(str(err))
    out = args.out / game_name
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        results = arena.run(
            matchups, config.seed, args.workers, out / "games.jsonl", not args.no_progress, game_name
        )
    except ValueError as err:
        fail(str(err))
    elapsed = time.perf_counter() - start
    ratings = rate(results)
    speed = env_speed(game_name, config.game_options, config.benchmark_seconds)

    # Learning curves: the training logs named in the config, copied beside the plot.
    curves: dict[str, Path] = {}
    notes: list[str] = []
    for label, log in config.learning_curves.items():
        source = REPO / log if not Path(log).is_absolute() else Path(log)
        if source.is_dir():
            source = source / "eval.csv"
        if source.exists():
            read_eval_log(source)
            copy = out / f"{label}_eval.csv"
            shutil.copyfile(source, copy)
            curves[label] = copy
        elif (out / f"{label}_eval.csv").exists():  # copied by an earlier run
            curves[label] = out / f"{label}_eval.csv"
        else:
            notes.append(f"no training log {log} for {label}: its learning curve is not drawn")
    if curves:
        plot_learning_curves(curves, out / "learning_curves.png", f"{game_name}: evaluations during training")

    baselines = {
        f"vs {b}": [s for a in config.agents if (s := versus(results, a, b))] for b in config.baselines
    }
    plot_win_rates(baselines, out / "win_rates.png", f"{game_name}, {game.num_players} players: win rates")
    write_games_csv(results, out / "games.csv")
    command = "python scripts/league.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.all:
        command = f"python scripts/league.py --game {game_name} " + " ".join(
            shlex.quote(a) for a in sys.argv[1:] if a != "--all"
        )
    data = {
        "game": game_name,
        "num_players": game.num_players,
        "command": command.strip(),
        "config": config.to_dict(),
        "games": len(results),
        "seconds": elapsed,
        "env_speed": speed,
        "baselines": list(config.baselines),
        "versus": {
            label: {b: s.to_dict() for b in config.baselines if (s := versus(results, label, b))}
            for label in config.agents
        },
        **summary(matchups, results, ratings),
        "config_file": _rel(config_path),
    }
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
    (args.out / f"{game_name}.md").write_text(
        league_markdown(data, config, matchups, results, ratings, curves)
    )
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{game_name}: {len(results)} games, {elapsed:.0f} s; wrote {args.out / game_name}.md")


def league_markdown(
    data: dict[str, Any],
    config: ArenaConfig,
    matchups: list[Matchup],
    results: list[GameResult],
    ratings: dict[str, Any],
    curves: dict[str, Path],
) -> str:
    """The text of ``docs/results/<game>.md``."""
    game, n = data["game"], data["num_players"]
    speed = data["env_speed"]
    options = ", ".join(f"{k}={v}" for k, v in config.game_options.items())
    lines = [
        f"# League: `{game}`, {n} players",
        "",
        f"Made by this command, from `{data['config_file']}` (agents, games per matchup, seed "
        f"{config.seed}; game options {options or 'the defaults'}):",
        "",
        f"```bash\n{data['command']}\n```",
        "",
        f"{data['games']} games. Every agent plays one seat against a baseline in all the others; every "
        "seat permutation is played on the same seeds (paired), so each seating sees the same dice and "
        "decks. Win rates carry 95% Wilson intervals; the even share is what equally strong players would "
        f"win (1/{n} of the games that had a winner).",
        "",
        "## Summary",
        "",
        summary_table(config, results, ratings),
        "",
        f"![win rates]({game}/win_rates.png)",
        "",
        "## Ratings",
        "",
        "OpenSkill (Plackett-Luce) over every game of the league, in the fixed schedule order (by seed, "
        "then matchup, then seating); each seat is a player ranked by its return. mu is the skill, sigma "
        "its uncertainty; the ordinal mu - 3 sigma is a conservative estimate.",
        "",
        ratings_table(ratings),
        "",
        "## Env speed",
        "",
        f"Random legal moves through `{game}.env(num_players={n})` (PettingZoo API, standard wrappers), "
        f"best of 3 rounds in {speed['seconds']:g} s, during the league run (`scripts/benchmark.py` has "
        "the full benchmark):",
        "",
        "| moves/s | games/s | us/move |",
        "|---:|---:|---:|",
        f"| {speed['moves_per_second']:,.0f} | {speed['games_per_second']:,.1f} "
        f"| {speed['us_per_move']:.1f} |",
        "",
        "## Matchups",
        "",
    ]
    for m in matchups:
        lines += [matchup_section(m, results, n), ""]
    if curves:
        lines += [
            "## Learning curves",
            "",
            "Win rates during training, from the runs' `eval.csv` (copied here: "
            + ", ".join(f"[{label}]({game}/{path.name})" for label, path in curves.items())
            + "); the bands are 95% intervals.",
            "",
            f"![learning curves]({game}/learning_curves.png)",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def headline(results_dir: Path) -> str:
    """The README's table: every league's agents against random and heuristic, ratings, env speed."""
    lines = [
        "| game | env() speed | agent | vs random [95% CI] | vs heuristic [95% CI] | rating mu +- sigma |",
        "|---|---:|---|---|---|---:|",
    ]
    for path in sorted(results_dir.glob("*/summary.json")):
        data = json.loads(path.read_text())
        ratings = {r["agent"]: r for r in data["ratings"]}
        speed = data["env_speed"]
        first = True
        for label, versus_map in data["versus"].items():
            cells = []
            for baseline in ("random", "heuristic"):
                s = versus_map.get(baseline)
                cells.append(f"{s['win_rate']:.3f} [{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}]" if s else "-")
            r = ratings.get(label)
            page = _rel(results_dir / f"{data['game']}.md")
            game = f"[`{data['game']}`]({page}), {data['num_players']} players"
            moves = f"{speed['moves_per_second']:,.0f} moves/s"
            rating = f"{r['mu']:.1f} +- {r['sigma']:.1f}" if r else "-"
            lines.append(
                f"| {game if first else ''} | {moves if first else ''} | {label} | {cells[0]} | {cells[1]} "
                f"| {rating} |"
            )
            first = False
    return "\n".join(lines)


def _rel(path: Path) -> str:
    """``path`` relative to the repository when inside it (links in the README), else as given."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def update_readme(readme: Path, results_dir: Path) -> None:
    """Replace the text between the league markers of ``readme`` with the headline table."""
    text = readme.read_text()
    if START not in text or END not in text or text.index(START) > text.index(END):
        fail(f"{readme} has no '{START}' ... '{END}' markers for the league table")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    table = headline(results_dir)
    readme.write_text(f"{before}{START}\n{table}\n{END}{after}")


def main(argv: list[str] | None = None) -> None:
    """Run the league(s) and update the README."""
    args = parse_args(argv)
    if args.workers < 1 or args.scale <= 0:
        fail("--workers must be at least 1 and --scale positive")
    if args.all:
        if args.config is not None:
            fail("--config goes with --game, not --all")
        games = [g for g in boardenvs.env_names() if (REPO / "configs" / g / "league.yaml").exists()]
    else:
        if args.game not in boardenvs.env_names():
            fail(f"unknown environment {args.game!r}; available: {boardenvs.env_names()}")
        games = [args.game]
    for game_name in games:
        run_league(game_name, args.config or REPO / "configs" / game_name / "league.yaml", args)
    update_readme(args.readme, args.out)
    print(f"updated the league table in {args.readme}")


if __name__ == "__main__":
    main()
