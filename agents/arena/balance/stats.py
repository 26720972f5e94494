"""The balance tool's figures and targets: summaries of a run of games, the README's shared targets,
and the text report.

A *setting* is one game with one player count and options. Per setting the tool plays (a) one agent
spec in every seat, (b) the heuristic in one seat, rotated, against random players, and, for games of
asymmetric sides, (c) random players in every seat (the even share of each seat). Its
:class:`SettingReport` holds a :class:`RunSummary` of each, a role round robin where the game asks for
one (the ``round_robin`` of its record's :class:`~boardenvs_agents.games.record.BalanceRecord`), and
the :class:`~boardenvs_agents.games.record.Target` results: :func:`shared_targets` (the rules README's
"Balance targets", the README's role range :data:`~boardenvs_agents.games.record.ROLE_RANGE` among
them) and the game's own (the record's ``targets``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardenvs_agents.arena.match import GameResult, wilson_interval
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.games.record import ROLE_RANGE, BalanceRecord, Target, at_least, at_most, within

#: How a game ended: a win or a draw by the rules, a win or a draw decided at a rules cap (round
#: cap: highest HP wins, ...), or truncated by the env (no result).
END_KINDS = ("win", "draw", "cap_win", "cap_draw", "truncated")
END_NAMES = {
    "win": "win by the rules",
    "draw": "rules draw",
    "cap_win": "cap, one winner",
    "cap_draw": "cap, drawn",
    "truncated": "truncated",
}

#: The README's shared targets.
MIN_RULES_ENDS = 0.95
MAX_CAPPED = 0.05
MAX_DRAWS = 0.05
#: Seat fairness (symmetric games): every seat's win rate within these multiples of its even share.
SEAT_RANGE = (0.7, 1.4)


# -- small figures ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Spread:
    """Mean, median and the 10th and 90th percentiles of a per-game figure."""

    mean: float
    median: float
    p10: float
    p90: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        """The spread of ``values`` (all 0 for none)."""
        if not values:
            return cls(0.0, 0.0, 0.0, 0.0)
        data = np.asarray(values, dtype=float)
        p10, median, p90 = (float(x) for x in np.percentile(data, [10, 50, 90]))
        return cls(float(data.mean()), median, p10, p90)

    def text(self, digits: int = 2) -> str:
        """``"mean 5.21, median 5 (p10 2, p90 9)"``."""
        return (
            f"mean {self.mean:.{digits}f}, median {_num(self.median)} "
            f"(p10 {_num(self.p10)}, p90 {_num(self.p90)})"
        )


def _num(x: float) -> str:
    """An integer without decimals, else one decimal."""
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


@dataclass(frozen=True)
class Rate:
    """Wins out of games, with the 95% Wilson interval."""

    wins: int
    games: int

    @property
    def rate(self) -> float:
        """Wins over games (0 without games)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval."""
        return wilson_interval(self.wins, self.games)

    def text(self) -> str:
        """``"0.281 [0.253, 0.311] (281/1000)"``."""
        lo, hi = self.interval
        return f"{self.rate:.3f} [{lo:.3f}, {hi:.3f}] ({self.wins}/{self.games})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, with the rate and its interval."""
        return {"wins": self.wins, "games": self.games, "rate": self.rate, "ci95": list(self.interval)}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


# -- one run of games -------------------------------------------------------------------------------
def end_kind(result: GameResult) -> str:
    """How a game ended (one of :data:`END_KINDS`), from its result and its balance observer's ``capped``."""
    if result.truncated:
        return "truncated"
    kind = "win" if result.winner is not None else "draw"
    return "cap_" + kind if result.stats.get("capped") else kind


@dataclass(frozen=True)
class RunSummary:
    """Every figure of one run of games (one lineup): ends, lengths, win rates, the game's figures."""

    #: What played, e.g. ``"heuristic in every seat"``.
    lineup: str
    games: int
    #: Games per end kind (:data:`END_KINDS`).
    ends: dict[str, int]
    rounds: Spread
    decisions: Spread
    #: Win rate of every seat.
    seats: list[Rate]
    #: Win rate of every role (games won by a seat of that role, over games the role was in).
    roles: dict[str, Rate]
    #: The game's own figures per game.
    figures: dict[str, Spread]
    #: Figures derived from their totals (shares), by name.
    derived: dict[str, float]
    #: True when a cap's end counts as an end by the rules (Gangsi's K26).
    cap_is_rule: bool = False

    def share(self, *kinds: str) -> float:
        """Share of the games that ended in one of ``kinds``."""
        return sum(self.ends[k] for k in kinds) / self.games if self.games else 0.0

    @property
    def rules_share(self) -> float:
        """Share of games ended by the rules (a win or a draw; a cap too where the cap is a rule)."""
        kinds = ("win", "draw") + (("cap_win", "cap_draw") if self.cap_is_rule else ())
        return self.share(*kinds)

    @property
    def capped_share(self) -> float:
        """Share of games a cap stopped (the rules' round cap, or the env's truncation)."""
        return self.share("cap_win", "cap_draw", "truncated")

    @property
    def draw_share(self) -> float:
        """Share of drawn games (by the rules or at a cap)."""
        return self.share("draw", "cap_draw")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able."""
        return {
            "lineup": self.lineup,
            "games": self.games,
            "ends": dict(self.ends),
            "rules_share": self.rules_share,
            "capped_share": self.capped_share,
            "draw_share": self.draw_share,
            "rounds": vars(self.rounds),
            "decisions": vars(self.decisions),
            "seats": [r.to_dict() for r in self.seats],
            "roles": {k: r.to_dict() for k, r in self.roles.items()},
            "figures": {k: vars(s) for k, s in self.figures.items()},
            "derived": dict(self.derived),
        }


def summarize(
    results: Sequence[GameResult], lineup: str, figures: Sequence[str], balance: BalanceRecord | None = None
) -> RunSummary:
    """The :class:`RunSummary` of ``results`` (games whose ``stats`` a balance observer filled).

    ``figures`` are the keys of the game's per-game figures; ``balance`` (the balance part of the game's
    record) adds its derived figures and says whether its cap is a rule.
    """
    n = max((len(r.returns) for r in results), default=0)
    ends = dict.fromkeys(END_KINDS, 0)
    seat_wins = [0] * n
    role_wins: dict[str, int] = {}
    role_games: dict[str, int] = {}
    totals = dict.fromkeys(figures, 0.0)
    per_game: dict[str, list[float]] = {k: [] for k in figures}
    for r in results:
        ends[end_kind(r)] += 1
        if r.winner is not None:
            seat_wins[r.winner] += 1
        roles = r.stats.get("roles")
        if roles:
            for role in dict.fromkeys(roles):
                role_games[role] = role_games.get(role, 0) + 1
            if r.winner is not None:
                role_wins[roles[r.winner]] = role_wins.get(roles[r.winner], 0) + 1
        for k in figures:
            value = float(r.stats.get("figures", {}).get(k, 0.0))
            per_game[k].append(value)
            totals[k] += value
    games = len(results)
    return RunSummary(
        lineup=lineup,
        games=games,
        ends=ends,
        rounds=Spread.of([r.stats.get("rounds", 0) for r in results]),
        decisions=Spread.of([r.num_decisions for r in results]),
        seats=[Rate(w, games) for w in seat_wins],
        roles={role: Rate(role_wins.get(role, 0), role_games[role]) for role in sorted(role_games)},
        figures={k: Spread.of(v) for k, v in per_game.items()},
        derived=balance.derived(totals, games) if balance is not None else {},
        cap_is_rule=balance.cap_is_rule if balance is not None else False,
    )


# -- the heuristic against random players -----------------------------------------------------------
@dataclass(frozen=True)
class VersusRandom:
    """The heuristic in one seat (rotated through every seat) against random players."""

    agent: str
    overall: Rate
    #: What a player as strong as the random ones would win from the same seats.
    even_share: float
    #: The agent's win rate from each seat.
    seats: list[Rate]
    #: The agent's win rate by the role it played.
    roles: dict[str, Rate]
    #: How the even share was found.
    even_from: str = "1/players of the games with a winner"

    @property
    def margin(self) -> float:
        """Win rate above the even share."""
        return self.overall.rate - self.even_share

    @property
    def margin_interval(self) -> tuple[float, float]:
        """The 95% interval of the margin (the win rate's interval less the even share)."""
        lo, hi = self.overall.interval
        return lo - self.even_share, hi - self.even_share

    def to_dict(self) -> dict[str, Any]:
        """JSON-able."""
        return {
            "agent": self.agent,
            "overall": self.overall.to_dict(),
            "even_share": self.even_share,
            "even_from": self.even_from,
            "margin": self.margin,
            "margin_ci95": list(self.margin_interval),
            "seats": [r.to_dict() for r in self.seats],
            "roles": {k: r.to_dict() for k, r in self.roles.items()},
        }


def versus_random(
    results: Sequence[GameResult], agent: str, baseline: RunSummary | None = None
) -> VersusRandom:
    """:class:`VersusRandom` of ``agent`` over ``results`` (each game with ``agent`` in one seat).

    Without ``baseline`` the even share is the arena's (one seat's share of the games that had a
    winner); with one (random players in every seat, for games of asymmetric sides) it is the win rate
    of the seats the agent held, as random players won them.
    """
    stats = agent_stats(results, agent)
    roles_games: dict[str, int] = {}
    roles_wins: dict[str, int] = {}
    for r in results:
        seat = r.seating.index(agent)
        roles = r.stats.get("roles")
        if roles:
            role = roles[seat]
            roles_games[role] = roles_games.get(role, 0) + 1
            roles_wins[role] = roles_wins.get(role, 0) + (r.winner == seat)
    seats = [Rate(w, g) for g, w in stats.per_seat]
    if baseline is None:
        even, source = stats.even_share, "one seat's share of the games with a winner"
    else:
        held = sum(g for g, _ in stats.per_seat)
        even = sum(g * baseline.seats[p].rate for p, (g, _) in enumerate(stats.per_seat)) / max(1, held)
        source = "the win rate of the same seats with random players in every seat"
    return VersusRandom(
        agent=agent,
        overall=Rate(stats.wins, stats.games),
        even_share=even,
        seats=seats,
        roles={k: Rate(roles_wins[k], roles_games[k]) for k in sorted(roles_games)},
        even_from=source,
    )


# -- targets ----------------------------------------------------------------------------------------
@dataclass
class SettingReport:
    """Everything measured for one game, player count and options."""

    game: str
    num_players: int
    #: The options given (``num_players`` aside); the game's defaults for the rest.
    options: dict[str, Any]
    #: The player count in words (``"3 hunters (4 players)"``).
    players: str
    #: (a) the agent under test in every seat.
    same: RunSummary
    #: (b) the heuristic in one rotated seat against random players.
    versus: VersusRandom | None = None
    #: (c) random players in every seat (games of asymmetric sides; the even shares of (b)).
    baseline: RunSummary | None = None
    #: Win rate per role over a round robin of role assignments (the agent in every seat).
    round_robin: dict[str, Rate] | None = None
    round_robin_games: int = 0
    targets: list[Target] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able."""
        return {
            "game": self.game,
            "num_players": self.num_players,
            "options": self.options,
            "players": self.players,
            "same": self.same.to_dict(),
            "versus_random": self.versus.to_dict() if self.versus else None,
            "random_baseline": self.baseline.to_dict() if self.baseline else None,
            "round_robin": {k: r.to_dict() for k, r in (self.round_robin or {}).items()},
            "round_robin_games": self.round_robin_games,
            "targets": [t.to_dict() for t in self.targets],
        }


def shared_targets(setting: SettingReport, asymmetric: bool) -> list[Target]:
    """The rules README's "Balance targets", checked on ``setting``."""
    same = setting.same
    out = [
        at_least("README", "ends by the rules (a win or a rules draw)", same.rules_share, MIN_RULES_ENDS),
        at_most("README", "ended by a cap (round cap or truncation)", same.capped_share, MAX_CAPPED),
        at_most("README", "draws", same.draw_share, MAX_DRAWS),
    ]
    if setting.versus is not None:
        v = setting.versus
        lo = v.overall.interval[0]
        out.append(
            Target(
                "README",
                f"{v.agent} vs random: lower end of the 95% interval above the even share",
                f"{lo:.3f} vs {v.even_share:.3f} ({v.overall.text()})",
                lo > v.even_share,
            )
        )
    if asymmetric:
        for role, rate in same.roles.items():
            out.append(within("README", f"{role} win rate, {same.lineup}", rate, *ROLE_RANGE))
    else:
        out += seat_fairness(same)
    return out


def seat_fairness(run: RunSummary) -> list[Target]:
    """The README's seat-fairness target of a symmetric game: every seat's win rate in run ``run``
    within :data:`SEAT_RANGE` times its even share (one seat's share of the games with a winner)."""
    n = len(run.seats)
    if not n or not run.games:
        return []
    won = sum(r.wins for r in run.seats) / run.games
    even = won / n
    low, high = (k * even for k in SEAT_RANGE)
    return [
        Target(
            "README",
            f"seat {p} win rate, {run.lineup}, in {SEAT_RANGE[0]:.1f}x-{SEAT_RANGE[1]:.1f}x "
            f"its even share {even:.3f} ({low:.3f}-{high:.3f})",
            f"{rate.text()}, {rate.rate / even:.2f}x" if even else rate.text(),
            low <= rate.rate <= high,
        )
        for p, rate in enumerate(run.seats)
    ]


# -- text -------------------------------------------------------------------------------------------
def format_run(run: RunSummary, descriptions: Mapping[str, str], cap_name: str = "cap") -> list[str]:
    """Lines describing one run."""
    names = {**END_NAMES}
    if run.cap_is_rule:
        names["cap_win"] = f"{cap_name} (counts as a win)"
        names["cap_draw"] = f"{cap_name}, drawn"
    else:
        names["cap_win"] = f"{cap_name}, one winner"
        names["cap_draw"] = f"{cap_name}, drawn"
    ends = ", ".join(f"{names[k]} {run.ends[k]}" for k in END_KINDS if run.ends[k] or k in ("win", "draw"))
    lines = [
        f"- ends: {ends}; by the rules {_pct(run.rules_share)}, by a cap {_pct(run.capped_share)}, "
        f"draws {_pct(run.draw_share)}",
        f"- length in rounds: {run.rounds.text(1)}",
        f"- length in decisions: {run.decisions.text(1)}",
        "- win rate by seat: " + "; ".join(f"{p}: {r.text()}" for p, r in enumerate(run.seats)),
    ]
    if run.roles:
        lines.append("- win rate by role: " + "; ".join(f"{k}: {r.text()}" for k, r in run.roles.items()))
    for key, spread in run.figures.items():
        lines.append(f"- {descriptions.get(key, key)} per game: {spread.text()}")
    for key, value in run.derived.items():
        lines.append(f"- {key}: {value:.3f}")
    return lines


def _brief(value: Any) -> str:
    """An option's value for a heading: in full, or its size when long (a maze drawing)."""
    text = repr(value)
    if len(text) <= 60:
        return text
    return f"<{len(value)} items>" if isinstance(value, (list, tuple, dict)) else text[:57] + "..."


def format_setting(setting: SettingReport, descriptions: Mapping[str, str], cap_name: str = "cap") -> str:
    """The report of one setting, as Markdown."""
    options = ", ".join(f"{k}={_brief(v)}" for k, v in setting.options.items()) or "defaults"
    lines = [f"### {setting.game}, {setting.players} (options: {options})", ""]
    lines += [f"**{setting.same.lineup}** ({setting.same.games} games)", ""]
    lines += format_run(setting.same, descriptions, cap_name)
    if setting.versus is not None:
        v = setting.versus
        lo, hi = v.margin_interval
        lines += ["", f"**{v.agent} in one seat (rotated) vs random** ({v.overall.games} games)", ""]
        lines += [
            f"- {v.agent} win rate: {v.overall.text()}; even share {v.even_share:.3f} ({v.even_from})",
            f"- margin over the even share: {v.margin:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            "- by seat: " + "; ".join(f"{p}: {r.text()}" for p, r in enumerate(v.seats) if r.games),
        ]
        if v.roles:
            lines.append("- by role: " + "; ".join(f"{k}: {r.text()}" for k, r in v.roles.items()))
    if setting.baseline is not None:
        lines += ["", f"**{setting.baseline.lineup}** ({setting.baseline.games} games)", ""]
        lines += format_run(setting.baseline, descriptions, cap_name)
    if setting.round_robin:
        games = setting.round_robin_games
        lines += ["", f"**role round robin, the agent in every seat** ({games} games)", ""]
        lines += [f"- {k}: {r.text()}" for k, r in setting.round_robin.items()]
    return "\n".join(lines)


def format_targets(settings: Sequence[SettingReport]) -> str:
    """The targets of every setting, one line each (``ok`` / ``MISSED``)."""
    lines = ["### Balance targets (--check)", ""]
    for s in settings:
        for t in s.targets:
            mark = "ok    " if t.ok else "MISSED"
            lines.append(f"- {mark} {s.players}: {t.rule}: {t.text}: {t.measured}")
    return "\n".join(lines)


def missed(settings: Sequence[SettingReport]) -> list[str]:
    """Every missed target, named with its setting."""
    return [
        f"{s.game} {s.players}: {t.rule}: {t.text} (measured {t.measured})"
        for s in settings
        for t in s.targets
        if not t.ok
    ]
