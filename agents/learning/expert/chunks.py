"""A self-play run on disk: its folder holds a manifest and one file per chunk of games, so that a run
killed mid-way and started again plays only the chunks it had not finished and ends with the same
examples as a run never stopped.

Layout of the folder::

    selfplay.json          what the examples depend on: the config (less workers and backend), the
                           network's weights digest, the core loop's seeding scheme
    chunk_000000.npz       the examples of games 0 .. chunk_games - 1 (a Dataset, saved atomically)
    chunk_000001.npz       ...

A chunk file is written (to a temporary name, then renamed) once all its games are played, so a file
that exists is complete. Starting a run again in a folder whose manifest differs is refused: the
chunks there are another run's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.models import atomic_write

#: The manifest's name in a run's folder.
MANIFEST_NAME = "selfplay.json"

#: First value of the manifest's ``format``; bumped if the layout changes.
RUN_FORMAT = "boardenvs-exit-selfplay/1"


def chunk_ranges(games: int, chunk_games: int) -> list[range]:
    """The games of every chunk: ``range(0, chunk_games)``, ``range(chunk_games, 2 * chunk_games)``, ...,
    the last one possibly shorter."""
    return [range(start, min(start + chunk_games, games)) for start in range(0, games, chunk_games)]


class ChunkStore:
    """The folder of a self-play run (see the module docstring).

    Args:
        folder: the run's folder (made if missing).
        manifest: what the run's examples depend on (written as ``selfplay.json``, or checked against
            the one there).

    Raises:
        ValueError: for a folder that holds another run (naming what differs).
    """

    def __init__(self, folder: str | Path, manifest: Mapping[str, Any]) -> None:
        self.folder = Path(folder)
        self.manifest = json.loads(json.dumps({"format": RUN_FORMAT, **manifest}))  # as read back
        path = self.folder / MANIFEST_NAME
        if path.exists():
            old = json.loads(path.read_text())
            if old != self.manifest:
                differ = sorted(
                    k for k in set(old) | set(self.manifest) if old.get(k) != self.manifest.get(k)
                )
                raise ValueError(
                    f"{self.folder} holds another self-play run (its {MANIFEST_NAME} differs in {differ}); "
                    "use another folder or delete it"
                )
        else:
            atomic_write(path, lambda tmp: tmp.write_text(json.dumps(self.manifest, indent=2) + "\n"))
        for stale in self.folder.glob(".chunk_*.npz.tmp*"):  # a write the kill cut short
            stale.unlink()

    def path(self, chunk: int) -> Path:
        """The file of chunk ``chunk``."""
        return self.folder / f"chunk_{chunk:06d}.npz"

    def done(self, chunks: int) -> dict[int, Dataset]:
        """The chunks among ``0 .. chunks - 1`` already written, read."""
        return {c: Dataset.load(self.path(c)) for c in range(chunks) if self.path(c).exists()}

    def write(self, chunk: int, dataset: Dataset) -> Path:
        """Write the examples of chunk ``chunk`` (atomically)."""
        return dataset.save(self.path(chunk))
