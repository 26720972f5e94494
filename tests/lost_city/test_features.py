"""The move features at the end of the deciding player's observation (boardenvs/lost_city/features.py,
option ``action_features``): what each move leads to, in scripted positions and through random games,
and the heuristic's own moves read from the same measures.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and ``boardenvs/lost_city/env.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import decisions
from lost_city_positions import mv, position

from boardenvs import make_game
from boardenvs.lost_city.env import observation_size
from boardenvs.lost_city.features import (
    BASIC_EXPECTED,
    DANGER_SCALE,
    MOVE_FEATURES,
    NUM_MOVES,
    STRIKE_SCALE,
    WALK_SCALE,
    move_action_features,
)
from boardenvs.lost_city.rules import MOVE, P_MOVE, STAY
from boardenvs_agents.games.lost_city import LostCityHeuristic

GAME = make_game("lost_city_v0", num_players=2, action_features=True)


def features(state, player: int) -> np.ndarray:
    """The move features of ``player``'s observation, one row per move action."""
    return GAME.observe(state, player)[-NUM_MOVES * MOVE_FEATURES :].reshape(NUM_MOVES, MOVE_FEATURES)


def duel(rnd: int = 2):
    """Rob (melee: 2 steps, range 1) on (0,0) to move; Jack (ranged: 1 step, range 3) on (0,3)."""
    return position(["Rob", "Jack"], [(0, 0), (0, 3)], rnd=rnd)


def test_option_lengthens_the_observation_and_is_an_encoding_option():
    assert make_game("lost_city_v0").observation_shape(0) == (observation_size(12),)
    assert GAME.observation_shape(0) == (observation_size(12) + NUM_MOVES * MOVE_FEATURES,)
    assert type(GAME.options).ENCODING_OPTIONS == ("action_features",)


def test_strike_walk_and_danger_of_each_move():
    s = duel()
    f = features(s, 0)
    assert np.array_equal(f, move_action_features(s))
    # T4/T5: two steps east puts Rob next to Jack: a basic attack this turn; staying does not.
    assert f[mv(0, 2) - MOVE, 0] > 0 and f[mv(1, 2) - MOVE, 0] > 0
    assert f[STAY - MOVE, 0] == 0.0
    assert f[mv(0, 2) - MOVE, 0] >= BASIC_EXPECTED / STRIKE_SCALE
    # Walking steps to Jack (around the ruins): 3 from where Rob stands, 1 from (0,2).
    assert f[STAY - MOVE, 2] == pytest.approx(3 / WALK_SCALE)
    assert f[mv(0, 2) - MOVE, 2] == pytest.approx(1 / WALK_SCALE)
    # Jack can step once and shoot 3 squares (T4): every square Rob can reach is exposed to one
    # basic attack of his.
    legal = [a - MOVE for a in s.legal_actions() if MOVE <= a < MOVE + NUM_MOVES]
    assert all(f[m, 1] == pytest.approx(BASIC_EXPECTED / DANGER_SCALE) for m in legal)
    # Moves off the board are not legal and read zero.
    assert mv(-1, 0) not in s.legal_actions()
    assert not f[mv(-1, 0) - MOVE].any()


def test_far_squares_are_out_of_danger():
    s = position(["Rob", "Jack"], [(0, 0), (0, 8)])
    f = move_action_features(s)
    assert f[STAY - MOVE, 1] == 0.0 and f[STAY - MOVE, 2] > 0


def test_no_strike_in_round_one():
    # T7: round 1 is move-only, so no move promises a strike.
    f = move_action_features(duel(rnd=1))
    assert not f[:, 0].any() and f[:, 2].any()


def test_only_the_deciding_player_sees_features_and_only_in_the_move_step():
    s = duel()
    assert features(s, 0).any()
    assert not features(s, 1).any()
    s.apply_action(mv(0, 2))
    assert s.phase != P_MOVE
    assert not features(s, 0).any() and not move_action_features(s).any()


def test_features_match_the_function_and_stay_in_bounds_through_random_games():
    game = make_game("lost_city_v0", num_players=4, action_features=True)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(5):
        for s, _ in decisions(game.new_initial_state(), rng):
            p = s.current_player()
            for q in range(game.num_players):
                f = game.observe(s, q)[-NUM_MOVES * MOVE_FEATURES :]
                assert f.min() >= 0.0 and f.max() <= 1.0
                if q == p:
                    assert np.array_equal(f, move_action_features(s).reshape(-1))
                    seen += bool(f.any())
                else:
                    assert not f.any()
    assert seen > 50


def test_heuristic_strikes_from_the_move_its_features_rank_best():
    # With two players nobody else fights (T28's waiting does not apply), so from round 2 a free
    # heuristic character that can strike goes where the strike value less the danger is highest.
    game = make_game("lost_city_v0", num_players=2)
    policy = LostCityHeuristic(seed=0)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(10):
        for s, action in decisions(game.new_initial_state(), rng, policy.act):
            if s.phase == P_MOVE and action < MOVE + NUM_MOVES and s.ctrl[s.to_move] < 0:
                f = move_action_features(s).astype(np.float64)
                strike = f[:, 0] * STRIKE_SCALE
                if strike.max() > 0 and strike.max() < STRIKE_SCALE:
                    score = np.where(strike > 0, strike - f[:, 1] * DANGER_SCALE, -np.inf)
                    assert score[action - MOVE] == pytest.approx(score.max(), abs=1e-3)
                    checked += 1
    assert checked > 20
