"""The Gangsi mazes as data: maps drawn as in ``gangsi.md`` 3.3, parsed into walls, squares and treasures.

A map is a drawing (K7, DESIGNED): ``|`` and ``---`` are walls, ``EN`` the entrance, ``CF`` the coffin,
the codes of :mod:`cards` the 23 treasure squares (K5), ``.`` any other square. :func:`parse_maze`
reads walls and squares off a drawing, and :class:`Maze` derives every lookup table the rules and the
agents need (neighbours, bitboard shift masks, distances). The ``maze`` option of ``gangsi_v0`` takes
the name of a map in :data:`MAPS` or a drawing of its own:

* ``"crypt"`` (:data:`CRYPT_MAP`, the default since K7's revision): the entrance and the coffin side
  by side in a central hall, each opening onto three squares; a room with four doors in every quadrant;
  49 interior walls, mirror-symmetric but for the wall between entrance and coffin. Chosen with the
  balance figures recorded in :mod:`boardenvs.gangsi.env`.
* ``"classic"`` (:data:`CLASSIC_MAP`): the first map of gangsi.md 3.3, character for character. Its
  entrance and coffin each open onto a single square, where the Kyonshi waits, so the Kyonshi wins
  every game between heuristic players; it stays as the example of the drawing format.

Cells are numbered row-major, ``cell = row * cols + col``, row 0 at the top. Directions are
``N, E, S, W`` = ``0, 1, 2, 3`` (:data:`DIRECTIONS`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from functools import lru_cache

from boardenvs.gangsi.cards import NUM_TREASURES, TREASURE_CODES

#: K7 (DESIGNED, revised): the default map, ``maze="crypt"``. The entrance (5,5) opens north, west and
#: south, the coffin (5,6) north, east and south, with a wall between them; no single square cuts any
#: part of the maze off (no choke point). Treasure areas as K5: grey rows 0-4 x cols 0-4, pink rows
#: 0-4 x cols 6-10, orange rows 6-10 x cols 0-4, yellow rows 6-10 x cols 6-10, green row 5 and col 5.
CRYPT_MAP: tuple[str, ...] = (
    "   +---+---+---+---+---+---+---+---+---+---+---+",
    " 0 |  .   .  A1   .   .   .   .   .  P1   .   .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    " 1 |  .   .   .   .| A3|  .| P3|  .   .   .   .|",
    "   +   +   +   +   +   +   +   +   +   +   +   +",
    " 2 |  .|  .  A2   .|  .| G1|  .|  .  P2   .|  .|",
    "   +   +   +   +   +   +   +   +   +   +   +   +",
    " 3 |  .|  .   .  A5   .   .   .  P5   .   .|  .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    " 4 |  .  A4   .   .   .   .   .   .   .  P4   .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    " 5 |  .   .  G2   .   .  EN| CF   .  G3   .   .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    " 6 |  .  O4   .   .   .   .   .   .   .  Y4   .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    " 7 |  .|  .   .  O5   .   .   .   .   .   .|  .|",
    "   +   +   +   +   +   +   +   +   +   +   +   +",
    " 8 |  .|  .  O2   .|  .| G4|  .|  .  Y2   .|  .|",
    "   +   +   +   +   +   +   +   +   +   +   +   +",
    " 9 |  .   .   .   .| O3|  .| Y3|  .   .   .   .|",
    "   +   +---+---+   +   +   +   +   +---+---+   +",
    "10 |  .   .  O1   .   .   .   .   .  Y1   .   .|",
    "   +---+---+---+---+---+---+---+---+---+---+---+",
)

#: K7 (DESIGNED, superseded): the first map of gangsi.md 3.3, without its column-number header line;
#: ``maze="classic"``, kept as the example of the drawing format.
CLASSIC_MAP: tuple[str, ...] = (
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

#: The named maps of the ``maze`` option.
MAPS: dict[str, tuple[str, ...]] = {"crypt": CRYPT_MAP, "classic": CLASSIC_MAP}
#: K7: the name of the default map.
DEFAULT_MAZE = "crypt"
#: The default map's drawing.
MAP = MAPS[DEFAULT_MAZE]

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


def map_lines(maze: str | Sequence[str] | None = None) -> tuple[str, ...]:
    """The drawing of ``maze``: a name in :data:`MAPS`, a drawing (returned as a tuple), or ``None``
    for the default map.

    Raises:
        MazeError: for a name that is not in :data:`MAPS`.
    """
    if maze is None:
        return MAPS[DEFAULT_MAZE]
    if isinstance(maze, str):
        if maze not in MAPS:
            raise MazeError(
                f"unknown map name {maze!r}; the named maps are {sorted(MAPS)} (or give a drawing: its lines)"
            )
        return MAPS[maze]
    return tuple(maze)


def get_maze(maze: str | Sequence[str] | None = None) -> Maze:
    """The :class:`Maze` of a map name, a drawing, or the default map for ``None``; one object per
    drawing (cached), so the tables derived from a maze are shared too."""
    return _maze_of(map_lines(maze))


@lru_cache(maxsize=8)
def _maze_of(lines: tuple[str, ...]) -> Maze:
    return Maze(lines)


def neighbours(maze: Maze, cell: int) -> list[int]:
    """Enterable neighbours of ``cell`` (used by tests and agents)."""
    return [n for n in maze.nbr[cell] if n >= 0 and maze.enterable[n]]


__all__ = [
    "CLASSIC_MAP",
    "CRYPT_MAP",
    "DEFAULT_MAZE",
    "DIRECTIONS",
    "DIRECTION_NAMES",
    "MAP",
    "MAPS",
    "Maze",
    "MazeError",
    "NUM_TREASURES",
    "get_maze",
    "map_lines",
    "parse_maze",
]
