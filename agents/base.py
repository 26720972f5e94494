"""The one small interface every agent shares: random, heuristic, search and learned alike.

A :class:`Policy` picks an action for the player to move in a rules
:class:`~boardenvs.core.state.State`, in the manner of OpenSpiel's bots. It may read only what that
player may know: public information, its own private information, and (for search) states drawn by
``state.determinize(player, rng)``. Every policy owns its generator; none touches ``random`` or
``np.random``.

To use a policy with a PettingZoo env, pass the env's rules state::

    action = policy.act(env.unwrapped.game_state)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardenvs.core.state import State


class Policy(ABC):
    """Chooses a legal action for ``state.current_player()``.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
    """

    #: Short name used in tables and on the command line.
    name: str = "policy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a seed makes the policy's choices reproducible from here."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def state_dict(self) -> dict[str, Any]:
        """JSON-able state that the policy's next choices depend on: its generator (see
        :meth:`load_state_dict`). Policies with more memory than a generator add to it."""
        return {"rng": self.rng.bit_generator.state}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` in place (a generator shared with helpers stays shared)."""
        try:
            self.rng.bit_generator.state = data["rng"]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{self.name}: bad policy state {data!r}: {err}") from err

    @abstractmethod
    def act(self, state: State) -> int:
        """A legal action for the player to move in ``state`` (a decision node)."""

    def pick_best(self, scored: Sequence[tuple[float, int]], tol: float = 1e-9) -> int:
        """The action of the best ``(score, action)`` pair; ties within ``tol`` broken with ``self.rng``."""
        best = max(score for score, _ in scored)
        top = [action for score, action in scored if score >= best - tol]
        return top[0] if len(top) == 1 else top[int(self.rng.random() * len(top))]

    def best_action(self, legal: Sequence[int], score: Callable[[int], float]) -> int:
        """The action of ``legal`` that ``score`` rates highest; a lone action is returned without
        scoring; ties go through :meth:`pick_best`."""
        if len(legal) == 1:
            return legal[0]
        return self.pick_best([(score(action), action) for action in legal])

    def best_successor(self, state: State, score: Callable[[State], float]) -> int:
        """The legal action whose resulting state ``score`` rates highest (one-ply lookahead on clones,
        through :meth:`best_action`)."""

        def after(action: int) -> float:
            child = state.clone()
            child.apply_action(action)
            return score(child)

        return self.best_action(state.legal_actions(), after)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomPolicy(Policy):
    """Uniformly random over the legal actions."""

    name = "random"

    def act(self, state: State) -> int:
        """Any legal action, each with equal probability."""
        legal = state.legal_actions()
        return legal[int(self.rng.random() * len(legal))]


def make_random(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **kwargs: Any
) -> Policy:
    """The factory of the ``random`` spec (entry point ``boardenvs_agents.agents``): a
    :class:`RandomPolicy`, any game.

    Raises:
        ValueError: for any option (the random policy takes none).
    """
    if kwargs:
        raise ValueError(f"the random policy takes no options, got {sorted(kwargs)}")
    return RandomPolicy(seed=seed)
