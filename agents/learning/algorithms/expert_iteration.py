"""Expert iteration (``algo: exit``, issue 29): self-play with a search guided by a policy-value
network, then a fit of the network on the search's choices, iteration after iteration
(:mod:`boardenvs_agents.learning.expert`). ``configs/<game>/exit.yaml``; the shipped ``exit:<game>``
models.

Its network is a MaskablePPO actor-critic (the warm start is a ``ppo:`` model), so its models load,
play (``exit:<game>``, ``exit:<path.zip>``: the network alone, no search) and guide a search
(``mcts:evaluator=exit:<game>``) as PPO's do; what differs is the training loop, which is its own
(:attr:`~.record.Algorithm.runner`: :mod:`boardenvs_agents.learning.expert.run`), not SB3's ``learn``.
"""

from __future__ import annotations

from boardenvs_agents.learning.algorithms.record import Algorithm

EXIT = Algorithm(
    name="exit",
    model="sb3_contrib:MaskablePPO",
    policy="MlpPolicy",
    net_arch_heads=("pi", "vf"),
    runner="boardenvs_agents.learning.expert.run",
)
