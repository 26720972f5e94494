"""Entry points: how the agents package finds what other packages (and this one) register.

Three groups, each a name -> object table kept by the installed distributions' metadata, not by a
list in this repository (``pyproject.toml`` registers this package's own entries the same way a
package of yours would):

* ``boardenvs_agents.agents`` (:data:`AGENTS`): agent factories, ``name = "module:function"``; the name is
  what an agent spec starts with (``mcts`` in ``mcts:sims=50``). A factory is called as
  ``factory(game_name, seed, game_options, **spec_options)`` and returns a
  :class:`~boardenvs_agents.base.Policy` (:mod:`boardenvs_agents.registry`).
* ``boardenvs_agents.algorithms`` (:data:`ALGORITHMS`): learning algorithms, ``name = "module:RECORD"``
  (:mod:`boardenvs_agents.learning.algorithms`); every algorithm's name is an agent name too, whose
  first spec option is a model (``ppo:sorry_v0``).
* ``boardenvs_agents.games`` (:data:`GAMES`): what the agents know of a game beyond its rules, one record
  per env name (:mod:`boardenvs_agents.games`).

Groups are read once per process (:func:`entry_points_of`; ``entry_points_of.cache_clear()`` reads
them again) and an entry is imported only when it is first loaded, so naming an agent never imports
torch unless the agent needs it. This module is the bottom of the agents package's layers
(``tests/test_layering.py``): through it a lower layer reaches an agent, an algorithm or a game
record by name without importing the layer that defines it.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points
from typing import Any

#: Agent factories by spec name.
AGENTS = "boardenvs_agents.agents"
#: Learning-algorithm records by algorithm name.
ALGORITHMS = "boardenvs_agents.algorithms"
#: Game records by env name.
GAMES = "boardenvs_agents.games"


@functools.cache
def entry_points_of(group: str) -> dict[str, tuple[EntryPoint, ...]]:
    """The installed entry points of ``group`` by name, sorted (a name that two distributions publish
    with different values has two), read once per process."""
    found: dict[str, tuple[EntryPoint, ...]] = {}
    for entry in entry_points(group=group):
        if all(entry.value != other.value for other in found.get(entry.name, ())):
            found[entry.name] = (*found.get(entry.name, ()), entry)
    return dict(sorted(found.items()))


def names(group: str) -> list[str]:
    """The names registered in ``group``, sorted (nothing is imported)."""
    return sorted(entry_points_of(group))


def describe(entry: EntryPoint) -> str:
    """``'mcts = boardenvs_agents.search.mcts:make_mcts' (group ..., distribution boardenvs 0.1.0)``."""
    dist = entry.dist
    where = f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
    return f"entry point '{entry.name} = {entry.value}' (group {entry.group}, distribution {where})"


@functools.cache
def load(group: str, name: str, what: str) -> Any:
    """The object registered as ``name`` in ``group`` (``what`` names it in messages: ``"agent"``),
    imported on first use and kept.

    Raises:
        ValueError: for a name nobody registered (the message lists the registered ones) or a name
            two distributions registered differently.
        ImportError: for an entry point that fails to import (naming it and its distribution).
    """
    entries = entry_points_of(group).get(name)
    if not entries:
        raise ValueError(f"unknown {what} {name!r}; registered: {names(group)} (entry-point group {group!r})")
    if len(entries) > 1:
        found = "; ".join(describe(entry) for entry in entries)
        raise ValueError(f"{what} {name!r} is registered more than once ({found}): uninstall all but one")
    try:
        return entries[0].load()
    except (ImportError, AttributeError) as err:
        if isinstance(err, ModuleNotFoundError) and err.name and not err.name.startswith("boardenvs"):
            raise  # a missing dependency (torch, ray): the caller says which extra brings it
        raise ImportError(f"{describe(entries[0])} cannot be loaded: {err}") from err


__all__ = ["AGENTS", "ALGORITHMS", "GAMES", "describe", "entry_points_of", "load", "names"]
