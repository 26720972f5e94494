"""One ply of expectimax on a learned value (``expectimax``): exact expectations over chance, the score
``Q + prior_weight * log P``, reproducible moves, and nothing read that the seat may not know."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from agent_helpers import (
    OnlyWhatTheSeatMayRead,
    assert_gangsi_search_blind_to_hidden_parts,
    decision_states,
)

from boardenvs.core.state import State
from boardenvs_agents.games import leaf_values
from boardenvs_agents.registry import make_evaluator, make_policy
from boardenvs_agents.search.evaluators import Evaluation, Evaluator, RolloutEvaluator, uniform_prior
from boardenvs_agents.search.expectimax import ExpectimaxPolicy


class Progress(Evaluator):
    """Values: the game's progress measure; prior: uniform. Draws nothing; counts the states it valued."""

    has_prior = True
    draws_random = False

    def __init__(self) -> None:
        self.valued = 0

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        self.valued += len(states)
        return [Evaluation(leaf_values(state), uniform_prior(state)) for state in states]


def progress(state: State, me: int) -> float:
    return leaf_values(state)[me]


def expected_value(state: State, me: int, value=progress) -> float:
    """The reference: ``me``'s probability-weighted ``value(position, me)`` over every chance outcome
    until a decision."""
    if state.is_terminal() or state.is_out(me):
        return float(state.returns()[me])
    if not state.is_chance_node():
        return value(state, me)
    total = 0.0
    for outcome, probability in state.chance_outcomes():
        child = state.clone()
        child.apply_action(outcome)
        total += probability * expected_value(child, me, value)
    return total


@pytest.mark.parametrize(("game_name", "options"), [("sorry_v0", {}), ("lost_city_v0", {"num_players": 2})])
def test_a_moves_value_is_the_exact_expectation_over_the_chance_that_follows(game_name, options):
    for state in decision_states(game_name, 1, every=5, limit=6, **options):
        me = state.current_player()
        search = ExpectimaxPolicy(Progress(), seed=0, top=100, prior_weight=0.0)
        move = search.act(state.clone())
        values = search.last_search["values"]
        assert sorted(values) == sorted(state.legal_actions())
        for action, q in values.items():
            after = state.clone()
            after.apply_action(action)
            assert q == pytest.approx(expected_value(after, me), abs=1e-12)
        assert values[move] == max(values.values())


def test_with_a_reply_the_next_players_move_and_the_chance_after_it_are_searched_too():
    reply = make_policy("ppo:sorry_v0", "sorry_v0")  # deterministic: its argmax

    def after_reply(position: State, me: int) -> float:
        state = position.clone()
        if state.is_terminal() or state.current_player() == me:
            return leaf_values(state)[me]
        state.apply_action(reply.act(state))
        return expected_value(state, me)

    for state in decision_states("sorry_v0", 3, every=6, limit=4):
        me = state.current_player()
        search = ExpectimaxPolicy(Progress(), seed=0, top=100, prior_weight=0.0, reply="ppo:sorry_v0")
        search.act(state.clone())
        for action, q in search.last_search["values"].items():
            after = state.clone()
            after.apply_action(action)
            assert q == pytest.approx(expected_value(after, me, after_reply), abs=1e-12)


def test_the_score_is_value_plus_weighted_log_prior_over_the_priors_top_moves():
    state = decision_states("sorry_v0", 2, every=3, limit=10)[-1]
    evaluator = make_evaluator("ppo:sorry_v0", "sorry_v0")
    prior = evaluator.evaluate_one(state.clone()).prior
    ranked = sorted(prior, key=lambda a: (-prior[a], a))
    for weight in (0.0, 0.01, 1e6):
        search = ExpectimaxPolicy(evaluator, seed=0, top=3, prior_weight=weight)
        move = search.act(state.clone())
        found = search.last_search
        assert found["moves"] == ranked[:3]
        for a in found["moves"]:
            assert found["scores"][a] == pytest.approx(found["values"][a] + weight * math.log(prior[a]))
        assert move == max(found["moves"], key=lambda a: found["scores"][a])
    assert move == ranked[0]  # a huge weight: the prior's favourite


def test_the_network_values_one_seat_as_its_full_evaluation_does():
    evaluator = make_evaluator("ppo:gangsi_v0", "gangsi_v0", {"num_hunters": 3})
    states = decision_states("gangsi_v0", 3, every=4, limit=12, num_hunters=3)
    for player in range(4):
        rng = np.random.default_rng()
        full = [e.values[player] for e in evaluator.evaluate([s.clone() for s in states], rng)]
        assert evaluator.values_of(states, player, rng) == pytest.approx(full, abs=1e-6)


def test_the_same_seed_makes_the_same_moves_and_a_lone_move_is_played_unsearched():
    states = decision_states("sorry_v0", 4, every=2, limit=8)
    first = make_policy("expectimax:evaluator=ppo:sorry_v0,top=4", "sorry_v0", seed=5)
    second = make_policy("expectimax:evaluator=ppo:sorry_v0,top=4", "sorry_v0", seed=5)
    assert [first.act(s.clone()) for s in states] == [second.act(s.clone()) for s in states]
    evaluator = Progress()
    lone = decision_states("sorry_v0", 0, every=1, limit=1, forced=True)[0]
    assert ExpectimaxPolicy(evaluator).act(lone) == lone.legal_actions()[0] and evaluator.valued == 0


def test_too_many_outcomes_are_sampled_instead_reproducibly():
    state = decision_states("sorry_v0", 1, every=5, limit=3)[-1]
    moves = []
    for _ in range(2):
        evaluator = Progress()
        search = ExpectimaxPolicy(evaluator, seed=9, top=2, max_outcomes=3, prior_weight=0.0)
        moves.append((search.act(state.clone()), search.last_search["values"]))
        assert evaluator.valued == 1 + 2 * 3  # the root's prior, then 3 sampled positions a move
    assert moves[0] == moves[1]


def test_the_search_reads_the_root_only_through_determinize():
    for samples in (1, 3):
        search = make_policy(f"expectimax:evaluator=ppo:gangsi_v0,samples={samples}", "gangsi_v0", seed=0)
        for state in decision_states("gangsi_v0", 2, every=7, limit=4, num_hunters=3):
            before = state.to_dict()
            wrapped = OnlyWhatTheSeatMayRead(state)
            assert search.act(wrapped) in state.legal_actions()
            assert wrapped.calls == samples and state.to_dict() == before


def test_gangsi_the_search_decides_the_same_whatever_the_hidden_parts():
    """K9, K23, K32: what a seat may not know changes neither its determinizations' draws nor its move."""
    search = make_policy("expectimax:evaluator=ppo:gangsi_v0,samples=2", "gangsi_v0")
    assert_gangsi_search_blind_to_hidden_parts(search)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expectimax", "give the evaluator"),
        ("expectimax:evaluator=ppo:sorry_v0,depth=2", "unknown option 'depth'"),
        ("expectimax:evaluator=ppo:sorry_v0,top=0", "top must be a positive integer"),
        ("expectimax:evaluator=ppo:sorry_v0,samples=1.5", "samples must be a positive integer"),
        ("expectimax:evaluator=ppo:sorry_v0,prior_weight=-1", "prior_weight must be a non-negative number"),
        ("expectimax:evaluator=ppo:sorry_v0,reply=5", "reply must be an agent spec"),
        ("expectimax:evaluator=dqn:sorry_v0", "policy-value model"),
    ],
)
def test_bad_options_are_named(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, "sorry_v0")


def test_an_evaluator_without_a_prior_is_refused():
    with pytest.raises(ValueError, match="with a prior"):
        ExpectimaxPolicy(RolloutEvaluator())


class Chain:
    """A toy state: seat 0 picks 0 or 1, then ``length`` chance nodes of one outcome each, then the end
    (seat 0 wins after 1)."""

    def __init__(self, length: int) -> None:
        self.length, self.moved, self.rolled = length, None, 0

    def current_player(self) -> int:
        return 0 if self.moved is None else -1

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def is_chance_node(self) -> bool:
        return self.moved is not None and self.rolled < self.length

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 1.0)]

    def sample_chance(self, rng: np.random.Generator) -> int:
        return 0

    def apply_action(self, action: int) -> None:
        if self.moved is None:
            self.moved = action
        else:
            self.rolled += 1

    def is_terminal(self) -> bool:
        return self.moved is not None and self.rolled == self.length

    def is_out(self, player: int) -> bool:
        return False

    def returns(self) -> list[float]:
        return [1.0 if self.moved == 1 else -1.0]

    def clone(self) -> Chain:
        twin = Chain(self.length)
        twin.moved, twin.rolled = self.moved, self.rolled
        return twin

    def determinize(self, player: int, rng: np.random.Generator) -> Chain:
        return self.clone()


class Uniform(Evaluator):
    """Values 0; a prior of ``None``, which the contract reads as uniform."""

    has_prior = True

    def evaluate(self, states, rng):
        return [Evaluation([0.0], None) for _ in states]


def test_a_long_run_of_chance_nodes_is_sampled_not_recursed():
    # Gangsi can roll for many players in a row before anybody has a move: past max_outcomes chance
    # nodes the search samples its paths, at any length.
    search = ExpectimaxPolicy(Uniform(), seed=0, max_outcomes=4, prior_weight=0.0)
    assert search.act(Chain(5_000)) == 1
    assert search.last_search["values"] == {0: -1.0, 1: 1.0}
    assert search.last_search["prior"] == {0: 0.5, 1: 0.5}
