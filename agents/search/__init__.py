"""Search agents: Monte Carlo tree search straight on the rules states (:mod:`.mcts`)."""

from boardenvs_agents.search.mcts import MCTSPolicy, make_mcts

__all__ = ["MCTSPolicy", "make_mcts"]
