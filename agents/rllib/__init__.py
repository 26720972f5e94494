"""Multi-agent training on Ray RLlib (new API stack): the optional ``rllib`` extra.

``pip install -e ".[train,rllib]"`` (torch first, as for ``[train]``). Nothing here is imported by
``boardenvs`` or by the rest of ``agents`` until asked for: the ``rllib:<checkpoint>`` spec of
:func:`boardenvs_agents.registry.make_policy` imports :mod:`boardenvs_agents.rllib.policy` when it is used.

* :mod:`boardenvs_agents.rllib.config`: the YAML config (``configs/<game>/rllib.yaml``), checked before
  Ray starts;
  policy mappings ``shared`` (self-play), ``per_role`` and ``vs_fixed`` (a learner against agents from
  :mod:`agents`).
* :mod:`boardenvs_agents.rllib.env`: any boardenvs AEC env as an RLlib ``MultiAgentEnv`` for turn-based games.
* :mod:`boardenvs_agents.rllib.module`: a PPO ``RLModule`` (torch) that masks illegal actions' logits.
* :mod:`boardenvs_agents.rllib.training`: the ``PPOConfig``, metrics, checkpoints with metadata, evaluation.
* :mod:`boardenvs_agents.rllib.policy`: a trained checkpoint as an :class:`boardenvs_agents.base.Policy`.

``docs/rllib.md`` has the walk-through: one laptop, and a Ray cluster of several machines.
"""
