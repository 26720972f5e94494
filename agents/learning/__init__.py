"""Learned agents: training configs, the training loop, self-play, masked DQN, and saved models as agents.

* :mod:`.algorithms`: the learning algorithms, one :class:`~.algorithms.Algorithm` record each (``ppo``,
  ``dqn``, or yours), found through the entry-point group ``boardenvs_agents.algorithms``: how each is
  built, trained, saved, loaded, checked and played (``docs/adding-an-algorithm.md``).
* :mod:`.config`: :class:`~.config.TrainConfig` and its checks (``configs/<game>/<algo>.yaml``).
* :mod:`.envs`: :func:`~.envs.make_single_agent_env`, the single-agent Gymnasium view with opponents by
  agent spec (what training builds its envs with).
* :mod:`.training`: vectorised envs, callbacks (checkpoints, self-play snapshots, evaluation).
* :mod:`.selfplay`: the opponent pool (fixed agents and frozen snapshots of the learner).
* :mod:`.masked_dqn`: DQN whose exploration, greedy choice and targets respect the action mask.
* :mod:`.models`: saving and checked loading of SB3 models, and :class:`~.models.LearnedPolicy`.

Everything here but :mod:`.envs` and the records of :mod:`.algorithms` needs the ``train`` extra (torch,
Stable-Baselines3, sb3-contrib); nothing is imported until asked for.
"""
