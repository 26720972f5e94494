"""How agents play, not only how often they win: the kinds of decisions each seat makes, from the games.

A :class:`StrategyObserver` watches a game (:class:`~boardenvs_agents.arena.match.GameObserver`) and
counts, for every seat, its decisions with a choice (more than one legal action) by kind, and the
events its moves cause; the league (:mod:`boardenvs_agents.arena.league`) stores the counts with
each game and tabulates them per agent (:func:`strategy_table`), so a user can see what a learned
strategy does differently from the heuristic.

The kinds and the events are the game's own, from its record (:mod:`boardenvs_agents.games`: the
record's ``kind`` and its one event counter, ``events``, which the balance tool reads too; the page
shows the events of the record's ``strategy_events``). A game without a record, or whose record has no
``kind``, gets the generic figures: the decisions with a choice, per seat and game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.games import find_record
from boardenvs_agents.games.record import Events


def strategy_events(game_name: str) -> dict[str, str]:
    """The events the strategy page shows for ``game_name``: key -> label (none without a record)."""
    record = find_record(game_name)
    return dict(record.strategy_events) if record is not None else {}


class StrategyObserver:
    """Counts every seat's decisions with a choice by kind, and the events its moves cause.

    ``result()`` is ``{"strategy": [per seat: {"choices": n, "kinds": {kind: n}, "events": {...}}]}``.
    """

    def __init__(self, game: Game) -> None:
        record = find_record(game.name)
        self.kind = record.kind if record is not None else None
        self.shown = strategy_events(game.name)
        self.counter = record.events if record is not None and self.shown else None
        self.seats: list[dict[str, Any]] = [
            {"choices": 0, "kinds": {}, "events": dict.fromkeys(self.shown, 0)}
            for _ in range(game.num_players)
        ]
        self._measure: Callable[[Any], Events] | None = None

    def before(self, state: State, player: int, action: int) -> None:
        """Classify a decision with a choice; remember what the events are measured against."""
        if player >= 0 and len(state.legal_actions()) > 1:
            self.seats[player]["choices"] += 1
            if self.kind is not None:
                kinds = self.seats[player]["kinds"]
                kind = self.kind(state, player, action)
                kinds[kind] = kinds.get(kind, 0) + 1
        self._measure = self.counter(state, player, action) if self.counter is not None else None

    def after(self, state: State) -> None:
        """Count the shown events of the action just played."""
        if self._measure is not None:
            for seat, event, count in self._measure(state):
                if seat >= 0 and event in self.shown:
                    self.seats[seat]["events"][event] += count
        self._measure = None

    def result(self, state: State) -> dict[str, Any]:
        """The counts of the finished game."""
        return {"strategy": self.seats}


def agent_strategy(results: Sequence[GameResult], agent: str) -> dict[str, Any] | None:
    """The counts of every seat ``agent`` sat in, summed over ``results`` (``None`` when no game of
    ``agent`` carries them): ``games``, ``choices``, ``kinds`` and ``events``."""
    total: dict[str, Any] = {"games": 0, "choices": 0, "kinds": {}, "events": {}}
    for result in results:
        seats = result.stats.get("strategy") if result.stats else None
        if not seats:
            continue
        for seat, label in enumerate(result.seating):
            if label != agent:
                continue
            counts = seats[seat]
            total["games"] += 1
            total["choices"] += counts["choices"]
            for key in ("kinds", "events"):
                for name, value in counts[key].items():
                    total[key][name] = total[key].get(name, 0) + value
    return total if total["games"] else None


def strategy_table(game_name: str, per_agent: Mapping[str, Mapping[str, Any]]) -> str:
    """A Markdown table: per agent, the seat-games it played (a game counts once per seat it held),
    each kind's share of its decisions with a choice, and the events per seat-game."""
    kinds = sorted({k for stats in per_agent.values() for k in stats["kinds"]})
    events = strategy_events(game_name)
    header = ["agent", "seat-games", "choices per game", *kinds]
    header += [f"{label} per game" for label in events.values()]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for agent, stats in per_agent.items():
        games, choices = stats["games"], stats["choices"]
        row = [f"`{agent}`", str(games), f"{choices / games:.1f}"]
        row += [f"{stats['kinds'].get(k, 0) / choices:.1%}" if choices else "-" for k in kinds]
        row += [f"{stats['events'].get(e, 0) / games:.2f}" for e in events]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)
