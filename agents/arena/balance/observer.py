"""What the balance tool records of each game: :class:`BalanceObserver`, reading the game's record.

A :class:`BalanceObserver` watches one game (:class:`boardenvs_agents.arena.match.GameObserver`): it
sees every action with the state before it (:meth:`~BalanceObserver.before`) and after it
(:meth:`~BalanceObserver.after`), and at the end sums the game up as a JSON-able dict (the result's
``stats``): whether a rules cap ended it, its length in rounds, the role of every seat, and the game's
own figures (bumps, catches, eliminations, ...).

What the tool knows of a game is the balance part of the game's record
(:class:`~boardenvs_agents.games.record.BalanceRecord`, :func:`balance_of`): its player counts, its
figures (totals of the events the record's one event counter counts, the counter the strategy page
reads too), whether its roles are asymmetric sides, how a cap counts, how long a game was, and its own
balance targets (its rules file's; the README's shared ones are in
:mod:`boardenvs_agents.arena.balance.stats`). A game without a record, or whose record has no balance
part, gets :func:`generic_balance`: no figures or targets of its own, its default player count, and
rounds counted from the moves.

Observers read the rules states through their public attributes and compare consecutive states, so
the rules need no counters of their own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs.registry import make_game
from boardenvs_agents.games import find_record
from boardenvs_agents.games.record import BalanceRecord, Events


@functools.cache
def generic_balance(game_name: str) -> BalanceRecord:
    """The balance part of a game without one: the game's default player count, no figures or targets
    of its own, rounds counted from the moves (:attr:`BalanceRecord.rounds` ``None``)."""
    return BalanceRecord(player_counts=(make_game(game_name).num_players,))


def balance_of(game_name: str) -> BalanceRecord:
    """The balance part of ``game_name``'s record, or :func:`generic_balance` for a game without one.

    Raises:
        ValueError: for an unknown game (naming the registered ones).
    """
    record = find_record(game_name)
    if record is not None and record.balance is not None:
        return record.balance
    return generic_balance(game_name)


class BalanceObserver:
    """Records one game for the balance tool, as the game's :func:`balance_of` says (module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.balance = balance_of(game.name)
        record = find_record(game.name)
        self._counter = record.events if record is not None and self.balance.figures else None
        #: The game's figures counted so far (keys of the balance part's ``figures``).
        self.counts: dict[str, float] = dict.fromkeys(self.balance.figures, 0)
        self._figure_of = {self.balance.event_of(f): f for f in self.balance.figures}
        self._measure: Callable[[Any], Events] | None = None
        self._last_seat = -1
        self._rounds = 1

    # -- move by move (a GameObserver) ------------------------------------------------------------
    def before(self, state: State, player: int, action: int) -> None:
        """Called before ``player`` (or CHANCE) applies ``action``: a new round when the deciding seat
        is lower than the one before; the events of the action are measured against ``state``."""
        if player >= 0 and self.balance.rounds is None:
            if player < self._last_seat:
                self._rounds += 1
            self._last_seat = player
        self._measure = self._counter(state, player, action) if self._counter is not None else None

    def after(self, state: State) -> None:
        """Called once the action is applied: count its events that make a figure."""
        if self._measure is not None:
            for _seat, event, count in self._measure(state):
                figure = self._figure_of.get(event)
                if figure is not None:
                    self.counts[figure] += count
        self._measure = None

    def result(self, state: State) -> dict[str, Any]:
        """The game's summary: ``capped``, ``rounds``, ``roles`` (or None) and ``figures``."""
        rounds = self.balance.rounds(state) if self.balance.rounds is not None else self._rounds
        return {
            "capped": bool(self.balance.capped(state)),
            "rounds": int(rounds),
            "roles": self.balance.roles(state),
            "figures": dict(self.counts),
        }
