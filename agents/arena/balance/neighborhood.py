"""LEAVE this Neighborhood's balance figures and 1.1b targets (neighborhood.md): eliminations, and HP
lost to Killer cards against Wild cards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardenvs.neighborhood.board import COLOR_NAMES
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.rules import F_DRAW, F_PROG, NeighborhoodState
from boardenvs_agents.arena.balance.observer import BalanceObserver
from boardenvs_agents.arena.balance.stats import SettingReport, Target, at_least, at_most

#: 1.1b: at least this share of games ends by elimination (the last survivor wins).
MIN_ELIMINATION_ENDS = 0.90
#: 1.1b: the L23 cap ends at most this share.
MAX_CAP = 0.05
#: 1.1b: median game length at most this many rounds.
MAX_MEDIAN_ROUNDS = 30
#: 1.1b: Killer cards cause at least this share of all HP lost.
MIN_KILLER_SHARE = 0.40
#: Trap damage (L33).
TRAP_HP = 2


def card_deck(state: NeighborhoodState) -> int:
    """The deck of the innermost card being drawn or resolved (0 the Killer deck, 1-4 the Wild decks),
    or -1 when no card is in play (a turn's move, a trap, a Thug's HP at the start of a turn)."""
    for frame in reversed(state.stack):
        if frame[0] == F_DRAW:
            return frame[2]
        if frame[0] == F_PROG and frame[9] >= 0:
            return frame[9]
    return -1


def deck_marks(state: NeighborhoodState) -> list[tuple[int, tuple[int, ...]]]:
    """What changes in a deck when a card is drawn from it: its unseen count and its known queue."""
    return [(d.unseen_total, tuple(d.bottom)) for d in state.decks]


class Observer(BalanceObserver):
    """Compares the states around every action: players eliminated, and each HP lost, charged to the
    card that caused it: a card drawn in that step (a Killer card first, if both kinds were: L25's
    known cards are drawn without a chance node), else the card being resolved; a sprung trap (L33)
    and a Thug's HP loss (both Wild cards) to the Wild cards; anything else (none in the rules as
    written) to ``hp_other``."""

    player_counts = (3, 4, 5)
    figures = {
        "eliminations": "eliminations",
        "hp_killer": "HP lost to Killer cards",
        "hp_wild": "HP lost to Wild cards (their effects, traps, thugs)",
        "hp_other": "HP lost outside any card",
    }

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self._hp: list[int] = []
        self._alive: list[bool] = []
        self._thug: list[int] = []
        self._traps = 0
        self._deck = -1
        self._marks: list[tuple[int, tuple[int, ...]]] = []

    def before(self, state: NeighborhoodState, player: int, action: int) -> None:
        """Remember HP, who is alive, pending Thugs, traps set and the card in play."""
        self._hp = state.hp[:]
        self._alive = state.alive[:]
        self._thug = state.thug[:]
        self._traps = sum(c >= 0 for c in state.trap_cell)
        self._deck = card_deck(state)
        self._marks = deck_marks(state)

    def after(self, state: NeighborhoodState) -> None:
        """Charge the HP lost in this step, and count eliminations."""
        c = self.counts
        c["eliminations"] += sum(1 for a, b in zip(self._alive, state.alive, strict=True) if a and not b)
        wild = 0
        rest = 0
        for p, (old, new) in enumerate(zip(self._hp, state.hp, strict=True)):
            lost = max(0, old - new)
            if lost and self._thug[p] and not state.thug[p]:
                thug = min(lost, self._thug[p])  # Hire a Thug (a Wild card): HP at the start of the turn
                wild += thug
                lost -= thug
            rest += lost
        sprung = self._traps - sum(x >= 0 for x in state.trap_cell)
        if rest and sprung > 0:
            trap = min(rest, TRAP_HP * sprung)  # L33: traps are set by Wild cards
            wild += trap
            rest -= trap
        if rest:
            drawn = [d for d, (a, b) in enumerate(zip(self._marks, deck_marks(state), strict=True)) if a != b]
            deck = (
                min(drawn) if drawn else self._deck if self._deck >= 0 else card_deck(state)
            )  # min: the Killer deck (0) first
            if deck == KILLER_DECK:
                c["hp_killer"] += rest
            elif deck > KILLER_DECK:
                wild += rest
            else:
                c["hp_other"] += rest
        c["hp_wild"] += wild

    def rounds(self, state: NeighborhoodState) -> int:
        """The round the game ended in."""
        return state.round

    def capped(self, state: NeighborhoodState) -> bool:
        """L23: the round cap ended the game (more than one character still alive)."""
        return state.is_terminal() and sum(state.alive) >= 2

    def roles(self, state: NeighborhoodState) -> list[str]:
        """Every seat's character colour (L4)."""
        return [COLOR_NAMES[c] for c in state.colors]

    @classmethod
    def derived(cls, totals: Mapping[str, float], games: int) -> dict[str, float]:
        """The Killer cards' share of all HP lost (1.1b)."""
        lost = totals["hp_killer"] + totals["hp_wild"] + totals["hp_other"]
        return {"Killer cards' share of HP lost": totals["hp_killer"] / lost if lost else 0.0}

    @classmethod
    def targets(cls, setting: SettingReport) -> list[Target]:
        """1.1b: elimination ends, the L23 cap, median length, draws and the Killer cards' share."""
        same = setting.same
        median = same.rounds.median
        share = same.derived["Killer cards' share of HP lost"]
        return [
            at_least("1.1b", "games ending by elimination", same.share("win", "draw"), MIN_ELIMINATION_ENDS),
            at_most("1.1b", "games the L23 cap ends", same.share("cap_win", "cap_draw"), MAX_CAP),
            Target(
                "1.1b",
                f"median game length at most {MAX_MEDIAN_ROUNDS} rounds",
                f"{median:g} rounds",
                median <= MAX_MEDIAN_ROUNDS,
            ),
            at_most("1.1b", "draws", same.draw_share, 0.05),
            at_least("1.1b", "Killer cards' share of all HP lost", share, MIN_KILLER_SHARE),
        ]
