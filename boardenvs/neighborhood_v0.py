"""``neighborhood_v0``: LEAVE this Neighborhood. See :mod:`boardenvs.neighborhood.env` for details."""

from boardenvs.neighborhood.env import NeighborhoodGame, env, raw_env

__all__ = ["NeighborhoodGame", "env", "raw_env"]
