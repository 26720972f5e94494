"""What the strategy and balance pages measure of LEAVE this Neighborhood (``neighborhood_v0``), for its
record.

Rule ids (L1-L40) refer to ``docs/rules/neighborhood.md``.

* Decision kinds (:func:`decision_kind`): Killer or Wild card chosen (L14), votes for Killer or Wild
  (L17), card options (first/second), squares, directions, distances, players, stops.
* Events (:func:`count_events`), comparing the states around every action: players eliminated
  (counted for the player), and each HP lost, charged to the card that caused it (counted for the
  table): a card drawn in that step (a Killer card first, if both kinds were: L25's known cards are
  drawn without a chance node), else the card being resolved; a sprung trap (L33) and a Thug's HP
  loss (both Wild cards) to the Wild cards; anything else (none in the rules as written) to
  ``hp_other``.
* Balance (:data:`BALANCE`): eliminations and HP lost to Killer and Wild cards per game, the 1.1b
  targets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boardenvs.neighborhood.board import COLOR_NAMES
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.rules import (
    D_VOTE,
    DIR,
    DIST,
    F_DRAW,
    F_PROG,
    KILLER,
    OPTION_A,
    PLAYER,
    STOP,
    WILD,
    NeighborhoodState,
)
from boardenvs_agents.games.record import BalanceRecord, Events, Target, at_least, at_most

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


def decision_kind(state: NeighborhoodState, player: int, action: int) -> str:
    """The kind of ``player``'s decision ``action`` in ``state`` (see the module docstring)."""
    if action in (KILLER, WILD):  # L14 (a choice), L17 (a vote)
        name = "Killer" if action == KILLER else "Wild"
        return f"vote {name}" if state.decision_kind() == D_VOTE else f"choose {name}"
    for first, kind in ((STOP, "stop"), (OPTION_A, "card option"), (PLAYER, "player"), (DIST, "distance"),
                        (DIR, "direction")):  # fmt: skip
        if action >= first:
            return kind
    return "square"


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


def count_events(state: NeighborhoodState, player: int, action: int) -> Callable[[NeighborhoodState], Events]:
    """Eliminations and HP lost by card kind of any action (chance outcomes included)."""
    hp, alive, thugs = state.hp[:], state.alive[:], state.thug[:]
    traps = sum(c >= 0 for c in state.trap_cell)
    deck = card_deck(state)
    marks = deck_marks(state)

    def measure(after: NeighborhoodState) -> Events:
        pairs = zip(alive, after.alive, strict=True)
        out: Events = [(p, "eliminations", 1) for p, (a, b) in enumerate(pairs) if a and not b]
        wild = 0
        rest = 0
        for p, (old, new) in enumerate(zip(hp, after.hp, strict=True)):
            lost = max(0, old - new)
            if lost and thugs[p] and not after.thug[p]:
                thug = min(lost, thugs[p])  # Hire a Thug (a Wild card): HP at the start of the turn
                wild += thug
                lost -= thug
            rest += lost
        sprung = traps - sum(x >= 0 for x in after.trap_cell)
        if rest and sprung > 0:
            trap = min(rest, TRAP_HP * sprung)  # L33: traps are set by Wild cards
            wild += trap
            rest -= trap
        if rest:
            drawn = [d for d, (a, b) in enumerate(zip(marks, deck_marks(after), strict=True)) if a != b]
            # min: the Killer deck (0) first
            charged = min(drawn) if drawn else deck if deck >= 0 else card_deck(after)
            if charged == KILLER_DECK:
                out.append((-1, "hp_killer", rest))
            elif charged > KILLER_DECK:
                wild += rest
            else:
                out.append((-1, "hp_other", rest))
        if wild:
            out.append((-1, "hp_wild", wild))
        return out

    return measure


def rounds(state: NeighborhoodState) -> int:
    """The round the game ended in."""
    return state.round


def capped(state: NeighborhoodState) -> bool:
    """L23: the round cap ended the game (more than one character still alive)."""
    return state.is_terminal() and sum(state.alive) >= 2


def roles(state: NeighborhoodState) -> list[str]:
    """Every seat's character colour (L4)."""
    return [COLOR_NAMES[c] for c in state.colors]


def derived(totals: Mapping[str, float], games: int) -> dict[str, float]:
    """The Killer cards' share of all HP lost (1.1b)."""
    lost = totals["hp_killer"] + totals["hp_wild"] + totals["hp_other"]
    return {"Killer cards' share of HP lost": totals["hp_killer"] / lost if lost else 0.0}


def targets(setting: Any) -> list[Target]:
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


#: The balance tool's part of the record.
BALANCE = BalanceRecord(
    player_counts=(3, 4, 5),
    figures={
        "eliminations": "eliminations",
        "hp_killer": "HP lost to Killer cards",
        "hp_wild": "HP lost to Wild cards (their effects, traps, thugs)",
        "hp_other": "HP lost outside any card",
    },
    rounds=rounds,
    capped=capped,
    roles=roles,
    derived=derived,
    targets=targets,
)
