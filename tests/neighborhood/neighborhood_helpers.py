"""Scripted positions for the neighborhood_v0 tests: build a state, put characters where wanted.

Scripted positions are played on the first design's board (15x15, six Wild Spaces per location:
``board.FIRST_WILD_SPACES``, the coordinates of neighborhood.md 1.3) unless a test passes other
options: the rules do not depend on the board, and its coordinates read well in a test.
"""

from __future__ import annotations

from boardenvs.core.state import CHANCE
from boardenvs.neighborhood.board import FIRST_WILD_SPACES, cell_of
from boardenvs.neighborhood.cards import DECK_NAMES, DECKS
from boardenvs.neighborhood.rules import (
    CH_DECK,
    CH_MOVE,
    F_DRAW,
    F_TURN,
    NeighborhoodOptions,
    NeighborhoodState,
)

#: Default seats with four players: 0 Silver, 1 Light Blue, 2 Purple, 3 Yellow (L27).
FAR = {0: (0, 0), 1: (0, 14), 2: (14, 14), 3: (14, 0), 4: (7, 0)}
#: The board of the scripted positions (see the module docstring).
FIRST_BOARD = {"board_size": 15, "wild_spaces": FIRST_WILD_SPACES}
#: L7: the compass directions, as the spinner and the direction actions number them (``DIR + N``...).
N, NE, E, SE, S, SW, W, NW = range(8)
#: The Wild deck of each location (deck 0 is the Killer deck), as ``draw_card`` takes them.
MOUNTAINS_DECK, VILLAGE_DECK, CITY_DECK, FOREST_DECK = 1, 2, 3, 4


def kind_of(deck: int, name: str) -> int:
    """Card kind index of ``name`` in ``deck``."""
    names = [c.name for c in DECKS[deck]]
    assert name in names, f"{name} not in the {DECK_NAMES[deck]} deck"
    return names.index(name)


def position(
    n: int = 4,
    pos: dict[int, tuple[int, int]] | None = None,
    hp: dict[int, int] | None = None,
    to_move: int = 0,
    **options,
) -> NeighborhoodState:
    """Setup done (seats around the table in seat order, seat 0 first, play to seat +1), round 1,
    ``to_move`` about to roll and spin, on the first design's board unless ``options`` say otherwise.

    Characters not named in ``pos`` stand in far corners (``FAR``), away from everything.
    """
    s = NeighborhoodState(NeighborhoodOptions(num_players=n, **{**FIRST_BOARD, **options}))
    s.stack = []
    s.started, s.first, s.direction, s.round, s.to_move, s.turns = True, 0, 1, 1, to_move, 1
    last = s.options.board_size - 1
    far = {p: (r * last // 14, c * last // 14) for p, (r, c) in FAR.items()}  # the corners of any size
    for p in range(n):
        r, c = (pos or {}).get(p, far[p])
        s.pos[p] = cell_of(r, c)
    for p, h in (hp or {}).items():
        s.hp[p] = h
    s.stack = [[F_TURN, -1, 0, 0]]
    s._advance()
    assert s.current_player() == CHANCE and s._chance[0] == CH_MOVE
    return s


def move(s: NeighborhoodState, steps: int, direction: int) -> NeighborhoodState:
    """Apply the turn's die (``steps``) and spinner (``direction``) chance outcome."""
    s.apply_action(8 * (steps - 1) + direction)
    return s


def draw_card(
    s: NeighborhoodState, deck: int, name: str, me: int, k: int = -1, v: int = -1, depth: int = 1
) -> NeighborhoodState:
    """Make ``me`` (or Killer ``k`` against ``v``) draw card ``name`` of ``deck`` now."""
    s.stack = [[F_DRAW, -1, deck, me, k, v, depth]]
    s._advance()
    assert s.current_player() == CHANCE and s._chance == (CH_DECK, deck)
    s.apply_action(kind_of(deck, name))
    return s


def cell(r: int, c: int) -> int:
    """Cell index."""
    return cell_of(r, c)
