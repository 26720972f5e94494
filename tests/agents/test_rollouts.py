"""Policy improvement by paired rollouts (agents/search/rollouts.py): legal play, finding the move the
base policy misses, keeping the base move without evidence, no peeking, determinism, the registry."""

from __future__ import annotations

import pytest
from agent_helpers import OnlyWhatTheSeatMayRead, decision_states, sorry_position

from boardenvs import make_game
from boardenvs.core.state import TERMINAL, State
from boardenvs.sorry import board as sorry_board
from boardenvs.sorry.board import HOME, START
from boardenvs.sorry.cards import ELEVEN
from boardenvs.sorry.rules import FORWARD_ACTION, SWITCH
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.rollouts import RolloutPolicy

GAMES = ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"]


class LastLegal(Policy):
    """A poor base policy: always the highest legal action id."""

    name = "last"

    def act(self, state: State) -> int:
        return state.legal_actions()[-1]


def eleven_home() -> tuple[State, int]:
    """S13: Red's 11 can take its last pawn Home and win (Object); every switch (S12) plays on."""
    at = next(t for t in range(60) if sorry_board.FORWARD_TABLE[0][t][11] == HOME)
    pawns = {0: [HOME, HOME, at], 1: [5, 20, START], 2: [35, START, START], 3: [50, 8, 12]}
    state = sorry_position(pawns, ELEVEN)
    return state, FORWARD_ACTION + 2


def test_the_search_plays_the_win_its_base_policy_misses():
    state, win = eleven_home()
    base = LastLegal()
    assert base.act(state) != win and SWITCH <= base.act(state) < SWITCH + 27
    heuristic = make_policy("heuristic", "sorry_v0", seed=0)
    search = RolloutPolicy(base, heuristic, seed=0, seconds=None, rounds=6, top=10, depth=12)
    assert win in search.candidates(state)
    action = search.act(state)
    assert action == win
    after = state.clone()
    after.apply_action(action)
    assert after.current_player() == TERMINAL and after.returns()[0] == 1.0
    assert search.last_search["rounds"] == 6 and max(search.last_search["mean_gain"]) > 0


def test_without_clear_evidence_the_base_move_is_kept():
    state, win = eleven_home()
    base = LastLegal()
    heuristic = make_policy("heuristic", "sorry_v0", seed=0)
    # z so large that no difference over a few rollouts clears it.
    search = RolloutPolicy(base, heuristic, seed=0, seconds=None, rounds=3, top=10, depth=12, z=1e9)
    assert search.act(state) == base.act(state)


@pytest.mark.parametrize("game_name", GAMES)
def test_legal_reproducible_play_that_reads_only_through_determinize(game_name):
    spec = "rollouts:policy=heuristic,opponents=random,rounds=3,seconds=none,top=3,depth=6"
    for state in decision_states(game_name, 1, every=9, limit=3, num_players=4):
        before = state.to_dict()
        wrapped = OnlyWhatTheSeatMayRead(state)
        policy = make_policy(spec, game_name, seed=5)
        action = policy.act(wrapped)
        assert action in state.legal_actions()
        assert wrapped.calls == 3  # one determinization per round
        assert state.to_dict() == before
        again = make_policy(spec, game_name, seed=5)
        assert again.act(state) == action
        assert len(policy.last_search["candidates"]) == min(3, len(state.legal_actions()))


def test_a_learned_base_ranks_candidates_by_its_scores():
    state, _ = eleven_home()
    search = make_policy("rollouts:policy=ppo:sorry_v0,rounds=2,seconds=none,top=3", "sorry_v0", seed=0)
    base = search.base
    obs, mask = base.encode(state)
    scores = base.network.scores([obs], mask[None])[0]
    candidates = search.candidates(state)
    assert candidates[0] == base.act(state)
    ranked = [float(scores[a]) for a in candidates]
    assert ranked == sorted(ranked, reverse=True)


def test_a_first_policy_proposes_the_default_move_and_the_base_ranks_the_rest():
    state, _ = eleven_home()
    first = LastLegal()
    base = make_policy("ppo:sorry_v0", "sorry_v0", seed=0)
    search = RolloutPolicy(base, None, seed=0, seconds=None, rounds=2, top=4, first=first)
    obs, mask = base.encode(state)
    scores = base.network.scores([obs], mask[None])[0]
    candidates = search.candidates(state)
    assert candidates[0] == first.act(state) != base.act(state)
    ranked = [float(scores[a]) for a in candidates[1:]]
    assert ranked == sorted(ranked, reverse=True) and len(candidates) == 4
    assert ranked[0] == float(scores[base.act(state)])  # the base's own move is a challenger
    # Without clear evidence the first policy's move is the one played.
    search.z = 1e9
    assert search.act(state) == first.act(state)


def test_a_first_search_from_the_spec_is_seeded_and_restored_with_the_rollouts():
    state = decision_states("sorry_v0", 3, every=7, limit=1, num_players=4)[0]
    spec = (
        "rollouts:policy=ppo:sorry_v0,opponents=heuristic,rounds=2,seconds=none,"
        "first=expectimax:evaluator=ppo:sorry_v0"
    )
    search = make_policy(spec, "sorry_v0", seed=4)
    alone = make_policy("expectimax:evaluator=ppo:sorry_v0", "sorry_v0", seed=5)
    assert search.first.name == "expectimax" and "first=" in repr(search)
    assert search.candidates(state)[0] == alone.act(state)
    search.reset(seed=9)
    alone.reset(seed=10)
    assert search.candidates(state)[0] == alone.act(state)
    saved = search.state_dict()
    action = search.act(state)
    other = make_policy(spec, "sorry_v0", seed=0)
    other.load_state_dict(saved)
    assert other.act(state) == action and other.state_dict() == search.state_dict()
    with pytest.raises(ValueError, match="first policy"):
        other.load_state_dict({"rng": saved["rng"]})


def test_a_time_budget_runs_at_least_one_round_and_a_lone_action_none():
    state = decision_states("lost_city_v0", 0, every=5, limit=1, num_players=4)[0]
    search = make_policy("rollouts:seconds=0.001,top=2", "lost_city_v0", seed=0)
    assert search.act(state) in state.legal_actions()
    assert search.last_search["rounds"] >= 1
    search.last_search = {}
    game = make_game("sorry_v0")
    for card, _ in game.new_initial_state().chance_outcomes():  # S10: a card with one move from Start
        forced = game.new_initial_state()
        forced.apply_action(card)
        if len(forced.legal_actions()) == 1:
            break
    assert len(forced.legal_actions()) == 1
    assert search.act(forced) == forced.legal_actions()[0] and search.last_search == {}


@pytest.mark.parametrize(
    "spec, message",
    [
        ("rollouts:rounds=1,seconds=none", "rounds"),
        ("rollouts:top=1", "top"),
        ("rollouts:depth=0", "depth"),
        ("rollouts:z=-1", "z"),
        ("rollouts:seconds=0", "seconds"),
        ("rollouts:sims=5", "unknown option 'sims'"),
        ("rollouts:policy=nosuch", "unknown agent"),
        ("rollouts:first=nosuch", "unknown agent"),
    ],
)
def test_bad_options_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, "sorry_v0", seed=0)


def test_the_value_head_copy_matches_the_model():
    import torch

    state, _ = eleven_home()
    search = make_policy("rollouts:policy=ppo:sorry_v0,depth=4,leaf=value", "sorry_v0", seed=0)
    base = search.base
    obs, _ = base.encode(state)
    with torch.no_grad():
        expected = float(base.model.policy.predict_values(torch.as_tensor(obs[None])).item())
    assert base.value(state) == pytest.approx(expected, abs=1e-5)
    assert -1.5 < expected < 1.5


def test_value_leaves_score_rollouts_at_the_searching_seats_next_decision():
    state, win = eleven_home()
    search = make_policy(
        "rollouts:policy=ppo:sorry_v0,depth=1,leaf=value,rounds=6,seconds=none,top=27", "sorry_v0", seed=0
    )
    assert search.act(state) == win  # a win ends the rollout before any value is asked for
    calls = []
    values = search.base.values
    search.base.values = lambda leaves: calls.extend(s.current_player() for s in leaves) or values(leaves)
    states = decision_states("sorry_v0", 3, every=4, limit=2, num_players=4)
    for s in states:
        search.act(s)
    assert calls and set(calls) <= {s.current_player() for s in states}
    with pytest.raises(ValueError, match="leaf=value needs a learned base"):
        make_policy("rollouts:policy=heuristic,leaf=value", "sorry_v0", seed=0)
    with pytest.raises(ValueError, match="leaf must be"):
        make_policy("rollouts:leaf=eval", "sorry_v0", seed=0)


def test_value_leaves_read_in_one_batch_are_each_the_value_alone():
    states = decision_states("sorry_v0", 5, every=3, limit=12, num_players=4)
    base = make_policy("ppo:sorry_v0", "sorry_v0", seed=0)
    batch = base.values(states)
    assert batch == [base.value(s) for s in states]  # the same numbers, bit for bit
    assert len(set(batch)) > 1 and base.values([]) == []
