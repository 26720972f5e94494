"""``gangsi_v0``: キョンシー (Gangsi). See :mod:`boardenvs.gangsi.env` for the full description."""

from boardenvs.gangsi.env import GangsiGame, env, raw_env

__all__ = ["GangsiGame", "env", "raw_env"]
