"""Play a game in the terminal against any agents: you see your seat's view and the moves in words.

    python scripts/play.py --game sorry_v0 --num-players 2 --opponents heuristic --seed 1
    python scripts/play.py --game gangsi_v0 --num-players 3 --seat kyonshi --opponents heuristic
    python scripts/play.py --game lost_city_v0 --num-players 4 --seat random \
        --opponents random,heuristic,mcts:sims=200 --save-replay runs/my_game.json

You play one seat (``--seat``: a number, an agent name such as ``kyonshi``, or ``random``); every
other seat is an agent spec (``--opponents``: ``random``, ``heuristic``, ``mcts:...``, ``ppo:<game>``,
``ppo:path/to/model.zip``; one spec for every other seat, or one per other seat in seat order,
separated by commas or given again). Before each of your moves you see the position as your seat
may see it (hidden information stays hidden) and the legal moves numbered and in words; type a
number or the start of a move's description. A mistyped or illegal choice is explained and asked
again. What the other seats and chance do is printed in words as it happens, and the result at the
end. ``--save-replay`` writes the game for ``scripts/replay.py``; ``--show-image`` also writes a
picture of your view to a PNG file before each of your moves. The game is
:class:`boardenvs_agents.play.TerminalGame`.

Exit codes: 0 the game was played to its end; 1 the input ended (or you typed ``quit``) before it
did; 2 a bad command line (an unwritable ``--save-replay`` path included, found before the game
starts); 130 Ctrl-C (the game so far is saved with ``--save-replay``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boardenvs.replay import check_writable
from boardenvs_agents.cli import command, fail, parse_game_options, prog, sibling, split_specs
from boardenvs_agents.human import HumanQuit
from boardenvs_agents.play import TerminalGame


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sorry_v0", help="registered game name (default sorry_v0)")
    parser.add_argument("--num-players", type=int, default=None, help="players in the game (game default)")
    parser.add_argument(
        "--seat", default="0",
        help="your seat: a number from 0, an agent name (e.g. kyonshi, hunter_0), or 'random' (default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--opponents", action="append", default=None,
        help="agent specs of the other seats, comma-separated or repeated: one for all, or one per seat "
        "(default random); e.g. 'heuristic', 'random,heuristic', 'mcts:sims=100', 'ppo:sorry_v0'",
    )  # fmt: skip
    parser.add_argument(
        "--seed", default=None,
        help="game seed (chance and the agents); default: a fresh one, printed",
    )  # fmt: skip
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. --option max_turns=200 --option slide_rule=classic (values read as "
        "numbers, true/false, [lists] where they are, else as text)",
    )  # fmt: skip
    parser.add_argument("--save-replay", type=Path, default=None, help="write the game to this JSON file")
    parser.add_argument(
        "--show-image", type=Path, default=None, metavar="FILE.png",
        help="also write a picture of your view to this PNG before each of your moves (needs Pillow)",
    )  # fmt: skip
    parser.add_argument("--no-board", action="store_true", help="do not print the position before your moves")
    parser.add_argument(
        "--ask-forced", action="store_true",
        help="ask even when only one move is legal (default: play it for you)",
    )  # fmt: skip
    return parser.parse_args(argv)


@command
def main(argv: list[str] | None = None) -> int:
    """Set up the game from the command line, play it with the person at the keyboard, report."""
    try:
        return run(argv)
    except KeyboardInterrupt:  # before the game started or after it ended (the game handles its own)
        print(f"\n{prog()}: interrupted", file=sys.stderr)
        return 130


def run(argv: list[str] | None = None) -> int:
    """:func:`main` without the handling of Ctrl-C outside the game."""
    args = parse_args(argv)
    if args.seed is not None:
        try:
            args.seed = int(args.seed)
        except ValueError:
            fail(f"argument --seed: must be an integer >= 0, got {args.seed!r}")
        if args.seed < 0:
            fail(f"argument --seed: must be an integer >= 0, got {args.seed}")
    try:  # everything is checked before the game starts: a mistake stops at once, one line, exit 2
        options = parse_game_options(args.option)
        if args.num_players is not None:
            options["num_players"] = args.num_players
        table = TerminalGame(
            args.game, options, args.seat, split_specs(args.opponents or ["random"]), args.seed,
            show_board=not args.no_board, ask_forced=args.ask_forced, show_image=args.show_image,
        )  # fmt: skip
    except (ValueError, ImportError) as err:
        fail(str(err))
    if args.save_replay is not None:
        try:
            check_writable(args.save_replay)
        except OSError as err:
            fail(f"--save-replay {args.save_replay} cannot be written: {err}")
    try:
        table.play()
    except HumanQuit as err:
        steps = len(table.recorder.steps)
        print(
            f"{prog()}: {err}; the game was abandoned after {steps} steps (seed {table.seed}, {table.you})",
            file=sys.stderr,
        )
        if args.save_replay is not None:
            table.save_replay(args.save_replay)
            print(f"{prog()}: the unfinished game was saved to {args.save_replay}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        steps = len(table.recorder.steps)
        message = f"the game was abandoned after {steps} steps (seed {table.seed}, {table.you})"
        print(f"\n{prog()}: interrupted; {message}", file=sys.stderr)
        if args.save_replay is not None:
            table.save_replay(args.save_replay, interrupted=True)
            print(f"{prog()}: the unfinished game was saved to {args.save_replay}", file=sys.stderr)
        return 130
    if args.save_replay is not None:
        table.save_replay(args.save_replay)
        print(f"Replay saved to {args.save_replay}; see it with: {sibling('replay')} {args.save_replay}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
