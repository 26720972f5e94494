"""The record of a game: everything the agents know about it beyond its rules, in one place.

A game's record is one :class:`GameRecord`, defined in its module (``agents/games/sorry.py``'s
``RECORD``) and published under the entry-point group ``boardenvs_agents.games`` (name: the env name,
value: ``"module:RECORD"``), where :mod:`boardenvs_agents.games` finds it. Every tool reads the record;
a game without one still gets every tool that needs only the rules (random players, MCTS with random
rollouts, the arena, the league's generic figures, the balance tool with random players, training),
and the tools that need a missing part say so, naming it.

Events (:data:`EventCounter`) are counted in one place per game, the record's ``events``, and read by
both pages: the league's strategy page (:mod:`boardenvs_agents.arena.strategy`) shows the events of
``strategy_events`` per seat, the balance tool (:mod:`boardenvs_agents.arena.balance`) sums those of
its ``figures`` over the seats, per game.

This module imports only the rules core, so a game's record (and its heuristic) sits below search,
learning and the arena.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardenvs.core.state import State
from boardenvs_agents.base import Policy

#: Events of one action: ``(seat, event key, count)`` triples. The seat is the player the event is
#: counted for (the mover, the owner of a pawn bumped, ...), or -1 for an event of the whole table (the
#: strategy page, which counts per seat, shows none of those).
Events = list[tuple[int, str, int]]
#: ``counter(state before, player, action) -> measure(state after) -> events``: called before every
#: action, chance outcomes (``player`` is CHANCE, -1) included; what it returns is called with the state
#: once the action is applied. It must not change either state.
EventCounter = Callable[[State, int, int], Callable[[State], Events]]


def no_events(_after: State) -> Events:
    """The measure of an action without events."""
    return []


# -- balance targets ------------------------------------------------------------------------------
#: The rules README's range for a side's (a role's) win rate, heuristic against heuristic.
ROLE_RANGE = (0.35, 0.65)


@dataclass(frozen=True)
class Target:
    """One balance target checked on one setting."""

    #: Where the target is written: ``"README"`` (the shared ones) or the game's rule id (``"K7"``).
    rule: str
    #: The target, in words (``"draws at most 5%"``).
    text: str
    #: The measured value, in words.
    measured: str
    ok: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-able."""
        return {"rule": self.rule, "text": self.text, "measured": self.measured, "ok": self.ok}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def at_most(rule: str, text: str, value: float, bound: float) -> Target:
    """A share that must be at most ``bound``."""
    return Target(rule, f"{text} at most {_pct(bound)}", _pct(value), value <= bound)


def at_least(rule: str, text: str, value: float, bound: float) -> Target:
    """A share that must be at least ``bound``."""
    return Target(rule, f"{text} at least {_pct(bound)}", _pct(value), value >= bound)


def within(rule: str, text: str, rate: Any, low: float, high: float) -> Target:
    """A win rate (the balance tool's ``Rate``: ``.rate``, ``.text()``) that must lie in ``[low, high]``."""
    return Target(rule, f"{text} in {low:.2f}-{high:.2f}", rate.text(), low <= rate.rate <= high)


# -- the balance page's part ----------------------------------------------------------------------
def _not_capped(state: State) -> bool:
    return False


def _no_roles(state: State) -> list[str] | None:
    return None


def _players(num_players: int) -> str:
    return f"{num_players} players"


def _nothing_derived(totals: Mapping[str, float], games: int) -> dict[str, float]:
    return {}


def _no_round_robin(num_players: int, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    return []


def _no_targets(setting: Any) -> list[Target]:
    return []


@dataclass(frozen=True)
class BalanceRecord:
    """What the balance tool needs to know about a game (every field but ``player_counts`` optional)."""

    #: Player counts measured when the command line names none (the counts the game supports).
    player_counts: tuple[int, ...]
    #: The game's own per-game figures, key -> what it counts, in print order: each the total over the
    #: seats (and the table) of the record's event of that key, or of the key :attr:`figure_events` names.
    figures: Mapping[str, str] = field(default_factory=dict)
    #: Figure key -> event key, for a figure that totals an event of another name.
    figure_events: Mapping[str, str] = field(default_factory=dict)
    #: Length of the finished game in rounds (every living player's turn once); ``None``: counted from
    #: the moves, one more round each time the deciding seat is lower than the one before.
    rounds: Callable[[State], int] | None = None
    #: True when a rules cap (not the rules' own end) ended the finished game.
    capped: Callable[[State], bool] = _not_capped
    #: The role (character, side) of every seat, or None for a game without roles.
    roles: Callable[[State], list[str] | None] = _no_roles
    #: True when the seats play different sides (a role per seat), so each side's win rate, heuristic
    #: against heuristic, is a target (README: 0.35 to 0.65), and the heuristic's even share against
    #: random players is measured with random players in every seat.
    asymmetric: bool = False
    #: True when a game that a cap ends still ends by the rules (Gangsi's K26: the Kyonshi's win).
    cap_is_rule: bool = False
    #: How the game's cap is named in the report.
    cap_name: str = "cap"
    #: How a player count is named in the report (``"4 players"``).
    describe: Callable[[int], str] = _players
    #: Figures derived from the totals of :attr:`figures` over ``games`` games (e.g. a share).
    derived: Callable[[Mapping[str, float], int], dict[str, float]] = _nothing_derived
    #: Option sets (one per role assignment) for a round robin of roles, or [] for none.
    round_robin: Callable[[int, Mapping[str, Any]], list[dict[str, Any]]] = _no_round_robin
    #: The game's own balance targets (its rules file), checked on one player count's figures (a
    #: ``SettingReport`` of :mod:`boardenvs_agents.arena.balance.stats`).
    targets: Callable[[Any], list[Target]] = _no_targets

    def event_of(self, figure: str) -> str:
        """The event key a figure totals."""
        return self.figure_events.get(figure, figure)


# -- the record -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameRecord:
    """Everything the agents know about one game beyond its rules (every field but ``game`` optional;
    a tool that needs a missing one says so).

    Published under the entry-point group ``boardenvs_agents.games`` with the env name as the name.
    """

    #: The env name (``"sorry_v0"``), the name of the game's entry points.
    game: str
    #: The hand-written heuristic, a :class:`~boardenvs_agents.base.Policy` class taking ``seed`` and
    #: keyword options (the ``heuristic`` spec, ``heuristic:key=value``).
    heuristic: type[Policy] | None = None
    #: ``progress(state)``: every player's fraction of the way to winning, in ``[0, 1]`` (search's
    #: ``leaf=eval``, :func:`boardenvs_agents.games.leaf_values`).
    progress: Callable[[State], list[float]] | None = None
    #: ``kind(state before, deciding seat, action)``: the kind of a decision with a choice, for the
    #: strategy page (without it the page counts the decisions with a choice only).
    kind: Callable[[State, int, int], str] | None = None
    #: The one counter of the game's events (:data:`EventCounter`), read by both pages.
    events: EventCounter | None = None
    #: Events the strategy page shows per seat: event key -> label (``"bumps made"``).
    strategy_events: Mapping[str, str] = field(default_factory=dict)
    #: The balance tool's part; without it the tool measures the generic figures only.
    balance: BalanceRecord | None = None
    #: The ``champion`` spec's recipe: agent specs in order of preference, the first that builds for
    #: the options asked is the champion (``agents/search/champion.py``); empty: no champion.
    champion: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        named = set(self.strategy_events)
        if self.balance is not None:
            named |= {self.balance.event_of(figure) for figure in self.balance.figures}
        if named and self.events is None:
            raise ValueError(f"the record of {self.game} names events {sorted(named)} but has no counter")
