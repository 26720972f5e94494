"""Show a saved replay as text, or export it as an animated GIF or a folder of PNG frames.

    python scripts/replay.py runs/my_game.json                       # every step in words, the result
    python scripts/replay.py runs/my_game.json --boards --view kyonshi   # with positions, one seat's view
    python scripts/replay.py runs/my_game.json --gif game.gif --view all --duration 500
    python scripts/replay.py runs/my_game.json --frames frames/ --view 1

Replays are written by ``scripts/play.py --save-replay`` or by :mod:`boardenvs.replay` (any game
played on the rules state or through a PettingZoo env). The file is checked before anything is
shown: every step is replayed and must be legal, and the end must match the recorded one.

``--view`` chooses the hidden information shown: ``all`` (the default: everything) or a seat (a
number or an agent name): only what that seat may know, in the text and in the pictures. Pictures
show the states where a player decides and the last one (``--every-state``: every state, chance
included), each with a caption of the moves since the previous frame (``--no-caption`` leaves it out;
a GIF then merges identical frames). They need Pillow: ``pip install "boardenvs[render]"``.

Exit codes: 0 done; 2 a bad command line (an unwritable ``--gif`` or ``--frames`` path included) or a
file that is not a valid replay.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from boardenvs.replay import Replay, ReplayError, check_writable, write_gif, write_pngs
from boardenvs_agents.cli import command, fail


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replay", type=Path, help="a replay file (JSON)")
    parser.add_argument("--view", default="all", help="'all' (default), or a seat: a number or an agent name")
    parser.add_argument("--gif", type=Path, default=None, help="write an animated GIF here")
    parser.add_argument("--frames", type=Path, default=None, help="write PNG frames into this folder")
    parser.add_argument("--duration", type=int, default=600, help="milliseconds per GIF frame (default 600)")
    parser.add_argument("--every-state", action="store_true", help="a frame for every state, chance included")
    parser.add_argument("--no-caption", action="store_true", help="pictures without the caption band")
    parser.add_argument("--text", action="store_true", help="print the steps even when exporting pictures")
    parser.add_argument("--boards", action="store_true", help="print the position before every decision")
    return parser.parse_args(argv)


def parse_view(view: str, agents: list[str]) -> int | None:
    """``None`` for ``all``, else the seat named by a number or an agent name."""
    if view == "all":
        return None
    if view in agents:
        return agents.index(view)
    try:
        seat = int(view)
    except ValueError:
        seat = -1
    if not 0 <= seat < len(agents):
        raise ValueError(
            f"--view must be 'all', a seat 0-{len(agents) - 1} or an agent name {agents}, got {view!r}"
        )
    return seat


@command
def main(argv: list[str] | None = None) -> int:
    """Load, check and show or export the replay."""
    args = parse_args(argv)
    if args.duration < 1:
        fail(f"--duration must be at least 1 ms, got {args.duration}")
    try:
        replay = Replay.load(args.replay)
    except FileNotFoundError:
        fail(f"no such file: {args.replay}")
    except OSError as err:
        fail(f"cannot read {args.replay}: {err}")
    except ReplayError as err:
        fail(str(err))
    game = replay.make_game()
    try:
        view = parse_view(args.view, game.agents)
    except ValueError as err:
        fail(str(err))

    exporting = args.gif is not None or args.frames is not None
    for option, path, folder in (("--gif", args.gif, False), ("--frames", args.frames, True)):
        if path is not None:
            try:
                check_writable(path, directory=folder)
            except OSError as err:
                fail(f"{option} {path} cannot be written: {err}")
    if args.text or args.boards or not exporting:
        print(replay.to_text(view=view, boards=args.boards))
    if not exporting:
        return 0
    try:
        images = replay.frames(view=view, chance=args.every_state, caption=not args.no_caption)
    except NotImplementedError:
        fail(f"{replay.game} has no pictures yet")
    except ImportError as err:
        fail(str(err))
    try:
        if args.gif is not None:
            write_gif(images, args.gif, args.duration)
            print(f"wrote {args.gif}: {len(images)} frames, {args.duration} ms each")
        if args.frames is not None:
            paths = write_pngs(images, args.frames)
            print(f"wrote {len(paths)} frames to {args.frames}/")
    except OSError as err:  # the disk filled up, or the folder went away meanwhile
        fail(f"cannot write the pictures: {err}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
