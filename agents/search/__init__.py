"""Search agents: Monte Carlo tree search straight on the rules states (:mod:`.mcts`), its leaves scored
by an evaluator (:mod:`.evaluators`), many searches in lockstep with batched evaluations (:mod:`.batched`)."""

from boardenvs_agents.search.batched import search_many
from boardenvs_agents.search.evaluators import Evaluation, Evaluator, RolloutEvaluator
from boardenvs_agents.search.mcts import MCTSPolicy, make_mcts

__all__ = ["Evaluation", "Evaluator", "MCTSPolicy", "RolloutEvaluator", "make_mcts", "search_many"]
