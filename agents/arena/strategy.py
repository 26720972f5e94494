"""How agents play, not only how often they win: the kinds of decisions each seat makes, from the games.

A :class:`StrategyObserver` watches a game (:class:`~boardenvs_agents.arena.match.GameObserver`) and
counts, for every seat, its decisions with a choice (more than one legal action) by kind, and the
events its moves cause; the league (:mod:`boardenvs_agents.arena.league`) stores the counts with
each game and tabulates them per agent (:func:`strategy_table`), so a user can see what a learned
strategy does differently from the heuristic. The kinds, by game (rule ids of ``shared/rules/``):

* ``sorry_v0``: forward moves (out of Start apart), backward moves (S16, S17), 7 splits (S14), 11
  switches (S12), Sorry! cards (S15), passes (S13 among them); events: bumps made
  and bumps suffered (pawns sent to Start by a landing, a slide or a Sorry!, S9, S15).
* ``gangsi_v0``: hunters' re-rolls (K14), resets (K16), keeps, number and arrow declarations (K29),
  directions; the Kyonshi's steps and stops; events: treasures revealed (K19), catches (K24).
* ``lost_city_v0``: draft picks (T2), moves that advance (the nearest living opponent gets closer),
  retreat (it gets further) or keep the distance, stays, basic attacks (T4), abilities (Double Hit
  and Jamie's copies counted in), criticals (T37), +Damage and +Health cards (T11), ends of step.
* ``neighborhood_v0``: Killer or Wild card chosen (L14), votes for Killer or Wild (L17), card
  options (first/second), squares, directions, distances, players, stops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.arena.match import GameResult

#: Events counted per seat, by game: key -> label (the kinds are whatever the classifier returns).
EVENTS: dict[str, dict[str, str]] = {
    "sorry_v0": {"bumps_made": "bumps made", "bumps_suffered": "bumps suffered"},
    "gangsi_v0": {"reveals": "treasures revealed", "catches": "catches"},
    "lost_city_v0": {},
    "neighborhood_v0": {},
}


def _sorry_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.sorry.board import START

    if action <= 2:
        return "out of Start" if state.pos[player * 3 + action] == START else "forward"
    if action <= 5:
        return "backward"
    if action <= 41:
        return "7 split"
    if action <= 68:
        return "11 switch"
    if action <= 77:
        return "Sorry! card"
    return "pass"


def _gangsi_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.gangsi.rules import KYONSHI

    if player == KYONSHI:
        return "Kyonshi: stop" if action == 4 else "Kyonshi: step"
    if action == 0:
        return "keep"
    if action == 1:
        return "reset"
    if action == 2:
        return "re-roll"
    if action <= 6:
        return "declare a number"
    if action == 7:
        return "declare the arrow"
    return "direction"


def _lost_city_kind(state: Any, player: int, action: int) -> str:
    if action >= 63:
        return "draft pick"
    if action <= 24:
        if action == 12:
            return "stay"
        me = state.acting()
        others = [q for q in range(state.n) if q != me and state.hp[q] > 0]
        if not others:
            return "move"
        before = min(state.distance(me, q) for q in others)
        after_state = state.clone()
        after_state.apply_action(action)
        after = min(after_state.distance(me, q) for q in others)
        return "advance" if after < before else "retreat" if after > before else "move, same distance"
    if action <= 30:
        return "basic attack"
    if action <= 58:
        return "ability"
    return {59: "critical", 60: "+Damage card", 61: "+Health card", 62: "end step"}[action]


def _neighborhood_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.neighborhood.rules import D_VOTE, KILLER, WILD

    if action in (KILLER, WILD):
        name = "Killer" if action == KILLER else "Wild"
        return f"vote {name}" if state.decision_kind() == D_VOTE else f"choose {name}"
    if action < 225:
        return "square"
    if action < 233:
        return "direction"
    if action < 237:
        return "distance"
    if action < 242:
        return "player"
    if action < 244:
        return "card option"
    return "stop"


#: Every game's classifier: ``(state before, deciding seat, action) -> kind``.
KINDS: dict[str, Callable[[Any, int, int], str]] = {
    "sorry_v0": _sorry_kind,
    "gangsi_v0": _gangsi_kind,
    "lost_city_v0": _lost_city_kind,
    "neighborhood_v0": _neighborhood_kind,
}


class StrategyObserver:
    """Counts every seat's decisions with a choice by kind, and the events its moves cause.

    ``result()`` is ``{"strategy": [per seat: {"choices": n, "kinds": {kind: n}, "events": {...}}]}``.
    """

    def __init__(self, game: Game) -> None:
        if game.name not in KINDS:
            raise ValueError(f"no strategy figures for game {game.name!r}; games: {sorted(KINDS)}")
        self.game = game
        self.kind = KINDS[game.name]
        self.events = EVENTS[game.name]
        n = game.num_players
        self.seats: list[dict[str, Any]] = [
            {"choices": 0, "kinds": {}, "events": dict.fromkeys(self.events, 0)} for _ in range(n)
        ]
        self._pending: tuple[int, Any] | None = None

    def before(self, state: State, player: int, action: int) -> None:
        """Classify a decision with a choice; remember what the events are measured against."""
        self._pending = None
        if player < 0:
            return
        if len(state.legal_actions()) > 1:
            seat = self.seats[player]
            kind = self.kind(state, player, action)
            seat["choices"] += 1
            seat["kinds"][kind] = seat["kinds"].get(kind, 0) + 1
        if self.game.name == "sorry_v0":
            after, _slides = state.preview(action)  # type: ignore[attr-defined]
            self._count_bumps(state, player, after)
        elif self.game.name == "gangsi_v0":
            self._pending = (player, (list(state.revealed), state.tokens))  # type: ignore[attr-defined]

    def _count_bumps(self, state: Any, player: int, after: Sequence[int]) -> None:
        from boardenvs.sorry.board import START

        for index, (a, b) in enumerate(zip(state.pos, after, strict=True)):
            if b == START and a != START:
                owner = index // 3
                if owner != player:
                    self.seats[player]["events"]["bumps_made"] += 1
                self.seats[owner]["events"]["bumps_suffered"] += 1

    def after(self, state: State) -> None:
        """Gangsi: the treasures revealed and the catches the move caused."""
        if self._pending is None:
            return
        player, (revealed, tokens) = self._pending
        now = state.revealed  # type: ignore[attr-defined]
        self.seats[player]["events"]["reveals"] += sum(
            bin(b).count("1") - bin(a).count("1") for a, b in zip(revealed, now, strict=True)
        )
        self.seats[player]["events"]["catches"] += max(0, state.tokens - tokens)  # type: ignore[attr-defined]
        self._pending = None

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
    events = EVENTS.get(game_name, {})
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
