"""Scripted Lost City positions for the rules, feature and heuristic tests.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and ``boardenvs/lost_city/env.py``.
"""

from __future__ import annotations

from boardenvs.lost_city.board import offset_index
from boardenvs.lost_city.rules import MOVE, P_MOVE, LostCityOptions, LostCityState

ALL = ("Rob", "Aaron", "Safina", "Jack", "Jamie", "Josh", "Chris")
#: Far-apart squares for extra players that must stay out of every range.
FAR = ((4, 10), (5, 10), (6, 10), (7, 10), (5, 11), (6, 11))


def cell(r: int, c: int) -> int:
    """Cell index of ``(r, c)`` on the default 12 x 12 board."""
    return 12 * r + c


def mv(dr: int, dc: int) -> int:
    """The move action to the offset ``(dr, dc)`` (T5)."""
    return MOVE + offset_index(dr, dc)


def position(names, cells, *, to_move=0, rnd=2, hp=None, held=None, extra=0, **options) -> LostCityState:
    """Characters ``names`` (seat order) on ``cells``; ``extra`` filler characters on far squares.

    The state is at the move step of ``to_move``'s turn in round ``rnd``; ``held`` maps seat -> card.
    """
    names = list(names)
    cells = list(cells)
    fillers = [name for name in ALL if name not in names][:extra]
    used = set(cells)
    for name in fillers:
        names.append(name)
        cells.append(next(c for c in FAR if c not in used))
        used.add(cells[-1])
    s = LostCityState(
        LostCityOptions(num_players=len(names), characters=tuple(names), first_player="seat0", **options)
    )
    s.pos = [s.geo.index(c) for c in cells]
    for p, value in (hp or {}).items():
        s.hp[p] = value
    for p, kind in (held or {}).items():
        s.deck.take(kind)
        s.held[p] = kind
    s.to_move = to_move
    s.round = rnd
    s.phase = P_MOVE
    s._legal = None
    return s
