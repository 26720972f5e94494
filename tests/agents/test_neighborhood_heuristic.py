"""The neighborhood_v0 heuristic: legal, reproducible, independent of global RNGs, sensible in scripted
positions, and better than random players. Rule ids refer to neighborhood.md and the env docstring."""

from __future__ import annotations

import sys
from pathlib import Path

import agent_helpers
import pytest

from boardenvs import make_game
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.rules import D_BRANCH, D_PLAYER, D_VICTIM, OPTION_A, OPTION_B, PLAYER
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.arena.runner import Arena, Matchup, seatings
from boardenvs_agents.games.neighborhood import NeighborhoodHeuristic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "neighborhood"))
from neighborhood_helpers import draw_card, move, position  # noqa: E402

GAME = "neighborhood_v0"


def play_logged(num_players: int, specs: list[str], seed: int, perturb: int | None = None):
    game = make_game(GAME, num_players=num_players)
    return agent_helpers.play_logged(game, specs, seed, perturb, note=lambda s: (s.decision_kind(),))


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_heuristic_plays_only_legal_actions(num_players):
    decisions = 0
    lineup = ["heuristic"] + ["random"] * (num_players - 1)
    for seed, specs in enumerate(seatings(lineup) + [("heuristic",) * num_players]):
        result, log = play_logged(num_players, list(specs), seed)
        assert result.num_decisions == len(log)
        decisions += len(log)
    assert decisions > 12 * num_players


def test_same_seed_same_game_and_no_global_rngs():
    specs = ["random", "heuristic", "random", "heuristic"]
    first, log1 = play_logged(4, specs, seed=7)
    second, log2 = play_logged(4, specs, seed=7)
    assert log1 == log2 and first == second
    _, log3 = play_logged(4, specs, seed=8)
    assert log3 != log1
    for offset in (1000, 98765):
        perturbed, perturbed_log = play_logged(4, specs, seed=7, perturb=offset)
        assert perturbed_log == log1 and perturbed == first


def test_heuristic_ties_use_its_own_generator():
    # Shortcut from the middle of an empty road: many first steps score the same.
    s = draw_card(position(pos={0: (7, 3)}), 2, "Shortcut", me=0)
    choices = {NeighborhoodHeuristic(seed=k).act(s.clone()) for k in range(12)}
    assert len(choices) > 1
    assert all(
        NeighborhoodHeuristic(seed=3).act(s.clone()) == NeighborhoodHeuristic(seed=3).act(s) for _ in range(3)
    )


# -- scripted positions -----------------------------------------------------------------------------
def test_mercy_heals_when_low_and_hurts_when_healthy():
    low = draw_card(position(hp={0: 2, 1: 10}), KILLER_DECK, "Mercy", me=0, k=0, v=1)
    assert low.decision_kind() == D_BRANCH and NeighborhoodHeuristic(seed=0).act(low) == OPTION_B
    high = draw_card(position(hp={0: 10, 1: 9}), KILLER_DECK, "Mercy", me=0, k=0, v=1)
    assert NeighborhoodHeuristic(seed=0).act(high) == OPTION_A


def test_berries_heal_two_when_low():
    s = draw_card(position(hp={0: 3}), 4, "Berries", me=0)
    assert NeighborhoodHeuristic(seed=0).act(s) == OPTION_A


def test_hostage_hurts_the_leader():
    s = draw_card(position(hp={2: 4, 3: 10}), KILLER_DECK, "Hostage", me=0, k=0, v=1)
    assert s.decision_kind() == D_PLAYER
    assert NeighborhoodHeuristic(seed=0).act(s) == PLAYER + 3


def test_victim_choice_attacks_the_leader():
    s = position(pos={0: (7, 0), 1: (7, 3), 2: (7, 3)}, hp={1: 5, 2: 10})
    move(s, 3, 2)
    assert s.decision_kind() == D_VICTIM
    assert NeighborhoodHeuristic(seed=0).act(s) == PLAYER + 2


def test_curfew_on_the_leader():
    s = draw_card(position(hp={1: 6, 2: 10, 3: 7}), 2, "Curfew", me=0)
    assert NeighborhoodHeuristic(seed=0).act(s) == PLAYER + 2


# -- strength ---------------------------------------------------------------------------------------
def test_heuristic_beats_random():
    game = make_game(GAME, num_players=3)
    matchup = Matchup.of("heuristic vs random", ["heuristic", "random", "random"], 180)
    results = Arena(game, ["heuristic", "random"]).run([matchup])
    heuristic = agent_stats(results, "heuristic")
    rand = agent_stats(results, "random")
    assert heuristic.games == 180
    # Wins per seat held: the heuristic holds one seat a game, random two (draws win nothing).
    # Measured on these seeds: heuristic 53 wins of 180, random 65 (32.5 per seat), a ratio of 1.63.
    per_random_seat = rand.wins / 2
    assert heuristic.wins >= 1.2 * per_random_seat, (heuristic.wins, rand.wins)
