"""Action features of ``neighborhood_v0`` (encoding option ``action_features``): where each choice of a
card's move can land, and what each choice does to everyone's HP before the next chance event.

Most decisions of a game are the steps of curved paths (L24: Shortcut, Flee, Berries; about 86 of
the 121 decisions of a four-player game between heuristic players), and a step matters only through
the squares the path can still end on: a character there (an encounter, L14-L15), an empty Wild Space
(a Wild card of that location, L13/L30), a trap (L33), or a quiet square. The observation shows the
board as one-hot squares, so a network would have to learn king-step geometry to see that; these
features spell it out per action, from :meth:`NeighborhoodState.move_ends` (the rules' own path
search). The other choices (a player, an option, Killer or Wild, a direction, a distance) are
described by their afterstate (:func:`choice_action_features`): the action applied to a copy of the
state, which the rules resolve up to the next chance event or decision, and the HP that moved. Both
blocks are appended to the deciding player's observation when the option ``action_features`` is on. No
chance outcome is looked at: what a card draw brings is left to the deck counts of the observation.
"""

from __future__ import annotations

import numpy as np

from boardenvs.neighborhood.rules import DIR, DIST, MAX_HP, NUM_ACTIONS, STOP, NeighborhoodState

#: The move actions with features, in block order: the eight directions, the four distances, stop.
MOVE_ACTIONS: tuple[int, ...] = (*range(DIR, DIR + 8), *range(DIST, DIST + 4), STOP)
#: Features per move action (see :func:`move_action_features`).
MOVE_FEATURES = 12
_ROW = {a: i for i, a in enumerate(MOVE_ACTIONS)}
#: The actions with afterstate features: every action but a square (directions to stop, 225-246).
CHOICE_ACTIONS: tuple[int, ...] = tuple(range(DIR, NUM_ACTIONS))
#: Features per choice action (see :func:`choice_action_features`).
CHOICE_FEATURES = 7


def move_action_features(state: NeighborhoodState) -> np.ndarray:
    """``(13, 12)`` float32: for each legal move action (rows in :data:`MOVE_ACTIONS` order) of the
    deciding player, the squares the move can still end on. Zero rows for the other actions, at the
    other decisions, and for an action that moves no one.

    Columns: 0 the character moved is the decider; 1 an end holds another character (an encounter);
    2 and 3 the highest and lowest HP / 10 among those characters; 4-7 an end is an empty Wild Space of
    location 0-3 (Mountains, Village, City, Forest); 8 an end is quiet (no character, no Wild Space,
    no trap of another player); 9 an end holds a trap set by another player; 10 the number of ends / 10;
    11 the landing triggers cards (L19).
    """
    out = np.zeros((len(MOVE_ACTIONS), MOVE_FEATURES), dtype=np.float32)
    me = state.current_player()
    if me < 0:
        return out
    seen: dict[int, tuple[dict[int, list[int]], set[int]]] = {}  # by mover: the others' squares, traps
    for action in state.legal_actions():
        row = _ROW.get(action)
        if row is None:
            continue
        mover, ends, triggers = state.move_ends(action)
        if mover < 0:
            continue
        if mover not in seen:
            occupants: dict[int, list[int]] = {}
            for q in range(state.n):
                if q != mover and state.alive[q]:
                    occupants.setdefault(state.pos[q], []).append(state.hp[q])
            traps = zip(state.trap_cell, state.trap_owner, strict=True)
            seen[mover] = occupants, {c for c, owner in traps if c >= 0 and owner != mover}
        occupants, trapped = seen[mover]
        feats = out[row]
        feats[0] = float(mover == me)
        feats[10] = min(len(ends), 10) / 10.0
        feats[11] = float(triggers)
        hps: list[int] = []
        for cell in ends:
            if cell in trapped:
                feats[9] = 1.0
            here = occupants.get(cell)
            if here:
                hps += here
                continue
            location = state.wild_location(cell)
            if location >= 0:
                feats[4 + location] = 1.0
            elif cell not in trapped:
                feats[8] = 1.0
        if hps:
            feats[1] = 1.0
            feats[2] = max(hps) / MAX_HP
            feats[3] = min(hps) / MAX_HP
    return out


def choice_action_features(state: NeighborhoodState) -> np.ndarray:
    """``(22, 7)`` float32 in [0, 1]: for each legal action of the deciding player from 225 on (rows
    in :data:`CHOICE_ACTIONS` order), the HP it moves before the next chance event or decision: the
    action is applied to a copy of ``state``, whose rules resolve everything that follows without a
    draw or a roll (a known next card, L25, included). Zero rows for the other actions.

    Columns (HP / 10; an out player counts 0 HP): 0 and 1 the HP the decider loses and gains; 2 and 3
    the mean HP the opponents lose and gain; 4 the HP lost by the opponent with the most HP (the first
    in seat order on a tie); 5 opponents knocked out / 4; 6 the decider is knocked out.
    """
    out = np.zeros((len(CHOICE_ACTIONS), CHOICE_FEATURES), dtype=np.float32)
    me = state.current_player()
    if me < 0:
        return out
    n = state.n
    before = [state.hp[q] if state.alive[q] else 0 for q in range(n)]
    opponents = [q for q in range(n) if q != me]
    leader = max(opponents, key=lambda q: before[q])
    scale = 1.0 / (len(opponents) * MAX_HP)
    for action in state.legal_actions():
        if action < DIR:
            continue
        child = state.clone()
        child.apply_action(action)
        change = [(child.hp[q] if child.alive[q] else 0) - before[q] for q in range(n)]
        feats = out[action - DIR]
        feats[0] = max(0, -change[me]) / MAX_HP
        feats[1] = max(0, change[me]) / MAX_HP
        feats[2] = sum(max(0, -change[q]) for q in opponents) * scale
        feats[3] = sum(max(0, change[q]) for q in opponents) * scale
        feats[4] = max(0, -change[leader]) / MAX_HP
        feats[5] = sum(1 for q in opponents if state.alive[q] and not child.alive[q]) / 4.0
        feats[6] = float(state.alive[me] and not child.alive[me])
    return out


__all__ = [
    "CHOICE_ACTIONS",
    "CHOICE_FEATURES",
    "MOVE_ACTIONS",
    "MOVE_FEATURES",
    "choice_action_features",
    "move_action_features",
]
