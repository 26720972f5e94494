"""Checked reading of state dicts: every ``from_dict`` / ``load_state_dict`` reads its fields here.

A state dict comes from :meth:`State.to_dict` (or an env's ``state_dict()``), but it may have been
edited, truncated or written by hand. :class:`Fields` reads one with the types and ranges the
position needs, and a missing key or a bad value raises :class:`StateDictError` naming the field,
the value and what is allowed, instead of loading silently (a player to move with no legal action)
or failing later with a bare ``KeyError`` / ``TypeError`` / ``IndexError``.
:func:`check_playable` is the last check of a rebuilt state: whoever is to move can move.

>>> f = Fields(data, "sorry_v0 state")
>>> to_move = f.int("to_move", 0, num_players - 1)
>>> truncated = f.bool("truncated")
>>> pos = f.ints("pos", length=12, lo=0, hi=66)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from boardenvs.core.state import CHANCE, TERMINAL, State


class StateDictError(ValueError):
    """A state dict with a missing key or a bad value; the message names the field."""


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class Fields:
    """Typed access to the fields of ``data`` (a mapping), every read checked.

    Args:
        data: the state dict.
        what: how messages name it, e.g. ``"sorry_v0 state"``.
    """

    def __init__(self, data: Any, what: str) -> None:
        if not isinstance(data, Mapping):
            raise StateDictError(f"{what}: expected a dict, got {type(data).__name__}")
        self.data = data
        self.what = what

    def fail(self, key: str, message: str) -> StateDictError:
        """The error for field ``key`` (raise it): ``"<what>: field 'key' <message>"``."""
        return StateDictError(f"{self.what}: field {key!r} {message}")

    def get(self, key: str) -> Any:
        """The raw value of ``key`` (a clear error when it is missing)."""
        if key not in self.data:
            raise StateDictError(f"{self.what}: missing key {key!r} (has {sorted(map(str, self.data))})")
        return self.data[key]

    def int(self, key: str, lo: int | None = None, hi: int | None = None, value: Any = None) -> int:
        """An integer in ``lo..hi`` (inclusive; ``None``: unbounded); ``value``: checked in its place."""
        value = self.get(key) if value is None else value
        if not _is_int(value):
            raise self.fail(key, f"must be an integer, got {value!r}")
        value = int(value)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(key, f"must be in {_range(lo, hi)}, got {value}")
        return value

    def bool(self, key: str) -> bool:
        """``true`` or ``false`` (not a string, not a number)."""
        value = self.get(key)
        if not isinstance(value, (bool, np.bool_)):
            raise self.fail(key, f"must be true or false, got {value!r}")
        return bool(value)

    def ints(
        self,
        key: str,
        length: int | None = None,
        lo: int | None = None,
        hi: int | None = None,
        value: Any = None,
    ) -> list[int]:
        """A list of integers, each in ``lo..hi``, of ``length`` items if given."""
        value = self.get(key) if value is None else value
        if not isinstance(value, (list, tuple)):
            raise self.fail(key, f"must be a list of integers, got {value!r}")
        if length is not None and len(value) != length:
            raise self.fail(key, f"must have {length} items, got {len(value)}")
        out = []
        for i, item in enumerate(value):
            if not _is_int(item):
                raise self.fail(key, f"item {i} must be an integer, got {item!r}")
            if (lo is not None and item < lo) or (hi is not None and item > hi):
                raise self.fail(key, f"item {i} must be in {_range(lo, hi)}, got {item}")
            out.append(int(item))
        return out

    def bools(self, key: str, length: int | None = None) -> list[bool]:
        """A list of ``true`` / ``false``, of ``length`` items if given."""
        value = self.list(key, length)
        for i, item in enumerate(value):
            if not isinstance(item, (bool, np.bool_)):
                raise self.fail(key, f"item {i} must be true or false, got {item!r}")
        return [bool(item) for item in value]

    def list(self, key: str, length: int | None = None) -> list[Any]:
        """A list (of anything), of ``length`` items if given."""
        value = self.get(key)
        if not isinstance(value, (list, tuple)):
            raise self.fail(key, f"must be a list, got {value!r}")
        if length is not None and len(value) != length:
            raise self.fail(key, f"must have {length} items, got {len(value)}")
        return list(value)

    def check(self, ok: bool, key: str, message: str) -> None:
        """Raise the error for ``key`` unless ``ok`` (for checks across fields)."""
        if not ok:
            raise self.fail(key, message)


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"


def check_playable(state: State, num_players: int, what: str) -> State:
    """Check a rebuilt state can go on: the player to move is a seat with a legal action, a chance
    node has outcomes. Returns ``state``; raises :class:`StateDictError` otherwise."""
    try:
        player = state.current_player()
        seat = CHANCE <= player < num_players
        ok = player == TERMINAL or (
            seat and bool(state.chance_outcomes() if player == CHANCE else state.legal_actions())
        )
    except (IndexError, KeyError, TypeError, ValueError) as err:
        message = f"{type(err).__name__}: {err}"
        raise StateDictError(f"{what}: the fields do not make a position ({message})") from err
    if not seat and player != TERMINAL:
        raise StateDictError(f"{what}: the player to move would be {player}, not a seat 0..{num_players - 1}")
    if not ok:
        who = "chance" if player == CHANCE else f"player {player}"
        raise StateDictError(f"{what}: the fields do not make a position: {who} is to move and cannot")
    return state
