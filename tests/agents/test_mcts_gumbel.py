"""Gumbel root selection (Gumbel MuZero): sequential halving, the improved policy, legal reproducible play."""

from __future__ import annotations

import math
from collections.abc import Sequence

import agent_helpers
import numpy as np
import pytest
from agent_helpers import decision_states, lost_city_position

from boardenvs import make_game
from boardenvs.core.state import State
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search import mcts
from boardenvs_agents.search.evaluators import Evaluation, Evaluator
from boardenvs_agents.search.mcts import MCTSPolicy, considered_visits

GAMES = ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"]


class Peaked(Evaluator):
    """A prior of ``1 - eps`` on the middle legal action (the rest shared out), values all 0."""

    has_prior = True
    draws_random = False

    def __init__(self, eps: float = 1e-6) -> None:
        self.eps = eps

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        out = []
        for state in states:
            legal = state.legal_actions()
            favoured = middle_action(state)
            rest = self.eps / (len(legal) - 1) if len(legal) > 1 else 0.0
            prior = {a: (1 - self.eps if a == favoured else rest) for a in legal}
            out.append(Evaluation([0.0] * len(state.returns()), prior))
        return out


def middle_action(state: State) -> int:
    legal = state.legal_actions()
    return legal[len(legal) // 2]


def test_the_halving_schedule_is_mctx_s():
    """mctx's ``get_sequence_of_considered_visits``: phases of ceil(log2 k), the considered set halved."""
    assert considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visits(2, 5) == (0, 0, 1, 1, 2)
    assert considered_visits(1, 4) == (0, 1, 2, 3)
    assert considered_visits(16, 8) == (0,) * 8  # fewer simulations than actions: 8 tried once
    assert considered_visits(3, 12) == (0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4)
    for k in range(1, 20):
        for sims in (1, 7, 32, 100):
            assert len(considered_visits(k, sims)) == sims


@pytest.mark.parametrize("game_name", GAMES)
def test_sims_k_visits_at_most_k_root_actions_and_the_improved_policy_sums_to_one(game_name):
    for state in decision_states(game_name, 3, every=3, limit=4, num_players=4):
        legal = state.legal_actions()
        for sims in (2, 4, 8):
            policy = MCTSPolicy(seed=sims, sims=sims, selection="gumbel", depth=4, leaf="eval")
            action = policy.act(state)
            search = policy.last_search
            visits = search["visits"]
            assert action in legal and sorted(visits) == sorted(legal)
            assert sum(visits.values()) == search["sims"] == sims
            assert sum(n > 0 for n in visits.values()) <= sims
            assert visits[action] == max(visits.values())  # chosen among the survivors
            improved = search["improved_policy"]
            assert sorted(improved) == sorted(legal) and search["target"] is improved
            assert sum(improved.values()) == pytest.approx(1.0) and min(improved.values()) >= 0
            assert search["prior"] == {a: 1 / len(legal) for a in legal}  # rollouts: uniform


def test_gumbel_k_caps_the_root_actions_considered():
    state = decision_states("sorry_v0", 1, every=1, limit=40, num_players=4)
    state = max(state, key=lambda s: len(s.legal_actions()))
    assert len(state.legal_actions()) >= 8
    for k in (1, 2, 3):
        policy = MCTSPolicy(seed=0, sims=24, selection="gumbel", gumbel_k=k, depth=4, leaf="eval")
        policy.act(state)
        assert sum(n > 0 for n in policy.last_search["visits"].values()) == k


@pytest.mark.parametrize("game_name", GAMES)
def test_a_strongly_peaked_prior_picks_its_argmax(game_name):
    for state in decision_states(game_name, 4, every=4, limit=4, num_players=4):
        for sims in (1, 4, 16):
            policy = MCTSPolicy(seed=sims, sims=sims, evaluator=Peaked(), selection="gumbel")
            assert policy.act(state) == middle_action(state) != state.legal_actions()[0]
            improved = policy.last_search["improved_policy"]
            # Values all equal: sigma(q) is 0 everywhere and the improved policy is the prior.
            assert improved == pytest.approx(policy.last_search["prior"])


def test_gumbel_with_rollouts_finds_the_winning_move():
    """Lost City: Chris's Trap kills Jack's 30 HP and wins (T24, T26); a uniform prior and rollouts."""
    state = lost_city_position()
    trap = next(a for a in state.legal_actions() if _wins(state, a))
    for seed in range(3):
        policy = MCTSPolicy(seed=seed, sims=32, selection="gumbel", depth=6, leaf="eval")
        assert policy.act(state) == trap
        improved = policy.last_search["improved_policy"]
        assert max(improved, key=improved.get) == trap


def _wins(state: State, action: int) -> bool:
    child = state.clone()
    child.apply_action(action)
    return child.is_terminal() and child.returns()[state.current_player()] == 1.0


# -- reproducible, legal play ------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_gumbel_with_rollouts_plays_legal_reproducible_games(game_name):
    spec = "mcts:selection=gumbel,sims=6,depth=3,leaf=eval"
    game = make_game(game_name, num_players=3)
    specs = [spec, "random", spec]
    first = agent_helpers.play_logged(game, specs, seed=2)
    result, log = first
    assert result.num_decisions == len(log) > 0 and any(seat in (0, 2) for seat, _ in log)
    assert agent_helpers.play_logged(game, specs, seed=2, perturb=5) == first


def test_gumbel_with_a_shipped_model_plays_legal_reproducible_games():
    spec = "mcts:evaluator=ppo:sorry_v0,selection=gumbel,sims=8"
    game = make_game("sorry_v0", num_players=4)
    specs = [spec, "heuristic", "random", "heuristic"]
    first = agent_helpers.play_logged(game, specs, seed=3)
    assert first[0].num_decisions == len(first[1]) > 0
    assert agent_helpers.play_logged(game, specs, seed=3, perturb=5) == first


def test_the_same_seed_the_same_search():
    for state in decision_states("gangsi_v0", 1, every=5, limit=4, num_hunters=3):
        runs = []
        for _ in range(2):
            policy = make_policy("mcts:evaluator=ppo:gangsi_v0,selection=gumbel,sims=12", "gangsi_v0", seed=7)
            runs.append((policy.act(state), policy.last_search))
        assert runs[0] == runs[1]


def test_gumbel_scale_zero_draws_no_noise():
    """Without noise, and with values all equal, the move is the prior's favourite whatever the seed."""
    for state in decision_states("sorry_v0", 2, every=3, limit=4, num_players=4):
        moves = set()
        for seed in range(4):
            policy = MCTSPolicy(
                seed=seed, sims=8, evaluator=Peaked(0.3), selection="gumbel", gumbel_scale=0.0
            )
            moves.add(policy.act(state))
        assert moves == {middle_action(state)}


def test_gumbel_options_are_checked():
    assert MCTSPolicy(seed=0, selection="gumbel", sims=4).gumbel_k == 16
    for kwargs, message in [
        ({"selection": "gumbel", "seconds": 0.1}, "give sims"),
        ({"selection": "gumbel", "sims": 4, "gumbel_k": 0}, "gumbel_k must be a positive integer"),
        ({"selection": "gumbel", "sims": 4, "gumbel_scale": -1.0}, "gumbel_scale must be a non-negative"),
        ({"selection": "gumbel", "sims": 4, "temperature": 1.0}, "not a temperature"),
        ({"selection": "gumbel", "sims": 4, "dirichlet_frac": 0.25}, "its own root noise"),
        ({"selection": "gumbel", "sims": 4, "gumbel_c_scale": 0.0}, "gumbel_c_scale must be a positive"),
        ({"selection": "gumbel", "sims": 4, "gumbel_rescale": 1}, "gumbel_rescale must be true or false"),
        ({"gumbel_k": 4}, "options of selection 'gumbel', not 'uct'"),
        ({"gumbel_rescale": False, "evaluator": Peaked()}, "options of selection 'gumbel', not 'puct'"),
        ({"gumbel_scale": 0.0, "evaluator": Peaked()}, "options of selection 'gumbel', not 'puct'"),
    ]:
        with pytest.raises(ValueError, match=message):
            MCTSPolicy(seed=0, **kwargs)
    with pytest.raises(ValueError, match="unknown option 'gumbel'"):
        make_policy("mcts:gumbel=1", "sorry_v0")
    policy = make_policy("mcts:selection=gumbel,sims=8,gumbel_k=4,gumbel_scale=0.5", "sorry_v0")
    assert (policy.selection, policy.gumbel_k, policy.gumbel_scale) == ("gumbel", 4, 0.5)
    assert "gumbel_k=4" in repr(policy)


def test_one_legal_action_is_its_own_target():
    game = make_game("sorry_v0", num_players=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.current_player() < 0 or len(state.legal_actions()) != 1:
        state.apply_action(
            state.sample_chance(rng) if state.current_player() < 0 else state.legal_actions()[0]
        )
    only = state.legal_actions()[0]
    policy = MCTSPolicy(seed=0, sims=8, selection="gumbel")
    assert policy.act(state) == only
    assert policy.last_search["target"] == policy.last_search["improved_policy"] == {only: 1.0}


def improved_policy_of(rescale: bool, gap: float) -> tuple[float, float]:
    """The improved policy of two root actions with a uniform prior, visited once each, whose Q-values
    for the mover differ by ``gap``: (the better one's probability, the other's)."""
    state = next(
        s
        for s in decision_states("sorry_v0", 1, every=1, limit=60, num_players=4)
        if len(s.legal_actions()) == 2
    )
    legal = list(state.legal_actions())
    me = state.current_player()
    policy = MCTSPolicy(seed=0, sims=2, evaluator=Peaked(0.5), selection="gumbel", gumbel_rescale=rescale)
    root = mcts._Node(len(state.returns()))
    root.prior = {a: 0.5 for a in legal}
    root.value = [0.0] * len(state.returns())
    for action, q in zip(legal, (gap, 0.0), strict=True):
        child = mcts._child(root, action * mcts._KEY + me + 1)
        child.visits = 1
        child.total[me] = q
    sigma, counts = policy._sigma(root, legal, me, root.prior)
    assert counts == [1, 1]
    improved = mcts._softmax(legal, [math.log(0.5) + s for s in sigma])
    return improved[legal[0]], improved[legal[1]]


def test_without_rescaling_a_small_value_gap_tilts_the_improved_policy_only_a_little():
    """``gumbel_rescale=False`` keeps Q in return units: a gap of 0.05 moves the improved policy a little
    (``(50 + 1) * 0.1 * 0.05`` = 0.255 logits); rescaled to [0, 1] (mctx's default, kept as the default)
    the same gap is the whole scale, 5.1 logits, and the policy nearly one-hot."""
    better, worse = improved_policy_of(False, 0.05)
    assert better / worse == pytest.approx(math.exp(0.255))
    better, worse = improved_policy_of(True, 0.05)
    assert better / worse == pytest.approx(math.exp(5.1))
    assert improved_policy_of(True, 0.5) == pytest.approx(improved_policy_of(True, 0.05))  # scale-free
    policy = make_policy("mcts:selection=gumbel,sims=8,gumbel_rescale=false,gumbel_c_scale=0.3", "sorry_v0")
    assert (policy.gumbel_rescale, policy.gumbel_c_scale) == (False, 0.3)
    assert "gumbel_c_scale=0.3, gumbel_rescale=False" in repr(policy)
