"""Take the README's screenshots of the web app: each game's page a few moves in, in headless Chromium.

    python docs/web_screenshots.py                 # writes docs/images/web_<game>.png

Needs the ``web`` and ``test`` extras (Starlette, uvicorn, Playwright) and the system's Chromium
(``/usr/bin/chromium``, or $BOARDENVS_CHROMIUM); it starts ``boardenvs-serve`` on a free port with a
throw-away database and plays the first moves of each game against the heuristic with fixed seeds.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent / "images"
#: Each game's page: its query, and how many of the person's moves to play first.
GAMES = {
    "sorry_v0": ("num_players=2&seed=3", 6),
    "gangsi_v0": ("num_players=2&seed=3", 6),
    "lost_city_v0": ("num_players=2&seed=3", 6),
    "neighborhood_v0": ("num_players=3&seed=3", 6),
}


def main() -> None:
    """Serve, play, shoot."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    database = Path(tempfile.mkdtemp()) / "games.sqlite3"
    server = subprocess.Popen(
        [sys.executable, "-m", "boardenvs_agents.scripts.serve", "--port", str(port), "--database", database]
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        chromium = os.environ.get("BOARDENVS_CHROMIUM", "/usr/bin/chromium")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            for name, (query, moves) in GAMES.items():
                page.goto(
                    f"http://127.0.0.1:{port}/new?game={name}&{query}&seat=0&opponents=heuristic&delay=0"
                )
                for _ in range(moves + 1):
                    at = int(page.get_attribute("[data-testid=status]", "data-ply") or -1)
                    page.wait_for_function(
                        "(n) => { const s = document.querySelector('[data-testid=status]');"
                        " return s.dataset.over === 'true' || (Number(s.dataset.ply) >= n"
                        " && document.querySelector('#moves [data-action]') !== null); }",
                        arg=at,
                    )
                    if _ == moves:
                        break
                    page.locator("#moves [data-action]").first.click()
                    page.wait_for_function(
                        "(n) => Number(document.querySelector('[data-testid=status]').dataset.ply) > n",
                        arg=at,
                    )
                path = OUT / f"web_{name.removesuffix('_v0')}.png"
                page.screenshot(path=str(path))
                print(path)
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
