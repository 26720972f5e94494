"""A hand-written Star of the Lost City player for ``lost_city_v0``: rules of thumb per step of a turn.

Rule ids (T1-T40) refer to ``shared/rules/lost_city.md`` and :mod:`boardenvs.lost_city.env`.
"""

from __future__ import annotations

from boardenvs.core.state import State
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import MOVE_OFFSETS
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    COPY,
    CRITICAL,
    END,
    P_ACTION,
    P_COPY,
    P_MOVE,
    PAIR,
    PAIRS,
    PLAY_DAMAGE,
    PLAY_HEALTH,
    LostCityState,
)
from boardenvs_agents.base import Policy

#: Expected damage of a basic attack: P(hit) 1/2 times the mean roll 3.5 x 10 (4.1 Attack).
BASIC_EXPECTED = 17.5
#: Jamie's order of preference among the abilities he can copy (T22): sure damage first.
COPY_PREFERENCE = (ch.TRAP, ch.DOUBLE_HIT, ch.HEALTH_STEAL, ch.FIRE, ch.SEDUCTION)


class LostCityHeuristic(Policy):
    """Fights sensibly: focus the weakest target in range, keep ranged characters at range, spend cards
    and abilities when they pay.

    * **Move step.** Each reachable square is scored from the acting character's point of view:
      ``attack_weight * best target there - danger_weight * threat there - approach_weight * distance to
      the nearest target``. A target is worth more the weaker it is (low HP, a kill within one basic
      attack's reach). The threat of a square is the expected damage of the enemies that can move and
      strike it next turn (move allowance + range, T4, T5); ranged characters (Jack, Jamie, Josh) weigh
      it fully, so they stand off at range 2-3 from melee enemies when they can still shoot; melee
      characters weigh it at ``melee_danger`` (a fifth): they close in to strike, but do not walk into
      a shooter's reach just to get nearer (against random players, letting them come measured
      better than charging). A +Health card is played first when the missing HP covers it.
    * **Action step.** An ability whose sure effect beats a basic attack's expected 17.5 is used:
      Trap (40 and a lost turn), Double Hit (2 x 25, or 40), Health Steal (50, healing Safina), Fire on
      a target not burning (60 over three turns); Jamie copies the best of these (T22). Seduction is
      used when the seduced character would stand next to someone other than Rob to attack (T20).
      Otherwise the weakest target in range is attacked; with nobody in range the turn ends.
    * **Post-roll step.** A +Damage card is always added (T11); Critical (T17, T37) when the colour die
      is black (the card would be lost to the draw, T12), when the roll is 4 or more, or when it turns a
      non-lethal hit into a kill (Jamie only in the first and last case); a +Health card is played when
      black or when the missing HP covers it.
    * **Seduced characters** under my control (T20) attack the weakest target they can reach and move
      with no thought for their own safety.

    Ties are broken uniformly at random with the policy's own generator.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        attack_weight: weight of the best target reachable from a square.
        danger_weight: weight of the expected damage the square is exposed to.
        approach_weight: weight of the distance to the nearest target (to close in on fights).
        melee_danger: the fraction of ``danger_weight`` melee characters use.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        attack_weight: float = 40.0,
        danger_weight: float = 1.0,
        approach_weight: float = 1.0,
        melee_danger: float = 0.2,
    ) -> None:
        super().__init__(seed)
        self.attack_weight = float(attack_weight)
        self.danger_weight = float(danger_weight)
        self.approach_weight = float(approach_weight)
        self.melee_danger = float(melee_danger)

    # -- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _weakness(state: LostCityState, t: int, damage: float) -> float:
        """Value of hitting seat ``t`` for ``damage``: more for low HP, most for a kill."""
        hp = state.hp[t]
        value = 1.0 + (1.0 - hp / ch.HP_SCALE)
        if hp <= damage:
            value += 2.0
        return value

    def act(self, state: State) -> int:
        """A legal action for the deciding seat (see the class docstring)."""
        if not isinstance(state, LostCityState):
            raise TypeError(f"LostCityHeuristic plays lost_city_v0 states, got {type(state).__name__}")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
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

    # -- move step --------------------------------------------------------------------------------
    def _move(self, state: LostCityState, moves: list[int], free: bool) -> int:
        a = state.to_move
        k = state.char[a]
        geo = state.geo
        cells = geo.size * geo.size
        dist = geo.dist
        decider = state.current_player()
        enemies = [
            t
            for t in range(state.n)
            if t != a and t != decider and state.hp[t] > 0 and state.shield_by[t] != a
        ]
        threats = [t for t in range(state.n) if t != a and state.hp[t] > 0 and state.ctrl[t] != decider]
        reach = ch.RANGE[k]
        if free and state.held[a] == cards.SPECIAL and k not in (ch.AARON, ch.JAMIE, ch.ROB):
            reach = max(reach, ch.ABILITY_RANGE[k])
        danger_weight = 0.0 if not free else self.danger_weight * (1.0 if ch.RANGED[k] else self.melee_danger)
        scored = []
        start = state.pos[a]
        for action in moves:
            dr, dc = MOVE_OFFSETS[action]
            d = start + dr * geo.size + dc
            row = d * cells
            best = 0.0
            nearest = 99
            for t in enemies:
                gap = dist[row + state.pos[t]]
                nearest = min(nearest, gap)
                if gap <= reach:
                    value = self._weakness(state, t, 60.0)
                    if ch.RANGED[k]:
                        value += 0.05 * gap  # stand off at range
                    best = max(best, value)
            danger = 0.0
            for t in threats:
                e = state.char[t]
                if dist[row + state.pos[t]] <= ch.MOVE[e] + ch.RANGE[e]:
                    danger += BASIC_EXPECTED
            score = self.attack_weight * best - danger_weight * danger - self.approach_weight * nearest
            scored.append((score, action))
        return self.pick_best(scored)

    # -- action step ------------------------------------------------------------------------------
    def _action(self, state: LostCityState, legal: list[int]) -> int:
        a = state.to_move
        copies = [x for x in legal if COPY <= x < CRITICAL]
        if copies:
            for ability in COPY_PREFERENCE:
                if COPY + ability in copies and self._worth(state, ability):
                    return COPY + ability
        abilities = [x for x in legal if ABILITY <= x < COPY]
        if abilities and self._worth(state, state.char[a]):
            return self._ability_target(state, state.char[a], abilities)
        attacks = [x for x in legal if ATTACK <= x < ABILITY]
        if attacks:
            scored = [(self._weakness(state, state.seat_at_offset(x - ATTACK + 1), 60.0), x) for x in attacks]
            return self.pick_best(scored)
        return END

    def _worth(self, state: LostCityState, ability: int) -> bool:
        """Whether using ``ability`` now beats a basic attack (see the class docstring)."""
        a = state.to_move
        actions = state.ability_actions(a, ability)
        if not actions:
            return False
        if ability == ch.FIRE:
            return any(state.burn[self._targets(state, x)[0]] == 0 for x in actions)
        if ability == ch.SEDUCTION:
            # Worth it when the seduced character has someone other than me next to it to attack.
            for x in actions:
                t = self._targets(state, x)[0]
                for q in range(state.n):
                    if (
                        q not in (a, t)
                        and state.hp[q] > 0
                        and state.distance(t, q) <= ch.MOVE[state.char[t]] + 1
                    ):
                        return True
            return False
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
                score = sum(self._weakness(state, t, each) for t in targets)
            elif ability == ch.FIRE:
                t = targets[0]
                score = self._weakness(state, t, 0.0) - 3.0 * state.burn[t]
            elif ability == ch.SEDUCTION:
                t = targets[0]
                score = state.hp[t] / ch.HP_SCALE  # take over the strongest
            else:
                damage = ch.TRAP_DAMAGE if ability == ch.TRAP else ch.STEAL
                score = self._weakness(state, targets[0], damage)
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
            own = state.char[state.to_move] == ch.AARON
            if state.black or kill or (own and state.roll >= 4):
                return CRITICAL
        if PLAY_HEALTH in legal and (state.black or missing >= cards.HEALTH_VALUE[state.held[state.to_move]]):
            return PLAY_HEALTH
        return END

    def __repr__(self) -> str:
        return (
            f"LostCityHeuristic(attack_weight={self.attack_weight}, danger_weight={self.danger_weight}, "
            f"approach_weight={self.approach_weight}, melee_danger={self.melee_danger})"
        )


# -- leaf value for search ------------------------------------------------------------------------
def progress(state: State) -> list[float]:
    """Every player's HP over its character's starting HP (T26), for search leaves."""
    from boardenvs.lost_city.characters import MAX_HP

    if len(state.char) < state.n:
        return [1.0] * state.n  # characters not drawn yet
    return [state.hp[p] / MAX_HP[state.char[p]] for p in range(state.n)]
