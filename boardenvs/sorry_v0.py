"""``sorry_v0``: Sorry! (three-pawn edition). See :mod:`boardenvs.sorry.env` for the full description."""

from boardenvs.sorry.env import SorryGame, env, raw_env

__all__ = ["SorryGame", "env", "raw_env"]
