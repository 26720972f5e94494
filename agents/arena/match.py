"""One game between policies on the rules state, reproducibly: :func:`play_game` and its result.

One game is fully determined by its seed and its seating: chance (card draws, dice, a random first
player) is sampled with a generator derived from the seed alone, and every seat's policy is reset with
its own seed derived from it. Playing one seed once per seating (*paired* seeds, as
:mod:`boardenvs_agents.arena.runner` does) therefore gives every seating the same chance stream; in
Sorry! the card
sequence does not depend on the moves, so each seating is dealt exactly the same cards.

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
from typing import Any, Protocol

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State
from boardenvs_agents.base import Policy


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


class GameObserver(Protocol):
    """Watches one game that :func:`play_game` plays, move by move, and sums it up at the end.

    :meth:`before` sees the state before every action (chance outcomes included), :meth:`after` the
    same state object once the action is applied, and :meth:`result` the terminal state. An observer
    must not change the state; one is made per game (:mod:`boardenvs_agents.arena.balance` has them).
    """

    def before(self, state: State, player: int, action: int) -> None:
        """Called before ``player`` (or CHANCE) applies ``action`` to ``state``."""

    def after(self, state: State) -> None:
        """Called once the action is applied."""

    def result(self, state: State) -> dict[str, Any]:
        """The JSON-able figures of the finished game (stored as :attr:`GameResult.stats`)."""


def _seeds(seed: int, count: int) -> list[int]:
    """``count`` independent 32-bit seeds derived from ``seed``."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def play_game(
    game: Game, policies: Sequence[Policy], seed: int, observer: GameObserver | None = None
) -> GameResult:
    """Play one game of ``game`` with ``policies[p]`` in seat ``p``, reproducibly from ``seed``.

    Chance is sampled with a generator derived from ``seed`` (the same for every seating), and each
    policy is reset with a seed derived from ``seed`` and its seat. A policy object that sits in several
    seats is reset once, with the seed of its first seat. An ``observer`` sees every action and fills
    the result's ``stats``; it changes nothing else.

    Raises:
        ValueError: if the number of policies is not the number of players.
        boardenvs.core.state.IllegalActionError: if a policy plays an illegal action.
    """
    n = game.num_players
    if len(policies) != n:
        raise ValueError(f"{game.name} with these options has {n} seats, got {len(policies)} policies")
    chance_seed, *seat_seeds = _seeds(seed, 1 + n)
    chance_rng = np.random.default_rng(chance_seed)
    reset: set[int] = set()
    for policy, policy_seed in zip(policies, seat_seeds, strict=True):
        if id(policy) not in reset:
            policy.reset(seed=policy_seed)
            reset.add(id(policy))
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = state.sample_chance(chance_rng)
        else:
            action = policies[player].act(state)
            decisions += 1
        if observer is None:
            state.apply_action(action)
            continue
        observer.before(state, player, action)
        state.apply_action(action)
        observer.after(state)
    returns = [float(r) for r in state.returns()]
    truncated = state.is_truncated()
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    winner = winners[0] if not truncated and len(winners) == 1 and best > min(returns) else None
    return GameResult(
        seed=seed,
        returns=returns,
        winner=winner,
        num_decisions=decisions,
        truncated=truncated,
        seating=tuple(p.name for p in policies),
        stats=observer.result(state) if observer is not None else {},
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
