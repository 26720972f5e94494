"""The standard league of a game: every agent against the baselines, ratings, env speed, the pages.

:func:`run_league` reads a league config (:class:`~boardenvs_agents.arena.runner.ArenaConfig`; the
shipped ones are ``configs/<game>/league.yaml``, found by :func:`league_config`), plays every agent in
one seat against each baseline in all the others on the arena (every seat permutation on paired seeds;
games are appended to ``<out>/<game>/games.jsonl`` as they finish, so running it again after an
interruption plays only the missing games), rates every agent with OpenSkill over all the games,
measures the env's speed with a short random-play benchmark, and writes

* ``<out>/<game>.md``: the tables (each agent against each baseline, ratings, how each agent plays
  (:mod:`boardenvs_agents.arena.strategy`), env speed, every matchup per seat) and the command that
  made it (``<out>/<page>.md`` when the config names a ``page``, e.g. a two-player league);
* ``<out>/<game>/``: ``games.jsonl``, ``games.csv``, ``summary.json``, ``win_rates.png`` and
  ``learning_curves.png`` (from the training logs the config names, copied beside it).

:func:`update_readme` rebuilds the headline table of a README between ``<!-- league:start -->`` and
``<!-- league:end -->`` from every league's ``summary.json`` (:func:`headline`). ``scripts/league.py`` is
the command line. Relative paths (the output directory, the README, the config's training logs) are
taken from the current directory.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import boardenvs
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import (
    AgentStats,
    Rating,
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
from boardenvs_agents.arena.speed import env_speed
from boardenvs_agents.arena.strategy import StrategyObserver, agent_strategy, strategy_table

#: The markers of the README's league table.
START, END = "<!-- league:start -->", "<!-- league:end -->"


def league_config(game_name: str) -> Path:
    """The shipped league config of ``game_name`` (``configs/<game>/league.yaml``).

    Raises:
        OptionError: when the game has none (naming the shipped configs).
    """
    from boardenvs_agents.config import find_config  # pyyaml: the train extra, checked by the scripts

    return find_config(f"{game_name}/league")


def league_games() -> list[str]:
    """The registered games that have a shipped league config, in registry order."""
    from boardenvs_agents.config import configs_dir

    return [g for g in boardenvs.env_names() if (configs_dir() / g / "league.yaml").is_file()]


def shown_path(path: Path, base: Path | None = None) -> str:
    """``path`` as the pages show it: a shipped config as ``configs/<game>/<name>.yaml``, else relative
    to ``base`` (the current directory by default) when inside it, else absolute."""
    from boardenvs_agents.config import configs_dir

    resolved = path.resolve()
    for root, prefix in ((configs_dir().resolve(), "configs"), ((base or Path.cwd()).resolve(), "")):
        try:
            relative = resolved.relative_to(root)
        except ValueError:
            continue
        return str(Path(prefix) / relative) if prefix else str(relative)
    return str(path)


def versus(results: Sequence[GameResult], agent: str, baseline: str) -> AgentStats | None:
    """The agent's record in the matchup ``"<agent> vs <baseline>"`` (None if not played)."""
    games = matchup_results(results, f"{agent} vs {baseline}")
    return agent_stats(games, agent) if games else None


def summary_table(config: ArenaConfig, results: Sequence[GameResult], ratings: Mapping[str, Rating]) -> str:
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


def learning_curves(config: ArenaConfig, out: Path) -> tuple[dict[str, Path], list[str]]:
    """The training logs the config names (``eval.csv``, or a run directory holding one), copied into
    ``out``; a copy from an earlier run stands in for a log that is gone. Returns the copies by label
    and a note for every log found nowhere."""
    curves: dict[str, Path] = {}
    notes: list[str] = []
    for label, log in config.learning_curves.items():
        source = Path(log)
        if source.is_dir():
            source = source / "eval.csv"
        copy = out / f"{label}_eval.csv"
        if source.exists():
            read_eval_log(source)
            shutil.copyfile(source, copy)
            curves[label] = copy
        elif copy.exists():  # copied by an earlier run
            curves[label] = copy
        else:
            notes.append(f"no training log {log} for {label}: its learning curve is not drawn")
    return curves, notes


def run_league(
    config_path: str | Path,
    out_dir: str | Path,
    *,
    game_name: str | None = None,
    workers: int = 1,
    scale: float = 1.0,
    progress: bool = True,
    command: str = "",
) -> dict[str, Any]:
    """Play one game's league and write its page and files into ``out_dir``; returns its summary (what
    ``<out_dir>/<game>/summary.json`` holds) with the notes of the run under ``"notes"``.

    Args:
        config_path: the league config, a path or a shipped config's name (``sorry_v0/league``).
        out_dir: the results directory (``docs/results`` in the checkout).
        game_name: the game the config must be for (``None``: any).
        workers: worker processes.
        scale: multiply every matchup's games by this (at least one seed per matchup).
        progress: a progress bar on stderr.
        command: the command that runs this league, written on the page.

    Raises:
        ValueError: (``OptionError`` among them) for a bad config, a config of another game, a bad
            agent spec or a results file of another league; ``FileNotFoundError`` for a missing file.
    """
    if workers < 1 or scale <= 0:
        raise ValueError(f"workers must be at least 1 and scale positive, got {workers} and {scale}")
    from boardenvs_agents.config import find_config

    config_file = find_config(config_path)
    config = load_config(config_file)
    if game_name is not None and config.game != game_name:
        raise ValueError(f"{config_path} is a config of {config.game}, not {game_name}")
    game_name = config.game
    game = boardenvs.make_game(game_name, **config.game_options)
    matchups = config.make_matchups(game.num_players, scale)
    arena = Arena(game, config.agents, observer=StrategyObserver)
    arena.check(matchups)
    out_dir = Path(out_dir)
    page = config.page or game_name
    if Path(page).name != page or page in (".", ".."):
        raise ValueError(f"{config_path}: page must be a plain file name, got {config.page!r}")
    out = out_dir / page
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results = arena.run(matchups, config.seed, workers, out / "games.jsonl", progress, game_name)
    elapsed = time.perf_counter() - start
    ratings = rate(results)
    speed = env_speed(game_name, config.game_options, config.benchmark_seconds)

    curves, notes = learning_curves(config, out)
    if curves:
        plot_learning_curves(curves, out / "learning_curves.png", f"{game_name}: evaluations during training")
    baselines = {
        f"vs {b}": [s for a in config.agents if (s := versus(results, a, b))] for b in config.baselines
    }
    plot_win_rates(baselines, out / "win_rates.png", f"{game_name}, {game.num_players} players: win rates")
    write_games_csv(results, out / "games.csv")
    data = {
        "game": game_name,
        "page": page,
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
        "strategy": {label: st for label in config.agents if (st := agent_strategy(results, label))},
        "config_file": shown_path(config_file),
    }
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
    (out_dir / f"{page}.md").write_text(league_markdown(data, config, matchups, results, ratings, curves))
    return {**data, "notes": notes}


def league_markdown(
    data: Mapping[str, Any],
    config: ArenaConfig,
    matchups: Sequence[Matchup],
    results: Sequence[GameResult],
    ratings: Mapping[str, Rating],
    curves: Mapping[str, Path],
) -> str:
    """The text of ``<out>/<game>.md``."""
    game, n, page = data["game"], data["num_players"], data["page"]
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
        f"![win rates]({page}/win_rates.png)",
        "",
        "## Ratings",
        "",
        "OpenSkill (Plackett-Luce) over every game of the league, in the fixed schedule order (by seed, "
        "then matchup, then seating); each seat is a player ranked by its return. mu is the skill, sigma "
        "its uncertainty; the ordinal mu - 3 sigma is a conservative estimate.",
        "",
        ratings_table(ratings),
        "",
        "## How the agents play",
        "",
        strategy_section(game, data["strategy"]),
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
            + ", ".join(f"[{label}]({page}/{path.name})" for label, path in curves.items())
            + "); the bands are 95% intervals.",
            "",
            f"![learning curves]({page}/learning_curves.png)",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def strategy_section(game: str, per_agent: Mapping[str, Any]) -> str:
    """The text of the page's strategy section (:mod:`boardenvs_agents.arena.strategy`)."""
    if not per_agent:
        return "No game of this league recorded its decisions (results from an older league run)."
    return (
        "Every agent's decisions with a choice (more than one legal action), by kind, as a share of "
        "its choices, and what its moves caused per game, over all its games of the league (a game "
        "counts once for every seat the agent held: a baseline in every other seat counts once per seat):\n\n"
        + strategy_table(game, per_agent)
    )


def headline(results_dir: str | Path, base: str | Path | None = None) -> str:
    """The README's table: every league's agents against random and heuristic, ratings, env speed, from
    the ``*/summary.json`` files of ``results_dir``; links to the pages relative to ``base`` (the
    README's folder; the current directory by default)."""
    results_dir = Path(results_dir)
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
            name = data.get("page", data["game"])
            page = shown_path(results_dir / f"{name}.md", Path(base) if base is not None else None)
            game = f"[`{data['game']}`]({page}), {data['num_players']} players"
            moves = f"{speed['moves_per_second']:,.0f} moves/s"
            rating = f"{r['mu']:.1f} +- {r['sigma']:.1f}" if r else "-"
            lines.append(
                f"| {game if first else ''} | {moves if first else ''} | {label} | {cells[0]} | {cells[1]} "
                f"| {rating} |"
            )
            first = False
    return "\n".join(lines)


def update_readme(readme: str | Path, results_dir: str | Path) -> None:
    """Replace the text between the league markers of ``readme`` with the :func:`headline` table.

    Raises:
        ValueError: when ``readme`` lacks the markers; ``FileNotFoundError`` when it does not exist.
    """
    readme = Path(readme)
    text = readme.read_text()
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise ValueError(f"{readme} has no '{START}' ... '{END}' markers for the league table")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    table = headline(results_dir, readme.resolve().parent)
    readme.write_text(f"{before}{START}\n{table}\n{END}{after}")
