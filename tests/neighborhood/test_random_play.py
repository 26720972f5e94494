"""Seeded random games of neighborhood_v0 on the rules state, invariants checked after every action.

One seeded numpy generator picks the chance outcomes and the players' choices. Rule ids refer to
neighborhood.md (L1-L26) and the env docstring (L27-L40).
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.neighborhood.board import NUM_CELLS
from boardenvs.neighborhood.rules import F_PROG, NUM_ACTIONS, NeighborhoodOptions, NeighborhoodState

GAMES = {3: 400, 4: 350, 5: 300}  # 1,050 games with the default options, plus the variants below


def check(state: NeighborhoodState, counts: tuple[tuple[int, ...], ...]) -> None:
    """Invariants at every node."""
    n = state.n
    for p in range(n):
        assert 0 <= state.hp[p] <= 10  # SEED: the 10 HP cap
        if state.alive[p]:
            assert state.hp[p] > 0 and 0 <= state.pos[p] < NUM_CELLS
        else:  # L21: out at 0 HP, off the board, nothing pending
            assert state.hp[p] == 0 and state.pos[p] == -1
            assert state.pending[p] == -1 and state.thug[p] == 0 and not state.skip[p]
        assert -1 <= state.pending[p] < 4
    # Decks conserved (L25): draw pile + cards being resolved = the deck, kind by kind.
    held = [[0] * len(c) for c in counts]
    for frame in state.stack:
        if frame[0] == F_PROG and frame[9] >= 0:
            held[frame[9]][frame[10]] += 1
    for d, deck in enumerate(state.decks):
        assert deck.unseen_total == sum(deck.unseen) and min(deck.unseen) >= 0
        assert deck.discard_size() == 0  # used cards go under the pile, never to a discard pile
        pile = deck.draw_pile_counts()
        assert [a + b for a, b in zip(pile, held[d], strict=True)] == list(counts[d])
    for L in range(4):
        assert (state.trap_cell[L] < 0) == (state.trap_owner[L] < 0)
    assert 1 <= state.round <= state.options.max_rounds or not state.started
    player = state.current_player()
    if player >= 0:
        assert state.alive[player], "an eliminated player never acts"
        legal = state.legal_actions()
        assert len(legal) >= 2, "one-option decisions are applied by the state"
        assert all(0 <= a < NUM_ACTIONS for a in legal)
        assert all(a < b for a, b in zip(legal[:-1], legal[1:], strict=True))
        assert state.chance_outcomes() == []
    elif player == CHANCE:
        outcomes = state.chance_outcomes()
        assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert state.legal_actions() == []
    if player != TERMINAL:
        assert state.returns() == [0.0 if state.alive[p] else -1.0 for p in range(n)]


def play_checked_game(options: NeighborhoodOptions, seed: int) -> tuple[NeighborhoodState, int]:
    rng = np.random.default_rng(seed)
    state = NeighborhoodState(options)
    counts = options.deck_counts
    check(state, counts)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = state.sample_chance(rng)
            assert dict(state.chance_outcomes()).get(outcome, 0.0) > 0.0
            state.apply_action(outcome)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
        check(state, counts)
    # The end: one winner (+1, others -1) or a draw (0 for the tied, -1 for the others).
    n = state.n
    returns = state.returns()
    living = [p for p in range(n) if state.alive[p]]
    assert state.legal_actions() == [] and not state.is_truncated()
    if state.winner >= 0:
        assert returns == [1.0 if p == state.winner else -1.0 for p in range(n)]
        assert state.alive[state.winner]
        if len(living) > 1:  # L23: the round cap, highest HP
            assert state.round == options.max_rounds
            assert all(state.hp[state.winner] > state.hp[p] for p in living if p != state.winner)
    else:
        assert len(state.draw) >= 2
        assert returns == [0.0 if p in state.draw else -1.0 for p in range(n)]
        if living:  # L23 tie
            assert state.draw == living or all(state.hp[p] == max(state.hp) for p in state.draw)
        # else L22: everyone still in went out in the same effect
    return state, decisions


@pytest.mark.parametrize("num_players", sorted(GAMES))
def test_random_games_keep_every_invariant(num_players):
    options = NeighborhoodOptions(num_players=num_players)
    wins = [0] * num_players
    draws = decisions = eliminations = 0
    for game in range(GAMES[num_players]):
        state, d = play_checked_game(options, seed=10_000 * num_players + game)
        decisions += d
        eliminations += num_players - sum(state.alive)
        if state.winner >= 0:
            wins[state.winner] += 1
        else:
            draws += 1
    assert all(w > 0 for w in wins), wins  # every seat can win
    assert draws > 0 and eliminations > 0
    assert decisions > 10 * GAMES[num_players]


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3, "spinner": 4},
        {"num_players": 5, "triple_arrival_killer": "higher", "chain_depth": 1},
        {"num_players": 4, "colors": (2, 1, 0, 4), "die_faces": 3},
        {"num_players": 5, "killer_counts": (1,) * 12, "wild_counts": ((1,) * 9,) * 4},
    ],
)
def test_random_games_with_other_options(options):
    opts = NeighborhoodOptions(**options)
    for g in range(40):
        play_checked_game(opts, seed=70_000 + g)


def test_long_games_end_by_elimination():
    # With a high round cap the last survivor wins (L21) or the last ones draw (L22).
    opts = NeighborhoodOptions(num_players=3, max_rounds=2000)
    survivors = []
    for g in range(12):
        state, _ = play_checked_game(opts, seed=90_000 + g)
        survivors.append(sum(state.alive))
    assert survivors.count(1) >= 6
