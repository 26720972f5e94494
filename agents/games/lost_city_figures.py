"""What the strategy and balance pages measure of Star of the Lost City (``lost_city_v0``), for its record.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md``.

* Decision kinds (:func:`decision_kind`): draft picks (T2), moves that advance (the nearest living
  opponent gets closer), retreat (it gets further) or keep the distance (T4, T5), stays, basic
  attacks, abilities (Double Hit and Jamie's copies counted in, T22), criticals (T17), +Damage and
  +Health cards (T11), ends of step.
* Events (:func:`count_events`): battle cards drawn (T10, T12; counted for the acting character's
  seat), and held cards used: a card that leaves the hand of a living character by its own seat's
  decision was used (played or spent; a Special Ability card spent is an ability used, T22's Copycat
  included), counted for the card's holder.
* Balance (:data:`BALANCE`): cards drawn and used and abilities per game, the win rate of every
  character (a 2-player round robin), the T9 and T28 targets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city import rules as lc
from boardenvs.lost_city.rules import P_DRAW, LostCityState
from boardenvs_agents.games.record import BalanceRecord, Events, Target, at_most, no_events, within

#: T9: in 4-player games, at least this many abilities used per game on average.
MIN_ABILITIES_4P = 1.5
#: T9: every character's 2-player round-robin win rate lies in this range.
CHARACTER_RANGE = (0.30, 0.70)
#: T28: at most this share of games ends at the round cap.
MAX_CAP = 0.05


def decision_kind(state: LostCityState, player: int, action: int) -> str:
    """The kind of ``player``'s decision ``action`` in ``state`` (see the module docstring)."""
    if action >= lc.PICK:  # T2
        return "draft pick"
    if action == lc.STAY:
        return "stay"
    if action < lc.ATTACK:  # T5: a move, told by the distance to the nearest living opponent (T4)
        me = state.acting()
        others = [q for q in range(state.n) if q != me and state.hp[q] > 0]
        if not others:
            return "move"
        child = state.clone()
        child.apply_action(action)
        before = min(state.distance(me, q) for q in others)
        after = min(child.distance(me, q) for q in others)
        return "advance" if after < before else "retreat" if after > before else "move, same distance"
    if action < lc.ABILITY:  # T4
        return "basic attack"
    if action < lc.CRITICAL:  # Double Hit and Jamie's copies counted in (T17, T22)
        return "ability"
    return {
        lc.CRITICAL: "critical",
        lc.PLAY_DAMAGE: "+Damage card",
        lc.PLAY_HEALTH: "+Health card",
        lc.END: "end step",
    }[action]  # T17 (Aaron's Critical), T11 (the good cards)


def count_events(state: LostCityState, player: int, action: int) -> Callable[[LostCityState], Events]:
    """A card draw (a chance outcome in the draw phase), or the held cards a decision used."""
    if player < 0:
        if state.phase != P_DRAW:
            return no_events
        seat = state.acting()
        return lambda _after: [(seat, "cards_drawn", 1)]
    held = state.held[:]

    def measure(after: LostCityState) -> Events:
        out: Events = []
        for p, (old, new) in enumerate(zip(held, after.held, strict=True)):
            if old >= 0 and new != old and after.hp[p] > 0:
                out.append((p, "cards_used", 1))
                if old == cards.SPECIAL:
                    out.append((p, "abilities", 1))
        return out

    return measure


def rounds(state: LostCityState) -> int:
    """The round the game ended in (T39)."""
    return min(state.round, state.options.max_rounds)


def capped(state: LostCityState) -> bool:
    """T28: the round cap ended the game (two or more characters alive)."""
    return state.is_terminal() and sum(hp > 0 for hp in state.hp) >= 2


def roles(state: LostCityState) -> list[str]:
    """Every seat's character."""
    return [ch.NAMES[k] for k in state.char]


def round_robin(num_players: int, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """T9: with 2 players (characters not fixed by the options), every ordered pair of characters."""
    if num_players != 2 or isinstance(options.get("characters"), (list, tuple)):
        return []
    return [{"characters": (a, b)} for a in ch.NAMES for b in ch.NAMES if a != b]


def targets(setting: Any) -> list[Target]:
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


#: The balance tool's part of the record.
BALANCE = BalanceRecord(
    player_counts=(2, 3, 4, 5, 6, 7),
    figures={
        "cards_drawn": "battle cards drawn",
        "cards_used": "held cards used (+Damage, +Health, Special Ability)",
        "abilities": "special abilities used",
    },
    rounds=rounds,
    capped=capped,
    roles=roles,
    round_robin=round_robin,
    targets=targets,
)
