"""Checked reading of state dicts: every ``from_dict`` / ``load_state_dict`` reads its fields here.

A state dict comes from :meth:`State.to_dict` (or an env's ``state_dict()``), but it may have been
edited, truncated or written by hand. A game declares what each of its fields holds as a table of
:class:`Spec` (an integer in a range, a list of them of a given length, true or false; the ranges follow
from the game's options and from fields read before) and :class:`Fields` reads the dict with it. A
missing key, an unknown key, a value of the wrong type or out of its range raises
:class:`StateDictError`, one line naming the field, the value and what is allowed::

    lost_city_v0 state: hp[2] = 999 is outside 0..250 (Rob's starting HP)

instead of loading silently (an observation outside its space, a player to move with no legal action)
or failing later with a bare ``KeyError`` / ``TypeError`` / ``IndexError``. Checks across fields use
:meth:`Fields.check`; :func:`check_playable` is the last check of a rebuilt state: whoever is to move
can move.

>>> f = Fields(data, "sorry_v0 state")
>>> options = f.options(SorryOptions, "sorry_v0")
>>> v = f.read({"to_move": integer(0, n - 1), "truncated": flag(), "pos": integers(3 * n, 0, 66)})
>>> f.finish()  # every key was read: there is no unknown one
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from boardenvs.core.options import OptionError, make_options
from boardenvs.core.state import CHANCE, TERMINAL, State

_MISSING = object()
#: A bound of an integer field, or one bound per item of a list field; ``None``: unbounded.
Bound = int | Sequence[int] | None


class StateDictError(ValueError):
    """A state dict with a missing or unknown key or a bad value; the one-line message names the field."""


@dataclass(frozen=True)
class Spec:
    """What one field of a state dict holds; made by :func:`integer`, :func:`integers`, :func:`flag` and
    :func:`flags`.

    ``lo`` / ``hi`` bound an integer (inclusive; ``None``: no bound), or each item of a list, with one
    bound per item when they are sequences; ``note`` says where a bound comes from (one per item, or
    one for all), ``length`` how many items a list has (``None``: any number).
    """

    kind: Literal["int", "ints", "bool", "bools"]
    lo: Bound = None
    hi: Bound = None
    length: int | None = None
    note: str | Sequence[str] = ""


def integer(lo: int, hi: int | None, note: str = "") -> Spec:
    """An integer in ``lo..hi`` (``hi=None``: no upper bound)."""
    return Spec("int", lo, hi, None, note)


def integers(length: int | None, lo: Bound, hi: Bound, note: str | Sequence[str] = "") -> Spec:
    """A list of ``length`` integers (``None``: any number), item ``i`` in ``lo[i]..hi[i]`` or ``lo..hi``."""
    return Spec("ints", lo, hi, length, note)


def flag() -> Spec:
    """``true`` or ``false`` (not a number, not a string)."""
    return Spec("bool")


def flags(length: int | None) -> Spec:
    """A list of ``length`` flags (``None``: any number)."""
    return Spec("bools", length=length)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def show(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to one short line, as the messages show a value."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _item(note: str | Sequence[str], i: int) -> str:
    return note if isinstance(note, str) else note[i]


class Fields:
    """Checked reads of the fields of ``data`` (a mapping), which keys were read kept for :meth:`finish`.

    Args:
        data: the state dict (or a dict inside one, see :meth:`sub`).
        what: how messages name the whole dict, e.g. ``"sorry_v0 state"``.
        path: where ``data`` lies inside it (``"deck"``, ``"decks[2]"``); empty for the dict itself.
    """

    def __init__(self, data: Any, what: str, path: str = "") -> None:
        if not isinstance(data, Mapping):
            where = (
                f"{path} = {show(data)} is not a dict"
                if path
                else f"expected a dict, got {type(data).__name__}"
            )
            raise StateDictError(f"{what}: {where}")
        self.data = data
        self.what = what
        self.path = path
        self._read: set[str] = set()

    # -- errors -----------------------------------------------------------------------------------
    def name(self, key: str) -> str:
        """How messages name field ``key`` of this dict (``"unseen"``, ``"deck.unseen"``)."""
        return f"{self.path}.{key}" if self.path else key

    def fail(self, field: str, message: str) -> StateDictError:
        """The error (raise it) ``"<what>: <field> <message>"``; ``field`` as :meth:`name` makes it."""
        return StateDictError(f"{self.what}: {field} {message}")

    def check(self, ok: bool, field: str, message: str) -> None:
        """Raise :meth:`fail` unless ``ok`` (for checks across fields)."""
        if not ok:
            raise self.fail(field, message)

    # -- reading ----------------------------------------------------------------------------------
    def get(self, key: str) -> Any:
        """The raw value of ``key`` (a clear error when it is missing)."""
        if key not in self.data:
            raise StateDictError(f"{self.what}: missing key {self.name(key)!r}")
        self._read.add(key)
        return self.data[key]

    def read(self, specs: Mapping[str, Spec]) -> dict[str, Any]:
        """Every field of ``specs``, checked: ``{key: value}`` (ints and lists of ints or bools)."""
        return {key: self.value(key, spec) for key, spec in specs.items()}

    def value(self, key: str, spec: Spec, value: Any = _MISSING) -> Any:
        """Field ``key`` checked against ``spec``; a ``value`` given is checked in its place (``key``
        then only names it in messages, e.g. ``"stack[3]"``)."""
        field = self.name(key)
        if value is _MISSING:
            value = self.get(key)
        if spec.kind == "int":
            return self._int(field, value, spec.lo, spec.hi, spec.note)
        if spec.kind == "bool":
            return self._bool(field, value)
        items = self._list(field, value, spec.length)
        if spec.kind == "bools":
            return [self._bool(f"{field}[{i}]", item) for i, item in enumerate(items)]
        lo, hi, note = spec.lo, spec.hi, spec.note
        lo_each, hi_each = isinstance(lo, (list, tuple)), isinstance(hi, (list, tuple))  # one per item
        out = []
        for i, item in enumerate(items):
            low = lo[i] if lo_each else lo  # type: ignore[index]
            high = hi[i] if hi_each else hi  # type: ignore[index]
            if type(item) is int and (low is None or item >= low) and (high is None or item <= high):
                out.append(item)  # the common case, checked without a call
            else:
                out.append(self._int(f"{field}[{i}]", item, low, high, _item(note, i)))
        return out

    def list(self, key: str, length: int | None = None) -> list[Any]:
        """Field ``key`` as a list (of anything), of ``length`` items if given."""
        return self._list(self.name(key), self.get(key), length)

    def sub(self, key: str, index: int | None = None) -> Fields:
        """The dict in field ``key`` (item ``index`` of the list there), read with the same names."""
        value = self.get(key)
        field = self.name(key)
        if index is not None:
            value = self._list(field, value, None)[index]
            field = f"{field}[{index}]"
        return Fields(value, self.what, field)

    def options(self, cls: type, game: str) -> Any:
        """Check ``game`` names ``game`` and build the options dataclass ``cls`` from ``options``."""
        name = self.get("game")
        self.check(name == game, "game", f"= {show(name)} is not {game!r}")
        options = self.get("options")
        if not isinstance(options, Mapping):
            raise self.fail(self.name("options"), f"= {show(options)} is not a dict of the game's options")
        where = f"{self.what}: options: "
        try:
            return make_options(cls, options, where=where)
        except OptionError as err:  # the dataclass's own checks do not know where they are
            message = str(err)
            raise StateDictError(message if message.startswith(where) else where + message) from err

    def finish(self) -> None:
        """Refuse a key that no read asked for (a misspelt or foreign field)."""
        unknown = sorted(str(key) for key in self.data if key not in self._read)
        if unknown:
            keys = ", ".join(sorted(self._read))
            raise StateDictError(f"{self.what}: unknown key {self.name(unknown[0])!r} (the keys are {keys})")

    # -- one value --------------------------------------------------------------------------------
    def _int(self, field: str, value: Any, lo: int | None, hi: int | None, note: str) -> int:
        if not _is_int(value):
            raise self.fail(field, f"= {show(value)} is not an integer")
        value = int(value)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            allowed = (
                f"outside {lo}..{hi}"
                if lo is not None and hi is not None
                else (f"below {lo}" if lo is not None else f"above {hi}")
            )
            raise self.fail(field, f"= {value} is {allowed}" + (f" ({note})" if note else ""))
        return value

    def _bool(self, field: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise self.fail(field, f"= {show(value)} is not true or false")
        return bool(value)

    def _list(self, field: str, value: Any, length: int | None) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            raise self.fail(field, f"= {show(value)} is not a list")
        if length is not None and len(value) != length:
            raise self.fail(field, f"has {len(value)} items, not {length}")
        return list(value)


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
