"""MaskedDQN: illegal actions are excluded when acting (greedy, exploration, warm-up) and in the target.

The tiny env below always forbids action 0; the Q-network is rigged so that action 0 has by far the
highest Q-value. Plain DQN would act with it and bootstrap from it; MaskedDQN must do neither.
"""

import gymnasium
import numpy as np
import pytest
import torch as th
from gymnasium import spaces
from stable_baselines3 import DQN

import boardenvs_agents.learning.masked_dqn as masked_dqn
from boardenvs_agents.learning.masked_dqn import MaskedDQN, masked_argmax, masked_max

ILLEGAL, BEST_LEGAL = 0, 2
BIASES = [10.0, 1.0, 2.0, 0.5]  # action 0 (illegal) has the highest Q-value


class TinyMaskedEnv(gymnasium.Env):
    """One-step episodes; action 0 is never legal; reward 1 for action 2, else 0."""

    def __init__(self):
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (2,), np.float32),
                "action_mask": spaces.Box(0, 1, (4,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(4)

    def _obs(self):
        return {
            "observation": np.array([1.0, 0.0], np.float32),
            "action_mask": np.array([0, 1, 1, 1], np.int8),
        }

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._obs(), {}

    def step(self, action):
        assert action != ILLEGAL, "an illegal action reached the env"
        return self._obs(), float(action == BEST_LEGAL), True, False, {}


def rig(model):
    """Make every Q-network output exactly BIASES, whatever the input."""
    for net in (model.q_net, model.q_net_target):
        last = [m for m in net.q_net.modules() if isinstance(m, th.nn.Linear)][-1]
        with th.no_grad():
            last.weight.zero_()
            last.bias.copy_(th.tensor(BIASES))


@pytest.fixture
def model():
    m = MaskedDQN(env=TinyMaskedEnv(), learning_starts=0, buffer_size=100, batch_size=4, seed=0, gamma=0.5)
    rig(m)
    return m


def test_helpers_skip_masked_entries():
    q = th.tensor([[10.0, 1.0, 2.0], [5.0, 6.0, 7.0]])
    mask = th.tensor([[0.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    assert masked_argmax(q, mask)[0].item() == 2
    assert masked_max(q, mask).tolist() == [2.0, 0.0]  # no legal action: nothing to bootstrap from


def test_greedy_action_is_the_best_legal_one(model):
    obs = TinyMaskedEnv()._obs()
    q = model.q_net(model.policy.obs_to_tensor(obs)[0])
    assert int(q.argmax()) == ILLEGAL  # the rig: the unmasked argmax is illegal
    action, _ = model.predict(obs, deterministic=True)
    assert int(action) == BEST_LEGAL


def test_exploration_and_warmup_draw_only_legal_actions(model):
    obs = TinyMaskedEnv()._obs()
    model.exploration_rate = 1.0
    explored = {int(model.predict(obs, deterministic=False)[0]) for _ in range(200)}
    assert explored == {1, 2, 3}
    model._last_obs = {k: v[None] for k, v in obs.items()}
    model.num_timesteps = 0
    warmup = {int(model._sample_action(learning_starts=10)[0][0]) for _ in range(200)}
    assert warmup == {1, 2, 3}
    # Plain SB3 DQN explores over the whole space, illegal action included: the test can tell.
    plain = DQN("MultiInputPolicy", TinyMaskedEnv(), learning_starts=0, seed=0)
    plain.exploration_rate = 1.0
    assert ILLEGAL in {int(plain.predict(obs, deterministic=False)[0]) for _ in range(200)}


def test_target_max_runs_over_legal_next_actions_only(model, monkeypatch):
    env = TinyMaskedEnv()
    obs = env._obs()
    for _ in range(8):  # fill the buffer with non-terminal transitions (done=False)
        model.replay_buffer.add(
            {k: v[None] for k, v in obs.items()},
            {k: v[None] for k, v in obs.items()},
            np.array([[1]]),
            np.array([0.0]),
            np.array([False]),
            [{}],
        )
    seen = {}

    def record(current, target):
        seen["target"] = target.detach().clone()
        return th.nn.functional.mse_loss(current, target)

    monkeypatch.setattr(masked_dqn.F, "smooth_l1_loss", record)
    from stable_baselines3.common.logger import configure

    model.set_logger(configure(None, []))
    model.train(gradient_steps=1, batch_size=4)
    # reward 0 + gamma 0.5 * max over legal next actions (2.0), not over all (10.0)
    assert th.allclose(seen["target"], th.full_like(seen["target"], 0.5 * BIASES[BEST_LEGAL]))


def test_learning_never_sends_an_illegal_action_and_learns_the_best(model):
    model.learn(400)  # TinyMaskedEnv asserts that no illegal action arrives
    model.exploration_rate = 0.0
    action, _ = model.predict(TinyMaskedEnv()._obs(), deterministic=True)
    assert int(action) == BEST_LEGAL


def test_masked_dqn_refuses_observations_without_a_mask():
    class NoMask(TinyMaskedEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Box(0.0, 1.0, (2,), np.float32)

    with pytest.raises(ValueError, match="action_mask"):
        MaskedDQN("MlpPolicy", NoMask())
