"""The examples of expert iteration's self-play, as numpy arrays: :class:`Dataset`, saved as ``.npz``.

One row per example (a searching seat's decision, :mod:`boardenvs_agents.learning.expert`), in the
order the games were seeded and, within a game, the order the decisions were taken. Memory: every
example takes ``4 * observation_size + 5 * num_actions + 4 * num_players + 10`` bytes
(:meth:`Dataset.example_bytes`): 3,793 bytes in four-player Sorry! (843 observation floats, 79
actions), so 100,000 examples hold 379 MB; :attr:`Dataset.nbytes` says it of a dataset. Saved
compressed, the mostly-zero observations take a fraction of that on disk.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from boardenvs_agents.learning.models import atomic_write

#: The arrays of a dataset and their dtypes, in the order of :class:`Dataset`'s fields.
ARRAYS = {
    "observations": np.float32,
    "masks": np.bool_,
    "policies": np.float32,
    "seats": np.int16,
    "values": np.float32,
    "returns": np.float32,
    "games": np.int32,
}

#: First value of a saved dataset's ``format`` member; bumped if the arrays change.
DATASET_FORMAT = "boardenvs-exit-dataset/1"


@dataclass(frozen=True, eq=False)
class Dataset:
    """Training examples of expert iteration, one row each (see the module docstring).

    Attributes:
        observations: ``(n, obs_size)`` float32: the deciding seat's observation, exactly as the network
            encodes it (:meth:`~boardenvs_agents.learning.models.LearnedPolicy.encode`).
        masks: ``(n, num_actions)`` bool: its legal actions.
        policies: ``(n, num_actions)`` float32: the search's target policy (root visit counts
            normalised; 0 on illegal actions, summing to 1).
        seats: ``(n,)`` int16: the deciding seat.
        values: ``(n,)`` float32: the value target, the deciding seat's final return in the game.
        returns: ``(n, num_players)`` float32: every seat's final return in the game (by seat), for a
            value head with one output per player.
        games: ``(n,)`` int32: the game's index in its run (its seed is
            ``derive_seeds(config.seed, config.games)[game]``).

    Raises:
        ValueError: for arrays of other dtypes, ranks or lengths.
    """

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    seats: np.ndarray
    values: np.ndarray
    returns: np.ndarray
    games: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.observations)
        for name, dtype in ARRAYS.items():
            array = getattr(self, name)
            if not isinstance(array, np.ndarray) or array.dtype != dtype:
                raise ValueError(f"Dataset.{name} must be a numpy array of {np.dtype(dtype)}, got {array!r}")
            rank = 1 if name in ("seats", "values", "games") else 2
            if array.ndim != rank or len(array) != n:
                raise ValueError(
                    f"Dataset.{name} must have {rank} dimension(s) and {n} rows, got shape {array.shape}"
                )
        if self.masks.shape != self.policies.shape:
            raise ValueError(f"Dataset: masks {self.masks.shape} and policies {self.policies.shape} differ")

    @classmethod
    def empty(cls, observation_size: int, num_actions: int, num_players: int) -> Dataset:
        """A dataset without examples, of these sizes."""
        shapes = {
            "observations": (0, observation_size),
            "masks": (0, num_actions),
            "policies": (0, num_actions),
            "returns": (0, num_players),
        }
        return cls(**{name: np.zeros(shapes.get(name, (0,)), dtype) for name, dtype in ARRAYS.items()})

    @classmethod
    def concatenate(cls, datasets: Sequence[Dataset]) -> Dataset:
        """The examples of ``datasets``, one after the other.

        Raises:
            ValueError: for no datasets, or datasets of different sizes (observations, actions, players).
        """
        if not datasets:
            raise ValueError("Dataset.concatenate needs at least one dataset")
        shapes = {d.shapes for d in datasets}
        if len(shapes) > 1:
            raise ValueError(f"Dataset.concatenate: datasets of different sizes {sorted(shapes)}")
        return cls(**{name: np.concatenate([getattr(d, name) for d in datasets]) for name in ARRAYS})

    @property
    def shapes(self) -> tuple[int, int, int]:
        """``(observation_size, num_actions, num_players)``."""
        return self.observations.shape[1], self.masks.shape[1], self.returns.shape[1]

    def __len__(self) -> int:
        return len(self.observations)

    @property
    def nbytes(self) -> int:
        """The bytes its arrays hold in memory."""
        return sum(getattr(self, name).nbytes for name in ARRAYS)

    @staticmethod
    def example_bytes(observation_size: int, num_actions: int, num_players: int) -> int:
        """The bytes one example takes in memory (see the module docstring)."""
        return 4 * observation_size + 5 * num_actions + 4 * num_players + 10

    def equals(self, other: Dataset) -> bool:
        """Whether ``other`` holds the same examples, bit for bit, in the same order."""
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    def select(self, rows: np.ndarray | slice) -> Dataset:
        """The examples at ``rows`` (an index array, a boolean mask or a slice)."""
        return Dataset(**{name: getattr(self, name)[rows] for name in ARRAYS})

    def save(self, path: str | Path) -> Path:
        """Write the arrays to ``path`` (a compressed ``.npz``, ``.npz`` added if missing), atomically:
        a killed write leaves no file behind."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                np.savez_compressed(
                    f, format=np.array(DATASET_FORMAT), **{n: getattr(self, n) for n in ARRAYS}
                )

        atomic_write(path, write)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Dataset:
        """Read a dataset :meth:`save` wrote.

        Raises:
            ValueError: for a file that is not one (naming what is missing).
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
            raise ValueError(f"{path} is not an expert-iteration dataset ({err})") from err
        if "format" not in arrays or str(arrays["format"]) != DATASET_FORMAT:
            raise ValueError(f"{path} is not an expert-iteration dataset (no {DATASET_FORMAT!r} format)")
        missing = sorted(set(ARRAYS) - set(arrays))
        if missing:
            raise ValueError(f"{path} is not an expert-iteration dataset: no {missing}")
        return cls(**{name: arrays[name] for name in ARRAYS})

    def __repr__(self) -> str:
        size, actions, players = self.shapes
        games = len(np.unique(self.games))
        return (
            f"Dataset({len(self)} examples of {games} games, observations {size}, actions {actions}, "
            f"players {players}, {self.nbytes / 2**20:.1f} MiB)"
        )
