"""What the strategy and balance pages measure of キョンシー (``gangsi_v0``), for its record.

Rule ids (K1-K34) refer to ``docs/rules/gangsi.md``.

* Decision kinds (:func:`decision_kind`): hunters' re-rolls (K14), resets (K16), keeps, number and
  arrow declarations and directions (K10-K12); the Kyonshi's steps and stops (K17).
* Events (:func:`count_events`): treasures revealed (K20, K23) and life tokens taken (catches, K17,
  K18), counted for the mover.
* Balance (:data:`BALANCE`): reveals and catches per game; the K26 cap is the Kyonshi's win by the
  rules, reported apart; seat 0 is the Kyonshi, every other seat plays for the hunters; K7's targets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardenvs.gangsi.rules import ARROW_ACTION, DIR, FACE, KEEP, KYONSHI, REROLL, RESET, STOP, GangsiState
from boardenvs_agents.games.record import (
    ROLE_RANGE,
    BalanceRecord,
    Events,
    Target,
    at_most,
    no_events,
    within,
)

#: K7: the hunters find treasures in every game on average (mean reveals per game at least this).
MIN_MEAN_REVEALS = 1.0
#: K7: the K26 cap ends at most this share of games.
MAX_K26 = 0.05


def decision_kind(state: GangsiState, player: int, action: int) -> str:
    """The kind of ``player``'s decision ``action`` in ``state`` (see the module docstring)."""
    if player == KYONSHI:  # K17
        return "Kyonshi: stop" if action == STOP else "Kyonshi: step"
    names = {KEEP: "keep", RESET: "reset", REROLL: "re-roll", ARROW_ACTION: "declare the arrow"}  # K14-K16
    if action in names:
        return names[action]
    return "declare a number" if FACE <= action < DIR else "direction"  # K10-K12


def count_events(state: GangsiState, player: int, action: int) -> Callable[[GangsiState], Events]:
    """Treasures revealed (K20, K23) and life tokens taken (catches, K17, K18) by a move; chance
    outcomes reveal and catch nothing."""
    if player < 0:
        return no_events
    revealed, tokens = state.revealed[:], state.tokens

    def measure(after: GangsiState) -> Events:
        if after.tokens == tokens and after.revealed == revealed:
            return []
        pairs = zip(revealed, after.revealed, strict=True)
        reveals = sum(bin(b).count("1") - bin(a).count("1") for a, b in pairs)
        return [(player, "reveals", reveals), (player, "catches", max(0, after.tokens - tokens))]

    return measure


def rounds(state: GangsiState) -> int:
    """Rounds played: the last one counts even when the game ended during it."""
    return min(state.round + 1, state.options.max_rounds)


def capped(state: GangsiState) -> bool:
    """K26: the round cap ended the game (the Kyonshi won without its tokens)."""
    return state.winner == KYONSHI and state.tokens < state.threshold


def roles(state: GangsiState) -> list[str]:
    """Seat 0 is the Kyonshi; every other seat plays for the hunters."""
    return ["Kyonshi"] + ["hunters"] * (state.options.num_players - 1)


def describe(num_players: int) -> str:
    """``"3 hunters (4 players)"``; two players are one controller with two hunter pieces (K21)."""
    hunters = 2 if num_players == 2 else num_players - 1
    return f"{hunters} hunters ({num_players} players)"


def targets(setting: Any) -> list[Target]:
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


#: The balance tool's part of the record.
BALANCE = BalanceRecord(
    player_counts=(3, 4, 5),
    figures={
        "reveals": "treasures revealed (all hunters)",
        "catches": "catches (life tokens the Kyonshi took)",
    },
    rounds=rounds,
    capped=capped,
    roles=roles,
    asymmetric=True,
    cap_is_rule=True,
    cap_name="K26 cap, the Kyonshi's win",
    describe=describe,
    targets=targets,
)
#: The events the strategy page shows per seat.
STRATEGY_EVENTS = {"reveals": "treasures revealed", "catches": "catches"}
