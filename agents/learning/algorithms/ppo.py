"""MaskablePPO (sb3-contrib): proximal policy optimisation with the legal-action mask applied when it
samples, in rollouts and in evaluation; the one algorithm here that takes a warm start by imitation
(:mod:`boardenvs_agents.learning.imitation`). ``configs/<game>/ppo.yaml``; the shipped ``ppo:<game>``
models."""

from __future__ import annotations

from typing import Any

from boardenvs_agents.learning.algorithms.record import (
    COMMON_RULES,
    Algorithm,
    in_unit_interval,
    is_int,
    is_number,
)


def _positive_or_null(v: Any) -> bool:
    """``None`` or a positive number."""
    return v is None or (is_number(v) and v > 0)


PPO = Algorithm(
    name="ppo",
    model="sb3_contrib:MaskablePPO",
    policy="MlpPolicy",
    imitation=True,
    net_arch_heads=("pi", "vf"),
    hyperparameter_rules={
        **COMMON_RULES,
        "n_epochs": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
        "gae_lambda": ("a number in [0, 1]", in_unit_interval),
        "clip_range": ("a positive number", lambda v: is_number(v) and v > 0),
        "clip_range_vf": ("null or a positive number", _positive_or_null),
        "normalize_advantage": ("true or false", lambda v: isinstance(v, bool)),
        "ent_coef": ("a number >= 0", lambda v: is_number(v) and v >= 0),
        "vf_coef": ("a number >= 0", lambda v: is_number(v) and v >= 0),
        "target_kl": ("null or a positive number", _positive_or_null),
    },
)
