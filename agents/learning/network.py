"""Frozen copies of trained networks for playing: batched, and the same scores whatever the batch.

A :class:`FrozenNetwork` scores the actions of a batch of decisions in one call:
:meth:`FrozenNetwork.scores` takes the observations and legal-action masks of the decisions and
returns one row per decision, ``-inf`` on illegal actions: MaskablePPO's action logits, or masked
DQN's Q-values. :func:`frozen_network` makes one from a Stable-Baselines3 model:

* :class:`NumpyMLP` for the networks the training configs build (observations flattened, then
  ``Linear`` layers with ``Tanh``/``ReLU`` activations: MaskablePPO's ``mlp_extractor.policy_net`` and
  ``action_net``, masked DQN's ``q_net`` over its ``Dict`` observation flattened key by key). Its
  weights are copied into numpy, and **each row of a batch goes through its own matrix-vector
  products** (``np.matmul`` over a stack of one-row matrices, then elementwise activations), so a
  decision's scores are bit for bit the same alone or in a batch of any size. That is what lets a
  vector env answer many opponents' decisions at once and still choose exactly the actions they would
  have chosen one at a time (:mod:`boardenvs_agents.learning.vec_env`). For these small networks it is
  also faster than torch at the batch sizes of a step (torch's per-call overhead dominates there).
  Its products run on **one BLAS thread** (:func:`one_blas_thread`): numpy's OpenBLAS shares a
  product of a 1,811-feature Gangsi observation out among threads of its own, which wait for a core
  whenever the machine is busy (two searches side by side on two cores: 5 ms a forward pass instead
  of 0.6 ms, self-play 3.4 times slower). Each output is computed alike either way, so the scores are
  the same bit for bit (tested).
* :class:`TorchNetwork` for anything else (a CNN, a custom features extractor or activation): a frozen
  copy of the torch policy, batched too, equal to one-at-a-time scores up to float rounding.

Either is a copy: training the model further does not change it (make a new one to follow the model).
Networks are picklable, so that envs in worker processes can hand theirs to the process that batches.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

#: What :meth:`FrozenNetwork.scores` returns: action logits (a categorical policy) or Q-values.
SCORE_KINDS = ("logits", "q")


@functools.cache
def blas_libraries() -> tuple[Any, ...]:
    """The BLAS libraries numpy loaded (threadpoolctl's controllers, found once; none without
    threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return ()
    return tuple(lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas")


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run numpy's BLAS on one thread in the block, as many as before after it (a few microseconds)."""
    libraries = blas_libraries()
    before = [lib.get_num_threads() for lib in libraries]
    for lib, threads in zip(libraries, before, strict=True):
        if threads != 1:
            lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, threads in zip(libraries, before, strict=True):
            if threads != 1:
                lib.set_num_threads(threads)


class FrozenNetwork:
    """Scores the actions of a batch of decisions (base class).

    Args:
        key: names these weights: two networks with the same key score alike (a vector env batches
            decisions by key).
        kind: ``"logits"`` (sample from the softmax, or take the best) or ``"q"`` (Q-values).
    """

    def __init__(self, key: str, kind: str) -> None:
        if kind not in SCORE_KINDS:
            raise ValueError(f"kind must be one of {SCORE_KINDS}, got {kind!r}")
        self.key = key
        self.kind = kind

    def scores(self, observations: Sequence[Any], masks: np.ndarray) -> np.ndarray:
        """``(len(observations), num_actions)`` float32 scores, ``-inf`` where ``masks`` is False.

        ``observations`` are single observations as the model's env gives them (arrays, or dicts of
        arrays for ``Dict`` spaces); ``masks`` their boolean legal-action masks, one row each.
        """
        raise NotImplementedError


class NumpyMLP(FrozenNetwork):
    """A flatten-then-MLP network in numpy, row by row (see the module docstring).

    Args:
        key: see :class:`FrozenNetwork`.
        kind: see :class:`FrozenNetwork`.
        layers: ``(weight.T, bias or None, activation or None)`` in order; activations are ``"tanh"``,
            ``"relu"``.
        keys: for ``Dict`` observations, the keys flattened and concatenated in this order (``None``:
            observations are arrays).
    """

    #: Activations, applied in place.
    ACTIVATIONS = ("tanh", "relu")

    def __init__(
        self,
        key: str,
        kind: str,
        layers: Sequence[tuple[np.ndarray, np.ndarray | None, str | None]],
        keys: Sequence[str] | None = None,
    ) -> None:
        super().__init__(key, kind)
        for _, _, activation in layers:
            if activation is not None and activation not in self.ACTIVATIONS:
                raise ValueError(f"unknown activation {activation!r}; known: {sorted(self.ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32), b, a) for w, b, a in layers]
        self.keys = None if keys is None else list(keys)
        self._relu_zero = np.float32(0.0)

    def inputs(self, observations: Sequence[Any]) -> np.ndarray:
        """The network's input, ``(batch, 1, features)`` float32 (a stack of one-row matrices)."""
        n = len(observations)
        if self.keys is None:
            x = np.asarray(observations, dtype=np.float32).reshape(n, -1)
        else:
            x = np.concatenate(
                [
                    np.asarray([o[k] for o in observations], dtype=np.float32).reshape(n, -1)
                    for k in self.keys
                ],
                axis=1,
            )
        return x[:, None, :]

    def forward(self, observations: Sequence[Any]) -> np.ndarray:
        """The last layer's outputs, ``(batch, outputs)`` float32, nothing masked."""
        h = self.inputs(observations)
        with one_blas_thread():
            for weight_t, bias, activation in self.layers:
                h = np.matmul(h, weight_t)  # per row: a (1, in) @ (in, out) product, whatever the batch size
                if bias is not None:
                    np.add(h, bias, out=h)
                if activation == "tanh":
                    np.tanh(h, out=h)
                elif activation == "relu":
                    np.maximum(h, self._relu_zero, out=h)
        return h.reshape(len(h), -1)

    def scores(self, observations: Sequence[Any], masks: np.ndarray) -> np.ndarray:
        """See :meth:`FrozenNetwork.scores`."""
        out = self.forward(observations)
        np.copyto(out, np.float32(-np.inf), where=~np.asarray(masks, dtype=bool))
        return out


class TorchNetwork(FrozenNetwork):
    """A frozen copy of an SB3 policy, scoring batches with torch (for networks :class:`NumpyMLP`
    cannot copy).

    Args:
        key: see :class:`FrozenNetwork`.
        kind: ``"logits"`` for a MaskablePPO policy, ``"q"`` for a (masked) DQN policy.
        policy: the SB3 policy (``model.policy``); a deep copy is kept.
    """

    def __init__(self, key: str, kind: str, policy: Any) -> None:
        super().__init__(key, kind)
        self.policy = copy.deepcopy(policy)
        self.policy.set_training_mode(False)

    def scores(self, observations: Sequence[Any], masks: np.ndarray) -> np.ndarray:
        """See :meth:`FrozenNetwork.scores`."""
        import torch

        first = observations[0]
        if isinstance(first, dict):
            batch: Any = {k: np.stack([o[k] for o in observations]) for k in first}
        else:
            batch = np.stack(observations)
        with torch.no_grad():
            obs, _ = self.policy.obs_to_tensor(batch)
            if self.kind == "logits":
                out = self.policy.get_distribution(obs).distribution.logits
            else:
                out = self.policy.q_net(obs)
        out = out.cpu().numpy().astype(np.float32)
        return np.where(np.asarray(masks, dtype=bool), out, np.float32(-np.inf))


def frozen_network(model: Any, key: str | None = None) -> FrozenNetwork:
    """A frozen copy of the action head of a MaskablePPO or masked DQN ``model`` (see the module
    docstring); ``key`` names its weights (default: a fresh unique name)."""
    key = key or uuid.uuid4().hex
    kind = "q" if hasattr(model, "q_net") or hasattr(model.policy, "q_net") else "logits"
    layers = _mlp_layers(model.policy, kind)
    if layers is None:
        return TorchNetwork(key, kind, model.policy)
    modules, keys = layers
    return NumpyMLP(key, kind, modules, keys)


def frozen_value_network(model: Any) -> NumpyMLP | None:
    """A numpy copy of a MaskablePPO ``model``'s value head (``forward`` gives one column: the value of
    the observation for the player who sees it), or ``None`` for a model without one (DQN) or a
    network other than flatten-then-MLP."""
    if hasattr(model, "q_net") or hasattr(model.policy, "q_net") or not hasattr(model.policy, "value_net"):
        return None
    layers = _mlp_layers(model.policy, "value")
    if layers is None:
        return None
    modules, keys = layers
    # Only ``forward`` is meant for it (one output: nothing to mask); the kind is the policy's.
    return NumpyMLP(uuid.uuid4().hex, "logits", modules, keys)


def _mlp_layers(
    policy: Any, kind: str
) -> tuple[list[tuple[np.ndarray, np.ndarray | None, str | None]], Any] | None:
    """The layers of a flatten-then-MLP policy as numpy arrays, or ``None`` for any other network
    (``kind``: ``"logits"`` the action head, ``"q"`` DQN's Q-network, ``"value"`` the value head)."""
    from gymnasium import spaces
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import CombinedExtractor, FlattenExtractor
    from torch import nn

    def flat(space: Any) -> bool:
        return isinstance(space, spaces.Box) and not is_image_space(space)

    if kind in ("logits", "value"):
        name = "pi_features_extractor" if kind == "logits" else "vf_features_extractor"
        extractor = getattr(policy, name, None)
        if not isinstance(extractor, FlattenExtractor) or not flat(policy.observation_space):
            return None
        if kind == "logits":
            modules = [*policy.mlp_extractor.policy_net, policy.action_net]
        else:
            modules = [*policy.mlp_extractor.value_net, policy.value_net]
        keys = None
    else:
        q_net = policy.q_net
        extractor = q_net.features_extractor
        if isinstance(extractor, CombinedExtractor):
            keys = list(extractor.extractors)
            subspaces = policy.observation_space.spaces
            if not all(isinstance(extractor.extractors[k], nn.Flatten) and flat(subspaces[k]) for k in keys):
                return None
        elif isinstance(extractor, FlattenExtractor) and flat(policy.observation_space):
            keys = None
        else:
            return None
        modules = list(q_net.q_net)
    layers: list[tuple[np.ndarray, np.ndarray | None, str | None]] = []
    for module in modules:
        if isinstance(module, nn.Linear):
            bias = None if module.bias is None else module.bias.detach().cpu().numpy().astype(np.float32)
            layers.append((module.weight.detach().cpu().numpy().T.astype(np.float32), bias, None))
        elif isinstance(module, (nn.Tanh, nn.ReLU)) and layers and layers[-1][2] is None:
            name = "tanh" if isinstance(module, nn.Tanh) else "relu"
            layers[-1] = (layers[-1][0], layers[-1][1], name)
        elif isinstance(module, (nn.Identity, nn.Flatten)):
            continue
        else:
            return None
    return (layers, keys) if layers else None
