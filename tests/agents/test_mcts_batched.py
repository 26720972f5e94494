"""Many searches in lockstep (agents/search/batched.py): the moves of each search alone, with one
evaluator call per round for all the searches that share a network."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from agent_helpers import OnlyWhatTheSeatMayRead, decision_states

from boardenvs.core.state import State
from boardenvs_agents.learning.evaluator import NetworkEvaluator
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.batched import search_many
from boardenvs_agents.search.evaluators import Evaluation, Evaluator
from boardenvs_agents.search.mcts import MCTSPolicy


class Counting(Evaluator):
    """Wraps an evaluator, recording the size of every call."""

    def __init__(self, inner: Evaluator, draws_random: bool) -> None:
        self.inner = inner
        self.has_prior = inner.has_prior
        self.draws_random = draws_random
        self.calls: list[int] = []

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        self.calls.append(len(states))
        return self.inner.evaluate(states, rng)


def mixed_states(game_name: str, **options) -> list[State]:
    """Decision nodes from a few seeded games, a lone legal action among them."""
    states = []
    for seed in range(3):
        states += decision_states(game_name, seed, every=5, limit=3, **options)
    return states


def alone_and_batched(specs: list[str], game_name: str, states: list[State], evaluator=None, **game_options):
    """Each policy's (action, last_search) searched alone, then all in lockstep, from the same seeds."""

    def fresh():
        policies = [
            make_policy(spec, game_name, seed=100 + i, game_options=game_options or None)
            for i, spec in enumerate(specs)
        ]
        if evaluator is not None:
            for policy in policies:
                policy.evaluator = evaluator
        return policies

    alone = []
    for policy, state in zip(fresh(), states, strict=True):
        alone.append((policy.act(state.clone()), policy.last_search))
    policies = fresh()
    actions = search_many(policies, [s.clone() for s in states])
    return alone, list(zip(actions, [p.last_search for p in policies], strict=True))


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:sims=12,depth=6,leaf=eval",  # UCT, rollouts drawing from each search's generator
        "mcts:sims=8,rollout=heuristic,depth=4",
        "mcts:selection=gumbel,sims=8,depth=4,leaf=eval",
        "mcts:selection=puct,sims=8,depth=4,leaf=eval,dirichlet_frac=0.25,temperature=1",
    ],
)
@pytest.mark.parametrize("game_name", ["sorry_v0", "gangsi_v0"])
def test_lockstep_rollout_searches_are_the_searches_alone(spec, game_name):
    options = {"num_players": 4} if game_name == "sorry_v0" else {"num_hunters": 3}
    states = mixed_states(game_name, **options)
    alone, batched = alone_and_batched([spec] * len(states), game_name, states, **options)
    assert batched == alone


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:evaluator=ppo:sorry_v0,sims=10",
        "mcts:evaluator=ppo:sorry_v0,selection=gumbel,sims=12",
        "mcts:evaluator=ppo:sorry_v0,sims=10,dirichlet_frac=0.25,temperature=1",
    ],
)
def test_one_forward_pass_serves_every_search(spec):
    """A network shared by all the searches, batched: each call holds the leaves of several searches,
    and every search is what it was alone."""
    states = mixed_states("sorry_v0", num_players=4)
    network = NetworkEvaluator(make_policy("ppo:sorry_v0", "sorry_v0"))
    shared = Counting(network, draws_random=False)  # the network draws no random numbers
    alone, batched = alone_and_batched([spec] * len(states), "sorry_v0", states, evaluator=shared)
    assert batched == alone
    lockstep = [n for n in shared.calls if n > 1]
    assert lockstep and max(lockstep) == sum(len(s.legal_actions()) > 1 for s in states)


def test_a_random_evaluator_is_called_once_per_search_with_its_own_generator():
    states = mixed_states("sorry_v0", num_players=4)
    searching = [s for s in states if len(s.legal_actions()) > 1]
    policies = [MCTSPolicy(seed=i, sims=6, depth=3, leaf="eval") for i in range(len(states))]
    shared = Counting(policies[0].evaluator, draws_random=True)
    for policy in policies:
        policy.evaluator = shared
    search_many(policies, states)
    assert set(shared.calls) == {1} and len(shared.calls) >= len(searching)


def test_searches_with_different_evaluators_and_options_in_one_lockstep():
    states = mixed_states("sorry_v0", num_players=4)
    specs = [
        ["mcts:sims=6,depth=3,leaf=eval", "mcts:evaluator=ppo:sorry_v0,selection=gumbel,sims=4"][i % 2]
        for i in range(len(states))
    ]
    alone, batched = alone_and_batched(specs, "sorry_v0", states)
    assert batched == alone


def test_the_driver_refuses_what_would_break_reproducibility():
    state = decision_states("sorry_v0", 0, every=1, limit=1, num_players=4)[0]
    policy = MCTSPolicy(seed=0, sims=4)
    for policies, states, message in [
        ([policy], [state, state], "1 policies for 2 states"),
        ([policy, policy], [state, state], "a policy given twice"),
        (policy, [state, state], "one policy per state"),
        ([MCTSPolicy(seed=0, seconds=0.01)], [state], "has a time budget"),
        ([make_policy("heuristic", "sorry_v0")], [state], "not an MCTS policy"),
    ]:
        with pytest.raises(ValueError, match=message):
            search_many(policies, states)
    assert search_many([], []) == []


def test_lockstep_searches_read_the_roots_only_through_determinize():
    states = decision_states("gangsi_v0", 2, every=7, limit=4, num_hunters=3)
    specs = [
        "mcts:evaluator=ppo:gangsi_v0,sims=6",
        "mcts:evaluator=ppo:gangsi_v0,selection=gumbel,sims=6",
    ] * 2
    policies = [make_policy(spec, "gangsi_v0", seed=i) for i, spec in enumerate(specs)]
    before = [s.to_dict() for s in states]
    wrapped = [OnlyWhatTheSeatMayRead(s) for s in states]
    actions = search_many(policies, wrapped)
    assert all(a in s.legal_actions() for a, s in zip(actions, states, strict=True))
    assert [s.to_dict() for s in states] == before and all(w.calls >= 6 for w in wrapped)
