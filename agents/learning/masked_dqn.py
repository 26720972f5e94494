"""DQN with action masking done right: illegal actions never chosen, never in the target's max.

Stable-Baselines3's DQN knows nothing of masks. Here the observation is a ``Dict`` with the legal-action
mask beside the game's observation (``SingleAgentEnv(mask_in_observation=True)``), so that the replay
buffer keeps the mask of every next state. Then:

* acting: the greedy action is the argmax of the Q-values over legal actions only
  (:class:`MaskedQNetwork`), and epsilon-exploration (and the warm-up before ``learning_starts``)
  draws uniformly among legal actions;
* learning: the target's ``max_a' Q_target(s', a')`` runs over the legal actions of ``s'`` only;
  a terminal ``s'`` (no legal action) contributes nothing, as ``(1 - done)`` already says.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from stable_baselines3 import DQN
from stable_baselines3.dqn.policies import MultiInputPolicy, QNetwork
from torch.nn import functional as F  # noqa: N812

MASK_KEY = "action_mask"


def masked_argmax(q_values: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Index of the highest Q-value among the actions where ``mask`` is non-zero, per row."""
    return q_values.masked_fill(mask <= 0.5, -th.inf).argmax(dim=1)


def masked_max(q_values: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """Highest Q-value among legal actions per row; 0 for a row with no legal action (terminal)."""
    best = q_values.masked_fill(mask <= 0.5, -th.inf).max(dim=1).values
    return th.where(th.isinf(best), th.zeros_like(best), best)


class MaskedQNetwork(QNetwork):
    """Q-network whose greedy action respects the observation's action mask."""

    def _predict(self, observation: Any, deterministic: bool = True) -> th.Tensor:
        return masked_argmax(self(observation), observation[MASK_KEY])


class MaskedDQNPolicy(MultiInputPolicy):
    """SB3's DQN policy for ``Dict`` observations, with :class:`MaskedQNetwork` as its Q-networks."""

    def make_q_net(self) -> MaskedQNetwork:
        """Build a masked Q-network (the target network is built the same way)."""
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args).to(self.device)


def _legal_uniform(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    actions = np.empty(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        actions[i] = legal[int(rng.random() * len(legal))] if len(legal) else 0
    return actions


class MaskedDQN(DQN):
    """DQN that never acts illegally and bootstraps only over legal next actions.

    Use with ``policy="MaskedDQNPolicy"`` (the default here) and a ``Dict`` observation space holding
    an ``"action_mask"``. Exploration draws from a generator of its own, seeded from ``seed``.
    """

    policy_aliases = {**DQN.policy_aliases, "MaskedDQNPolicy": MaskedDQNPolicy}

    def __init__(self, policy: Any = "MaskedDQNPolicy", env: Any = None, **kwargs: Any) -> None:
        super().__init__(policy, env, **kwargs)
        self._explore_rng = np.random.default_rng(kwargs.get("seed"))

    def _check_mask_space(self) -> None:
        spaces = getattr(self.observation_space, "spaces", None)
        if not spaces or MASK_KEY not in spaces:
            raise ValueError(
                "MaskedDQN needs Dict observations with an 'action_mask' "
                "(SingleAgentEnv(..., mask_in_observation=True))"
            )

    def _setup_model(self) -> None:
        self._check_mask_space()
        super()._setup_model()

    def predict(
        self,
        observation: Any,
        state: tuple[np.ndarray, ...] | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
        """Epsilon-greedy over legal actions only (greedy when ``deterministic``)."""
        if not deterministic and self._explore_rng.random() < self.exploration_rate:
            masks = np.asarray(observation[MASK_KEY])
            if masks.ndim == 1:
                return np.asarray(_legal_uniform(masks[None], self._explore_rng)[0]), state
            return _legal_uniform(masks, self._explore_rng), state
        return self.policy.predict(observation, state, episode_start, deterministic)

    def _sample_action(
        self, learning_starts: int, action_noise: Any = None, n_envs: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """Warm-up actions are uniform over legal actions too (SB3 samples the whole space)."""
        if self.num_timesteps < learning_starts:
            action = _legal_uniform(np.asarray(self._last_obs[MASK_KEY]), self._explore_rng)  # type: ignore[index]
            return action, action
        return super()._sample_action(learning_starts, action_noise, n_envs)

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        """SB3's DQN update with the target's max restricted to the next state's legal actions."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            replay_data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)  # type: ignore[union-attr]
            discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
            with th.no_grad():
                next_q_values = self.q_net_target(replay_data.next_observations)
                next_mask = replay_data.next_observations[MASK_KEY]  # type: ignore[index]
                next_q_values = masked_max(next_q_values, next_mask).reshape(-1, 1)
                target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values
            current_q_values = self.q_net(replay_data.observations)
            current_q_values = th.gather(current_q_values, dim=1, index=replay_data.actions.long())
            loss = F.smooth_l1_loss(current_q_values, target_q_values)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", np.mean(losses))
