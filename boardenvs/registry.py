"""Environments by name: ``boardenvs.make("sorry_v0", **options)`` and friends."""

from __future__ import annotations

import importlib
from typing import Any

from boardenvs.core.game import Game

#: Env name -> module that defines ``env``, ``raw_env`` and the game class.
ENV_MODULES: dict[str, str] = {
    "sorry_v0": "boardenvs.sorry_v0",
    "gangsi_v0": "boardenvs.gangsi_v0",
    "lost_city_v0": "boardenvs.lost_city_v0",
    "neighborhood_v0": "boardenvs.neighborhood_v0",
}
#: Env name -> name of its Game class in that module.
_GAME_CLASSES: dict[str, str] = {
    "sorry_v0": "SorryGame",
    "gangsi_v0": "GangsiGame",
    "lost_city_v0": "LostCityGame",
    "neighborhood_v0": "NeighborhoodGame",
}


#: Env name -> Gymnasium id of its single-agent view (``gymnasium.make(id, opponents=...)``).
GYM_IDS: dict[str, str] = {
    "sorry_v0": "boardenvs/Sorry-v0",
    "gangsi_v0": "boardenvs/Gangsi-v0",
    "lost_city_v0": "boardenvs/LostCity-v0",
    "neighborhood_v0": "boardenvs/Neighborhood-v0",
}


def register_gymnasium() -> None:
    """Register every game's single-agent view with Gymnasium (done when ``boardenvs`` is imported).

    A process that has not imported boardenvs (a ``SubprocVecEnv`` child started from a notebook or
    ``python -c``) finds the ids through ``gymnasium.make("boardenvs:boardenvs/Sorry-v0")``, which
    imports the module named before the colon first.
    """
    import gymnasium

    for name, gym_id in GYM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id, entry_point="boardenvs.wrappers.single_agent:SingleAgentEnv", kwargs={"game": name}
            )


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
