"""Evaluations as ``scripts/evaluate.py`` runs them: a lineup from agent specs, the tables, the report.

* :func:`lineup_config`: the :class:`~boardenvs_agents.arena.runner.ArenaConfig` of one matchup, agents
  under test in the first seats and opponents in the rest. With no game or no game options given, a
  learned agent's model (``ppo:sorry_v0``) supplies them (:func:`model_game`): a model trained for four
  players is played with four, not refused for the default two.
* :func:`evaluation_text`: the Markdown tables of every matchup and, with several agents, the ratings.
* :func:`write_report`: ``results.md``, ``games.csv``, ``summary.json`` and the plots in a directory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from boardenvs import make_game
from boardenvs.core.game import Game
from boardenvs.core.options import make_options
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import (
    Rating,
    agent_stats,
    matchup_results,
    matchup_section,
    plot_learning_curves,
    plot_win_rates,
    rate,
    ratings_table,
    summary,
    write_games_csv,
)
from boardenvs_agents.arena.runner import ArenaConfig, Matchup
from boardenvs_agents.cli import split_label
from boardenvs_agents.registry import trained_for

#: The game of a lineup when neither the command nor a model names one.
DEFAULT_GAME = "sorry_v0"


def model_game(specs: Sequence[str]) -> tuple[str, str, dict[str, Any]] | None:
    """The first learned agent among ``specs`` whose model carries metadata, as ``(spec, game, options)``
    (the game and the options it was trained with, :func:`~boardenvs_agents.registry.trained_for`);
    ``None`` when there is none.

    Raises:
        ValueError: for a model file that does not exist (naming the shipped models) or that is not a
            boardenvs model.
    """
    for spec in specs:
        found = trained_for(spec)
        if found is not None:
            return spec, *found
    return None


def lineup_config(
    agents: Sequence[str],
    opponents: Sequence[str] = ("random",),
    game: str | None = None,
    game_options: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> tuple[ArenaConfig, str | None]:
    """One matchup: ``agents`` (``label=spec`` or a bare spec, its own label) in the first seats and
    ``opponents`` in the others (one spec for all of them, or one per seat).

    ``game`` defaults to the game of the first learned agent's model (:func:`model_game`), else
    :data:`DEFAULT_GAME`. Without ``game_options``, a model trained for that game supplies its options
    (player count included); otherwise the options are those given, with the game's own player count
    for them (``sorry_v0.env()``'s four) unless they say. A model trained for other options than those
    given is refused later, when its agent is built, with a message that says which. ``overrides`` are
    further :class:`~boardenvs_agents.arena.runner.ArenaConfig` keys (``games``, ``seed``,
    ``max_seatings``).

    Returns:
        The config, and a note saying where the game or its options came from when a model chose them
        (``None`` otherwise).

    Raises:
        ValueError: for agents that do not fit the seats, the wrong number of opponents, a label naming
            two specs, a missing model file, or a bad option (``OptionError``, naming the key).
    """
    lineup = [split_label(a) for a in agents]
    if not lineup:
        raise ValueError("name at least one agent")
    opponents = list(opponents) or ["random"]
    found = model_game([spec for _, spec in lineup] + opponents)
    note = None
    options = dict(game_options or {})
    if game is None:
        game = found[1] if found else DEFAULT_GAME
        if found:
            note = f"the game {game} is the one {found[0]} was trained for"
    if not options and found and found[1] == game:
        options = found[2]
        note = f"{game} is played with the options {found[0]} was trained with: {options}"
    if "num_players" not in options:  # the game's own count for these options (Gangsi's num_hunters...)
        options["num_players"] = make_game(game, **options).num_players
    n = options["num_players"]
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError(f"num_players must be an integer, got {n!r}")
    free = n - len(lineup)
    if free < 0:
        raise ValueError(f"{len(lineup)} agents do not fit in {n} seats")
    if free and len(opponents) not in (1, free):
        raise ValueError(f"give --opponent once, or once per other seat ({free}), not {len(opponents)} times")
    fillers = (
        [split_label(o) for o in (opponents * free if len(opponents) == 1 else opponents)] if free else []
    )
    specs: dict[str, str] = {}
    for label, spec in lineup + fillers:
        if specs.setdefault(label, spec) != spec:
            raise ValueError(f"label {label!r} names two specs, {specs[label]!r} and {spec!r}")
    name = " ".join(label for label, _ in lineup)
    if fillers:
        name += " vs " + " ".join(dict.fromkeys(label for label, _ in fillers))
    raw = {
        "game": game,
        "game_options": options,
        "agents": specs,
        "matchups": [{"name": name, "lineup": [label for label, _ in lineup + fillers]}],
        "games": 400,
        **overrides,
    }
    return make_options(ArenaConfig, raw, where="evaluate: "), note


def evaluation_text(
    game: Game, matchups: Sequence[Matchup], results: Sequence[GameResult], seed: int, seconds: float
) -> tuple[str, dict[str, Rating]]:
    """The tables of a run (a header line, every matchup, and OpenSkill ratings when there are several
    agents) and the ratings (empty with one agent)."""
    n = game.num_players
    total = sum(m.num_games for m in matchups)
    lines = [
        f"{game.name}, {n} players, {total} games in {len(matchups)} matchup(s), first seed {seed}, "
        f"{seconds:.1f} s",
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
    return "\n".join(lines).rstrip(), ratings


def write_report(
    out: Path,
    config: ArenaConfig,
    game_name: str,
    matchups: Sequence[Matchup],
    results: Sequence[GameResult],
    ratings: Mapping[str, Rating],
    text: str,
    curves: Mapping[str, str | Path],
    command: str,
) -> None:
    """``results.md`` (``command`` and ``text``), ``games.csv``, ``summary.json``, ``win_rates.png`` and,
    with ``curves`` (training ``eval.csv`` logs by label), ``learning_curves.png``, in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(f"# Evaluation: {game_name}\n\n```bash\n{command}\n```\n\n{text}\n")
    write_games_csv(results, out / "games.csv")
    data = {"command": command, "config": config.to_dict(), **summary(matchups, results, ratings)}
    (out / "summary.json").write_text(json.dumps(data, indent=1))
    groups = {m.name: [agent_stats(matchup_results(results, m.name), a) for a in m.labels] for m in matchups}
    plot_win_rates(groups, out / "win_rates.png", f"{game_name}, {config.game_options}")
    if curves:
        plot_learning_curves(curves, out / "learning_curves.png", f"{game_name}: training evaluations")
