"""Seeded random games of sorry_v0, with the rules' invariants checked after every single action.

The rules state is driven directly (fast): one seeded numpy generator picks both the chance outcomes
(card draws) and the players' choices. Rule ids (S1-S24) refer to ``docs/rules/sorry.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import sorry_v0
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.sorry.board import HOME, SLIDES, START, TRACK_LEN
from boardenvs.sorry.cards import CARD_COUNTS, DECK_SIZE, ELEVEN
from boardenvs.sorry.rules import (
    BACKWARD_ACTION,
    NUM_ACTIONS,
    PASS,
    PAWNS,
    SORRY_ACTION,
    SPLIT,
    SPLIT_PAIRS,
    SWITCH,
    SorryOptions,
    SorryState,
)

# x 6 configurations = 1,020 games (the README's thousand), plus the 125 of the option variants below.
GAMES_PER_CONFIG = 170
CONFIGS = [(n, rule) for n in (2, 3, 4) for rule in ("own_color", "classic")]
NUM_KINDS = len(CARD_COUNTS)
VALID_POSITIONS = range(START + 1)  # 0-59 track, 60-64 safety, 65 Home, 66 Start


def check_position(state: SorryState) -> None:
    """Pawns, squares and the deck: invariants that hold at every node."""
    n = state.options.num_players
    pos = state.pos
    assert len(pos) == PAWNS * n  # every player always has exactly three pawns
    track = set()
    for p in range(n):
        mine = pos[PAWNS * p : PAWNS * p + PAWNS]
        occupied = []
        for at in mine:
            assert type(at) is int and at in VALID_POSITIONS, at
            if at < HOME:  # a track square or an own safety square
                occupied.append(at)
        assert len(set(occupied)) == len(occupied), f"player {p} doubled up: {mine}"
        for at in occupied:
            if at < TRACK_LEN:
                assert at not in track, f"two players on track square {at}: {pos}"
                track.add(at)
    # Deck conservation (S1): unseen draw pile + discards + the drawn card = 45, kind by kind.
    deck = state.deck
    assert deck.bottom == []
    assert deck.unseen_total == sum(deck.unseen)
    card = state.card
    for kind in range(NUM_KINDS):
        assert deck.unseen[kind] >= 0 and deck.discards[kind] >= 0
        assert deck.unseen[kind] + deck.discards[kind] + (card == kind) == CARD_COUNTS[kind]
    assert deck.unseen_total + sum(deck.discards) + (card >= 0) == DECK_SIZE


def check_decision(state: SorryState, player: int) -> list[int]:
    """Legal actions at a decision node."""
    legal = state.legal_actions()
    assert legal, "a player to move always has an action"
    assert all(0 <= a < NUM_ACTIONS for a in legal)
    assert all(a < b for a, b in zip(legal[:-1], legal[1:], strict=True)), f"not sorted / duplicated: {legal}"
    assert state.card >= 0 and state.to_move == player
    if PASS in legal and len(legal) > 1:
        # S13: PASS beside other actions only with an 11 that cannot move forward, next to switches.
        assert state.card == ELEVEN, legal
        assert all(SWITCH <= a < PASS for a in legal[:-1]), legal
    if state.card == ELEVEN and not any(a < BACKWARD_ACTION for a in legal):
        assert PASS in legal  # S13: with no forward 11 the switch may be declined
    return legal


def moved_pawns(before: list[int], mover: int, action: int) -> list[int]:
    """The mover's pawns that an action names (a Sorry! takes the lowest pawn in Start, S24)."""
    if action < SPLIT:
        return [action % PAWNS]
    if action < SWITCH:
        return list(SPLIT_PAIRS[(action - SPLIT) // 6])
    if action < SORRY_ACTION:
        return [(action - SWITCH) // 9]
    if action < PASS:
        return [before[PAWNS * mover : PAWNS * mover + PAWNS].index(START)]
    return []


def check_transition(before: list[int], state: SorryState, mover: int, card: int, action: int) -> None:
    """What an action may do to the pawns of the mover and the others."""
    n = state.options.num_players
    first = PAWNS * mover
    # S10/S11: a pawn that lands on a triangle it slides from goes on to the slide's end, so no pawn
    # the mover has just moved rests on such a triangle.
    slides = SLIDES[state.options.slide_rule][state.colors[mover]]
    for i in moved_pawns(before, mover, action):
        at = state.pos[first + i]
        assert at >= TRACK_LEN or slides[at] is None, (action, before, state.pos)
    vacated = {before[first + i] for i in range(PAWNS) if before[first + i] < TRACK_LEN}
    for k, (old, new) in enumerate(zip(before, state.pos, strict=True)):
        if old == HOME:
            assert new == HOME, "a pawn Home never moves again"
        if first <= k < first + PAWNS or old == new:
            continue
        # Another player's pawn: bumped to its Start, or switched onto a square the mover left (11).
        assert new == START or (card == ELEVEN and new in vacated), (k, old, new)
        assert old < TRACK_LEN, "only pawns on the open track can be bumped, switched or taken"
    homes = [sum(state.pos[PAWNS * p + i] == HOME for i in range(PAWNS)) for p in range(n)]
    assert all(h < PAWNS for p, h in enumerate(homes) if p != mover)


def play_checked_game(options: SorryOptions, seed: int) -> SorryState:
    """One seeded random game on the rules state, checked after every chance outcome and action."""
    rng = np.random.default_rng(seed)
    state = SorryState(options)
    n = options.num_players
    check_position(state)
    last_mover = None
    while True:
        player = state.current_player()
        if player == TERMINAL:
            break
        assert state.returns() == [0.0] * n
        if player == CHANCE:
            assert state.legal_actions() == []
            outcomes = dict(state.chance_outcomes())
            assert outcomes and abs(sum(outcomes.values()) - 1.0) < 1e-9
            outcome = state.sample_chance(rng)
            assert outcomes.get(outcome, 0.0) > 0.0
            turn = state.turn
            was_choosing = state.choosing_first
            state.apply_action(outcome)
            if not was_choosing:
                assert state.card == outcome and state.turn == turn + 1
            check_position(state)
            continue
        if last_mover is not None:
            assert player == (last_mover + 1) % n, "play passes to the left"
        legal = check_decision(state, player)
        action = legal[int(rng.integers(len(legal)))]
        before = state.pos[:]
        card = state.card
        state.apply_action(action)
        assert state.card == -1
        if action == PASS:
            assert state.pos == before
        check_position(state)
        check_transition(before, state, player, card, action)
        last_mover = player

    assert state.legal_actions() == []
    returns = state.returns()
    all_home = [p for p in range(n) if state.pos[PAWNS * p : PAWNS * p + PAWNS] == [HOME] * PAWNS]
    if state.is_truncated():
        assert state.turn == options.max_turns
        assert returns == [0.0] * n
        assert all_home == []
    else:
        assert state.winner == last_mover
        assert all_home == [state.winner]
        assert returns == [1.0 if p == state.winner else -1.0 for p in range(n)]
    return state


@pytest.mark.parametrize("num_players,slide_rule", CONFIGS)
def test_random_games_keep_every_invariant(num_players, slide_rule):
    options = SorryOptions(num_players=num_players, slide_rule=slide_rule)
    assert options.max_turns == 1000  # the default cap
    truncated = 0
    winners = [0] * num_players
    for game in range(GAMES_PER_CONFIG):
        state = play_checked_game(options, seed=1000 * num_players + game)
        if state.is_truncated():
            truncated += 1
        else:
            winners[state.winner] += 1
    # Measured: no game reaches 1,000 draws (4-player random games take about 240 draws, at most ~500).
    assert truncated <= GAMES_PER_CONFIG // 100, f"{truncated} of {GAMES_PER_CONFIG} games truncated"
    assert all(w > 0 for w in winners), winners  # every seat can win


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2, "start_count_exit_as": 0},
        {"num_players": 3, "seven_split_can_start": False, "slide_rule": "classic"},
        {"num_players": 4, "first_player": "random"},
        {"num_players": 2, "colors": (1, 2), "slide_rule": "classic"},
        {"num_players": 3, "colors": (3, 0, 2)},
    ],
)
def test_random_games_with_other_options(options):
    opts = SorryOptions(**options)
    truncated = sum(play_checked_game(opts, seed=70_000 + g).is_truncated() for g in range(25))
    assert truncated <= 1


def test_truncation_at_max_turns_pays_nothing():
    # 2 x 64 steps for each of three pawns cannot be done in 24 draws: every game is truncated.
    options = SorryOptions(num_players=2, max_turns=24)
    for seed in range(10):
        state = play_checked_game(options, seed)
        assert state.is_truncated() and state.turn == 24
    env = sorry_v0.env(num_players=2, max_turns=24)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        assert not term
        env.step(None if trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert totals == {a: 0.0 for a in env.possible_agents}
    assert env.unwrapped.game_state.is_truncated()


@pytest.mark.parametrize("num_players,slide_rule", CONFIGS)
def test_env_games_pay_one_winner(num_players, slide_rule):
    # Through the wrapped AEC env: +1 for exactly one agent, -1 for every other.
    for game in range(17):
        env = sorry_v0.env(num_players=num_players, slide_rule=slide_rule)
        env.reset(seed=500 + game)
        rng = np.random.default_rng(game)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            assert not trunc
            env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.unwrapped.game_state
        winner = f"player_{state.winner}"
        assert sorted(totals.values()) == [-1.0] * (num_players - 1) + [1.0]
        assert totals[winner] == 1.0
        assert env.agents == []
