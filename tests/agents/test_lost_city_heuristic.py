"""The Lost City heuristic: legal, reproducible, free of global RNGs, sensible, and better than random.

Rule ids (T1-T40) refer to ``/work/shared/rules/lost_city.md`` and ``boardenvs/lost_city/env.py``.
"""

from __future__ import annotations

import agent_helpers
import pytest

from boardenvs import make_game
from boardenvs.lost_city.cards import DAMAGE_10, SPECIAL
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    CRITICAL,
    P_MOVE,
    PLAY_DAMAGE,
    STAY,
    LostCityOptions,
    LostCityState,
)
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.arena.runner import Arena, Matchup, seatings
from boardenvs_agents.games.lost_city import LostCityHeuristic


def play_logged(n: int, specs: list[str], seed: int, perturb: int | None = None):
    game = make_game("lost_city_v0", num_players=n)
    return agent_helpers.play_logged(game, specs, seed, perturb, note=lambda s: (s.phase,))


def position(names, cells, to_move=0, held=None, hp=None) -> LostCityState:
    s = LostCityState(LostCityOptions(num_players=len(names), characters=tuple(names), first_player="seat0"))
    s.pos = [12 * r + c for r, c in cells]
    for p, kind in (held or {}).items():
        s.deck.take(kind)
        s.held[p] = kind
    for p, value in (hp or {}).items():
        s.hp[p] = value
    s.to_move = to_move
    s.round = 2
    s.phase = P_MOVE
    s._legal = None
    return s


# -- legality, reproducibility, no global RNGs ------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 7])
def test_heuristic_plays_only_legal_actions(n):
    lineups = [["heuristic"] * n] + [list(s) for s in seatings(["heuristic"] + ["random"] * (n - 1))[:3]]
    decisions = 0
    for seed, specs in enumerate(lineups):
        result, log = play_logged(n, specs, seed)
        assert result.num_decisions == len(log) > 0
        assert not result.truncated
        decisions += len(log)
    assert decisions > 100 * n


@pytest.mark.parametrize("n", [2, 4])
def test_same_seed_same_game(n):
    specs = list(seatings(["heuristic"] + ["random"] * (n - 1))[1])
    first, log1 = play_logged(n, specs, seed=7)
    second, log2 = play_logged(n, specs, seed=7)
    assert log1 == log2 and first == second
    _, log3 = play_logged(n, specs, seed=8)
    assert log3 != log1


@pytest.mark.parametrize("n", [2, 4])
def test_global_rngs_do_not_matter(n):
    specs = ["heuristic"] + ["random"] * (n - 1)
    plain, log = play_logged(n, specs, seed=3)
    for offset in (1000, 98765):
        perturbed, perturbed_log = play_logged(n, specs, seed=3, perturb=offset)
        assert perturbed_log == log and perturbed == plain


def test_ties_use_the_policys_own_generator():
    # Round 1, Jack far below: every two-step move down (to row 2) comes as close; the choice follows
    # the seed.
    s = position(["Aaron", "Jack"], [(0, 5), (11, 5)])
    s.round = 1
    choices = {LostCityHeuristic(seed=seed).act(s) for seed in range(30)}
    assert len(choices) > 1
    for seed in range(5):
        assert len({LostCityHeuristic(seed=seed).act(s.clone()) for _ in range(3)}) == 1


# -- obviously right moves ----------------------------------------------------------------------------
def test_attacks_the_weakest_target_in_range():
    s = position(["Aaron", "Rob", "Chris"], [(10, 1), (10, 2), (9, 1)], hp={1: 240, 2: 70})
    s.apply_action(STAY)
    assert LostCityHeuristic(seed=0).act(s) == ATTACK + s.offset(2) - 1


def test_uses_trap_rather_than_a_basic_attack():
    s = position(["Chris", "Rob"], [(10, 1), (10, 2)], held={0: SPECIAL})
    s.apply_action(STAY)
    assert LostCityHeuristic(seed=0).act(s) == ABILITY + s.offset(1) - 1


def test_adds_the_damage_card_and_uses_critical_on_a_big_roll():
    s = position(["Aaron", "Rob"], [(10, 1), (10, 2)], held={0: DAMAGE_10})
    for x in (STAY, ATTACK + s.offset(1) - 1, 1, 2, 5):
        s.apply_action(x)
    assert LostCityHeuristic(seed=0).act(s) == PLAY_DAMAGE
    s = position(["Aaron", "Rob"], [(10, 1), (10, 2)], held={0: SPECIAL})
    for x in (STAY, ATTACK + s.offset(1) - 1, 1, 6, 5):
        s.apply_action(x)
    assert LostCityHeuristic(seed=0).act(s) == CRITICAL


def test_melee_closes_in_to_strike_and_ranged_keeps_its_distance():
    s = position(["Aaron", "Jack"], [(10, 0), (10, 3)])
    s.apply_action(LostCityHeuristic(seed=0).act(s))
    assert s.distance(0, 1) == 1  # two steps to Jack's side, then the attack
    assert LostCityHeuristic(seed=0).act(s) == ATTACK + s.offset(1) - 1
    s = position(["Jack", "Aaron"], [(10, 1), (10, 2)])
    s.apply_action(LostCityHeuristic(seed=0).act(s))
    assert s.distance(0, 1) == 2  # steps back but stays in range
    assert s.phase != P_MOVE


# -- strength ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,seeds,min_wins", [(2, 20, 34), (4, 10, 20)])
def test_heuristic_beats_random(n, seeds, min_wins):
    # Measured with scripts/evaluate.py (400+ games): about 1.00 with 2 players, 0.7 with 4 (even share
    # 0.25). These fixed seeds are deterministic; the margins leave room for small rule changes.
    game = make_game("lost_city_v0", num_players=n)
    lineup = ["heuristic"] + ["random"] * (n - 1)
    results = Arena(game, ["heuristic", "random"]).run([Matchup.of("h", lineup, n * seeds)])
    summary = agent_stats(results, "heuristic")
    assert summary.games == n * seeds
    assert summary.wins >= min_wins, summary
