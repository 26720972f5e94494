"""Leaf values for search: a cheap per-player score of an unfinished position, for every game.

:class:`agents.mcts.MCTSPolicy` with ``leaf="eval"`` scores a rollout cut off by its ``depth`` with
:func:`leaf_values` instead of 0 (a draw). Each game has one readable measure of how far each player
is from winning, as a fraction in ``[0, 1]``:

* ``sorry_v0``: pawn progress, the forward steps made from Start towards Home over the three pawns
  (S2-S5: 60 track squares, 5 safety squares, Home);
* ``gangsi_v0``: a hunter, its treasures revealed out of five (K20), plus up to half a treasure for
  being few hunter moves from the nearest treasure it still has to reveal; the Kyonshi, its life tokens out
  of the end table's threshold combined with the share of ``max_rounds`` played (K26: the cap is its
  win with the default ``round_cap``);
* ``lost_city_v0``: HP over the character's starting HP (T26: last character standing);
* ``neighborhood_v0``: HP over 10 (L21: last player with HP).

A player's value is ``scale * (own fraction - best fraction among the others)``, so it lies in
``[-scale, scale]`` (``scale = 0.5``: a finished game's +1/-1 always weighs more); a player who is out
(``state.is_out``) keeps its final return. Values read only the (determinized) state given.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from boardenvs.core.state import State

#: Leaf values are ``SCALE * (own - best other)``.
SCALE = 0.5


@lru_cache(maxsize=16)
def _sorry_progress(color: int, exit_count: int) -> tuple[float, ...]:
    """Progress fraction of a pawn of ``color`` at every position (track, safety, Home, Start)."""
    from boardenvs.sorry import board
    from boardenvs.sorry.board import HOME, START, TRACK_LEN

    entry = board.safety_entry(color)
    to_home = [(entry - t) % TRACK_LEN + board.SAFE_LEN + 1 for t in range(TRACK_LEN)]
    to_home += [HOME - p for p in range(TRACK_LEN, HOME + 1)]
    to_home.append(to_home[board.start_exit(color)] + exit_count)
    full = to_home[START]
    return tuple((full - s) / full for s in to_home)


def _sorry(state: State) -> list[float]:
    from boardenvs.sorry.rules import PAWNS

    exit_count = state.options.start_count_exit_as
    out = []
    for p, color in enumerate(state.colors):
        table = _sorry_progress(color, exit_count)
        out.append(sum(table[at] for at in state.pos[PAWNS * p : PAWNS * p + PAWNS]) / PAWNS)
    return out


def _gangsi(state: State) -> list[float]:
    from agents.heuristic.gangsi import hunter_move_distance
    from boardenvs.gangsi.cards import HAND_SIZE
    from boardenvs.gangsi.rules import _bits

    num = state.options.num_players
    maze = state.maze
    moves = hunter_move_distance(maze, state.options.hunter_turns)
    time_share = state.round / state.options.max_rounds
    tokens = min(1.0, state.tokens / state.threshold)
    out = [1.0 - (1.0 - tokens) * (1.0 - time_share)]
    for p in range(1, num):
        best = 0.0
        for piece in state.pieces_of(p):
            if state.lives[piece] == 0:
                continue
            revealed = bin(state.revealed[piece]).count("1")
            missing = state.hand[piece] & ~state.revealed[piece]
            near = min(
                (moves[state.pos[piece]][maze.treasure_cell[t]] for t in _bits(missing)),
                default=0,
            )
            # Half a treasure for standing next to the next one, less the more hunter moves away (K10-K12).
            best = max(best, (revealed + 0.5 / (1 + near)) / HAND_SIZE)
        out.append(best)
    return out


def _lost_city(state: State) -> list[float]:
    from boardenvs.lost_city.characters import MAX_HP

    if len(state.char) < state.n:
        return [1.0] * state.n  # characters not drawn yet
    return [state.hp[p] / MAX_HP[state.char[p]] for p in range(state.n)]


def _neighborhood(state: State) -> list[float]:
    from boardenvs.neighborhood.rules import MAX_HP

    return [state.hp[p] / MAX_HP if state.alive[p] else 0.0 for p in range(state.n)]


#: Progress fraction of every player, by game.
PROGRESS: dict[str, Callable[[State], list[float]]] = {
    "sorry_v0": _sorry,
    "gangsi_v0": _gangsi,
    "lost_city_v0": _lost_city,
    "neighborhood_v0": _neighborhood,
}


def leaf_values(state: State) -> list[float]:
    """Every player's value of the unfinished ``state`` in ``[-SCALE, SCALE]`` (final returns if out).

    Raises:
        ValueError: for a game without a leaf evaluation.
    """
    fn = PROGRESS.get(state.game_name)
    if fn is None:
        known = sorted(PROGRESS)
        raise ValueError(f"no leaf evaluation for game {state.game_name!r}; games with one: {known}")
    if state.is_terminal():
        return [float(r) for r in state.returns()]
    progress = fn(state)
    returns = state.returns()
    out = []
    for p, own in enumerate(progress):
        if state.is_out(p):
            out.append(float(returns[p]))
            continue
        others = [x for q, x in enumerate(progress) if q != p and not state.is_out(q)]
        out.append(SCALE * (own - max(others)) if others else 0.0)
    return out
