"""A face-down deck with explicit chance: the helper every card game uses.

A shuffled deck is modelled the OpenSpiel way. Cards whose place in the pile nobody has seen are kept
as an unordered multiset (``counts`` per card kind); drawing one of them is a chance node whose
outcomes are the kinds still unseen, each with probability ``count / total``. That is the same
distribution as shuffling at setup and drawing from the top, but it keeps every random event explicit
(a search can enumerate it, the env samples it with its own generator) and it means a state never
holds a secret order that an observation could leak.

Cards put back *under* the pile in a known order (a rule such as "used cards go to the bottom") form
the ``bottom`` queue; they are drawn, in that order, once the unseen part is used up. A discard pile
can be shuffled back in with :meth:`Deck.reshuffle`, which returns its cards to the unseen multiset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from boardenvs.core.fields import Fields, integers


class Deck:
    """A draw pile (unseen multiset on top, known queue below) and a discard pile, by card kind."""

    __slots__ = ("unseen", "unseen_total", "bottom", "discards")

    def __init__(
        self,
        counts: Sequence[int],
        bottom: Sequence[int] = (),
        discards: Sequence[int] | None = None,
    ) -> None:
        self.unseen: list[int] = [int(c) for c in counts]
        if any(c < 0 for c in self.unseen):
            raise ValueError(f"card counts must be non-negative, got {list(counts)}")
        self.unseen_total = sum(self.unseen)
        self.bottom: list[int] = [int(k) for k in bottom]
        self.discards: list[int] = (
            [int(c) for c in discards] if discards is not None else [0] * len(self.unseen)
        )
        if len(self.discards) != len(self.unseen):
            raise ValueError("discards must have one count per card kind")

    # -- sizes ------------------------------------------------------------------------------------
    @property
    def num_kinds(self) -> int:
        """Number of distinct card kinds."""
        return len(self.unseen)

    def draw_pile_size(self) -> int:
        """Cards left to draw (unseen and bottom queue)."""
        return self.unseen_total + len(self.bottom)

    def discard_size(self) -> int:
        """Cards in the discard pile."""
        return sum(self.discards)

    def draw_pile_counts(self) -> list[int]:
        """Cards left to draw, counted by kind (public: anyone can count the cards played)."""
        counts = self.unseen[:]
        for kind in self.bottom:
            counts[kind] += 1
        return counts

    # -- drawing ----------------------------------------------------------------------------------
    def next_draw_is_chance(self) -> bool:
        """True when the next card comes from the unseen part (a chance event)."""
        return self.unseen_total > 0

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(kind, probability)`` of the next draw from the unseen part."""
        total = self.unseen_total
        return [(kind, c / total) for kind, c in enumerate(self.unseen) if c]

    def sample(self, rng: np.random.Generator) -> int:
        """Sample the kind of the next unseen card with ``rng`` (does not remove it)."""
        r = int(rng.random() * self.unseen_total)
        for kind, c in enumerate(self.unseen):
            if r < c:
                return kind
            r -= c
        raise RuntimeError("sample() from a deck with no unseen cards")

    def take(self, kind: int) -> None:
        """Remove one unseen card of ``kind``: the outcome of a chance draw."""
        if not 0 <= kind < len(self.unseen) or self.unseen[kind] == 0:
            raise ValueError(f"no unseen card of kind {kind} left in the deck")
        self.unseen[kind] -= 1
        self.unseen_total -= 1

    def draw_known(self) -> int:
        """Draw the next card of the known bottom queue (when no unseen card is left)."""
        if self.unseen_total:
            raise RuntimeError("unseen cards lie on top: draw them as chance outcomes first")
        if not self.bottom:
            raise RuntimeError("the draw pile is empty")
        return self.bottom.pop(0)

    # -- returning cards --------------------------------------------------------------------------
    def put_bottom(self, kind: int) -> None:
        """Put a card face down under the pile, in known position."""
        self.bottom.append(kind)

    def discard(self, kind: int) -> None:
        """Put a card face up on the discard pile."""
        self.discards[kind] += 1

    def reshuffle(self) -> None:
        """Shuffle the discard pile into the draw pile (its cards become unseen again)."""
        for kind, c in enumerate(self.discards):
            self.unseen[kind] += c
            self.unseen_total += c
            self.discards[kind] = 0

    # -- copying and serialising ------------------------------------------------------------------
    def clone(self) -> Deck:
        """An independent copy."""
        new = Deck.__new__(Deck)
        new.unseen = self.unseen[:]
        new.unseen_total = self.unseen_total
        new.bottom = self.bottom[:]
        new.discards = self.discards[:]
        return new

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"unseen": self.unseen[:], "bottom": self.bottom[:], "discards": self.discards[:]}

    @classmethod
    def from_dict(cls, data: dict[str, Any], num_kinds: int | None = None, what: str = "deck") -> Deck:
        """Inverse of :meth:`to_dict`, checked (:meth:`read`): ``num_kinds`` counts each, none negative."""
        return cls.read(Fields(data, what), num_kinds=num_kinds)

    @classmethod
    def read(
        cls,
        f: Fields,
        counts: Sequence[int] | None = None,
        outside: Sequence[int] | None = None,
        num_kinds: int | None = None,
    ) -> Deck:
        """A deck from its fields (a :class:`~boardenvs.core.fields.Fields`), checked; a bad one raises
        :class:`~boardenvs.core.fields.StateDictError` naming the field.

        Args:
            f: the deck's dict, read through ``Fields``.
            counts: the cards of each kind in the whole game: the deck (draw pile, bottom queue and
                discards together) holds no more of a kind.
            outside: with ``counts``, the cards of each kind that are elsewhere (in hands, drawn): the
                deck then holds exactly the rest.
            num_kinds: the number of kinds, when ``counts`` is not given.
        """
        kinds = len(counts) if counts is not None else num_kinds
        per_kind = "cards of that kind in the game"
        v = f.read(
            {
                "unseen": integers(kinds, 0, counts, per_kind),
                "bottom": integers(None, 0, None if kinds is None else kinds - 1, "a card kind"),
                "discards": integers(kinds, 0, counts, per_kind),
            }
        )
        unseen, bottom, discards = v["unseen"], v["bottom"], v["discards"]
        f.check(
            len(discards) == len(unseen), f.name("discards"), f"has {len(discards)} items, not {len(unseen)}"
        )
        f.check(
            all(k < len(unseen) for k in bottom),
            f.name("bottom"),
            f"= {bottom} names a kind past {len(unseen) - 1}",
        )
        if counts is not None:
            for kind, total in enumerate(counts):
                here = unseen[kind] + discards[kind] + bottom.count(kind)
                away = 0 if outside is None else outside[kind]
                wrong = here + away != total if outside is not None else here > total
                f.check(
                    not wrong,
                    f.path or "deck",
                    f"holds {here} cards of kind {kind}"
                    + (f" and {away} are elsewhere" if outside is not None else "")
                    + f": the game has {total}",
                )
        f.finish()
        return cls(unseen, bottom, discards)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deck) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Deck(unseen={self.unseen}, bottom={self.bottom}, discards={self.discards})"
