"""What each role's choices lead to, computed from the rules: the observation's action features.

Both roles' observations end with a few numbers per action (``boardenvs/gangsi/env.py``, "Action
features"), read off what the acting agent may know (K9, K32): a network would otherwise have to find
them in the 11x11 planes, and they are exactly what the hand-written heuristic
(``agents/games/gangsi.py``) weighs. The tables here are shared with that heuristic and with search's
leaf values.

* **Hunters**, for each action of the acting piece: whether the move ends on a treasure it still
  needs (K20), the fewest hunter moves from where it ends to the nearest treasure it will still need
  (a move is a straight line of 1-4 squares or an arrow slide, K10-K12), and how many steps the
  Kyonshi stands from it (K17). A face is scored by its best destination, a direction by the square
  it ends on, a re-roll by the square the piece stands on (K14), a reset by whether the interrupt can
  reach a piece (K16, K31).
* **The Kyonshi**, for each step and for stopping: the public probability of a hunter on the square
  it steps onto, and the best probability it can cross on a path of up to five steps that starts
  that way (K17, K32), each hunter's probability spread evenly over its possibility set.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

import numpy as np

from boardenvs.gangsi.board import Maze
from boardenvs.gangsi.rules import (
    DIR,
    FACE,
    KEEP,
    NUM_HUNTER_ACTIONS,
    NUM_KYONSHI_ACTIONS,
    PH_CHOOSE,
    PH_DIR,
    PH_KY_MOVE,
    PH_RESET,
    REROLL,
    RESET,
    STOP,
    GangsiState,
    bits,
)

#: Hunter moves between squares no move sequence joins.
UNREACHABLE = 99
#: How far ahead (steps) the Kyonshi's path values look.
KYONSHI_DEPTH = 5
#: Numbers per hunter action: reveals, hunter moves to the next needed treasure / 10, Kyonshi steps / 20.
HUNTER_FEATURES = 3
#: Numbers per Kyonshi action: probability on the square stepped onto, best path probability / pieces.
KYONSHI_FEATURES = 2
#: More numbers per Kyonshi action with ranks: path value over the best choice's, 1 for the best choice.
KYONSHI_RANK_FEATURES = 2
#: Distances are divided by these and capped at 1.
MOVES_SCALE = 10.0
STEPS_SCALE = 20.0


@lru_cache(maxsize=8)
def hunter_move_distance(maze: Maze, turns: bool) -> tuple[tuple[int, ...], ...]:
    """``d[a][b]``: fewest hunter moves from square ``a`` to ``b`` on an empty maze (any face, K10-K12)."""
    size = maze.size
    succ: list[set[int]] = []
    for cell in range(size):
        out: set[int] = set()
        for d in range(4):
            cur = cell
            k = 0
            while True:
                nxt = maze.nbr[cur][d]
                if nxt < 0 or not maze.enterable[nxt]:
                    break
                cur = nxt
                k += 1
                if k <= 4:
                    out.add(cur)
            if cur != cell:
                out.add(cur)  # the arrow
        if turns:
            frontier = {(cell, 1 << cell)}
            for _ in range(4):
                nxt_frontier = set()
                for at, seen in frontier:
                    for nxt in maze.nbr[at]:
                        if nxt >= 0 and maze.enterable[nxt] and not seen >> nxt & 1:
                            nxt_frontier.add((nxt, seen | 1 << nxt))
                            out.add(nxt)
                frontier = nxt_frontier
        succ.append(out)
    table = []
    for start in range(size):
        dist = [UNREACHABLE] * size
        dist[start] = 0
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for nxt in succ[cur]:
                if dist[nxt] == UNREACHABLE:
                    dist[nxt] = dist[cur] + 1
                    queue.append(nxt)
        table.append(tuple(dist))
    return tuple(table)


@lru_cache(maxsize=8)
def proximity_kernel(maze: Maze) -> np.ndarray:
    """``K[a, b] = 0.5 ** steps(a, b)`` over the maze (0 when unreachable): the Kyonshi's pull."""
    dist = np.asarray(maze.dist, dtype=np.float64)
    return np.where(dist >= 0, 0.5**dist, 0.0)


@lru_cache(maxsize=8)
def _enterable(maze: Maze) -> np.ndarray:
    return np.asarray(maze.enterable, dtype=bool)


def hunter_probability(state: GangsiState) -> np.ndarray:
    """Per square, the public probability of a living hunter there: each piece's probability spread
    evenly over its possibility set (K32), summed over pieces."""
    maze = state.maze
    size = maze.size
    enterable = _enterable(maze)
    mass = np.zeros(size)
    for j in range(state.n):
        if state.lives[j] <= 0 or not state.maybe[j]:
            continue
        packed = np.frombuffer(state.maybe[j].to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
        cells = np.unpackbits(packed, count=size, bitorder="little").astype(bool) & enterable
        count = int(cells.sum())
        if count:
            mass[cells] += 1.0 / count
    return mass


def kyonshi_path_values(state: GangsiState, mass: np.ndarray) -> dict[int, float]:
    """For the Kyonshi's move (K17): ``{first step or STOP: value}``, the most probability ``mass``
    crossed on a path of up to ``KYONSHI_DEPTH`` steps (no square twice) starting with that step,
    plus 0.3 times the pull of where the path ends; ``STOP`` is the pull of standing still."""
    maze = state.maze
    pull = proximity_kernel(maze) @ mass
    depth = min(state.ky_steps, KYONSHI_DEPTH)
    values = {STOP: 0.3 * float(pull[state.ky])}
    stack = [(state.ky, 1 << state.ky, 0.0, 0, -1)]
    while stack:
        cell, seen, gained, steps, first = stack.pop()
        if steps:
            value = gained + 0.3 * float(pull[cell])
            if value > values.get(first, -np.inf):
                values[first] = value
        if steps == depth:
            continue
        for d, nxt in enumerate(maze.nbr[cell]):
            if nxt >= 0 and maze.enterable[nxt] and not seen >> nxt & 1:
                stack.append((nxt, seen | 1 << nxt, gained + mass[nxt], steps + 1, d if first < 0 else first))
    return values


def nearest_catchable(state: GangsiState) -> int:
    """The Kyonshi's steps to the nearest living piece it could catch (not on the entrance or the
    coffin, K17); ``UNREACHABLE`` if none."""
    maze = state.maze
    reach = maze.dist[state.ky]
    return min(
        (
            reach[at]
            for at in state.pos
            if at >= 0 and at != maze.entrance and at != maze.coffin and reach[at] >= 0
        ),
        default=UNREACHABLE,
    )


def needed_treasures(state: GangsiState, piece: int) -> list[int]:
    """The treasures in ``piece``'s hand it has not revealed yet (K20)."""
    return bits(state.hand[piece] & ~state.revealed[piece])


def square_outlook(state: GangsiState, piece: int, cell: int) -> tuple[bool, int, int]:
    """For ``piece`` ending a move on ``cell``: whether that reveals a treasure it needs, the fewest
    hunter moves from there to the nearest treasure it will still need (0 when none), and the
    Kyonshi's steps to ``cell`` (``-1`` if it cannot get there)."""
    maze = state.maze
    needed = needed_treasures(state, piece)
    t_here = maze.treasure_at[cell]
    reveals = t_here >= 0 and t_here in needed
    if reveals:
        needed = [t for t in needed if t != t_here]
    moves = hunter_move_distance(maze, state.options.hunter_turns)[cell]
    best = min((moves[maze.treasure_cell[t]] for t in needed), default=0)
    return reveals, best, maze.dist[state.ky][cell]


def _outlook_features(outlook: tuple[bool, int, int]) -> tuple[float, float, float]:
    reveals, moves, ky = outlook
    return (
        float(reveals),
        min(moves / MOVES_SCALE, 1.0),
        1.0 if ky < 0 else min(ky / STEPS_SCALE, 1.0),
    )


def hunter_action_features(state: GangsiState) -> np.ndarray:
    """``(NUM_HUNTER_ACTIONS, HUNTER_FEATURES)`` for the acting hunter piece (zeros for actions not
    legal now; see the module docstring). Reads the board, every piece, the dice and the acting
    piece's own hand: what its holder may know."""
    out = np.zeros((NUM_HUNTER_ACTIONS, HUNTER_FEATURES), dtype=np.float32)
    piece = state.acting
    phase = state.phase
    if piece < 0 or phase not in (PH_RESET, PH_CHOOSE, PH_DIR):
        return out
    if phase == PH_RESET:
        # K16, K31: the interrupt's reach (the dice set aside) against the nearest piece in the open.
        near = nearest_catchable(state)
        safe = float(near > state.aside)
        out[RESET] = (safe, min(state.aside / 5.0, 1.0), min(near / STEPS_SCALE, 1.0))
        out[KEEP] = (1.0 - safe, min(state.aside / 5.0, 1.0), min(near / STEPS_SCALE, 1.0))
        return out
    if phase == PH_CHOOSE:
        here = state.pos[piece]
        out[REROLL] = _outlook_features(square_outlook(state, piece, here))
        for action in state.legal_actions():
            if FACE <= action < DIR:
                dests = state.move_destinations(piece, action - FACE)
                outlooks = [square_outlook(state, piece, dest) for dest in dests]
                # The face's best destination: a reveal first, then the fewest moves on, then the
                # farthest from the Kyonshi.
                best = max(outlooks, key=lambda o: (o[0], -o[1], o[2] if o[2] >= 0 else UNREACHABLE))
                out[action] = _outlook_features(best)
        return out
    for cell, d in state.pending_destinations().items():
        features = _outlook_features(square_outlook(state, piece, cell))
        if tuple(out[DIR + d]) == (0.0, 0.0, 0.0) or features > tuple(out[DIR + d]):
            out[DIR + d] = features
    return out


def kyonshi_action_features(state: GangsiState, ranks: bool = False) -> np.ndarray:
    """``(NUM_KYONSHI_ACTIONS, KYONSHI_FEATURES)`` during the Kyonshi's move (zeros otherwise): the
    public probability of a hunter on the square each step enters, and each step's best path value
    (:func:`kyonshi_path_values`) over the number of pieces. Reads only public possibility sets (K32).

    With ``ranks``, ``KYONSHI_RANK_FEATURES`` more columns rank the choices by the same path values
    (they are a function of the second column, spelled out because the values of the best two steps
    are often a hundredth apart): each value over the best one, and 1 for the best choice (every step
    of a tie; standing still alone when it ties with a step).
    """
    width = KYONSHI_FEATURES + (KYONSHI_RANK_FEATURES if ranks else 0)
    out = np.zeros((NUM_KYONSHI_ACTIONS, width), dtype=np.float32)
    if state.phase != PH_KY_MOVE or state.ky_steps <= 0:
        return out
    maze = state.maze
    mass = hunter_probability(state)
    values = kyonshi_path_values(state, mass)
    scale = 1.0 / max(state.n, 1)
    for first, value in values.items():
        out[first, 1] = min(value * scale, 1.0)
        if first != STOP:
            out[first, 0] = min(float(mass[maze.nbr[state.ky][first]]), 1.0)
    if ranks:
        best = max(values.values())
        stay_best = values[STOP] >= best - 1e-12
        for first, value in values.items():
            if best > 0:
                out[first, 2] = value / best
            out[first, 3] = value >= best - 1e-12 and (first == STOP or not stay_best)
    return out


__all__ = [
    "HUNTER_FEATURES",
    "KYONSHI_DEPTH",
    "KYONSHI_FEATURES",
    "KYONSHI_RANK_FEATURES",
    "UNREACHABLE",
    "hunter_action_features",
    "hunter_move_distance",
    "hunter_probability",
    "kyonshi_action_features",
    "kyonshi_path_values",
    "nearest_catchable",
    "needed_treasures",
    "proximity_kernel",
    "square_outlook",
]
