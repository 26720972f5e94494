"""Pictures of Gangsi positions: ``render_mode="rgb_array"``, ``"human"`` and ``docs/images/gangsi*.png``.

The maze is drawn as the specification maps it (gangsi.md 3.3, K7): stone floor tinted by the five
areas of the mission colours (K3, K5), walls, the 23 treasure squares with their codes, the tomb
entrance and the Kyonshi's coffin. The side panel shows the Kyonshi's life tokens (K18, the seed's end
table), the five shared hunter dice (K2, K15: free faces, dice set aside, the declared face K9/K29,
re-rolls K14) and a row per hunter piece (lives, the five mission cards K4, cards found). A bar at the
bottom says who is to act and what they must decide, or how the game ended (K20, K26).

Views (hidden information, K9): ``view=None`` shows everything. The Kyonshi's view (player 0) never
uses a hunter's square, hand, roll or move in progress: each piece is drawn as its public possibility
set (K32), the dots of the piece's colour on every square it may stand on, or as a pawn when the set
is one square, exactly as the Kyonshi's observation encodes it; the free dice show ``?``. A hunter's
view shows every piece and the roll, its own hand (its treasures still to find are ringed on the
board), and the other hands as card backs.

Pillow is reached only through :mod:`boardenvs.core.render`; this module is imported when a picture is
asked for (:meth:`boardenvs.gangsi.env.GangsiGame.draw`). :func:`save_example` writes the pictures of
the docs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from boardenvs.core import render
from boardenvs.core.game import Game, Place
from boardenvs.core.positions import random_position
from boardenvs.gangsi.board import Maze
from boardenvs.gangsi.cards import (
    ARROW,
    CARD_COLOR,
    COLOR_MASK,
    FACE_STEPS,
    LIVES,
    NUM_COLORS,
    NUM_HUNTER_DICE,
    NUM_MOVE_FACES,
    TREASURE_CODES,
)
from boardenvs.gangsi.rules import (
    DIR,
    KYONSHI,
    PASSED,
    PH_CHOOSE,
    PH_DEAL,
    PH_DIR,
    PH_KY_MOVE,
    PH_KY_ROLL,
    PH_OVER,
    PH_RESET,
    PH_ROLL,
    GangsiState,
    bits,
)

if TYPE_CHECKING:  # pragma: no cover - imports for type hints only
    from PIL import Image, ImageDraw

# -- layout (pixels) ----------------------------------------------------------------------------------
CELL = 50
PAD = 14
TITLE_H = 38
LABEL = 18
GAP = 18
PANEL_W = 282
KY_SECTION_H = 76
DICE_SECTION_H = 122
ROW_H = 96
PROMPT_H = 36
CARD_W, CARD_H, CARD_GAP = 31, 46, 5
DIE = 40

# -- colours ------------------------------------------------------------------------------------------
TITLE_BG = (48, 38, 44)
FLOOR = (230, 221, 200)
GRID = (212, 201, 178)
WALL = (58, 44, 40)
STONE = (150, 138, 122)
#: K3: the backs of the five mission decks (grey, pink, orange, yellow, colour E = green).
DECK_COLORS = ((128, 132, 146), (226, 104, 156), (232, 134, 44), (226, 184, 30), (64, 156, 84))
#: The hunter pieces and their life tokens (the seed's four colours, not named there).
HUNTER_COLORS = ((214, 48, 49), (25, 110, 215), (0, 150, 150), (128, 70, 190))
#: The Kyonshi (dark ultramarine, like its die) and its talisman.
KY_COLOR = (36, 44, 104)
TALISMAN = (250, 214, 60)
SEAL = (200, 30, 30)
ACT_BG = (255, 238, 186)


def _region(maze: Maze, cell: int) -> int:
    """K5 / 3.3: the mission colour of the area of ``cell`` (quadrants, and colour E on the centre cross)."""
    r, c = divmod(cell, maze.cols)
    mr, mc = maze.rows // 2, maze.cols // 2
    if r == mr or c == mc:
        return 4
    return (0 if c < mc else 1) if r < mr else (2 if c < mc else 3)


class Layout:
    """Where everything goes for one maze and one number of hunter pieces (so the size is fixed)."""

    def __init__(self, maze: Maze, pieces: int) -> None:
        self.bx = PAD + LABEL
        self.by = TITLE_H + LABEL + 6
        self.bw = maze.cols * CELL
        self.bh = maze.rows * CELL
        self.px = self.bx + self.bw + GAP
        self.py = TITLE_H + 8
        self.rows_y = self.py + KY_SECTION_H + DICE_SECTION_H
        panel_bottom = self.rows_y + pieces * ROW_H
        self.prompt_y = max(self.by + self.bh + PAD, panel_bottom + 4)
        self.width = self.px + PANEL_W + PAD
        self.height = self.prompt_y + PROMPT_H + PAD // 2

    def cell_box(self, maze: Maze, cell: int) -> tuple[int, int, int, int]:
        """Pixel box of ``cell``."""
        r, c = divmod(cell, maze.cols)
        x0, y0 = self.bx + c * CELL, self.by + r * CELL
        return x0, y0, x0 + CELL, y0 + CELL

    def center(self, maze: Maze, cell: int) -> tuple[float, float]:
        """Pixel centre of ``cell``."""
        x0, y0, x1, y1 = self.cell_box(maze, cell)
        return (x0 + x1) / 2, (y0 + y1) / 2


def image_size(game: Game) -> tuple[int, int]:
    """``(width, height)`` of every picture of ``game`` (it depends on the options only)."""
    layout = Layout(game.maze, game.options.num_hunters)
    return layout.width, layout.height


# -- the static board ---------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _background(maze: Maze, pieces: int) -> Image.Image:
    """The empty table: title bar, maze (floor, areas, walls, treasures, entrance, coffin) and labels."""
    pil = render.require_pillow()
    lay = Layout(maze, pieces)
    img = render.new_image(lay.width, lay.height)
    draw = pil.ImageDraw.Draw(img)
    draw.rectangle((0, 0, lay.width, TITLE_H), fill=TITLE_BG)
    # Floor, tinted by area (K5), and a faint grid.
    for cell in range(maze.size):
        x0, y0, x1, y1 = lay.cell_box(maze, cell)
        tint = render.mix(FLOOR, DECK_COLORS[_region(maze, cell)], 0.16)
        draw.rectangle((x0, y0, x1, y1), fill=tint, outline=GRID)
    for c in range(maze.cols):
        render.text(draw, (lay.bx + c * CELL + CELL / 2, lay.by - 10), str(c), 11, render.MUTED, "mm")
    for r in range(maze.rows):
        render.text(draw, (lay.bx - 9, lay.by + r * CELL + CELL / 2), str(r), 11, render.MUTED, "mm")
    # Treasures (K5): one square each, in the colour of its mission deck.
    for t, cell in enumerate(maze.treasure_cell):
        _treasure_tile(draw, lay.cell_box(maze, cell), t)
    _entrance(draw, lay.cell_box(maze, maze.entrance))
    _coffin(draw, lay.cell_box(maze, maze.coffin))
    _section(draw, lay, lay.py, "THE KYONSHI")
    _section(draw, lay, lay.py + KY_SECTION_H, "HUNTER DICE")
    # Walls: every blocked edge (the border included), drawn as overlapping bars so corners join.
    half = 2.5
    for cell in range(maze.size):
        x0, y0, x1, y1 = lay.cell_box(maze, cell)
        nbr = maze.nbr[cell]
        if nbr[0] < 0:
            draw.rectangle((x0 - half, y0 - half, x1 + half, y0 + half), fill=WALL)
        if nbr[2] < 0:
            draw.rectangle((x0 - half, y1 - half, x1 + half, y1 + half), fill=WALL)
        if nbr[3] < 0:
            draw.rectangle((x0 - half, y0 - half, x0 + half, y1 + half), fill=WALL)
        if nbr[1] < 0:
            draw.rectangle((x1 - half, y0 - half, x1 + half, y1 + half), fill=WALL)
    return img


def _treasure_tile(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], t: int) -> None:
    x0, y0, x1, y1 = box
    deck = DECK_COLORS[CARD_COLOR[t]]
    draw.rounded_rectangle(
        (x0 + 6, y0 + 6, x1 - 6, y1 - 6),
        radius=7,
        fill=render.mix(deck, (255, 255, 255), 0.5),
        outline=deck,
        width=2,
    )
    render.text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), TREASURE_CODES[t], 15, render.INK, "mm")


def _entrance(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    """The tomb entrance: a dark doorway (the hunters' start, never entered again)."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=STONE)
    draw.rounded_rectangle((x0 + 10, y0 + 9, x1 - 10, y1 + 2), radius=14, fill=(28, 24, 24))
    render.text(draw, ((x0 + x1) / 2, y1 - 8), "ENTRY", 9, (235, 225, 205), "mm")


def _coffin(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int]) -> None:
    """The Kyonshi's coffin (its start; the captured hunters' restart; never entered)."""
    x0, y0, x1, y1 = box
    cx = (x0 + x1) / 2
    draw.rectangle(box, fill=STONE)
    shape = [(cx - 8, y0 + 5), (cx + 8, y0 + 5), (cx + 13, y0 + 16), (cx + 9, y1 - 5), (cx - 9, y1 - 5),
             (cx - 13, y0 + 16)]  # fmt: skip
    draw.polygon(shape, fill=(112, 62, 34), outline=(50, 28, 16))
    draw.line((cx - 11, y0 + 16, cx + 11, y0 + 16), fill=(60, 32, 18), width=2)
    render.text(draw, (cx, y0 + 28), "CF", 10, (245, 225, 190), "mm")


# -- pieces --------------------------------------------------------------------------------------------
def _kyonshi(draw: ImageDraw.ImageDraw, center: tuple[float, float], r: float) -> None:
    """The Kyonshi: a dark robed figure with a Qing hat and a yellow talisman on its forehead."""
    x, y = center
    draw.ellipse((x - r, y - r, x + r, y + r), fill=KY_COLOR, outline=render.INK, width=2)
    draw.rectangle((x - 0.8 * r, y - 0.95 * r, x + 0.8 * r, y - 0.55 * r), fill=(20, 20, 24))
    draw.rectangle(
        (x - 0.32 * r, y - 0.6 * r, x + 0.32 * r, y + 0.55 * r), fill=TALISMAN, outline=(120, 90, 0)
    )
    for k in range(3):
        yy = y - 0.4 * r + k * 0.3 * r
        draw.line((x - 0.18 * r, yy, x + 0.18 * r, yy + 0.1 * r), fill=SEAL, width=2)


def _slots(count: int, r_one: float = 16) -> list[tuple[float, float, float]]:
    """Offsets and radius of ``count`` pieces sharing one square."""
    if count == 1:
        return [(0.0, 0.0, r_one)]
    if count == 2:
        return [(-11.0, 0.0, 11.0), (11.0, 0.0, 11.0)]
    return [(dx, dy, 10.5) for dy in (-11.0, 11.0) for dx in (-11.0, 11.0)][:count] + [
        (0.0, 0.0, 9.0) for _ in range(max(0, count - 4))
    ]


def _pieces(
    draw: ImageDraw.ImageDraw, lay: Layout, maze: Maze, groups: dict[int, list[tuple[str, int]]], acting: int
) -> None:
    """Draw every piece: ``groups[cell]`` lists ``("K", -1)`` or ``("H", piece)``; ``acting`` is ringed."""
    for cell, members in groups.items():
        cx, cy = lay.center(maze, cell)
        for (kind, j), (dx, dy, r) in zip(members, _slots(len(members)), strict=False):
            x, y = cx + dx, cy + dy
            if kind == "K":
                _kyonshi(draw, (x, y), r)
                continue
            if j == acting:
                draw.ellipse((x - r - 4, y - r - 4, x + r + 4, y + r + 4), outline=render.HIGHLIGHT, width=3)
            render.pawn(draw, (x, y), r, HUNTER_COLORS[j], str(j))


def _check(draw: ImageDraw.ImageDraw, x: float, y: float, r: float, color: tuple[int, int, int]) -> None:
    """A round badge with a check mark."""
    draw.ellipse((x - r, y - r, x + r, y + r), fill=color, outline=render.INK, width=1)
    draw.line((x - 0.5 * r, y, x - 0.1 * r, y + 0.45 * r, x + 0.55 * r, y - 0.45 * r), fill="white", width=2)


def _arrowhead(draw: ImageDraw.ImageDraw, x: float, y: float, d: int, size: float, fill: Any) -> None:
    """A triangle at ``(x, y)`` pointing in direction ``d`` (north, east, south, west)."""
    dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[d]
    px, py = -dy, dx
    pts = [(x + dx * size, y + dy * size), (x + px * size * 0.8, y + py * size * 0.8),
           (x - px * size * 0.8, y - py * size * 0.8)]  # fmt: skip
    draw.polygon(pts, fill=fill, outline=render.INK)


# -- dice ------------------------------------------------------------------------------------------------
def _hunter_die(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], face: str) -> None:
    """A hunter die: ``"0"``-``"3"`` the numbers 1-4, ``"arrow"``, ``"kyonshi"``, ``"?"`` (unseen) or
    ``""`` (not rolled yet)."""
    x0, y0, x1, y1 = box
    if face == "kyonshi":
        draw.rounded_rectangle(box, radius=6, fill=KY_COLOR, outline=render.INK, width=2)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        draw.rectangle((cx - 6, y0 + 7, cx + 6, y1 - 7), fill=TALISMAN)
        for k in range(3):
            draw.line((cx - 3, y0 + 12 + 6 * k, cx + 3, y0 + 14 + 6 * k), fill=SEAL, width=2)
    elif face == "arrow":
        draw.rounded_rectangle(box, radius=6, fill=(255, 252, 240), outline=render.INK, width=2)
        cy = (y0 + y1) / 2
        draw.line((x0 + 8, cy, x1 - 14, cy), fill=render.INK, width=4)
        _arrowhead(draw, x1 - 12, cy, 1, 8, render.INK)
    elif face in ("?", ""):
        fill = (222, 218, 210) if face == "?" else (238, 234, 224)
        draw.rounded_rectangle(box, radius=6, fill=fill, outline=render.MUTED, width=2)
        if face:
            render.text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), "?", 20, render.MUTED, "mm")
    else:
        render.die(draw, box, FACE_STEPS[int(face)], fill=(255, 252, 240))


def _face_name(face: int) -> str:
    return "arrow" if face == ARROW else str(FACE_STEPS[face])


# -- the picture ----------------------------------------------------------------------------------------
def draw_state(game: Game, state: GangsiState, view: int | None = None) -> Image.Image:
    """A picture of ``state`` as ``view`` may see it (``None``: everything; 0: the Kyonshi; a hunter id).

    Raises:
        ValueError: for a view that is not ``None`` or a player of ``game``.
    """
    if view is not None and not 0 <= view < game.num_players:
        raise ValueError(f"gangsi_v0: view must be None or a player id 0..{game.num_players - 1}, got {view}")
    pil = render.require_pillow()
    maze = state.maze
    lay = Layout(maze, state.n)
    img = _background(maze, state.n).copy()
    draw = pil.ImageDraw.Draw(img)
    kyonshi_view = view == KYONSHI
    mine = set(state.pieces_of(view)) if view is not None and not kyonshi_view else set()
    sees_hand = (lambda j: True) if view is None else (lambda j: j in mine)
    acting = state.acting if state.phase in (PH_RESET, PH_ROLL, PH_CHOOSE, PH_DIR) else -1
    if state.phase == PH_KY_MOVE and state.interrupt:
        acting = state.acting  # the resetting piece waits for the interrupt to end

    _title(draw, lay, game, state, view)
    _board_marks(draw, lay, state, kyonshi_view, mine, sees_hand)
    if kyonshi_view:
        _possibility_sets(draw, lay, state, acting)
    else:
        _move_hints(draw, lay, state)
        groups: dict[int, list[tuple[str, int]]] = {}
        for j, at in enumerate(state.pos):
            if at >= 0:
                groups.setdefault(at, []).append(("H", j))
        groups.setdefault(state.ky, []).insert(0, ("K", -1))
        _pieces(draw, lay, maze, groups, acting)
    _kyonshi_steps(draw, lay, state)
    _kyonshi_panel(draw, lay, state)
    if kyonshi_view:
        legend = "dots: where each hunter may be; faces unseen"
    elif view is None:
        legend = "rings: the treasure cards each hunter holds"
    else:
        legend = "gold rings: the treasures you still need"
    _dice_panel(draw, lay, state, kyonshi_view, legend)
    for j in range(state.n):
        _hunter_row(img, draw, lay, game, state, j, view, sees_hand(j), acting)
    _prompt(draw, lay, game, state, view)
    return img


def _agent(game: Game, state: GangsiState, piece: int) -> str:
    """The agent name that moves ``piece`` (one agent moves both pieces of the one-controller game)."""
    name = game.agents[state.player_of(piece)]
    return f"{name} (piece {piece})" if state.options.one_controller else name


def _title(draw: ImageDraw.ImageDraw, lay: Layout, game: Game, state: GangsiState, view: int | None) -> None:
    render.text(draw, (PAD, TITLE_H / 2), "GANGSI", 18, TALISMAN, "lm")
    render.text(draw, (PAD + 78, TITLE_H / 2), "hunters vs. the Kyonshi", 13, (225, 215, 200), "lm")
    shown = min(state.round + (0 if state.phase == PH_OVER else 1), state.options.max_rounds)
    render.text(
        draw,
        (lay.bx + lay.bw, TITLE_H / 2),
        f"round {shown} / {state.options.max_rounds}",
        14,
        (255, 255, 255),
        "rm",
    )
    if view is None:
        label = "full view (spectator)"
    elif view == KYONSHI:
        label = "the Kyonshi's view"
    else:
        label = f"{game.agents[view]}'s view"
    render.text(draw, (lay.width - PAD, TITLE_H / 2), label, 14, TALISMAN, "rm")


def _board_marks(
    draw: ImageDraw.ImageDraw,
    lay: Layout,
    state: GangsiState,
    kyonshi_view: bool,
    mine: set[int],
    sees_hand: Any,
) -> None:
    """Revealed treasures (check badge in the finder's colour) and, where the view may know them, the
    treasures still needed (a ring in the holder's colour)."""
    maze = state.maze
    for j in range(state.n):
        for t in bits(state.revealed[j]):
            x0, y0, x1, y1 = lay.cell_box(maze, maze.treasure_cell[t])
            draw.rounded_rectangle(
                (x0 + 6, y0 + 6, x1 - 6, y1 - 6), radius=7, outline=HUNTER_COLORS[j], width=3
            )
            _check(draw, x1 - 10, y0 + 10, 7, HUNTER_COLORS[j])
        if kyonshi_view or not sees_hand(j):
            continue
        for t in bits(state.hand[j] & ~state.revealed[j]):
            x0, y0, x1, y1 = lay.cell_box(maze, maze.treasure_cell[t])
            if mine:
                draw.rounded_rectangle(
                    (x0 + 2, y0 + 2, x1 - 2, y1 - 2), radius=9, outline=render.HIGHLIGHT, width=3
                )
            draw.rounded_rectangle(
                (x0 + 5, y0 + 5, x1 - 5, y1 - 5), radius=8, outline=HUNTER_COLORS[j], width=3
            )


def _possibility_sets(draw: ImageDraw.ImageDraw, lay: Layout, state: GangsiState, acting: int) -> None:
    """The Kyonshi's view of the pieces (K9, K32): dots on every square a piece may stand on, or a pawn
    when its square is known; the Kyonshi itself is always known."""
    maze = state.maze
    groups: dict[int, list[tuple[str, int]]] = {state.ky: [("K", -1)]}
    corners = ((-1, -1), (1, -1), (-1, 1), (1, 1))
    for j in range(state.n):
        cells = bits(state.maybe[j])
        if len(cells) == 1:
            groups.setdefault(cells[0], []).append(("H", j))
            continue
        sx, sy = corners[j % 4]
        for cell in cells:
            cx, cy = lay.center(maze, cell)
            x, y = cx + sx * (CELL / 2 - 12), cy + sy * (CELL / 2 - 12)
            draw.ellipse((x - 6, y - 6, x + 6, y + 6), fill=HUNTER_COLORS[j], outline=render.INK, width=1)
    _pieces(draw, lay, maze, groups, acting)


def _move_hints(draw: ImageDraw.ImageDraw, lay: Layout, state: GangsiState) -> None:
    """A move in progress (seen by every hunter): squares stepped on and the squares it may end on."""
    if state.phase != PH_DIR or state.acting < 0:
        return
    maze = state.maze
    color = HUNTER_COLORS[state.acting]
    for cell in bits(state.visited):
        if cell != state.pos[state.acting]:
            cx, cy = lay.center(maze, cell)
            draw.rectangle((cx - 6, cy - 6, cx + 6, cy + 6), fill=color, outline=render.INK)
    for cell in state.pending_destinations():
        cx, cy = lay.center(maze, cell)
        r = CELL / 2 - 5
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=3)
        draw.ellipse((cx - r + 4, cy - r + 4, cx + r - 4, cy + r - 4), outline=render.HIGHLIGHT, width=2)


def _kyonshi_steps(draw: ImageDraw.ImageDraw, lay: Layout, state: GangsiState) -> None:
    """During the Kyonshi's move: arrows toward the squares it may step to (K17)."""
    if state.phase != PH_KY_MOVE:
        return
    maze = state.maze
    cx, cy = lay.center(maze, state.ky)
    for d in range(4):
        nxt = maze.nbr[state.ky][d]
        if nxt >= 0 and maze.enterable[nxt]:
            dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[d]
            _arrowhead(draw, cx + dx * (CELL / 2 + 1), cy + dy * (CELL / 2 + 1), d, 8, render.HIGHLIGHT)


@lru_cache(maxsize=64)
def _card_sprite(card: int, revealed: bool) -> Image.Image:
    """A mission card (RGBA, cached): treasure ``card`` face up (revealed: in the full deck colour), or
    for ``card = -1 - colour`` the back of that deck."""
    pil = render.require_pillow()
    sprite = pil.Image.new("RGBA", (CARD_W + 1, CARD_H + 1), (0, 0, 0, 0))
    draw = pil.ImageDraw.Draw(sprite)
    box = (0, 0, CARD_W, CARD_H)
    if card < 0:
        deck = DECK_COLORS[-1 - card]
        draw.rounded_rectangle(
            box, radius=6, fill=render.mix(deck, (40, 40, 40), 0.25), outline=render.INK, width=2
        )
        draw.rounded_rectangle(
            (5, 5, CARD_W - 5, CARD_H - 5), 4, outline=render.mix(deck, (255, 255, 255), 0.5)
        )
    else:
        deck = DECK_COLORS[CARD_COLOR[card]]
        fill = deck if revealed else render.mix(deck, (255, 255, 255), 0.6)
        render.card(draw, box, TREASURE_CODES[card], fill=fill, size=13)
    return sprite


def _section(draw: ImageDraw.ImageDraw, lay: Layout, y: float, title: str) -> None:
    render.text(draw, (lay.px, y), title, 13, render.MUTED)
    draw.line((lay.px, y + 17, lay.px + PANEL_W, y + 17), fill=GRID, width=1)


def _kyonshi_panel(draw: ImageDraw.ImageDraw, lay: Layout, state: GangsiState) -> None:
    """The Kyonshi: its life tokens (each in the colour of the hunter it came from) and its move."""
    y = lay.py
    ky_turn = state.phase in (PH_KY_ROLL, PH_KY_MOVE)
    if ky_turn:
        draw.rounded_rectangle((lay.px - 4, y + 21, lay.px + PANEL_W, y + KY_SECTION_H - 4), 8, fill=ACT_BG)
    _kyonshi(draw, (lay.px + 17, y + 45), 15)
    taken = [j for j in range(state.n) for _ in range(LIVES - max(state.lives[j], 0))]
    render.text(draw, (lay.px + 40, y + 24), f"life tokens {state.tokens} / {state.threshold}", 13)
    for k in range(state.threshold):
        x = lay.px + 48 + k * 21
        box = (x - 8, y + 46, x + 8, y + 62)
        if k < len(taken):
            draw.ellipse(box, fill=HUNTER_COLORS[taken[k]], outline=render.INK, width=1)
            draw.ellipse((x - 4, y + 51, x - 1, y + 54), fill="white")
            draw.ellipse((x + 1, y + 51, x + 4, y + 54), fill="white")
        else:
            draw.ellipse(box, outline=render.MUTED, width=1)
    if state.phase == PH_KY_MOVE:
        what = "interrupt" if state.interrupt else "move"
        render.text(
            draw, (lay.px + PANEL_W - 2, y + 24), f"{what}: {state.ky_steps} left", 12, render.INK, "ra"
        )
    elif state.phase == PH_KY_ROLL:
        render.text(draw, (lay.px + PANEL_W - 2, y + 24), "rolls its die", 12, render.INK, "ra")


def _dice_panel(
    draw: ImageDraw.ImageDraw, lay: Layout, state: GangsiState, kyonshi_view: bool, legend: str
) -> None:
    """The five shared hunter dice (K15): free dice (their faces hidden from the Kyonshi), dice set aside."""
    y = lay.py + KY_SECTION_H
    free = NUM_HUNTER_DICE - state.aside
    if kyonshi_view:
        faces = ["?"] * free
    else:
        faces = [
            str(f) if f < ARROW else "arrow" for f in range(NUM_MOVE_FACES) for _ in range(state.faces[f])
        ]
        faces += [""] * (free - len(faces))
    declared = state.face if state.phase == PH_DIR else -1
    marked = False
    x = lay.px
    dy = y + 26
    for k, face in enumerate(faces + ["kyonshi"] * state.aside):
        if k == free and free:
            x += 10  # the dice set aside lie apart
        box = (x, dy, x + DIE, dy + DIE)
        _hunter_die(draw, box, face)
        if declared >= 0 and not marked and face == (str(declared) if declared < ARROW else "arrow"):
            draw.rounded_rectangle(
                (x - 4, dy - 4, x + DIE + 4, dy + DIE + 4), 8, outline=render.HIGHLIGHT, width=3
            )
            marked = True
        x += DIE + 6
    notes = [f"set aside: {state.aside}", f"re-rolls: {state.rerolls}"]
    if declared >= 0:
        notes.append(f"declared: {_face_name(declared)}")
    render.text(draw, (lay.px, dy + DIE + 8), "   ".join(notes), 13)
    render.text(draw, (lay.px, dy + DIE + 28), legend, 11, render.MUTED)


def _hunter_row(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    lay: Layout,
    game: Game,
    state: GangsiState,
    j: int,
    view: int | None,
    sees_hand: bool,
    acting: int,
) -> None:
    """One hunter piece: colour, name, lives, the five mission cards, cards found, where it is."""
    x, y = lay.px, lay.rows_y + j * ROW_H
    color = HUNTER_COLORS[j]
    alive = state.lives[j] > 0
    if j == acting:
        draw.rounded_rectangle((x - 4, y + 2, x + PANEL_W, y + ROW_H - 4), 8, fill=ACT_BG)
    render.pawn(draw, (x + 13, y + 17), 11, color if alive else render.MUTED, str(j))
    name = _agent(game, state, j)
    if view is not None and view != KYONSHI and j in state.pieces_of(view):
        name += "  (you)"
    render.text(draw, (x + 30, y + 17), name, 14, render.INK if alive else render.MUTED, "lm")
    for k in range(LIVES):
        lx = x + PANEL_W - 10 - k * 18
        box = (lx - 7, y + 10, lx + 7, y + 24)
        if k < state.lives[j]:
            draw.ellipse(box, fill=color, outline=render.INK, width=1)
        else:
            draw.ellipse(box, outline=render.MUTED, width=1)
    # The five cards, one per colour (K4).
    cy = y + 34
    for c in range(NUM_COLORS):
        cx = x + c * (CARD_W + CARD_GAP)
        box = (cx, cy, cx + CARD_W, cy + CARD_H)
        held = bits(state.hand[j] & COLOR_MASK[c])
        shown = state.revealed[j] & COLOR_MASK[c]
        if shown:
            sprite = _card_sprite(bits(shown)[0], True)
            img.paste(sprite, (cx, cy), sprite)
            _check(draw, cx + CARD_W - 5, cy + 5, 6, color)
        elif sees_hand and held:
            sprite = _card_sprite(held[0], False)
            img.paste(sprite, (cx, cy), sprite)
        elif state.phase != PH_DEAL and (alive or view is None):
            # A card back: the deck colour is public (one card of each colour, K4), its treasure is not.
            sprite = _card_sprite(-1 - c, False)
            img.paste(sprite, (cx, cy), sprite)
        else:
            draw.rounded_rectangle(box, radius=6, outline=GRID, width=2)
    # Status beside the cards.
    tx = x + NUM_COLORS * (CARD_W + CARD_GAP) + 4
    found = bin(state.revealed[j]).count("1")
    render.text(draw, (tx, cy), f"found {found}/5", 12, render.INK if alive else render.MUTED)
    lines = _whereabouts(state, j, view)
    for k, line in enumerate(lines):
        render.text(draw, (tx, cy + 16 + 15 * k), line, 12, render.MUTED)


def _whereabouts(state: GangsiState, j: int, view: int | None) -> list[str]:
    """What the view knows of where piece ``j`` is."""
    maze = state.maze
    if state.lives[j] <= 0:
        return ["eliminated"]
    if view == KYONSHI:
        size = bin(state.maybe[j]).count("1")
        last = state.last_face[j]
        said = "" if last < 0 else ("passed" if last == PASSED else f"last face {_face_name(last)}")
        where = "square known" if size == 1 else f"{size} squares?"
        return [where, said] if said else [where]
    at = state.pos[j]
    place = "entrance" if at == maze.entrance else "coffin" if at == maze.coffin else maze.cell_name(at)
    lines = [f"at {place}"]
    if view is None:
        size = bin(state.maybe[j]).count("1")
        lines.append("Kyonshi knows" if size == 1 else f"Kyonshi: {size} sq.")
    return lines


def _prompt(draw: ImageDraw.ImageDraw, lay: Layout, game: Game, state: GangsiState, view: int | None) -> None:
    """Who is to act and what they decide, or the outcome (the steps left of a move only for those who
    see the move)."""
    y0 = lay.prompt_y
    box = (PAD, y0, lay.width - PAD, y0 + PROMPT_H)
    phase = state.phase
    swatch: tuple[int, int, int] | None = None
    fill = (255, 255, 255)
    if phase == PH_OVER:
        fill = (255, 226, 130)
        if state.truncated:
            message = f"Game over: the round cap ({state.options.max_rounds}) truncated the game"
        elif state.winner == KYONSHI:
            if state.tokens >= state.threshold:
                message = f"Game over: the Kyonshi wins with {state.tokens} of {state.threshold} life tokens"
            else:
                message = f"Game over: the Kyonshi wins at the round cap ({state.options.max_rounds} rounds)"
        else:
            piece = next(
                (j for j in range(state.n) if bin(state.revealed[j]).count("1") == NUM_COLORS),
                state.winner - 1,
            )
            swatch = HUNTER_COLORS[piece]
            message = f"Game over: {_agent(game, state, piece)} wins, its fifth treasure found"
    elif phase == PH_DEAL:
        message = "Dealing the mission cards: one of each colour to every hunter piece"
    elif phase in (PH_KY_ROLL, PH_KY_MOVE):
        swatch = KY_COLOR
        fill = ACT_BG
        if phase == PH_KY_ROLL:
            message = f"The Kyonshi rolls its die; it moves up to the roll + {state.aside} dice set aside"
        elif state.interrupt:
            message = (
                f"The Kyonshi's interrupt ({_agent(game, state, state.acting)} resets the dice): "
                f"step or stop, {state.ky_steps} left"
            )
        else:
            message = f"The Kyonshi: step north / east / south / west or stop ({state.ky_steps} left)"
    else:
        j = state.acting
        swatch = HUNTER_COLORS[j]
        fill = ACT_BG
        who = _agent(game, state, j)
        if phase == PH_RESET:
            message = (
                f"{who}: reset the {state.aside} dice set aside (the Kyonshi moves {state.aside} first) "
                f"or keep them and roll {NUM_HUNTER_DICE - state.aside}"
            )
        elif phase == PH_ROLL:
            message = f"{who} rolls the free dice"
        elif phase == PH_CHOOSE:
            message = f"{who}: declare a face to move by, or re-roll the free dice"
        else:
            message = f"{who}: choose the direction to move {_face_name(state.face)}"
            if state.options.hunter_turns and state.face != ARROW and view != KYONSHI:
                message += f" ({state.steps} of {FACE_STEPS[state.face]} steps left)"
    draw.rounded_rectangle(box, radius=8, fill=fill, outline=render.INK, width=2)
    x = PAD + 12
    if swatch is not None:
        draw.ellipse(
            (x, y0 + PROMPT_H / 2 - 8, x + 16, y0 + PROMPT_H / 2 + 8), fill=swatch, outline=render.INK
        )
        x += 24
    render.text(draw, (x, y0 + PROMPT_H / 2), message, 15, render.INK, "lm")


# -- the docs' pictures ----------------------------------------------------------------------------------
def example_state(game: Game, seed: int = 3, decisions: int = 140) -> GangsiState:
    """A seeded mid-game position of a Gangsi ``game`` (random play for ``decisions`` decisions), for the
    docs (four hunters) and the tests."""
    if game.state_class is not GangsiState:
        raise TypeError(f"example_state draws a Gangsi game, not {game.name}")
    return random_position(game, seed, decisions)  # type: ignore[return-value]


def save_example(
    game: Game, directory: str = "docs/images", seed: int = 3, decisions: int = 140
) -> list[str]:
    """Write ``gangsi.png`` (full view) and ``gangsi_kyonshi.png`` (the Kyonshi's view of the same
    position) of :func:`example_state` into ``directory``; returns the paths. The docs' pictures are
    ``save_example(make_game("gangsi_v0"))`` (the default four hunters)."""
    import os

    state = example_state(game, seed, decisions)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for view, name in ((None, "gangsi.png"), (KYONSHI, "gangsi_kyonshi.png")):
        path = os.path.join(directory, name)
        draw_state(game, state, view).save(path, optimize=True)
        paths.append(path)
    return paths


__all__ = ["Layout", "draw_state", "example_state", "image_size", "save_example"]


def action_places(game: Game, state: GangsiState, view: int | None = None) -> dict[int, Place]:
    """:meth:`boardenvs.core.game.Game.action_places`: the square next to the moving piece in each
    direction it may take (the Kyonshi's steps, a hunter's direction), on ``view``'s picture."""
    player = state.current_player()
    if player < 0:
        return {}
    maze = state.maze
    lay = Layout(maze, state.n)
    if player == KYONSHI and state.phase == PH_KY_MOVE:
        origin, first = state.ky, 0
    elif player != KYONSHI and state.phase == PH_DIR and state.acting >= 0:
        origin, first = state.pos[state.acting], DIR
    else:
        return {}
    if origin < 0:
        return {}
    out = {}
    for a in state.legal_actions():
        d = a - first
        if 0 <= d < 4 and maze.nbr[origin][d] >= 0:
            out[a] = tuple(float(v) for v in lay.cell_box(maze, maze.nbr[origin][d]))
    return out  # type: ignore[return-value]
