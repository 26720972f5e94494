"""The static description of a game: options, players, agent names, spaces and observation encoding.

A :class:`Game` is built once per environment with fixed options. It makes initial states and encodes
what a player observes of a state as a float32 tensor in ``[0, 1]``. Rules live in the game's
:class:`~boardenvs.core.state.State`; the one PettingZoo adapter (:mod:`boardenvs.core.aec`) needs
nothing else from a game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from boardenvs.core.fields import Fields, StateDictError, show
from boardenvs.core.options import make_options, options_to_dict
from boardenvs.core.state import State

#: A place on a picture, ``(x0, y0, x1, y1)`` in pixels (:meth:`Game.action_places`).
Place = tuple[float, float, float, float]


class Game(ABC):
    """A game with fixed options; subclasses set ``name``, ``Options`` and ``state_class``."""

    #: Registered env name, e.g. ``"sorry_v0"``.
    name: ClassVar[str]
    #: Frozen dataclass of the game's options (every field has a default).
    Options: ClassVar[type]
    #: The rules state class.
    state_class: ClassVar[type[State]]

    def __init__(self, **options: Any) -> None:
        self.options = make_options(self.Options, options, where=f"{self.name}: ")

    # -- players ----------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        """Number of players (agents) in a game with these options: its ``num_players`` option."""
        return self.options.num_players

    @property
    def agents(self) -> list[str]:
        """Agent names by player id (``player_0`` ... unless a game names its roles)."""
        return [f"player_{i}" for i in range(self.num_players)]

    # -- spaces -----------------------------------------------------------------------------------
    @abstractmethod
    def num_actions(self, player: int) -> int:
        """Size of ``player``'s ``Discrete`` action space."""

    @abstractmethod
    def observation_shape(self, player: int) -> tuple[int, ...]:
        """Shape of ``player``'s observation tensor (values in ``[0, 1]``)."""

    # -- states -----------------------------------------------------------------------------------
    @abstractmethod
    def new_initial_state(self) -> State:
        """The position before the first chance event or move."""

    def state_from_dict(self, data: dict[str, Any]) -> State:
        """Rebuild a state of this game from :meth:`State.to_dict` output, checking it belongs here.

        Raises:
            StateDictError: (a ``ValueError``) for a dict of another game or of other options, or with a
                missing, unknown or bad field; the one-line message names the field.
        """
        f = Fields(data, f"{self.name} state")
        game = f.get("game")
        f.check(game == self.name, "game", f"= {show(game)} is not {self.name!r}")
        state = self.state_class.from_dict(data)  # the game's own checks of every field
        # Compared as built (the options' own normalisation, e.g. Lost City's spawns beyond the count).
        options = options_to_dict(state.options)  # type: ignore[attr-defined]
        if options != options_to_dict(self.options):
            raise StateDictError(
                f"{self.name} state: made with options {options}, this game has "
                f"{options_to_dict(self.options)}"
            )
        return state

    # -- encoding ---------------------------------------------------------------------------------
    @abstractmethod
    def observe(self, state: State, player: int) -> np.ndarray:
        """What ``player`` observes of ``state``, as float32 in ``[0, 1]``; never changes ``state``."""

    # -- pictures -----------------------------------------------------------------------------------
    def draw(self, state: State, view: int | None = None) -> Any:
        """A picture of ``state`` as a ``PIL.Image.Image`` (needs Pillow: ``boardenvs[render]``).

        ``view=None`` shows everything (a spectator); a player id shows only what that player may
        know. Games implement this in their ``draw.py`` module.
        """
        raise NotImplementedError(f"{self.name} has no pictures")

    def action_places(self, state: State, view: int | None = None) -> dict[int, Place]:
        """Where on :meth:`draw`'s picture the legal actions of the player to move have a place (a pawn
        to move, a square to go to): ``{action: (x0, y0, x1, y1)}`` in the picture's pixels, from
        ``view``'s picture. Actions without a place are left out; several actions may share one (a pawn
        that can go forward or back). Games without pictures, or without places, return ``{}`` (the
        default). Reads only what ``view``'s picture shows.
        """
        return {}

    def render_image(self, state: State, view: int | None = None) -> np.ndarray:
        """:meth:`draw` as an ``(H, W, 3) uint8`` array (the ``"rgb_array"`` render)."""
        from boardenvs.core.render import to_array

        if view is not None and not 0 <= view < self.num_players:
            raise ValueError(f"{self.name}: view must be None or a player id 0..{self.num_players - 1}")
        return to_array(self.draw(state, view))

    def action_mask(self, state: State, player: int) -> np.ndarray:
        """int8 mask of ``player``'s legal actions; all zeros unless ``player`` is to move."""
        mask = np.zeros(self.num_actions(player), dtype=np.int8)
        if state.current_player() == player:
            mask[list(state.legal_actions())] = 1
        return mask
