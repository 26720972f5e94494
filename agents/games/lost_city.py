"""A hand-written Star of the Lost City player for ``lost_city_v0``: a draft pick, then rules of thumb per
step of a turn.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and :mod:`boardenvs.lost_city.env`.
"""

from __future__ import annotations

from boardenvs.core.state import State
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.features import (
    ABILITY_VALUE,
    danger,
    reach_tables,
    strike_value,
    targets_of,
    weakness,
)
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    COPY,
    CRITICAL,
    END,
    P_ACTION,
    P_COPY,
    P_MOVE,
    P_PICK,
    PAIR,
    PAIRS,
    PICK,
    PLAY_DAMAGE,
    PLAY_HEALTH,
    LostCityState,
)
from boardenvs_agents.base import Policy
from boardenvs_agents.games import lost_city_figures
from boardenvs_agents.games.record import GameRecord

#: Win rate of each character (Rob .. Chris) by player count, measured with this heuristic in every seat
#: and the characters drawn at random (``characters="random"``, the defaults otherwise, 2,000 games per
#: player count, see the env docstring): the draft picks the strongest character still free (T2).
CHARACTER_STRENGTH: dict[int, tuple[float, ...]] = {
    2: (0.513, 0.559, 0.628, 0.410, 0.413, 0.428, 0.556),
    3: (0.302, 0.247, 0.266, 0.424, 0.430, 0.417, 0.242),
    4: (0.248, 0.214, 0.305, 0.269, 0.252, 0.243, 0.219),
    5: (0.242, 0.206, 0.266, 0.148, 0.188, 0.156, 0.195),
    6: (0.197, 0.161, 0.239, 0.127, 0.143, 0.123, 0.178),
    7: (0.182, 0.150, 0.206, 0.095, 0.115, 0.099, 0.152),
}


class LostCityHeuristic(Policy):
    """Picks the strongest character still free, then hunts: strikes whenever it can, closes in when it
    cannot (unless two others are busy fighting each other), spends cards and abilities at once.

    * **Draft (T2).** The character with the best measured win rate for the player count
      (:data:`CHARACTER_STRENGTH`) among those not yet taken; ties go to the policy's generator.
    * **Move step.** If some reachable square lets the acting character strike this turn (a basic attack
      in range, or its ability while it holds a Special Ability card; Jamie: an ability he can copy
      there, T22), it goes to the best such square: the value of the best strike there (the expected
      damage, more on a target with fewer hits left in it and most on a kill; an ability one more move
      away counts half, so a card holder walks into its ability's range) minus ``danger_weight`` times
      the damage the square is exposed to next turn (every enemy that can walk, around the ruins,
      within its range of the square, T4, T5, sharing its expected attack among the characters it can
      reach). Ranged characters prefer the far end of their range. If no square allows a strike, it
      **closes in**: the square nearest (walking around the ruins) to the nearest target, the danger
      only breaking ties. A character that waits out of reach for the others to come lets the game
      stall to the cap (T28: 42-63% of games did with the first version of this heuristic); the one
      exception (``patient``) is to stand off, weighing the danger, while two other characters can
      strike each other next turn, and let them fight. A +Health card is played first when the
      missing HP covers it.
    * **Action step.** An ability is used as soon as it has a target (a card kept is lost to the next
      draw, T12): Trap, Double Hit, Health Steal, Fire on a target not burning, Seduction while at
      least three characters are left (the seduced one then has someone other than Rob to attack, T20);
      Jamie copies the most valuable of these within reach (T22). Otherwise the weakest target in range
      is attacked.
    * **Post-roll step.** A +Damage card is always added (T11); Critical (T17, T37) on a roll of 3 or
      more, when the colour die is black (the card would be lost to the draw, T12), or when it turns the
      hit into a kill; a +Health card when black or when the missing HP covers it.
    * **Seduced characters** under my control (T20) strike the weakest target they can reach (never me)
      and close in with no thought for their own safety.

    Ties are broken uniformly at random with the policy's own generator.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        danger_weight: weight of the expected damage a square is exposed to.
        charge: close in when no strike is possible (``False``: always stand off out of reach, weighing
            the danger: the waiting player of the T28 measurements in the env docstring).
        patient: stand off while two other characters can strike each other (``False``: always close in).
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        danger_weight: float = 1.0,
        charge: bool = True,
        patient: bool = True,
    ) -> None:
        super().__init__(seed)
        self.danger_weight = float(danger_weight)
        self.charge = bool(charge)
        self.patient = bool(patient)

    # -- helpers ----------------------------------------------------------------------------------
    def act(self, state: State) -> int:
        """A legal action for the deciding seat (see the class docstring)."""
        if not isinstance(state, LostCityState):
            raise TypeError(f"LostCityHeuristic plays lost_city_v0 states, got {type(state).__name__}")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase == P_PICK:
            return self._pick(state, legal)
        a = state.to_move
        free = state.ctrl[a] < 0
        held = state.held[a]
        k = state.char[a]
        missing = ch.MAX_HP[k] - state.hp[a]
        if state.phase == P_MOVE:
            if PLAY_HEALTH in legal and missing >= cards.HEALTH_VALUE[held]:
                return PLAY_HEALTH
            return self._move(state, [x for x in legal if x < ATTACK], free)
        if state.phase == P_ACTION:
            if PLAY_HEALTH in legal and missing >= cards.HEALTH_VALUE[held]:
                return PLAY_HEALTH
            return self._action(state, legal)
        if state.phase == P_COPY:
            return self._ability_target(state, state.copy, legal)
        return self._postroll(state, legal, missing)

    # -- draft ------------------------------------------------------------------------------------
    def _pick(self, state: LostCityState, legal: list[int]) -> int:
        strength = CHARACTER_STRENGTH[state.n]
        return self.pick_best([(strength[x - PICK], x) for x in legal])

    # -- move step --------------------------------------------------------------------------------
    def _move(self, state: LostCityState, moves: list[int], free: bool) -> int:
        a = state.to_move
        enemies = targets_of(state)
        if not enemies:
            return self.pick_best([(0.0, x) for x in moves])
        squares = [(state.move_destination(x), x) for x in moves]
        cells = state.geo.size * state.geo.size
        exposed = danger(state, a, state.current_player()) if free else [0.0] * cells
        weight = self.danger_weight
        charge = not free or (self.charge and not (self.patient and self._others_fighting(state, a)))
        if state.round > 1:
            strikes = [(strike_value(state, a, d, enemies), d, x) for d, x in squares]
            if any(value > 0.0 for value, _, _ in strikes):
                scored = [(value - weight * exposed[d], x) for value, d, x in strikes if value > 0.0]
                if charge:
                    return self.pick_best(scored)
                scored += [(-weight * exposed[d], x) for value, d, x in strikes if value <= 0.0]
                return self.pick_best(scored)
        walk = reach_tables(state.geo).walk
        pos = state.pos
        # Close in: the square nearest the nearest target (walking around the ruins).
        scored = []
        for d, x in squares:
            near = min(walk[d * cells + pos[t]] for t in enemies)
            if charge:
                score = -100.0 * near - 0.01 * weight * exposed[d]
            else:
                score = -near - weight * exposed[d]
            scored.append((score, x))
        return self.pick_best(scored)

    @staticmethod
    def _others_fighting(state: LostCityState, a: int) -> bool:
        """True when two characters other than ``a`` can strike each other next turn (move, then range)."""
        tables = reach_tables(state.geo)
        others = [p for p in range(state.n) if p != a and state.hp[p] > 0]
        pos = state.pos
        for e in others:
            k = state.char[e]
            mask = tables.cover(pos[e], ch.MOVE[k], ch.RANGE[k])
            for f in others:
                if f != e and (mask >> pos[f]) & 1:
                    return True
        return False

    # -- action step ------------------------------------------------------------------------------
    def _action(self, state: LostCityState, legal: list[int]) -> int:
        a = state.to_move
        copies = [x for x in legal if COPY <= x < CRITICAL]
        if copies:
            best = None
            for x in copies:
                ability = x - COPY
                if self._worth(state, ability):
                    value = ABILITY_VALUE[ability]
                    if best is None or value > best[0]:
                        best = (value, x)
            if best is not None:
                return best[1]
        abilities = [x for x in legal if ABILITY <= x < COPY]
        if abilities and self._worth(state, state.char[a]):
            return self._ability_target(state, state.char[a], abilities)
        attacks = [x for x in legal if ATTACK <= x < ABILITY]
        if attacks:
            scored = [(weakness(state, state.seat_at_offset(x - ATTACK + 1), 60.0), x) for x in attacks]
            return self.pick_best(scored)
        return END

    def _worth(self, state: LostCityState, ability: int) -> bool:
        """Whether to use ``ability`` now (see the class docstring)."""
        a = state.to_move
        actions = state.ability_actions(a, ability)
        if not actions:
            return False
        if ability == ch.FIRE:
            return any(state.burn[self._targets(state, x)[0]] == 0 for x in actions)
        if ability == ch.SEDUCTION:
            # With someone else left to attack, the seduced character's two turns are mine (T20).
            return sum(1 for q in range(state.n) if state.hp[q] > 0) >= 3
        return True

    @staticmethod
    def _targets(state: LostCityState, action: int) -> list[int]:
        if action < PAIR:
            return [state.seat_at_offset(action - ABILITY + 1)]
        o1, o2 = PAIRS[action - PAIR]
        return [state.seat_at_offset(o1), state.seat_at_offset(o2)]

    def _ability_target(self, state: LostCityState, ability: int, legal: list[int]) -> int:
        scored = []
        for x in legal:
            targets = self._targets(state, x)
            if ability == ch.DOUBLE_HIT:
                each = ch.DOUBLE_HIT_EACH if len(targets) == 2 else ch.DOUBLE_HIT_SINGLE
                score = sum(weakness(state, t, each) for t in targets)
            elif ability == ch.FIRE:
                t = targets[0]
                score = weakness(state, t, 0.0) - 3.0 * state.burn[t]
            elif ability == ch.SEDUCTION:
                t = targets[0]
                score = state.hp[t] / ch.HP_SCALE  # take over the strongest
            else:
                damage = ch.TRAP_DAMAGE if ability == ch.TRAP else ch.STEAL
                score = weakness(state, targets[0], damage)
            scored.append((score, x))
        return self.pick_best(scored)

    # -- post-roll step ---------------------------------------------------------------------------
    def _postroll(self, state: LostCityState, legal: list[int], missing: int) -> int:
        if PLAY_DAMAGE in legal:
            return PLAY_DAMAGE
        damage = state.roll * 10 + state.bonus
        target_hp = state.hp[state.target]
        if CRITICAL in legal:
            kill = damage < target_hp <= 2 * state.roll * 10 + state.bonus
            if state.black or kill or state.roll >= 3:
                return CRITICAL
        if PLAY_HEALTH in legal and (state.black or missing >= cards.HEALTH_VALUE[state.held[state.to_move]]):
            return PLAY_HEALTH
        return END

    def __repr__(self) -> str:
        return (
            f"LostCityHeuristic(danger_weight={self.danger_weight}, charge={self.charge}, "
            f"patient={self.patient})"
        )


# -- leaf value for search ------------------------------------------------------------------------
def progress(state: State) -> list[float]:
    """Every player's HP over its character's starting HP (T26), for search leaves; during the setup
    (the draft, T2), when every HP is full, :func:`draft_strength` instead."""
    if not isinstance(state, LostCityState):
        raise TypeError(f"progress() measures lost_city_v0 states, got {type(state).__name__}")
    if state.phase < P_MOVE:
        return draft_strength(state)
    return [state.hp[p] / ch.MAX_HP[state.char[p]] for p in range(state.n)]


def draft_strength(state: LostCityState) -> list[float]:
    """Every seat's measured character strength (:data:`CHARACTER_STRENGTH`) once the setup is over:
    seats still without a character are given the strongest ones left, in turn order from the seat to
    pick (T2: as the heuristic would pick), or in seat order while characters are drawn (T31)."""
    strength = CHARACTER_STRENGTH[state.n]
    left = sorted(state.characters_left(), key=lambda k: -strength[k])
    start = state.to_move if state.phase == P_PICK else 0
    out = [0.0] * state.n
    for i in range(state.n):
        p = (start + i) % state.n
        k = state.char[p]
        if k < 0:
            k = left.pop(0)
        out[p] = strength[k]
    return out


# -- the record -----------------------------------------------------------------------------------
#: Everything the agents know about Star of the Lost City, published under the entry-point group
#: ``boardenvs_agents.games`` (pyproject.toml). The champion: the shipped PPO model alone, since every
#: search over it measured took from it with four players (Gumbel MCTS at 16 and 64 simulations,
#: paired rollouts; docs/learning.md, "The champion on a simulation budget"), else the heuristic where
#: no model ships for the options asked (rollouts of the heuristic itself did not beat it: 0.51 of
#: 100 two-player games).
RECORD = GameRecord(
    game="lost_city_v0",
    heuristic=LostCityHeuristic,
    progress=progress,
    kind=lost_city_figures.decision_kind,
    events=lost_city_figures.count_events,
    balance=lost_city_figures.BALANCE,
    champion=("ppo:lost_city_v0", "heuristic"),
)
