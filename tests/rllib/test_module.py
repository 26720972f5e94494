"""The masking RLModule on its own (no Ray cluster): no illegal action is ever sampled or chosen."""

import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.models.torch.torch_distributions import TorchCategorical

from boardenvs_agents.rllib.env import TurnBasedMultiAgentEnv
from boardenvs_agents.rllib.module import MaskedPPOTorchRLModule, mask_logits


def make_module(agent="hunter_0", seed=0):
    env = TurnBasedMultiAgentEnv(
        {"game": "gangsi_v0", "game_options": {"num_players": 3}, "mapping": "per_role"}
    )
    torch.manual_seed(seed)
    module = MaskedPPOTorchRLModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"fcnet_hiddens": [16]},
    )
    return module, env.observation_spaces[agent], env.action_spaces[agent].n


def batch_of(space, n, rng, masks):
    obs = np.stack([space["observation"].sample() for _ in range(n)]).astype(np.float32)
    return {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}


def random_masks(rng, n, num_actions):
    masks = (rng.random((n, num_actions)) < 0.3).astype(np.int8)
    masks[np.arange(n), rng.integers(num_actions, size=n)] = 1  # never all zero for a mover
    return masks


def test_sampled_and_greedy_actions_are_always_legal():
    module, space, num_actions = make_module()
    rng = np.random.default_rng(0)
    masks = random_masks(rng, 256, num_actions)
    # A bias towards the actions the masks forbid: masking must still win.
    with torch.no_grad():
        module.pi.net.mlp[-1].bias.copy_(torch.from_numpy(20.0 * (1 - masks.mean(0)).astype(np.float32)))
    for forward in (module.forward_exploration, module.forward_inference):
        logits = forward(batch_of(space, 256, rng, masks.copy()))[Columns.ACTION_DIST_INPUTS]
        dist = TorchCategorical.from_logits(logits)
        for _ in range(20):
            actions = dist.sample().numpy()
            assert masks[np.arange(256), actions].all()
        assert masks[np.arange(256), logits.argmax(-1).numpy()].all()


def test_training_pass_masks_and_stays_finite():
    module, space, num_actions = make_module()
    rng = np.random.default_rng(1)
    masks = random_masks(rng, 32, num_actions)
    masks[0] = 0  # the last observation of an agent that is done: no legal action
    out = module.forward_train(batch_of(space, 32, rng, masks))
    logp = torch.log_softmax(out[Columns.ACTION_DIST_INPUTS], -1)
    assert torch.isfinite(logp).all()
    probs = logp.exp().detach().numpy()
    assert np.allclose(probs[1:][masks[1:] == 0], 0.0)
    assert np.allclose(probs[0], 1.0 / num_actions)  # all-zero mask: uniform, no NaN
    values = module.compute_values(batch_of(space, 32, rng, masks))
    assert values.shape == (32,) and torch.isfinite(values).all()
    loss = -(logp * torch.from_numpy(masks)).sum() + values.sum()
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in module.parameters() if p.grad is not None)


def test_module_keeps_the_dict_space_and_refuses_others():
    module, space, _ = make_module("kyonshi")
    assert module.observation_space == space  # the checkpoint rebuilds the module from it
    assert module.pi.net.mlp[-1].out_features == 5
    with pytest.raises(ValueError, match="action_mask"):
        MaskedPPOTorchRLModule(observation_space=space["observation"], action_space=module.action_space)


def test_mask_logits():
    logits = torch.tensor([[1.0, 5.0, -2.0]])
    masked = mask_logits(logits, torch.tensor([[1, 0, 1]], dtype=torch.int8))
    assert masked[0, 0] == 1.0 and masked[0, 2] == -2.0 and masked[0, 1] == torch.finfo(torch.float32).min
