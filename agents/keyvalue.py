"""The one ``key=value`` grammar of the project: game options (``--option``), config overrides
(``--set``) and the options of agent specs (``mcts:sims=100,leaf=progress``) read their values here.

**The rule.** A value (blanks around it removed) is read as:

- ``[a, b, ...]``: a list of values; ``{key: value, ...}``: a mapping of values to values (inside the
  brackets, text needs no quotes: ``{random: 0.5, self: 0.5}``, ``[0, 2]``, ``{1: ppo:runs/m.zip}``;
  a ``:`` separates a key from its value only where a blank follows it, or after a quoted key);
- text in double quotes (JSON's escapes) or single quotes (``''`` stands for one quote): the text
  inside, never a number (``"007"``, ``"true"``);
- ``true`` or ``false``, in any case: a boolean; ``null``, in any case: ``None``;
- an integer as Python's ``int`` reads it (``200``, ``-3``, ``1_000``): an ``int``; else a number as
  Python's ``float`` reads it (``0.5``, ``1e-4``, ``inf``): a ``float``;
- anything else: the text as typed (``classic``, ``ppo:sorry_v0``, ``runs/a b.zip``; an empty value
  is empty text).

So a JSON value reads as JSON, and a YAML flow value as YAML does (``{random: 1.0}``), save that
``yes``/``no``/``on``/``off``, ``~`` and dates stay text; an unclosed bracket or quote is an error
(:class:`KeyValueError`, naming the item). It needs nothing beyond the standard library, so every
command reads ``key=value`` the same way in an install without extras.

This module is the bottom of the agents package: it imports nothing else of ``boardenvs_agents``.

>>> parse_items(["max_turns=200", "colors=[0, 2]", "slide_rule=classic"], "--option")
{'max_turns': 200, 'colors': [0, 2], 'slide_rule': 'classic'}
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["KeyValueError", "parse_item", "parse_items", "parse_value"]


class KeyValueError(ValueError):
    """A ``key=value`` item, or a value, that the grammar cannot read; the message names it."""


#: Words read as constants, in any case.
_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None}
#: Characters that end a plain (unquoted) piece of text inside brackets.
_ENDS = {"list": ",]", "key": ",}", "value": ",}"}


def parse_value(text: str) -> Any:
    """``text`` read by the rule of this module (its docstring).

    Raises:
        KeyValueError: for an unclosed or unbalanced bracket or quote, saying where.
    """
    reader = _Reader(text)
    reader.blanks()
    value = reader.value(None)
    reader.blanks()
    if reader.pos != len(text):
        raise KeyValueError(f"cannot read {text!r}: unexpected {text[reader.pos :]!r} after the value")
    return value


def parse_item(item: str, what: str = "item") -> tuple[str, Any]:
    """``"eval.games=50"`` -> ``("eval.games", 50)``: the key before the first ``=``, blanks removed,
    and the value after it read by :func:`parse_value`. ``what`` names the kind of item in errors
    (``--option``, ``--set``, ``agent spec 'mcts:...'``).

    Raises:
        KeyValueError: for an item without ``=`` or without a key (``--set takes key=value, got 'x'``),
            or a value that cannot be read (``--option colors: cannot read '[0, 2' ...``).
    """
    key, eq, raw = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise KeyValueError(f"{what} takes key=value, got {item!r}")
    try:
        return key, parse_value(raw)
    except KeyValueError as err:
        raise KeyValueError(f"{what} {key}: {err}") from None


def parse_items(items: Iterable[str], what: str = "item") -> dict[str, Any]:
    """Every item of ``items`` (:func:`parse_item`) as a dict, a later key replacing an earlier one."""
    return dict(parse_item(item, what) for item in items)


def _scalar(text: str) -> Any:
    """Plain (unquoted) text as a constant, an int, a float or itself."""
    word = _WORDS.get(text.lower(), text)
    if word is not text:
        return word
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


class _Reader:
    """A cursor over one value's text (recursive descent: values, lists, mappings, quoted text)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, why: str) -> KeyValueError:
        return KeyValueError(f"cannot read {self.text!r}: {why} (at character {self.pos + 1})")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def blanks(self) -> None:
        while self.peek() and self.peek().isspace():
            self.pos += 1

    def value(self, inside: str | None) -> Any:
        """A value; ``inside`` is ``None`` at the top, else the part of a list or mapping being read."""
        char = self.peek()
        if char == "[":
            return self.sequence()
        if char == "{":
            return self.mapping()
        if char in "\"'" and char:
            return self.quoted()
        if inside is None:  # the whole rest of the text
            plain = self.text[self.pos :].strip()
            self.pos = len(self.text.rstrip())
            return _scalar(plain)
        plain = self.plain(inside)
        if self.pos >= len(self.text):
            raise self.fail("the text ends inside a '[' or '{' that is not closed")
        if not plain:
            raise self.fail(f"an empty {'item' if inside == 'list' else inside} (quote empty text: '')")
        return _scalar(plain)

    def plain(self, inside: str) -> str:
        """Unquoted text up to the end of a list item, key or value (a key ends at ``": "``)."""
        start, ends = self.pos, _ENDS[inside]
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in ends:
                break
            if inside == "key" and char == ":" and not self.text[self.pos + 1 : self.pos + 2].strip():
                break
            if char in "[{":
                raise self.fail(f"{char!r} inside unquoted text (quote the text)")
            self.pos += 1
        return self.text[start : self.pos].strip()

    def quoted(self) -> str:
        quote, start = self.peek(), self.pos
        if quote == '"':
            try:
                text, end = json.JSONDecoder().raw_decode(self.text, start)
            except json.JSONDecodeError as err:
                raise self.fail(f"bad double-quoted text ({err.msg})") from None
            self.pos = end
            return str(text)
        out, self.pos = [], start + 1
        while True:
            end = self.text.find("'", self.pos)
            if end < 0:
                self.pos = start
                raise self.fail("a single quote that is not closed")
            out.append(self.text[self.pos : end])
            if self.text[end + 1 : end + 2] == "'":  # '' stands for one quote
                out.append("'")
                self.pos = end + 2
                continue
            self.pos = end + 1
            return "".join(out)

    def sequence(self) -> list[Any]:
        start = self.pos
        self.pos += 1
        out: list[Any] = []
        self.blanks()
        if self.peek() == "]":
            self.pos += 1
            return out
        while True:
            self.blanks()
            out.append(self.value("list"))
            self.blanks()
            char = self.peek()
            self.pos += 1
            if char == "]":
                return out
            if char != ",":
                self.pos = start
                why = "a '[' that is not closed" if not char else f"{char!r} where ',' or ']' belongs"
                raise self.fail(why)

    def mapping(self) -> dict[Any, Any]:
        start = self.pos
        self.pos += 1
        out: dict[Any, Any] = {}
        self.blanks()
        if self.peek() == "}":
            self.pos += 1
            return out
        while True:
            self.blanks()
            key = self.value("key")
            self.blanks()
            if self.peek() != ":":
                raise self.fail("a key without ': value' in a mapping")
            self.pos += 1
            self.blanks()
            value = self.value("value")
            try:
                out[key] = value
            except TypeError:
                raise self.fail(f"a key that is a list or mapping ({key!r})") from None
            self.blanks()
            char = self.peek()
            self.pos += 1
            if char == "}":
                return out
            if char != ",":
                self.pos = start
                why = "a '{' that is not closed" if not char else f"{char!r} where ',' or '}}' belongs"
                raise self.fail(why)
