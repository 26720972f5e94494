"""The LEAVE this Neighborhood board as data (neighborhood.md 1.3; L1-L7, all DESIGNED).

The board is ``size x size`` (option ``board_size``: odd, 9 to 15, L1). Whatever the size, cells are
numbered in a fixed 15-wide frame, ``cell = 15 * row + col`` (row 0 is north, column 0 is west), so the
observation and the action space do not depend on the options; a smaller board uses the frame's
top-left corner. :func:`geometry` derives a board's per-cell tables (locations, steps, rays) once per
size; :func:`default_start_squares` and :func:`default_wild_spaces` derive the defaults of the
``start_squares`` and ``wild_spaces`` options from the size; :func:`board_tables` derives the Wild
Space lookup tables once per distinct set of Wild Spaces.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from boardenvs.core.grid import COMPASS

#: Cells are ``FRAME * row + col`` whatever the board size (the largest board fills the frame).
FRAME = 15
NUM_CELLS = FRAME * FRAME
#: L1: the board sizes allowed (odd, so that the roads and the star have a middle square).
MIN_SIZE, MAX_SIZE = 9, 15

#: L2: the four locations (quadrants) and the colour each one is (Mountains silver, Village blue ...).
LOCATION_NAMES = ("Mountains", "Village", "City", "Forest")
MOUNTAINS, VILLAGE, CITY, FOREST = range(4)

#: L4: the five characters. "Blue" on a card means both blues (SEED).
COLOR_NAMES = ("Silver", "Light Blue", "Dark Blue", "Purple", "Yellow")
COLOR_LETTERS = ("S", "L", "D", "P", "Y")
SILVER, LIGHT_BLUE, DARK_BLUE, PURPLE, YELLOW = range(5)
BLUE = frozenset((LIGHT_BLUE, DARK_BLUE))

#: The first design's 15x15 board (neighborhood.md 1.3 before the 1.1b retuning): six Wild Spaces per
#: location. Kept as an example of the ``wild_spaces`` format: ``board_size=15,
#: wild_spaces=FIRST_WILD_SPACES`` plays that board.
FIRST_WILD_SPACES: tuple[tuple[tuple[int, int], ...], ...] = (
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
    """Cell index of ``(row, col)`` (in the 15-wide frame, whatever the board size)."""
    return row * FRAME + col


def row_col(cell: int) -> tuple[int, int]:
    """``(row, col)`` of a cell index."""
    return divmod(cell, FRAME)


def check_size(size: int) -> None:
    """L1: raise ``ValueError`` unless ``size`` is an odd board size from 9 to 15."""
    ok = isinstance(size, int) and not isinstance(size, bool) and MIN_SIZE <= size <= MAX_SIZE
    if not ok or size % 2 == 0:
        raise ValueError(f"board_size must be odd, {MIN_SIZE} to {MAX_SIZE}, got {size!r}")


def location_of(row: int, col: int, size: int = MAX_SIZE) -> int:
    """L1/L2: the location of a square of a ``size`` board, or -1 on the roads (its middle row and
    column) and off the board."""
    mid = size // 2
    if not (0 <= row < size and 0 <= col < size) or row == mid or col == mid:
        return -1
    north, west = row < mid, col < mid
    if north:
        return MOUNTAINS if west else VILLAGE
    return FOREST if west else CITY


def default_start_squares(size: int) -> tuple[tuple[int, int], ...]:
    """L5: each colour's Start square beside the star (the middle square), on its location's side:
    Silver NW, Light Blue NE, Dark Blue E, Purple SE, Yellow SW of the star."""
    check_size(size)
    m = size // 2
    return ((m - 1, m - 1), (m - 1, m + 1), (m, m + 1), (m + 1, m + 1), (m + 1, m - 1))


def default_wild_spaces(size: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """L3 (retuned, 1.1b): the Wild Spaces of a ``size`` board: every square of a location that lies on
    the board's edge or beside a road, so each location is ringed by Wild Spaces around a plain middle
    (four-fold mirror symmetric): 12, 16, 20 and 24 per location on the 9, 11, 13 and 15 boards.
    (The first design had 6 per location on 15x15: ``FIRST_WILD_SPACES``.)
    """
    check_size(size)
    m = size // 2
    spaces: list[tuple[tuple[int, int], ...]] = []
    for L in range(4):
        cells = []
        for i in range(m):  # i, j: rows and columns counted from the location's outer corner
            for j in range(m):
                if i in (0, m - 1) or j in (0, m - 1):
                    r = i if L in (MOUNTAINS, VILLAGE) else size - 1 - i
                    c = j if L in (MOUNTAINS, FOREST) else size - 1 - j
                    cells.append((r, c))
        spaces.append(tuple(cells))
    return tuple(spaces)


class Geometry(NamedTuple):
    """Per-cell tables of one board size (cells in the 15-wide frame; off-board cells have no steps)."""

    #: Squares per side (L1).
    size: int
    #: The roads' row and column; the star is ``(mid, mid)``.
    mid: int
    #: ``location[cell]``: the location, or -1 on a road or off the board.
    location: tuple[int, ...]
    #: ``step[cell][d]``: the neighbour in direction ``d``, or -1 at the edge.
    step: tuple[tuple[int, ...], ...]
    #: ``ray[cell][d]``: the cells along ``d`` up to the edge; its length is the room to move (L8).
    ray: tuple[tuple[tuple[int, ...], ...], ...]
    #: Every cell of each location.
    cells_in: tuple[tuple[int, ...], ...]
    #: Every cell on the board.
    cells: tuple[int, ...]


@lru_cache(maxsize=8)
def geometry(size: int) -> Geometry:
    """The tables of a ``size x size`` board (computed once per size)."""
    check_size(size)
    on = [c for c in range(NUM_CELLS) if c // FRAME < size and c % FRAME < size]
    loc = [location_of(*row_col(c), size) for c in range(NUM_CELLS)]
    step: list[tuple[int, ...]] = []
    rays: list[tuple[tuple[int, ...], ...]] = []
    for c in range(NUM_CELLS):
        r0, c0 = row_col(c)
        s, cell_rays = [], []
        for dr, dc in DIRECTIONS:
            ray = []
            r, col = r0 + dr, c0 + dc
            while r0 < size and c0 < size and 0 <= r < size and 0 <= col < size:
                ray.append(cell_of(r, col))
                r, col = r + dr, col + dc
            cell_rays.append(tuple(ray))
            s.append(ray[0] if ray else -1)
        step.append(tuple(s))
        rays.append(tuple(cell_rays))
    cells_in = tuple(tuple(c for c in on if loc[c] == L) for L in range(4))
    return Geometry(size, size // 2, tuple(loc), tuple(step), tuple(rays), cells_in, tuple(on))


def _chebyshev() -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(max(abs(a // FRAME - b // FRAME), abs(a % FRAME - b % FRAME)) for b in range(NUM_CELLS))
        for a in range(NUM_CELLS)
    )


#: CHEB[a][b]: king-step distance between two cells (L24), the same on every board size.
CHEB = _chebyshev()


def toward(cell: int, target: int, d: int) -> bool:
    """L31: direction ``d`` points "toward" ``target`` when it is within 45 degrees of the line to it.

    Exact integer test: ``u . v > 0`` and ``2 (u . v)^2 >= |u|^2 |v|^2``. A target on the same square
    lies in no direction.
    """
    dr = target // FRAME - cell // FRAME
    dc = target % FRAME - cell % FRAME
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


def path_ends(
    step: tuple[tuple[int, ...], ...],
    visited: tuple[int, ...],
    left: int,
    up_to: bool,
    dead_ends: bool = False,
) -> dict[int, tuple[int, ...]]:
    """Every square a curved path (L24) can end on, with the directions of one way there.

    ``step`` is the board's neighbour table, ``visited`` the path so far (start first), ``left`` the
    steps still allowed; an ``up_to`` path may end after any step from its first, an exact one only
    after all of them. A breadth-first search over (square, steps taken); each way never revisits a
    square (the first way found to a square at a given step count stands for all of them). With
    ``dead_ends``, a way that can go no further before its last step ends there too (the rules stop a
    path that has nowhere left to go).
    """
    taken0 = len(visited) - 1
    start = visited[-1]
    ends: dict[int, tuple[int, ...]] = {}
    if up_to and taken0 >= 1:
        ends[start] = ()
    seen = {(start, 0)}
    frontier: list[tuple[int, tuple[int, ...], frozenset[int]]] = [(start, (), frozenset(visited))]
    for taken in range(1, left + 1):
        nxt = []
        for cell, dirs, used in frontier:
            stuck = True
            for d in range(8):
                c = step[cell][d]
                if c < 0 or c in used:
                    continue
                stuck = False
                if (c, taken) in seen:
                    continue
                seen.add((c, taken))
                way = (*dirs, d)
                nxt.append((c, way, used | {c}))
                if c not in ends and (taken == left or up_to):
                    ends[c] = way
            if stuck and dead_ends and cell not in ends and (taken > 1 or taken0 >= 1):
                ends[cell] = dirs
        frontier = nxt
    return ends
