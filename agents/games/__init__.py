"""Everything an agent knows about each game, one module per game.

``agents/games/<game>.py`` holds the game's hand-written heuristic (a :class:`~boardenvs_agents.base.Policy`)
and ``progress(state)``: every player's distance to winning as a fraction in ``[0, 1]``, read off the
rules state. Search scores a rollout cut off by its depth with :func:`leaf_values`, built on it:

* ``sorry_v0``: pawn progress, the forward steps made from Start towards Home over the three pawns
  (S2-S5: 60 track squares, 5 safety squares, Home);
* ``gangsi_v0``: a hunter, its treasures revealed out of five (K20), plus up to half a treasure for
  being few hunter moves from the nearest treasure it still has to reveal; the Kyonshi, its life tokens
  out of the end table's threshold combined with the share of ``max_rounds`` played (K26);
* ``lost_city_v0``: HP over the character's starting HP (T26: last character standing);
* ``neighborhood_v0``: HP over 10 (L21: last player with HP).

A player's leaf value is ``SCALE * (own fraction - best fraction among the others)``, so it lies in
``[-SCALE, SCALE]`` (``SCALE = 0.5``: a finished game's +1/-1 always weighs more); a player who is out
(``state.is_out``) keeps its final return. Values read only the (determinized) state given.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from boardenvs.core.state import State
from boardenvs_agents.base import Policy

#: Env name -> (module under ``boardenvs_agents.games``, its heuristic class).
GAMES: dict[str, tuple[str, str]] = {
    "sorry_v0": ("sorry", "SorryHeuristic"),
    "gangsi_v0": ("gangsi", "GangsiHeuristic"),
    "lost_city_v0": ("lost_city", "LostCityHeuristic"),
    "neighborhood_v0": ("neighborhood", "NeighborhoodHeuristic"),
}

#: Leaf values are ``SCALE * (own - best other)``.
SCALE = 0.5


def game_module(game_name: str) -> ModuleType:
    """The module of ``agents/games/`` for env ``game_name``.

    Raises:
        ValueError: for a game this package knows nothing about.
    """
    if game_name not in GAMES:
        raise ValueError(f"no agent knowledge for game {game_name!r}; games with some: {sorted(GAMES)}")
    return importlib.import_module(f"{__name__}.{GAMES[game_name][0]}")


def heuristic_class(game_name: str) -> type:
    """The hand-written heuristic policy class of ``game_name``."""
    return getattr(game_module(game_name), GAMES[game_name][1])


def progress_function(game_name: str) -> Callable[[State], list[float]]:
    """``progress(state)`` of ``game_name``: every player's fraction of the way to winning."""
    return game_module(game_name).progress


def leaf_values(state: State) -> list[float]:
    """Every player's value of the unfinished ``state`` in ``[-SCALE, SCALE]`` (final returns if out).

    Raises:
        ValueError: for a game without a leaf evaluation.
    """
    progress = progress_function(state.game_name)
    if state.is_terminal():
        return [float(r) for r in state.returns()]
    fractions = progress(state)
    returns = state.returns()
    out = []
    for p, own in enumerate(fractions):
        if state.is_out(p):
            out.append(float(returns[p]))
            continue
        others = [x for q, x in enumerate(fractions) if q != p and not state.is_out(q)]
        out.append(SCALE * (own - max(others)) if others else 0.0)
    return out


def make_heuristic(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **kwargs: Any
) -> Policy:
    """The factory of the ``heuristic`` spec (entry point ``boardenvs_agents.agents``): the game's
    hand-written heuristic with ``kwargs`` as its options (``heuristic:depth=1``).

    Raises:
        ValueError: for a game without one, or options its heuristic does not take.
    """
    cls = heuristic_class(game_name)
    try:
        return cls(seed=seed, **kwargs)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(kwargs)} for the {game_name} heuristic: {err}") from err


__all__ = [
    "GAMES",
    "SCALE",
    "game_module",
    "heuristic_class",
    "leaf_values",
    "make_heuristic",
    "progress_function",
]
