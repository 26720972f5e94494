"""Scripted Gangsi positions on the default map, shared by the rules-feature and heuristic tests."""

from __future__ import annotations

from boardenvs.gangsi.board import get_maze
from boardenvs.gangsi.cards import TREASURE_CODES
from boardenvs.gangsi.rules import PH_KY_ROLL, PH_OVER, PH_ROLL, GangsiOptions, GangsiState

N, E, S, W = range(4)
ONE, TWO, THREE, FOUR, ARROW, KY = range(6)
MAZE = get_maze()


def sq(r: int, c: int) -> int:
    return r * 11 + c


def hand(*codes: str) -> int:
    return sum(1 << TREASURE_CODES.index(code) for code in codes)


HANDS = [hand(f"A{j + 1}", f"P{j + 1}", f"O{j + 1}", f"Y{j + 1}", f"G{j + 1}") for j in range(4)]


def table(n: int = 2, pos=None, ky: int = 0, **options) -> GangsiState:
    s = GangsiState(GangsiOptions(num_hunters=n, **options))
    s.hand = HANDS[:n]
    s.deal = 5 * n
    s.pos = list(pos)
    s.maybe = [1 << p for p in pos]
    s.ky = ky
    s.phase = PH_OVER
    return s


def hunter_roll(s: GangsiState, piece: int, *faces: int) -> GangsiState:
    s._start_turn(piece)
    for f in faces:
        assert s.phase == PH_ROLL
        s.apply_action(f)
    return s


def kyonshi_move(s: GangsiState, die_index: int) -> GangsiState:
    s.acting = -1
    s.phase = PH_KY_ROLL
    s._legal = None
    s.apply_action(die_index)
    return s
