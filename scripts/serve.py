"""Serve the web app: play any game against any agents, or watch them, in the browser.

    boardenvs-serve                               # http://127.0.0.1:8000/
    boardenvs-serve --port 8080 --database games.sqlite3

The home page starts a game (any registered game, its player count and options, your seat or none to
watch, an agent spec for every other seat) or opens a saved replay; ``/new?game=sorry_v0&num_players=2
&seat=0&opponents=heuristic`` starts one by URL. Games live in the SQLite file ``--database``: a
reload, a second tab or a restart of the server continues a game where it was. The server binds to
127.0.0.1 unless ``--host`` says otherwise. It needs the ``web`` extra: ``pip install
"boardenvs[web]"``. The app is :mod:`boardenvs_agents.web` (``docs/web.md``).

Exit codes: 0 when stopped (Ctrl-C); 2 a bad command line or a missing extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from boardenvs_agents.cli import check_extra, command, fail

#: Where the games are kept unless ``--database`` says otherwise (in the current folder).
DEFAULT_DATABASE = Path("boardenvs-web.sqlite3")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--database", type=Path, default=DEFAULT_DATABASE,
        help=f"the SQLite file of the games (default {DEFAULT_DATABASE}, created if missing)",
    )  # fmt: skip
    return parser.parse_args(argv)


@command
def main(argv: list[str] | None = None) -> int:
    """Check the arguments and the extra, then serve until stopped."""
    args = parse_args(argv)
    if not 1 <= args.port <= 65535:
        fail(f"argument --port: must be 1-65535, got {args.port}")
    try:  # an extra missing: one line, no usage (the command line is right)
        check_extra("web", "starlette", "uvicorn", "PIL")
    except ImportError as err:
        fail(str(err))
    if args.database.is_dir():
        fail(f"--database {args.database} is a folder, not a file")
    import sqlite3

    import uvicorn

    from boardenvs_agents.web.app import create_app

    try:
        app = create_app(args.database)
    except (OSError, sqlite3.Error) as err:
        fail(f"--database {args.database} cannot be used: {err}")
    print(f"boardenvs: serving on http://{args.host}:{args.port}/ (games in {args.database})", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
