"""What each move of the acting character leads to, as the hand-written heuristic measures it: the
strike it allows from the square it ends on, the damage that square is exposed to next turn, and how
far it is from the nearest target. The heuristic (``boardenvs_agents.games.lost_city``) takes these
tables and measures from here, and ``lost_city_v0`` appends the move features to the deciding
player's observation with the option ``action_features=True``.

Everything in Lost City is public but the deck order (4.3), so the features read nothing a player may
not know. Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and :mod:`boardenvs.lost_city.env`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import MOVE_OFFSETS, Geometry
from boardenvs.lost_city.rules import MOVE, P_MOVE, LostCityState

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
#: Move actions (0-24, T5), one row of features each.
NUM_MOVES = len(MOVE_OFFSETS)
#: Numbers per move: strike value / ``STRIKE_SCALE``, danger / ``DANGER_SCALE``, walking steps to the
#: nearest target / ``WALK_SCALE`` (each capped at 1).
MOVE_FEATURES = 3
STRIKE_SCALE = 200.0
DANGER_SCALE = 100.0
WALK_SCALE = 20.0
#: Walking steps between squares no walk joins (around the ruins, T5).
UNREACHABLE = 99


class ReachTables:
    """Board tables, once per board: walking distances around the ruins (T5) and the squares a
    character can strike next turn from each square (move allowance, then range, T4)."""

    def __init__(self, geo: Geometry) -> None:
        size = geo.size
        cells = size * size
        self.cells = cells
        walk = [UNREACHABLE] * (cells * cells)
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
        #: King steps from one square to another around the ruins (``UNREACHABLE``: no walk).
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
def reach_tables(geo: Geometry) -> ReachTables:
    """The :class:`ReachTables` of a board (cached)."""
    return ReachTables(geo)


def weakness(state: LostCityState, t: int, damage: float) -> float:
    """Value of hitting seat ``t`` for ``damage``: more for fewer hits left to kill it, most for a kill.
    Hits of the mean damage 35 are counted, so that 250 and 260 HP weigh the same (a Safina at full HP
    is not spared for her 10 extra HP)."""
    hp = state.hp[t]
    hits = -(-hp // HIT_MEAN)
    value = 1.0 + (1.0 - hits * HIT_MEAN / ch.HP_SCALE)
    if hp <= damage:
        value += 2.0
    return value


def ability_value(state: LostCityState, a: int, row: int, enemies: list[int], slack: int) -> float:
    """The weighted value of the best ability ``a`` (holding a Special Ability card) can use from the
    square of distance row ``row``, with every range stretched by ``slack`` squares (T20-T25; Jamie:
    an ability of a living character within 3 he can copy, T22)."""
    dist = state.geo.dist
    pos = state.pos
    k = state.char[a]
    if k == ch.JAMIE:
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
        best = max(best, value * max(weakness(state, t, 40.0) for t in in_range))
    return best


def strike_value(state: LostCityState, a: int, square: int, enemies: list[int]) -> float:
    """The best expected damage (weighted by :func:`weakness`) ``a`` can deal from ``square``: a basic
    attack this turn (T4; ranged characters value the far end of their range), or the ability its
    Special Ability card allows there this turn (full value) or after one more move (half value: a card
    kept is lost to the next draw, T12)."""
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
            value = BASIC_EXPECTED * weakness(state, t, 60.0)
            if ch.RANGED[k]:
                value += 0.5 * gap  # keep to the far end of the range
            best = max(best, value)
    if state.ctrl[a] >= 0 or state.held[a] != cards.SPECIAL or k == ch.AARON:
        return best
    now = ability_value(state, a, row, enemies, 0)
    later = 0.5 * ability_value(state, a, row, enemies, ch.MOVE[k]) if now == 0.0 else 0.0
    return max(best, now, later)


def danger(state: LostCityState, a: int, decider: int) -> list[float]:
    """Per square, the expected damage ``a`` would be exposed to there next turn: every enemy that can
    walk, around the ruins, within its range of the square (T4, T5), sharing its expected attack among
    the characters it can reach; one holding a Special Ability card reaches its ability's range and
    counts a second attack."""
    tables = reach_tables(state.geo)
    cells = tables.cells
    out = [0.0] * cells
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
        mask = tables.cover(pos[t], ch.MOVE[e], reach)
        others = sum(1 for q in living if q not in (t, a) and (mask >> pos[q]) & 1)
        share = expected / (1 + others)
        for c in range(cells):
            if (mask >> c) & 1:
                out[c] += share
    return out


def targets_of(state: LostCityState) -> list[int]:
    """The seats the acting character may strike at any distance (T4, T20: the rules' own list)."""
    return state.valid_targets(state.to_move, None)


def move_action_features(state: LostCityState) -> np.ndarray:
    """``(NUM_MOVES, MOVE_FEATURES)`` during the move step (zeros otherwise and for moves that are not
    legal): from the square each move ends on, the best strike value (:func:`strike_value`; none in
    round 1, T7), the damage it is exposed to next turn (:func:`danger`; none for a seduced character,
    whose safety is not its controller's concern, T20), and the walking steps to the nearest target."""
    out = np.zeros((NUM_MOVES, MOVE_FEATURES), dtype=np.float32)
    if state.phase != P_MOVE:
        return out
    moves = [x for x in state.legal_actions() if MOVE <= x < MOVE + NUM_MOVES]
    enemies = targets_of(state)
    if not moves or not enemies:
        return out
    a = state.to_move
    free = state.ctrl[a] < 0
    exposed = danger(state, a, state.current_player()) if free else None
    walk = reach_tables(state.geo).walk
    cells = state.geo.size * state.geo.size
    pos = state.pos
    for action in moves:
        square, row = state.move_destination(action), action - MOVE
        if state.round > 1:
            out[row, 0] = min(strike_value(state, a, square, enemies) / STRIKE_SCALE, 1.0)
        if exposed is not None:
            out[row, 1] = min(exposed[square] / DANGER_SCALE, 1.0)
        near = min(walk[square * cells + pos[t]] for t in enemies)
        out[row, 2] = min(near / WALK_SCALE, 1.0)
    return out


__all__ = [
    "ABILITY_VALUE",
    "BASIC_EXPECTED",
    "HIT_MEAN",
    "MOVE_FEATURES",
    "NUM_MOVES",
    "ReachTables",
    "ability_value",
    "danger",
    "move_action_features",
    "reach_tables",
    "strike_value",
    "targets_of",
    "weakness",
]
