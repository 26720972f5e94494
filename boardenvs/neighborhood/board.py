"""The LEAVE this Neighborhood board as data (neighborhood.md 1.3; L1-L7, all DESIGNED).

Cells are ``row * 15 + col`` (row 0 is north, column 0 is west). The tables below are the defaults of
the game's options (``wild_spaces``, ``start_squares``, ``spinner``); :func:`board_tables` derives the
per-cell lookup tables that the rules use from them, once per distinct board.
"""

from __future__ import annotations

from functools import lru_cache

from boardenvs.core.grid import COMPASS

#: L1: a 15x15 grid; row 7 and column 7 are neutral roads, (7, 7) is the star.
SIZE = 15
NUM_CELLS = SIZE * SIZE
STAR = (7, 7)

#: L2: the four locations (quadrants) and the colour each one is (Mountains silver, Village blue ...).
LOCATION_NAMES = ("Mountains", "Village", "City", "Forest")
MOUNTAINS, VILLAGE, CITY, FOREST = range(4)

#: L4: the five characters. "Blue" on a card means both blues (SEED).
COLOR_NAMES = ("Silver", "Light Blue", "Dark Blue", "Purple", "Yellow")
COLOR_LETTERS = ("S", "L", "D", "P", "Y")
SILVER, LIGHT_BLUE, DARK_BLUE, PURPLE, YELLOW = range(5)
BLUE = frozenset((LIGHT_BLUE, DARK_BLUE))

#: L5: each colour's Start square (ordinary squares after setup).
START_SQUARES: tuple[tuple[int, int], ...] = ((6, 6), (6, 8), (7, 8), (8, 8), (8, 6))

#: L3 / 1.3: six Wild Spaces per location, with four-fold mirror symmetry.
WILD_SPACES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((1, 1), (1, 4), (3, 2), (3, 5), (5, 1), (5, 4)),  # Mountains
    ((1, 13), (1, 10), (3, 12), (3, 9), (5, 13), (5, 10)),  # Village
    ((13, 13), (13, 10), (11, 12), (11, 9), (9, 13), (9, 10)),  # City
    ((13, 1), (13, 4), (11, 2), (11, 5), (9, 1), (9, 4)),  # Forest
)

#: L7: compass directions clockwise from north: N, NE, E, SE, S, SW, W, NW (steps in (row, col)).
DIRECTIONS = COMPASS
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
#: L7: the spinner's points: 8 (default) or the 4 orthogonal ones.
SPINNER_POINTS = {8: (0, 1, 2, 3, 4, 5, 6, 7), 4: (0, 2, 4, 6)}


def cell_of(row: int, col: int) -> int:
    """Cell index of ``(row, col)``."""
    return row * SIZE + col


def row_col(cell: int) -> tuple[int, int]:
    """``(row, col)`` of a cell index."""
    return divmod(cell, SIZE)


def location_of(row: int, col: int) -> int:
    """L1/L2: the location of a square, or -1 on the roads (row 7, column 7)."""
    if row == 7 or col == 7:
        return -1
    north, west = row < 7, col < 7
    if north:
        return MOUNTAINS if west else VILLAGE
    return FOREST if west else CITY


def _build_static() -> tuple:
    """Per-cell geometry that does not depend on options: locations, steps, rays, distances."""
    loc = [location_of(*row_col(c)) for c in range(NUM_CELLS)]
    step: list[tuple[int, ...]] = []
    rays: list[tuple[tuple[int, ...], ...]] = []
    for c in range(NUM_CELLS):
        r0, c0 = row_col(c)
        s, cell_rays = [], []
        for dr, dc in DIRECTIONS:
            ray = []
            r, col = r0 + dr, c0 + dc
            while 0 <= r < SIZE and 0 <= col < SIZE:
                ray.append(cell_of(r, col))
                r, col = r + dr, col + dc
            cell_rays.append(tuple(ray))
            s.append(ray[0] if ray else -1)
        step.append(tuple(s))
        rays.append(tuple(cell_rays))
    cheb = [
        tuple(max(abs(a // SIZE - b // SIZE), abs(a % SIZE - b % SIZE)) for b in range(NUM_CELLS))
        for a in range(NUM_CELLS)
    ]
    cells_in = tuple(tuple(c for c in range(NUM_CELLS) if loc[c] == L) for L in range(4))
    return tuple(loc), tuple(step), tuple(rays), tuple(cheb), cells_in


#: LOCATION[cell] (-1 on a road); STEP[cell][d] (neighbour or -1); RAY[cell][d] (cells along d up to
#: the edge; its length is the room in that direction, L8); CHEB[a][b] king-step distance (L24);
#: CELLS_IN[location] every cell of a location.
LOCATION, STEP, RAY, CHEB, CELLS_IN = _build_static()


def toward(cell: int, target: int, d: int) -> bool:
    """L31: direction ``d`` points "toward" ``target`` when it is within 45 degrees of the line to it.

    Exact integer test: ``u . v > 0`` and ``2 (u . v)^2 >= |u|^2 |v|^2``. A target on the same square
    lies in no direction.
    """
    dr = target // SIZE - cell // SIZE
    dc = target % SIZE - cell % SIZE
    ur, uc = DIRECTIONS[d]
    dot = ur * dr + uc * dc
    if dot <= 0:
        return False
    return 2 * dot * dot >= (ur * ur + uc * uc) * (dr * dr + dc * dc)


@lru_cache(maxsize=32)
def board_tables(
    wild_spaces: tuple[tuple[tuple[int, int], ...], ...],
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """``(WILD_LOC, WILD_CELLS)`` of a board: the location of each Wild Space cell (-1 elsewhere) and
    the Wild Space cells of each location (L3)."""
    wild_loc = [-1] * NUM_CELLS
    cells = []
    for L, spaces in enumerate(wild_spaces):
        cells.append(tuple(cell_of(r, c) for r, c in spaces))
        for r, c in spaces:
            wild_loc[cell_of(r, c)] = L
    return tuple(wild_loc), tuple(cells)
