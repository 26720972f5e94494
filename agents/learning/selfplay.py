"""Self-play: a pool of opponents mixing baselines and frozen snapshots of the learner.

:class:`OpponentPool` is an opponent sampler for :class:`~boardenvs.wrappers.SingleAgentEnv`: at every
reset it draws, for each other seat, a kind of opponent by the configured weights (``random``,
``heuristic``, ``self``) and, for ``self``, one of the latest snapshots uniformly. Snapshots are model
files written by the training loop every N steps and added with :meth:`OpponentPool.add_snapshot`
(through ``vec_env.env_method("update_opponents", "add_snapshot", path, player)`` when envs run in
other processes). Training hands the pools the snapshot's player taken in memory
(:meth:`~boardenvs_agents.learning.models.LearnedPolicy.snapshot`, the same weights as the file), so
that a snapshot costs a copy of the weights and not a load of the file; the file is read when a
resumed run rebuilds its pool. Until the first snapshot exists, the ``self`` weight is shared among the
other kinds.

Snapshots are named by their path relative to the pool's ``root`` (a run directory) where they lie
under it, so that the names a checkpoint stores (:meth:`OpponentPool.ref`, :meth:`OpponentPool.state_dict`)
still hold after the run directory was moved or copied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.registry import make_game
from boardenvs_agents.learning.models import LearnedPolicy, file_key
from boardenvs_agents.registry import make_policy


class OpponentPool:
    """Opponents drawn per seat and episode: baselines by weight, and frozen learner snapshots.

    Args:
        game_name: the game.
        weights: weight of each opponent kind: any agent spec (``"random"``, ``"heuristic"``, ...) or
            ``"self"`` for snapshots of the learner.
        max_snapshots: how many of the newest snapshots are kept.
        game_options: the game's options (snapshots are checked against them when loaded).
        root: the folder snapshot names are relative to (default: none, names are the paths given).
        cache: snapshots already loaded, shared by the pools of one process (the envs of a vector env
            add the same snapshots): each pool gets its own player, with its own generator, sharing
            the model and network (default: every pool loads its own).
    """

    def __init__(
        self,
        game_name: str,
        weights: Mapping[str, float],
        max_snapshots: int = 5,
        game_options: Mapping[str, Any] | None = None,
        root: str | Path | None = None,
        cache: SnapshotCache | None = None,
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
        self.root = None if root is None else Path(root).absolute()
        self.cache = cache
        #: Names of the snapshots kept, oldest first (paths relative to ``root`` where under it).
        self.snapshot_paths: list[str] = []
        self._snapshots: list[Any] = []
        self._retired: dict[str, Any] = {}

    def add_snapshot(self, path: str | Path, player: LearnedPolicy | None = None) -> int:
        """Add a frozen copy of the learner, named by its file ``path``: a clone of ``player``, the copy
        taken in memory when the file was written (the same weights), or else the model loaded from
        ``path``; returns the number of snapshots kept."""
        name = self._name(path)
        self._snapshots.append(self._load(name) if player is None else player.clone())
        self.snapshot_paths.append(name)
        for name, policy in zip(self.snapshot_paths[: -self.max_snapshots], self._snapshots, strict=False):
            self._retired[name] = policy  # may still be seated in the episode under way
        del self._snapshots[: -self.max_snapshots]
        del self.snapshot_paths[: -self.max_snapshots]
        self._retired = {k: v for k, v in list(self._retired.items())[-self.max_snapshots :]}
        return len(self._snapshots)

    def _name(self, path: str | Path) -> str:
        path = Path(path).absolute()
        if self.root is not None and path.is_relative_to(self.root):
            return path.relative_to(self.root).as_posix()
        return str(path)

    def _load(self, name: str | Path) -> Any:
        path = Path(name)
        if self.root is not None and not path.is_absolute():
            path = self.root / path
        if self.cache is not None:
            return self.cache.load(path, self.game_name, self.game_options)
        game = make_game(self.game_name, **self.game_options)
        return LearnedPolicy.from_file(path, game, name="self")

    # -- snapshots of the pool (exact resume of training) -------------------------------------------
    def ref(self, policy: Any) -> list[str]:
        """How an env snapshot names ``policy``: ``["baseline", spec]`` or ``["snapshot", name]``."""
        for spec, baseline in self.baselines.items():
            if baseline is policy:
                return ["baseline", spec]
        for name, snapshot in zip(self.snapshot_paths, self._snapshots, strict=True):
            if snapshot is policy:
                return ["snapshot", name]
        for name, snapshot in self._retired.items():
            if snapshot is policy:
                return ["snapshot", name]
        raise ValueError(f"{policy!r} is not an opponent of this pool")

    def deref(self, ref: Any) -> Any:
        """The opponent :meth:`ref` named (a snapshot no longer kept is loaded from its file again)."""
        if not isinstance(ref, (list, tuple)) or len(ref) != 2 or ref[0] not in ("baseline", "snapshot"):
            raise ValueError(f"an opponent reference is ['baseline', spec] or ['snapshot', name]: {ref!r}")
        kind, name = ref
        if kind == "baseline":
            if name not in self.baselines:
                raise ValueError(f"no baseline {name!r} in this pool (has {sorted(self.baselines)})")
            return self.baselines[name]
        if name in self.snapshot_paths:
            return self._snapshots[self.snapshot_paths.index(name)]
        if name not in self._retired:
            self._retired[name] = self._load(name)
        return self._retired[name]

    def state_dict(self) -> dict[str, Any]:
        """The pool's make-up: its baselines and the names of the snapshots kept (policies' own
        generators are saved by the env for the seated ones; the others are reseeded when seated)."""
        return {"baselines": list(self.baselines), "snapshots": list(self.snapshot_paths)}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Check the pool holds the snapshots of ``data`` (added first, with :meth:`add_snapshot`) and
        add the baselines it lacks (the ``random`` stand-in used before the first snapshot)."""
        if not isinstance(data, dict) or not {"baselines", "snapshots"} <= set(data):
            raise ValueError(f"an opponent pool state has 'baselines' and 'snapshots', got {data!r}")
        if list(data["snapshots"]) != self.snapshot_paths:
            raise ValueError(
                f"the pool holds snapshots {self.snapshot_paths}, the state has {list(data['snapshots'])}: "
                "add the snapshots (add_snapshot) before loading the state"
            )
        for spec in data["baselines"]:
            if spec not in self.baselines:
                self.baselines[spec] = make_policy(spec, self.game_name, game_options=self.game_options)

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


class SnapshotCache:
    """Snapshots loaded once per process for the pools of many envs (:class:`OpponentPool`'s
    ``cache``): the newest ``size`` files are kept; a pool gets a clone of the loaded player (the
    model and network shared, a generator of its own).

    Args:
        size: files kept (older ones are loaded again if asked for).
    """

    def __init__(self, size: int = 8) -> None:
        if size < 1:
            raise ValueError(f"a snapshot cache holds at least 1 file, got size={size}")
        self.size = size
        self._loaded: dict[tuple[str, str, str], Any] = {}

    def load(self, path: str | Path, game_name: str, game_options: Mapping[str, Any]) -> Any:
        """A fresh ``"self"`` player of the model saved at ``path`` (checked against the game)."""
        key = (file_key(path), game_name, repr(sorted(dict(game_options).items())))
        if key not in self._loaded:
            game = make_game(game_name, **game_options)
            self._loaded[key] = LearnedPolicy.from_file(path, game, name="self")
            for old in list(self._loaded)[: -self.size]:
                del self._loaded[old]
        return self._loaded[key].clone()
