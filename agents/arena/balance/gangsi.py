"""Gangsi's balance figures and K7 targets (gangsi.md): treasures revealed and catches per game."""

from __future__ import annotations

from boardenvs.gangsi.rules import KYONSHI, GangsiState
from boardenvs_agents.arena.balance.observer import BalanceObserver
from boardenvs_agents.arena.balance.stats import ROLE_RANGE, SettingReport, Target, at_most, within

#: K7: the hunters find treasures in every game on average (mean reveals per game at least this).
MIN_MEAN_REVEALS = 1.0
#: K7: the K26 cap ends at most this share of games.
MAX_K26 = 0.05


class Observer(BalanceObserver):
    """Reads the terminal state: treasures revealed (all pieces) and life tokens taken (catches);
    the K26 cap is the Kyonshi's win by the rules, reported apart."""

    player_counts = (3, 4, 5)
    figures = {
        "reveals": "treasures revealed (all hunters)",
        "catches": "catches (life tokens the Kyonshi took)",
    }
    asymmetric = True
    cap_is_rule = True
    cap_name = "K26 cap, the Kyonshi's win"

    def final_figures(self, state: GangsiState) -> dict[str, float]:
        """Reveals and catches of the finished game."""
        return {"reveals": sum(bin(r).count("1") for r in state.revealed), "catches": state.tokens}

    def rounds(self, state: GangsiState) -> int:
        """Rounds played: the last one counts even when the game ended during it."""
        return min(state.round + 1, state.options.max_rounds)

    def capped(self, state: GangsiState) -> bool:
        """K26: the round cap ended the game (the Kyonshi won without its tokens)."""
        return state.winner == KYONSHI and state.tokens < state.threshold

    def roles(self, state: GangsiState) -> list[str]:
        """Seat 0 is the Kyonshi; every other seat plays for the hunters."""
        return ["Kyonshi"] + ["hunters"] * (state.options.num_players - 1)

    @classmethod
    def describe(cls, num_players: int) -> str:
        """``"3 hunters (4 players)"``; two players are one controller with two hunter pieces (K21)."""
        hunters = 2 if num_players == 2 else num_players - 1
        return f"{hunters} hunters ({num_players} players)"

    @classmethod
    def targets(cls, setting: SettingReport) -> list[Target]:
        """K7: the Kyonshi wins 0.35-0.65 of the games, hunters find treasures, the K26 cap is rare."""
        same = setting.same
        out = []
        if "Kyonshi" in same.roles:
            out.append(within("K7", f"Kyonshi win rate, {same.lineup}", same.roles["Kyonshi"], *ROLE_RANGE))
        reveals = same.figures["reveals"].mean
        out.append(
            Target(
                "K7",
                f"hunters find treasures: mean reveals per game at least {MIN_MEAN_REVEALS:g}",
                f"{reveals:.2f}",
                reveals >= MIN_MEAN_REVEALS,
            )
        )
        out.append(at_most("K7", "games the K26 cap ends", same.share("cap_win", "cap_draw"), MAX_K26))
        return out
