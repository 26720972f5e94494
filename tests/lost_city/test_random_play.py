"""Seeded random games of lost_city_v0, with the rules' invariants checked after every single action.

The rules state is driven directly: one seeded numpy generator picks both the chance outcomes and the
players' choices. Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and the env docstring.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    COPY,
    MOVE,
    NUM_ACTIONS,
    P_DRAW,
    P_OVER,
    P_PICK,
    PICK,
    PLAY_HEALTH,
    LostCityOptions,
    LostCityState,
)

#: Games per player count: 1,000 in all.
GAMES = {2: 250, 3: 150, 4: 200, 5: 100, 6: 100, 7: 200}


def check_position(s: LostCityState) -> None:
    """Invariants at every node once the characters are seated."""
    n = s.n
    opts = s.options
    counts = list(opts.card_counts)
    # The deck is conserved (4.1: 28 cards): draw pile + discards + held cards.
    assert s.deck.bottom == [] and s.deck.unseen_total == sum(s.deck.unseen)
    total = [u + d for u, d in zip(s.deck.unseen, s.deck.discards, strict=True)]
    for kind in s.held:
        assert -1 <= kind < cards.NUM_KINDS
        if kind >= 0:
            assert cards.GOOD[kind]  # T13: bad cards are never held
            total[kind] += 1
    assert total == counts
    seated = [k for k in s.char if k >= 0]
    assert len(set(seated)) == len(seated)  # T2: distinct characters
    if len(seated) < n:
        assert s.phase != P_OVER and s.round == 1 and s.dealt == [0] * n
        return
    living = []
    for p in range(n):
        cap = ch.MAX_HP[s.char[p]]
        assert 0 <= s.hp[p] <= cap  # T16
        if s.hp[p] == 0:
            # T38: out of the game, off the board, no card, no statuses.
            assert s.pos[p] == -1 and s.held[p] == -1 and s.burn[p] == 0 and s.skip[p] == 0
            assert s.ctrl[p] == -1 and s.shield_by[p] == -1
        else:
            living.append(s.pos[p])
            assert not s.geo.ruin[s.pos[p]] and 0 <= s.pos[p] < s.geo.size**2
            assert (
                0 <= s.burn[p] <= ch.FIRE_TURNS and 0 <= s.ctrl_turns[p] <= 2 and 0 <= s.shield_turns[p] <= 2
            )
            assert s.ctrl[p] != p and (s.ctrl[p] < 0 or s.hp[s.ctrl[p]] > 0)
            assert s.shield_by[p] < 0 or s.hp[s.shield_by[p]] > 0
    assert len(set(living)) == len(living)  # T5: one character per square
    if s.phase != P_OVER:
        assert 1 <= s.round <= opts.max_rounds and s.hp[s.to_move] > 0


def play_checked_game(options: LostCityOptions, seed: int) -> LostCityState:
    """One seeded random game on the rules state, checked after every chance outcome and action."""
    rng = np.random.default_rng(seed)
    s = LostCityState(options)
    n = options.num_players
    turn_key = None
    offensive = moves = 0
    check_position(s)
    while True:
        player = s.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            assert s.legal_actions() == []
            outcomes = dict(s.chance_outcomes())
            assert outcomes and abs(sum(outcomes.values()) - 1.0) < 1e-9
            outcome = s.sample_chance(rng)
            assert outcomes.get(outcome, 0.0) > 0.0
            s.apply_action(outcome)
            check_position(s)
            continue
        if s.phase == P_PICK:  # T2: the seat to pick takes any character still free
            assert player == s.to_move and s.char[player] == -1 and s.returns() == [0.0] * n
            assert s.legal_actions() == [PICK + k for k in range(7) if k not in s.char]
            s.apply_action(s.legal_actions()[int(rng.integers(len(s.legal_actions())))])
            check_position(s)
            continue
        assert s.returns() == [-1.0 if s.hp[p] == 0 else 0.0 for p in range(n)]
        assert all(s.is_out(p) == (s.hp[p] == 0) for p in range(n))
        a = s.to_move
        # T20: the seducer decides for a seduced character.
        assert player == (s.ctrl[a] if s.ctrl[a] >= 0 else a)
        legal = s.legal_actions()
        assert legal and all(0 <= x < NUM_ACTIONS for x in legal)
        assert all(x < y for x, y in zip(legal[:-1], legal[1:], strict=False))
        if s.ctrl[a] >= 0:
            assert PLAY_HEALTH not in legal and not [x for x in legal if ABILITY <= x < COPY + 7]
        if (s.round, a) != turn_key:
            turn_key, offensive, moves = (s.round, a), 0, 0
        action = legal[int(rng.integers(len(legal)))]
        if MOVE <= action < ATTACK:
            moves += 1
        if ATTACK <= action < COPY:  # basic attack or ability (a copy is finished by its target)
            offensive += 1
        if s.round == 1:
            assert not (ATTACK <= action < COPY + 7)  # T7
        assert moves <= 1 and offensive <= 1, "one move and one offensive action per turn (T6, T17)"
        s.apply_action(action)
        check_position(s)
    # The game ended properly: a single winner, or a draw among the tied (T26, T28).
    assert s.legal_actions() == []
    returns = s.returns()
    alive = [p for p in range(n) if s.hp[p] > 0]
    assert s.outcome and not s.is_truncated()
    if len(alive) == 1:
        assert s.outcome == alive and returns == [1.0 if p == alive[0] else -1.0 for p in range(n)]
    else:
        assert len(alive) >= 2 and s.round == options.max_rounds + 1
        best = max(s.cap_standing(p) for p in alive)  # T28: the designed tie-break
        assert s.outcome == [p for p in alive if s.cap_standing(p) == best]
        if len(s.outcome) == 1:
            assert sorted(returns) == [-1.0] * (n - 1) + [1.0]
        else:
            assert returns == [0.0 if p in s.outcome else -1.0 for p in range(n)]
    return s


@pytest.mark.parametrize("n", sorted(GAMES))
def test_random_games_keep_every_invariant(n):
    options = LostCityOptions(num_players=n)
    eliminations = cap_ends = draws = 0
    winners = [0] * n
    characters_won = set()
    for game in range(GAMES[n]):
        s = play_checked_game(options, seed=1000 * n + game)
        eliminations += n - sum(hp > 0 for hp in s.hp)
        cap_ends += s.round > options.max_rounds
        draws += len(s.outcome) > 1
        if len(s.outcome) == 1:
            winners[s.outcome[0]] += 1
            characters_won.add(s.char[s.outcome[0]])
    assert eliminations > GAMES[n] // 4  # fights do happen
    assert all(w > 0 for w in winners), winners  # every seat can win
    assert len(characters_won) >= 5


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2, "characters": ("Rob", "Jamie"), "black_faces": 6, "max_rounds": 60},
        {"num_players": 3, "characters": ("Aaron", "Jamie", "Josh"), "black_faces": 6, "max_rounds": 60},
        {"num_players": 4, "first_player": "seat0", "bad_draw_discards_held": False, "black_faces": 3},
        {"num_players": 7, "black_faces": 0, "max_rounds": 30},
        {"num_players": 5, "card_counts": (0, 0, 0, 0, 0, 0, 0, 3), "black_faces": 6, "max_rounds": 60},
        {"num_players": 2, "board_size": 6, "ruins": ((2, 2),), "spawns": ((0, 0), (5, 5))},
        {"num_players": 3, "characters": "random", "cap_tiebreak": "hp", "max_rounds": 20},
        {"num_players": 6, "first_player": "seat0", "cap_tiebreak": "hp_share", "max_rounds": 20},
    ],
)
def test_random_games_with_other_options(options):
    opts = LostCityOptions(**options)
    for g in range(15):
        play_checked_game(opts, seed=70_000 + g)


def test_every_card_ability_and_status_shows_up_in_random_play():
    """Coverage of the random games: each card kind drawn, each ability used, each status seen."""
    opts = LostCityOptions(num_players=7, black_faces=6, max_rounds=60)
    drawn, used, statuses = set(), set(), set()
    for g in range(12):
        rng = np.random.default_rng(g)
        s = LostCityState(opts)
        while not s.is_terminal():
            if s.is_chance_node():
                if s.phase == P_DRAW:
                    before = s.deck.unseen[:]
                    s.apply_action(s.sample_chance(rng))
                    drawn.add(next(k for k in range(8) if s.deck.unseen[k] != before[k]))
                else:
                    s.apply_action(s.sample_chance(rng))
                continue
            legal = s.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            if ABILITY <= action < COPY:
                used.add(s.copy if s.copy >= 0 else s.char[s.to_move])
            s.apply_action(action)
            statuses |= {"burn"} if any(s.burn) else set()
            statuses |= {"skip"} if any(s.skip) else set()
            statuses |= {"seduced"} if any(c >= 0 for c in s.ctrl) else set()
    assert drawn == set(range(8))
    assert used >= {ch.SEDUCTION, ch.HEALTH_STEAL, ch.FIRE, ch.DOUBLE_HIT, ch.TRAP}
    assert statuses == {"burn", "skip", "seduced"}
