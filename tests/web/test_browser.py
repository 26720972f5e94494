"""The web app in a real browser: the system's Chromium driven by Playwright (no browser download;
.ci/run installs Debian's ``chromium``), against ``boardenvs-serve`` run as a process.

A whole game of each of the four games against the heuristic, played by clicking (the moves'
buttons, ``data-action="<id>"``, and the places on the board), the page reloaded and the server
restarted in the middle; an illegal move and a stale one (a second tab) refused; a watched game with
play, pause and step; a finished game's replay stepped through from any seat's view.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import playwright.sync_api as playwright  # the test extra installs it
import pytest

#: Where the system's Chromium is looked for ($BOARDENVS_CHROMIUM first).
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")

#: Each game against the heuristic, the person in seat 0 (the Kyonshi in Gangsi).
GAMES = {
    "sorry_v0": "num_players=2&seed=1",
    "gangsi_v0": "num_players=2&seed=1",
    "lost_city_v0": "num_players=2&seed=1",
    "neighborhood_v0": "num_players=3&seed=1",
}

#: Settled: the game is over, or the person has moves to choose from (agents done, page drawn).
SETTLED = """(old) => {
  const s = document.querySelector('[data-testid=status]');
  if (!s || s.dataset.ply === undefined) return false;
  if (s.dataset.over === 'true') return true;
  return Number(s.dataset.ply) > old && document.querySelector('#moves [data-action]') !== null;
}"""

#: The single-move places on the board whose centre is not covered by another element.
CLICKABLE_PLACES = """() => [...document.querySelectorAll('#places [data-board-actions]')]
  .filter((el) => !el.dataset.boardActions.includes(' '))
  .filter((el) => {
    const r = el.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === el;
  })
  .map((el) => el.dataset.boardActions)"""


def chromium() -> str:
    for path in (os.environ.get("BOARDENVS_CHROMIUM", ""), *CHROMIUM_PATHS, shutil.which("chromium") or ""):
        if path and Path(path).exists():
            return path
    pytest.fail("no Chromium found: install Debian's chromium (apt-get install chromium; .ci/run does)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``boardenvs-serve`` on a free port, its games in ``database``; :meth:`restart` stops it and
    starts it again on the same port and file."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        args = ["--port", str(self.port), "--database", str(self.database)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "boardenvs_agents.scripts.serve", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"boardenvs-serve stopped: {self.proc.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("boardenvs-serve did not start in 60 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("web") / "games.sqlite3")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda err: errors.append(str(err)))
    p.set_default_timeout(30_000)
    yield p
    context.close()
    assert errors == [], errors  # no script error on any page


def ply(page) -> int:
    return int(page.get_attribute("[data-testid=status]", "data-ply"))


def settle(page, after: int = -1) -> None:
    """Wait until the game is over or the person is to choose at a move number past ``after``."""
    page.wait_for_function(SETTLED, arg=after, timeout=120_000)  # agents alone may play on a while


def over(page) -> bool:
    return page.get_attribute("[data-testid=status]", "data-over") == "true"


def click_a_move(page, turn: int) -> str:
    """Click one legal move: on the board where one has a place there (every other turn), else its
    button; which one it was (``board`` or ``button``)."""
    before = ply(page)
    places = page.evaluate(CLICKABLE_PLACES) if turn % 2 == 0 else []
    if places:
        page.click(f'#places [data-board-actions="{places[turn % len(places)]}"]')
        how = "board"
    else:
        buttons = page.locator("#moves [data-action]")
        buttons.nth(turn % buttons.count()).click()
        how = "button"
    settle(page, before)
    return how


def test_a_whole_game_of_each_game_against_the_heuristic_by_clicking(server, page):
    for name, query in GAMES.items():
        page.goto(f"{server.url}/new?game={name}&{query}&seat=0&opponents=heuristic&delay=0")
        assert "/game/" in page.url
        assert page.locator("[data-testid=board] img").count() == 1
        settle(page)
        ways = {"board": 0, "button": 0}
        turn = 0
        while not over(page):
            if turn == 5:  # a reload in the middle continues the game where it was
                at, status = ply(page), page.inner_text("[data-testid=status]")
                page.reload()
                settle(page, at - 1)
                assert ply(page) == at and page.inner_text("[data-testid=status]") == status
            if turn == 9:  # so does a restart of the server, the page left open
                at = ply(page)
                server.restart()
                assert not over(page) and ply(page) == at
            if turn == 0:  # one element per legal move, as the server lists them
                game_id = page.url.split("/game/")[1].split("?")[0]
                sent = page.evaluate(
                    "async (id) => (await (await fetch(`/api/game/${id}`)).json()).moves", game_id
                )
                shown = page.eval_on_selector_all(
                    "#moves [data-action]", "els => els.map(e => e.dataset.action)"
                )
                assert shown == [str(m["action"]) for m in sent] and shown
            ways[click_a_move(page, turn)] += 1
            turn += 1
        status = page.inner_text("[data-testid=status]")
        assert status.startswith("Game over") and ("wins" in status or "draw" in status), (name, status)
        assert page.locator("#moves [data-action]").count() == 0
        assert page.locator("[data-testid=end]").is_visible()
        assert turn > 9, (name, turn)
        assert ways["board"] > 0, (name, ways)  # moves chosen on the board too


def test_an_illegal_move_and_a_stale_one_are_refused_and_change_nothing(server, page, browser):
    page.goto(f"{server.url}/new?game=sorry_v0&num_players=2&seat=0&opponents=heuristic&seed=2&delay=0")
    settle(page)
    at, game_id = ply(page), page.url.split("/game/")[1].split("?")[0]
    refused = page.evaluate(
        """async ([id, ply]) => {
          const r = await fetch(`/api/game/${id}/move`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({ply, action: 99999})});
          return [r.status, await r.text()];
        }""",
        [game_id, at],
    )
    assert refused[0] == 400 and "not a legal move" in refused[1] and refused[1].count("\n") == 1
    page.reload()
    settle(page, at - 1)
    assert ply(page) == at

    # A second tab on the same game: a move made in one makes the other's buttons stale.
    other = page.context.new_page()
    other.goto(page.url)
    settle(other, at - 1)
    click_a_move(page, 1)
    assert ply(page) > at
    other.locator("#moves [data-action]").first.click()
    other.wait_for_function(
        "() => document.querySelector('[data-testid=error]').textContent.includes('stale')"
    )  # noqa: E501
    settle(other, at)  # it shows the game as it is now
    assert ply(other) == ply(page)
    other.close()


def test_watch_mode_plays_pauses_and_steps_and_the_replay_steps_from_any_view(server, page):
    page.goto(
        f"{server.url}/new?game=lost_city_v0&num_players=2&seat=none&opponents=heuristic&seed=4&delay=0"
    )
    assert page.locator("[data-action]").count() == 0  # nobody to choose for
    page.wait_for_function("() => Number(document.querySelector('[data-testid=status]').dataset.ply) > 3")
    page.click("[data-testid=pause]")
    time.sleep(0.3)
    paused = ply(page)
    time.sleep(0.5)
    assert ply(page) == paused
    page.click("[data-testid=step]")
    page.wait_for_function(
        "(n) => Number(document.querySelector('[data-testid=status]').dataset.ply) > n", arg=paused
    )
    page.select_option("[data-testid=view]", "1")
    page.click("[data-testid=play]")
    server.restart()  # while the agents play: the page waits for the server and goes on
    page.wait_for_function(
        "() => document.querySelector('[data-testid=status]').dataset.over === 'true'", timeout=120_000
    )
    assert "Game over" in page.inner_text("[data-testid=status]")

    # The end offers the replay: watch it, step through it, from any seat's view.
    page.click("[data-testid=watch-replay]")
    page.wait_for_url("**/replay/*")
    page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.ply === '0'")
    page.click("[data-testid=next]")
    page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.ply === '1'")
    for view in ("0", "1", "all"):
        page.select_option("[data-testid=view]", view)
        page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.ply === '1'")
    page.click("[data-testid=last]")
    page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.over === 'true'")
    assert "Game over" in page.inner_text("[data-testid=status]")


def test_the_home_page_starts_a_game_and_opens_a_replay_file(server, page, tmp_path):
    page.goto(server.url + "/")
    page.select_option("#game-select", "neighborhood_v0")
    page.wait_for_url("**/?game=neighborhood_v0")
    page.select_option("select[name=num_players]", "4")
    page.select_option("select[name=seat]", "2")
    page.fill("input[name=opponents]", "random,heuristic,random")
    page.click("summary")  # the game's options
    page.fill("input[name=max_rounds]", "30")
    page.click("[data-testid=start]")
    page.wait_for_url("**/game/*")
    settle(page)
    assert page.inner_text("[data-testid=status]").startswith("Your move, player_2")
    assert "player_1: heuristic" in page.inner_text(".seats") and "player_2: you" in page.inner_text(".seats")

    from boardenvs import make_game
    from boardenvs.replay import record_game
    from boardenvs_agents.registry import make_policy

    replay = record_game(make_game("sorry_v0", num_players=2, max_turns=20),
                         [make_policy("random", "sorry_v0") for _ in range(2)], seed=0)  # fmt: skip
    saved = replay.save(tmp_path / "game.json")
    page.goto(server.url + "/")
    page.set_input_files("[data-testid=replay-file]", str(saved))
    page.wait_for_url("**/replay/*")
    page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.ply === '0'")
    (tmp_path / "bad.json").write_text('{"game": "sorry_v0"}')
    page.goto(server.url + "/")
    page.set_input_files("[data-testid=replay-file]", str(tmp_path / "bad.json"))
    page.wait_for_function("() => document.querySelector('[data-testid=error]').textContent.length > 0")
    assert "/replay/" not in page.url
