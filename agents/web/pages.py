"""The web app's HTML pages: the home page's forms, and the shells of the game and replay pages that
``app.js`` fills from the JSON routes. Every value put in a page is escaped (:func:`html.escape`)."""

from __future__ import annotations

import json
from html import escape

from boardenvs_agents.web.session import agent_suggestions, default_options, game_names, player_counts
from boardenvs_agents.web.store import StoredGame


def _page(title: str, body: str, config: dict | None = None) -> str:
    script = ""
    if config is not None:
        # JSON inside <script>: "</" could end the element, so it is written as "<\/".
        data = json.dumps(config).replace("</", "<\\/")
        script = f'<script>window.BOARDENVS = {data};</script><script src="/static/app.js"></script>'
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)}</title><link rel=stylesheet href="/static/style.css"></head>'
        f'<body><header><a href="/">boardenvs</a> <span>{escape(title)}</span></header>'
        f"{body}{script}</body></html>"
    )


def home(selected: str, recent: list[tuple[str, str, str, int]]) -> str:
    """The home page: start a game of ``selected`` (the first game by default), open a replay, the
    recent games."""
    names = game_names()
    game = selected if selected in names else names[0]
    counts = player_counts(game)
    default_n = 2 if 2 in counts else counts[0]
    games = "".join(f"<option{' selected' if n == game else ''}>{escape(n)}</option>" for n in names)
    players = "".join(f"<option{' selected' if n == default_n else ''}>{n}</option>" for n in counts)
    seats = '<option value="none">none: watch the agents</option>' + "".join(
        f"<option{' selected' if s == 0 else ''} value={s}>seat {s}</option>" for s in range(max(counts))
    )
    agents = "".join(f'<option value="{escape(spec)}">' for spec in agent_suggestions(game))
    options = "".join(
        f'<label>{escape(key)} <input name="{escape(key)}" placeholder="{escape(default)}"></label>'
        for key, default in default_options(game)
    )
    games_list = "".join(
        f'<li><a href="/{"game" if kind == "play" else "replay"}/{escape(gid)}">{escape(name)}</a> '
        f"({'replay' if kind == 'replay' else 'game'}, {steps} steps)</li>"
        for gid, kind, name, steps in recent
    )
    body = f"""
<main class=home>
<section><h1>Start a game</h1>
<form action="/new" method=get id=new-game>
<label>game <select name=game id=game-select onchange="location='/?game='+this.value">{games}</select></label>
<label>players <select name=num_players>{players}</select></label>
<label>your seat <select name=seat>{seats}</select></label>
<label>agents <input name=opponents value=heuristic list=agent-specs size=40
  title="one agent spec for every other seat, or one per seat in seat order, comma-separated"></label>
<datalist id=agent-specs>{agents}</datalist>
<label>seed <input name=seed placeholder="a fresh one" size=12></label>
<details><summary>options of {escape(game)} (empty: the default)</summary>
<div class=options>{options}</div></details>
<button type=submit data-testid=start>Start</button>
</form>
<p class=hint>Agents: {escape(", ".join(agent_suggestions(game)))}; any spec works
(e.g. <code>mcts:sims=50</code>). The same game by URL:
<code>/new?game={escape(game)}&amp;num_players={default_n}&amp;seat=0&amp;opponents=heuristic</code>.</p>
</section>
<section><h1>Watch a replay</h1>
<p>A replay file: saved by <code>boardenvs-play --save-replay</code>, by a finished game here, or by
<code>boardenvs.replay.record_game</code> (the arena's games).</p>
<input type=file id=replay-file data-testid=replay-file accept=".json,application/json">
<p id=error data-testid=error class=error></p>
</section>
<section><h1>Recent games</h1><ul>{games_list or "<li>none yet</li>"}</ul></section>
</main>"""
    return _page("play and watch", body, {"kind": "home"})


def _controls(agents: list[str], watch: bool, replay: bool) -> str:
    views = ""
    if watch:
        views = (
            '<label>view <select id=view data-testid=view><option value="all">everything</option>'
            + "".join(f'<option value="{s}">{escape(name)}</option>' for s, name in enumerate(agents))
            + "</select></label>"
        )
    steps = (
        "<button id=first data-testid=first>|&lt;</button><button id=prev data-testid=prev>&lt;</button>"
        "<button id=next data-testid=next>&gt;</button><button id=last data-testid=last>&gt;|</button>"
        "<input type=range id=index data-testid=index min=0 max=0 value=0>"
        if replay
        else "<button id=step data-testid=step>Step</button>"
    )
    return (
        "<div class=controls><button id=play data-testid=play>Play</button>"
        f"<button id=pause data-testid=pause>Pause</button>{steps}"
        "<label>pace <input type=range id=delay data-testid=delay min=0 max=3000 step=100 value=600>"
        f"<span id=delay-text>0.6 s</span></label>{views}</div>"
    )


#: The top of the game and replay pages: the status line, the error line and the board.
_BOARD = """<main class=game>
<p id=status data-testid=status class=status>loading ...</p>
<p id=error data-testid=error class=error></p>
<div class=columns>
<div id=board data-testid=board class=board><img id=board-img alt="the board"><div id=places></div></div>
"""


def game_page(record: StoredGame, agents: list[str]) -> str:
    """The game page's shell (``app.js`` fills it): status, board, controls, moves, log, the end."""
    watch = record.seat is None
    seats = ", ".join(
        f"{name}: {'you' if p == record.seat else record.players[p]}" for p, name in enumerate(agents)
    )
    body = f"""
{_BOARD}<aside>
<p class=seats>{escape(record.game)}: {escape(seats)}</p>
{_controls(agents, watch, False)}
<div id=moves data-testid=moves class=moves></div>
<p id=end data-testid=end class=end hidden><a id=replay-link data-testid=replay-link
  href="/game/{escape(record.id)}/replay.json" download>Download the replay</a>
  <button id=watch-replay data-testid=watch-replay>Watch the replay</button></p>
<h2>Log</h2><ol id=log data-testid=log class=log></ol>
</aside></div></main>"""
    config = {"kind": "play", "id": record.id, "seat": record.seat}
    return _page(f"{record.game} game", body, config)


def replay_page(record: StoredGame, agents: list[str]) -> str:
    """The replay page's shell: status, board, step controls, the view, the log."""
    body = f"""
{_BOARD}<aside>{_controls(agents, True, True)}
<h2>Log</h2><ol id=log data-testid=log class=log></ol>
</aside></div></main>"""
    return _page(f"{record.game} replay", body, {"kind": "replay", "id": record.id})
