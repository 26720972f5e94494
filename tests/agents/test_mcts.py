"""The search agent (agents/mcts.py): legal play, forced wins, no peeking, determinism, the registry."""

from __future__ import annotations

import agent_helpers
import numpy as np
import pytest
from agent_helpers import (
    OnlyWhatTheSeatMayRead,
    decision_states,
    hidden_variant,
    lost_city_position,
    sorry_position,
)

import boardenvs
from boardenvs import make_game
from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs.gangsi.cards import COLOR_MASK
from boardenvs.gangsi.rules import FACE, KYONSHI, PH_CHOOSE, PH_DIR, PH_KY_MOVE, STEP, GangsiState
from boardenvs.lost_city.rules import ABILITY
from boardenvs.neighborhood.rules import PLAYER, NeighborhoodOptions, NeighborhoodState
from boardenvs.sorry import board as sorry_board
from boardenvs.sorry.board import HOME, START
from boardenvs.sorry.cards import CARD_NAMES, ELEVEN
from boardenvs.sorry.rules import FORWARD_ACTION, SWITCH
from boardenvs_agents.games import leaf_values
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.mcts import MCTSPolicy

GAMES = ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"]
#: A cheap search for tests that only need legal, reproducible play.
FAST = "mcts:sims=8,depth=4,leaf=eval"


def decide(state: State, seed: int = 0, **options) -> tuple[int, dict[int, int]]:
    """The action of a fresh MCTS policy with ``seed`` and its root visit counts."""
    policy = MCTSPolicy(seed=seed, **options)
    action = policy.act(state)
    return action, policy.last_search["visits"]


# -- legal play ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_mcts_plays_only_legal_actions_in_every_seat(game_name):
    game = make_game(game_name, num_players=4)
    for seed in range(2):
        specs = [FAST, "random", FAST, "heuristic:depth=1" if game_name == "neighborhood_v0" else "heuristic"]
        result, log = agent_helpers.play_logged(game, specs[seed:] + specs[:seed], seed)
        assert result.num_decisions == len(log) > 0  # Recorder asserted every action legal
        mcts_seats = {p for p, spec in enumerate(specs[seed:] + specs[:seed]) if spec == FAST}
        assert any(seat in mcts_seats for seat, _ in log)


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:sims=6",
        # Two simulations, each a heuristic rollout to the end of the game: the 123 searches of this game
        # still play 246 such rollouts (6 simulations took 34 s of CPU, 2 take 11 s).
        "mcts:sims=2,rollout=heuristic:depth=1",
        "mcts:sims=6,depth=3",
        "mcts:sims=6,depth=0,leaf=eval",
    ],
)
def test_every_rollout_and_leaf_setting_plays_legally(spec):
    # Neighborhood games are short; the default (random rollouts to the end) stays cheap there.
    game = make_game("neighborhood_v0", num_players=3)
    result, log = agent_helpers.play_logged(game, [spec, "random", spec], seed=4)
    assert len(log) == result.num_decisions


def test_registry_spec_and_bad_options():
    policy = make_policy("mcts:sims=50,rollout=heuristic,c=0.5,depth=12,leaf=eval", "sorry_v0", seed=1)
    assert isinstance(policy, MCTSPolicy) and policy.name == "mcts"
    assert (policy.sims, policy.rollout, policy.c, policy.depth, policy.leaf) == (
        50,
        "heuristic",
        0.5,
        12,
        "eval",
    )
    assert make_policy("mcts", "sorry_v0").sims == 200
    timed = make_policy("mcts:seconds=0.5", "sorry_v0")
    assert (timed.sims, timed.seconds) == (None, 0.5)
    for spec, message in [
        ("mcts:sims=0", "sims must be a positive integer"),
        ("mcts:seconds=-1", "seconds must be a positive number"),
        ("mcts:c=-0.1", "c must be a non-negative number"),
        ("mcts:depth=-2", "depth must be a non-negative integer"),
        ("mcts:rollout=greedy", "rollout must be"),
        ("mcts:leaf=magic", "leaf must be"),
        ("mcts:simulations=5", "unknown option 'simulations'"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_policy(spec, "sorry_v0")


def test_a_time_budget_runs_at_least_one_simulation():
    state = decision_states("lost_city_v0", 0, every=5, limit=1)[0]
    policy = MCTSPolicy(seed=0, seconds=1e-6)
    assert policy.act(state) in state.legal_actions()
    assert policy.last_search["sims"] >= 1
    capped = MCTSPolicy(seed=0, seconds=60.0, sims=5)  # both given: whichever comes first
    capped.act(state)
    assert capped.last_search["sims"] == 5


def test_a_lone_legal_action_is_played_without_a_search():
    state = make_game("sorry_v0", num_players=2).new_initial_state()
    state.apply_action(CARD_NAMES.index("4"))  # every pawn in Start: a 4 only moves backward, so pass
    assert len(state.legal_actions()) == 1
    policy = MCTSPolicy(seed=0)
    assert policy.act(state) == state.legal_actions()[0]
    assert policy.last_search["sims"] == 0


# -- forced wins in scripted positions ---------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"depth": 6, "leaf": "eval"}, {"rollout": "heuristic"}], ids=str)
def test_sorry_the_eleven_that_brings_the_last_pawn_home(options):
    """S13: an 11 moves 11 forward or switches; the forward 11 takes Red's last pawn Home, and all three
    pawns Home win the game (Object). Every switch (S12) leaves the game going."""
    color = 0
    at = next(t for t in range(60) if sorry_board.FORWARD_TABLE[color][t][11] == HOME)
    state = sorry_position(
        {0: [HOME, HOME, at], 1: [5, 20, START], 2: [35, START, START], 3: [50, 8, 12]}, ELEVEN
    )
    win = FORWARD_ACTION + 2
    legal = state.legal_actions()
    assert win in legal and sum(SWITCH <= a < SWITCH + 27 for a in legal) == 6
    action, visits = decide(state, seed=3, sims=60, **options)
    assert action == win
    child = state.clone()
    child.apply_action(action)
    assert child.current_player() == TERMINAL and child.returns()[0] == 1.0
    assert visits[win] == max(visits.values())


@pytest.mark.parametrize("options", [{}, {"depth": 6, "leaf": "eval"}], ids=str)
def test_lost_city_the_trap_that_kills_the_last_opponent(options):
    """T24: Chris's Trap deals 40 with no roll (T18), so it kills Jack's 30 HP for certain and the last
    character standing wins (T26); a basic attack needs its hit and damage rolls (4.1, T10)."""
    state = lost_city_position()
    trap = ABILITY + state.offset(1) - 1
    legal = state.legal_actions()
    assert trap in legal and len(legal) >= 3
    action, _ = decide(state, seed=1, sims=80, **options)
    assert action == trap
    state.apply_action(action)
    assert state.is_terminal() and state.returns() == [1.0, -1.0, -1.0]


def gangsi_state_at(phase: int, seed: int = 0, **options) -> GangsiState:
    """The first node of ``phase`` in a seeded random Gangsi game."""
    game = make_game("gangsi_v0", **options)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not (state.phase == phase and not state.interrupt):
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
    return state


def test_gangsi_the_kyonshi_catches_for_its_last_token():
    """K18: stepping onto a hunter catches it and hands over a life token; the token that reaches the end
    table's threshold wins. The hunter has just revealed a treasure, so its square is public (K9)."""
    state = gangsi_state_at(PH_KY_MOVE, num_hunters=3)
    maze = state.maze
    ky = state.ky
    d, cell = next(
        (d, c)
        for d, c in enumerate(maze.nbr[ky])
        if c >= 0 and maze.enterable[c] and c not in (maze.entrance, maze.coffin)
    )
    far = [c for c in range(maze.size) if maze.enterable[c] and maze.dist[ky][c] > 3]
    state.pos = [cell, far[0], far[-1]]
    state.maybe = [1 << cell, 1 << far[0], 1 << far[-1]]
    state.tokens = state.threshold - 1
    state.ky_steps = 1
    state._legal = None
    assert STEP + d in state.legal_actions() and len(state.legal_actions()) >= 3
    action, _ = decide(state, seed=0, sims=60)
    assert action == STEP + d
    state.apply_action(action)
    assert state.is_terminal() and state.returns()[KYONSHI] == 1.0


def test_gangsi_a_hunter_declares_and_steers_to_its_fifth_treasure():
    """K20: the fifth reveal wins alone; K23: stopping on an own unrevealed treasure reveals it. The hunter
    has to declare the right face (K29) and then pick the direction (K10): two decisions in a row."""
    state = gangsi_state_at(PH_CHOOSE, num_hunters=2)
    piece = state.acting
    player = state.player_of(piece)
    maze = state.maze
    t = (state.hand[piece] & -state.hand[piece]).bit_length() - 1  # the lowest card still to reveal
    state.revealed[piece] = state.hand[piece] & ~(1 << t)
    target = maze.treasure_cell[t]
    found = None
    for start in range(maze.size):
        if not maze.enterable[start] or start in (state.ky, target) or start in state.pos:
            continue
        state.pos[piece] = start
        for k in (2, 3):
            for d in range(4):
                if state.straight_dest(piece, start, k, d) == target:
                    found = (start, k, d)
                    break
            if found:
                break
        if found:
            break
    assert found is not None
    start, k, d = found
    state.pos[piece] = start
    state.faces = [0] * 5
    state.faces[k - 1] = 1
    state.faces[0 if k != 1 else 3] += 1
    state.aside = 3
    state._legal = None
    assert FACE + k - 1 in state.legal_actions() and len(state.legal_actions()) >= 2
    policy = MCTSPolicy(seed=2, sims=100)
    decisions = 0
    while state.current_player() == player:
        state.apply_action(policy.act(state))
        decisions += 1
    assert decisions == 2
    assert state.is_terminal() and state.winner == player


def neighborhood_position() -> NeighborhoodState:
    """The last turn of round 60 (the cap, L23) of a three-player game: Light Blue (seat 1) resolves the
    City Wild card Hire a Thug and names the player who loses 1 HP; Silver and Light Blue have 10 HP,
    Purple 7."""
    state = NeighborhoodState(NeighborhoodOptions(num_players=3, board_size=15))  # the squares below
    data = state.to_dict()
    data.update(
        hp=[10, 10, 7], pos=[224, 145, 125], to_move=1, first=0, direction=-1, round=60, turns=180,
        actor=1, dkind=3, started=True, stack=[[3, -1, 49, 0, 1, -1, -1, -1, 1, 3, 7, 0, -1, -1]],
        last_roll=[1, 4, 6, 180], legal=[238, 239], chance=[2, 3],
    )  # fmt: skip
    data["decks"][3]["unseen"][7] -= 1  # Hire a Thug is in play
    return NeighborhoodState.from_dict(data)


@pytest.mark.parametrize("options", [{}, {"depth": 6, "leaf": "eval"}], ids=str)
def test_neighborhood_the_thug_on_the_tied_leader_wins_at_the_cap(options):
    """L23: at the round cap the most HP wins, a tie is a draw among the tied. Sending the thug to Silver
    (tied at 10) wins for Light Blue; sending it to Purple leaves the tie: a draw."""
    state = neighborhood_position()
    assert state.current_player() == 1 and state.legal_actions() == [PLAYER + 1, PLAYER + 2]
    outcomes = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        assert child.is_terminal()
        outcomes[action] = child.returns()
    assert outcomes == {PLAYER + 1: [0.0, 0.0, -1.0], PLAYER + 2: [-1.0, 1.0, -1.0]}
    action, _ = decide(state, seed=0, sims=20, **options)
    assert action == PLAYER + 2  # the seat two after Light Blue: Silver


def test_max_n_in_a_three_player_game_with_an_eliminated_player():
    """In the core's toy game (tests/core/toy_game.py) seat 1 moves after seat 2 went out: reaching the
    target exactly wins, overshooting eliminates. Max^n: seat 1 maximizes its own return."""
    from core.toy_game import TAKE, ToyOptions, ToyState

    state = ToyState(ToyOptions(num_players=3, target=7))
    for secret in (0, 2, 2):
        state.apply_action(secret)
    state.scores = [3, 5, 9]
    state.out = [False, False, True]
    state.to_move = 1
    state.apply_action(1)  # the roll: face 2
    assert state.current_player() == 1 and state.is_out(2)
    action, _ = decide(state, seed=0, sims=40)
    assert action == TAKE


# -- no peeking ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_the_search_only_reads_the_root_through_determinize(game_name):
    for state in decision_states(game_name, 2, every=7, limit=3, num_players=4):
        before = state.to_dict()
        wrapped = OnlyWhatTheSeatMayRead(state)
        action = MCTSPolicy(seed=0, sims=12, depth=5, leaf="eval").act(wrapped)
        assert action in state.legal_actions()
        assert wrapped.calls == 12  # one fresh determinization per simulation
        assert state.to_dict() == before  # and the true state is left as it was


def test_gangsi_the_kyonshi_decides_the_same_whatever_the_hidden_squares_and_hands():
    """K9, K32: the Kyonshi sees neither the hunters' squares (unless revealed) nor any hand."""
    checked = 0
    for state in decision_states("gangsi_v0", 5, every=1, limit=400, num_hunters=3):
        if state.current_player() != KYONSHI or state.round < 3:
            continue
        variant = hidden_variant(state, KYONSHI, seed=checked + 100)
        if variant.pos == state.pos or variant.hand == state.hand:
            continue
        assert decide(state, seed=4, sims=30, depth=6, leaf="eval") == decide(
            variant, seed=4, sims=30, depth=6, leaf="eval"
        )
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_gangsi_a_hunter_decides_the_same_whatever_the_other_hands():
    """A hunter knows its own cards and what was revealed (K23), not the other hunters' hands."""
    checked = 0
    for state in decision_states("gangsi_v0", 6, every=3, limit=200, num_hunters=3):
        player = state.current_player()
        if player == KYONSHI:
            continue
        variant = hidden_variant(state, player, seed=checked + 200)
        mine = state.pieces_of(player)
        assert [variant.hand[j] for j in mine] == [state.hand[j] for j in mine]
        if variant.hand == state.hand:
            continue
        assert decide(state, seed=7, sims=30, depth=6, leaf="eval") == decide(
            variant, seed=7, sims=30, depth=6, leaf="eval"
        )
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def redeal(state: GangsiState, keep: set[int], rng: np.random.Generator) -> None:
    """Deal the unrevealed cards of the pieces not in ``keep`` again, from the cards they may hold."""
    known = 0
    for j in range(state.n):
        known |= state.revealed[j] | (state.hand[j] if j in keep else 0)
    for cmask in COLOR_MASK:
        needy = [j for j in range(state.n) if j not in keep and not state.revealed[j] & cmask]
        picks = rng.permutation([t for t in range(cmask.bit_length()) if cmask & ~known >> t & 1])
        for j, t in zip(needy, picks, strict=False):
            state.hand[j] = (state.hand[j] & ~cmask) | 1 << int(t)
    state._legal = None


@pytest.mark.parametrize(
    "options",
    [{"num_hunters": 4}, {"num_hunters": 3, "hunter_turns": True}, {"num_players": 2, "hunter_turns": True}],
    ids=str,
)
def test_gangsi_determinize_reads_only_the_players_information(options):
    """What ``determinize`` returns (and the generator draws it makes) must not depend on what the player
    may not know: for the Kyonshi the squares, hands, excluded cards (K33), the dice of the roll and a
    move in progress (K9, K32: only declared faces are public); for a hunter the other hands."""
    rng = np.random.default_rng(1)
    checked = 0
    for k, state in enumerate(decision_states("gangsi_v0", 7, every=1, limit=600, max_rounds=30, **options)):
        if k % 4:
            continue
        variant = state.clone()
        free = rng.permutation(
            [c for c in range(variant.maze.size) if variant.maze.enterable[c] and c != variant.ky]
        )
        variant.pos = [int(free[j]) if at >= 0 else at for j, at in enumerate(variant.pos)]
        variant.excluded = [int(rng.integers(1 << 23)) for _ in range(variant.n)]
        variant.faces = [int(x) for x in rng.permutation(variant.faces)]
        if variant.phase == PH_DIR:
            variant.cur, variant.visited, variant.steps = int(free[-1]), int(rng.integers(1 << 40)), 1
        redeal(variant, set(), rng)
        a = state.determinize(KYONSHI, np.random.default_rng(5))
        b = variant.determinize(KYONSHI, np.random.default_rng(5))
        assert a.to_dict() == b.to_dict()
        for player in range(1, state.options.num_players):
            other = state.clone()
            redeal(other, set(state.pieces_of(player)), rng)
            a = state.determinize(player, np.random.default_rng(6))
            b = other.determinize(player, np.random.default_rng(6))
            assert a.to_dict() == b.to_dict()
        checked += 1
    assert checked >= 50


@pytest.mark.parametrize("game_name", ["sorry_v0", "lost_city_v0", "neighborhood_v0"])
def test_decks_hold_no_order_so_future_draws_do_not_change_a_decision(game_name):
    """Sorry! (S1), Lost City (4.3) and Neighborhood (L25) hide only the deck order, which is not in the
    state: the draws are chance nodes sampled by whoever drives the game. Two envs with different seeds
    brought to the same position decide alike and then draw differently."""
    env_a = boardenvs.make(game_name, raw=True, num_players=4)
    env_b = boardenvs.make(game_name, raw=True, num_players=4)
    env_a.reset(seed=1)
    env_b.reset(seed=2)
    rng = np.random.default_rng(0)
    steps = 0
    while steps < 8 or len(env_a.game_state.legal_actions()) < 2:  # a few random moves into the game
        _, _, terminated, truncated, _ = env_a.last()
        mask = env_a.observe(env_a.agent_selection)["action_mask"]
        env_a.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert not env_a.game_state.is_terminal()
    snap = env_a.state_dict()
    snap["rng"] = env_b.state_dict()["rng"]  # env b keeps its own chance stream
    env_b.load_state_dict(snap)
    a, b = env_a.game_state, env_b.game_state
    assert a.to_dict() == b.to_dict()
    assert decide(a, seed=9, sims=40, depth=8, leaf="eval") == decide(
        b, seed=9, sims=40, depth=8, leaf="eval"
    )
    # The futures differ: the same moves meet different chance outcomes.
    for _ in range(200):
        if a.to_dict() != b.to_dict() or a.is_terminal():
            break
        _, _, terminated, truncated, _ = env_a.last()
        action = None if terminated or truncated else int(a.legal_actions()[0])
        env_a.step(action)
        env_b.step(action)
    assert a.to_dict() != b.to_dict()


# -- determinism --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_same_seed_same_search(game_name):
    for state in decision_states(game_name, 3, every=5, limit=3, num_players=4):
        assert decide(state, seed=11, sims=25, depth=6, leaf="eval") == decide(
            state, seed=11, sims=25, depth=6, leaf="eval"
        )
    rollout = "heuristic:depth=1" if game_name == "neighborhood_v0" else "heuristic"
    policy = MCTSPolicy(seed=0, sims=25, rollout=rollout, depth=6)
    first = [policy.act(s) for s in decision_states(game_name, 4, every=5, limit=3, num_players=4)]
    policy.reset(seed=0)
    again = [policy.act(s) for s in decision_states(game_name, 4, every=5, limit=3, num_players=4)]
    assert first == again


def test_whole_games_are_reproducible_and_ignore_global_generators():
    game = make_game("lost_city_v0", num_players=3)
    specs = [FAST, "random", "mcts:sims=5,rollout=heuristic,depth=3"]
    first = agent_helpers.play_logged(game, specs, seed=8)
    again = agent_helpers.play_logged(game, specs, seed=8, perturb=123)
    assert first == again


# -- leaf values --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_leaf_values_are_bounded_and_final_for_players_out(game_name):
    for state in decision_states(game_name, 1, every=3, limit=30, num_players=4):
        values = leaf_values(state)
        assert len(values) == 4 and all(-1.0 <= v <= 1.0 for v in values)
        for p, v in enumerate(values):
            if state.is_out(p):
                assert v == state.returns()[p] == -1.0
            else:
                assert abs(v) <= 0.5


def test_sorry_leaf_value_follows_pawn_progress():
    behind = sorry_position({0: [START, START, 10], 1: [HOME, 30, START]}, ELEVEN, num_players=2)
    values = leaf_values(behind)
    assert values[1] > 0 > values[0]
