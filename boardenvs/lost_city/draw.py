"""Pictures of Star of the Lost City positions (``render_mode="rgb_array"``), drawn with Pillow.

The picture has four parts, laid out from the game's options only (so every frame of a game has the
same size and frames make a GIF):

* a header: round counter, whose turn it is and what the deciding seat must choose, including who is
  really deciding while a character is seduced (T20);
* the board (T1): the sand grid with its coordinates, the ruins as stone blocks and the centre 2x2 as
  the Lost City star, the spawn squares (T3) ringed in their seat's colour, every living character as
  a token in its seat's colour with its initials, a small HP bar and badges (burning, seduced, turn to
  skip, card held); the squares the acting character may move to (T5), its attack range and the
  characters it may target (T4, T35); an arrow for an attack being rolled and dashed links from a
  seducer to the characters it controls;
* a panel with one row per seat: portrait and initials, character, type, HP bar, ability, the held
  battle card and statuses; eliminated characters are greyed out and crossed (T26, T38);
* a footer: the attack in play (hit die, damage die, colour die, Critical and +Damage bonus, T9-T19)
  and the battle deck (draw pile and discards, the cards left of each kind: public, 4.3).

Everything in a Lost City position is public but the deck order, which a state does not hold (draws
are chance nodes over the unseen multiset), so a player's view shows the same facts as the full view
and only marks that player's own character ("YOU").

Pillow is reached only through :mod:`boardenvs.core.render`; this module is imported lazily by
:meth:`boardenvs.lost_city.env.LostCityGame.draw`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from boardenvs.core import render
from boardenvs.core.game import Game, Place
from boardenvs.core.positions import random_position
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import FIRST_SPAWNS, MOVE_OFFSETS
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    COPY,
    END,
    P_ACTION,
    P_CHARS,
    P_COLOUR,
    P_COPY,
    P_DAMAGE,
    P_DRAW,
    P_FIRST,
    P_HIT,
    P_MOVE,
    P_OVER,
    P_PICK,
    P_POSTROLL,
    PAIR,
    PAIRS,
    STAY,
    LostCityState,
)

if TYPE_CHECKING:  # pragma: no cover - imports for type hints only
    from PIL import Image, ImageDraw

RGB = tuple[int, int, int]

# -- sizes (pixels) ----------------------------------------------------------------------------------
MARGIN = 14
HEADER_H = 84
GUTTER = 18  # the coordinate labels left of and above the grid
BOARD_TARGET = 540  # the grid's side on the default 12 x 12 board (45 px squares)
PANEL_W = 300
MIN_ROW_H = 78
MAX_ROW_H = 112
FOOTER_H = 122
#: Width of every picture (the footer's dice and deck need it even beside a small board).
WIDTH = MARGIN + GUTTER + BOARD_TARGET + 14 + PANEL_W + MARGIN

# -- colours -----------------------------------------------------------------------------------------
GROUND = ((234, 216, 176), (226, 206, 163))
GRID_LINE = (200, 176, 130)
FRAME = (112, 82, 48)
STONE = (132, 122, 108)
MORTAR = (88, 80, 70)
STAR_STONE = (72, 64, 92)
GOLD = (246, 198, 58)
PANEL_BG = (252, 249, 240)
ACTIVE_BG = (255, 240, 190)
OUT_BG = (228, 226, 222)
HP_GOOD, HP_MID, HP_LOW = (60, 170, 80), (235, 170, 40), (215, 60, 50)
ATTACK_RED = (200, 40, 40)
SEDUCE_PINK = (225, 60, 140)
FIRE_ORANGE = (240, 110, 20)
CARD_COLORS: tuple[RGB, ...] = (
    (150, 215, 140),  # +10 Health
    (245, 150, 110),  # +10 Damage
    (95, 190, 95),  # +20 Health
    (230, 100, 70),  # +20 Damage
    (150, 170, 200),  # Skip Turn
    (215, 215, 215),  # Null
    (170, 120, 200),  # Joker
    (250, 205, 70),  # Special Ability
)
CARD_LABELS = ("+10\nHP", "+10\nDMG", "+20\nHP", "+20\nDMG", "SKIP", "NULL", "JOKER", "SPEC.\nABIL.")
#: Two letters per character on tokens and portraits (Jack, Jamie and Josh share the J).
CODES = ("Ro", "Aa", "Sa", "Jk", "Jm", "Jo", "Ch")
#: Portrait details per character: skin, hair colour, hair style.
_SKIN = (
    (241, 200, 160),
    (224, 172, 130),
    (198, 140, 100),
    (245, 208, 175),
    (232, 185, 145),
    (170, 115, 80),
    (238, 196, 158),
)
_HAIR = (
    (70, 45, 25),
    (230, 190, 80),
    (25, 20, 20),
    (200, 80, 30),
    (120, 80, 40),
    (20, 20, 25),
    (110, 100, 95),
)
_STYLE = ("short", "spiky", "long", "short", "cap", "short", "bald")


@dataclass(frozen=True)
class Layout:
    """Where everything goes; depends only on the board size and the number of seats."""

    size: int
    n: int
    cell: int
    board_x: int
    board_y: int
    board_px: int
    panel_x: int
    panel_y: int
    row_h: int
    footer_y: int
    width: int
    height: int

    def centre(self, index: int) -> tuple[float, float]:
        """Pixel centre of the square with cell index ``index``."""
        r, c = divmod(index, self.size)
        return (self.board_x + (c + 0.5) * self.cell, self.board_y + (r + 0.5) * self.cell)

    def box(self, index: int) -> tuple[int, int, int, int]:
        """Pixel box ``(x0, y0, x1, y1)`` of the square with cell index ``index``."""
        r, c = divmod(index, self.size)
        x0, y0 = self.board_x + c * self.cell, self.board_y + r * self.cell
        return (x0, y0, x0 + self.cell, y0 + self.cell)


@lru_cache(maxsize=32)
def layout(size: int, n: int) -> Layout:
    """The :class:`Layout` of a ``size`` x ``size`` board with ``n`` seats."""
    cell = max(12, min(64, BOARD_TARGET // size))
    board_px = cell * size  # at most BOARD_TARGET (sizes 3..32)
    # the board centred in a fixed-width column: every picture is WIDTH wide, whatever the board size
    board_x = MARGIN + GUTTER + (BOARD_TARGET - board_px) // 2
    board_y = HEADER_H + GUTTER
    panel_x = MARGIN + GUTTER + BOARD_TARGET + 14
    panel_y = HEADER_H
    body_h = max(GUTTER + board_px, n * MIN_ROW_H)
    row_h = min(MAX_ROW_H, body_h // n)
    footer_y = HEADER_H + body_h + 10
    return Layout(
        size=size,
        n=n,
        cell=cell,
        board_x=board_x,
        board_y=board_y,
        board_px=board_px,
        panel_x=panel_x,
        panel_y=panel_y,
        row_h=row_h,
        footer_y=footer_y,
        width=WIDTH,
        height=footer_y + FOOTER_H + MARGIN,
    )


def image_size(game: Game) -> tuple[int, int]:
    """``(width, height)`` of every picture of ``game`` (fixed by its options)."""
    lay = layout(game.options.board_size, game.options.num_players)
    return (lay.width, lay.height)


# -- small drawing helpers -----------------------------------------------------------------------------
def hp_colour(fraction: float) -> RGB:
    """Green when healthy, amber at half, red when low."""
    return HP_GOOD if fraction > 0.5 else HP_MID if fraction > 0.25 else HP_LOW


def hp_bar(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], hp: int, cap: int) -> None:
    """A horizontal HP bar filled to ``hp / cap``."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=(70, 66, 60))
    frac = max(0.0, min(1.0, hp / cap)) if cap else 0.0
    if frac > 0:
        draw.rectangle((x0, y0, x0 + (x1 - x0) * frac, y1), fill=hp_colour(frac))
    draw.rectangle(box, outline=render.INK, width=1)


def dashed_line(
    draw: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    fill: RGB,
    width: int,
    dash: float,
) -> None:
    """A dashed straight line from ``a`` to ``b``."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length == 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    t = 0.0
    while t < length:
        e = min(t + dash, length)
        draw.line((a[0] + ux * t, a[1] + uy * t, a[0] + ux * e, a[1] + uy * e), fill=fill, width=width)
        t += 2 * dash


def arrow(
    draw: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    fill: RGB,
    width: int,
    head: float,
) -> None:
    """An arrow from ``a`` to ``b`` (the head's tip at ``b``)."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length == 0:
        return
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    base = (b[0] - ux * head, b[1] - uy * head)
    draw.line((a[0], a[1], base[0], base[1]), fill=fill, width=width)
    px, py = -uy * head * 0.55, ux * head * 0.55
    draw.polygon([b, (base[0] + px, base[1] + py), (base[0] - px, base[1] - py)], fill=fill)


def heart(draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float, fill: RGB) -> None:
    """A heart of half-width ``s`` centred on ``(cx, cy)`` (Seduction)."""
    r = s * 0.52
    draw.ellipse((cx - s, cy - s * 0.75, cx - s + 2 * r, cy - s * 0.75 + 2 * r), fill=fill)
    draw.ellipse((cx + s - 2 * r, cy - s * 0.75, cx + s, cy - s * 0.75 + 2 * r), fill=fill)
    draw.polygon([(cx - s * 0.98, cy - s * 0.2), (cx + s * 0.98, cy - s * 0.2), (cx, cy + s)], fill=fill)


def flame(draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    """A flame of half-width ``s`` centred on ``(cx, cy)`` (Fire, burning)."""
    outer = [
        (cx, cy - s * 1.1),
        (cx + s * 0.55, cy - s * 0.2),
        (cx + s * 0.8, cy + s * 0.35),
        (cx + s * 0.5, cy + s * 0.9),
        (cx, cy + s),
        (cx - s * 0.5, cy + s * 0.9),
        (cx - s * 0.8, cy + s * 0.35),
        (cx - s * 0.45, cy - s * 0.3),
    ]
    draw.polygon(outer, fill=FIRE_ORANGE, outline=(150, 50, 10))
    inner = [
        (cx, cy - s * 0.2),
        (cx + s * 0.35, cy + s * 0.45),
        (cx, cy + s * 0.85),
        (cx - s * 0.35, cy + s * 0.45),
    ]
    draw.polygon(inner, fill=(255, 220, 80))


def ability_icon(draw: ImageDraw.ImageDraw, ability: int, cx: float, cy: float, s: float) -> None:
    """A small symbol of ``ability`` of half-width ``s`` centred on ``(cx, cy)``."""
    if ability == ch.SEDUCTION:
        heart(draw, cx, cy, s * 0.85, SEDUCE_PINK)
    elif ability == ch.CRITICAL:
        draw.polygon(render.star_points(cx, cy, s, s * 0.45, 5), fill=GOLD, outline=(150, 100, 0))
    elif ability == ch.HEALTH_STEAL:  # a drop of blood with a plus
        draw.ellipse((cx - s * 0.65, cy - s * 0.2, cx + s * 0.65, cy + s * 1.0), fill=(200, 30, 50))
        draw.polygon(
            [(cx, cy - s), (cx - s * 0.6, cy + s * 0.2), (cx + s * 0.6, cy + s * 0.2)], fill=(200, 30, 50)
        )
        w = max(1, round(s * 0.22))
        draw.line((cx - s * 0.3, cy + s * 0.38, cx + s * 0.3, cy + s * 0.38), fill=(255, 255, 255), width=w)
        draw.line((cx, cy + s * 0.08, cx, cy + s * 0.68), fill=(255, 255, 255), width=w)
    elif ability == ch.FIRE:
        flame(draw, cx, cy, s * 0.9)
    elif ability == ch.COPYCAT:  # two overlapping sheets
        d = s * 0.35
        draw.rectangle(
            (cx - s * 0.8, cy - s * 0.8, cx + s * 0.8 - d * 2, cy + s * 0.8 - d * 2),
            fill=(170, 200, 240),
            outline=render.INK,
        )
        draw.rectangle(
            (cx - s * 0.8 + d * 2, cy - s * 0.8 + d * 2, cx + s * 0.8, cy + s * 0.8),
            fill=(90, 140, 220),
            outline=render.INK,
        )
    elif ability == ch.DOUBLE_HIT:  # two arrows
        for dy in (-s * 0.45, s * 0.45):
            arrow(
                draw,
                (cx - s * 0.9, cy + dy),
                (cx + s * 0.9, cy + dy),
                (60, 60, 70),
                max(1, round(s / 5)),
                s * 0.6,
            )
    else:  # TRAP: a spiked jaw
        teeth = 4
        w = 2 * s / teeth
        draw.rectangle((cx - s, cy + s * 0.3, cx + s, cy + s * 0.7), fill=(90, 90, 100))
        for i in range(teeth):
            x = cx - s + i * w
            draw.polygon(
                [(x, cy + s * 0.3), (x + w, cy + s * 0.3), (x + w / 2, cy - s * 0.7)],
                fill=(140, 140, 150),
                outline=render.INK,
            )


def text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    message: str,
    size: int = 14,
    fill: RGB = render.INK,
    anchor: str = "la",
) -> None:
    """:func:`boardenvs.core.render.text` through a cache of rendered labels; a newline in ``message``
    starts a new line (lines centred on each other, the block placed by ``anchor``'s vertical part)."""
    if "\n" in message:
        lines = message.split("\n")
        step = round(size * 1.15)
        top = xy[1] - step * len(lines) / 2 if anchor[1] == "m" else xy[1]
        for i, line in enumerate(lines):
            text(draw, (xy[0], top + step * (i + 0.5)), line, size, fill, anchor[0] + "m")
        return
    mask, dx, dy = render.text_mask(message, size, anchor)
    draw.bitmap((round(xy[0]) + dx, round(xy[1]) + dy), mask, fill=fill)


def card(
    draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], label: str, fill: RGB, size: int = 10
) -> None:
    """A battle card face with its label (:func:`boardenvs.core.render.card`, cached labels)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=6, fill=fill, outline=render.INK, width=2)
    text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), label, size=size, fill=render.contrast(fill), anchor="mm")


def pawn(
    draw: ImageDraw.ImageDraw, centre: tuple[float, float], radius: float, colour: RGB, label: str = ""
) -> None:
    """A round token in ``colour`` with a label (:func:`boardenvs.core.render.pawn`, cached labels)."""
    x, y = centre
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour, outline=render.INK, width=2)
    if label:
        text(draw, (x, y), label, size=max(8, int(radius * 1.1)), fill=render.contrast(colour), anchor="mm")


# -- cached static parts -------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _background(
    size: int, n: int, ruins: tuple[tuple[int, int], ...], spawns: tuple[tuple[int, int], ...]
) -> Image.Image:
    """The empty board: header and footer panes, sand grid, coordinates, ruins, star, spawn rings."""
    lay = layout(size, n)
    image = render.new_image(lay.width, lay.height)
    draw = render.require_pillow().ImageDraw.Draw(image)
    cell = lay.cell
    # panes
    draw.rounded_rectangle((MARGIN - 4, 6, lay.width - MARGIN + 4, HEADER_H - 6), radius=8, fill=(60, 48, 36))
    draw.rounded_rectangle(
        (MARGIN - 4, lay.footer_y, lay.width - MARGIN + 4, lay.footer_y + FOOTER_H),
        radius=8,
        fill=PANEL_BG,
        outline=(210, 200, 180),
        width=2,
    )
    # grid
    x0, y0 = lay.board_x, lay.board_y
    for r in range(size):
        for c in range(size):
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            draw.rectangle(box, fill=GROUND[(r + c) % 2], outline=GRID_LINE)
    label = max(8, min(12, cell // 3))
    for i in range(size):
        text(
            draw, (x0 + (i + 0.5) * cell, y0 - GUTTER / 2), str(i), size=label, fill=render.MUTED, anchor="mm"
        )
        text(
            draw,
            (x0 - GUTTER / 2 - 1, y0 + (i + 0.5) * cell),
            str(i),
            size=label,
            fill=render.MUTED,
            anchor="mm",
        )
    # ruins: the Lost City star on every full 2 x 2 block of ruins, stone blocks elsewhere
    ruin_set = set(ruins)
    star_cells: set[tuple[int, int]] = set()
    stars = []
    for r, c in sorted(ruin_set):
        block = {(r, c), (r + 1, c), (r, c + 1), (r + 1, c + 1)}
        if block <= ruin_set and not block & star_cells:
            star_cells |= block
            stars.append((r, c))
    for r, c in ruins:
        if (r, c) in star_cells:
            continue
        bx, by = x0 + c * cell, y0 + r * cell
        draw.rectangle((bx, by, bx + cell, by + cell), fill=STONE, outline=MORTAR, width=2)
        rows = 3
        h = cell / rows
        for i in range(1, rows):
            draw.line((bx + 2, by + i * h, bx + cell - 2, by + i * h), fill=MORTAR, width=1)
        for i in range(rows):
            shift = cell / 2 if i % 2 else cell / 4
            xs = (bx + shift,) if i % 2 else (bx + shift, bx + shift + cell / 2)
            for x in xs:
                draw.line((x, by + i * h + 1, x, by + (i + 1) * h - 1), fill=MORTAR, width=1)
        draw.line(
            (bx + 2, by + 2, bx + cell - 3, by + 2), fill=render.mix(STONE, (255, 255, 255), 0.35), width=1
        )
    for r, c in stars:
        bx, by = x0 + c * cell, y0 + r * cell
        draw.rectangle((bx, by, bx + 2 * cell, by + 2 * cell), fill=STAR_STONE, outline=MORTAR, width=2)
        cx, cy = bx + cell, by + cell
        draw.ellipse(
            (cx - cell * 0.92, cy - cell * 0.92, cx + cell * 0.92, cy + cell * 0.92),
            outline=render.mix(GOLD, STAR_STONE, 0.45),
            width=2,
        )
        draw.polygon(
            render.star_points(cx, cy, cell * 0.86, cell * 0.34, 8), fill=GOLD, outline=(150, 100, 0)
        )
        draw.polygon(render.star_points(cx, cy, cell * 0.42, cell * 0.18, 4), fill=(255, 236, 150))
    draw.rectangle((x0 - 3, y0 - 3, x0 + size * cell + 2, y0 + size * cell + 2), outline=FRAME, width=3)
    # spawn squares (T3) ringed in their seat's colour
    for p, (r, c) in enumerate(spawns[:n]):
        colour = render.mix(render.SEAT_COLORS[p], GROUND[(r + c) % 2], 0.35)
        bx, by = x0 + c * cell, y0 + r * cell
        draw.rectangle((bx + 2, by + 2, bx + cell - 2, by + cell - 2), outline=colour, width=2)
    return image


@lru_cache(maxsize=64)
def _portrait(k: int, seat: int, side: int, out: bool) -> Image.Image:
    """A head-and-shoulders portrait of character ``k`` in seat ``seat``'s colour, with its ability."""
    pil = render.require_pillow()
    colour = render.SEAT_COLORS[seat]
    image = render.new_image(side, side, render.mix(colour, (255, 255, 255), 0.72))
    draw = pil.ImageDraw.Draw(image)
    s = side
    cx = s / 2
    skin, hair, style = _SKIN[k], _HAIR[k], _STYLE[k]
    shirt = render.mix(colour, (0, 0, 0), 0.15)
    head_r = s * 0.2
    hy = s * 0.42
    if style == "long":  # hair falling behind the shoulders
        draw.rounded_rectangle(
            (cx - head_r * 1.35, hy - head_r * 1.2, cx + head_r * 1.35, hy + head_r * 2.1),
            radius=head_r,
            fill=hair,
        )
    draw.ellipse((cx - s * 0.36, s * 0.7, cx + s * 0.36, s * 1.25), fill=shirt, outline=render.INK)
    draw.rectangle((cx - head_r * 0.4, hy + head_r * 0.6, cx + head_r * 0.4, s * 0.74), fill=skin)
    draw.ellipse(
        (cx - head_r, hy - head_r * 1.1, cx + head_r, hy + head_r * 1.1), fill=skin, outline=render.INK
    )
    top = (cx - head_r * 1.05, hy - head_r * 1.25, cx + head_r * 1.05, hy + head_r * 0.6)
    if style in ("short", "long"):
        draw.chord(top, 180, 360, fill=hair)
    elif style == "spiky":
        draw.chord(top, 180, 360, fill=hair)
        spikes = [
            (cx + dx * head_r, hy - head_r * (1.05 + 0.45 * (i % 2)))
            for i, dx in enumerate((-1.0, -0.7, -0.35, 0.0, 0.35, 0.7, 1.0))
        ]
        draw.polygon([(cx - head_r, hy - head_r * 0.3), *spikes, (cx + head_r, hy - head_r * 0.3)], fill=hair)
    elif style == "cap":
        draw.chord(top, 180, 360, fill=(40, 90, 160))
        draw.rectangle((cx, hy - head_r * 0.38, cx + head_r * 1.5, hy - head_r * 0.22), fill=(40, 90, 160))
    else:  # bald, with a beard
        draw.chord((cx - head_r, hy - head_r * 0.2, cx + head_r, hy + head_r * 1.12), 0, 180, fill=hair)
    eye = max(1.0, s * 0.025)
    for ex in (cx - head_r * 0.4, cx + head_r * 0.4):
        draw.ellipse((ex - eye, hy - eye, ex + eye, hy + eye), fill=render.INK)
    draw.arc(
        (cx - head_r * 0.35, hy + head_r * 0.15, cx + head_r * 0.35, hy + head_r * 0.6),
        20,
        160,
        fill=render.INK,
        width=max(1, round(s / 60)),
    )
    # the ability badge, bottom right; initials, top left
    br = s * 0.16
    bx, by = s - br - 3, s - br - 3
    draw.ellipse((bx - br, by - br, bx + br, by + br), fill=(255, 255, 255), outline=render.INK)
    ability_icon(draw, k, bx, by, br * 0.62)
    text(draw, (4, 2), CODES[k], size=max(9, round(s * 0.2)), fill=render.mix(colour, (0, 0, 0), 0.45))
    draw.rectangle((0, 0, s - 1, s - 1), outline=colour, width=3)
    if out:
        image = image.convert("L").convert("RGB")
        draw = pil.ImageDraw.Draw(image)
        draw.line((4, 4, s - 5, s - 5), fill=ATTACK_RED, width=max(2, s // 14))
        draw.line((4, s - 5, s - 5, 4), fill=ATTACK_RED, width=max(2, s // 14))
    return image


# -- words ---------------------------------------------------------------------------------------------
def seat_label(state: LostCityState, p: int) -> str:
    """E.g. ``"Rob (player_0)"``, or ``"player_3"`` before its character is picked or drawn."""
    if state.char[p] >= 0:
        return f"{ch.NAMES[state.char[p]]} (player_{p})"
    return f"player_{p}"


def turn_lines(state: LostCityState) -> tuple[str, str]:
    """The header's two lines: who is to act, and what the deciding seat must choose (or the result)."""
    phase = state.phase
    if phase == P_CHARS:
        return ("Setting up", f"Drawing characters (T31): {state.seated()} of {state.n} seats have one")
    if phase == P_FIRST:
        return ("Setting up", "Initiative roll-off: the highest d6 starts (T30)")
    if phase == P_PICK:
        left = ", ".join(ch.NAMES[k] for k in state.characters_left())
        return (f"player_{state.to_move} to pick a character (T2)", f"Still free: {left}")
    if phase == P_OVER:
        if len(state.outcome) == 1:
            return (f"{seat_label(state, state.outcome[0])} wins!", f"Game over after {state.round} rounds")
        names = ", ".join(seat_label(state, p) for p in state.outcome)
        return ("Draw", f"between {names} (round {state.round})")
    a = state.to_move
    name = ch.NAMES[state.char[a]]
    decider = state.ctrl[a]
    if decider >= 0:
        who = f"{seat_label(state, decider)} controls seduced {seat_label(state, a)}"
    else:
        who = f"{seat_label(state, a)} to act"
    k = state.char[a]
    if phase == P_MOVE:
        squares = "1 square" if ch.MOVE[k] == 1 else f"{ch.MOVE[k]} squares"
        what = f"Move {name} up to {squares}, or stay"
    elif phase == P_ACTION:
        if state.round == 1:
            what = "Round 1: no attacks yet (T7); end the turn"
        else:
            what = f"Attack (range {ch.RANGE[k]}), use an ability, or end the turn"
    elif phase == P_COPY:
        what = f"Copycat: choose the target of {ch.ABILITY_NAMES[state.copy]}"
    elif phase == P_POSTROLL:
        what = f"Hit! {state.roll * 10} damage rolled: Critical, +Damage card, or apply it"
    elif phase == P_HIT:
        what = f"{name} attacks {seat_label(state, state.target)}: rolling to hit (1-3 hits)"
    elif phase == P_DAMAGE:
        what = f"{name} hits {seat_label(state, state.target)}: rolling damage and the colour die"
    elif phase == P_COLOUR:
        what = "Rolling the colour die: black draws a battle card"
    else:  # P_DRAW
        what = f"Black! {name} draws a battle card"
    return (who, what)


# -- the picture -----------------------------------------------------------------------------------------
def draw_state(game: Game, state: LostCityState, view: int | None = None) -> Image.Image:
    """A picture of ``state`` (see the module docstring); ``view`` marks that player's character.

    Every fact of a position is public but the deck order, which the state does not hold, so
    ``view`` changes only the "YOU" marks.
    """
    options = state.options
    if view is not None and not 0 <= view < state.n:
        raise ValueError(f"view must be None or a player id 0..{state.n - 1}, got {view}")
    lay = layout(options.board_size, state.n)
    image = _background(options.board_size, state.n, options.ruins, options.spawns).copy()
    draw = render.require_pillow().ImageDraw.Draw(image)
    _draw_header(draw, state, lay, view)
    _draw_board(draw, state, lay, view)
    _draw_panel(image, draw, state, lay, view)
    _draw_footer(draw, state, lay)
    return image


def _playing(state: LostCityState) -> bool:
    """True once every seat has its character and the first player is known."""
    return state.phase >= P_MOVE


def _acting(state: LostCityState) -> int:
    """The seat whose character is taking its turn, or -1 (setup, game over)."""
    return state.to_move if _playing(state) and state.phase != P_OVER else -1


def _draw_header(draw: ImageDraw.ImageDraw, state: LostCityState, lay: Layout, view: int | None) -> None:
    light, soft = (250, 240, 220), (232, 214, 180)
    text(draw, (MARGIN + 8, 12), "Star of the Lost City", size=18, fill=GOLD)
    right = lay.width - MARGIN - 8
    if _playing(state):
        rounds = f"Round {min(state.round, state.options.max_rounds)} / {state.options.max_rounds}"
    else:
        rounds = "Setup"
    text(draw, (right, 12), rounds, size=16, fill=light, anchor="ra")
    if view is not None:
        text(draw, (right, 64), f"view of player_{view}", size=12, fill=soft, anchor="rm")
    who, what = turn_lines(state)
    x = MARGIN + 8
    y = 45
    acting = _acting(state)
    decider = state.current_player() if acting >= 0 else -1
    if acting >= 0:
        if decider != acting:  # T20: the seducer decides for the seduced character
            pawn(draw, (x + 11, y), 11, render.SEAT_COLORS[decider], CODES[state.char[decider]])
            heart(draw, x + 32, y, 6, SEDUCE_PINK)
            x += 42
        pawn(draw, (x + 11, y), 11, render.SEAT_COLORS[acting], CODES[state.char[acting]])
        x += 30
    elif state.phase == P_OVER and len(state.outcome) == 1:
        w = state.outcome[0]
        draw.polygon(render.star_points(x + 11, y, 12, 5, 5), fill=GOLD)
        pawn(draw, (x + 37, y), 11, render.SEAT_COLORS[w], CODES[state.char[w]])
        x += 56
    text(draw, (x, y), render.fit_text(who, 15, right - x - 150), size=15, fill=light, anchor="lm")
    text(draw, (x, y + 19), render.fit_text(what, 13, right - x - 120), size=13, fill=soft, anchor="lm")


def _draw_board(draw: ImageDraw.ImageDraw, state: LostCityState, lay: Layout, view: int | None) -> None:
    cell = lay.cell
    size = lay.size
    acting = _acting(state)
    phase = state.phase
    alive = [p for p in range(state.n) if state.pos[p] >= 0 and (state.hp[p] > 0 or not _playing(state))]
    targets: set[int] = set()
    if acting >= 0 and phase in (P_MOVE, P_ACTION, P_COPY):
        legal = state.legal_actions()
        at = state.pos[acting]
        if phase == P_MOVE:  # T5: the squares the acting character may move to
            r0, c0 = divmod(at, size)
            for action in legal:
                if action < ATTACK and action != STAY:
                    dr, dc = MOVE_OFFSETS[action]
                    index = (r0 + dr) * size + (c0 + dc)
                    r, c = divmod(index, size)
                    box = lay.box(index)
                    draw.rectangle(
                        box, fill=render.mix(GROUND[(r + c) % 2], render.HIGHLIGHT, 0.42), outline=GRID_LINE
                    )
                    cx, cy = lay.centre(index)
                    dot = max(2, cell // 10)
                    draw.ellipse((cx - dot, cy - dot, cx + dot, cy + dot), fill=(200, 140, 0))
        else:  # T4: the attack range, and every character the actions may target (T35)
            reach = ch.RANGE[state.char[acting]] if phase == P_ACTION else 0
            if reach and state.round > 1:
                r0, c0 = divmod(at, size)
                x0 = lay.board_x + max(0, c0 - reach) * cell
                y0 = lay.board_y + max(0, r0 - reach) * cell
                x1 = lay.board_x + (min(size - 1, c0 + reach) + 1) * cell
                y1 = lay.board_y + (min(size - 1, r0 + reach) + 1) * cell
                draw.rectangle((x0, y0, x1, y1), outline=render.mix(ATTACK_RED, GROUND[0], 0.3), width=2)
            for action in legal:
                if ATTACK <= action < COPY:
                    if action < ABILITY:
                        offsets: tuple[int, ...] = (action - ATTACK + 1,)
                    elif action < PAIR:
                        offsets = (action - ABILITY + 1,)
                    else:
                        offsets = PAIRS[action - PAIR]
                    targets.update(state.seat_at_offset(o) for o in offsets)
    # seduction links (T20): seducer to every character it controls
    for p in alive:
        seducer = state.ctrl[p]
        if seducer >= 0 and state.pos[seducer] >= 0:
            dashed_line(
                draw,
                lay.centre(state.pos[seducer]),
                lay.centre(state.pos[p]),
                SEDUCE_PINK,
                max(2, cell // 14),
                max(4, cell / 6),
            )
    if acting >= 0 and state.target >= 0 and state.pos[state.target] >= 0:
        targets.add(state.target)  # the attack being rolled
    # tokens
    radius = cell * 0.38
    for p in alive:
        cx, cy = lay.centre(state.pos[p])
        colour = render.SEAT_COLORS[p]
        if p == acting:  # the acting character: its square in gold, a white ring with an orange rim
            r, c = divmod(state.pos[p], size)
            draw.rectangle(
                lay.box(state.pos[p]),
                fill=render.mix(GROUND[(r + c) % 2], (255, 170, 0), 0.6),
                outline=GRID_LINE,
            )
            g = radius + max(4, cell * 0.1)
            draw.ellipse(
                (cx - g, cy - g, cx + g, cy + g), fill=(255, 255, 255), outline=(225, 110, 0), width=3
            )
        if p in targets:
            g = radius + max(3, cell * 0.08)
            draw.ellipse((cx - g, cy - g, cx + g, cy + g), outline=ATTACK_RED, width=max(2, cell // 16))
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                draw.line(
                    (cx + dx * (g - 3), cy + dy * (g - 3), cx + dx * (g + 5), cy + dy * (g + 5)),
                    fill=ATTACK_RED,
                    width=2,
                )
        label = CODES[state.char[p]] if state.char[p] >= 0 else "?"
        draw.ellipse(
            (cx - radius, cy - radius, cx + radius, cy + radius),
            fill=colour,
            outline=render.INK if p != view else (255, 255, 255),
            width=2 if p != view else 3,
        )
        text(
            draw,
            (cx, cy - cell * 0.03),
            label,
            size=max(8, round(radius * 0.95)),
            fill=render.contrast(colour),
            anchor="mm",
        )
        if state.char[p] >= 0 and _playing(state):
            k = state.char[p]
            bar_y = lay.board_y + (state.pos[p] // size + 1) * cell - max(4, cell // 9) - 1
            hp_bar(
                draw,
                (cx - cell * 0.4, bar_y, cx + cell * 0.4, bar_y + max(3, cell // 11)),
                state.hp[p],
                ch.MAX_HP[k],
            )
        b = max(5.0, cell * 0.15)
        if state.burn[p]:
            flame(draw, cx + radius * 0.95, cy - radius * 0.85, b)
        if state.ctrl[p] >= 0:
            heart(draw, cx - radius * 0.95, cy - radius * 0.85, b, SEDUCE_PINK)
        if state.held[p] >= 0:
            w, h = b * 1.1, b * 1.5
            x, y = cx + radius * 0.75, cy + radius * 0.1
            draw.rectangle(
                (x - w / 2, y - h / 2, x + w / 2, y + h / 2),
                fill=CARD_COLORS[state.held[p]],
                outline=render.INK,
            )
        if state.skip[p]:
            x, y = cx - radius * 0.95, cy + radius * 0.2
            draw.ellipse((x - b, y - b, x + b, y + b), fill=(90, 110, 160), outline=render.INK)
            text(draw, (x, y), "Z", size=max(7, round(b * 1.3)), fill=(255, 255, 255), anchor="mm")
        if p == view and cell >= 30:
            text(
                draw,
                (cx, lay.board_y + (state.pos[p] // size) * cell + 1),
                "YOU",
                size=max(7, cell // 6),
                fill=render.INK,
                anchor="ma",
            )
    # the attack being rolled, over the tokens so that it shows between neighbours
    if acting >= 0 and state.target >= 0 and state.pos[state.target] >= 0:
        a, b = lay.centre(state.pos[acting]), lay.centre(state.pos[state.target])
        d = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
        ux, uy = (b[0] - a[0]) / d, (b[1] - a[1]) / d
        start = (a[0] + ux * radius * 0.5, a[1] + uy * radius * 0.5)
        tip = (b[0] - ux * radius * 0.9, b[1] - uy * radius * 0.9)
        width = max(3, cell // 12)
        arrow(draw, start, tip, (255, 255, 255), width + 4, max(12, cell * 0.36))
        arrow(draw, start, tip, ATTACK_RED, width, max(9, cell * 0.3))
    if phase == P_OVER:
        who, what = turn_lines(state)
        bx = lay.board_x + lay.board_px / 2
        by = lay.board_y + lay.board_px / 2
        w = max(render.text_length(who, 24), render.text_length(what, 14)) / 2 + 24
        draw.rounded_rectangle(
            (bx - w, by - 40, bx + w, by + 40), radius=10, fill=(60, 48, 36), outline=GOLD, width=3
        )
        text(draw, (bx, by - 12), who, size=24, fill=GOLD, anchor="mm")
        text(draw, (bx, by + 18), what, size=14, fill=(250, 240, 220), anchor="mm")


def _draw_panel(
    image: Image.Image, draw: ImageDraw.ImageDraw, state: LostCityState, lay: Layout, view: int | None
) -> None:
    acting = state.to_move if state.phase == P_PICK else _acting(state)  # the picker in the draft (T2)
    playing = _playing(state)
    for p in range(state.n):
        x0 = lay.panel_x
        y0 = lay.panel_y + p * lay.row_h
        x1, y1 = x0 + PANEL_W, y0 + lay.row_h - 6
        has_char = state.char[p] >= 0
        out = playing and state.hp[p] <= 0
        colour = render.SEAT_COLORS[p]
        won = state.phase == P_OVER and p in state.outcome
        bg = ACTIVE_BG if p == acting or won else OUT_BG if out else PANEL_BG
        draw.rounded_rectangle(
            (x0, y0, x1, y1),
            radius=8,
            fill=bg,
            outline=colour if not out else render.MUTED,
            width=3 if p == acting else 2,
        )
        side = min(64, y1 - y0 - 12)
        px, py = x0 + 7, y0 + (y1 - y0 - side) // 2
        if has_char:
            k = state.char[p]
            image.paste(_portrait(k, p, side, out), (px, py))
        else:
            draw.rectangle(
                (px, py, px + side, py + side),
                fill=render.mix(colour, (255, 255, 255), 0.7),
                outline=colour,
                width=3,
            )
            text(draw, (px + side / 2, py + side / 2), "?", size=side // 2, fill=colour, anchor="mm")
        tx = px + side + 9
        ink = render.MUTED if out else render.INK
        card_w = 40
        text_right = x1 - card_w - 14
        if not has_char:
            text(draw, (tx, y0 + 8), f"player_{p}", size=15, fill=ink)
            picking = state.phase == P_PICK and p == state.to_move
            what = "to pick a character" if picking else "no character yet"
            text(draw, (tx, y0 + 28), what, size=11, fill=render.MUTED)
            continue
        k = state.char[p]
        name = ch.NAMES[k]
        text(draw, (tx, y0 + 6), name, size=16, fill=ink)
        nx = tx + render.text_length(name, 16) + 6
        text(draw, (nx, y0 + 10), f"player_{p}", size=11, fill=render.MUTED)
        tags = []
        if p == view:
            tags.append(("YOU", render.INK, (255, 255, 255)))
        if won:
            tags.append(("WINNER" if len(state.outcome) == 1 else "DRAW", (255, 255, 255), (200, 140, 0)))
        if state.phase >= P_PICK and p == state.first:
            tags.append(("1st", (120, 90, 20), (255, 236, 170)))
        tag_x = nx + render.text_length(f"player_{p}", 11) + 6
        for label, fg, tag_bg in tags:
            w = render.text_length(label, 10) + 8
            if tag_x + w > text_right + card_w:
                break
            draw.rounded_rectangle((tag_x, y0 + 8, tag_x + w, y0 + 22), radius=4, fill=tag_bg, outline=fg)
            text(draw, (tag_x + w / 2, y0 + 15), label, size=10, fill=fg, anchor="mm")
            tag_x += w + 4
        kind = "Ranged" if ch.RANGED[k] else "Melee"
        text(
            draw,
            (tx, y0 + 25),
            f"{kind} - move {ch.MOVE[k]} - range {ch.RANGE[k]}",
            size=11,
            fill=render.MUTED,
        )
        bar_y = y0 + 41
        hp_bar(draw, (tx, bar_y, text_right - 58, bar_y + 10), state.hp[p], ch.MAX_HP[k])
        text(
            draw,
            (text_right - 52, bar_y + 5),
            f"{state.hp[p]}/{ch.MAX_HP[k]}",
            size=12,
            fill=ink,
            anchor="lm",
        )
        # ability, then statuses, on the last line
        line_y = min(y1 - 12, bar_y + 24)
        if out:
            text(draw, (tx, line_y), "ELIMINATED", size=12, fill=ATTACK_RED, anchor="lm")
        else:
            chips = _status_chips(state, p)
            x = tx
            if not chips:
                ability_icon(draw, k, x + 6, line_y, 6)
                text(draw, (x + 16, line_y), ch.ABILITY_NAMES[k], size=11, fill=render.MUTED, anchor="lm")
            for label, fill, icon in chips:
                w = render.text_length(label, 10) + (20 if icon else 8)
                if x + w > text_right + card_w:
                    break
                draw.rounded_rectangle((x, line_y - 8, x + w, line_y + 8), radius=5, fill=fill)
                lx = x + 4
                if icon == "fire":
                    flame(draw, x + 9, line_y, 5)
                    lx = x + 16
                elif icon == "heart":
                    heart(draw, x + 9, line_y, 5, (255, 255, 255))
                    lx = x + 16
                text(draw, (lx, line_y), label, size=10, fill=(255, 255, 255), anchor="lm")
                x += w + 4
        # the held battle card (T12: at most one)
        cx0, cy0 = x1 - card_w - 8, y0 + 8
        ch_h = min(56, y1 - y0 - 16)
        if state.held[p] >= 0:
            card(
                draw,
                (cx0, cy0, cx0 + card_w, cy0 + ch_h),
                CARD_LABELS[state.held[p]],
                fill=CARD_COLORS[state.held[p]],
                size=10,
            )
        elif not out and state.phase != P_OVER:
            draw.rounded_rectangle(
                (cx0, cy0, cx0 + card_w, cy0 + ch_h), radius=6, outline=(205, 198, 182), width=1
            )
            text(
                draw,
                (cx0 + card_w / 2, cy0 + ch_h / 2),
                "no\ncard",
                size=9,
                fill=(190, 182, 165),
                anchor="mm",
            )


def _status_chips(state: LostCityState, p: int) -> list[tuple[str, RGB, str]]:
    """Short status labels of seat ``p``: (text, colour, icon)."""
    chips: list[tuple[str, RGB, str]] = []
    if state.burn[p]:
        chips.append((f"burning {state.burn[p]}", (190, 80, 20), "fire"))
    if state.ctrl[p] >= 0:
        by = ch.NAMES[state.char[state.ctrl[p]]]
        left = state.ctrl_turns[p] + (1 if p == _acting(state) else 0)  # controlled turns to come (T20)
        when = (
            "this turn" if left == 1 and p == _acting(state) else f"{left} turn" + ("s" if left != 1 else "")
        )
        chips.append((f"seduced by {by}, {when}", SEDUCE_PINK, "heart"))
    elif state.shield_by[p] >= 0:
        by = ch.NAMES[state.char[state.shield_by[p]]]
        chips.append((f"safe from {by}", (150, 110, 160), ""))
    if state.skip[p]:
        chips.append((f"skips {state.skip[p]}", (90, 110, 160), ""))
    controls = [q for q in range(state.n) if state.ctrl[q] == p]
    if controls:
        names = ", ".join(ch.NAMES[state.char[q]] for q in controls)
        chips.append((f"controls {names}", (170, 50, 120), "heart"))
    return chips


def _draw_footer(draw: ImageDraw.ImageDraw, state: LostCityState, lay: Layout) -> None:
    y0 = lay.footer_y
    x0 = MARGIN + 6
    # -- the attack in play -------------------------------------------------------------------------
    text(draw, (x0 + 4, y0 + 8), "Attack", size=14)
    phase = state.phase
    attacking = state.target >= 0 and phase in (P_HIT, P_DAMAGE, P_COLOUR, P_POSTROLL, P_DRAW)
    a = state.to_move
    if attacking:
        msg = f"{ch.NAMES[state.char[a]]} attacks {ch.NAMES[state.char[state.target]]}"
        pawn(draw, (x0 + 70, y0 + 15), 7, render.SEAT_COLORS[a])
        arrow(draw, (x0 + 80, y0 + 15), (x0 + 98, y0 + 15), ATTACK_RED, 2, 7)
        pawn(draw, (x0 + 107, y0 + 15), 7, render.SEAT_COLORS[state.target])
        text(draw, (x0 + 120, y0 + 15), render.fit_text(msg, 12, 200), size=12, anchor="lm")
    elif phase == P_DRAW:
        text(draw, (x0 + 70, y0 + 15), "drawing a battle card", size=12, anchor="lm")
    else:
        text(
            draw,
            (x0 + 70, y0 + 15),
            "none: hit on 1-3, damage 10 x d6, black: a card",
            size=11,
            fill=render.MUTED,
            anchor="lm",
        )
    dice_y = y0 + 36
    d = 46
    faded = (236, 232, 222)
    slots = []
    # hit die: the roll itself is not kept; a damage roll means it hit (1-3)
    if attacking and phase == P_HIT:
        slots.append(("to hit", "?", (255, 255, 255), render.INK))
    elif attacking or phase == P_DRAW:
        slots.append(("to hit", "HIT", (205, 240, 205), (20, 110, 40)))
    else:
        slots.append(("to hit", "", faded, render.MUTED))
    if attacking and phase in (P_COLOUR, P_POSTROLL) and state.roll:
        slots.append(("damage", state.roll, (255, 255, 255), render.INK))
    elif attacking and phase == P_DAMAGE:
        slots.append(("damage", "?", (255, 255, 255), render.INK))
    else:
        slots.append(("damage", "", faded, render.MUTED))
    if phase == P_POSTROLL or phase == P_DRAW:
        black = state.black or phase == P_DRAW
        slots.append(
            (
                "colour",
                "CARD" if black else "not\nblack",
                (25, 25, 25) if black else (240, 240, 240),
                render.INK,
            )
        )
    elif attacking and phase in (P_DAMAGE, P_COLOUR):
        slots.append(("colour", "?", (255, 255, 255), render.INK))
    else:
        slots.append(("colour", "", faded, render.MUTED))
    x = x0 + 6
    for label, value, fill, ink in slots:
        box = (x, dice_y, x + d, dice_y + d)
        if isinstance(value, int):
            render.die(draw, box, value, fill=fill)
        else:
            draw.rounded_rectangle(
                box, radius=d * 0.15, fill=fill, outline=ink if value else (210, 204, 190), width=2
            )
            if "\n" in value:
                text(
                    draw, (x + d / 2, dice_y + d / 2), value, size=10, fill=render.contrast(fill), anchor="mm"
                )
            elif value:
                text(
                    draw,
                    (x + d / 2, dice_y + d / 2),
                    value,
                    size=13 if len(value) > 1 else 20,
                    fill=render.contrast(fill),
                    anchor="mm",
                )
        text(draw, (x + d / 2, dice_y + d + 12), label, size=11, fill=render.MUTED, anchor="mm")
        x += d + 12
    # damage so far (T19: roll x 10, doubled by Critical, plus the +Damage bonus)
    if attacking and state.roll:
        parts = [f"roll {state.roll} x 10"]
        if state.crit:
            parts.append("x 2 (Critical)")
        if state.bonus:
            parts.append(f"+ {state.bonus} (card)")
        total = state.roll * 10 * (2 if state.crit else 1) + state.bonus
        text(draw, (x + 4, dice_y + 6), f"{total} damage", size=18, fill=ATTACK_RED)
        text(draw, (x + 4, dice_y + 30), " ".join(parts), size=11, fill=render.MUTED)
    # -- the battle deck (4.3: the cards left and discarded are public) ---------------------------------
    dx = lay.width - MARGIN - 6 - 8 * 52 - 70
    draw.line((dx - 14, y0 + 10, dx - 14, y0 + FOOTER_H - 10), fill=(220, 212, 196), width=2)
    deck = state.deck
    pile = deck.draw_pile_size()
    text(draw, (dx, y0 + 8), "Battle deck", size=14)
    text(
        draw,
        (dx + render.text_length("Battle deck", 14) + 10, y0 + 10),
        f"draw pile {pile}, discards {deck.discard_size()}",
        size=11,
        fill=render.MUTED,
    )
    # the face-down pile
    for i in range(min(4, max(1, (pile + 6) // 7))):
        bx, by = dx + 6 - i * 2, y0 + 36 - i * 2
        draw.rounded_rectangle(
            (bx, by, bx + 44, by + 62),
            radius=5,
            fill=(70, 50, 110) if pile else (220, 214, 200),
            outline=render.INK,
        )
    if pile:
        draw.polygon(render.star_points(dx + 22, y0 + 61, 12, 5, 8), fill=GOLD)
    text(draw, (dx + 22, y0 + 108), f"{pile}", size=12, anchor="mm")
    counts = deck.draw_pile_counts()
    full = state.options.card_counts
    x = dx + 70
    for kind in range(cards.NUM_KINDS):
        box = (x, y0 + 34, x + 46, y0 + 96)
        fill = CARD_COLORS[kind] if counts[kind] else render.mix(CARD_COLORS[kind], (240, 240, 240), 0.7)
        card(draw, box, CARD_LABELS[kind], fill=fill, size=10)
        text(
            draw,
            (x + 23, y0 + 108),
            f"{counts[kind]}/{full[kind]}",
            size=11,
            fill=render.INK if counts[kind] else render.MUTED,
            anchor="mm",
        )
        x += 52


# -- a reproducible example (docs/images/lost_city.png, tests) --------------------------------------------
def lively_choice(state: LostCityState, legal: Sequence[int], rng: np.random.Generator) -> int:
    """A random legal action that is an attack or an ability four times in five when there is one."""
    fights = [a for a in legal if ATTACK <= a < END]
    pool = fights if fights and rng.random() < 0.8 else legal
    return int(pool[int(rng.integers(len(pool)))])


def example_state(game: Game, seed: int, steps: int) -> LostCityState:
    """The position after ``steps`` decisions of a seeded random game of a Lost City ``game`` in which
    every seat attacks or uses an ability (when it may) four times in five (:func:`lively_choice`): a
    lively mid-game for pictures and tests."""
    if game.state_class is not LostCityState:
        raise TypeError(f"example_state draws a Lost City game, not {game.name}")
    return random_position(game, seed, steps, choose=lively_choice)  # type: ignore


#: The docs picture: six players, round 33: Chris has rolled 60 damage on Safina and a black colour die,
#: holds a +20 Damage card he may add; Rob controls the seduced Aaron; Jamie is out.
EXAMPLE_PLAYERS, EXAMPLE_SEED, EXAMPLE_STEPS = 6, 2816, 249
#: The options of the docs picture's game: characters drawn at random, the first colour die (one
#: black face) and the first design's spawns (T3), the game the picture was first made from (the
#: picture shows no option).
EXAMPLE_OPTIONS = {
    "num_players": EXAMPLE_PLAYERS,
    "characters": "random",
    "black_faces": 1,
    "spawns": FIRST_SPAWNS,
}


def save_example(game: Game, path: str, view: int | None = None) -> None:
    """Save the docs picture of ``game`` (:data:`EXAMPLE_SEED`, :data:`EXAMPLE_STEPS`) as a PNG at
    ``path``, from ``view``. The docs' picture is ``save_example(make_game("lost_city_v0",
    **EXAMPLE_OPTIONS), "docs/images/lost_city.png")``."""
    game.draw(example_state(game, EXAMPLE_SEED, EXAMPLE_STEPS), view).save(path)


def action_places(game: Game, state: LostCityState, view: int | None = None) -> dict[int, Place]:
    """:meth:`boardenvs.core.game.Game.action_places`: the square of each move (staying put: the
    character's own) and the square of the character each single-target attack or ability targets."""
    player = state.current_player()
    if player < 0 or not _playing(state) or state.phase == P_OVER:
        return {}
    lay = layout(state.options.board_size, state.n)
    out: dict[int, Place] = {}
    for a in state.legal_actions():
        if a < ATTACK and state.phase == P_MOVE:
            cell = state.move_destination(a)
        elif ATTACK <= a < PAIR:
            target = state.seat_at_offset((a - ATTACK if a < ABILITY else a - ABILITY) + 1)
            cell = state.pos[target]
        else:
            continue
        if 0 <= cell < state.options.board_size**2:
            out[a] = tuple(float(v) for v in lay.box(cell))  # type: ignore[assignment]
    return out
