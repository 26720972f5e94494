"""Environments by name: ``boardenvs.make("sorry_v0", **options)`` and friends, found through entry points.

A game registers itself; nothing here lists the games. An installed distribution publishes each of its
games under the entry-point group :data:`GAMES_GROUP` (``boardenvs.games``), the name being the env name
and the value the game's *env module*::

    # pyproject.toml of the distribution that ships the game
    [project.entry-points."boardenvs.games"]
    sorry_v0 = "boardenvs.sorry_v0"

The four games of this package register there the same way (this project's ``pyproject.toml``). The env
module (the shape of ``boardenvs/sorry_v0.py``) defines

* ``raw_env``: the unwrapped PettingZoo env, a :class:`~boardenvs.core.aec.BoardGameEnv` subclass whose
  ``game_class`` is the game's :class:`~boardenvs.core.game.Game` subclass (the adapter's own
  convention, so a game names its ``Game`` in one place); that class's ``name`` is the env name;
* ``env(**options)``: ``raw_env`` with the standard wrappers.

The Gymnasium id of a game's single-agent view follows from its env name, ``<game>_v<N>`` giving
``boardenvs/<Game>-v<N>`` with the game's words capitalised (``lost_city_v0``: ``boardenvs/LostCity-v0``,
:func:`gym_id`), so that ``import boardenvs`` registers every game with Gymnasium from the entry points'
names alone, without importing any game (a broken game cannot break the import). Env names are
lower-case words joined by ``_`` and end in ``_v<N>``, PettingZoo's convention.

Games are found with :func:`importlib.metadata.entry_points`, once per process (:func:`game_entry_points`;
its ``cache_clear()`` looks again), so a distribution installed after the first look is seen by the next
process. An env module is imported on first use of its game. A game published by two distributions, an
entry point that fails to import, or a module that breaks the convention raises
:class:`GameEntryPointError` naming the entry point and its distribution.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import warnings
from types import ModuleType
from typing import Any

from boardenvs.core.game import Game

#: The entry-point group where distributions publish their games (name: env name, value: env module).
GAMES_GROUP = "boardenvs.games"
#: Gymnasium namespace of every game's single-agent view.
GYM_NAMESPACE = "boardenvs"
#: What an env name looks like: lower-case words joined by ``_``, then ``_v`` and a version number.
ENV_NAME = re.compile(r"([a-z][a-z0-9]*(?:_[a-z0-9]+)*)_v(\d+)")


class GameEntryPointError(ImportError):
    """A game's entry point that cannot be used: it fails to import, its module breaks the env-module
    convention (see :mod:`boardenvs.registry`), or two distributions publish the same env name."""


def _describe(entry: importlib.metadata.EntryPoint) -> str:
    """``entry point 'sorry_v0 = boardenvs.sorry_v0' (group boardenvs.games, distribution boardenvs 0.1.0)``
    (the form of the agents package's ``boardenvs_agents.plugins.describe``)."""
    dist = entry.dist
    where = f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
    return f"entry point '{entry.name} = {entry.value}' (group {entry.group}, distribution {where})"


@functools.cache
def game_entry_points() -> dict[str, tuple[importlib.metadata.EntryPoint, ...]]:
    """Every installed game's entry points by env name, looked up once per process
    (``game_entry_points.cache_clear()`` looks again); a name that two distributions publish with
    different values has two (a conflict), the same value published twice counts once."""
    found: dict[str, tuple[importlib.metadata.EntryPoint, ...]] = {}
    for entry in importlib.metadata.entry_points(group=GAMES_GROUP):
        if all(entry.value != other.value for other in found.get(entry.name, ())):
            found[entry.name] = (*found.get(entry.name, ()), entry)
    return dict(sorted(found.items()))


def env_names() -> list[str]:
    """Every environment the installed distributions provide (this package's four and any plug-in's)."""
    return list(game_entry_points())


def gym_id(name: str) -> str:
    """The Gymnasium id of game ``name``'s single-agent view: ``lost_city_v0`` -> ``boardenvs/LostCity-v0``.

    Raises:
        ValueError: for a name that is not ``<words>_v<N>`` (lower-case words joined by ``_``).
    """
    match = ENV_NAME.fullmatch(name)
    if match is None:
        raise ValueError(
            f"env name {name!r} is not lower-case words joined by '_' ending in '_v<N>' (e.g. 'my_game_v0')"
        )
    words, version = match.groups()
    return f"{GYM_NAMESPACE}/{''.join(w.capitalize() for w in words.split('_'))}-v{version}"


def gym_ids() -> dict[str, str]:
    """Every registered game's Gymnasium id, by env name (names that are not ``<words>_v<N>`` left out)."""
    out = {}
    for name in env_names():
        try:
            out[name] = gym_id(name)
        except ValueError:
            continue
    return out


def register_gymnasium() -> None:
    """Register every game's single-agent view with Gymnasium (done when ``boardenvs`` is imported).

    Only the entry points' names are read: no game is imported. A game whose env name does not give a
    Gymnasium id (:func:`gym_id`) is left out with a warning. A process that has not imported boardenvs
    (a ``SubprocVecEnv`` child started from a notebook or ``python -c``) finds the ids through
    ``gymnasium.make("boardenvs:boardenvs/Sorry-v0")``, which imports the module named before the colon.
    """
    import gymnasium

    for name in env_names():
        try:
            identifier = gym_id(name)
        except ValueError as err:
            warnings.warn(f"game {name!r} is not registered with Gymnasium: {err}", stacklevel=2)
            continue
        if identifier not in gymnasium.registry:
            gymnasium.register(
                identifier,
                entry_point="boardenvs.wrappers.single_agent:SingleAgentEnv",
                kwargs={"game": name},
            )


def env_module(name: str) -> ModuleType:
    """The env module of game ``name``, imported and checked against the convention.

    Raises:
        ValueError: for a name no installed distribution registers (naming those that are).
        GameEntryPointError: for a broken entry point (see the class).
    """
    entries = game_entry_points().get(name)
    if not entries:
        raise ValueError(f"unknown environment {name!r}; available: {env_names()}")
    return _load(name, entries)


@functools.cache
def _load(name: str, entries: tuple[importlib.metadata.EntryPoint, ...]) -> ModuleType:
    """Import and check the env module of ``entries`` (one entry point), once."""
    if len(entries) > 1:
        raise GameEntryPointError(
            f"game {name!r} is registered more than once: " + "; ".join(_describe(e) for e in entries)
        )
    (entry,) = entries
    try:
        module = entry.load()
    except Exception as err:
        raise GameEntryPointError(f"{_describe(entry)} fails to load: {type(err).__name__}: {err}") from err
    problems = []
    if not isinstance(module, ModuleType):
        problems.append(f"it names a {type(module).__name__}, not a module")
    else:
        for attr in ("env", "raw_env"):
            if not callable(getattr(module, attr, None)):
                problems.append(f"its module defines no {attr}()")
        game_class = getattr(getattr(module, "raw_env", None), "game_class", None)
        if not (isinstance(game_class, type) and issubclass(game_class, Game)):
            problems.append("its raw_env has no game_class (the game's boardenvs.core.game.Game subclass)")
        elif getattr(game_class, "name", None) != name:
            problems.append(
                f"its game class {game_class.__name__} is named {getattr(game_class, 'name', None)!r}"
            )
    try:
        gym_id(name)
    except ValueError as err:
        problems.append(str(err))
    if problems:
        raise GameEntryPointError(
            f"{_describe(entry)} breaks the env-module convention (see boardenvs.registry): "
            + "; ".join(problems)
        )
    return module


def game_class(name: str) -> type[Game]:
    """The :class:`~boardenvs.core.game.Game` subclass of game ``name`` (its ``raw_env.game_class``)."""
    return env_module(name).raw_env.game_class


def make(name: str, *, raw: bool = False, **kwargs: Any) -> Any:
    """Create environment ``name`` with the standard wrappers (``raw=True``: the unwrapped env).

    Keyword arguments are ``render_mode`` and the game's options; unknown ones raise at once.

    Raises:
        ValueError: for an unknown name (naming the registered ones) or a bad option.
        GameEntryPointError: for a broken entry point.
    """
    module = env_module(name)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


def make_game(name: str, **options: Any) -> Game:
    """The :class:`~boardenvs.core.game.Game` of environment ``name`` (rules and encoding, no env)."""
    return game_class(name)(**options)
