"""Star of the Lost City's balance figures and T9/T28 targets (lost_city.md): cards drawn and used,
abilities used per game, and the win rate of every character."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.rules import P_DRAW, LostCityState
from boardenvs_agents.arena.balance.observer import BalanceObserver
from boardenvs_agents.arena.balance.stats import SettingReport, Target, at_most, within

#: T9: in 4-player games, at least this many abilities used per game on average.
MIN_ABILITIES_4P = 1.5
#: T9: every character's 2-player round-robin win rate lies in this range.
CHARACTER_RANGE = (0.30, 0.70)
#: T28: at most this share of games ends at the round cap.
MAX_CAP = 0.05


class Observer(BalanceObserver):
    """Compares the held cards around every decision: a card that leaves the hand of a living
    character by its own seat's decision was used (played or spent; a Special Ability card spent is
    an ability used, T22's Copycat included); cards drawn are the card draws (T10, T12)."""

    player_counts = (2, 3, 4, 5, 6, 7)
    figures = {
        "cards_drawn": "battle cards drawn",
        "cards_used": "held cards used (+Damage, +Health, Special Ability)",
        "abilities": "special abilities used",
    }

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self._held: list[int] = []
        self._decision = False

    def before(self, state: LostCityState, player: int, action: int) -> None:
        """Count a card draw; remember the held cards before a decision."""
        self._decision = player >= 0
        if self._decision:
            self._held = state.held[:]
        elif state.phase == P_DRAW:
            self.counts["cards_drawn"] += 1

    def after(self, state: LostCityState) -> None:
        """Count the cards the decision used."""
        if not self._decision:
            return
        for p, (old, new) in enumerate(zip(self._held, state.held, strict=True)):
            if old >= 0 and new != old and state.hp[p] > 0:
                self.counts["cards_used"] += 1
                if old == cards.SPECIAL:
                    self.counts["abilities"] += 1

    def rounds(self, state: LostCityState) -> int:
        """The round the game ended in (T39)."""
        return min(state.round, state.options.max_rounds)

    def capped(self, state: LostCityState) -> bool:
        """T28: the round cap ended the game (two or more characters alive)."""
        return state.is_terminal() and sum(hp > 0 for hp in state.hp) >= 2

    def roles(self, state: LostCityState) -> list[str]:
        """Every seat's character."""
        return [ch.NAMES[k] for k in state.char]

    @classmethod
    def round_robin(cls, num_players: int, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """T9: with 2 players (characters not fixed by the options), every ordered pair of characters."""
        if num_players != 2 or isinstance(options.get("characters"), (list, tuple)):
            return []
        return [{"characters": (a, b)} for a in ch.NAMES for b in ch.NAMES if a != b]

    @classmethod
    def targets(cls, setting: SettingReport) -> list[Target]:
        """T9 (abilities with 4 players; the 2-player round robin) and T28 (the cap)."""
        same = setting.same
        out = [at_most("T28", "games the round cap ends", same.share("cap_win", "cap_draw"), MAX_CAP)]
        if setting.num_players == 4:
            mean = same.figures["abilities"].mean
            out.append(
                Target(
                    "T9",
                    f"abilities used per game at least {MIN_ABILITIES_4P:g} (4 players)",
                    f"{mean:.2f}",
                    mean >= MIN_ABILITIES_4P,
                )
            )
        for name, rate in (setting.round_robin or {}).items():
            out.append(within("T9", f"{name}'s 2-player round-robin win rate", rate, *CHARACTER_RANGE))
        return out
