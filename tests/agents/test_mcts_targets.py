"""What a search leaves for expert iteration (``last_search``'s targets) and self-play's root
exploration: Dirichlet noise on PUCT's root prior and a move temperature, both off by default."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from agent_helpers import decision_states

from boardenvs.core.state import State
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.evaluators import Evaluation, Evaluator
from boardenvs_agents.search.mcts import MCTSPolicy


class FavourMiddle(Evaluator):
    """A prior of ``share`` on the middle legal action (the rest shared out), values all 0; draws nothing."""

    has_prior = True
    draws_random = False

    def __init__(self, share: float = 0.9) -> None:
        self.share = share

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        out = []
        for state in states:
            legal = state.legal_actions()
            favoured = middle_action(state)
            rest = (1 - self.share) / (len(legal) - 1) if len(legal) > 1 else 0.0
            prior = {a: self.share if a == favoured else rest for a in legal} if rest else {favoured: 1.0}
            out.append(Evaluation([0.0] * len(state.returns()), prior))
        return out


def middle_action(state: State) -> int:
    legal = state.legal_actions()
    return legal[len(legal) // 2]


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:sims=12,depth=4,leaf=eval",
        "mcts:evaluator=ppo:sorry_v0,sims=12",
        "mcts:evaluator=ppo:sorry_v0,sims=1",
    ],
)
def test_the_visit_distribution_is_the_target(spec):
    policy = make_policy(spec, "sorry_v0", seed=0)
    for state in decision_states("sorry_v0", 2, every=4, limit=4, num_players=4):
        action = policy.act(state)
        search = policy.last_search
        legal = state.legal_actions()
        target = search["target"]
        assert target is search["visit_policy"] and search["improved_policy"] is None
        assert sorted(target) == sorted(legal) and sum(target.values()) == pytest.approx(1.0)
        total = sum(search["visits"].values())
        if total:
            assert target == {a: n / total for a, n in search["visits"].items()}
            assert target[action] == max(target.values())
        else:  # one PUCT simulation: only the root was evaluated, its prior is all the search knows
            assert target == search["prior"] and action == max(target, key=target.get)
        values = search["values"]
        assert len(values) == 4 and all(-1.0 <= v <= 1.0 for v in values)


def test_the_defaults_add_no_noise_and_no_temperature():
    """Explicit defaults search exactly as no options (the pinned specs stay as they were)."""
    states = decision_states("lost_city_v0", 3, every=4, limit=4, num_players=4)
    for spec in ["mcts:sims=10,depth=4,leaf=eval", "mcts:evaluator=ppo:lost_city_v0,sims=10"]:
        plain = make_policy(spec, "lost_city_v0", seed=1, game_options={"num_players": 4})
        explicit = make_policy(
            spec + ",temperature=0,dirichlet_frac=0,dirichlet_alpha=0.3",
            "lost_city_v0",
            seed=1,
            game_options={"num_players": 4},
        )
        for state in states:
            assert (plain.act(state), plain.last_search) == (explicit.act(state), explicit.last_search)


#: Noise that replaces the prior, mostly on one action.
NOISE = {"dirichlet_alpha": 0.03, "dirichlet_frac": 1.0}


def test_dirichlet_noise_moves_puct_off_the_prior_and_is_reproducible():
    states = decision_states("sorry_v0", 6, every=3, limit=8, num_players=4)
    states = [s for s in states if len(s.legal_actions()) >= 3]
    assert len(states) >= 4
    off_prior = 0
    for state in states:
        quiet = MCTSPolicy(seed=2, sims=20, evaluator=FavourMiddle())
        assert quiet.act(state) == middle_action(state)
        noisy = MCTSPolicy(
            seed=2, sims=20, evaluator=FavourMiddle(), dirichlet_alpha=0.03, dirichlet_frac=1.0
        )
        action = noisy.act(state)
        assert noisy.last_search["prior"] == quiet.last_search["prior"]  # the evaluator's, noise apart
        again = MCTSPolicy(
            seed=2, sims=20, evaluator=FavourMiddle(), dirichlet_alpha=0.03, dirichlet_frac=1.0
        )
        assert (again.act(state), again.last_search) == (action, noisy.last_search)
        off_prior += action != middle_action(state)
    assert off_prior >= 2


def test_temperature_samples_in_proportion_to_the_visits():
    states = decision_states("sorry_v0", 7, every=1, limit=60, num_players=4)
    state = next(s for s in states if len(s.legal_actions()) == 3)
    evaluator = FavourMiddle(share=0.5)
    chosen = []
    for seed in range(60):
        policy = MCTSPolicy(seed=seed, sims=30, evaluator=evaluator, temperature=1.0)
        action = policy.act(state)
        visits = policy.last_search["visits"]
        assert visits[action] > 0  # never an unvisited action
        chosen.append(action)
    share = visits[middle_action(state)] / sum(visits.values())
    assert 0.3 < share < 0.9 and len(set(chosen)) == 3
    assert abs(chosen.count(middle_action(state)) / len(chosen) - share) < 0.2
    # A temperature near 0 is the most visited action; it can be changed between moves.
    policy = MCTSPolicy(seed=0, sims=30, evaluator=evaluator, temperature=0.01)
    assert policy.act(state) == middle_action(state) == max(visits, key=visits.get)
    policy.temperature = 0.0
    assert policy.act(state) == middle_action(state)


def test_self_play_options_are_checked():
    for kwargs, message in [
        ({"temperature": -1.0}, "temperature must be a non-negative number"),
        (
            {"dirichlet_frac": 1.5, "evaluator": FavourMiddle()},
            r"dirichlet_frac must be a number in \[0, 1\]",
        ),
        ({"dirichlet_alpha": 0.0, "evaluator": FavourMiddle()}, "dirichlet_alpha must be a positive number"),
        ({"dirichlet_frac": 0.25}, "selection 'uct' has no prior"),
    ]:
        with pytest.raises(ValueError, match=message):
            MCTSPolicy(seed=0, **kwargs)
    policy = make_policy(
        "mcts:evaluator=ppo:sorry_v0,dirichlet_alpha=0.3,dirichlet_frac=0.25,temperature=1", "sorry_v0"
    )
    assert (policy.dirichlet_alpha, policy.dirichlet_frac, policy.temperature) == (0.3, 0.25, 1.0)
    assert "dirichlet_frac=0.25" in repr(policy) and "temperature=1.0" in repr(policy)
