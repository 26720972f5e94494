"""Playing the balance tool's games: :func:`measure` (one setting) and :func:`run_balance` (several).

Every run goes through the arena (:class:`boardenvs_agents.arena.runner.Arena`), with a
:class:`~boardenvs_agents.arena.balance.observer.BalanceObserver` watching each game: a game depends
only on its seed and seating, so the figures are the same whatever the number of worker processes.
What the tool knows of the game is its record's balance part
(:func:`~boardenvs_agents.arena.balance.observer.balance_of`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from boardenvs.registry import make_game
from boardenvs_agents.arena.balance.observer import BalanceObserver, balance_of
from boardenvs_agents.arena.balance.stats import (
    Rate,
    SettingReport,
    shared_targets,
    summarize,
    versus_random,
)
from boardenvs_agents.arena.runner import Arena, Matchup
from boardenvs_agents.cli import progress_bar
from boardenvs_agents.games.record import BalanceRecord

#: The heuristic and the random baseline of the "heuristic vs random" run.
HEURISTIC = "heuristic"
RANDOM = "random"


@dataclass(frozen=True)
class BalanceConfig:
    """What the balance tool measures."""

    #: Registered env name.
    game: str
    #: Player counts (empty: every count the game supports).
    player_counts: tuple[int, ...] = ()
    #: Game options other than ``num_players``.
    options: dict[str, Any] = field(default_factory=dict)
    #: Games per run (rounded up to whole seeds, one game per seating).
    games: int = 1000
    #: The agent spec in every seat of run (a).
    agent: str = HEURISTIC
    #: First seed.
    seed: int = 0
    #: Worker processes (1: this process); changes no figure.
    workers: int = 1
    #: Play run (b), the heuristic in one rotated seat against random players.
    versus_random: bool = True

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"games must be at least 1, got {self.games}")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if "num_players" in self.options:
            raise ValueError("give the player counts as num_players (--num-players), not as an option")
        if any(n < 1 for n in self.player_counts):
            raise ValueError(f"player counts must be positive, got {self.player_counts}")


def measure(
    game_name: str,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    games: int = 1000,
    agent: str = HEURISTIC,
    seed: int = 0,
    workers: int = 1,
    with_versus: bool = True,
    progress: bool = False,
) -> SettingReport:
    """Play and summarise one setting: ``agent`` in every seat, the heuristic against random players
    (``with_versus``), random players in every seat (asymmetric games), and a role round robin where
    the game has one; then check every target.

    Raises:
        ValueError: for an unknown game, bad options or player count, or a bad agent spec (before any
            game is played).
    """
    balance = balance_of(game_name)
    options = dict(options or {})
    game = make_game(game_name, **options, num_players=num_players)
    n = game.num_players
    same_name = f"{agent} in every seat"
    agents = {agent: agent}
    matchups = [Matchup(same_name, ((agent,) * n,), games)]
    versus_name = f"{HEURISTIC} vs {RANDOM}"
    baseline_name = f"{RANDOM} in every seat"
    if with_versus:
        agents.update({HEURISTIC: HEURISTIC, RANDOM: RANDOM})
        matchups.append(Matchup.of(versus_name, [HEURISTIC] + [RANDOM] * (n - 1), games))
        if balance.asymmetric and agent != RANDOM:
            matchups.append(Matchup(baseline_name, ((RANDOM,) * n,), games))
    try:
        arena = Arena(game, agents, observer=BalanceObserver)
    except ValueError as err:
        raise ValueError(f"{game_name}: {err}") from err
    players = balance.describe(n)
    desc = f"{game_name} {players}"
    results = arena.run(matchups, seed=seed, workers=workers, progress=progress, desc=desc)
    by_matchup: dict[str, list] = {m.name: [] for m in matchups}
    for r in results:
        by_matchup[r.matchup].append(r)
    figures = list(balance.figures)
    same = summarize(by_matchup[same_name], same_name, figures, balance)
    baseline = None
    if baseline_name in by_matchup:
        baseline = summarize(by_matchup[baseline_name], baseline_name, figures, balance)
    elif balance.asymmetric and with_versus:
        baseline = same  # random in every seat already
    versus = None
    if with_versus:
        versus = versus_random(by_matchup[versus_name], HEURISTIC, baseline if balance.asymmetric else None)
    setting = SettingReport(
        game=game_name,
        num_players=n,
        options=options,
        players=players,
        same=same,
        versus=versus,
        baseline=baseline if baseline is not same else None,
    )
    robin = balance.round_robin(n, options)
    if robin:
        setting.round_robin, setting.round_robin_games = _round_robin(
            balance, game_name, n, options, robin, games, agent, seed, workers, progress
        )
    setting.targets = shared_targets(setting, balance.asymmetric) + balance.targets(setting)
    return setting


def _round_robin(
    balance: BalanceRecord,
    game_name: str,
    num_players: int,
    options: dict[str, Any],
    assignments: Sequence[dict[str, Any]],
    games: int,
    agent: str,
    seed: int,
    workers: int,
    progress: bool,
) -> tuple[dict[str, Rate], int]:
    """Win rate per role over every role assignment (``games`` in all, the same seeds for each)."""
    per = math.ceil(games / len(assignments))
    desc = f"{game_name} {balance.describe(num_players)} round robin"
    bar = progress_bar(len(assignments) * per, desc) if progress else None
    wins: dict[str, int] = {}
    played: dict[str, int] = {}
    total = 0
    try:
        for extra in assignments:
            game = make_game(game_name, **{**options, **extra}, num_players=num_players)
            arena = Arena(game, {agent: agent}, observer=BalanceObserver)
            results = arena.run([Matchup("round robin", ((agent,) * num_players,), per)], seed, workers)
            for r in results:
                roles = r.stats.get("roles") or []
                for role in roles:
                    played[role] = played.get(role, 0) + 1
                if r.winner is not None and roles:
                    wins[roles[r.winner]] = wins.get(roles[r.winner], 0) + 1
            total += len(results)
            if bar is not None:
                bar.update(len(results))
    finally:
        if bar is not None:
            bar.close()
    return {role: Rate(wins.get(role, 0), played[role]) for role in sorted(played)}, total


def run_balance(config: BalanceConfig, progress: bool = False) -> list[SettingReport]:
    """:func:`measure` every player count of ``config``.

    Raises:
        ValueError: as :func:`measure`, for the first bad setting (all are built before any is played).
    """
    counts = config.player_counts or balance_of(config.game).player_counts
    for n in counts:  # fail at once on a bad option or count, before hours of games
        make_game(config.game, **config.options, num_players=n)
    return [
        measure(
            config.game,
            n,
            config.options,
            games=config.games,
            agent=config.agent,
            seed=config.seed,
            workers=config.workers,
            with_versus=config.versus_random,
            progress=progress,
        )
        for n in counts
    ]
