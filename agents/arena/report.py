"""Statistics, ratings, tables and plots of arena results (:mod:`boardenvs_agents.arena.runner`).

* :func:`agent_stats`: an agent's games, wins, win rate with its 95% Wilson interval, the win rate
  from each seat, the even share (what equally strong players would win), mean return, mean game
  length, games without a winner and truncated games.
* :func:`rate`: an OpenSkill (Plackett-Luce) rating of every agent, mu and sigma, from the games in the
  order given (:func:`boardenvs_agents.arena.runner.schedule`'s fixed order, so a rerun or a parallel run
  rates alike).
* Markdown tables, a CSV of every game, a JSON summary, and PNG plots (win rates with error bars;
  learning curves from training ``eval.csv`` logs). matplotlib and openskill are imported only here,
  when used.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardenvs_agents.arena.match import GameResult, wilson_interval
from boardenvs_agents.arena.runner import Matchup
from boardenvs_agents.search.rollouts import paired_mean_stderr


# -- statistics -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentStats:
    """How the agent with one label fared over a set of games."""

    #: The agent's label.
    agent: str
    #: Seats it held per game (the most in any game): 3 for ``random`` in ``[h, random x3]``.
    copies: int
    #: Games in which it held at least one seat.
    games: int
    #: Games won by a seat it held.
    wins: int
    #: Per seat: (games in which it held that seat, wins from that seat).
    per_seat: tuple[tuple[int, int], ...]
    #: Mean return per seat held.
    mean_return: float
    #: Mean game length, in decisions.
    mean_length: float
    #: Games without a winner (draws, and games a cap ended).
    no_winner: int
    #: Games stopped by a cap (a subset of ``no_winner``).
    truncated: int
    #: Win rate equally strong players would have: ``copies / seats`` of the games that had a winner.
    even_share: float

    @property
    def win_rate(self) -> float:
        """Wins over games (0 when no games)."""
        return self.wins / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson interval of the win rate (95% by default)."""
        return wilson_interval(self.wins, self.games, z)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict, with the win rate and its interval."""
        data = asdict(self)
        data["per_seat"] = [list(x) for x in self.per_seat]
        data["win_rate"] = self.win_rate
        data["ci95"] = list(self.interval())
        return data


def agent_stats(results: Sequence[GameResult], agent: str) -> AgentStats:
    """The record of the agent labelled ``agent`` over ``results`` (games without it are ignored)."""
    num_seats = max((len(r.seating) for r in results), default=0)
    seat_games = [0] * num_seats
    seat_wins = [0] * num_seats
    games = wins = copies = no_winner = truncated = decided = length = seats_held = 0
    total_return = 0.0
    for result in results:
        seats = [p for p, label in enumerate(result.seating) if label == agent]
        if not seats:
            continue
        games += 1
        wins += result.winner in seats
        copies = max(copies, len(seats))
        no_winner += result.winner is None
        decided += result.winner is not None
        truncated += result.truncated
        length += result.num_decisions
        for p in seats:
            seat_games[p] += 1
            seat_wins[p] += result.winner == p
            total_return += result.returns[p]
            seats_held += 1
    return AgentStats(
        agent=agent,
        copies=copies,
        games=games,
        wins=wins,
        per_seat=tuple(zip(seat_games, seat_wins, strict=True)),
        mean_return=total_return / seats_held if seats_held else 0.0,
        mean_length=length / games if games else 0.0,
        no_winner=no_winner,
        truncated=truncated,
        even_share=decided / games * copies / num_seats if games else 0.0,
    )


@dataclass(frozen=True)
class PairedDifference:
    """Two agents' win rates on the same games (the same seed and seating, each agent in the seat the
    other held), and the difference with its 95% interval (the normal approximation over the paired
    per-game differences, each -1, 0 or 1)."""

    #: Games paired (present in both sets).
    games: int
    #: Win rate of the first agent and of the second on those games.
    first: float
    second: float

    #: Standard error of the mean paired difference.
    stderr: float

    @property
    def difference(self) -> float:
        """``first - second``."""
        return self.first - self.second

    def interval(self) -> tuple[float, float]:
        """The 95% interval of :attr:`difference`."""
        return self.difference - 1.96 * self.stderr, self.difference + 1.96 * self.stderr

    def text(self) -> str:
        """One line: ``+0.026 [-0.000, +0.052] (0.317 against 0.291, 2000 paired games)``."""
        low, high = self.interval()
        return (
            f"{self.difference:+.3f} [{low:+.3f}, {high:+.3f}] ({self.first:.3f} against "
            f"{self.second:.3f}, {self.games} paired games)"
        )


def paired_difference(
    first: Sequence[GameResult], first_agent: str, second: Sequence[GameResult], second_agent: str
) -> PairedDifference:
    """How ``first_agent`` in ``first`` fared against ``second_agent`` in ``second``, game by game:
    a game of ``first`` is paired with the game of ``second`` of the same seed whose seating is the
    same but for ``second_agent`` in the seats ``first_agent`` held (evaluations with the same
    ``--seed`` and opponents pair every game).

    Raises:
        ValueError: when no game pairs, naming the agents.
    """

    def key(result: GameResult, agent: str) -> tuple[int, tuple[str, ...]] | None:
        seats = [label == agent for label in result.seating]
        if not any(seats):
            return None
        return result.seed, tuple(
            "\0" if mine else label for mine, label in zip(seats, result.seating, strict=True)
        )

    def wins(result: GameResult, agent: str) -> float:
        return float(result.winner is not None and result.seating[result.winner] == agent)

    others = {}
    for result in second:
        k = key(result, second_agent)
        if k is not None:
            others[k] = wins(result, second_agent)
    diffs = []
    a_wins = b_wins = 0.0
    for result in first:
        k = key(result, first_agent)
        if k is None or k not in others:
            continue
        a, b = wins(result, first_agent), others[k]
        a_wins += a
        b_wins += b
        diffs.append(a - b)
    n = len(diffs)
    if not n:
        raise ValueError(
            f"no game of {first_agent!r} pairs with a game of {second_agent!r} (same seeds and seats)"
        )
    return PairedDifference(n, a_wins / n, b_wins / n, paired_mean_stderr(diffs)[1])


def matchup_results(results: Sequence[GameResult], matchup: str) -> list[GameResult]:
    """The results of one matchup."""
    return [r for r in results if r.matchup == matchup]


# -- ratings ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rating:
    """An agent's OpenSkill rating: skill ``mu`` with uncertainty ``sigma``."""

    agent: str
    mu: float
    sigma: float
    #: Games rated.
    games: int

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: a conservative estimate (the skill is above it with 99.7% confidence)."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict, with the ordinal."""
        return {**asdict(self), "ordinal": self.ordinal}


def rate(results: Sequence[GameResult]) -> dict[str, Rating]:
    """OpenSkill Plackett-Luce ratings of every label, updated game by game in the order given.

    Every seat is a player of its label's current rating, ranked by its return (ties share a rank).
    A label holding several seats of a game (``random x3``) moves by the sum of its seats' moves, so
    that comparisons between its own copies cancel and each game moves the ratings by a zero sum
    overall (averaging instead would shrink the copies' evidence and let every rating drift); its new
    sigma is the smallest of theirs. Sorted best first (by mu).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, tuple[float, float]] = {}
    games: dict[str, int] = {}
    for result in results:
        prior = {label: current.get(label, (model.mu, model.sigma)) for label in result.seating}
        teams = [[model.rating(mu=prior[label][0], sigma=prior[label][1])] for label in result.seating]
        new = model.rate(teams, scores=[float(r) for r in result.returns])
        moves: dict[str, float] = {}
        sigmas: dict[str, float] = {}
        for label, (player,) in zip(result.seating, new, strict=True):
            moves[label] = moves.get(label, 0.0) + player.mu - prior[label][0]
            sigmas[label] = min(sigmas.get(label, player.sigma), player.sigma)
        for label, move in moves.items():
            current[label] = (prior[label][0] + move, sigmas[label])
            games[label] = games.get(label, 0) + 1
    ratings = [Rating(label, mu, sigma, games[label]) for label, (mu, sigma) in current.items()]
    return {r.agent: r for r in sorted(ratings, key=lambda r: -r.mu)}


# -- tables -----------------------------------------------------------------------------------------
def fmt_rate(stats: AgentStats) -> str:
    """``0.810 [0.798, 0.822]``: the win rate and its 95% interval."""
    low, high = stats.interval()
    return f"{stats.win_rate:.3f} [{low:.3f}, {high:.3f}]"


def results_table(results: Sequence[GameResult], labels: Sequence[str], num_players: int) -> str:
    """A Markdown table of ``results``, one row per label.

    Columns: games, wins, win rate with its 95% Wilson interval, the even share, the win rate from each
    seat (games played from it in brackets), mean return per seat held, mean game length in
    decisions, games without a winner (draws and games a cap ended) and, of those, the truncated ones.
    """
    seat_header = " | ".join(f"seat {p}" for p in range(num_players))
    lines = [
        f"| agent | games | wins | win rate [95% CI] | even share | {seat_header} | mean return "
        "| mean length | no winner | truncated |",
        "|---|---:|---:|---|---:|" + "---:|" * num_players + "---:|---:|---:|---:|",
    ]
    for label in labels:
        s = agent_stats(results, label)
        if not s.games:
            continue
        seats = " | ".join(f"{w / g:.3f} ({g})" if g else "-" for g, w in s.per_seat)
        name = f"{label} (x{s.copies})" if s.copies > 1 else label
        lines.append(
            f"| {name} | {s.games} | {s.wins} | {fmt_rate(s)} | {s.even_share:.3f} | {seats} "
            f"| {s.mean_return:+.3f} | {s.mean_length:.1f} | {s.no_winner} | {s.truncated} |"
        )
    return "\n".join(lines)


def ratings_table(ratings: Mapping[str, Rating]) -> str:
    """A Markdown table of ratings, best first."""
    lines = ["| agent | rating mu +- sigma | ordinal (mu - 3 sigma) | games |", "|---|---:|---:|---:|"]
    for r in ratings.values():
        lines.append(f"| {r.agent} | {r.mu:.2f} +- {r.sigma:.2f} | {r.ordinal:.2f} | {r.games} |")
    return "\n".join(lines)


def matchup_section(matchup: Matchup, results: Sequence[GameResult], num_players: int, level: int = 3) -> str:
    """A Markdown heading, a line on the seatings and seeds, and the table of one matchup."""
    games = matchup_results(results, matchup.name)
    decided = sum(r.winner is not None for r in games)
    return "\n".join(
        [
            f"{'#' * level} {matchup.name}",
            "",
            f"{len(games)} games: {len(matchup.seatings)} seatings x {matchup.num_seeds} paired seeds; "
            f"{decided} with a winner.",
            "",
            results_table(games, matchup.labels, num_players),
        ]
    )


# -- files ------------------------------------------------------------------------------------------
def write_games_csv(results: Sequence[GameResult], path: str | Path) -> None:
    """One row per game: matchup, seed, the agent and return of every seat, winner, length, truncated."""
    n = max((len(r.seating) for r in results), default=0)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["matchup", "seed", *(f"seat_{p}" for p in range(n)), *(f"return_{p}" for p in range(n)),
             "winner", "num_decisions", "truncated"]
        )  # fmt: skip
        for r in results:
            writer.writerow(
                [r.matchup, r.seed, *r.seating, *(f"{x:g}" for x in r.returns),
                 "" if r.winner is None else r.winner, r.num_decisions, int(r.truncated)]
            )  # fmt: skip


def summary(
    matchups: Sequence[Matchup], results: Sequence[GameResult], ratings: Mapping[str, Rating]
) -> dict[str, Any]:
    """A JSON-able summary: every matchup's per-agent statistics and the ratings."""
    return {
        "matchups": [
            {
                "name": m.name,
                "seatings": [list(s) for s in m.seatings],
                "num_seeds": m.num_seeds,
                "agents": [
                    agent_stats(matchup_results(results, m.name), label).to_dict() for label in m.labels
                ],
            }
            for m in matchups
        ],
        "ratings": [r.to_dict() for r in ratings.values()],
    }


# -- plots ------------------------------------------------------------------------------------------
def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure  # the object API: no pyplot, no display backend

    return Figure(figsize=(width, height), layout="constrained")


def plot_win_rates(groups: Mapping[str, Sequence[AgentStats]], path: str | Path, title: str) -> None:
    """Grouped bars of win rates with 95% Wilson error bars, and each bar's even share as a dash.

    ``groups`` maps a group name (``"vs random"``, a matchup) to the statistics of its agents.
    """
    agents = list(dict.fromkeys(s.agent for stats in groups.values() for s in stats))
    fig = _figure(max(5.0, 1.2 + 0.6 * len(agents) * len(groups)), 3.6)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(agents))
    colors = [f"C{i % 10}" for i in range(len(agents))]
    for g, stats in enumerate(groups.values()):
        by_agent = {s.agent: s for s in stats}
        for a, agent in enumerate(agents):
            s = by_agent.get(agent)
            if s is None or not s.games:
                continue
            x = g - 0.4 + width * (a + 0.5)
            low, high = s.interval()
            ax.bar(x, s.win_rate, width * 0.9, color=colors[a], label=agent)
            below, above = max(0.0, s.win_rate - low), max(0.0, high - s.win_rate)
            ax.errorbar(x, s.win_rate, yerr=[[below], [above]], color="black", capsize=3, linewidth=1)
            ax.hlines(s.even_share, x - width * 0.45, x + width * 0.45, colors="black", linestyles="dashed",
                      linewidth=1)  # fmt: skip
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(f"{title}\n(dashes: the even share)", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.savefig(path, dpi=100)


def read_eval_log(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a training run's ``eval.csv`` (a run directory is accepted for its ``eval.csv``).

    Raises:
        FileNotFoundError: if there is no such log.
        ValueError: if it lacks the columns step, opponent, win_rate, ci_low, ci_high.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "eval.csv"
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    needed = {"step", "opponent", "win_rate", "ci_low", "ci_high"}
    if rows and not needed <= set(rows[0]):
        raise ValueError(f"{path} is not a training eval.csv: it lacks {sorted(needed - set(rows[0]))}")
    return [
        {"step": int(r["step"]), "opponent": r["opponent"], "win_rate": float(r["win_rate"]),
         "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"])}
        for r in rows
    ]  # fmt: skip


def plot_learning_curves(logs: Mapping[str, str | Path], path: str | Path, title: str) -> None:
    """Win rate against each evaluation opponent over training steps, one line per (run, opponent).

    ``logs`` maps a run's label to its ``eval.csv`` (or run directory); the band is the 95% interval.
    """
    fig = _figure(6.4, 3.6)
    ax = fig.add_subplot()
    line = 0
    for label, log in logs.items():
        rows = read_eval_log(log)
        for opponent in dict.fromkeys(r["opponent"] for r in rows):
            points = sorted((r["step"], r["win_rate"], r["ci_low"], r["ci_high"]) for r in rows
                            if r["opponent"] == opponent)  # fmt: skip
            steps, rates, lows, highs = zip(*points, strict=True)
            color = f"C{line % 10}"
            ax.plot(steps, rates, marker="o", markersize=3, color=color, label=f"{label} vs {opponent}")
            ax.fill_between(steps, lows, highs, color=color, alpha=0.2)
            line += 1
    ax.set_ylim(0, 1)
    ax.set_xlabel("training steps")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=100)
