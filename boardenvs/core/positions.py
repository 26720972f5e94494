"""Seeded positions for pictures, docs and tests: a random game of any :class:`~boardenvs.core.game.Game`
played to a decision node.

The games' drawing modules (``boardenvs/<game>/draw.py``) take a game and a state and know nothing of
the game's env module; a picture of a mid-game position is made from any game object with
:func:`random_position`, e.g. ``random_position(make_game("gangsi_v0"), seed=3, decisions=140)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State

#: Chooses a decision's action: ``choose(state, legal_actions, rng) -> action``.
Chooser = Callable[[State, Sequence[int], np.random.Generator], int]


def uniform_choice(state: State, legal: Sequence[int], rng: np.random.Generator) -> int:
    """A legal action drawn uniformly with ``rng`` (the default :data:`Chooser`)."""
    return int(legal[int(rng.integers(len(legal)))])


def random_position(
    game: Game,
    seed: int = 0,
    decisions: int | None = None,
    *,
    until: Callable[[State], bool] | None = None,
    choose: Chooser | None = None,
) -> State:
    """The position of a seeded random game of ``game``, stopped at a decision node.

    Chance is resolved with ``state.sample_chance(rng)`` and decisions are drawn with ``choose``
    (uniform by default), all from one ``numpy.random.default_rng(seed)``, so a seed always gives the
    same position. The game stops at the first decision node where ``decisions`` decisions have been
    made or ``until(state)`` holds, whichever comes first, or at its end if it finishes before. With
    neither, the game is played to its end.

    Args:
        game: the game (any :class:`~boardenvs.core.game.Game`; its options are the game's).
        seed: the seed of the chance outcomes and the choices.
        decisions: stop after this many decisions (``None``: no count).
        until: stop at the first decision node for which this returns true.
        choose: the choice at a decision node, ``choose(state, legal, rng)``.

    Raises:
        ValueError: for a negative ``decisions``.
    """
    if decisions is not None and decisions < 0:
        raise ValueError(f"decisions must be at least 0, got {decisions}")
    pick = choose or uniform_choice
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    made = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        if made == decisions or (until is not None and until(state)):
            break
        state.apply_action(pick(state, state.legal_actions(), rng))
        made += 1
    return state


__all__ = ["Chooser", "random_position", "uniform_choice"]
