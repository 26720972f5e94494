"""The Sorry! board as data: track, safety zones, slides and their colours (sorry.md, 2.3).

Positions of a pawn are small ints: ``0..59`` a track square (clockwise), ``SAFE_BASE + s`` the
owner's safety square ``s`` (1..5), ``HOME`` and ``START``.
"""

from __future__ import annotations

#: S2: track squares on the 16x16 perimeter.
TRACK_LEN = 60
#: S2: squares in each colour's safety zone.
SAFE_LEN = 5
#: Squares from one colour's corner to the next.
SIDE = 15
#: ``SAFE_BASE + s`` is safety square ``s`` (1..5) of the pawn's owner.
SAFE_BASE = TRACK_LEN - 1
HOME = SAFE_BASE + SAFE_LEN + 1  # 65
START = HOME + 1  # 66
#: Distinct pawn positions, the size of a one-hot position code.
NUM_POSITIONS = START + 1

COLOR_NAMES = ("Red", "Blue", "Yellow", "Green")
COLOR_LETTERS = "RBYG"

#: S3: (triangle offset, end offset) of the short and long slide on each side, from 15*side.
SLIDE_OFFSETS = ((0, 3), (8, 12))


def base(color: int) -> int:
    """Track index of the first square of ``color``'s side (2.3: ``b = 15 p``)."""
    return SIDE * color


def safety_entry(color: int) -> int:
    """S4: the last track square before ``color`` turns into its safety zone (``b + 1``)."""
    return base(color) + 1


def start_exit(color: int) -> int:
    """S4: the square just outside ``color``'s Start (``b + 3``), the end of the short slide."""
    return base(color) + 3


def slide_color(side: int, slide_rule: str) -> int:
    """S8: the colour shown on both slides of ``side``.

    ``own_color`` (DECIDED default): the colour of the player opposite, ``(side + 2) mod 4``.
    ``classic``: the side's own colour.
    """
    return (side + 2) % 4 if slide_rule == "own_color" else side


def pawn_slides(pawn_color: int, side: int, slide_rule: str) -> bool:
    """S8: whether a pawn of ``pawn_color`` landing on a triangle of ``side`` slides."""
    shown = slide_color(side, slide_rule)
    return shown == pawn_color if slide_rule == "own_color" else shown != pawn_color


def slide_table(pawn_color: int, slide_rule: str) -> tuple[tuple[int, tuple[int, ...]] | None, ...]:
    """For each track square: ``(end, other squares of the slide)`` if a pawn of ``pawn_color`` slides
    from it (S8, S9), else ``None``."""
    table: list[tuple[int, tuple[int, ...]] | None] = [None] * TRACK_LEN
    for side in range(4):
        if not pawn_slides(pawn_color, side, slide_rule):
            continue
        for tri, end in SLIDE_OFFSETS:
            t, e = base(side) + tri, base(side) + end
            table[t] = (e, tuple(range(t + 1, e + 1)))
    return tuple(table)


#: Slide tables by rule, then by pawn colour.
SLIDES = {rule: tuple(slide_table(c, rule) for c in range(4)) for rule in ("own_color", "classic")}


def forward(color: int, pos: int, n: int) -> int:
    """Where a pawn of ``color`` on a track or safety square lands after ``n`` steps forward, or -1.

    S4: the pawn never passes its own safety entry on the track but turns in there; S19: Home by
    exact count only. Start and Home pawns are handled by the caller (Start) or cannot move (Home).
    """
    if pos > SAFE_BASE:  # safety square (Home never reaches here)
        s = pos - SAFE_BASE + n
        return SAFE_BASE + s if s <= SAFE_LEN + 1 else -1
    to_entry = (safety_entry(color) - pos) % TRACK_LEN
    if n <= to_entry:
        return (pos + n) % TRACK_LEN
    k = n - to_entry
    return SAFE_BASE + k if k <= SAFE_LEN + 1 else -1


def backward(color: int, pos: int, n: int) -> int:
    """Where a pawn lands after ``n`` steps backward (S17, S18): never into a safety zone."""
    if pos > SAFE_BASE:
        s = pos - SAFE_BASE
        return pos - n if n < s else (safety_entry(color) - (n - s)) % TRACK_LEN
    return (pos - n) % TRACK_LEN


def _move_table(move: object, color: int) -> tuple[tuple[int, ...], ...]:
    """``table[pos][n]``: the landing square of ``move(color, pos, n)`` for every track or safety
    square and ``n`` in 0..12, precomputed so the rules look moves up instead of stepping."""
    return tuple(tuple(move(color, pos, n) for n in range(13)) for pos in range(HOME))  # type: ignore[operator]


#: ``FORWARD_TABLE[color][pos][n]``: :func:`forward` for every track/safety square and n in 0..12.
FORWARD_TABLE = tuple(_move_table(forward, c) for c in range(4))
#: ``BACKWARD_TABLE[color][pos][n]``: :func:`backward` likewise.
BACKWARD_TABLE = tuple(_move_table(backward, c) for c in range(4))


def grid_cell(track: int) -> tuple[int, int]:
    """2.3 grid rendering: (row, col) of a track square on the 16x16 picture."""
    k = track
    if k <= 14:
        return (0, k + 1)
    if k <= 29:
        return (k - 14, 15)
    if k <= 44:
        return (15, 44 - k)
    return (59 - k, 0)


def rotate(cell: tuple[int, int], quarter_turns: int) -> tuple[int, int]:
    """Rotate a cell of the 16x16 picture clockwise by 90 degrees ``quarter_turns`` times."""
    r, c = cell
    for _ in range(quarter_turns % 4):
        r, c = c, 15 - r
    return (r, c)


def safe_cell(color: int, s: int) -> tuple[int, int]:
    """Picture cell of ``color``'s safety square ``s`` (1..5)."""
    return rotate((s, 2), color)


def home_cell(color: int) -> tuple[int, int]:
    """Picture cell of ``color``'s Home."""
    return rotate((6, 2), color)


def start_cell(color: int) -> tuple[int, int]:
    """Picture cell of ``color``'s Start."""
    return rotate((1, 4), color)
