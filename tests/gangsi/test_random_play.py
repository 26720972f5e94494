"""Seeded random games of gangsi_v0, with the rules' invariants checked after every single action.

The rules state is driven directly: one seeded numpy generator picks both the chance outcomes (cards,
dice) and the players' choices. Most games run with a short round cap (``max_rounds``, K26) so that
well over a thousand games fit in a few seconds; a set of games per configuration runs with the
default cap of 80 rounds. Rule ids (K1-K34) refer to ``docs/rules/gangsi.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import gangsi_v0
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.gangsi.cards import COLOR_MASK, LIVES, NUM_HUNTER_DICE, TOKENS_TO_WIN
from boardenvs.gangsi.rules import (
    DIR,
    FACE,
    KEEP,
    KYONSHI,
    NUM_HUNTER_ACTIONS,
    NUM_KYONSHI_ACTIONS,
    PASSED,
    PH_CHOOSE,
    PH_DEAL,
    PH_DIR,
    PH_KY_MOVE,
    PH_OVER,
    PH_RESET,
    REROLL,
    RESET,
    STOP,
    GangsiOptions,
    GangsiState,
)

SHORT_GAMES = 260  # per configuration, x 4 configurations below = 1,040 games
FULL_GAMES = 12  # per configuration with the default round cap
CONFIGS = [
    {"num_hunters": 2},
    {"num_hunters": 3},
    {"num_hunters": 4},
    {"num_hunters": 3, "hunter_turns": True},
]
IDS = ["2h", "3h", "4h", "3h-turns"]


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def check_position(s: GangsiState, ky_has_moved: bool) -> None:
    """Invariants that hold at every node."""
    m = s.maze
    n = s.n
    shared = (m.entrance, m.coffin)
    # Pieces: eliminated exactly when out of lives; one per square apart from entrance and coffin.
    on_board = []
    for j in range(n):
        assert 0 <= s.lives[j] <= LIVES
        if s.lives[j] == 0:
            assert s.pos[j] == -1 and s.maybe[j] == 0
        else:
            assert 0 <= s.pos[j] < m.size
            if s.pos[j] not in shared:
                on_board.append(s.pos[j])
            # K32: the Kyonshi's possibility set is sound: the true square is always in it.
            assert s.maybe[j] >> s.pos[j] & 1, (j, s.pos[j])
    assert len(on_board) == len(set(on_board)), s.pos
    assert s.ky not in on_board or s.phase == PH_OVER
    assert s.ky != m.entrance
    assert s.ky != m.coffin or not ky_has_moved  # K19
    # Life tokens: every token lost is held by the Kyonshi (K18).
    assert s.tokens == sum(LIVES - x for x in s.lives)
    assert s.tokens <= TOKENS_TO_WIN[n]
    if s.tokens == TOKENS_TO_WIN[n]:
        assert s.winner == KYONSHI
    # Cards: after the deal, one of each colour per piece, no card twice; reveals from the hand.
    dealt = 0
    for j in range(n):
        assert not dealt & s.hand[j]
        dealt |= s.hand[j]
        assert s.revealed[j] & ~s.hand[j] == 0
        assert not s.excluded[j] & s.hand[j]
        if s.phase != PH_DEAL:
            assert [popcount(s.hand[j] & cm) for cm in COLOR_MASK] == [1] * 5
        assert popcount(s.revealed[j]) < 5 or s.winner == s.player_of(j)
    # Dice: five in all (K15).
    assert 0 <= s.aside <= NUM_HUNTER_DICE
    assert sum(s.faces) + s.aside + s.to_roll <= NUM_HUNTER_DICE
    if s.phase in (PH_CHOOSE, PH_DIR):
        assert sum(s.faces) + s.aside == NUM_HUNTER_DICE
    assert 0 <= s.round <= s.options.max_rounds


def check_decision(s: GangsiState) -> list[int]:
    player = s.current_player()
    legal = list(s.legal_actions())
    assert legal and legal == sorted(set(legal))
    size = NUM_KYONSHI_ACTIONS if player == KYONSHI else NUM_HUNTER_ACTIONS
    assert all(0 <= a < size for a in legal)
    assert s.chance_outcomes() == []
    if s.phase == PH_RESET:
        assert legal == [KEEP, RESET] and 1 <= s.aside <= 4  # K16
    elif s.phase == PH_CHOOSE:
        faces = [a - FACE for a in legal if FACE <= a < DIR]
        assert legal[0] == REROLL and faces  # K13, K14, K29
        assert all(s.faces[f] for f in faces)
    elif s.phase == PH_DIR:
        assert all(DIR <= a < DIR + 4 for a in legal)
    else:
        assert s.phase == PH_KY_MOVE and legal[-1] == STOP and s.ky_steps > 0
    return legal


def play_checked_game(options: GangsiOptions, seed: int) -> GangsiState:
    rng = np.random.default_rng(seed)
    s = GangsiState(options)
    n = s.n
    ky_has_moved = False
    check_position(s, ky_has_moved)
    while True:
        player = s.current_player()
        if player == TERMINAL:
            break
        returns = s.returns()
        assert all(r == 0.0 or (r == -1.0 and s.is_out(p)) for p, r in enumerate(returns))
        if player == CHANCE:
            outcomes = dict(s.chance_outcomes())
            assert outcomes and abs(sum(outcomes.values()) - 1.0) < 1e-9
            assert s.legal_actions() == []
            outcome = s.sample_chance(rng)
            assert outcomes.get(outcome, 0.0) > 0.0
            s.apply_action(outcome)
            check_position(s, ky_has_moved)
            continue
        legal = check_decision(s)
        action = legal[int(rng.integers(len(legal)))]
        before = s.clone()
        s.apply_action(action)
        if player == KYONSHI and action != STOP:
            ky_has_moved = True
            assert s.maze.dist[before.ky][s.ky] == 1  # one orthogonal step (K17)
        if before.phase == PH_DIR and (s.phase != PH_DIR or s.acting != before.acting):
            # A move ended somewhere else (K11, K24, K30); a reveal happened exactly when the piece
            # stopped on a treasure it needed (K23).
            j = before.acting
            assert s.pos[j] != before.pos[j]
            t = s.maze.treasure_at[s.pos[j]]
            needed = t >= 0 and before.hand[j] >> t & 1 and not before.revealed[j] >> t & 1
            assert (s.revealed[j] != before.revealed[j]) == bool(needed)
            assert s.last_face[j] == before.face
        check_position(s, ky_has_moved)
    assert s.legal_actions() == []
    returns = s.returns()
    if s.is_truncated():
        assert returns == [0.0] * s.options.num_players or any(s.is_out(p) for p in range(1, n + 1))
    elif s.winner == KYONSHI:
        assert returns == [1.0] + [-1.0] * (s.options.num_players - 1)
        assert s.tokens == TOKENS_TO_WIN[n] or s.round == s.options.max_rounds
    else:
        j = next(j for j in range(n) if popcount(s.revealed[j]) == 5)
        assert s.winner == s.player_of(j)
        assert sorted(returns) == [-1.0] * (s.options.num_players - 1) + [1.0]
    return s


@pytest.mark.parametrize("options", CONFIGS, ids=IDS)
def test_random_games_keep_every_invariant(options):
    short = GangsiOptions(max_rounds=12, **options)
    ends = {"tokens": 0, "cap": 0, "hunter": 0}

    def count_end(s: GangsiState) -> None:
        if s.winner == KYONSHI:
            ends["tokens" if s.tokens == TOKENS_TO_WIN[s.n] else "cap"] += 1
        else:
            ends["hunter"] += 1

    passes = 0
    for game in range(SHORT_GAMES):
        s = play_checked_game(short, seed=10_000 * short.num_hunters + game)
        passes += PASSED in s.last_face
        count_end(s)
    full = GangsiOptions(**options)
    assert full.max_rounds == 80
    for game in range(FULL_GAMES):
        s = play_checked_game(full, seed=500 + game)
        assert s.is_terminal() and not s.is_truncated()
        assert s.round <= 80
        count_end(s)
    # Both ways a Kyonshi wins were reached (on the default map a random Kyonshi takes its tokens
    # only in the longer games).
    assert ends["tokens"] > 0 and ends["cap"] > 0, ends


def test_random_games_of_the_other_options():
    for options, games in (
        ({"num_players": 2, "max_rounds": 20}, 40),
        ({"num_hunters": 4, "max_rounds": 10, "round_cap": "truncate"}, 30),
        (
            {"num_hunters": 2, "kyonshi_die": (0, 6), "hunter_win_rewards": "others_zero", "max_rounds": 20},
            30,
        ),
        ({"num_hunters": 2, "hunter_turns": True, "max_rounds": 20}, 30),
    ):
        opts = GangsiOptions(**options)
        for game in range(games):
            s = play_checked_game(opts, seed=70_000 + game)
            if opts.round_cap == "truncate" and s.winner < 0:
                assert s.is_truncated() and s.round == opts.max_rounds


def test_hunters_can_win_random_games():
    # Hunters win now and then even at random: with a lenient Kyonshi die, a long cap, and turns allowed
    # (K10's variant: more landing squares for a random walker to stop on its treasures).
    opts = GangsiOptions(num_hunters=2, kyonshi_die=(0,), max_rounds=200, hunter_turns=True)
    winners = {play_checked_game(opts, seed=900 + g).winner for g in range(20)}
    assert winners & {1, 2}


def test_env_games_end_with_one_winner():
    for game in range(8):
        env = gangsi_v0.env(num_hunters=3, max_rounds=25)
        env.reset(seed=600 + game)
        rng = np.random.default_rng(game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            assert not trunc
            env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert sorted(totals.values()).count(1.0) == 1
        assert env.agents == []
