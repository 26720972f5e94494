"""How agents play, not only how often they win: the kinds of decisions each seat makes, from the games.

A :class:`StrategyObserver` watches a game (:class:`~boardenvs_agents.arena.match.GameObserver`) and
counts, for every seat, its decisions with a choice (more than one legal action) by kind, and the
events its moves cause; the league (:mod:`boardenvs_agents.arena.league`) stores the counts with
each game and tabulates them per agent (:func:`strategy_table`), so a user can see what a learned
strategy does differently from the heuristic. The kinds, by game (rule ids of ``docs/rules/``):

* ``sorry_v0``: forward moves (out of Start apart, S5), backward moves (S6, S17), 7 splits (S14), 11
  switches (S12), Sorry! cards (S15), passes (S13, S16); events: bumps made
  and bumps suffered (pawns sent to Start by a landing, a slide or a Sorry!, S9, S15).
* ``gangsi_v0``: hunters' re-rolls (K14), resets (K16), keeps, number and arrow declarations and
  directions (K10-K12); the Kyonshi's steps and stops (K17); events: treasures revealed (K20, K23),
  catches (K17, K18).
* ``lost_city_v0``: draft picks (T2), moves that advance (the nearest living opponent gets closer),
  retreat (it gets further) or keep the distance (T4, T5), stays, basic attacks, abilities (Double
  Hit and Jamie's copies counted in, T22), criticals (T17), +Damage and +Health cards (T11), ends of
  step.
* ``neighborhood_v0``: Killer or Wild card chosen (L14), votes for Killer or Wild (L17), card
  options (first/second), squares, directions, distances, players, stops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.arena.match import GameResult

#: A seat's event counts, as ``(seat, event, count)`` triples.
Events = list[tuple[int, str, int]]


def _sorry_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.sorry.board import START
    from boardenvs.sorry.rules import BACKWARD_ACTION, PASS, PAWNS, SORRY_ACTION, SPLIT, SWITCH

    if action < BACKWARD_ACTION:  # S5, S6: a pawn in Start moves out of it
        return "out of Start" if state.pos[PAWNS * player + action] == START else "forward"
    if action < SPLIT:  # the 4 and the 10's backward 1: never out of Start (S6), S17
        return "backward"
    if action < SWITCH:  # S14
        return "7 split"
    if action < SORRY_ACTION:  # S12
        return "11 switch"
    if action < PASS:  # S15
        return "Sorry! card"
    return "pass"  # only when nothing else is legal (S16), or beside the switches of an 11 (S13)


def _sorry_events(state: Any, player: int, action: int) -> Callable[[Any], Events]:
    """Bumps (S9, S15): pawns the move sends to Start, made by the mover (its own pawns on a slide
    excepted) and suffered by their owners; read from the move's preview."""
    from boardenvs.sorry.board import START
    from boardenvs.sorry.rules import PAWNS

    after, _slides = state.preview(action)
    out: Events = []
    for index, (a, b) in enumerate(zip(state.pos, after, strict=True)):
        if b == START and a != START:
            owner = index // PAWNS
            if owner != player:
                out.append((player, "bumps_made", 1))
            out.append((owner, "bumps_suffered", 1))
    return lambda _after: out


def _gangsi_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.gangsi.rules import ARROW_ACTION, DIR, FACE, KEEP, KYONSHI, REROLL, RESET, STOP

    if player == KYONSHI:  # K17
        return "Kyonshi: stop" if action == STOP else "Kyonshi: step"
    names = {KEEP: "keep", RESET: "reset", REROLL: "re-roll", ARROW_ACTION: "declare the arrow"}  # K14-K16
    if action in names:
        return names[action]
    return "declare a number" if FACE <= action < DIR else "direction"  # K10-K12


def _gangsi_events(state: Any, player: int, action: int) -> Callable[[Any], Events]:
    """Treasures revealed (K20, K23) and life tokens taken (catches, K17, K18) by the move."""
    revealed, tokens = list(state.revealed), state.tokens

    def measure(after: Any) -> Events:
        pairs = zip(revealed, after.revealed, strict=True)
        reveals = sum(bin(b).count("1") - bin(a).count("1") for a, b in pairs)
        return [(player, "reveals", reveals), (player, "catches", max(0, after.tokens - tokens))]

    return measure


def _lost_city_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.lost_city import rules as lc

    if action >= lc.PICK:  # T2
        return "draft pick"
    if action == lc.STAY:
        return "stay"
    if action < lc.ATTACK:  # T5: a move, told by the distance to the nearest living opponent (T4)
        me = state.acting()
        others = [q for q in range(state.n) if q != me and state.hp[q] > 0]
        if not others:
            return "move"
        child = state.clone()
        child.apply_action(action)
        before = min(state.distance(me, q) for q in others)
        after = min(child.distance(me, q) for q in others)
        return "advance" if after < before else "retreat" if after > before else "move, same distance"
    if action < lc.ABILITY:  # T4
        return "basic attack"
    if action < lc.CRITICAL:  # Double Hit and Jamie's copies counted in (T17, T22)
        return "ability"
    return {
        lc.CRITICAL: "critical",
        lc.PLAY_DAMAGE: "+Damage card",
        lc.PLAY_HEALTH: "+Health card",
        lc.END: "end step",
    }[action]  # T17 (Aaron's Critical), T11 (the good cards)


def _neighborhood_kind(state: Any, player: int, action: int) -> str:
    from boardenvs.neighborhood.rules import D_VOTE, DIR, DIST, KILLER, OPTION_A, PLAYER, STOP, WILD

    if action in (KILLER, WILD):  # L14 (a choice), L17 (a vote)
        name = "Killer" if action == KILLER else "Wild"
        return f"vote {name}" if state.decision_kind() == D_VOTE else f"choose {name}"
    for first, kind in ((STOP, "stop"), (OPTION_A, "card option"), (PLAYER, "player"), (DIST, "distance"),
                        (DIR, "direction")):  # fmt: skip
        if action >= first:
            return kind
    return "square"


#: Every game's classifier: ``(state before, deciding seat, action) -> kind``.
KINDS: dict[str, Callable[[Any, int, int], str]] = {
    "sorry_v0": _sorry_kind,
    "gangsi_v0": _gangsi_kind,
    "lost_city_v0": _lost_city_kind,
    "neighborhood_v0": _neighborhood_kind,
}
#: Events counted per seat, by game: key -> label in the table.
EVENTS: dict[str, dict[str, str]] = {
    "sorry_v0": {"bumps_made": "bumps made", "bumps_suffered": "bumps suffered"},
    "gangsi_v0": {"reveals": "treasures revealed", "catches": "catches"},
}
#: Every game's event counter: ``(state before, seat, action) -> measure(state after) -> events``.
EVENT_COUNTERS: dict[str, Callable[[Any, int, int], Callable[[Any], Events]]] = {
    "sorry_v0": _sorry_events,
    "gangsi_v0": _gangsi_events,
}


class StrategyObserver:
    """Counts every seat's decisions with a choice by kind, and the events its moves cause.

    ``result()`` is ``{"strategy": [per seat: {"choices": n, "kinds": {kind: n}, "events": {...}}]}``.
    """

    def __init__(self, game: Game) -> None:
        if game.name not in KINDS:
            raise ValueError(f"no strategy figures for game {game.name!r}; games: {sorted(KINDS)}")
        self.kind = KINDS[game.name]
        self.counter = EVENT_COUNTERS.get(game.name)
        self.seats: list[dict[str, Any]] = [
            {"choices": 0, "kinds": {}, "events": dict.fromkeys(EVENTS.get(game.name, {}), 0)}
            for _ in range(game.num_players)
        ]
        self._measure: Callable[[Any], Events] | None = None

    def before(self, state: State, player: int, action: int) -> None:
        """Classify a decision with a choice; remember what the events are measured against."""
        self._measure = None
        if player < 0:
            return
        if len(state.legal_actions()) > 1:
            kinds = self.seats[player]["kinds"]
            kind = self.kind(state, player, action)
            self.seats[player]["choices"] += 1
            kinds[kind] = kinds.get(kind, 0) + 1
        if self.counter is not None:
            self._measure = self.counter(state, player, action)

    def after(self, state: State) -> None:
        """Count the events of the move just played."""
        if self._measure is not None:
            for seat, event, count in self._measure(state):
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
