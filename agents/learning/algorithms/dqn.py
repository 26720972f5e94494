"""Masked DQN (:mod:`boardenvs_agents.learning.masked_dqn`): the legal-action mask rides in the
observation, so that the replay buffer keeps the mask of every next state; illegal actions are never
chosen (greedy, exploring or warming up) and never in the target's max. Its checkpoints hold the
replay buffer. ``configs/<game>/dqn.yaml``; the shipped ``dqn:<game>`` models."""

from __future__ import annotations

from typing import Any

from boardenvs_agents.learning.algorithms.record import COMMON_RULES, Algorithm, in_unit_interval, is_int


def _train_freq(v: Any) -> bool:
    """An integer >= 1, or ``[integer >= 1, "step" | "episode"]``."""
    if is_int(v):
        return v >= 1
    return (
        isinstance(v, (list, tuple))
        and len(v) == 2
        and is_int(v[0])
        and v[0] >= 1
        and v[1] in ("step", "episode")
    )


DQN = Algorithm(
    name="dqn",
    model="boardenvs_agents.learning.masked_dqn:MaskedDQN",
    policy="MaskedDQNPolicy",
    mask_in_observation=True,
    hyperparameter_rules={
        **COMMON_RULES,
        "buffer_size": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
        "learning_starts": ("an integer >= 0", lambda v: is_int(v) and v >= 0),
        "tau": ("a number in [0, 1]", in_unit_interval),
        "train_freq": ("an integer >= 1 or [integer >= 1, 'step' or 'episode']", _train_freq),
        "gradient_steps": ("an integer >= 1, or -1", lambda v: is_int(v) and (v >= 1 or v == -1)),
        "target_update_interval": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
        "exploration_fraction": ("a number in [0, 1]", in_unit_interval),
        "exploration_initial_eps": ("a number in [0, 1]", in_unit_interval),
        "exploration_final_eps": ("a number in [0, 1]", in_unit_interval),
        "optimize_memory_usage": ("true or false", lambda v: isinstance(v, bool)),
    },
    # The config check builds the model once: a replay buffer of 1,000 stands in for the run's.
    trial_limits={"buffer_size": 1000},
)
