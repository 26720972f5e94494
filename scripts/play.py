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
picture of your view to a PNG file before each of your moves.

Exit codes: 0 the game was played to its end; 1 the input ended (or you typed ``quit``) before it
did; 2 a bad command line (an unwritable ``--save-replay`` path included, found before the game
starts); 130 Ctrl-C (the game so far is saved with ``--save-replay``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from boardenvs import make_game
from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE
from boardenvs.replay import Recorder, check_writable, derive_seeds, result_text
from boardenvs_agents.base import Policy
from boardenvs_agents.human import HumanPolicy, HumanQuit
from boardenvs_agents.registry import make_policy


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
        "--seed",
        type=seed_type,
        default=None,
        help="game seed (chance and the agents); default: a fresh one, printed",
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. --option max_turns=200 --option slide_rule=classic (values read as JSON "
        "where they parse, else as text)",
    )  # fmt: skip
    parser.add_argument("--save-replay", type=Path, default=None, help="write the game to this JSON file")
    parser.add_argument(
        "--show-image", type=Path, default=None, metavar="FILE.png",
        help="also write a picture of your view to this PNG before each of your moves (needs Pillow)",
    )  # fmt: skip
    parser.add_argument("--no-board", action="store_true", help="do not print the position before your moves")
    parser.add_argument(
        "--ask-forced",
        action="store_true",
        help="ask even when only one move is legal (default: play it for you)",
    )
    return parser.parse_args(argv)


def seed_type(text: str) -> int:
    """A seed: an integer >= 0 (argparse reports anything else as a bad command line)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {seed}")
    return seed


def fail(message: str) -> NoReturn:
    """Stop with a one-line error message and exit code 2 (as argparse does for usage errors)."""
    print(f"play.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``["key=value", ...]`` as a dict; values parsed as JSON where they parse, else kept as text."""
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--option takes key=value, got {item!r}")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def split_specs(values: list[str]) -> list[str]:
    """Agent specs from ``--opponents`` values: commas separate specs, except that a ``key=value``
    piece (no ``:`` before its ``=``) continues the spec before it, as in
    ``ppo:sorry_v0,deterministic=false``.
    """
    specs: list[str] = []
    for value in values:
        for piece in value.split(","):
            piece = piece.strip()
            if not piece:
                continue
            head, eq, _ = piece.partition("=")
            if eq and ":" not in head and specs:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def parse_seat(seat: str, game: Game, rng_seed: int) -> int:
    """The human's seat from ``--seat`` (a number, an agent name, or ``random``)."""
    n = game.num_players
    if seat == "random":
        return int(np.random.default_rng(rng_seed).integers(n))
    if seat in game.agents:
        return game.agents.index(seat)
    try:
        number = int(seat)
    except ValueError:
        raise ValueError(
            f"--seat must be a number 0-{n - 1}, an agent name {game.agents} or 'random', got {seat!r}"
        ) from None
    if not 0 <= number < n:
        raise ValueError(f"--seat {number} is not a seat of this game: seats are 0-{n - 1} ({game.agents})")
    return number


def save_picture(game: Game, state: Any, view: int | None, path: Path) -> None:
    """Write the picture of ``state`` seen from ``view`` to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    game.draw(state, view).save(path)


def main(argv: list[str] | None = None) -> int:
    """Set up the game from the command line, play it with the person at the keyboard, report."""
    try:
        return run(argv)
    except KeyboardInterrupt:  # before the game started or after it ended (the game handles its own)
        print("\nplay.py: interrupted", file=sys.stderr)
        return 130


def run(argv: list[str] | None = None) -> int:
    """:func:`main` without the handling of Ctrl-C outside the game."""
    args = parse_args(argv)

    # -- check everything before the game starts: mistakes stop at once with one line, exit 2 --------
    try:
        options = parse_options(args.option)
    except ValueError as err:
        fail(str(err))
    if args.num_players is not None:
        options["num_players"] = args.num_players
    try:
        game = make_game(args.game, **options)
    except (ValueError, TypeError) as err:
        fail(str(err))
    n = game.num_players
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    chance_seed, *seat_seeds, seat_seed = derive_seeds(seed, n + 2)
    try:
        seat = parse_seat(args.seat, game, seat_seed)
    except ValueError as err:
        fail(str(err))
    specs = split_specs(args.opponents or ["random"])
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        fail(f"give one opponent spec for all other seats, or one per other seat ({n - 1}), not {len(specs)}")
    labels = specs[:seat] + ["human"] + specs[seat:]
    policies: list[Policy] = []
    for p, spec in enumerate(labels):
        if p == seat:
            policies.append(
                HumanPolicy(
                    agent_names=game.agents, show_board=not args.no_board, auto_single=not args.ask_forced
                )
            )
            continue
        try:
            policies.append(make_policy(spec, args.game, seed=seat_seeds[p], game_options=options))
        except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
            fail(f"bad agent spec {spec!r}: {err}")
    if args.show_image is not None:
        try:
            save_picture(game, game.new_initial_state(), seat, args.show_image)
        except NotImplementedError:
            fail(f"--show-image: {args.game} has no pictures")
        except ImportError as err:
            fail(f"--show-image: {err}")
    if args.save_replay is not None:
        try:
            check_writable(args.save_replay)
        except OSError as err:
            fail(f"--save-replay {args.save_replay} cannot be written: {err}")

    # -- the game ------------------------------------------------------------------------------------
    you = game.agents[seat]
    others = ", ".join(f"{game.agents[p]}: {labels[p]}" for p in range(n) if p != seat)
    print(f"{args.game}, {n} players, seed {seed}. You are {you} (seat {seat}); {others}.")
    print("At a prompt, type the number of a move, or ? for help.")
    for p, policy in enumerate(policies):
        policy.reset(seed=seat_seeds[p])
    recorder = Recorder(game, seed=seed, players=labels)
    state = recorder.state
    rng = np.random.default_rng(chance_seed)
    told_out = False
    try:
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                outcome = state.sample_chance(rng)
                print(f"  chance: {state.action_to_string(outcome, view=seat)}")
                recorder.apply(outcome)
                continue
            if player == seat:
                if args.show_image is not None:
                    save_picture(game, state, seat, args.show_image)
                action = policies[player].act(state)
                print(f"  {you} (you): {state.action_to_string(action, view=seat)}")
            else:
                action = policies[player].act(state)
                text = state.action_to_string(action, view=seat)
                print(f"  {game.agents[player]} ({labels[player]}): {text}")
            recorder.apply(action)
            if not told_out and state.is_out(seat) and not state.is_terminal():
                told_out = True
                print(f"You ({you}) are out of the game; the others play on to the end.")
    except HumanQuit as err:
        print(
            f"play.py: {err}; the game was abandoned after {len(recorder.steps)} steps (seed {seed}, {you})",
            file=sys.stderr,
        )
        if args.save_replay is not None:
            recorder.replay().save(args.save_replay)
            print(f"play.py: the unfinished game was saved to {args.save_replay}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        steps = len(recorder.steps)
        message = f"the game was abandoned after {steps} steps (seed {seed}, {you})"
        print(f"\nplay.py: interrupted; {message}", file=sys.stderr)
        if args.save_replay is not None:
            recorder.replay(rebuild=True).save(args.save_replay)
            print(f"play.py: the unfinished game was saved to {args.save_replay}", file=sys.stderr)
        return 130

    # -- the end: everything is shown -----------------------------------------------------------------
    print()
    print("Game over. The final position, everything shown:")
    print(state.render_text())
    if args.show_image is not None:
        save_picture(game, state, None, args.show_image)
    print()
    print(f"Result after {recorder.replay().num_decisions} decisions: {result_text(game, state, labels)}")
    mine = float(state.returns()[seat])
    best = max(float(r) for r in state.returns())
    if state.is_truncated():
        print("The game was stopped by its cap: nobody wins.")
    elif mine == best and mine > min(float(r) for r in state.returns()):
        print("You win!" if list(state.returns()).count(best) == 1 else "A draw, and you share it.")
    else:
        print("You lose." if mine < best else "Nobody wins.")
    if args.save_replay is not None:
        recorder.replay().save(args.save_replay)
        print(f"Replay saved to {args.save_replay}; see it with: python scripts/replay.py {args.save_replay}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
