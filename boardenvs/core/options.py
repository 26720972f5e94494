"""Game options as frozen dataclasses, checked the moment they are given.

Every DESIGNED or DECIDED value of a rules specification is an option with a default. A game declares
its options as a frozen dataclass; :func:`make_options` builds one from keyword arguments (or a config
mapping) and stops at once, naming the key, on an unknown key or a value of the wrong type.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")


class OptionError(ValueError):
    """A bad game option: unknown key, wrong type or value out of range."""


def _check(value: Any, tp: Any, key: str, where: str) -> Any:
    """Return ``value`` converted to ``tp`` (lists become tuples) or raise :class:`OptionError`."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin is Literal:
        if not any(value == arg and type(value) is type(arg) for arg in typing.get_args(tp)):
            raise OptionError(f"{where}option {key!r} must be one of {typing.get_args(tp)}, got {value!r}")
        return value
    if origin in (Union, types.UnionType):
        for arm in typing.get_args(tp):
            try:
                return _check(value, arm, key, where)
            except OptionError:
                pass
        raise OptionError(f"{where}option {key!r} has the wrong type: {value!r} is not {tp}")
    if dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        if not isinstance(value, Mapping):
            raise OptionError(f"{where}option {key!r} must be a mapping, got {value!r}")
        return make_options(tp, value, where=where, path=f"{key}.")
    if origin is dict:
        if not isinstance(value, Mapping):
            raise OptionError(f"{where}option {key!r} must be a mapping, got {value!r}")
        key_type, value_type = typing.get_args(tp) or (Any, Any)
        return {
            _check(k, key_type, key, where): _check(v, value_type, f"{key}.{k}", where)
            for k, v in value.items()
        }
    if tp is type(None):
        if value is not None:
            raise OptionError(f"{where}option {key!r} must be None, got {value!r}")
        return None
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            raise OptionError(f"{where}option {key!r} must be a list, got {value!r}")
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_check(v, args[0], key, where) for v in value)
        if len(args) != len(value):
            raise OptionError(f"{where}option {key!r} must have {len(args)} items, got {value!r}")
        return tuple(_check(v, a, key, where) for v, a in zip(value, args, strict=True))
    if tp is bool:
        if not isinstance(value, bool):
            raise OptionError(f"{where}option {key!r} must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"{where}option {key!r} must be an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OptionError(f"{where}option {key!r} must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise OptionError(f"{where}option {key!r} must be a string, got {value!r}")
        return value
    return value


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints`` of an options dataclass, worked out once (it is slow, and every
    ``from_dict`` builds its options)."""
    return typing.get_type_hints(cls)


def make_options(cls: type[T], options: Mapping[str, Any], where: str = "", path: str = "") -> T:
    """Build the options dataclass ``cls`` from ``options``, checking keys and types.

    Fields may be plain types, ``Literal``, unions, tuples, ``dict[K, V]`` and nested dataclasses (a
    config section), checked recursively.

    Args:
        cls: a dataclass whose fields all have defaults.
        options: the keyword arguments or config mapping to check.
        where: prefix for error messages (e.g. ``"sorry_v0: "`` or a config file name).
        path: dotted prefix of the keys, for nested sections (``"eval."``).

    Raises:
        OptionError: on an unknown key (the message lists the valid ones) or a value of the wrong
            type; the dataclass's own ``__post_init__`` checks ranges.
    """
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - set(fields))
    if unknown:
        valid = sorted(path + f for f in fields)
        raise OptionError(f"{where}unknown option {path + unknown[0]!r}; valid options are {valid}")
    hints = _type_hints(cls)
    checked = {key: _check(value, hints[key], path + key, where) for key, value in options.items()}
    try:
        return cls(**checked)
    except OptionError:
        raise
    except (TypeError, ValueError) as err:
        raise OptionError(f"{where}{path}{err}") from err


def _plain(value: Any) -> Any:
    """Tuples (at any depth) become lists, as a JSON round trip would make them."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def options_to_dict(options: Any) -> dict[str, Any]:
    """JSON-able dict of an options dataclass (tuples, nested too, become lists)."""
    return {k: _plain(v) for k, v in dataclasses.asdict(options).items()}


def encoding_keys(options: Any) -> tuple[str, ...]:
    """The options of ``options``' game that change only how observations are encoded, never the rules
    (its dataclass's ``ENCODING_OPTIONS``): a learned agent brings its own, whatever the table uses."""
    return tuple(getattr(type(options), "ENCODING_OPTIONS", ()))


def rules_options(options: Any) -> dict[str, Any]:
    """:func:`options_to_dict` without the encoding options (:func:`encoding_keys`): what two games
    must share for the same agent to play both."""
    skip = encoding_keys(options)
    return {k: v for k, v in options_to_dict(options).items() if k not in skip}
