"""Learning algorithms, registered: one :class:`~.record.Algorithm` record per algorithm, found through
the entry-point group ``boardenvs_agents.algorithms``.

An entry point's name is the algorithm's name (``algo: <name>`` in a training config,
``<name>:<game>`` and ``<name>:<path.zip>`` agent specs), its value the record
(``"package.module:RECORD"``). The algorithms that ship register there the same way a package of
yours would (pyproject.toml)::

    [project.entry-points."boardenvs_agents.algorithms"]
    ppo = "boardenvs_agents.learning.algorithms.ppo:PPO"   # MaskablePPO (sb3-contrib)
    dqn = "boardenvs_agents.learning.algorithms.dqn:DQN"   # masked DQN (masked_dqn.py)

:func:`algorithm_names` lists the names without importing anything; :func:`get_algorithm` loads a
record when it is first asked for (a record names its model class by string, so that neither torch
nor Stable-Baselines3 is imported until a model is built or loaded). ``docs/adding-an-algorithm.md``
adds one.
"""

from __future__ import annotations

import functools

from boardenvs_agents import plugins
from boardenvs_agents.learning.algorithms.record import (
    COMMON_RULES,
    Algorithm,
    Rule,
    in_unit_interval,
    is_int,
    is_number,
)

#: The entry-point group algorithms register in.
ENTRY_POINT_GROUP = plugins.ALGORITHMS

__all__ = [
    "COMMON_RULES",
    "ENTRY_POINT_GROUP",
    "Algorithm",
    "Rule",
    "algorithm_names",
    "get_algorithm",
    "in_unit_interval",
    "is_int",
    "is_number",
]


def algorithm_names() -> list[str]:
    """The names of the registered algorithms, sorted (nothing is imported)."""
    return plugins.names(ENTRY_POINT_GROUP)


@functools.cache
def get_algorithm(name: str) -> Algorithm:
    """The record of the algorithm registered as ``name``.

    Raises:
        ValueError: for a name nobody registered (the message lists the registered ones), a name two
            packages registered, or an entry point that is not a record of that name.
    """
    record = plugins.load(ENTRY_POINT_GROUP, name, "algorithm")
    if not isinstance(record, Algorithm) or record.name != name:
        entry = plugins.entry_points_of(ENTRY_POINT_GROUP)[name][0]
        raise ValueError(
            f"the entry point {name} = {entry.value!r} of group {ENTRY_POINT_GROUP!r} must be an "
            f"Algorithm record named {name!r}, got {record!r}"
        )
    return record
