"""Everything an agent knows about each game: one record per game, found through entry points.

A game's knowledge is one :class:`~boardenvs_agents.games.record.GameRecord` (``agents/games/<game>.py``
for the four games of this project: its hand-written heuristic, ``progress(state)``, the strategy and
balance pages' decision kinds and events, the balance targets, the champion's recipe), published under
the entry-point group :data:`RECORDS_GROUP` (``boardenvs_agents.games``; name: the env name, value:
``"boardenvs_agents.games.sorry:RECORD"``), so a game of another distribution brings its own record
without editing this package (docs/adding-a-game.md). Records are found with
:mod:`boardenvs_agents.plugins` (the group read once per process) and each imported once
(:func:`find_record`; ``find_record.cache_clear()`` loads again). A game without
a record still gets every tool that needs only its rules; :func:`require` (and the tools built on it)
raises :class:`MissingRecordError` naming what is missing.

``progress(state)`` is every player's distance to winning as a fraction in ``[0, 1]``, read off the
rules state. Search scores a rollout cut off by its depth with :func:`leaf_values`, built on it:

* ``sorry_v0``: pawn progress, the forward steps made from Start towards Home over the three pawns
  (S2-S5: 60 track squares, 5 safety squares, Home);
* ``gangsi_v0``: a hunter, its treasures revealed out of five (K20), plus up to half a treasure for
  being few hunter moves from the nearest treasure it still has to reveal; the Kyonshi, its life tokens
  out of the end table's threshold combined with the share of ``max_rounds`` played (K26);
* ``lost_city_v0``: HP over the character's starting HP (T26: last character standing);
* ``neighborhood_v0``: HP over 10 (L21: last player with HP).

A player's leaf value is ``SCALE * (own fraction - best fraction among the others)``, so it lies in
``[-SCALE, SCALE]`` (``SCALE = 0.5``: a finished game's +1/-1 always weighs more); a player who is out
(``state.is_out``) keeps its final return. Values read only the (determinized) state given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from boardenvs.core.state import State
from boardenvs_agents import plugins
from boardenvs_agents.base import Policy
from boardenvs_agents.games.record import GameRecord

#: The entry-point group where distributions publish their games' records.
RECORDS_GROUP = plugins.GAMES
#: Leaf values are ``SCALE * (own - best other)``.
SCALE = 0.5


class MissingRecordError(ValueError):
    """A tool needs a part of a game's record that the game does not have (or no record at all)."""


class RecordEntryPointError(ImportError):
    """A record's entry point that cannot be used: it fails to import, does not name a
    :class:`GameRecord` of its own game, or two distributions publish one for the same game."""


def record_names() -> list[str]:
    """The games that have a record (nothing is imported)."""
    return plugins.names(RECORDS_GROUP)


@functools.cache
def find_record(game_name: str) -> GameRecord | None:
    """The record of ``game_name`` (imported on first use, then kept), or ``None`` for a game without one.

    Raises:
        RecordEntryPointError: for a broken entry point (see the class).
    """
    entries = plugins.entry_points_of(RECORDS_GROUP).get(game_name)
    if not entries:
        return None
    if len(entries) > 1:
        raise RecordEntryPointError(
            f"game {game_name!r} has more than one record: " + "; ".join(plugins.describe(e) for e in entries)
        )
    (entry,) = entries
    try:
        record = entry.load()
    except Exception as err:
        raise RecordEntryPointError(
            f"{plugins.describe(entry)} fails to load: {type(err).__name__}: {err}"
        ) from err
    if not isinstance(record, GameRecord):
        raise RecordEntryPointError(
            f"{plugins.describe(entry)} names {record!r}, not a boardenvs_agents.games.record.GameRecord"
        )
    if record.game != game_name:
        raise RecordEntryPointError(f"{plugins.describe(entry)} names the record of {record.game!r}")
    return record


def require(game_name: str, part: str, needed_by: str) -> Any:
    """The part ``part`` (a :class:`GameRecord` field) of ``game_name``'s record, for ``needed_by``.

    Raises:
        MissingRecordError: when the game has no record, or its record lacks that part; the message
            names the game, the part, what needs it and where records come from.
    """
    record = find_record(game_name)
    if record is None:
        raise MissingRecordError(
            f"{needed_by} needs the agents' record of {game_name!r} (its {part}), and {game_name} has "
            f"none: publish a boardenvs_agents.games.record.GameRecord under the entry-point group "
            f"{RECORDS_GROUP!r} (docs/adding-a-game.md); games with one: {record_names()}"
        )
    value = getattr(record, part)
    if value is None or value == ():
        raise MissingRecordError(f"{needed_by} needs the {part} of {game_name}'s record, which has none")
    return value


def heuristic_class(game_name: str) -> type:
    """The hand-written heuristic policy class of ``game_name``.

    Raises:
        MissingRecordError: (a ``ValueError``) for a game without a heuristic.
    """
    return require(game_name, "heuristic", "the heuristic")


def make_heuristic(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **kwargs: Any
) -> Policy:
    """The factory of the ``heuristic`` spec (entry point ``boardenvs_agents.agents``): the game's
    hand-written heuristic with ``kwargs`` as its options (``heuristic:depth=1``).

    Raises:
        ValueError: for a game without one (:class:`MissingRecordError`), or options its heuristic
            does not take.
    """
    cls = heuristic_class(game_name)
    try:
        return cls(seed=seed, **kwargs)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(kwargs)} for the {game_name} heuristic: {err}") from err


def progress_function(game_name: str) -> Callable[[State], list[float]]:
    """``progress(state)`` of ``game_name``: every player's fraction of the way to winning.

    Raises:
        MissingRecordError: (a ``ValueError``) for a game without a progress measure.
    """
    return require(game_name, "progress", "a leaf evaluation (leaf_values, leaf=eval)")


def leaf_values(state: State) -> list[float]:
    """Every player's value of the unfinished ``state`` in ``[-SCALE, SCALE]`` (final returns if out).

    Raises:
        ValueError: for a game without a leaf evaluation.
    """
    progress = progress_function(state.game_name)
    if state.is_terminal():
        return [float(r) for r in state.returns()]
    fractions = progress(state)
    returns = state.returns()
    out = []
    for p, own in enumerate(fractions):
        if state.is_out(p):
            out.append(float(returns[p]))
            continue
        others = [x for q, x in enumerate(fractions) if q != p and not state.is_out(q)]
        out.append(SCALE * (own - max(others)) if others else 0.0)
    return out


__all__ = [
    "RECORDS_GROUP", "SCALE", "GameRecord", "MissingRecordError", "RecordEntryPointError", "find_record",
    "heuristic_class", "leaf_values", "make_heuristic", "progress_function", "record_names", "require",
]  # fmt: skip
