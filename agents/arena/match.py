"""One game between policies on the rules state, reproducibly: :func:`play_game` and its result.

The game is played by the one game loop, :func:`boardenvs.core.loop.play_game`, with its one seeding
scheme: one game is fully determined by its seed and its seating. Chance (card draws, dice, a random
first player) is sampled with a generator derived from the seed alone, and every seat's policy is reset
with its own seed derived from it. Playing one seed once per seating (*paired* seeds, as
:mod:`boardenvs_agents.arena.runner` does) therefore gives every seating the same chance stream; in
Sorry! the card sequence does not depend on the moves, so each seating is dealt exactly the same cards.
:class:`GameObserver` (the loop's observer hook, re-exported here) watches a game move by move.

>>> from boardenvs import make_game
>>> from boardenvs_agents import make_policy
>>> game = make_game("sorry_v0", num_players=2)
>>> policies = [make_policy("heuristic", "sorry_v0"), make_policy("random", "sorry_v0")]
>>> result = play_game(game, policies, seed=0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from boardenvs.core import loop
from boardenvs.core.game import Game
from boardenvs.core.loop import GameObserver
from boardenvs_agents.base import Policy

__all__ = ["GameObserver", "GameResult", "play_game", "wilson_interval"]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game."""

    #: Seed the game was played with (chance and every policy derive from it).
    seed: int
    #: Return of every seat, by seat.
    returns: list[float]
    #: Winning seat, or ``None`` (truncated, or a game without a single winner).
    winner: int | None
    #: Number of decisions taken by the policies (chance draws not counted).
    num_decisions: int
    #: True when the game was stopped by a cap (e.g. ``max_turns``) rather than finished.
    truncated: bool
    #: Label of the agent in every seat (policy names unless the caller gives labels).
    seating: tuple[str, ...] = field(default=())
    #: Name of the arena matchup the game belongs to (empty outside an arena).
    matchup: str = ""
    #: What a :class:`GameObserver` recorded of the game (JSON-able; empty without one).
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of this result (``stats`` only when an observer recorded some)."""
        data = asdict(self)
        data["seating"] = list(self.seating)
        if not self.stats:
            del data["stats"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        """The result written by :meth:`to_dict`."""
        return cls(
            seed=int(data["seed"]),
            returns=[float(r) for r in data["returns"]],
            winner=None if data["winner"] is None else int(data["winner"]),
            num_decisions=int(data["num_decisions"]),
            truncated=bool(data["truncated"]),
            seating=tuple(data["seating"]),
            matchup=str(data.get("matchup", "")),
            stats=dict(data.get("stats", {})),
        )


def play_game(
    game: Game, policies: Sequence[Policy], seed: int, observer: GameObserver | None = None
) -> GameResult:
    """Play one game of ``game`` with ``policies[p]`` in seat ``p``, reproducibly from ``seed``.

    The game loop and its seeding are :func:`boardenvs.core.loop.play_game`'s: chance is sampled with a
    generator derived from ``seed`` (the same for every seating), and each policy is reset with a seed
    derived from ``seed`` and its seat. A policy object that sits in several seats is reset once, with
    the seed of its first seat. An ``observer`` sees every action and fills the result's ``stats``; it
    changes nothing else.

    Raises:
        ValueError: if the number of policies is not the number of players.
        boardenvs.core.state.IllegalActionError: if a policy plays an illegal action.
    """
    played = loop.play_game(game, policies, seed, observer=observer)
    return GameResult(
        seed=seed,
        returns=played.returns,
        winner=played.winner,
        num_decisions=played.num_decisions,
        truncated=played.truncated,
        seating=tuple(p.name for p in policies),
        stats=played.stats,
    )


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (``z = 1.96``: 95%); ``(0, 1)`` when ``n == 0``.

    >>> tuple(round(x, 3) for x in wilson_interval(8, 10))
    (0.49, 0.943)
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..{n}, got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))
