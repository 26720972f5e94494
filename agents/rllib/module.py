"""A PPO ``RLModule`` (torch) that masks the logits of illegal actions.

The env's observation is ``Dict(observation=Box, action_mask=Box(int8))``
(:mod:`boardenvs_agents.rllib.env`). :class:`MaskedPPOTorchRLModule` builds RLlib's default PPO networks
(an MLP
encoder, policy and value heads) on the ``observation`` part only, and replaces the logit of every
action whose mask entry is 0 with the most negative float before any distribution is made, in all three
forward passes (inference, exploration, training). So no illegal action is ever sampled or chosen
greedily, and the training loss sees the same masked distribution the actions were drawn from (its
log-probabilities and entropy cover legal actions only).

The logit is replaced (``torch.where``), not shifted by ``log(mask)``: an all-zero mask (the final
observation of an agent that is done, never acted on) gives a finite uniform distribution, not NaNs.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

#: Key of the observation tensor and of the mask in the env's ``Dict`` observation.
OBS_KEY = "observation"
MASK_KEY = "action_mask"


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every entry whose ``mask`` is 0 replaced by the most negative finite float."""
    return torch.where(mask.to(torch.bool), logits, torch.finfo(logits.dtype).min)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module on ``obs["observation"]``, with logits masked by ``obs["action_mask"]``.

    Takes the keyword arguments of any RLlib ``RLModule``; ``observation_space`` must be the env's
    ``Dict`` with ``observation`` and ``action_mask``.
    """

    def __init__(self, *args: Any, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            OBS_KEY,
            MASK_KEY,
        }:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                f"{MASK_KEY!r} (boardenvs_agents.rllib.env.TurnBasedMultiAgentEnv), got {observation_space}"
            )
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)
        # The networks are built on the inner Box; the module (and its checkpoint) keeps the Dict.
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """The batch with ``obs`` replaced by the observation tensor, and the mask."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or MASK_KEY not in obs:
            raise ValueError(f"expected observations with {OBS_KEY!r} and {MASK_KEY!r}, got {type(obs)}")
        return {**batch, Columns.OBS: obs[OBS_KEY]}, obs[MASK_KEY]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Inference and exploration: masked logits."""
        inner, mask = self._split(batch)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Training: masked logits (and the embeddings the value head reuses)."""
        inner, mask = self._split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """Value estimates from the observation tensor (the mask plays no part)."""
        if embeddings is None:
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)
