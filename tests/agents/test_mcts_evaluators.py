"""Search takes an evaluator: the contract, PUCT with a prior, rollouts as evaluators, a learned network."""

from __future__ import annotations

from collections.abc import Sequence

import agent_helpers
import numpy as np
import pytest
from agent_helpers import (
    OnlyWhatTheSeatMayRead,
    assert_gangsi_search_blind_to_hidden_parts,
    decision_states,
    lost_city_position,
)

from boardenvs import make_game
from boardenvs.core.state import State
from boardenvs_agents.games import leaf_values
from boardenvs_agents.learning.evaluator import NetworkEvaluator
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.evaluators import Evaluation, Evaluator, RolloutEvaluator, uniform_prior
from boardenvs_agents.search.mcts import MCTSPolicy


class FavourOne(Evaluator):
    """A prior of 0.9 on one chosen action where it is legal (the rest shared out), values all 0; it
    records the movers of the states it was asked about."""

    has_prior = True

    def __init__(self, pick) -> None:
        self.pick = pick  # state -> the favoured action
        self.movers: list[int] = []

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        out = []
        for state in states:
            self.movers.append(state.current_player())
            legal = state.legal_actions()
            favoured = self.pick(state)
            rest = 0.1 / (len(legal) - 1) if len(legal) > 1 else 0.0
            prior = {a: (0.9 if a == favoured else rest) for a in legal} if favoured in legal else None
            out.append(Evaluation([0.0] * len(state.returns()), prior or uniform_prior(state)))
        return out


def middle_action(state: State) -> int:
    legal = state.legal_actions()
    return legal[len(legal) // 2]


# -- the selection rule follows the evaluator -----------------------------------------------------------
def test_uct_without_a_prior_and_puct_with_one():
    assert MCTSPolicy(seed=0).selection == "uct"
    assert MCTSPolicy(seed=0, evaluator=RolloutEvaluator("heuristic", 4, "eval")).selection == "uct"
    assert MCTSPolicy(seed=0, evaluator=FavourOne(middle_action)).selection == "puct"
    assert MCTSPolicy(seed=0, evaluator=FavourOne(middle_action), selection="uct").selection == "uct"
    for kwargs, message in [
        ({"selection": "alphazero"}, "selection must be one of"),
        ({"evaluator": "ppo:sorry_v0"}, "evaluator must be an Evaluator"),
        ({"evaluator": RolloutEvaluator(), "depth": 3}, "rollout, depth and leaf set the rollout evaluator"),
    ]:
        with pytest.raises(ValueError, match=message):
            MCTSPolicy(seed=0, **kwargs)


@pytest.mark.parametrize("game_name", ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"])
def test_one_simulation_plays_the_priors_favourite(game_name):
    """With one simulation only the root is evaluated: the move is the prior's argmax, not the first."""
    for state in decision_states(game_name, 5, every=4, limit=4, num_players=4):
        evaluator = FavourOne(middle_action)
        policy = MCTSPolicy(seed=0, sims=1, evaluator=evaluator)
        assert policy.act(state) == middle_action(state) != state.legal_actions()[0]
        assert policy.last_search["prior"][middle_action(state)] == 0.9
        assert evaluator.movers == [state.current_player()]


@pytest.mark.parametrize("game_name", ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"])
def test_puct_spends_its_simulations_where_the_prior_points(game_name):
    """Values all equal: PUCT visits the favoured root move most, and UCT (the prior ignored) does not."""
    for state in decision_states(game_name, 6, every=5, limit=3, num_players=4):
        favoured = middle_action(state)
        evaluator = FavourOne(middle_action)
        policy = MCTSPolicy(seed=1, sims=30, evaluator=evaluator)
        assert policy.act(state) == favoured
        visits = policy.last_search["visits"]
        assert visits[favoured] > sum(visits.values()) / 2
        assert all(mover >= 0 for mover in evaluator.movers)  # decision nodes only, never chance
        assert len(evaluator.movers) <= 30  # one evaluation a simulation at most (terminal: none)
        uct = MCTSPolicy(seed=1, sims=30, evaluator=FavourOne(middle_action), selection="uct")
        uct.act(state)
        assert uct.last_search["visits"][favoured] < visits[favoured]


def test_puct_follows_the_values_against_the_prior():
    """Lost City: Chris's Trap kills Jack's 30 HP and wins (T24, T26). A prior set against it (0.9 on
    another move) is overruled by the values the search finds with enough simulations."""
    state = lost_city_position()
    legal = state.legal_actions()
    trap = next(a for a in legal if _wins(state, a))
    assert trap != legal[0]  # the prior's favourite

    class Misleading(RolloutEvaluator):
        has_prior = True

        def evaluate(self, states, rng):
            out = []
            for s in states:
                prior = FavourOne(lambda st: st.legal_actions()[0]).evaluate([s], rng)[0].prior
                out.append(Evaluation(super().evaluate([s], rng)[0].values, prior))
            return out

    policy = MCTSPolicy(seed=2, sims=200, c=1.0, evaluator=Misleading(depth=6, leaf="eval"))
    assert policy.act(state) == trap


def _wins(state: State, action: int) -> bool:
    child = state.clone()
    child.apply_action(action)
    return child.is_terminal() and child.returns()[state.current_player()] == 1.0


# -- rollouts are evaluators --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options", [{}, {"depth": 6, "leaf": "eval"}, {"rollout": "heuristic", "depth": 5}], ids=str
)
def test_a_rollout_evaluator_searches_as_the_rollout_options_do(options):
    for state in decision_states("lost_city_v0", 2, every=6, limit=3, num_players=3):
        evaluator = RolloutEvaluator(**options)
        a = MCTSPolicy(seed=4, sims=15, evaluator=evaluator)
        b = MCTSPolicy(seed=4, sims=15, **options)
        assert a.act(state) == b.act(state)
        assert a.last_search == b.last_search and a.last_search["prior"] is None


@pytest.mark.parametrize("game_name", ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"])
def test_rollout_evaluations(game_name):
    states = decision_states(game_name, 3, every=4, limit=4, num_players=4)
    cut = RolloutEvaluator(depth=0, leaf="eval")
    rng = np.random.default_rng(0)
    assert [e.values for e in cut.evaluate([s.clone() for s in states], rng)] == [
        leaf_values(s) for s in states
    ]
    assert all(e.prior is None for e in cut.evaluate(states, rng)) and not cut.has_prior
    # A batch draws from the generator in the order of its states: as one at a time.
    full = RolloutEvaluator("random")
    batch = full.evaluate([s.clone() for s in states], np.random.default_rng(7))
    rng = np.random.default_rng(7)
    assert batch == [full.evaluate_one(s.clone(), rng) for s in states]


# -- a learned policy-value network -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sorry_network() -> NetworkEvaluator:
    return NetworkEvaluator(make_policy("ppo:sorry_v0", "sorry_v0"))


def test_network_evaluations_are_batched_priors_and_values_per_player(sorry_network):
    states = decision_states("sorry_v0", 1, every=3, limit=6, num_players=4)
    rng = np.random.default_rng(0)
    batch = sorry_network.evaluate(states, rng)
    assert batch == [sorry_network.evaluate_one(s) for s in states]  # the same alone or in a batch
    # Every seat read from its own observation (equal in the opening, all pawns in Start).
    assert sum(len(set(e.values)) > 1 for e in batch) >= 4
    policy = make_policy("ppo:sorry_v0", "sorry_v0")
    for state, evaluation in zip(states, batch, strict=True):
        assert sorted(evaluation.prior) == sorted(state.legal_actions())
        assert sum(evaluation.prior.values()) == pytest.approx(1.0)
        # The prior's favourite is the model's own greedy move.
        assert max(evaluation.prior, key=evaluation.prior.get) == policy.act(state)
        assert len(evaluation.values) == 4 and all(-1.0 <= v <= 1.0 for v in evaluation.values)
        # The mover's value is the model's value head on its observation (LearnedPolicy.value).
        mover = state.current_player()
        assert evaluation.values[mover] == pytest.approx(float(np.clip(policy.value(state), -1, 1)))


def test_a_player_out_keeps_its_final_return_under_the_network():
    evaluator = NetworkEvaluator(make_policy("ppo:lost_city_v0", "lost_city_v0"))
    checked = 0
    for state in decision_states("lost_city_v0", 1, every=1, limit=2000, num_players=4):
        out = [p for p in range(4) if state.is_out(p)]
        if not out:
            continue
        values = evaluator.evaluate_one(state).values
        assert all(values[p] == state.returns()[p] == -1.0 for p in out)
        assert all(-1.0 <= v <= 1.0 for v in values)
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def test_mcts_with_a_shipped_model_plays_legal_reproducible_games():
    spec = "mcts:evaluator=ppo:sorry_v0,sims=6"
    game = make_game("sorry_v0", num_players=4)
    specs = [spec, "heuristic", "random", "heuristic"]
    first = agent_helpers.play_logged(game, specs, seed=3)
    result, log = first
    assert result.num_decisions == len(log) > 0 and any(seat == 0 for seat, _ in log)
    assert agent_helpers.play_logged(game, specs, seed=3, perturb=5) == first
    policy = make_policy(spec, "sorry_v0", seed=0)
    assert isinstance(policy.evaluator, NetworkEvaluator) and policy.selection == "puct"


def test_one_simulation_with_a_shipped_model_plays_the_models_move():
    search = make_policy("mcts:evaluator=ppo:sorry_v0,sims=1", "sorry_v0", seed=0)
    model = make_policy("ppo:sorry_v0", "sorry_v0")
    states = decision_states("sorry_v0", 2, every=2, limit=10, num_players=4)
    assert [search.act(s) for s in states] == [model.act(s) for s in states]


def test_the_two_player_model_for_two_player_games():
    policy = make_policy("mcts:evaluator=ppo:sorry_v0,sims=3", "sorry_v0", game_options={"num_players": 2})
    assert policy.evaluator.policy.game.num_players == 2
    for state in decision_states("sorry_v0", 0, every=3, limit=3, num_players=2):
        assert policy.act(state) in state.legal_actions()


def test_bad_evaluators_are_refused_with_a_reason():
    for spec, message in [
        ("mcts:evaluator=magic", "unknown evaluator 'magic'"),
        ("mcts:evaluator=mcts", "unknown evaluator 'mcts'"),
        ("mcts:evaluator=heuristic", "needs a learned model"),
        ("mcts:evaluator=dqn:sorry_v0", "not a policy's logits"),
        ("mcts:evaluator=ppo:sorry_v0,depth=4", "rollout, depth and leaf set the rollout evaluator"),
        ("mcts:evaluator=ppo:no_such_model.zip", "no model file"),
    ]:
        with pytest.raises((ValueError, FileNotFoundError), match=message):
            make_policy(spec, "sorry_v0")


# -- no peeking ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "calls"),
    [
        ("", 10),
        ("dirichlet_frac=0.25,temperature=1", 10),  # self-play's root noise and move temperature
        ("selection=gumbel", 11),  # Gumbel: the root's evaluation + 10
    ],
)
def test_the_network_search_reads_the_root_only_through_determinize(options, calls):
    spec = "mcts:evaluator=ppo:gangsi_v0,sims=10" + (f",{options}" if options else "")
    for state in decision_states("gangsi_v0", 2, every=7, limit=4, num_hunters=3):
        before = state.to_dict()
        wrapped = OnlyWhatTheSeatMayRead(state)
        assert make_policy(spec, "gangsi_v0", seed=0).act(wrapped) in state.legal_actions()
        assert wrapped.calls == calls and state.to_dict() == before


@pytest.mark.parametrize("selection", ["puct", "gumbel"])
def test_gangsi_the_network_search_decides_the_same_whatever_the_hidden_parts(selection):
    """K9, K23, K32: what a seat may not know (the Kyonshi: squares and hands; a hunter: the other
    hands) changes neither the prior nor the values the search sees (nor Gumbel's noise), so nor its
    move."""
    search = make_policy(f"mcts:evaluator=ppo:gangsi_v0,selection={selection},sims=12", "gangsi_v0")
    assert_gangsi_search_blind_to_hidden_parts(search)
