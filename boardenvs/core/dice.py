"""Dice and spinners as explicit chance: outcome tables and a fast exact sampler."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def uniform_outcomes(num_faces: int) -> list[tuple[int, float]]:
    """Chance outcomes ``0 .. num_faces - 1`` of a fair die or spinner, each ``1 / num_faces``."""
    if num_faces < 1:
        raise ValueError(f"a die needs at least one face, got {num_faces}")
    p = 1.0 / num_faces
    return [(i, p) for i in range(num_faces)]


def roll(rng: np.random.Generator, num_faces: int) -> int:
    """Roll a fair die with faces ``0 .. num_faces - 1`` using ``rng`` (an outcome index)."""
    return int(rng.random() * num_faces)


class Die:
    """A fair die whose faces are a table (e.g. ``(1, 2, 3, 4, 5, "arrow")``), rolled as chance.

    The chance outcome is the face's *index*; :meth:`face` maps it back to the printed value.
    """

    __slots__ = ("faces",)

    def __init__(self, faces: Sequence[object]) -> None:
        if not faces:
            raise ValueError("a die needs at least one face")
        self.faces = tuple(faces)

    def outcomes(self) -> list[tuple[int, float]]:
        """``(face index, probability)`` pairs."""
        return uniform_outcomes(len(self.faces))

    def sample(self, rng: np.random.Generator) -> int:
        """A face index drawn with ``rng``."""
        return roll(rng, len(self.faces))

    def face(self, index: int) -> object:
        """The printed value of face ``index``."""
        return self.faces[index]
