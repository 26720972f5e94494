"""Sorry!'s balance figures (sorry.md): bumps and slides per game."""

from __future__ import annotations

from boardenvs.sorry.board import START
from boardenvs.sorry.rules import PASS, SorryState
from boardenvs_agents.arena.balance.observer import BalanceObserver


class Observer(BalanceObserver):
    """Counts bumps (pawns sent back to Start: by a landing, a slide (S9, own pawns too) or a Sorry!
    card) and slides (S8-S11), from each move's :meth:`SorryState.preview`."""

    player_counts = (2, 3, 4)
    figures = {
        "bumps": "bumps (pawns sent back to Start, own pawns on a slide included)",
        "slides": "slides",
    }

    def before(self, state: SorryState, player: int, action: int) -> None:
        """Count the bumps and slides of a move about to be played."""
        if player < 0 or action == PASS:
            return
        after, slides = state.preview(action)
        self.counts["slides"] += slides
        bumped = sum(1 for a, b in zip(state.pos, after, strict=True) if b == START and a != START)
        self.counts["bumps"] += bumped

    def rounds(self, state: SorryState) -> int:
        """Card draws over the player count, rounded up (a round: every seat draws once)."""
        return -(-state.turn // state.options.num_players)
