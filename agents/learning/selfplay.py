"""Self-play: a pool of opponents mixing baselines and frozen snapshots of the learner.

:class:`OpponentPool` is an opponent sampler for :class:`~boardenvs.wrappers.SingleAgentEnv`: at every
reset it draws, for each other seat, a kind of opponent by the configured weights (``random``,
``heuristic``, ``self``) and, for ``self``, one of the latest snapshots uniformly. Snapshots are model
files written by the training loop every N steps and added with :meth:`OpponentPool.add_snapshot`
(through ``vec_env.env_method("update_opponents", "add_snapshot", path)`` when envs run in other
processes). Until the first snapshot exists, the ``self`` weight is shared among the other kinds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.registry import make_game
from boardenvs_agents.registry import make_policy


class OpponentPool:
    """Opponents drawn per seat and episode: baselines by weight, and frozen learner snapshots.

    Args:
        game_name: the game.
        weights: weight of each opponent kind: any agent spec (``"random"``, ``"heuristic"``, ...) or
            ``"self"`` for snapshots of the learner.
        max_snapshots: how many of the newest snapshots are kept.
        game_options: the game's options (snapshots are checked against them when loaded).
    """

    def __init__(
        self,
        game_name: str,
        weights: Mapping[str, float],
        max_snapshots: int = 5,
        game_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not weights or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ValueError(
                f"opponent weights must be non-negative with a positive sum, got {dict(weights)}"
            )
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        self.game_name = game_name
        self.game_options = dict(game_options or {})
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.baselines = {
            spec: make_policy(spec, game_name, game_options=self.game_options)
            for spec in self.weights
            if spec != "self"
        }
        self.snapshot_paths: list[str] = []
        self._snapshots: list[Any] = []

    def add_snapshot(self, path: str | Path) -> int:
        """Load a frozen copy of the learner from ``path``; returns the number of snapshots kept."""
        from boardenvs_agents.learning.models import LearnedPolicy

        game = make_game(self.game_name, **self.game_options)
        self._snapshots.append(LearnedPolicy.from_file(path, game, name="self"))
        self.snapshot_paths.append(str(path))
        del self._snapshots[: -self.max_snapshots]
        del self.snapshot_paths[: -self.max_snapshots]
        return len(self._snapshots)

    def kinds(self) -> tuple[list[str], np.ndarray]:
        """The opponent kinds on offer now and their probabilities."""
        kinds = [k for k in self.weights if k != "self" or self._snapshots]
        weights = np.array([self.weights[k] for k in kinds], dtype=float)
        if weights.sum() <= 0:  # only "self" had weight and no snapshot exists yet
            kinds, weights = ["random"], np.ones(1)
            self.baselines.setdefault("random", make_policy("random", self.game_name))
        return kinds, weights / weights.sum()

    def __call__(self, rng: np.random.Generator, seats: Sequence[int]) -> list[Any]:
        """One opponent per seat in ``seats``."""
        kinds, probs = self.kinds()
        cumulative = np.cumsum(probs)
        out = []
        for _ in seats:
            kind = kinds[min(int(np.searchsorted(cumulative, rng.random(), side="right")), len(kinds) - 1)]
            if kind == "self":
                out.append(self._snapshots[int(rng.random() * len(self._snapshots))])
            else:
                out.append(self.baselines[kind])
        return out
