"""The rules-state protocol shared by every game, in the OpenSpiel manner.

A :class:`State` is one node of a game tree. It knows whose move it is (a player id, :data:`CHANCE` or
:data:`TERMINAL`), the legal actions of that player, the chance outcomes and their probabilities when
nature moves, and how to apply either. It never draws random numbers itself: whoever drives it (the
PettingZoo adapter, a search agent, a test) samples chance outcomes with its own generator, so the
same state can be replayed, searched or enumerated.

States are small, cheap to :meth:`State.clone`, and round-trip through a JSON-able dict
(:meth:`State.to_dict` / :meth:`State.from_dict`) that restores the exact position.

Only numpy and the standard library may be imported by a rules core.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

#: ``current_player()`` of a node where nature moves (a die, a card draw, a shuffle).
CHANCE = -1
#: ``current_player()`` of a finished game (ended or truncated).
TERMINAL = -2

S = TypeVar("S", bound="State")


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


class State(ABC):
    """One position of a game: the protocol every game's rules implement.

    Subclasses implement the abstract methods; everything else has a default in terms of them.
    Player ids are ``0 .. num_players - 1``; actions and chance outcomes are non-negative ints.
    """

    __slots__ = ()

    #: Registered env name of the game this state belongs to (e.g. ``"sorry_v0"``).
    game_name: ClassVar[str] = ""

    # -- whose move -------------------------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The player to decide, or :data:`CHANCE`, or :data:`TERMINAL`."""

    def is_terminal(self) -> bool:
        """True once the game has ended or been truncated."""
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        """True when nature moves next."""
        return self.current_player() == CHANCE

    def is_truncated(self) -> bool:
        """True when the game was stopped by a cap (e.g. ``max_turns``) rather than won or drawn."""
        return False

    def is_out(self, player: int) -> bool:
        """True when ``player`` has left a game that goes on (eliminated); its return is then final."""
        return False

    # -- decisions --------------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> Sequence[int]:
        """Legal actions of the current player, ascending; empty at chance and terminal nodes.

        A player to move always has at least one legal action (an explicit pass where the rules
        force one), never an empty list. The sequence may be cached by the state and shared with
        its clones: treat it as read-only (copy it before shuffling or editing).
        """

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a decision or a chance outcome in place.

        Raises:
            IllegalActionError: if ``action`` is not legal here.
        """

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; empty elsewhere."""
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Draw one chance outcome with ``rng`` (games may override with a faster exact sampler)."""
        outcomes = self.chance_outcomes()
        u = rng.random()
        acc = 0.0
        for outcome, prob in outcomes:
            acc += prob
            if u < acc:
                return outcome
        return outcomes[-1][0]

    # -- results ----------------------------------------------------------------------------------
    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's return: final at a terminal node (and for players that are out), else 0."""

    # -- copying and serialising ------------------------------------------------------------------
    @abstractmethod
    def clone(self: S) -> S:
        """An independent copy; applying actions to it leaves ``self`` unchanged."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict from which :meth:`from_dict` restores this exact position."""

    @classmethod
    @abstractmethod
    def from_dict(cls: type[S], data: dict[str, Any]) -> S:
        """Rebuild a state written by :meth:`to_dict`, checking every field against the options (the
        game's table of :class:`~boardenvs.core.fields.Spec`, read with
        :class:`~boardenvs.core.fields.Fields`).

        Raises:
            StateDictError: (a ``ValueError``) for a missing or unknown key, a value of the wrong type
                or out of its range, or fields that make no position together; one line naming the
                field, e.g. ``lost_city_v0 state: hp[2] = 999 is outside 0..250 (Rob's starting HP)``.
        """

    # -- hidden information -----------------------------------------------------------------------
    def determinize(self: S, player: int, rng: np.random.Generator) -> S:
        """A full state consistent with what ``player`` may know, hidden parts sampled with ``rng``.

        Games whose states hold hidden information (cards in other hands, positions hidden from a
        role) override this; the result must not depend on anything ``player`` may not know. States
        whose only secret is the order of unseen cards (kept as an unordered multiset, drawn at
        chance nodes) need nothing more than a clone.
        """
        return self.clone()

    # -- text -------------------------------------------------------------------------------------
    def action_to_string(self, action: int, view: int | None = None) -> str:
        """Human-readable description of ``action`` (a decision or a chance outcome) in this state.

        ``view=None`` describes it in full; a player id describes only what that player may know of
        it (a game with hidden moves says e.g. "moves (direction hidden)" to the others).
        """
        return str(action)

    def render_text(self, view: int | None = None) -> str:
        """A multi-line picture of the position (the env's ``"ansi"`` render).

        ``view=None`` shows everything (a spectator); a player id shows only what that player may
        know (the same information as its observation). Games without private information ignore it.
        """
        return repr(self)


def play_chance(state: State, rng: np.random.Generator) -> None:
    """Resolve chance nodes with ``rng`` until a player must decide or the game is over."""
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
