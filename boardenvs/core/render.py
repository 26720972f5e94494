"""Drawing helpers shared by the four games' pictures (``render_mode="rgb_array"``, replays, GIFs).

Pictures are drawn with Pillow, an optional dependency (``pip install "boardenvs[render]"``), imported
only when a picture is asked for: the environments themselves need numpy, gymnasium and pettingzoo
only. A game draws a position in its ``draw.py`` module as a :class:`PIL.Image.Image`;
:meth:`boardenvs.core.game.Game.render_image` turns it into the ``(H, W, 3) uint8`` array Gymnasium and
PettingZoo expect.

A *view* says how much hidden information a picture shows: ``None`` is the full (spectator) view;
a player id shows only what that player may know (the same information as its observation).
"""

from __future__ import annotations

import math
import os
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - imports for type hints only
    from PIL import Image, ImageDraw, ImageFont

#: Background, ink and accent colours shared by every game's pictures.
BACKGROUND = (246, 241, 228)
INK = (35, 35, 40)
MUTED = (140, 140, 150)
HIGHLIGHT = (255, 200, 0)
#: A distinct colour per seat, for games whose seats have no colour of their own.
SEAT_COLORS = (
    (214, 48, 49),
    (9, 132, 227),
    (0, 148, 50),
    (253, 203, 110),
    (108, 92, 231),
    (232, 67, 147),
    (99, 110, 114),
)
#: Colours by name, for games whose pieces are named by colour (Sorry!, Neighborhood).
NAMED_COLORS = {
    "red": (214, 48, 49),
    "blue": (9, 132, 227),
    "light_blue": (116, 185, 255),
    "dark_blue": (9, 60, 160),
    "green": (0, 148, 50),
    "yellow": (240, 190, 40),
    "purple": (108, 92, 231),
    "orange": (230, 126, 34),
    "pink": (232, 67, 147),
    "black": (30, 30, 30),
    "white": (250, 250, 250),
    "gray": (150, 150, 150),
    "brown": (140, 90, 50),
}


def require_pillow() -> Any:
    """The ``PIL`` package, or an ImportError that says how to install it."""
    try:
        import PIL.Image  # noqa: F401  (imports the submodules used through the package)
        import PIL.ImageDraw  # noqa: F401
        import PIL.ImageFont  # noqa: F401
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise ImportError(
            'pictures (render_mode="rgb_array", replays exported as images) need Pillow: '
            'pip install "boardenvs[render]"'
        ) from err
    import PIL

    return PIL


@lru_cache(maxsize=16)
def font(size: int = 14) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at ``size`` pixels (the same on every machine, no system fonts)."""
    pil = require_pillow()
    return pil.ImageFont.load_default(size=size)


def new_image(width: int, height: int, color: tuple[int, int, int] = BACKGROUND) -> Image.Image:
    """A blank RGB picture."""
    pil = require_pillow()
    return pil.Image.new("RGB", (width, height), color)


def text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    message: str,
    size: int = 14,
    fill: tuple[int, int, int] = INK,
    anchor: str = "la",
) -> None:
    """Write ``message`` at ``xy`` (Pillow anchors: ``"mm"`` centres it, ``"la"`` is top-left)."""
    draw.text(xy, message, fill=fill, font=font(size), anchor=anchor)


def text_lines(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    lines: list[str],
    size: int = 14,
    fill: tuple[int, int, int] = INK,
    spacing: float = 1.3,
) -> float:
    """Write ``lines`` top-down from ``xy``; returns the y below the last line."""
    x, y = xy
    for line in lines:
        text(draw, (x, y), line, size=size, fill=fill)
        y += size * spacing
    return y


@lru_cache(maxsize=4096)
def text_length(message: str, size: int = 14) -> float:
    """Width in pixels of ``message`` in :func:`font` at ``size`` (cached: labels repeat every frame)."""
    return font(size).getlength(message)


def fit_text(message: str, size: int, width: float, strip: bool = False) -> str:
    """``message`` cut and ended with ``"..."`` so that it fits in ``width`` pixels at ``size``.

    ``strip`` drops the spaces left before the ``"..."`` by the cut.
    """
    if text_length(message, size) <= width:
        return message
    while message and text_length(message + "...", size) > width:
        message = message[:-1]
    return (message.rstrip() if strip else message) + "..."


@lru_cache(maxsize=4096)
def wrap_text(message: str, size: int, width: float) -> tuple[str, ...]:
    """``message`` split at spaces into lines no wider than ``width`` pixels at ``size`` (a word wider
    than ``width`` gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for word in message.split():
        trial = f"{line} {word}" if line else word
        if line and text_length(trial, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return tuple(lines)


@lru_cache(maxsize=4096)
def text_mask(message: str, size: int = 14, anchor: str = "la") -> tuple[Image.Image, int, int]:
    """``message`` rendered once as an antialiased ``"L"`` coverage mask, with the offset ``(dx, dy)`` of
    its top-left corner from the anchor point (Pillow anchors).

    Cached: the same labels come back in every frame, and rendering glyphs is most of a picture's cost.
    Stamp it with ``draw.bitmap((x + dx, y + dy), mask, fill=...)`` or ``image.paste(fill, box, mask)``.
    """
    pil = require_pillow()
    face = font(size)
    x0, y0, x1, y1 = face.getbbox(message, anchor=anchor)
    mask = pil.Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    pil.ImageDraw.Draw(mask).text((-x0, -y0), message, fill=255, font=face, anchor=anchor)
    return mask, x0, y0


def mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    """Colour ``a`` moved a fraction ``t`` of the way to ``b`` (0: ``a``, 1: ``b``), rounded per channel."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def star_points(
    cx: float, cy: float, outer: float, inner: float, points: int = 5
) -> list[tuple[float, float]]:
    """The ``2 * points`` corners of a ``points``-pointed star centred on ``(cx, cy)``, first point straight
    up, alternating between radius ``outer`` (the points) and ``inner``."""
    out = []
    for i in range(2 * points):
        r = outer if i % 2 == 0 else inner
        angle = -math.pi / 2 + i * math.pi / points
        out.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return out


def pawn(
    draw: ImageDraw.ImageDraw,
    center: tuple[float, float],
    radius: float,
    color: tuple[int, int, int],
    label: str = "",
    outline: tuple[int, int, int] = INK,
) -> None:
    """A round piece, optionally labelled (a number or a letter) in a contrasting colour."""
    x, y = center
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=color, outline=outline, width=2)
    if label:
        text(draw, (x, y), label, size=max(8, int(radius * 1.1)), fill=contrast(color), anchor="mm")


def die(
    draw: ImageDraw.ImageDraw,
    box: tuple[float, float, float, float],
    value: int | str,
    fill: tuple[int, int, int] = (255, 255, 255),
) -> None:
    """A die face showing ``value`` (pips for 1-6, the number or text otherwise)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=(x1 - x0) * 0.15, fill=fill, outline=INK, width=2)
    pips = {
        1: [(0.5, 0.5)],
        2: [(0.25, 0.25), (0.75, 0.75)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
        5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
        6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
    }
    if isinstance(value, int) and value in pips:
        r = (x1 - x0) * 0.08
        for fx, fy in pips[value]:
            cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)
    else:
        text(draw, ((x0 + x1) / 2, (y0 + y1) / 2), str(value), size=int((y1 - y0) * 0.45), anchor="mm")


def card(
    draw: ImageDraw.ImageDraw,
    box: tuple[float, float, float, float],
    label: str,
    fill: tuple[int, int, int] = (255, 255, 255),
    size: int = 14,
) -> None:
    """A card face with a centred label (a newline in it splits it into lines)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=6, fill=fill, outline=INK, width=2)
    draw.multiline_text(
        ((x0 + x1) / 2, (y0 + y1) / 2),
        label,
        fill=contrast(fill),
        font=font(size),
        anchor="mm",
        align="center",
    )


def contrast(color: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white, whichever reads better on ``color``."""
    r, g, b = color[:3]
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def to_array(image: Image.Image) -> np.ndarray:
    """The picture as a contiguous ``(H, W, 3) uint8`` array."""
    if image.mode != "RGB":  # convert() copies even an RGB picture: ~4 ms a frame at 900 x 800
        image = image.convert("RGB")
    return np.ascontiguousarray(np.asarray(image, dtype=np.uint8))


class Window:
    """A window that shows pictures (``render_mode="human"``), drawn with pygame.

    Opened on the first :meth:`show`; :func:`display_available` says whether a window can be shown.
    """

    def __init__(self, title: str) -> None:
        self.title = title
        self._screen: Any = None

    def show(self, frame: np.ndarray) -> None:
        """Show ``frame`` (``(H, W, 3) uint8``), resizing the window to it."""
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        height, width = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (width, height):
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode((width, height))
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()

    def close(self) -> None:
        """Close the window if one is open."""
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = None


def display_available() -> bool:
    """True when pygame is installed and a display can show a window."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame  # noqa: F401
    except ImportError:
        return False
    if sys.platform in ("win32", "darwin"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))
