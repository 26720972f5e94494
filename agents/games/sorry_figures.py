"""What the strategy and balance pages measure of Sorry! (``sorry_v0``), for its record.

Rule ids (S1-S24) refer to ``docs/rules/sorry.md``.

* Decision kinds (:func:`decision_kind`): forward moves (out of Start apart, S5), backward moves (S6,
  S17), 7 splits (S14), 11 switches (S12), Sorry! cards (S15), passes (S13, S16).
* Events (:func:`count_events`), read from each move's :meth:`SorryState.preview`: bumps made (pawns of
  other players the mover sends back to Start) and bumps suffered (every pawn sent back, own pawns on a
  slide included, counted for its owner), by a landing, a slide (S9) or a Sorry! card (S15); slides
  (S8-S11) taken by the mover.
* Balance (:data:`BALANCE`): bumps and slides per game; a round is every seat drawing once.
"""

from __future__ import annotations

from collections.abc import Callable

from boardenvs.sorry.board import START
from boardenvs.sorry.rules import BACKWARD_ACTION, PASS, PAWNS, SORRY_ACTION, SPLIT, SWITCH, SorryState
from boardenvs_agents.games.record import BalanceRecord, Events, no_events


def decision_kind(state: SorryState, player: int, action: int) -> str:
    """The kind of ``player``'s decision ``action`` in ``state`` (see the module docstring)."""
    if action < BACKWARD_ACTION:  # S5, S6: a pawn in Start moves out of it
        return "out of Start" if state.pos[PAWNS * player + action] == START else "forward"
    if action < SPLIT:  # the 4 and the 10's backward 1: never out of Start (S6), S17
        return "backward"
    if action < SWITCH:  # S14
        return "7 split"
    if action < SORRY_ACTION:  # S12
        return "11 switch"
    if action < PASS:  # S15
        return "Sorry! card"
    return "pass"  # only when nothing else is legal (S16), or beside the switches of an 11 (S13)


def count_events(state: SorryState, player: int, action: int) -> Callable[[SorryState], Events]:
    """Bumps made and suffered (S9, S15) and slides (S8-S11) of a move, from its preview."""
    if player < 0 or action == PASS:
        return no_events
    after, slides = state.preview(action)
    out: Events = [(player, "slides", slides)] if slides else []
    for index, (a, b) in enumerate(zip(state.pos, after, strict=True)):
        if b == START and a != START:
            owner = index // PAWNS
            if owner != player:
                out.append((player, "bumps_made", 1))
            out.append((owner, "bumps_suffered", 1))
    return lambda _after: out


def rounds(state: SorryState) -> int:
    """Card draws over the player count, rounded up (a round: every seat draws once)."""
    return -(-state.turn // state.options.num_players)


#: The balance tool's part of the record.
BALANCE = BalanceRecord(
    player_counts=(2, 3, 4),
    figures={
        "bumps": "bumps (pawns sent back to Start, own pawns on a slide included)",
        "slides": "slides",
    },
    figure_events={"bumps": "bumps_suffered"},
    rounds=rounds,
)
#: The events the strategy page shows per seat.
STRATEGY_EVENTS = {"bumps_made": "bumps made", "bumps_suffered": "bumps suffered"}
