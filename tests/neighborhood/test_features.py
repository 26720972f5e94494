"""The action features at the end of the deciding player's observation (boardenvs/neighborhood/features.py,
option ``action_features``): where each step of a curved path (L24), each direction and distance of a
straight card move (L8, L31) can land, in scripted positions, and checked against every way the rules
let a move end over random games; and what each choice does to the HP before the next chance event.

Scripted positions are on the first design's 15x15 board (neighborhood_helpers). Directions: N 0, NE 1,
E 2, SE 3, S 4, SW 5, W 6, NW 7. Rule ids refer to ``docs/rules/neighborhood.md`` and
``boardenvs/neighborhood/env.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from env_helpers import decisions

from boardenvs import make_game
from boardenvs.neighborhood import board
from boardenvs.neighborhood.board import MOUNTAINS
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.env import FEATURES_SIZE, OBS_SIZE
from boardenvs.neighborhood.features import (
    CHOICE_ACTIONS,
    CHOICE_FEATURES,
    MOVE_ACTIONS,
    MOVE_FEATURES,
    choice_action_features,
    move_action_features,
)
from boardenvs.neighborhood.rules import (
    D_BRANCH,
    D_DISTANCE,
    D_PATH,
    D_PLAYER,
    DIR,
    DIST,
    KILLER,
    OPTION_A,
    OPTION_B,
    PLAYER,
    STOP,
    WILD,
    NeighborhoodState,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighborhood_helpers import (  # noqa: E402
    FIRST_BOARD,
    FOREST_DECK,
    NE,
    VILLAGE_DECK,
    E,
    N,
    W,
    cell,
    draw_card,
    position,
)

GAME = make_game("neighborhood_v0", action_features=True, **FIRST_BOARD)
ROW = {a: i for i, a in enumerate(MOVE_ACTIONS)}
MINE, ENCOUNTER, MAX_HP, MIN_HP, WILD0, QUIET, TRAP, ENDS, TRIGGERS = 0, 1, 2, 3, 4, 8, 9, 10, 11
MOVE_SIZE = len(MOVE_ACTIONS) * MOVE_FEATURES


def features(state: NeighborhoodState, player: int, game=GAME) -> np.ndarray:
    """The move features of ``player``'s observation, one row per move action."""
    return game.observe(state, player)[OBS_SIZE : OBS_SIZE + MOVE_SIZE].reshape(
        len(MOVE_ACTIONS), MOVE_FEATURES
    )


def choices(state: NeighborhoodState, player: int) -> np.ndarray:
    """The afterstate features of ``player``'s observation, one row per action from 225 on."""
    return GAME.observe(state, player)[OBS_SIZE + MOVE_SIZE :].reshape(len(CHOICE_ACTIONS), CHOICE_FEATURES)


def killer(s: NeighborhoodState, name: str, k: int, v: int) -> NeighborhoodState:
    """Make Killer ``k`` draw Killer card ``name`` against Victim ``v``."""
    return draw_card(s, KILLER_DECK, name, me=k, k=k, v=v)


def test_option_lengthens_the_observation_and_is_an_encoding_option():
    assert make_game("neighborhood_v0").observation_shape(0) == (OBS_SIZE,)
    assert GAME.observation_shape(0) == (OBS_SIZE + FEATURES_SIZE,) == (2141,)
    assert FEATURES_SIZE == MOVE_SIZE + len(CHOICE_ACTIONS) * CHOICE_FEATURES
    assert type(GAME.options).ENCODING_OPTIONS == ("action_features",)


def test_shortcut_steps_say_which_ends_hold_a_character():
    # Shortcut (Wild, "up to 4", L24) from (7, 0); Light Blue (8 HP) on (7, 4), four king-steps east.
    s = draw_card(position(pos={0: (7, 0), 1: (7, 4)}, hp={1: 8}), VILLAGE_DECK, "Shortcut", me=0)
    assert s.decision_kind() == D_PATH and s.current_player() == 0
    f = features(s, 0)
    assert np.array_equal(f, move_action_features(s))
    # A first step east leaves 3 steps to (7, 4); a first step north leaves (6, 0) four away.
    east, north = f[ROW[DIR + E]], f[ROW[DIR + N]]
    assert east[ENCOUNTER] == 1.0 and east[MAX_HP] == east[MIN_HP] == pytest.approx(0.8)
    assert north[ENCOUNTER] == 0.0 and north[MAX_HP] == 0.0
    assert east[MINE] == north[MINE] == east[TRIGGERS] == 1.0
    mover, ends, triggers = s.move_ends(DIR + E)
    assert mover == 0 and triggers and cell(7, 4) in ends and cell(7, 0) not in ends
    assert cell(7, 1) in ends  # "up to": the path may stop after its first step
    # West is off the board: not legal, a zero row; STOP is not legal before the first step.
    assert DIR + W not in s.legal_actions() and not f[ROW[DIR + W]].any() and not f[ROW[STOP]].any()


def test_stop_ends_the_path_where_it_stands_and_wild_spaces_are_by_location():
    # Up to 4 from (3, 1) in the Mountains, whose Wild Spaces include (3, 2) (L3, first design).
    start = draw_card(position(pos={0: (3, 1)}), VILLAGE_DECK, "Shortcut", me=0)
    s = start.clone()
    s.apply_action(DIR + E)
    assert s.move_ends(STOP) == (0, (cell(3, 2),), True)
    stop = features(s, 0)[ROW[STOP]]
    assert stop[WILD0 + MOUNTAINS] == 1.0 and stop[QUIET] == 0.0 and stop[ENDS] == pytest.approx(0.1)
    s = start.clone()
    s.apply_action(DIR + N)  # (2, 1): no Wild Space, nobody there
    stop = features(s, 0)[ROW[STOP]]
    assert stop[QUIET] == 1.0 and not stop[WILD0 : WILD0 + 4].any() and stop[ENCOUNTER] == 0.0
    # Every step's Wild Space flags name the locations of the Wild Spaces it can still end on.
    f = features(start, 0)
    for a in start.legal_actions():
        _, ends, _ = start.move_ends(a)
        reached = {start.wild_location(c) for c in ends} - {-1}
        assert {L for L in range(4) if f[ROW[a]][WILD0 + L]} == reached
    assert f[ROW[DIR + E]][WILD0 + MOUNTAINS] == 1.0


def test_exact_path_ends_only_after_all_its_steps():
    # Berries' path is exactly 2 steps (L24): from (7, 1), a first step east can only end 1 step on.
    s = draw_card(position(pos={0: (7, 1)}), FOREST_DECK, "Berries", me=0)
    s.apply_action(OPTION_B)  # +1 HP and the 2-step path
    _, ends, _ = s.move_ends(DIR + E)
    assert cell(7, 2) not in ends and set(ends) == {
        cell(7 + dr, 2 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) not in ((0, 0), (0, -1))
    }


def test_traps_of_others_are_flagged_own_traps_are_not():
    s = position(pos={0: (7, 0)})
    s.trap_cell[MOUNTAINS], s.trap_owner[MOUNTAINS] = cell(6, 1), 2
    draw_card(s, VILLAGE_DECK, "Shortcut", me=0)
    f = features(s, 0)
    assert f[ROW[DIR + NE]][TRAP] == 1.0  # (6, 1) itself: a path may stop there
    s.trap_owner[MOUNTAINS] = 0  # my own trap does not spring on me (L33)
    assert move_action_features(s)[ROW[DIR + NE]][TRAP] == 0.0


def test_straight_move_direction_and_distance():
    # Chase (Killer): V loses 1, then K may run up to 4 toward an opponent (L31).
    s = position(pos={0: (7, 0), 1: (7, 3), 2: (7, 6)}, hp={2: 4})
    draw_card(s, KILLER_DECK, "Chase", me=0, k=0, v=1)
    assert s.current_player() == 0
    f = features(s, 0)
    east = f[ROW[DIR + E]]
    _, ends, _ = s.move_ends(DIR + E)
    assert ends == tuple(cell(7, c) for c in range(1, 5))  # up to 4 squares east
    assert east[ENCOUNTER] == 1.0 and east[MAX_HP] == pytest.approx(0.9)  # Light Blue lost 1
    assert east[ENDS] == pytest.approx(0.4)
    assert s.move_ends(STOP) == (-1, (), False) and not f[ROW[STOP]].any()  # declining moves no one
    s.apply_action(DIR + E)
    assert s.decision_kind() == D_DISTANCE
    f = features(s, 0)
    assert s.move_ends(DIST + 2) == (0, (cell(7, 3),), True)
    assert f[ROW[DIST + 2]][ENCOUNTER] == 1.0 and f[ROW[DIST + 1]][ENCOUNTER] == 0.0


def test_only_the_decider_sees_features_and_other_decisions_have_none():
    s = draw_card(position(pos={0: (7, 0), 1: (7, 4)}), VILLAGE_DECK, "Shortcut", me=0)
    assert features(s, 0).any()
    assert not features(s, 1).any()
    # Berries asks which option first (a branch): no move yet, no features.
    s = draw_card(position(pos={0: (7, 1)}), FOREST_DECK, "Berries", me=0)
    assert s.move_ends(s.legal_actions()[0]) == (-1, (), False)
    assert not features(s, 0).any()


def test_choice_features_are_the_hp_each_choice_moves():
    # Double-Cross: the Victim (seat 1) picks who else loses 2 HP: seat 2 (2 HP, knocked out) or seat 3
    # (10 HP, the opponent with the most HP: seat 0 has 9).
    s = killer(position(hp={0: 9, 2: 2}), "Double-Cross", k=0, v=1)
    assert s.decision_kind() == D_PLAYER and s.current_player() == 1
    f = choices(s, 1)
    assert np.array_equal(f, choice_action_features(s))
    seat2, seat3 = f[PLAYER + 1 - DIR], f[PLAYER + 2 - DIR]  # one and two places after seat 1
    assert seat3 == pytest.approx([0.0, 0.0, 2 / 30, 0.0, 0.2, 0.0, 0.0])
    assert seat2 == pytest.approx([0.0, 0.0, 2 / 30, 0.0, 0.0, 0.25, 0.0])
    assert not f[PLAYER - DIR].any() and not f[KILLER - DIR].any()  # not legal: zero rows
    # Your Money or Your Life: the Victim (seat 1) loses 3 HP (A) or the Killer (5 HP) steals 2 (B).
    s = killer(position(hp={0: 5}), "Your Money or Your Life", k=0, v=1)
    assert s.decision_kind() == D_BRANCH
    f = choices(s, 1)
    assert f[OPTION_A - DIR] == pytest.approx([0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    # B: the Killer (seat 0) gains 2; the opponent with the most HP is seat 2 (10 HP), untouched.
    assert f[OPTION_B - DIR] == pytest.approx([0.2, 0.0, 0.0, 2 / 30, 0.0, 0.0, 0.0])


def test_choice_features_stop_at_chance():
    # Killer or Wild (L14) on an occupied Wild Space: either card is still to be drawn, no HP moved yet.
    s = position(pos={0: (3, 0), 1: (3, 2)})
    s.apply_action(8 * 1 + E)  # 2 squares east onto Light Blue, on a Mountains Wild Space
    assert s.legal_actions() == [KILLER, WILD]
    f = choices(s, 0)
    assert not f.any()
    assert not features(s, 0).any()  # and no move features


def completions(state: NeighborhoodState, mover: int, visited: tuple[int, ...]) -> set[int]:
    """Every square ``mover`` can end the move on from ``state`` (just after a move action): every
    continuation of the same curved path, or every distance of a straight move, played on clones."""
    status = state.curve_status()
    if (
        visited
        and state.current_player() == mover
        and status is not None
        and status[2][: len(visited)] == visited
        and len(status[2]) > len(visited)
    ):
        out: set[int] = set()
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            out |= completions(child, mover, status[2])
        return out
    if not visited and state.current_player() == mover and state.decision_kind() == D_DISTANCE:
        out = set()
        for a in state.legal_actions():
            child = state.clone()
            child.apply_action(a)
            out.add(child.pos[mover])
        return out
    return {state.pos[mover]}


@pytest.mark.parametrize("num_players", [3, 5])
def test_move_ends_are_every_square_the_rules_let_the_move_end_on(num_players):
    game = make_game("neighborhood_v0", num_players=num_players, action_features=True)
    rng = np.random.default_rng(num_players)
    checked = 0
    for _ in range(6):
        for s, _ in decisions(game.new_initial_state(), rng):
            f = features(s, s.current_player(), game)
            status = s.curve_status()
            for a in s.legal_actions():
                mover, ends, _ = s.move_ends(a)
                if a in ROW:
                    assert f[ROW[a]].any() == (mover >= 0)
                if mover < 0 or s.hp[mover] <= 2:  # a trap or a card may knock the mover out
                    continue
                child = s.clone()
                child.apply_action(a)
                got = completions(child, mover, status[2] if status else ())
                assert -1 in got or got == set(ends), (a, sorted(got), sorted(ends))
                checked += 1
    assert checked > 300


def test_path_ends_with_dead_ends_and_the_heuristics_planner_shares_the_search():
    from boardenvs_agents.games import neighborhood as heuristic_module

    assert heuristic_module.path_ends is board.path_ends
    step = board.geometry(15).step
    # Exactly 3 more steps from (1, 0) after (0, 1), (1, 1): the corner (0, 0) is a dead end after one
    # step (its neighbours are all visited), where the rules end the path (L24).
    visited = (cell(0, 1), cell(1, 1), cell(1, 0))
    assert cell(0, 0) not in board.path_ends(step, visited, 3, False)
    assert board.path_ends(step, visited, 3, False, dead_ends=True)[cell(0, 0)] == (N,)
