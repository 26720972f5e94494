"""Evaluate an agent against opponents: seats rotated, paired seeds, win rates with 95% intervals.

    python scripts/evaluate.py --agent heuristic --opponent random --game sorry_v0 --num-players 2 \
        --games 400 --seed 0 --json runs/heuristic_vs_random.json

The agent sits in every seat in turn; each seed is played once per seating, so every seating is dealt
the same chance stream. The other seats are filled with ``--opponent`` (give it once per other seat to
name each one). Prints a Markdown table; ``--json`` also writes every game's result.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import NoReturn

from agents.match import GameResult, play_rotated, rotated_seatings, summarize
from agents.registry import make_policy
from boardenvs import make_game


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="heuristic", help="spec of the agent under test, e.g. 'heuristic'")
    parser.add_argument(
        "--opponent", action="append", default=None,
        help="spec of the opponents (default 'random'); once fills every other seat, or once per other seat",
    )  # fmt: skip
    parser.add_argument("--game", default="sorry_v0", help="registered game name")
    parser.add_argument("--num-players", type=int, default=2, help="players in the game")
    parser.add_argument(
        "--games", type=int, default=400,
        help="games to play in total; rounded up to a multiple of the number of players (one per seat)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="first game seed (seeds seed, seed+1, ...)")
    parser.add_argument("--json", type=Path, default=None, help="write every game's result to this file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def fail(message: str) -> NoReturn:
    """Stop with a one-line error message and exit code 2 (as argparse does for usage errors)."""
    print(f"evaluate.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def markdown_table(results: list[GameResult], labels: list[str], num_players: int) -> str:
    """The results as a Markdown table, one row per agent label.

    Columns: games, wins, win rate with its 95% Wilson interval, win rate from each seat (with the games
    played from it), mean game length in decisions, games without a winner (draws, and games cut off
    by a cap), and of those the truncated ones.
    """
    seat_header = " | ".join(f"seat {p}" for p in range(num_players))
    lines = [
        f"| agent | games | wins | win rate [95% CI] | {seat_header} | mean length | no winner | truncated |",
        "|" + "---|" * (7 + num_players),
    ]
    for label in labels:
        summary = summarize(results, label)
        played = [r for r in results if label in r.seating]
        low, high = summary.interval()
        seats = " | ".join(f"{w / g:.3f} ({g})" if g else "-" for g, w in summary.per_seat)
        copies = max(r.seating.count(label) for r in played)
        name = f"{label} (x{copies})" if copies > 1 else label
        mean_length = sum(r.num_decisions for r in played) / len(played)
        truncated = sum(r.truncated for r in played)
        no_winner = sum(r.winner is None for r in played)
        lines.append(
            f"| {name} | {summary.games} | {summary.wins} | {summary.win_rate:.3f} [{low:.3f}, {high:.3f}] "
            f"| {seats} | {mean_length:.1f} | {no_winner} | {truncated} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Play the games and print the table."""
    args = parse_args(argv)
    n = args.num_players
    opponents = args.opponent or ["random"]

    # Check the game and every spec before playing, so mistakes fail at once with one line.
    try:
        game = make_game(args.game, num_players=n)
    except (ValueError, TypeError) as err:
        fail(str(err))
    if len(opponents) not in (1, n - 1):
        fail(f"give --opponent once, or once per other seat ({n - 1}), not {len(opponents)} times")
    if args.games < 1:
        fail(f"--games must be at least 1, got {args.games}")
    lineup = [args.agent] + (opponents * (n - 1) if len(opponents) == 1 else opponents)
    policies = {}
    for spec in dict.fromkeys(lineup):
        try:
            policies[spec] = make_policy(spec, args.game, seed=0, game_options={"num_players": n})
        except (ValueError, TypeError, FileNotFoundError) as err:
            fail(f"bad agent spec {spec!r}: {err}")

    # Seats rotated: each seed is played once per seating (paired seeds).
    seatings = rotated_seatings(n, *lineup)
    num_seeds = math.ceil(args.games / n)
    total = num_seeds * n
    progress = None
    if not args.no_progress:
        try:
            from tqdm import tqdm

            progress = tqdm(total=total, desc=f"{args.agent} on {args.game}", unit="game", file=sys.stderr)
        except ImportError:
            pass

    start = time.perf_counter()
    results: list[GameResult] = []
    # One policy object per spec (a model is loaded once); play_game reseeds it for every game.
    for result in play_rotated(game, seatings, policies.__getitem__, num_seeds, args.seed):
        results.append(result)
        if progress is not None:
            progress.update(1)
    if progress is not None:
        progress.close()
    elapsed = time.perf_counter() - start

    labels = list(dict.fromkeys(lineup))
    print(
        f"{args.game}, {n} players, {total} games ({num_seeds} seeds x {n} seatings, "
        f"first seed {args.seed}), {elapsed:.1f} s"
    )
    print()
    print(markdown_table(results, labels, n))
    print()
    decided = sum(r.winner is not None for r in results) / len(results)
    print(
        f"An even share of wins is {decided / n:.3f} per seat held "
        f"(1/{n} of the {decided:.1%} of games that had a winner)."
    )

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}
        payload["games"] = [r.to_dict() for r in results]
        args.json.write_text(json.dumps(payload, indent=1))
        print(f"wrote {len(results)} games to {args.json}")


if __name__ == "__main__":
    main()
