"""What the balance tool records of each game: :class:`BalanceObserver`, one subclass per game.

A :class:`BalanceObserver` watches one game (:class:`boardenvs_agents.arena.match.GameObserver`): it
sees every action with the state before it (:meth:`~BalanceObserver.before`) and after it
(:meth:`~BalanceObserver.after`), and at the end sums the game up as a JSON-able dict (the result's
``stats``): whether a rules cap ended it, its length in rounds, the role of every seat, and the game's
own figures (bumps, catches, eliminations, ...). Each game's subclass lives in its own module of this
package (``sorry.py``, ``gangsi.py``, ``neighborhood.py``, ``lost_city.py``) and also says what the
tool needs to know about the game: its player counts, whether its roles are asymmetric sides, how a
cap counts, and its own balance targets (its rules file's; the README's shared ones are in
:mod:`boardenvs_agents.arena.balance.stats`).

Observers read the rules states through their public attributes and compare consecutive states, so
the rules need no counters of their own.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from boardenvs.core.game import Game
from boardenvs.core.state import State

if TYPE_CHECKING:
    from boardenvs_agents.arena.balance.stats import SettingReport, Target

#: The module of every game's observer, by registered env name.
OBSERVER_MODULES = {
    "sorry_v0": "boardenvs_agents.arena.balance.sorry",
    "gangsi_v0": "boardenvs_agents.arena.balance.gangsi",
    "neighborhood_v0": "boardenvs_agents.arena.balance.neighborhood",
    "lost_city_v0": "boardenvs_agents.arena.balance.lost_city",
}


class BalanceObserver:
    """Records one game for the balance tool; subclass per game (see the module docstring).

    Subclasses set the class attributes, implement :meth:`rounds`, and count their :attr:`figures`
    in :attr:`counts` (from :meth:`before` / :meth:`after`) or return them from :meth:`final_figures`.
    """

    #: Player counts measured when the command line names none (the counts the game supports).
    player_counts: ClassVar[tuple[int, ...]] = ()
    #: The game's own per-game figures: key -> what it counts (in print order).
    figures: ClassVar[dict[str, str]] = {}
    #: True when the seats play different sides (a role per seat), so each side's win rate, heuristic
    #: against heuristic, is a target (README: 0.35 to 0.65), and the heuristic's even share against
    #: random players is measured with random players in every seat.
    asymmetric: ClassVar[bool] = False
    #: True when a game that a cap ends still ends by the rules (Gangsi's K26: the Kyonshi's win).
    cap_is_rule: ClassVar[bool] = False
    #: How the game's cap is named in the report.
    cap_name: ClassVar[str] = "cap"

    def __init__(self, game: Game) -> None:
        self.game = game
        #: The figures counted move by move (keys of :attr:`figures`).
        self.counts: dict[str, float] = dict.fromkeys(self.figures, 0)

    # -- move by move (a GameObserver) ------------------------------------------------------------
    def before(self, state: State, player: int, action: int) -> None:
        """Called before ``player`` (or CHANCE) applies ``action``; nothing by default."""

    def after(self, state: State) -> None:
        """Called once the action is applied; nothing by default."""

    def result(self, state: State) -> dict[str, Any]:
        """The game's summary: ``capped``, ``rounds``, ``roles`` (or None) and ``figures``."""
        return {
            "capped": bool(self.capped(state)),
            "rounds": int(self.rounds(state)),
            "roles": self.roles(state),
            "figures": {**self.counts, **self.final_figures(state)},
        }

    # -- the finished game ------------------------------------------------------------------------
    def rounds(self, state: State) -> int:
        """Length of the finished game in rounds (every living player's turn once)."""
        raise NotImplementedError

    def capped(self, state: State) -> bool:
        """True when a rules cap (not the rules' own end) ended the finished game."""
        return False

    def roles(self, state: State) -> list[str] | None:
        """The role (character, side) of every seat, or None for a game without roles."""
        return None

    def final_figures(self, state: State) -> dict[str, float]:
        """Figures read from the terminal state (added to :attr:`counts`)."""
        return {}

    # -- what the tool needs to know about the game -----------------------------------------------
    @classmethod
    def describe(cls, num_players: int) -> str:
        """How a player count is named in the report (``"4 players"``)."""
        return f"{num_players} players"

    @classmethod
    def derived(cls, totals: Mapping[str, float], games: int) -> dict[str, float]:
        """Figures derived from the totals of :attr:`figures` over ``games`` games (e.g. a share)."""
        return {}

    @classmethod
    def round_robin(cls, num_players: int, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Option sets (one per role assignment) for a round robin of roles, or [] for none."""
        return []

    @classmethod
    def targets(cls, setting: SettingReport) -> list[Target]:
        """The game's own balance targets (its rules file), checked on one player count's figures."""
        return []


def observer_class(game_name: str) -> type[BalanceObserver]:
    """The :class:`BalanceObserver` subclass of ``game_name``.

    Raises:
        ValueError: for a game without one, naming the games that have one.
    """
    if game_name not in OBSERVER_MODULES:
        raise ValueError(f"no balance figures for game {game_name!r}; games: {sorted(OBSERVER_MODULES)}")
    return importlib.import_module(OBSERVER_MODULES[game_name]).Observer
