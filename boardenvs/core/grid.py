"""Square-grid geometry shared by the board games: directions, distances, rays and walls."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

Cell = tuple[int, int]

#: Orthogonal unit steps (row, col): north, east, south, west (row 0 is the top).
ORTHOGONAL: tuple[Cell, ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: The eight compass steps, clockwise from north: N, NE, E, SE, S, SW, W, NW.
COMPASS: tuple[Cell, ...] = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def manhattan(a: Cell, b: Cell) -> int:
    """Steps between two cells moving orthogonally."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def chebyshev(a: Cell, b: Cell) -> int:
    """King-move distance between two cells (radius 1 = the 8 neighbours)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class Grid:
    """A ``rows x cols`` board of cells, with optional walls on the edges between cells.

    Walls are stored as unordered pairs of neighbouring cells; the outer border always blocks.
    """

    __slots__ = ("rows", "cols", "walls")

    def __init__(self, rows: int, cols: int, walls: Iterable[tuple[Cell, Cell]] = ()) -> None:
        if rows < 1 or cols < 1:
            raise ValueError(f"a grid needs at least one row and column, got {rows}x{cols}")
        self.rows = rows
        self.cols = cols
        self.walls: frozenset[frozenset[Cell]] = frozenset(frozenset(pair) for pair in walls)

    def in_bounds(self, cell: Cell) -> bool:
        """True for a cell on the board."""
        return 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols

    def cells(self) -> Iterator[Cell]:
        """Every cell, row by row."""
        for r in range(self.rows):
            for c in range(self.cols):
                yield (r, c)

    def index(self, cell: Cell) -> int:
        """Row-major index of a cell."""
        return cell[0] * self.cols + cell[1]

    def cell(self, index: int) -> Cell:
        """Inverse of :meth:`index`."""
        return divmod(index, self.cols)

    def can_step(self, a: Cell, b: Cell) -> bool:
        """True when ``b`` is on the board and no wall stands between neighbours ``a`` and ``b``."""
        return self.in_bounds(b) and frozenset((a, b)) not in self.walls

    def neighbours(self, cell: Cell, steps: Iterable[Cell] = ORTHOGONAL) -> Iterator[Cell]:
        """Cells one step away in ``steps`` that are reachable (on the board, no wall between)."""
        r, c = cell
        for dr, dc in steps:
            nxt = (r + dr, c + dc)
            if self.can_step(cell, nxt):
                yield nxt

    def ray(self, start: Cell, step: Cell, blocked: Callable[[Cell], bool] = lambda _: False) -> list[Cell]:
        """Cells from ``start`` (excluded) in direction ``step`` until a wall, the edge or a blocked cell."""
        out: list[Cell] = []
        cur = start
        while True:
            nxt = (cur[0] + step[0], cur[1] + step[1])
            if not self.can_step(cur, nxt) or blocked(nxt):
                return out
            out.append(nxt)
            cur = nxt

    def distances(
        self,
        start: Cell,
        steps: Iterable[Cell] = ORTHOGONAL,
        passable: Callable[[Cell], bool] = lambda _: True,
    ) -> dict[Cell, int]:
        """Breadth-first step counts from ``start`` to every reachable cell (walls respected)."""
        steps = tuple(steps)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for nxt in self.neighbours(cur, steps):
                if nxt not in dist and passable(nxt):
                    dist[nxt] = dist[cur] + 1
                    queue.append(nxt)
        return dist
