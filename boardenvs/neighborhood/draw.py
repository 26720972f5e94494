"""Pictures of LEAVE this Neighborhood positions (``render_mode="rgb_array"``), drawn with Pillow.

The board follows neighborhood.md 1.3: a square grid (``board_size``, 9 to 15 squares a side, drawn
the same width whatever the size) in four coloured locations (Mountains silver NW, Village blue NE, City
purple SE, Forest yellow SW; L1, L2), roads on the middle row and column, the star in the middle pointing
at the five Start squares (L5), the Wild Spaces (L3) and the compass points on the border (L7). On it:
the characters in their colours (L4), traps (L33), the Killer and Victim of the card being resolved,
and what the player to decide may pick (squares, directions, players). Beside
it: every player's HP, pending Wild card (L12), Curfew and Hire a Thug; the turn's die and spinner; the
cards in play with their black text and colour line (the one that applies is highlighted, L28); the
decision asked; the round counter; the outcome at the end. Under it: a legend and the draw piles.

A player's view (``view=p``) shows what that player's observation holds: everything is public except
who set a trap that is not ``p``'s own (the observation only says "mine" or "someone else's").

Pillow is reached through :mod:`boardenvs.core.render` only; this module is imported lazily by
:meth:`boardenvs.neighborhood.env.NeighborhoodGame.draw`. Text is the costly part of a picture, so each
distinct label is rendered once into a mask and stamped (:class:`_Pen`); the empty board is cached.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from boardenvs.core import render
from boardenvs.core.game import Game, Place
from boardenvs.core.positions import random_position
from boardenvs.core.render import BACKGROUND, HIGHLIGHT, INK, MUTED
from boardenvs.core.state import CHANCE
from boardenvs.neighborhood.board import (
    COLOR_LETTERS,
    COLOR_NAMES,
    DIRECTION_NAMES,
    DIRECTIONS,
    FRAME,
    LOCATION_NAMES,
    MAX_SIZE,
    geometry,
    location_of,
)
from boardenvs.neighborhood.cards import COLOUR, DECK_NAMES, DECKS, PROGRAMS
from boardenvs.neighborhood.rules import (
    CELL,
    D_BRANCH,
    D_DIRECTION,
    D_DISTANCE,
    D_KILLER_OR_WILD,
    D_PATH,
    D_PLAYER,
    D_SQUARE,
    D_VICTIM,
    D_VOTE,
    DIR,
    DIST,
    F_PROG,
    F_SETUP,
    MAX_HP,
    OPTION_A,
    PLAYER,
    PROG_BASE,
    STOP,
    NeighborhoodState,
)

if TYPE_CHECKING:  # pragma: no cover - imports for type hints only
    from PIL import Image

Color = tuple[int, int, int]
Box = tuple[float, float, float, float]

# -- layout (the picture is WIDTH x HEIGHT whatever the options, so frames make a GIF) ----------------
WIDTH, HEIGHT = 900, 660
GRID = 480  # the grid's width, whatever the board size (one square of the largest board is 32)
MARGIN = 26  # the board's border, with the compass points and the location names
BX, BY = 10, 46  # top-left of the board with its border
GX, GY = BX + MARGIN, BY + MARGIN  # top-left of the grid
BOARD = 2 * MARGIN + GRID  # 532
PX = BX + BOARD + 16  # the side panel
PW = WIDTH - PX - 10
LEGEND_Y = BY + BOARD + 16
DECKS_Y = LEGEND_Y + 18

# -- colours ------------------------------------------------------------------------------------------
#: L4: the five characters (Silver, Light Blue, Dark Blue, Purple, Yellow).
CHARACTER_COLORS: tuple[Color, ...] = (
    (178, 182, 194),
    (116, 185, 255),
    (20, 62, 165),
    (150, 60, 190),
    (242, 194, 30),
)
#: L2: pale ground of each location (Mountains, Village, City, Forest) and its strong colour.
LOCATION_TINTS: tuple[Color, ...] = ((222, 224, 230), (211, 229, 247), (234, 221, 244), (247, 236, 190))
LOCATION_STRONG: tuple[Color, ...] = ((104, 110, 128), (52, 118, 200), (128, 62, 168), (192, 146, 12))
ROAD = (196, 190, 178)
ROAD_LINE = (245, 242, 235)
GRID_LINE = (150, 144, 134)
BORDER = (92, 74, 58)
WHITE = (255, 255, 255)
KILLER_RED = (196, 36, 44)
VICTIM_INK = (40, 40, 48)
TARGET_ORANGE = (235, 120, 20)
ARROW = (235, 150, 0)
DECK_COLORS: tuple[Color, ...] = (KILLER_RED, *LOCATION_STRONG)

#: Card faces by deck: name -> (black text, colour line or "", the two options of a "choose").
CARD_TEXT: tuple[dict[str, tuple[str, str, tuple[str, str] | None]], ...] = (
    {
        "Ambush": ("Victim loses 2 HP.", "", None),
        "Knife in the Dark": ("Victim loses 2 HP.", "Purple: Victim loses 3 HP.", None),
        "Mug": ("Killer steals 2 HP from the Victim.", "", None),
        "Your Money or Your Life": (
            "Victim chooses: lose 3 HP, or give the Killer 2 HP.",
            "",
            ("lose 3 HP", "give the Killer 2 HP"),
        ),
        "Mercy": (
            "Killer chooses: Victim loses 2 HP, or Killer heals 2 HP.",
            "",
            ("Victim loses 2 HP", "Killer heals 2 HP"),
        ),
        "Showdown": (
            "Killer and Victim roll; the lower loses 3 HP (Killer wins ties).",
            "Silver: Silver wins ties.",
            None,
        ),
        "Chase": (
            "Victim loses 1 HP; Killer may move up to 4 squares straight toward an opponent.",
            "",
            None,
        ),
        "Flee": (
            "Victim loses 1 HP, then moves exactly 3 squares straight.",
            "Blue: Victim moves up to 5 squares along a curved path instead.",
            None,
        ),
        "Self-Defence": ("Killer loses 2 HP.", "Yellow: Killer loses 3 HP.", None),
        "Hostage": ("Killer picks another player: they and the Victim lose 1 HP.", "", None),
        "Double-Cross": ("Victim picks a player other than K and V: they lose 2 HP.", "", None),
        "Frenzy": ("Victim loses 3 HP and Killer loses 1 HP.", "", None),
    },
    {
        "Avalanche": ("Every other character in the Mountains loses 1 HP.", "Silver: they lose 2 HP.", None),
        "Eagle's Eye": (
            "Pick an opponent within 6 steps; move up to 3 squares straight toward them.",
            "",
            None,
        ),
        "Cliff Edge": ("Lose 2 HP.", "Silver: heal 2 HP.", None),
        "Rockslide Trap": ("Set a trap on a Mountains square: the next other arrival loses 2 HP.", "", None),
        "Summit Signal": ("Pick any character; move them 2 squares in a direction you choose.", "", None),
    },
    {
        "Healer's Hut": ("Heal 2 HP.", "Blue: heal 3 HP.", None),
        "Market Deal": (
            "Pick an opponent: you both gain 1 HP, or you steal 1 HP.",
            "",
            ("both gain 1 HP", "steal 1 HP"),
        ),
        "Town Gossip": ("Everyone else moves 1 square in a direction you choose.", "", None),
        "Curfew": ("Pick an opponent: their next turn is skipped.", "", None),
        "Well": ("Lose 1 HP.", "Blue: steal 1 HP from each opponent in the Village.", None),
    },
    {
        "Subway": ("Teleport to a Wild Space in another location (no card there).", "", None),
        "Alley Fight": ("An opponent within 3 steps loses 2 HP.", "Purple: they lose 3 HP.", None),
        "Police Siren": (
            "Everyone in the City (you too) loses 1 HP.",
            "Purple: only the others lose 1 HP.",
            None,
        ),
        "Hire a Thug": ("An opponent loses 1 HP now and 1 HP at their next turn.", "", None),
        "Pickpocket": ("Steal 1 HP from the nearest opponent.", "", None),
    },
    {
        "Berries": (
            "Heal 2 HP, or heal 1 HP and move 2 squares along a curved path.",
            "",
            ("heal 2 HP", "heal 1 HP and move 2"),
        ),
        "Wolf": ("Lose 2 HP.", "Yellow: an opponent in the Forest loses 2 HP.", None),
        "Hunting Trap": ("Set a trap on a Forest square: the next other arrival loses 2 HP.", "", None),
        "Lost": ("Spin the compass and move 4 squares that way.", "Yellow: choose the direction.", None),
        "Campfire": ("Everyone within 2 steps of you (you too) heals 1 HP.", "", None),
    },
)
_COMMON_TEXT: dict[str, tuple[str, str, tuple[str, str] | None]] = {
    "Shortcut": ("Move up to 4 squares along a curved path.", "", None),
    "First Aid": ("Heal 2 HP.", "", None),
    "Bad Luck": ("Lose 1 HP.", "", None),
    "Crossroads": ("Heal 1 HP, or move exactly 3 squares straight.", "", ("heal 1 HP", "move 3 squares")),
}


def card_text(deck: int, kind: int) -> tuple[str, str, tuple[str, str] | None]:
    """The face of card ``kind`` of ``deck``: black text, colour line ("" if none), options of a choice."""
    name = DECKS[deck][kind].name
    if deck > 0 and name in _COMMON_TEXT:
        return _COMMON_TEXT[name]
    return CARD_TEXT[deck][name]


# -- drawing helpers ------------------------------------------------------------------------------------
class _Pen:
    """A picture and its ImageDraw, with text stamped from cached masks (fast, same look)."""

    def __init__(self, img: Image.Image) -> None:
        self.img = img
        self.draw = render.require_pillow().ImageDraw.Draw(img)

    def text(
        self, xy: tuple[float, float], message: str, size: int = 14, fill: Color = INK, anchor: str = "la"
    ) -> None:
        """Write ``message`` at ``xy`` (Pillow anchors)."""
        if not message:
            return
        mask, dx, dy = render.text_mask(message, size, anchor)
        x, y = round(xy[0]) + dx, round(xy[1]) + dy
        self.img.paste(fill, (x, y, x + mask.width, y + mask.height), mask)

    def lines(
        self,
        xy: tuple[float, float],
        lines: tuple[str, ...] | list[str],
        size: int = 13,
        fill: Color = INK,
        step: float = 16,
    ) -> float:
        """Write lines top-down from ``xy``; returns the y below the last one."""
        x, y = xy
        for line in lines:
            self.text((x, y), line, size, fill)
            y += step
        return y

    def pawn(self, centre: tuple[float, float], radius: float, color: Color, label: str) -> None:
        """A character: a disc in its colour with its letter."""
        render.pawn(self.draw, centre, radius, color)
        self.text(centre, label, max(8, int(radius * 1.1)), render.contrast(color), "mm")

    def badge(self, centre: tuple[float, float], label: str, fill: Color) -> None:
        """A small lettered disc (K, V, T)."""
        x, y = centre
        self.draw.ellipse((x - 7, y - 7, x + 7, y + 7), fill=fill, outline=WHITE, width=1)
        self.text((x, y), label, 10, WHITE, "mm")

    def chip(self, x: float, y: float, label: str, fill: Color) -> float:
        """A small labelled tag at ``(x, y)``; returns the x after it."""
        width = render.text_length(label, 11) + 10
        self.draw.rounded_rectangle((x, y, x + width, y + 15), radius=4, fill=fill)
        self.text((x + width / 2, y + 8), label, 11, render.contrast(fill), "mm")
        return x + width + 4

    def arrow(
        self,
        start: tuple[float, float],
        end: tuple[float, float],
        color: Color,
        width: int = 3,
        head: float = 8,
    ) -> None:
        """A straight arrow from ``start`` to ``end``."""
        x0, y0 = start
        x1, y1 = end
        length = max(math.hypot(x1 - x0, y1 - y0), 1e-6)
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        bx, by = x1 - ux * head, y1 - uy * head
        self.draw.line((x0, y0, bx, by), fill=color, width=width)
        w = head * 0.6
        self.draw.polygon([(x1, y1), (bx - uy * w, by + ux * w), (bx + uy * w, by - ux * w)], fill=color)


class _Grid:
    """Where the squares of a ``size`` board are drawn: ``sq`` pixels a side, ``k`` the scale of a
    square against the largest board's (pawns and marks grow with it)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.mid = size // 2
        self.sq = GRID / size
        self.k = self.sq * MAX_SIZE / GRID

    def box(self, r: int, c: int, inset: float = 0) -> Box:
        """Pixel box of square ``(r, c)``, shrunk by ``inset``."""
        sq = self.sq
        x, y = GX + c * sq, GY + r * sq
        return (x + inset, y + inset, x + sq - inset, y + sq - inset)

    def cell_box(self, cell: int, inset: float = 0) -> Box:
        """Pixel box of a cell (``15 row + col``)."""
        return self.box(*divmod(cell, FRAME), inset)

    def centre(self, cell: int) -> tuple[float, float]:
        """Pixel centre of a cell (``15 row + col``)."""
        r, c = divmod(cell, FRAME)
        return (GX + (c + 0.5) * self.sq, GY + (r + 0.5) * self.sq)


def _star(pen: _Pen, centre: tuple[float, float], outer: float) -> None:
    points = render.star_points(centre[0], centre[1], outer, outer * 0.45, 5)
    pen.draw.polygon(points, fill=(255, 214, 60), outline=INK)


def _icon(pen: _Pen, loc: int, box: Box) -> None:
    """A faint picture of the location on a plain square: peaks, a house, towers, a fir tree."""
    x0, y0, x1, _ = box
    w = x1 - x0
    ink = render.mix(LOCATION_TINTS[loc], LOCATION_STRONG[loc], 0.25)

    def pt(fx: float, fy: float) -> tuple[float, float]:
        return (x0 + fx * w, y0 + fy * w)

    d = pen.draw
    if loc == 0:  # Mountains
        d.polygon([pt(0.12, 0.78), pt(0.42, 0.28), pt(0.72, 0.78)], fill=ink)
        d.polygon([pt(0.45, 0.78), pt(0.66, 0.45), pt(0.88, 0.78)], fill=ink)
    elif loc == 1:  # Village
        d.rectangle((*pt(0.3, 0.5), *pt(0.7, 0.78)), fill=ink)
        d.polygon([pt(0.22, 0.52), pt(0.5, 0.25), pt(0.78, 0.52)], fill=ink)
    elif loc == 2:  # City
        d.rectangle((*pt(0.2, 0.35), *pt(0.42, 0.8)), fill=ink)
        d.rectangle((*pt(0.46, 0.2), *pt(0.64, 0.8)), fill=ink)
        d.rectangle((*pt(0.68, 0.45), *pt(0.82, 0.8)), fill=ink)
    else:  # Forest
        d.polygon([pt(0.5, 0.18), pt(0.78, 0.68), pt(0.22, 0.68)], fill=ink)
        d.rectangle((*pt(0.45, 0.68), *pt(0.55, 0.82)), fill=ink)


def _trap_icon(pen: _Pen, box: Box, color: Color) -> None:
    """A jaw trap: an arc with teeth."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    pen.draw.arc((x0, y0 + 0.1 * w, x1, y1 + 0.1 * w), 180, 360, fill=color, width=3)
    teeth = [(x0 + 0.1 * w + i * 0.8 * w / 6, y0 + (0.25 if i % 2 else 0.6) * w) for i in range(7)]
    pen.draw.line(teeth, fill=color, width=2)
    pen.draw.line((x0 + 0.05 * w, y0 + 0.6 * w, x1 - 0.05 * w, y0 + 0.6 * w), fill=color, width=3)


def _compass(pen: _Pen, centre: tuple[float, float], radius: float, direction: int) -> None:
    """The compass spinner (L7), its needle on ``direction`` (-1: no needle)."""
    x, y = centre
    pen.draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=WHITE, outline=INK, width=2)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        norm = math.hypot(dr, dc)
        inner = radius * (0.78 if d % 2 else 0.68)
        pen.draw.line(
            (x + dc / norm * inner, y + dr / norm * inner, x + dc / norm * radius, y + dr / norm * radius),
            fill=INK,
            width=2,
        )
    pen.text((x, y - radius + 9), "N", 9, MUTED, "mm")
    if direction >= 0:
        dr, dc = DIRECTIONS[direction]
        norm = math.hypot(dr, dc)
        pen.arrow(
            (x - dc / norm * radius * 0.35, y - dr / norm * radius * 0.35),
            (x + dc / norm * radius * 0.75, y + dr / norm * radius * 0.75),
            KILLER_RED,
            3,
            8,
        )


# -- the empty board (cached per board layout) ----------------------------------------------------------
@lru_cache(maxsize=8)
def _background(
    size: int,
    wild_spaces: tuple[tuple[tuple[int, int], ...], ...],
    start_squares: tuple[tuple[int, int], ...],
) -> Image.Image:
    """The picture without a position: the board with its border, the legend, the panel's ground."""
    pen = _Pen(render.new_image(WIDTH, HEIGHT))
    g = _Grid(size)
    sq, mid = g.sq, g.mid
    draw = pen.draw
    # The border with the compass points (L7) and the location names (L2).
    draw.rounded_rectangle((BX, BY, BX + BOARD, BY + BOARD), radius=10, fill=BORDER)
    mid_x, mid_y = BX + BOARD / 2, BY + BOARD / 2
    near_x, far_x = BX + MARGIN / 2, BX + BOARD - MARGIN / 2
    top, bottom = BY + MARGIN / 2, BY + BOARD - MARGIN / 2
    light = (250, 236, 200)
    for label, xy in (
        ("N", (mid_x, top)),
        ("S", (mid_x, bottom)),
        ("W", (near_x, mid_y)),
        ("E", (far_x, mid_y)),
        ("NW", (near_x, top)),
        ("NE", (far_x, top)),
        ("SW", (near_x, bottom)),
        ("SE", (far_x, bottom)),
    ):
        pen.text(xy, label, 13, light, "mm")
    west, east = mid / 2, size - mid / 2
    for loc, (col, y) in enumerate(((west, top), (east, top), (east, bottom), (west, bottom))):
        pen.text(
            (GX + col * sq, y),
            LOCATION_NAMES[loc].upper(),
            12,
            render.mix(LOCATION_TINTS[loc], WHITE, 0.3),
            "mm",
        )
    # The squares: locations and roads (L1), Wild Spaces (L3), the star and the Start squares (L5).
    wild = {(r, c): L for L, spaces in enumerate(wild_spaces) for r, c in spaces}
    starts = {rc: colour for colour, rc in enumerate(start_squares)}
    for r in range(size):
        for c in range(size):
            loc = location_of(r, c, size)
            draw.rectangle(g.box(r, c), fill=ROAD if loc < 0 else LOCATION_TINTS[loc])
            if loc >= 0 and (r, c) not in wild and (r, c) not in starts and (r * 5 + c * 3) % 7 == 0:
                _icon(pen, loc, g.box(r, c))
    dash = sq / 4
    for i in range(size):  # dashed road markings
        if i != mid:
            x, y = GX + i * sq, GY + (mid + 0.5) * sq
            draw.line((x + dash, y, x + sq - dash, y), fill=ROAD_LINE, width=2)
            x, y = GX + (mid + 0.5) * sq, GY + i * sq
            draw.line((x, y + dash, x, y + sq - dash), fill=ROAD_LINE, width=2)
    for (r, c), L in wild.items():
        x0, y0, x1, y1 = g.box(r, c, 3 * g.k)
        draw.rounded_rectangle((x0, y0, x1, y1), radius=6, fill=LOCATION_STRONG[L], outline=WHITE, width=2)
        pen.text(((x0 + x1) / 2, (y0 + y1) / 2 + 1), "W", int(16 * g.k), WHITE, "mm")
    star_c = g.centre(mid * FRAME + mid)
    for (r, c), colour in starts.items():
        tint = CHARACTER_COLORS[colour]
        draw.rectangle(g.box(r, c, 1), fill=render.mix(tint, WHITE, 0.45), outline=tint, width=3)
        label_at = (GX + (c + 0.5) * sq, GY + (r + 1) * sq - 6 * g.k)
        pen.text(label_at, "START", int(7 * g.k), render.mix(tint, INK, 0.55), "mm")
        cx, cy = g.centre(r * FRAME + c)  # the middle star points at each Start square (SEED)
        norm = max(math.hypot(cx - star_c[0], cy - star_c[1]), 1)
        ux, uy = (cx - star_c[0]) / norm, (cy - star_c[1]) / norm
        tip = (star_c[0] + ux * sq * 0.64, star_c[1] + uy * sq * 0.64)
        base = (star_c[0] + ux * sq * 0.3, star_c[1] + uy * sq * 0.3)
        w = 5 * g.k
        draw.polygon(
            [tip, (base[0] - uy * w, base[1] + ux * w), (base[0] + uy * w, base[1] - ux * w)],
            fill=tint,
            outline=INK,
        )
    _star(pen, star_c, sq * 0.36)
    for i in range(size + 1):
        draw.line((GX + i * sq, GY, GX + i * sq, GY + GRID), fill=GRID_LINE, width=1)
        draw.line((GX, GY + i * sq, GX + GRID, GY + i * sq), fill=GRID_LINE, width=1)
    # The legend under the board.
    y, x = LEGEND_Y, BX + 2
    draw.rounded_rectangle((x, y - 8, x + 16, y + 8), radius=4, fill=LOCATION_STRONG[1])
    pen.text((x + 8, y + 1), "W", 11, WHITE, "mm")
    pen.text((x + 22, y), "Wild Space", 12, INK, "lm")
    x += 96
    draw.rectangle((x, y - 8, x + 16, y + 8), fill=WHITE, outline=INK, width=2)
    _trap_icon(pen, (x + 3, y - 5, x + 13, y + 7), INK)
    pen.text((x + 22, y), "trap", 12, INK, "lm")
    x += 60
    pen.badge((x + 7, y), "K", KILLER_RED)
    pen.badge((x + 24, y), "V", VICTIM_INK)
    pen.badge((x + 41, y), "T", TARGET_ORANGE)
    pen.text((x + 53, y), "Killer, Victim, chosen", 12, INK, "lm")
    x += 190
    draw.ellipse((x, y - 8, x + 16, y + 8), outline=HIGHLIGHT, width=3)
    pen.text((x + 22, y), "turn", 12, INK, "lm")
    x += 58
    draw.ellipse((x, y - 8, x + 16, y + 8), outline=TARGET_ORANGE, width=3)
    pen.text((x + 22, y), "may pick", 12, INK, "lm")
    # The draw piles' backs (their counts are written per position).
    pen.text((BX + 2, DECKS_Y + 12), "Draw piles", 12, MUTED, "lm")
    for d in range(len(DECK_COLORS)):
        x, w = _pile_x(d)
        shadow = render.mix(DECK_COLORS[d], BACKGROUND, 0.5)
        draw.rounded_rectangle((x + 3, DECKS_Y + 3, x + w + 3, DECKS_Y + 25), radius=4, fill=shadow)
        draw.rounded_rectangle((x, DECKS_Y, x + w, DECKS_Y + 22), radius=4, fill=DECK_COLORS[d], outline=INK)
    return pen.img


# -- reading the position -------------------------------------------------------------------------------
def _name(state: NeighborhoodState, p: int) -> str:
    return COLOR_NAMES[state.colors[p]]


def _play_order(state: NeighborhoodState) -> list[int]:
    """The seats in play order from the first player (L9); around the table before that's decided."""
    if state.first < 0:
        return list(state.table)
    return [state.seat_after(state.first, i * state.direction) for i in range(state.n)]


def _decision(state: NeighborhoodState) -> dict[str, Any]:
    """What the player to move is asked: the words, and what to mark on the board."""
    ask: dict[str, Any] = {"lines": [], "cells": [], "arrows": [], "players": [], "labels": {}, "path": []}
    decider = state.current_player()
    if decider < 0:
        return ask
    legal = state.legal_actions()
    kind = state.decision_kind()
    who = _name(state, decider)
    ask["players"] = [state.seat_after(decider, a - PLAYER) for a in legal if PLAYER <= a < OPTION_A]
    geo = geometry(state.options.board_size)
    names = ", ".join(_name(state, q) for q in ask["players"])
    top = state.stack[-1] if state.stack else []
    f = top if top and top[0] == F_PROG else None
    op = PROGRAMS[f[2]][f[3]] if f is not None and f[3] < len(PROGRAMS[f[2]]) else None
    if kind == D_KILLER_OR_WILD:
        cell = state.pos[decider]
        here = [
            _name(state, q)
            for q in range(state.n)
            if q != decider and state.alive[q] and state.pos[q] == cell
        ]
        loc = LOCATION_NAMES[state.wild_location(cell)]
        ask["lines"] = [
            f"{who} landed on {', '.join(here)} on a {loc} Wild Space:",
            "play the Killer card or the Wild card? (L14)",
        ]
        ask["cells"] = [cell]
    elif kind == D_VOTE:
        ask["lines"] = [
            f"{who} arrived with others at once on a Wild Space:",
            "vote Killer card or Wild card (L17).",
        ]
        ask["cells"] = [state.pos[decider]]
    elif kind == D_VICTIM:
        ask["lines"] = [f"{who} is the Killer and picks the Victim (L15): {names}."]
    elif kind == D_PLAYER:
        ask["lines"] = [f"{who} picks a player: {names}."]
    elif kind == D_BRANCH:
        deck, card, _ = state.current_card()
        options = card_text(deck, card)[2] if deck >= 0 else None
        a, b = options if options else ("the first option", "the second option")
        ask["lines"] = [f"{who} chooses: (A) {a}, or (B) {b}."]
    elif kind == D_DIRECTION:
        dirs = [a - DIR for a in legal if DIR <= a < DIST]
        extra = ", or declines" if STOP in legal else ""
        ask["lines"] = [f"{who} picks a direction{extra}: {', '.join(DIRECTION_NAMES[d] for d in dirs)}."]
        if op is not None and op[0] == "line":
            start = state.pos[f[op[1]]]
            for d in dirs:
                ray = geo.ray[start][d]
                ask["arrows"].append((start, ray[min(op[3], len(ray)) - 1]))
        elif op is not None and op[0] == "gossip":
            ask["lines"].append("Everyone else moves 1 square that way.")
    elif kind == D_DISTANCE:
        dists = [a - DIST + 1 for a in legal if DIST <= a < PLAYER]
        ask["lines"] = [f"{who} picks how far to move: {', '.join(map(str, dists))} square(s)."]
        if op is not None and op[0] == "line":
            ray = geo.ray[state.pos[f[op[1]]]][f[12]]
            for k in dists:
                ask["cells"].append(ray[k - 1])
                ask["labels"][ray[k - 1]] = str(k)
    elif kind == D_PATH:
        total = op[2] if op is not None and op[0] == "curve" else 0
        taken = f[12] if f is not None else 0
        stop = ", or stops here" if STOP in legal else ""
        ask["lines"] = [f"{who} walks a curved path (L24): step {taken + 1} of up to {total}{stop}."]
        mover = f[op[1]] if op is not None and op[0] == "curve" else decider
        ask["cells"] = [geo.step[state.pos[mover]][a - DIR] for a in legal if DIR <= a < DIST]
        ask["path"] = list(f[PROG_BASE:]) if f is not None else []
    elif kind == D_SQUARE:
        what = "where to ride the Subway" if op is not None and op[0] == "teleport" else "the trap's square"
        ask["lines"] = [f"{who} picks {what} (marked)."]
        ask["cells"] = [a - CELL for a in legal if CELL <= a < DIR]
    deck, card, _ = state.current_card()
    if deck >= 0 and kind in (D_PLAYER, D_BRANCH, D_DIRECTION, D_DISTANCE, D_PATH, D_SQUARE) and ask["lines"]:
        ask["lines"][0] = f"{DECKS[deck][card].name}: {ask['lines'][0]}"  # the card asking
    return ask


# -- the position on the board --------------------------------------------------------------------------
def _pawn_spots(g: _Grid, cell: int, count: int) -> list[tuple[float, float, float]]:
    """Centres and radius of ``count`` characters sharing a square."""
    x, y = g.centre(cell)
    k = g.k
    if count == 1:
        spots = [(0.0, 0.0, 12.0)]
    elif count == 2:
        spots = [(-6, -5, 9), (6, 6, 9)]
    elif count == 3:
        spots = [(-7, -6, 7.5), (7, -6, 7.5), (0, 7, 7.5)]
    else:
        spots = [(dx, dy, 6.5) for dx, dy in [(-8, -8), (8, -8), (-8, 8), (8, 8), (0, 0)][:count]]
    return [(x + dx * k, y + dy * k, r * k) for dx, dy, r in spots]


def _draw_board(pen: _Pen, state: NeighborhoodState, view: int | None, ask: dict[str, Any]) -> None:
    draw = pen.draw
    g = _Grid(state.options.board_size)
    # Traps (L33) in their setter's colour; a player's view knows only which traps are its own.
    for L, cell in enumerate(state.trap_cell):
        if cell < 0:
            continue
        owner = state.trap_owner[L]
        known = owner >= 0 and (view is None or owner == view)
        color = CHARACTER_COLORS[state.colors[owner]] if known else (120, 120, 128)
        x0, y0, x1, y1 = g.cell_box(cell, 2)
        draw.rectangle((x0, y0, x1, y1), fill=WHITE, outline=color, width=4)
        _trap_icon(pen, (x0 + 6, y0 + 7, x1 - 6, y1 - 5), INK)
    # What the decider may pick: squares, a path so far, directions.
    for cell in ask["cells"]:
        draw.rectangle(g.cell_box(cell, 1), outline=TARGET_ORANGE, width=3)
        if cell in ask["labels"]:
            x, y = g.centre(cell)
            pen.text((x + 9, y - 9), ask["labels"][cell], 12, INK, "mm")
    if len(ask["path"]) > 1:
        draw.line([g.centre(c) for c in ask["path"]], fill=TARGET_ORANGE, width=4)
    for start, end in ask["arrows"]:
        pen.arrow(g.centre(start), g.centre(end), ARROW, 4, 11)
    # The characters (L4); the Killer, Victim and chosen player of the card being resolved.
    _, _, roles = state.current_card()
    k, v, t = (roles[1], roles[2], roles[3]) if roles else (-1, -1, -1)
    by_cell: dict[int, list[int]] = {}
    for p in range(state.n):
        if state.alive[p] and state.pos[p] >= 0:
            by_cell.setdefault(state.pos[p], []).append(p)
    for cell, members in by_cell.items():
        for p, (x, y, radius) in zip(members, _pawn_spots(g, cell, len(members)), strict=True):
            if p == state.to_move and not state.over:
                draw.ellipse(
                    (x - radius - 4, y - radius - 4, x + radius + 4, y + radius + 4),
                    outline=HIGHLIGHT,
                    width=4,
                )
            if p in ask["players"]:
                draw.ellipse(
                    (x - radius - 3, y - radius - 3, x + radius + 3, y + radius + 3),
                    outline=TARGET_ORANGE,
                    width=3,
                )
            pen.pawn((x, y), radius, CHARACTER_COLORS[state.colors[p]], COLOR_LETTERS[state.colors[p]])
            # a role badge on the pawn's outer corner (top-right for a pawn alone)
            cx, cy = g.centre(cell)
            sx = -1 if x < cx else 1
            sy = 1 if y > cy else -1
            spot = (x + sx * radius * 0.85, y + sy * radius * 0.85)
            if p == k:
                pen.badge(spot, "K", KILLER_RED)
            elif p == v:
                pen.badge(spot, "V", VICTIM_INK)
            elif p == t:
                pen.badge(spot, "T", TARGET_ORANGE)


def _draw_outcome(pen: _Pen, state: NeighborhoodState) -> None:
    if state.winner >= 0:
        title = f"{_name(state, state.winner)} (player_{state.winner}) wins!"
        colors = [CHARACTER_COLORS[state.colors[state.winner]]]
    else:
        title = "Draw: " + " and ".join(_name(state, p) for p in state.draw)
        colors = [CHARACTER_COLORS[state.colors[p]] for p in state.draw]
    if sum(state.alive) == 1:
        sub = "the last character with HP left"
    elif sum(state.alive) == 0:
        sub = "the last characters went out in the same effect (L22)"
    else:
        sub = f"highest HP after {state.options.max_rounds} rounds (L23)"
    x0, x1 = GX + 24, GX + GRID - 24
    cy = GY + GRID / 2
    pen.draw.rounded_rectangle(
        (x0, cy - 42, x1, cy + 42), radius=12, fill=(255, 252, 240), outline=INK, width=3
    )
    step = 76 / len(colors)  # a strip in the colour of the winner, or of everyone sharing the draw
    for i, color in enumerate(colors):
        pen.draw.rectangle((x0 + 5, cy - 38 + i * step, x0 + 18, cy - 38 + (i + 1) * step), fill=color)
    pen.text(((x0 + x1) / 2 + 8, cy - 11), title, 24, INK, "mm")
    pen.text(((x0 + x1) / 2 + 8, cy + 20), sub, 14, MUTED, "mm")


# -- the panel ------------------------------------------------------------------------------------------
def _draw_header(pen: _Pen, state: NeighborhoodState, view: int | None) -> None:
    pen.text((BX, 23), "LEAVE this Neighborhood", 22, INK, "lm")
    pen.text((BX + BOARD, 15), f"Round {state.round} / {state.options.max_rounds}", 15, INK, "rm")
    if state.over:
        status = "game over"
    elif state.to_move >= 0:
        status = f"turn {state.turns}: {_name(state, state.to_move)}"
    else:
        status = "rolling for turn order (L9)"
    pen.text((BX + BOARD, 33), status, 13, MUTED, "rm")
    who = "Spectator: everything shown" if view is None else f"Seen by player_{view} ({_name(state, view)})"
    pen.text((PX, 23), who, 14, MUTED, "lm")


def _draw_players(pen: _Pen, state: NeighborhoodState, view: int | None, y: float) -> float:
    draw = pen.draw
    order = _play_order(state)
    pen.text((PX, y), "Characters, in play order" if state.first >= 0 else "Characters", 14, MUTED)
    y += 20
    decider = state.current_player()
    for p in order:
        color = CHARACTER_COLORS[state.colors[p]]
        alive = state.alive[p]
        if p == state.to_move and not state.over:
            draw.rounded_rectangle(
                (PX - 4, y - 3, PX + PW, y + 39), radius=6, fill=(255, 244, 200), outline=HIGHLIGHT, width=2
            )
        pen.pawn((PX + 14, y + 18), 13, color if alive else (214, 210, 202), COLOR_LETTERS[state.colors[p]])
        name = _name(state, p)
        pen.text((PX + 34, y + 1), name, 14, INK if alive else MUTED)
        tag = f"player_{p}" + ("  (you)" if p == view else "")
        pen.text((PX + 40 + render.text_length(name, 14), y + 3), tag, 12, MUTED)
        if p == decider and not state.over:
            pen.text((PX + PW - 4, y + 2), "deciding", 12, (200, 100, 0), "ra")
        elif p == state.winner or p in state.draw:
            pen.text((PX + PW - 4, y + 2), "winner" if p == state.winner else "draw", 12, (200, 100, 0), "ra")
        if alive:
            hp = state.hp[p]
            for i in range(MAX_HP):
                x = PX + 34 + i * 12
                draw.rectangle(
                    (x, y + 21, x + 9, y + 31),
                    fill=(214, 48, 49) if i < hp else (236, 230, 218),
                    outline=(120, 110, 100),
                )
            pen.text((PX + 34 + 12 * MAX_HP + 4, y + 26), f"{hp} HP", 12, INK, "lm")
            x = PX + 34 + 12 * MAX_HP + 42
            if state.pending[p] >= 0:
                loc = state.pending[p]
                x = pen.chip(x, y + 19, f"{LOCATION_NAMES[loc]} Wild next", LOCATION_STRONG[loc])
            if state.skip[p]:
                x = pen.chip(x, y + 19, "Curfew", VICTIM_INK)
            if state.thug[p]:
                x = pen.chip(x, y + 19, f"Thug -{state.thug[p]}", KILLER_RED)
        else:
            pen.text((PX + 34, y + 26), "out: 0 HP", 12, MUTED, "lm")
        y += 44
    return y


def _draw_roll(pen: _Pen, state: NeighborhoodState, y: float) -> float:
    pen.text((PX, y), "Die and compass spinner", 14, MUTED)
    y += 20
    setup = next((f for f in state.stack if f[0] == F_SETUP), None)
    if setup is not None:
        rolls = setup[4:]
        render.die(pen.draw, (PX, y, PX + 38, y + 38), rolls[-1] if rolls else "?")
        msg = "Rolling for turn order (L9): " + ", ".join(
            f"{_name(state, p)} {r}" for p, r in enumerate(rolls)
        )
        pen.lines((PX + 50, y + 2), render.wrap_text(msg, 13, PW - 54)[:2], 13)
        return y + 44
    p, die, direction, turn = state.last_roll
    render.die(pen.draw, (PX, y, PX + 38, y + 38), die if die > 0 else "-" if p >= 0 else "?")
    _compass(pen, (PX + 66, y + 19), 19, direction if p >= 0 else -1)
    if p < 0:
        msg = "No turn rolled yet."
    else:
        when = "this turn" if turn == state.turns else f"turn {turn}"
        if die > 0:
            msg = f"{_name(state, p)} rolled {die} and spun {DIRECTION_NAMES[direction]} ({when})."
        else:
            msg = f"Lost: {_name(state, p)} spun {DIRECTION_NAMES[direction]} ({when})."
    pen.lines((PX + 94, y + 3), render.wrap_text(msg, 13, PW - 96)[:2], 13)
    return y + 44


def _draw_cards(pen: _Pen, state: NeighborhoodState, y: float, bottom: float) -> float:
    pen.text((PX, y), "Cards in play", 14, MUTED)
    y += 20
    frames = [f for f in state.stack if f[0] == F_PROG and f[9] >= 0][-2:]  # the two innermost
    if not frames:
        pen.text((PX, y), "none", 13, MUTED)
        return y + 20
    for i, f in enumerate(frames):
        deck, kind = f[9], f[10]
        black, colour, _ = card_text(deck, kind)
        colour_on = f[2] == COLOUR[deck][kind]  # L28: the colour line replaces the black text
        lines_b = render.wrap_text(black, 12, PW - 16)
        lines_c = render.wrap_text(colour, 12, PW - 16) if colour else ()
        roles = _roles_text(state, deck, f)
        h = min(
            26 + 15 * (len(lines_b) + len(lines_c)) + (3 if lines_c else 0) + (16 if roles else 0), bottom - y
        )
        inner = i == len(frames) - 1
        pen.draw.rounded_rectangle(
            (PX, y, PX + PW, y + h),
            radius=7,
            fill=(255, 253, 247),
            outline=INK if inner else MUTED,
            width=2 if inner else 1,
        )
        pen.draw.rounded_rectangle((PX, y, PX + PW, y + 20), radius=7, fill=DECK_COLORS[deck])
        pen.draw.rectangle((PX, y + 12, PX + PW, y + 20), fill=DECK_COLORS[deck])
        pen.text((PX + 8, y + 10), DECKS[deck][kind].name, 14, WHITE, "lm")
        pen.text((PX + PW - 8, y + 10), f"{DECK_NAMES[deck]} card", 11, WHITE, "rm")
        ty = pen.lines((PX + 8, y + 25), lines_b, 12, MUTED if colour_on else INK, 15)
        if lines_c:
            ty += 3
            tint = _colour_line_ink(colour)
            if colour_on:
                pen.draw.rounded_rectangle(
                    (PX + 4, ty - 2, PX + PW - 4, ty + 15 * len(lines_c)),
                    radius=4,
                    fill=render.mix(tint, WHITE, 0.8),
                )
            ty = pen.lines((PX + 8, ty), lines_c, 12, INK if colour_on else tint, 15)
        if roles:
            pen.text((PX + 8, ty + 1), roles, 12, KILLER_RED)
        y += h + 6
    return y


def _colour_line_ink(colour: str) -> Color:
    for name, c in (("Silver", 0), ("Blue", 1), ("Purple", 3), ("Yellow", 4)):
        if colour.startswith(name):
            return render.mix(CHARACTER_COLORS[c], INK, 0.3)
    return INK


def _roles_text(state: NeighborhoodState, deck: int, f: list[int]) -> str:
    me, k, v, t = f[4:8]
    parts = []
    if deck == 0:
        parts += [f"Killer {_name(state, k)}"] if k >= 0 else []
        parts += [f"Victim {_name(state, v)}"] if v >= 0 else []
    elif me >= 0:
        parts.append(f"drawn by {_name(state, me)}")
    if t >= 0:
        parts.append(f"chosen {_name(state, t)}")
    return ", ".join(parts)


def _draw_prompt(pen: _Pen, state: NeighborhoodState, ask: dict[str, Any], y: float) -> None:
    pen.text((PX, y), "Result" if state.over else "To decide", 14, MUTED)
    y += 20
    if state.over:
        if state.winner >= 0:
            message = [
                f"{_name(state, state.winner)} (player_{state.winner}) wins after {state.round} rounds."
            ]
        else:
            message = [f"Draw between {' and '.join(_name(state, p) for p in state.draw)}."]
    elif state.current_player() == CHANCE:
        message = ["Chance: the die and spinner, a roll-off or a card draw comes next."]
    else:
        message = ask["lines"]
    lines: list[str] = []
    for line in message:
        lines += render.wrap_text(line, 13, PW - 8)
    pen.lines((PX + 2, y), lines[:4], 13, INK, 16)


def _pile_x(d: int) -> tuple[float, float]:
    """Left edge and width of draw pile ``d`` under the board."""
    x0 = BX + 66
    w = (BX + BOARD - 3 - x0 - 4 * 6) / 5
    return x0 + d * (w + 6), w


def _draw_decks(pen: _Pen, state: NeighborhoodState) -> None:
    """The five draw piles (L25) under the board: cards left to draw / cards in the deck."""
    counts = state.options.deck_counts
    for d, deck in enumerate(state.decks):
        x, w = _pile_x(d)
        label = f"{DECK_NAMES[d].split()[0]} {deck.draw_pile_size()}/{sum(counts[d])}"
        pen.text((x + w / 2, DECKS_Y + 11), label, 11, WHITE, "mm")


def draw_state(game: Game, state: NeighborhoodState, view: int | None = None) -> Image.Image:
    """A ``WIDTH x HEIGHT`` picture of ``state``; ``view`` is None (everything) or a player id."""
    if view is not None and not 0 <= view < state.n:
        raise ValueError(f"neighborhood_v0: view must be None or a player id 0..{state.n - 1}, got {view}")
    options = state.options
    pen = _Pen(_background(options.board_size, options.board_wild_spaces, options.board_start_squares).copy())
    ask = _decision(state)
    _draw_header(pen, state, view)
    _draw_board(pen, state, view, ask)
    _draw_decks(pen, state)
    y = _draw_players(pen, state, view, BY - 2)
    y = _draw_roll(pen, state, y + 4)
    prompt_y = HEIGHT - 96
    _draw_cards(pen, state, y + 4, prompt_y - 8)
    _draw_prompt(pen, state, ask, prompt_y)
    if state.over:
        _draw_outcome(pen, state)
    return pen.img


def example_state(game: Game, seed: int = 36, decisions: int = 25) -> NeighborhoodState:
    """A seeded mid-game position of a Neighborhood ``game`` (random legal decisions) for the docs picture
    and the tests."""
    if game.state_class is not NeighborhoodState:
        raise TypeError(f"example_state draws a Neighborhood game, not {game.name}")
    return random_position(game, seed, decisions)  # type: ignore[return-value]


def action_places(game: Game, state: NeighborhoodState, view: int | None = None) -> dict[int, Place]:
    """:meth:`boardenvs.core.game.Game.action_places`: the square each choice names on the picture (a
    trap or Subway square, the next square of a path, the end of a straight move by direction or by
    distance) and the square of each player a choice may pick."""
    decider = state.current_player()
    if decider < 0:
        return {}
    g = _Grid(state.options.board_size)
    legal = state.legal_actions()
    kind = state.decision_kind()
    ask = _decision(state)
    out: dict[int, Place] = {}
    dirs = [a for a in legal if DIR <= a < DIST]
    dists = [a for a in legal if DIST <= a < PLAYER]
    if kind == D_PATH and len(ask["cells"]) == len(dirs):
        out.update(zip(dirs, (g.cell_box(c) for c in ask["cells"]), strict=True))
    elif kind == D_DIRECTION and len(ask["arrows"]) == len(dirs):
        out.update(zip(dirs, (g.cell_box(end) for _, end in ask["arrows"]), strict=True))
    elif kind == D_DISTANCE and len(ask["cells"]) == len(dists):
        out.update(zip(dists, (g.cell_box(c) for c in ask["cells"]), strict=True))
    for a in legal:
        if CELL <= a < DIR:
            out[a] = g.cell_box(a - CELL)
        elif PLAYER <= a < OPTION_A:
            q = state.seat_after(decider, a - PLAYER)
            if state.pos[q] >= 0:
                out[a] = g.cell_box(state.pos[q])
    return out
