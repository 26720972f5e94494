"""The web app (Starlette): the routes of ``boardenvs-serve``.

Pages: ``/`` (start a game, open a replay, the recent games), ``/new?game=...`` (makes a game from its
query and redirects to its page), ``/game/{id}``, ``/replay/{id}``. The pages are drawn by
``app.js`` from the JSON routes under ``/api``: ``GET /api/game/{id}`` (the view of the person's seat;
in watch mode ``?view=all|<seat>``), ``POST /api/game/{id}/move`` (``{"ply": n, "action": a}``),
``POST /api/game/{id}/step`` (``{"ply": n}``: the agent to move decides), ``GET
/game/{id}/replay.json`` (once the game is over), ``POST /api/replays`` (a replay file's content) and
``GET /api/replay/{id}?index=k&view=...``. Every refusal is a 4xx with a one-line plain-text reason and
changes nothing (:class:`~boardenvs_agents.web.session.WebError`). ``docs/web.md`` has the details.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from boardenvs_agents.web import pages
from boardenvs_agents.web.session import (
    MAX_REPLAY_BYTES,
    ReplayView,
    Table,
    WebError,
    new_game,
    parse_view,
    upload_replay,
)
from boardenvs_agents.web.store import Store, StoredGame

#: The page's script and style sheet, shipped beside this module.
STATIC = {"app.js": "text/javascript", "style.css": "text/css"}


def create_app(database: str | Path) -> Starlette:
    """The app, its games kept in the SQLite file ``database`` (created if missing)."""
    store = Store(database)

    def record(game_id: str, kind: str) -> StoredGame:
        found = store.get(game_id)
        if found is None or found.kind != kind:
            raise WebError(f"no {'game' if kind == 'play' else 'replay'} {game_id!r} here", 404)
        return found

    def home(request: Request) -> Response:
        return HTMLResponse(pages.home(request.query_params.get("game", ""), store.recent()))

    def new(request: Request) -> Response:
        stored = new_game(store, dict(request.query_params))
        delay = request.query_params.get("delay", "")
        pace = f"?delay={int(delay)}" if delay.isdigit() else ""  # the agents' pace, passed on
        return RedirectResponse(f"/game/{stored.id}{pace}", status_code=303)

    def game_page(request: Request) -> Response:
        stored = record(request.path_params["id"], "play")
        return HTMLResponse(pages.game_page(stored, Table(stored).game.agents))

    def game_view(request: Request) -> Response:
        table = Table(record(request.path_params["id"], "play"))
        return JSONResponse(table.view(table.view_of(request.query_params.get("view"))))

    async def body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise WebError('the request body must be JSON, e.g. {"ply": 12, "action": 3}') from None
        if not isinstance(data, dict):
            raise WebError('the request body must be a JSON object, e.g. {"ply": 12, "action": 3}')
        return data

    def apply_move(game_id: str, data: dict[str, Any]) -> dict[str, Any]:
        table = Table(record(game_id, "play"))
        table.check_ply(data.get("ply"))
        expected = table.ply
        table.move(data.get("action"))
        table.save(store, expected)
        return table.view(table.view_of(None))

    def apply_step(game_id: str, data: dict[str, Any], requested: str | None) -> dict[str, Any]:
        table = Table(record(game_id, "play"))
        view = table.view_of(requested)
        table.check_ply(data.get("ply"))
        expected = table.ply
        table.step()
        table.save(store, expected)
        return table.view(view)

    # The moves are computed in worker threads (an agent may think for seconds): other games and
    # tabs are served meanwhile; the store's move numbers keep two requests from both applying.
    async def move(request: Request) -> Response:
        data = await body(request)
        return JSONResponse(await run_in_threadpool(apply_move, request.path_params["id"], data))

    async def step(request: Request) -> Response:
        data = await body(request)
        view = request.query_params.get("view")
        return JSONResponse(await run_in_threadpool(apply_step, request.path_params["id"], data, view))

    def replay_file(request: Request) -> Response:
        table = Table(record(request.path_params["id"], "play"))
        replay = table.replay()
        headers = {
            "Content-Disposition": f'attachment; filename="{table.record.game}_{table.record.id}.json"'
        }
        return JSONResponse(replay.to_dict(), headers=headers)

    async def upload(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_REPLAY_BYTES:
            raise WebError(f"a replay file may hold at most {MAX_REPLAY_BYTES} bytes", 413)
        stored = await run_in_threadpool(upload_replay, store, await request.body())
        return JSONResponse({"id": stored.id, "url": f"/replay/{stored.id}"}, status_code=201)

    def replay_page(request: Request) -> Response:
        stored = record(request.path_params["id"], "replay")
        return HTMLResponse(pages.replay_page(stored, ReplayView(stored).game.agents))

    def replay_view(request: Request) -> Response:
        viewer = ReplayView(record(request.path_params["id"], "replay"))
        view = parse_view(request.query_params.get("view"), viewer.game)
        return JSONResponse(viewer.view(request.query_params.get("index", "0"), view))

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise WebError(f"no file {name!r} here", 404)
        text = resources.files("boardenvs_agents.web").joinpath(name).read_text(encoding="utf-8")
        return Response(text, media_type=STATIC[name])

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        return PlainTextResponse(exc.message + "\n", status_code=exc.status)

    async def not_found(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"no page {request.url.path} here\n", status_code=404)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"{request.method} is not allowed on {request.url.path}\n", status_code=405)

    routes = [
        Route("/", home),
        Route("/new", new),
        Route("/game/{id}", game_page),
        Route("/game/{id}/replay.json", replay_file),
        Route("/replay/{id}", replay_page),
        Route("/api/game/{id}", game_view),
        Route("/api/game/{id}/move", move, methods=["POST"]),
        Route("/api/game/{id}/step", step, methods=["POST"]),
        Route("/api/replays", upload, methods=["POST"]),
        Route("/api/replay/{id}", replay_view),
        Route("/static/{name}", static),
    ]
    app = Starlette(
        routes=routes, exception_handlers={WebError: refused, 404: not_found, 405: not_allowed}
    )  # fmt: skip
    app.state.store = store
    return app
