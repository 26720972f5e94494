"""The action features at the end of both roles' observations (boardenvs/gangsi/features.py): what each
choice leads to, in scripted positions on the default map, read only from what the observer may know.

Rule ids (K1-K34) refer to ``docs/rules/gangsi.md`` and ``boardenvs/gangsi/env.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import decisions
from gangsi_positions import (
    ARROW,
    MAZE,
    ONE,
    THREE,
    TWO,
    E,
    N,
    W,
    hand,
    hunter_roll,
    kyonshi_move,
    sq,
    table,
)

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs.gangsi.features import (
    HUNTER_FEATURES,
    KYONSHI_FEATURES,
    KYONSHI_RANK_FEATURES,
    hunter_action_features,
    hunter_move_distance,
    kyonshi_action_features,
)
from boardenvs.gangsi.rules import (
    DIR,
    FACE,
    KEEP,
    KYONSHI,
    NUM_HUNTER_ACTIONS,
    NUM_KYONSHI_ACTIONS,
    PH_CHOOSE,
    PH_KY_MOVE,
    REROLL,
    RESET,
    STEP,
    STOP,
)

GAME = make_game("gangsi_v0", num_hunters=2, action_features=True)


def hunter_features(state, player: int) -> np.ndarray:
    """The action features of ``player``'s observation, one row per hunter action."""
    obs = GAME.observe(state, player)
    return obs[-NUM_HUNTER_ACTIONS * HUNTER_FEATURES :].reshape(NUM_HUNTER_ACTIONS, HUNTER_FEATURES)


def kyonshi_features(state) -> np.ndarray:
    obs = GAME.observe(state, KYONSHI)
    return obs[-NUM_KYONSHI_ACTIONS * KYONSHI_FEATURES :].reshape(NUM_KYONSHI_ACTIONS, KYONSHI_FEATURES)


def needs_only(state, piece: int, code: str) -> None:
    """``piece`` has revealed four cards of its hand and needs ``code`` (K20: the fifth wins)."""
    state.hand[piece] = hand("A1", "P1", "O1", "Y1", code)
    state.revealed[piece] = hand("A1", "P1", "O1", "Y1")


def test_the_option_appends_the_features_and_changes_nothing_else():
    plain = make_game("gangsi_v0", num_hunters=2)
    assert plain.observation_shape(1) == (1807,) and plain.observation_shape(KYONSHI) == (1499,)
    assert GAME.observation_shape(1) == (1807 + NUM_HUNTER_ACTIONS * HUNTER_FEATURES,)
    assert GAME.observation_shape(KYONSHI) == (1499 + NUM_KYONSHI_ACTIONS * KYONSHI_FEATURES,)
    # The same rules (an encoding option): every observation starts with the plain one.
    s = table(2, pos=[sq(5, 7), sq(0, 0)], ky=sq(9, 9))
    needs_only(s, 0, "G3")
    hunter_roll(s, 0, ONE, TWO, TWO, TWO, TWO)
    for player in (KYONSHI, 1, 2):
        size = plain.observation_shape(player)[0]
        assert np.array_equal(GAME.observe(s, player)[:size], plain.observe(s, player))


def test_a_face_that_reveals_the_needed_treasure_says_so():
    # hunter_0 on (5,7) needs only G3 on (5,8): a 1 east reveals it (K20); a 2 does not.
    s = table(2, pos=[sq(5, 7), sq(0, 0)], ky=sq(9, 9))
    needs_only(s, 0, "G3")
    hunter_roll(s, 0, ONE, TWO, TWO, TWO, TWO)
    assert s.phase == PH_CHOOSE and s.legal_actions() == [REROLL, FACE + ONE, FACE + TWO]
    f = hunter_features(s, 1)
    assert f[FACE + ONE, 0] == 1.0
    assert f[FACE + TWO, 0] == 0.0
    # The re-roll is scored by the square the piece stands on: one hunter move from G3.
    moves = hunter_move_distance(MAZE, False)
    assert f[REROLL, 1] == pytest.approx(moves[sq(5, 7)][sq(5, 8)] / 10)
    # Actions not legal now read 0.
    assert not f[[KEEP, RESET, FACE + THREE, FACE + ARROW, DIR + N]].any()


def test_directions_are_scored_by_the_square_they_end_on():
    # After declaring the 1: east ends on G3 (a reveal); no other direction reveals anything.
    s = table(2, pos=[sq(5, 7), sq(0, 0)], ky=sq(9, 9))
    needs_only(s, 0, "G3")
    hunter_roll(s, 0, ONE, TWO, TWO, TWO, TWO)
    s.apply_action(FACE + ONE)
    f = hunter_features(s, 1)
    legal_dirs = [a - DIR for a in s.legal_actions()]
    assert E in legal_dirs and len(legal_dirs) > 1
    assert f[DIR + E, 0] == 1.0
    assert all(f[DIR + d, 0] == 0.0 for d in legal_dirs if d != E)


def test_kyonshi_distance_of_each_destination():
    # On (0,5) needing G1 on (2,5): a 1 west or a 1 east are mirror images but for the Kyonshi on (0,1),
    # which is 3 steps from (0,4) and farther from (0,6).
    s = table(2, pos=[sq(0, 5), sq(10, 10)], ky=sq(0, 1))
    needs_only(s, 0, "G1")
    hunter_roll(s, 0, ONE, ONE, ONE, ONE, ONE)
    s.apply_action(FACE + ONE)
    f = hunter_features(s, 1)
    assert f[DIR + W, 2] == pytest.approx(MAZE.dist[sq(0, 1)][sq(0, 4)] / 20)
    assert f[DIR + E, 2] == pytest.approx(MAZE.dist[sq(0, 1)][sq(0, 6)] / 20)
    assert f[DIR + W, 2] < f[DIR + E, 2]
    assert f[DIR + W, 1] == f[DIR + E, 1]


def test_reset_says_whether_the_interrupt_can_catch_a_piece():
    # K16, K31: four dice aside; every piece 5+ steps from the Kyonshi on (0,9): a safe reset.
    s = table(2, pos=[sq(5, 0), sq(10, 10)], ky=sq(0, 9))
    s.aside = 4
    s._start_turn(0)
    assert s.legal_actions() == [KEEP, RESET]
    f = hunter_features(s, 1)
    assert f[RESET, 0] == 1.0 and f[KEEP, 0] == 0.0
    s.pos[1] = sq(0, 5)  # 4 steps away: the interrupt could catch it
    f = hunter_features(s, 1)
    assert f[RESET, 0] == 0.0 and f[KEEP, 0] == 1.0


def test_only_the_acting_hunter_sees_features():
    # The features read the acting piece's hand: the other hunter's observation has none (K9).
    s = table(2, pos=[sq(5, 7), sq(0, 0)], ky=sq(9, 9))
    needs_only(s, 0, "G3")
    hunter_roll(s, 0, ONE, TWO, TWO, TWO, TWO)
    assert hunter_features(s, 1).any()
    assert not hunter_features(s, 2).any()
    assert not kyonshi_features(s).any()


def test_kyonshi_features_follow_the_public_probability():
    # The Kyonshi on (5,9) with 3 steps; piece 0 known to stand on (5,10) (a singleton possibility set),
    # piece 1 anywhere among many squares far away.
    s = table(2, pos=[sq(5, 10), sq(0, 0)], ky=sq(5, 9))
    s.maybe = [1 << sq(5, 10), sum(1 << sq(r, c) for r in range(3) for c in range(3))]
    kyonshi_move(s, 4)  # a 3 on the Kyonshi die
    assert s.phase == PH_KY_MOVE and s.current_player() == KYONSHI
    f = kyonshi_features(s)
    assert f[STEP + E, 0] == pytest.approx(1.0)  # (5,10): certainly a hunter
    assert f[STEP + E, 1] == max(f[:, 1])
    assert f[STOP, 0] == 0.0
    # The hunters' true squares do not matter, only what is public (K32).
    s2 = s.clone()
    s2.pos = [sq(9, 0), sq(1, 1)]
    assert np.array_equal(kyonshi_features(s2), f)
    assert not hunter_features(s, 1).any()


def test_features_match_the_functions_and_stay_in_bounds_through_random_games():
    game = make_game("gangsi_v0", num_players=4, action_features=True)
    rng = np.random.default_rng(0)
    checked = {"hunter": 0, "kyonshi": 0}
    for _ in range(5):
        for s, _ in decisions(game.new_initial_state(), rng):
            p = s.current_player()
            obs = game.observe(s, p)
            if p == KYONSHI:
                f = obs[-NUM_KYONSHI_ACTIONS * KYONSHI_FEATURES :]
                assert np.array_equal(f, kyonshi_action_features(s).reshape(-1))
                checked["kyonshi"] += bool(f.any())
            else:
                f = obs[-NUM_HUNTER_ACTIONS * HUNTER_FEATURES :]
                assert np.array_equal(f, hunter_action_features(s).reshape(-1))
                checked["hunter"] += bool(f.any())
            assert f.min() >= 0.0 and f.max() <= 1.0
    assert checked["hunter"] > 100 and checked["kyonshi"] > 20


def test_ranks_need_the_features_and_lengthen_only_the_kyonshis_observation():
    with pytest.raises(OptionError, match="action_ranks"):
        make_game("gangsi_v0", num_players=4, action_ranks=True)
    plain = make_game("gangsi_v0", num_players=4, action_features=True)
    ranked = make_game("gangsi_v0", num_players=4, action_features=True, action_ranks=True)
    assert ranked.observation_shape(KYONSHI)[0] == (
        plain.observation_shape(KYONSHI)[0] + NUM_KYONSHI_ACTIONS * KYONSHI_RANK_FEATURES
    )
    assert ranked.observation_shape(1) == plain.observation_shape(1)


def test_ranks_order_the_kyonshis_choices_by_their_path_values():
    # Same position as above: stepping east onto the square a hunter certainly stands on is the best
    # path, ranked 1; the first two columns are the unranked features.
    s = table(2, pos=[sq(5, 10), sq(0, 0)], ky=sq(5, 9))
    s.maybe = [1 << sq(5, 10), sum(1 << sq(r, c) for r in range(3) for c in range(3))]
    kyonshi_move(s, 4)
    f = kyonshi_action_features(s, ranks=True)
    assert f.shape == (NUM_KYONSHI_ACTIONS, KYONSHI_FEATURES + KYONSHI_RANK_FEATURES)
    assert np.array_equal(f[:, :KYONSHI_FEATURES], kyonshi_action_features(s))
    assert f[STEP + E, 3] == 1.0 and f[:, 3].sum() == 1.0
    assert f[STEP + E, 2] == pytest.approx(1.0)
    others = [a for a in range(NUM_KYONSHI_ACTIONS) if a != STEP + E]
    assert all(0.0 <= f[a, 2] < 1.0 for a in others)


def test_ranks_flag_stands_still_when_no_step_is_worth_more():
    # No hunter possibility near the Kyonshi and no steps after this one that could reach one: the
    # flag marks standing still alone when a step only ties with it (the heuristic stays on a tie).
    s = table(2, pos=[sq(5, 10), sq(0, 0)], ky=sq(5, 9))
    s.maybe = [1 << sq(5, 10), 1 << sq(0, 0)]
    kyonshi_move(s, 4)
    f = kyonshi_action_features(s, ranks=True)
    flagged = set(np.flatnonzero(f[:, 3]))
    values = f[:, 1]
    best = max(values[a] for a in range(NUM_KYONSHI_ACTIONS))
    if values[STOP] >= best:
        assert flagged == {STOP}
    else:
        assert STOP not in flagged and all(values[a] == best for a in flagged)


def test_ranked_observation_matches_the_function_through_random_games():
    game = make_game("gangsi_v0", num_players=4, action_features=True, action_ranks=True)
    width = NUM_KYONSHI_ACTIONS * (KYONSHI_FEATURES + KYONSHI_RANK_FEATURES)
    rng = np.random.default_rng(3)
    flagged_moves = 0
    for _ in range(3):
        for s, _ in decisions(game.new_initial_state(), rng):
            if s.current_player() != KYONSHI:
                continue
            f = game.observe(s, KYONSHI)[-width:]
            assert np.array_equal(f, kyonshi_action_features(s, ranks=True).reshape(-1))
            assert f.min() >= 0.0 and f.max() <= 1.0
            rows = f.reshape(NUM_KYONSHI_ACTIONS, -1)
            if s.phase == PH_KY_MOVE and s.ky_steps > 0:
                # At least one choice is the best, and the best are the ones at ratio 1.
                assert rows[:, 3].sum() >= 1
                assert all(rows[a, 2] == pytest.approx(1.0) for a in np.flatnonzero(rows[:, 3]))
                flagged_moves += 1
    assert flagged_moves > 20
