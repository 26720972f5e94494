"""A hand-written Star of the Lost City player for ``lost_city_v0``: a draft pick, then rules of thumb per
step of a turn.

Rule ids (T1-T40) refer to ``shared/rules/lost_city.md`` and :mod:`boardenvs.lost_city.env`.
"""

from __future__ import annotations

from functools import lru_cache

from boardenvs.core.state import State
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import MOVE_OFFSETS, Geometry
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

#: Expected damage of a basic attack: P(hit) 1/2 times the mean roll 3.5 x 10 (4.1 Attack).
BASIC_EXPECTED = 17.5
#: The mean damage of a hit (4.1 Attack: 10 x d6).
HIT_MEAN = 35
#: Sure damage of each targeted ability (T20-T25), in HP, as the heuristic values it: Seduction turns
#: two of the target's attacks away from me onto others (T20); Health Steal also heals Safina (T25);
#: Fire burns 3 x 20 (T21); Trap adds a lost turn (about one basic attack, T24); Double Hit is 2 x 25
#: or 40 (T23).
ABILITY_VALUE = {
    ch.SEDUCTION: 2 * BASIC_EXPECTED,
    ch.HEALTH_STEAL: 2.0 * ch.STEAL,
    ch.FIRE: ch.FIRE_TURNS * ch.FIRE_DAMAGE,
    ch.DOUBLE_HIT: 2 * ch.DOUBLE_HIT_EACH,
    ch.TRAP: ch.TRAP_DAMAGE + BASIC_EXPECTED,
}
#: Win rate of each character (Rob .. Chris) by player count, measured with this heuristic in every seat
#: and the characters drawn at random (``characters="random"``, the defaults otherwise, 2,000 games per
#: player count, see the env docstring): the draft picks the strongest character still free (T2).
CHARACTER_STRENGTH: dict[int, tuple[float, ...]] = {
    2: (0.513, 0.559, 0.628, 0.410, 0.413, 0.428, 0.556),
    3: (0.325, 0.287, 0.334, 0.392, 0.388, 0.367, 0.235),
    4: (0.248, 0.214, 0.305, 0.269, 0.252, 0.243, 0.219),
    5: (0.216, 0.206, 0.241, 0.170, 0.176, 0.178, 0.215),
    6: (0.190, 0.168, 0.245, 0.121, 0.140, 0.141, 0.162),
    7: (0.166, 0.153, 0.215, 0.103, 0.105, 0.103, 0.153),
}


class _Maps:
    """Board tables the heuristic needs, once per board: walking distances around the ruins (T5) and the
    squares a character can strike next turn from each square (move allowance, then range, T4)."""

    def __init__(self, geo: Geometry) -> None:
        size = geo.size
        cells = size * size
        self.cells = cells
        walk = [99] * (cells * cells)
        for start in range(cells):
            if geo.ruin[start]:
                continue
            row = start * cells
            walk[row + start] = 0
            frontier = [start]
            steps = 0
            while frontier:
                steps += 1
                nxt = []
                for c in frontier:
                    for _, d in geo.step1[c]:
                        if walk[row + d] > steps:
                            walk[row + d] = steps
                            nxt.append(d)
                frontier = nxt
        #: King steps from one square to another around the ruins (99: unreachable).
        self.walk = walk
        balls = {}
        for r in (1, 2, 3):
            balls[r] = [
                sum(1 << b for b in range(cells) if geo.dist[a * cells + b] <= r) for a in range(cells)
            ]
        self._balls = balls
        self._cover: dict[tuple[int, int, int], int] = {}

    def cover(self, cell: int, move: int, reach: int) -> int:
        """Bit mask of the squares a character on ``cell`` can strike next turn (move, then ``reach``)."""
        key = (cell, move, reach)
        mask = self._cover.get(key)
        if mask is None:
            row = cell * self.cells
            ball = self._balls[reach]
            mask = 0
            for d in range(self.cells):
                if self.walk[row + d] <= move:
                    mask |= ball[d]
            self._cover[key] = mask
        return mask


@lru_cache(maxsize=8)
def _maps(geo: Geometry) -> _Maps:
    return _Maps(geo)


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
    @staticmethod
    def _weakness(state: LostCityState, t: int, damage: float) -> float:
        """Value of hitting seat ``t`` for ``damage``: more for fewer hits left to kill it, most for a
        kill. Hits of the mean damage 35 are counted, so that 250 and 260 HP weigh the same (a Safina at
        full HP is not spared for her 10 extra HP)."""
        hp = state.hp[t]
        hits = -(-hp // HIT_MEAN)
        value = 1.0 + (1.0 - hits * HIT_MEAN / ch.HP_SCALE)
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
    def _strike_value(self, state: LostCityState, a: int, square: int, enemies: list[int]) -> float:
        """The best expected damage (weighted by :meth:`_weakness`) ``a`` can deal from ``square``: a
        basic attack this turn, or the ability its Special Ability card allows there this turn (full
        value) or after one more move (half value: a card kept is lost to the next draw, T12)."""
        geo = state.geo
        row = square * geo.size * geo.size
        dist = geo.dist
        pos = state.pos
        k = state.char[a]
        best = 0.0
        reach = ch.RANGE[k]
        for t in enemies:
            gap = dist[row + pos[t]]
            if gap <= reach:
                value = BASIC_EXPECTED * self._weakness(state, t, 60.0)
                if ch.RANGED[k]:
                    value += 0.5 * gap  # keep to the far end of the range
                best = max(best, value)
        if state.ctrl[a] >= 0 or state.held[a] != cards.SPECIAL or k == ch.AARON:
            return best
        now = self._ability_value(state, a, row, enemies, 0)
        later = 0.5 * self._ability_value(state, a, row, enemies, ch.MOVE[k]) if now == 0.0 else 0.0
        return max(best, now, later)

    def _ability_value(self, state: LostCityState, a: int, row: int, enemies: list[int], slack: int) -> float:
        """The weighted value of the best ability ``a`` (holding a Special Ability card) can use from the
        square of distance row ``row``, with every range stretched by ``slack`` squares."""
        dist = state.geo.dist
        pos = state.pos
        k = state.char[a]
        if k == ch.JAMIE:  # T22: an ability of a living character within 3
            owners = {
                state.char[q]
                for q in range(state.n)
                if q != a
                and state.hp[q] > 0
                and state.char[q] in ch.COPYABLE_TARGETED
                and dist[row + pos[q]] <= ch.ABILITY_RANGE[ch.COPYCAT] + slack
            }
        else:
            owners = {k}
        living = sum(1 for q in range(state.n) if state.hp[q] > 0)
        best = 0.0
        for ability in owners:
            if ability == ch.SEDUCTION and living < 3:
                continue
            in_range = [t for t in enemies if dist[row + pos[t]] <= ch.ABILITY_RANGE[ability] + slack]
            if ability == ch.SEDUCTION:
                in_range = [t for t in in_range if state.ctrl[t] < 0 and state.shield_by[t] < 0]
            elif ability == ch.FIRE:
                in_range = [t for t in in_range if state.burn[t] == 0]
            if not in_range:
                continue
            value = ABILITY_VALUE[ability]
            if ability == ch.DOUBLE_HIT and len(in_range) == 1:
                value = ch.DOUBLE_HIT_SINGLE
            best = max(best, value * max(self._weakness(state, t, 40.0) for t in in_range))
        return best

    def _danger(self, state: LostCityState, a: int, decider: int) -> list[float]:
        """Per square, the expected damage ``a`` would be exposed to there next turn."""
        maps = _maps(state.geo)
        cells = maps.cells
        danger = [0.0] * cells
        pos = state.pos
        living = [p for p in range(state.n) if state.hp[p] > 0]
        for t in living:
            if t == a or state.ctrl[t] == decider:
                continue
            e = state.char[t]
            reach = ch.RANGE[e]
            expected = BASIC_EXPECTED
            if state.held[t] == cards.SPECIAL and e not in (ch.AARON, ch.JAMIE):
                reach = max(reach, ch.ABILITY_RANGE[e])
                expected += BASIC_EXPECTED
            mask = maps.cover(pos[t], ch.MOVE[e], reach)
            others = sum(1 for q in living if q not in (t, a) and (mask >> pos[q]) & 1)
            share = expected / (1 + others)
            for c in range(cells):
                if (mask >> c) & 1:
                    danger[c] += share
        return danger

    def _move(self, state: LostCityState, moves: list[int], free: bool) -> int:
        a = state.to_move
        geo = state.geo
        decider = state.current_player()
        enemies = [
            t
            for t in range(state.n)
            if t != a and t != decider and state.hp[t] > 0 and state.shield_by[t] != a
        ]
        if not enemies:
            return self.pick_best([(0.0, x) for x in moves])
        start = state.pos[a]
        squares = []
        for action in moves:
            dr, dc = MOVE_OFFSETS[action]
            squares.append((start + dr * geo.size + dc, action))
        danger = self._danger(state, a, decider) if free else [0.0] * (geo.size * geo.size)
        weight = self.danger_weight
        charge = not free or (self.charge and not (self.patient and self._others_fighting(state, a)))
        if state.round > 1:
            strikes = [(self._strike_value(state, a, d, enemies), d, x) for d, x in squares]
            if any(value > 0.0 for value, _, _ in strikes):
                scored = [(value - weight * danger[d], x) for value, d, x in strikes if value > 0.0]
                if charge:
                    return self.pick_best(scored)
                scored += [(-weight * danger[d], x) for value, d, x in strikes if value <= 0.0]
                return self.pick_best(scored)
        maps = _maps(geo)
        walk = maps.walk
        cells = maps.cells
        pos = state.pos
        # Close in: the square nearest the nearest target (walking around the ruins).
        scored = []
        for d, x in squares:
            near = min(walk[d * cells + pos[t]] for t in enemies)
            if charge:
                score = -100.0 * near - 0.01 * weight * danger[d]
            else:
                score = -near - weight * danger[d]
            scored.append((score, x))
        return self.pick_best(scored)

    @staticmethod
    def _others_fighting(state: LostCityState, a: int) -> bool:
        """True when two characters other than ``a`` can strike each other next turn (move, then range)."""
        maps = _maps(state.geo)
        others = [p for p in range(state.n) if p != a and state.hp[p] > 0]
        pos = state.pos
        for e in others:
            k = state.char[e]
            mask = maps.cover(pos[e], ch.MOVE[k], ch.RANGE[k])
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
            scored = [(self._weakness(state, state.seat_at_offset(x - ATTACK + 1), 60.0), x) for x in attacks]
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
