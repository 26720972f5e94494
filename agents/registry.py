"""Policies by name: ``make_policy(spec, game_name, seed)``.

A spec is ``name`` or ``name:key=value,key=value`` (values parsed as int, float, true/false or text).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.base import Policy, RandomPolicy

#: Heuristic policy class per game: ``"module:Class"``.
HEURISTICS: dict[str, str] = {
    "sorry_v0": "agents.heuristic.sorry:SorryHeuristic",
}


def _heuristic(game_name: str, seed: int | None, **kwargs: Any) -> Policy:
    if game_name not in HEURISTICS:
        raise ValueError(f"no heuristic for game {game_name!r}; games with one: {sorted(HEURISTICS)}")
    module, cls = HEURISTICS[game_name].split(":")
    try:
        return getattr(importlib.import_module(module), cls)(seed=seed, **kwargs)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(kwargs)} for the {game_name} heuristic: {err}") from err


def _random(game_name: str, seed: int | None, **kwargs: Any) -> Policy:
    if kwargs:
        raise ValueError(f"the random policy takes no options, got {sorted(kwargs)}")
    return RandomPolicy(seed=seed)


_FACTORIES: dict[str, Callable[..., Policy]] = {"random": _random, "heuristic": _heuristic}


def policy_names() -> list[str]:
    """Names a spec may start with."""
    return sorted(_FACTORIES)


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the name and its options."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ValueError(f"bad agent spec {spec!r}: options are key=value pairs separated by commas")
            options[key.strip()] = _value(value.strip())
    return name.strip(), options


def make_policy(spec: str, game_name: str, seed: int | None = None) -> Policy:
    """Build the policy named by ``spec`` for ``game_name``, with its own generator seeded by ``seed``.

    Raises:
        ValueError: for an unknown name, or options the policy does not take.
    """
    name, options = parse_spec(spec)
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {policy_names()}")
    return _FACTORIES[name](game_name, seed, **options)
