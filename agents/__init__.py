"""Agents for boardenvs games behind one interface (:class:`boardenvs_agents.base.Policy`).

``make_policy("random", "sorry_v0")`` and ``make_policy("heuristic", "sorry_v0")`` build the baselines;
specs take options after a colon, e.g. ``"mcts:sims=100,depth=10,leaf=eval"`` or ``"ppo:sorry_v0"``
(see :mod:`boardenvs_agents.registry` for every name).
"""

from boardenvs_agents.base import Policy, RandomPolicy
from boardenvs_agents.registry import make_policy, parse_spec, policy_names

__all__ = ["Policy", "RandomPolicy", "make_policy", "parse_spec", "policy_names"]
