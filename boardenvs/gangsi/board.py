"""The Gangsi maze as data: the map of ``gangsi.md`` 3.3, parsed into walls, squares and treasures.

The map below is copied character for character from the specification (K7, DESIGNED). It is the
single source of the maze: :func:`parse_maze` reads walls (``|`` and ``---``), the entrance ``EN``,
the coffin ``CF`` and the 23 treasure squares (K5) off it, and :class:`Maze` derives every lookup
table the rules and the agents need (neighbours, bitboard shift masks, distances). The ``maze`` option
of ``gangsi_v0`` accepts another map in the same format.

Cells are numbered row-major, ``cell = row * cols + col``, row 0 at the top. Directions are
``N, E, S, W`` = ``0, 1, 2, 3`` (:data:`DIRECTIONS`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from functools import lru_cache

from boardenvs.gangsi.cards import NUM_TREASURES, TREASURE_CODES

#: K7 (DESIGNED): the map of gangsi.md 3.3, without its column-number header line.
MAP: tuple[str, ...] = (
    "   +---+---+---+---+---+---+---+---+---+---+---+",
    " 0 |  .   .   .| A1   .   .   .| P1   .   .   .|",
    "   +   +   +---+   +---+   +   +   +---+---+   +",
    " 1 |  .| A2|  .   .| A3   .  P2|  .  P3|  .   .|",
    "   +   +   +   +   +   +---+   +   +   +   +---+",
    " 2 |  .   .   .| A4|  .   .|  .  P4   .   .   .|",
    "   +   +   +   +   +   +   +   +   +---+   +   +",
    " 3 |  .   .   .   .   .| G1|  .|  .   .|  .   .|",
    "   +---+   +---+---+   +   +---+   +   +   +   +",
    " 4 |  .|  .  A5   .|  .|  .  P5|  .|  .   .   .|",
    "   +   +---+   +   +   +---+   +   +---+   +---+",
    " 5 | G2   .   .   .   .  G3   .   .  G4   .   .|",
    "   +   +   +---+---+   +---+   +   +   +---+   +",
    " 6 |  .|  .| O1   .  O2   .|  .   .|  .   .  Y1|",
    "   +   +   +   +---+   +   +   +---+   +---+   +",
    " 7 |  .|  .   .   .|  .|  .   .   .|  .   .   .|",
    "   +   +   +   +   +   +   +---+   +   +   +---+",
    " 8 |  .   .  O3   .| O4|  .   .   .   .   .  Y2|",
    "   +   +   +---+---+   +---+---+   +   +---+   +",
    " 9 |  .|  .   .   .|  .   .   .  Y3   .|  .   .|",
    "   +   +---+   +   +   +   +   +   +---+   +   +",
    "10 |  .  O5   .   .   .| EN| CF|  .   .  Y4|  .|",
    "   +---+---+---+---+---+---+---+---+---+---+---+",
)

#: Orthogonal steps (row, col) by direction id: north, east, south, west.
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIRECTION_NAMES = ("north", "east", "south", "west")


class MazeError(ValueError):
    """A map that does not follow the format of gangsi.md 3.3 or misses a required square."""


def parse_maze(lines: Sequence[str]) -> tuple[int, int, frozenset[tuple[int, int]], dict[str, int]]:
    """Read a map drawn as in gangsi.md 3.3.

    Returns ``(rows, cols, walls, labels)``: ``walls`` holds ``(cell, direction)`` for every blocked
    edge seen from both sides (the outer border included), ``labels`` maps ``"EN"``, ``"CF"`` and each
    treasure code to its cell.

    Raises:
        MazeError: on a malformed map.
    """
    lines = [line.rstrip() for line in lines]
    if len(lines) < 3 or len(lines) % 2 == 0:
        raise MazeError("a map has a border line, then a cell line and a border line per row")
    offset = lines[0].find("+")
    if offset < 0:
        raise MazeError("the first map line must be a border line of '+' and '---'")
    cols = (len(lines[0]) - offset - 1) // 4
    rows = (len(lines) - 1) // 2
    if cols < 1:
        raise MazeError("the map has no columns")
    walls: set[tuple[int, int]] = set()
    labels: dict[str, int] = {}

    def char(line: str, at: int) -> str:
        return line[at] if at < len(line) else " "

    for r in range(rows):
        cell_line = lines[2 * r + 1]
        if char(cell_line, offset) != "|":
            raise MazeError(f"row {r}: the cell line must start with the outer wall '|'")
        for c in range(cols):
            cell = r * cols + c
            text = cell_line[offset + 1 + 4 * c : offset + 4 + 4 * c].strip()
            if text not in (".", ""):
                if text in labels:
                    raise MazeError(f"square {text!r} appears twice in the map")
                labels[text] = cell
            if char(cell_line, offset + 4 + 4 * c) == "|":
                walls.add((cell, 1))
                if c + 1 < cols:
                    walls.add((cell + 1, 3))
            if c == 0:
                walls.add((cell, 3))
            if c == cols - 1:
                walls.add((cell, 1))
        for below, border in ((False, lines[2 * r]), (True, lines[2 * r + 2])):
            for c in range(cols):
                if border[offset + 1 + 4 * c : offset + 4 + 4 * c] == "---":
                    walls.add((r * cols + c, 2 if below else 0))
    unknown = sorted(set(labels) - {"EN", "CF", *TREASURE_CODES})
    if unknown:
        raise MazeError(f"unknown square label {unknown[0]!r} in the map")
    missing = sorted({"EN", "CF", *TREASURE_CODES} - set(labels))
    if missing:
        raise MazeError(f"the map lacks square {missing[0]!r}")
    return rows, cols, frozenset(walls), labels


class Maze:
    """Lookup tables of one map; built once per map and shared by every state (read-only).

    Attributes:
        rows, cols, size: the grid; ``size = rows * cols`` cells.
        entrance, coffin: the two cells nobody may enter (K19, "no entering entrance or coffin").
        treasure_cell: cell of treasure ``t`` (0..22, :mod:`cards` order).
        treasure_at: treasure on each cell, or -1.
        nbr: ``nbr[cell][d]`` the neighbour in direction ``d``, or -1 behind a wall or the border.
        open_dir: ``open_dir[d]`` bitmask of cells with an enterable neighbour in direction ``d``
            (no wall, the neighbour neither entrance nor coffin).
        shift: ``shift[d]`` the cell-number offset of direction ``d`` (``-cols, 1, cols, -1``).
        dist: ``dist[a][b]`` steps between cells for a piece that may not enter entrance or coffin
            (leaving them is allowed); -1 when unreachable.
        walls: the number of interior wall segments.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        rows, cols, walls, labels = parse_maze(lines)
        self.lines = tuple(lines)
        self.rows, self.cols, self.size = rows, cols, rows * cols
        self.entrance = labels["EN"]
        self.coffin = labels["CF"]
        self.treasure_cell = tuple(labels[code] for code in TREASURE_CODES)
        at = [-1] * self.size
        for t, cell in enumerate(self.treasure_cell):
            at[cell] = t
        self.treasure_at = tuple(at)
        self.shift = (-cols, 1, cols, -1)
        nbr = []
        for cell in range(self.size):
            r, c = divmod(cell, cols)
            row = []
            for d, (dr, dc) in enumerate(DIRECTIONS):
                rr, cc = r + dr, c + dc
                blocked = (cell, d) in walls or not (0 <= rr < rows and 0 <= cc < cols)
                row.append(-1 if blocked else rr * cols + cc)
            nbr.append(tuple(row))
        self.nbr = tuple(nbr)
        # Interior wall segments: east and south edges between two cells of the board.
        self.walls = sum(
            1
            for cell, d in walls
            if (d == 1 and cell % cols < cols - 1) or (d == 2 and cell // cols < rows - 1)
        )
        closed = {self.entrance, self.coffin}
        self.enterable = tuple(cell not in closed for cell in range(self.size))
        self.open_dir = tuple(
            sum(
                1 << cell
                for cell in range(self.size)
                if self.nbr[cell][d] >= 0 and self.enterable[self.nbr[cell][d]]
            )
            for d in range(4)
        )
        self.full = (1 << self.size) - 1
        self.dist = tuple(self._bfs(cell) for cell in range(self.size))
        unreachable = [c for c in range(self.size) if self.dist[self.entrance][c] < 0 and c != self.coffin]
        if unreachable:
            raise MazeError(f"cell {divmod(unreachable[0], cols)} cannot be reached from the entrance")
        if self.dist[self.coffin].count(-1) > 1:
            raise MazeError("the coffin must open onto the maze")

    def _bfs(self, start: int) -> tuple[int, ...]:
        dist = [-1] * self.size
        dist[start] = 0
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for nxt in self.nbr[cur]:
                if nxt >= 0 and dist[nxt] < 0 and self.enterable[nxt]:
                    dist[nxt] = dist[cur] + 1
                    queue.append(nxt)
        return tuple(dist)

    def step_mask(self, cells: int, d: int) -> int:
        """Bitmask of the cells reached from the bitmask ``cells`` by one step in direction ``d``
        (walls, the border, the entrance and the coffin respected)."""
        cells &= self.open_dir[d]
        s = self.shift[d]
        return cells << s if s > 0 else cells >> -s

    def cell_name(self, cell: int) -> str:
        """``"(row,col)"`` of a cell."""
        r, c = divmod(cell, self.cols)
        return f"({r},{c})"


@lru_cache(maxsize=8)
def get_maze(lines: tuple[str, ...] | None = None) -> Maze:
    """The (cached) :class:`Maze` of ``lines``, or of the specification's :data:`MAP` for ``None``."""
    return Maze(MAP if lines is None else lines)


def neighbours(maze: Maze, cell: int) -> list[int]:
    """Enterable neighbours of ``cell`` (used by tests and agents)."""
    return [n for n in maze.nbr[cell] if n >= 0 and maze.enterable[n]]


__all__ = [
    "DIRECTIONS",
    "DIRECTION_NAMES",
    "MAP",
    "Maze",
    "MazeError",
    "NUM_TREASURES",
    "get_maze",
    "parse_maze",
]
