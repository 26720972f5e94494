"""Pictures of Sorry! positions (``render_mode="rgb_array"``), drawn with Pillow.

The board follows the rulebook's components and the geometry of sorry.md 2.3: the 60-square track
round the edge of a 16x16 grid (Red's side on top, play clockwise), on every side a short slide of 4
squares and a long slide of 5 (S3) in the colour they show (S8: with the default rule ``own_color``
both slides of a side show the colour of the player opposite), each colour's five-square Safety Zone
turning in at its entry square and ending in its Home circle, and its Start circle beside the start
exit (S4). Pawns carry their owner's colour and their number (0-2, as the actions name them); the
pawns the mover may move wear a gold ring. The centre holds the draw pile (cards left) and the card
just drawn; the panel on the right says whose turn it is and what they must decide (the card's
options and the legal moves), the draw count, each player's Start and Home counts, the cards of each
kind left in the draw pile (S1; public, as in the observation) and the outcome at the end.

Views: Sorry!'s only secret is the order of the unseen cards, which a state never holds (the deck is
an unordered multiset), so every player may see the whole position, exactly as its observation does.
A player view differs from the full view only in the way the player sits at the table: the board is
turned so that the player's colour is at the bottom, and the player is marked "you".

The image is always ``WIDTH x HEIGHT`` pixels. The empty board (per options and orientation),
pawn sprites and card faces are drawn supersampled once and cached, so a picture takes a few
milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from boardenvs.core import render
from boardenvs.core.game import Game, Place
from boardenvs.core.positions import random_position
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.sorry import board
from boardenvs.sorry.board import HOME, SAFE_BASE, SAFE_LEN, SLIDE_OFFSETS, START, TRACK_LEN
from boardenvs.sorry.cards import BACKWARD, CARD_COUNTS, CARD_NAMES, DECK_SIZE, FORWARD, SEVEN, SORRY
from boardenvs.sorry.rules import PASS, PAWNS, SORRY_ACTION, SPLIT, SPLIT_PAIRS, SWITCH, SorryState

if TYPE_CHECKING:  # pragma: no cover - imports for type hints only
    from PIL import Image, ImageDraw

    from boardenvs.sorry.rules import SorryOptions

#: Pixels per grid cell, margin round the board, and the picture's size (the same for every option).
CELL = 36
MARGIN = 12
BOARD_PX = 16 * CELL + 2 * MARGIN  # 600
PANEL_W = 290
WIDTH = BOARD_PX + PANEL_W  # 890
HEIGHT = BOARD_PX  # 600
#: Supersampling factor of the cached parts (smooth edges without slowing every frame).
SS = 3

#: RGB of colour index 0-3 (Red, Blue, Yellow, Green; board.COLOR_NAMES).
COLOR_RGB = tuple(render.NAMED_COLORS[name.lower()] for name in board.COLOR_NAMES)
BOARD_FACE = (238, 231, 211)
SQUARE = (255, 255, 255)
GRID_INK = (95, 95, 105)
GOLD = (255, 196, 0)
CARD_BACK = (30, 64, 140)
BLACK = (0, 0, 0)  # render.mix(BLACK, rgb, 0.7): ``rgb`` darkened, for outlines
#: Radius of a pawn and of the Start / Home circles, in cells.
PAWN_R = 0.37
ZONE_R = 1.25
#: Pawn slots inside a Start or Home circle, in cells from its centre (screen axes, never turned).
ZONE_SLOTS = ((-0.68, -0.25), (0.0, -0.25), (0.68, -0.25))

#: What each card allows (the card texts of 2.1), for the panel; short forms for the card face.
CARD_TEXT = tuple(
    "Forward 7, or split the 7 between two pawns."
    if k == SEVEN
    else "Start pawn bumps an opponent, or forward 4."
    if k == SORRY
    else f"Forward {FORWARD[k]}, or one pawn backward {BACKWARD[k]}."
    if FORWARD[k] and BACKWARD[k]
    else "Forward 11, or switch with an opponent."
    if CARD_NAMES[k] == "11"
    else f"Move one pawn backward {BACKWARD[k]}."
    if BACKWARD[k]
    else f"Move one pawn forward {FORWARD[k]}."
    for k in range(len(CARD_NAMES))
)
CARD_SHORT = tuple(
    "or split"
    if k == SEVEN
    else "or forward 4"
    if k == SORRY
    else "or back 1"
    if FORWARD[k] and BACKWARD[k]
    else "or switch"
    if CARD_NAMES[k] == "11"
    else "backward"
    if BACKWARD[k]
    else "forward"
    for k in range(len(CARD_NAMES))
)
SLIDE_RULE_TEXT = {"own_color": "slide on your colour", "classic": "slide on other colours"}


# -- geometry -----------------------------------------------------------------------------------------
def _turn(x: float, y: float, turns: int) -> tuple[float, float]:
    """Turn a point of the 16x16 board (cell units, y down) clockwise about the centre."""
    for _ in range(turns % 4):
        x, y = 16.0 - y, x
    return x, y


def _px(x: float, y: float, turns: int, k: float = 1) -> tuple[float, float]:
    """Pixel of board point ``(x, y)`` (cell units) after ``turns`` quarter turns, at scale ``k``."""
    x, y = _turn(x, y, turns)
    return (MARGIN + x * CELL) * k, (MARGIN + y * CELL) * k


def _track_point(t: int) -> tuple[float, float]:
    """Centre of track square ``t`` in board cell units (2.3 grid rendering)."""
    r, c = board.grid_cell(t)
    return c + 0.5, r + 0.5


#: Centres of a colour's Safety squares 1..5, Home and Start in that colour's frame (Red's: turned
#: by the colour index to place the others): the zone runs down from the entry square (0, 2), Start
#: sits under the start exit (0, 4) (S4, 2.3).
SAFE_POINTS = tuple((2.5, s + 0.5) for s in range(1, SAFE_LEN + 1))
HOME_POINT = (2.5, SAFE_LEN + 1 + ZONE_R)
START_POINT = (4.5, 1 + ZONE_R)


def view_turns(options: SorryOptions, view: int | None) -> int:
    """Quarter turns of the picture: 0 for the full view (Red's side on top, as in the text render);
    for a player view, enough to bring that player's side to the bottom."""
    if view is None:
        return 0
    return (2 - options.seat_colors[view]) % 4


# -- supersampled parts ------------------------------------------------------------------------------
def _supersampled(width: int, height: int, paint: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """An RGBA sprite painted at ``SS`` times its size by ``paint(draw, SS)`` and scaled down."""
    pil = render.require_pillow()
    big = pil.Image.new("RGBA", (width * SS, height * SS), (0, 0, 0, 0))
    paint(pil.ImageDraw.Draw(big), SS)
    return big.resize((width, height), pil.Image.Resampling.LANCZOS)


@lru_cache(maxsize=64)
def _pawn_sprite(color: int, label: str, ring: bool) -> Image.Image:
    """A pawn of colour index ``color`` with its number, a gold ring when it may move."""
    r = PAWN_R * CELL
    size = int(2 * r + 10)
    rgb = COLOR_RGB[color]

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        c = size * k / 2
        if ring:
            g = (r + 4) * k
            d.ellipse((c - g, c - g, c + g, c + g), fill=GOLD)
        s = 1.5 * k  # drop shadow
        d.ellipse((c - r * k + s, c - r * k + s, c + r * k + s, c + r * k + s), fill=(0, 0, 0, 90))
        d.ellipse((c - r * k, c - r * k, c + r * k, c + r * k), fill=rgb, outline=render.INK, width=2 * k)
        hr = r * k * 0.45  # a highlight for a rounded look
        d.ellipse((c - hr * 1.3, c - hr * 1.5, c - hr * 0.1, c - hr * 0.5), fill=(255, 255, 255, 70))
        d.text((c, c + k), label, font=render.font(int(r * 1.2 * k)), fill=render.contrast(rgb), anchor="mm")

    return _supersampled(size, size, paint)


def _paste_pawn(image: Image.Image, center: tuple[float, float], color: int, label: str, ring: bool) -> None:
    sprite = _pawn_sprite(color, label, ring)
    w, h = sprite.size
    image.paste(sprite, (round(center[0] - w / 2), round(center[1] - h / 2)), sprite)


CARD_W, CARD_H = 84, 118


@lru_cache(maxsize=64)
def _card_sprite(kind: int, color: int) -> Image.Image:
    """The face of a card of ``kind`` (``-1``: the back), edged in the drawing player's colour."""

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        box = (k, k, (CARD_W - 1) * k, (CARD_H - 1) * k)
        if kind < 0:
            d.rounded_rectangle(box, radius=8 * k, fill=CARD_BACK, outline=render.INK, width=2 * k)
            inner = (7 * k, 7 * k, (CARD_W - 7) * k, (CARD_H - 7) * k)
            d.rounded_rectangle(inner, radius=5 * k, outline=(230, 230, 240), width=2 * k)
            d.text(
                (CARD_W * k / 2, CARD_H * k / 2),
                "SORRY!",
                font=render.font(16 * k),
                fill=(250, 250, 250),
                anchor="mm",
            )
            return
        edge = COLOR_RGB[color] if color >= 0 else render.MUTED
        d.rounded_rectangle(box, radius=8 * k, fill=SQUARE, outline=edge, width=4 * k)
        name = CARD_NAMES[kind]
        ink = COLOR_RGB[0] if kind == SORRY else render.INK
        big = 22 if kind == SORRY else 46
        d.text((CARD_W * k / 2, CARD_H * k * 0.42), name, font=render.font(big * k), fill=ink, anchor="mm")
        corner = "S!" if kind == SORRY else name
        d.text((8 * k, 6 * k), corner, font=render.font(13 * k), fill=ink, anchor="la")
        d.text(((CARD_W - 8) * k, (CARD_H - 6) * k), corner, font=render.font(13 * k), fill=ink, anchor="rd")
        d.text(
            (CARD_W * k / 2, CARD_H * k * 0.74),
            CARD_SHORT[kind],
            font=render.font(11 * k),
            fill=render.MUTED,
            anchor="mm",
        )

    return _supersampled(CARD_W, CARD_H, paint)


# -- the empty board ---------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _ring_sprite() -> Image.Image:
    """A gold ring to go round the Start circle of the player to move."""
    size = int(2 * (ZONE_R + 0.2) * CELL)

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        c = size * k / 2
        outer, inner = (ZONE_R + 0.16) * CELL * k, (ZONE_R - 0.02) * CELL * k
        d.ellipse((c - outer, c - outer, c + outer, c + outer), fill=GOLD)
        d.ellipse((c - inner, c - inner, c + inner, c + inner), fill=(0, 0, 0, 0))

    return _supersampled(size, size, paint)


@lru_cache(maxsize=32)
def _board(options: SorryOptions, turns: int) -> Image.Image:
    """The board without pawns or cards (RGB, ``WIDTH x HEIGHT``) turned ``turns`` quarter turns.
    Cached: copy before drawing on it."""
    pil = render.require_pillow()
    k = SS
    big = pil.Image.new("RGB", (WIDTH * k, HEIGHT * k), render.BACKGROUND)
    d = pil.ImageDraw.Draw(big)
    in_play = set(options.seat_colors)
    edge = 4 * k
    d.rounded_rectangle(
        (edge, edge, (BOARD_PX - 4) * k, (BOARD_PX - 4) * k),
        radius=14 * k,
        fill=BOARD_FACE,
        outline=render.INK,
        width=2 * k,
    )

    def square(x: float, y: float, t: int, fill: tuple[int, ...], outline: tuple[int, ...]) -> None:
        x0, y0 = _px(x - 0.5, y - 0.5, t, k)
        x1, y1 = _px(x + 0.5, y + 0.5, t, k)
        d.rectangle((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), fill=fill, outline=outline, width=k)

    def circle(x: float, y: float, t: int, radius: float, **kw: Any) -> None:
        cx, cy = _px(x, y, t, k)
        r = radius * CELL * k
        d.ellipse((cx - r, cy - r, cx + r, cy + r), **kw)

    for t in range(TRACK_LEN):
        square(*_track_point(t), turns, SQUARE, GRID_INK)
        # Square numbers (as the move list names them), small in the corner.
        x, y = _px(*_track_point(t), turns, k)
        r = (0.5 * CELL - 2) * k
        d.text((x - r, y - r), str(t), font=render.font(8 * k), fill=(165, 165, 172), anchor="la")
    # Slides (S3) in the colour they show (S8): a band from the triangle to the end circle.
    for side in range(4):
        rgb = COLOR_RGB[board.slide_color(side, options.slide_rule)]
        if board.slide_color(side, options.slide_rule) not in in_play:
            rgb = render.mix(SQUARE, rgb, 0.45)
        t = side + turns
        for tri, end in SLIDE_OFFSETS:
            x0, x1 = tri + 1.5, end + 1.5  # side 0 runs along row 0 from column 1
            a, b = _px(x0, 0.5 - 0.13, t, k), _px(x1, 0.5 + 0.13, t, k)
            d.rectangle((min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])), fill=rgb)
            tri_pts = [_px(x0 - 0.32, 0.14, t, k), _px(x0 + 0.4, 0.5, t, k), _px(x0 - 0.32, 0.86, t, k)]
            d.polygon(tri_pts, fill=rgb, outline=render.mix(BLACK, rgb, 0.7), width=k)
            circle(x1, 0.5, t, 0.25, fill=rgb, outline=render.mix(BLACK, rgb, 0.7), width=k)
    # Safety Zones, Home and Start circles of every colour (colours not in play are pale).
    for color in range(4):
        rgb = COLOR_RGB[color]
        playing = color in in_play
        tint = render.mix(SQUARE, rgb, 0.55 if playing else 0.18)
        line = render.mix(BLACK, rgb, 0.7) if playing else render.mix(SQUARE, rgb, 0.4)
        t = color + turns
        for x, y in SAFE_POINTS:
            square(x, y, t, tint, line)
        for point, label in ((HOME_POINT, "HOME"), (START_POINT, "START")):
            circle(*point, t, ZONE_R, fill=tint, outline=line, width=2 * k)
            cx, cy = _px(*point, t, k)
            ink = render.contrast(tint) if playing else render.mix(SQUARE, rgb, 0.5)
            d.text((cx, cy + 0.6 * CELL * k), label, font=render.font(11 * k), fill=ink, anchor="mm")
    # The centre: the name, and the places of the draw pile and the card drawn.
    cx = MARGIN + 8 * CELL
    render.text(
        d, (cx * k, (MARGIN + 4.75 * CELL) * k), "SORRY!", size=40 * k, fill=COLOR_RGB[0], anchor="mm"
    )
    for x, label in ((cx - 54, "DRAW PILE"), (cx + 54, "CARD DRAWN")):
        y = MARGIN + 6.0 * CELL
        d.rounded_rectangle(
            ((x - CARD_W / 2 - 4) * k, (y - 4) * k, (x + CARD_W / 2 + 4) * k, (y + CARD_H + 4) * k),
            radius=10 * k,
            outline=render.MUTED,
            width=k,
        )
        render.text(d, (x * k, (y + CARD_H + 16) * k), label, size=11 * k, fill=render.MUTED, anchor="mm")
    image = big.resize((WIDTH, HEIGHT), pil.Image.Resampling.LANCZOS)
    _panel_static(pil.ImageDraw.Draw(image), options)
    return image


# -- the position ------------------------------------------------------------------------------------
def _pawn_point(state: SorryState, seat: int, i: int, turns: int) -> tuple[float, float]:
    """Pixel centre of pawn ``i`` of ``seat``."""
    color = state.colors[seat]
    at = state.pos[PAWNS * seat + i]
    if at < TRACK_LEN:
        return _px(*_track_point(at), turns)
    if at < HOME:
        return _px(*SAFE_POINTS[at - SAFE_BASE - 1], color + turns)
    x, y = _px(*(HOME_POINT if at == HOME else START_POINT), color + turns)
    dx, dy = ZONE_SLOTS[i]
    return x + dx * CELL, y + dy * CELL


def active_pawns(state: SorryState) -> set[int]:
    """Pawns (0-2) of the player to move that some legal action moves (S16; S24 names the lowest
    Start pawn for moves out of Start and the Sorry! card)."""
    player = state.current_player()
    if player < 0:
        return set()
    out: set[int] = set()
    for a in state.legal_actions():
        if a < SPLIT:
            out.add(a % PAWNS)
        elif a < SWITCH:
            out.update(SPLIT_PAIRS[(a - SPLIT) // 6])
        elif a < SORRY_ACTION:
            out.add((a - SWITCH) // 9)
        elif a < PASS:
            out.add(state.pos[PAWNS * player : PAWNS * player + PAWNS].index(START))
    return out


def _move_text(state: SorryState, action: int) -> str:
    """:meth:`SorryState.action_to_string`, shortened for the panel."""
    return state.action_to_string(action).replace("a pawn from Start takes the place of", "Start pawn bumps")


def _status(state: SorryState, view: int | None) -> tuple[str, str, int]:
    """Headline, detail line and the colour index to tint them with (-1: none)."""
    names = board.COLOR_NAMES
    player = state.current_player()
    seat = state.winner if state.winner >= 0 else state.to_move
    who = "You" if seat == view else f"{names[state.colors[seat]]}"
    if player == TERMINAL:
        if state.winner >= 0:
            verb = "win!" if seat == view else "wins!"
            return f"{who} {verb}", f"player_{seat}: all three pawns Home", state.colors[seat]
        return "No winner", f"stopped after max_turns = {state.options.max_turns} draws", -1
    if player == CHANCE and state.choosing_first:
        return "Who goes first?", "a random seat is drawn (S21)", -1
    if player == CHANCE:
        return f"{who} to draw", f"player_{seat} draws the next card", state.colors[seat]
    verb = "play" if seat == view else "plays"
    return f"{who} {verb} the {CARD_NAMES[state.card]}", CARD_TEXT[state.card], state.colors[seat]


#: The panel's left and right edges and the tops of its sections.
PANEL_X0, PANEL_X1 = BOARD_PX + 6, WIDTH - 14
STATUS_Y, PLAYERS_Y, PILE_Y = 72, 266, 418
MINI_W, MINI_H = 38, 34


def _panel_static(d: ImageDraw.ImageDraw, options: SorryOptions) -> None:
    """The panel's fixed texts: title, options, section headers (part of the cached board)."""
    x0, x1 = PANEL_X0, PANEL_X1
    render.text(d, (x0, 16), "Sorry!", size=24)
    sub = f"{options.num_players} players, 3 pawns each; {SLIDE_RULE_TEXT[options.slide_rule]}"
    render.text(d, (x0, 48), render.fit_text(sub, 12, x1 - x0, strip=True), size=12, fill=render.MUTED)
    render.text(d, (x0, PLAYERS_Y), "Players", size=14, fill=render.MUTED)
    render.text(d, (x0, PILE_Y), "Draw pile by card", size=14, fill=render.MUTED)


@lru_cache(maxsize=128)
def _mini_card(kind: int, left: int) -> Image.Image:
    """A small card of ``kind`` for the draw-pile table with the count left under it, greyed out
    when none is left."""

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        empty = left == 0
        d.rounded_rectangle(
            (0, 0, MINI_W * k - 1, MINI_H * k - 1),
            radius=4 * k,
            fill=(236, 236, 236) if empty else SQUARE,
            outline=render.MUTED if empty else render.INK,
            width=k,
        )
        label = "S!" if kind == SORRY else CARD_NAMES[kind]
        ink = render.MUTED if empty else (COLOR_RGB[0] if kind == SORRY else render.INK)
        d.text((MINI_W * k / 2, MINI_H * k / 2), label, font=render.font(15 * k), fill=ink, anchor="mm")
        count = f"{left}/{CARD_COUNTS[kind]}"
        at = (MINI_W * k / 2, (MINI_H + 9) * k)
        d.text(at, count, font=render.font(11 * k), fill=render.MUTED, anchor="mm")

    return _supersampled(MINI_W, MINI_H + 18, paint)


def _panel(d: ImageDraw.ImageDraw, image: Image.Image, state: SorryState, view: int | None) -> None:
    """Whose turn and what they must decide, the players, and the cards left to draw."""
    opts = state.options
    x0, x1 = PANEL_X0, PANEL_X1
    w = x1 - x0
    render.text(d, (x1, 20), f"draw {state.turn} / {opts.max_turns}", size=14, fill=render.MUTED, anchor="ra")
    y = STATUS_Y
    # Status box.
    headline, detail, color = _status(state, view)
    fill = render.mix(SQUARE, COLOR_RGB[color], 0.3) if color >= 0 else (232, 232, 236)
    line = render.mix(BLACK, COLOR_RGB[color], 0.7) if color >= 0 else render.MUTED
    d.rounded_rectangle((x0, y, x1, y + 58), radius=8, fill=fill, outline=line, width=2)
    render.text(d, (x0 + 10, y + 8), render.fit_text(headline, 20, w - 20, strip=True), size=20)
    render.text(d, (x0 + 10, y + 36), render.fit_text(detail, 12, w - 20, strip=True), size=12)
    y += 68
    # The legal moves (what the player must decide).
    if state.current_player() >= 0:
        legal = state.legal_actions()
        if legal == [PASS]:
            lines = ["No legal move: the turn is forfeited."]
        else:
            header = f"{len(legal)} legal move" + ("s:" if len(legal) > 1 else ":")
            shown = legal if len(legal) <= 5 else legal[:4]
            lines = [header] + ["- " + _move_text(state, a) for a in shown]
            if len(shown) < len(legal):
                lines.append(f"  ... and {len(legal) - len(shown)} more")
        for text in lines:
            render.text(d, (x0, y), render.fit_text(text, 12, w, strip=True), size=12)
            y += 16
    # Players: colour, name, Start and Home counts; the mover in gold, the winner marked.
    y = PLAYERS_Y + 20
    for seat, color in enumerate(state.colors):
        mine = state.pos[PAWNS * seat : PAWNS * seat + PAWNS]
        if seat == state.winner or (state.current_player() >= 0 and seat == state.to_move):
            d.rounded_rectangle(
                (x0 - 2, y - 1, x1, y + 27), radius=6, fill=render.mix(SQUARE, GOLD, 0.35), outline=GOLD
            )
        _paste_pawn(image, (x0 + 14, y + 13), color, "", False)
        name = f"player_{seat}  {board.COLOR_NAMES[color]}" + ("  (you)" if seat == view else "")
        render.text(d, (x0 + 32, y + 6), name, size=13)
        counts = f"Start {mine.count(START)}  Home {mine.count(HOME)}"
        if seat == state.winner:
            counts = "WINNER"
        render.text(d, (x1 - 6, y + 7), counts, size=12, fill=render.INK, anchor="ra")
        y += 31
    # Cards left in the draw pile by kind (public: anyone can count the cards played; S1).
    left = state.deck.draw_pile_counts()
    render.text(
        d, (x1, PILE_Y + 2), f"{sum(left)} of {DECK_SIZE} left", size=12, fill=render.MUTED, anchor="ra"
    )
    y = PILE_Y + 22
    gap = (w - 6 * MINI_W) / 5
    for kind in range(len(CARD_NAMES)):
        row, col = divmod(kind, 6)
        cx = round(x0 + col * (MINI_W + gap))
        cy = y + row * (MINI_H + 28)
        mini = _mini_card(kind, left[kind])
        image.paste(mini, (cx, cy), mini)


def draw_state(game: Game, state: SorryState, view: int | None = None) -> Image.Image:
    """A picture of ``state`` (``WIDTH x HEIGHT`` RGB); ``view`` turns the board to that player's
    seat and marks it "you" (Sorry! hides nothing a player's observation lacks; see the module doc)."""
    pil = render.require_pillow()
    options = state.options
    if view is not None and not 0 <= view < options.num_players:
        raise ValueError(
            f"sorry_v0: view must be None or a player id 0..{options.num_players - 1}, got {view}"
        )
    turns = view_turns(options, view)
    player = state.current_player()
    deciding = player >= 0 or (player == CHANCE and not state.choosing_first)
    image = _board(options, turns).copy()
    if deciding:  # a gold ring round the Start of the player to draw or to move
        halo = _ring_sprite()
        x, y = _px(*START_POINT, state.colors[state.to_move] + turns)
        image.paste(halo, (round(x - halo.width / 2), round(y - halo.height / 2)), halo)
    d = pil.ImageDraw.Draw(image)
    # Pawns: Start and Home ones in their slots, the others on their squares; movable ones ringed.
    ringed = active_pawns(state)
    for seat, color in enumerate(state.colors):
        for i in range(PAWNS):
            ring = player >= 0 and seat == player and i in ringed
            _paste_pawn(image, _pawn_point(state, seat, i, turns), color, str(i), ring)
    # Centre: the draw pile and the card just drawn (or the outcome).
    cx = MARGIN + 8 * CELL
    top = round(MARGIN + 6.0 * CELL)
    pile = state.deck.draw_pile_size()
    back = _card_sprite(-1, -1)
    for s in range(min(3, (pile + 14) // 15)):  # a thicker pile when more cards are left
        image.paste(back, (cx - 54 - CARD_W // 2 + 2 * s, top - 2 * s), back)
    render.text(d, (cx - 54, top + CARD_H + 30), f"{pile} left", size=12, anchor="mm")
    if state.card >= 0:
        face = _card_sprite(state.card, state.colors[state.to_move])
        image.paste(face, (cx + 54 - CARD_W // 2, top), face)
    elif player == TERMINAL:
        fill = COLOR_RGB[state.colors[state.winner]] if state.winner >= 0 else (225, 225, 230)
        box = (cx + 54 - CARD_W / 2, top, cx + 54 + CARD_W / 2, top + CARD_H)
        d.rounded_rectangle(box, radius=8, fill=fill, outline=render.INK, width=2)
        if state.winner >= 0:
            lines = [board.COLOR_NAMES[state.colors[state.winner]].upper(), "WINS!"]
        else:
            lines = ["NO", "WINNER"]
        for n, line in enumerate(lines):
            at = (cx + 54, top + CARD_H / 2 + (n - 0.5) * 24)
            render.text(d, at, line, size=17, fill=render.contrast(fill), anchor="mm")
    _panel(d, image, state, view)
    return image


def example_state(game: Game, seed: int = 7, draws: int = 60) -> SorryState:
    """A seeded mid-game position of a random game of ``game`` (a Sorry! game): the first decision after
    ``draws`` card draws (used for ``docs/images/sorry.png``, four players, and by the tests)."""
    if game.state_class is not SorryState:
        raise TypeError(f"example_state draws a Sorry! game, not {game.name}")
    return random_position(game, seed, until=lambda state: state.turn >= draws)  # type: ignore


__all__ = ["HEIGHT", "WIDTH", "active_pawns", "draw_state", "example_state", "view_turns"]


def action_places(game: Game, state: SorryState, view: int | None = None) -> dict[int, Place]:
    """:meth:`boardenvs.core.game.Game.action_places`: each move's pawn on ``view``'s picture (the pawn
    moved forward or backward, the pawn switched with or bumped by a Sorry!); splits have no one place."""
    player = state.current_player()
    if player < 0:
        return {}
    turns = view_turns(state.options, view)
    n = state.options.num_players
    r = PAWN_R * CELL + 3

    def box(seat: int, i: int) -> tuple[float, float, float, float]:
        x, y = _pawn_point(state, seat, i, turns)
        return (x - r, y - r, x + r, y + r)

    out = {}
    for a in state.legal_actions():
        if a < SPLIT:
            out[a] = box(player, a % PAWNS)
        elif SWITCH <= a < SORRY_ACTION:
            o, m = divmod((a - SWITCH) % 9, 3)
            out[a] = box((player + o + 1) % n, m)
        elif SORRY_ACTION <= a < PASS:
            o, m = divmod(a - SORRY_ACTION, 3)
            out[a] = box((player + o + 1) % n, m)
    return out
