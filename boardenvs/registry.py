"""Environments by name: ``boardenvs.make("sorry_v0", **options)`` and friends."""

from __future__ import annotations

import importlib
from typing import Any

from boardenvs.core.game import Game

#: Env name -> module that defines ``env``, ``raw_env`` and the game class.
ENV_MODULES: dict[str, str] = {
    "sorry_v0": "boardenvs.sorry_v0",
}
#: Env name -> name of its Game class in that module.
_GAME_CLASSES: dict[str, str] = {
    "sorry_v0": "SorryGame",
}


def env_names() -> list[str]:
    """Every environment this package provides."""
    return sorted(ENV_MODULES)


def _module(name: str) -> Any:
    if name not in ENV_MODULES:
        raise ValueError(f"unknown environment {name!r}; available: {env_names()}")
    return importlib.import_module(ENV_MODULES[name])


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Create environment ``name`` with the standard wrappers (``raw=True``: the unwrapped env).

    Keyword arguments are ``render_mode`` and the game's options; unknown ones raise at once.
    """
    module = _module(name)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


def make_game(name: str, **options: Any) -> Game:
    """The :class:`~boardenvs.core.game.Game` of environment ``name`` (rules and encoding, no env)."""
    return getattr(_module(name), _GAME_CLASSES[name])(**options)
