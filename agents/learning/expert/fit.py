"""Expert iteration's learning step: :func:`fit` trains a MaskablePPO model's policy on the search's
targets and its value head on the games' outcomes, from a self-play :class:`~.dataset.Dataset`.

* **policy**: the cross-entropy of the policy's logits, masked to the legal actions (illegal ones get
  ``-1e8``, so they take no probability), against the search's target distribution
  (``Dataset.policies``: soft targets, 0 on illegal actions);
* **value**: the squared error of the value head against the deciding seat's final return
  (``Dataset.values``), weighted ``value_weight``.

It is the fitting loop of behaviour cloning (:func:`~boardenvs_agents.learning.imitation.fit_policy_value`)
with soft targets in place of the teacher's actions: minibatches of ``batch_size`` in an order drawn
from ``seed``, an Adam optimiser of its own (a fresh one per call), ``epochs`` passes. A fraction
``holdout`` of the games (whole games, drawn from ``seed``) is held out, and each epoch's report gives
the training losses and, on the held-out games, the cross-entropy, the KL divergence from the targets
(the cross-entropy less the targets' entropy), how often the policy's most likely action is the
target's (over decisions with a choice), and the value head's squared error.

**Deterministic**: the same model, dataset and seed give the same weights, bit for bit: the draws are
numpy's, seeded; torch's generator is seeded too, and the fit runs on one thread (torch's thread count
is restored afterwards), since a sum split over threads may round differently. The caller's global
generators (torch, numpy, ``random``) are left as they were.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardenvs.core.options import make_options, options_to_dict
from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.imitation import fit_policy_value
from boardenvs_agents.learning.models import kept_global_generators


@dataclass(frozen=True)
class FitConfig:
    """The options of :func:`fit` (a config section, checked with
    :func:`~boardenvs.core.options.make_options`); the seed is the caller's."""

    #: Passes over the training examples.
    epochs: int = 4
    #: Examples per gradient step.
    batch_size: int = 256
    #: Adam's step size.
    learning_rate: float = 3e-4
    #: Weight of the value head's squared error beside the policy's cross-entropy.
    value_weight: float = 0.5
    #: Fraction of the games held out (at least one game).
    holdout: float = 0.1

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not (isinstance(self.learning_rate, (int, float)) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}")
        if not (isinstance(self.value_weight, (int, float)) and self.value_weight >= 0):
            raise ValueError(f"value_weight must be non-negative, got {self.value_weight!r}")
        if not (isinstance(self.holdout, (int, float)) and 0 < self.holdout < 1):
            raise ValueError(f"holdout must be a fraction in (0, 1), got {self.holdout!r}")

    @classmethod
    def from_dict(cls, raw: dict[str, Any], where: str = "") -> FitConfig:
        """The options of a mapping, keys and types checked.

        Raises:
            boardenvs.core.options.OptionError: naming the key.
        """
        return make_options(cls, raw, where=where, path="fit.")

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-able dict."""
        return options_to_dict(self)


@dataclass
class FitReport:
    """What :func:`fit` did: one dict per epoch (the keys of
    :func:`~boardenvs_agents.learning.imitation.fit_policy_value`: ``train_loss``, ``train_policy_loss``,
    ``train_value_mse``, ``heldout_cross_entropy``, ``heldout_kl``, ``heldout_accuracy``,
    ``heldout_value_mse``, ``seconds``), and the split of the examples."""

    epochs: list[dict[str, float]] = field(default_factory=list)
    #: Examples trained on and held out.
    train_examples: int = 0
    heldout_examples: int = 0
    #: Games held out (of all the dataset's games).
    heldout_games: int = 0
    games: int = 0

    @property
    def final(self) -> dict[str, float]:
        """The last epoch's report."""
        return self.epochs[-1]

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-able dict."""
        return {
            "train_examples": self.train_examples,
            "heldout_examples": self.heldout_examples,
            "games": self.games,
            "heldout_games": self.heldout_games,
            "epochs": self.epochs,
        }


def fit(
    model: Any,
    dataset: Dataset,
    *,
    epochs: int = 4,
    batch_size: int = 256,
    learning_rate: float = 3e-4,
    value_weight: float = 0.5,
    seed: int = 0,
    holdout: float = 0.1,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> FitReport:
    """Train ``model`` (a MaskablePPO model, in place) on ``dataset`` (see the module docstring).

    Args:
        model: the MaskablePPO model whose policy and value head are trained.
        dataset: self-play examples of its game; their ``games`` name whole games (held out together).
        epochs: passes over the training examples.
        batch_size: examples per gradient step.
        learning_rate: Adam's step size.
        value_weight: weight of the value head's squared error.
        holdout: fraction of the games held out (at least one, and one left to train on).
        seed: seeds the held-out draw and the minibatch order.
        progress: called with each epoch's report.

    Raises:
        ValueError: for bad options, a dataset of fewer than two games, or one whose observation or
            action sizes do not fit the model (or a model that is not a MaskablePPO actor-critic).
    """
    import torch

    options = FitConfig(epochs, batch_size, learning_rate, value_weight, holdout)
    games = len(np.unique(dataset.games))
    if games < 2:
        raise ValueError(f"fit needs examples of at least 2 games (one is held out), got {games}")
    heldout_games = min(games - 1, max(1, math.floor(games * options.holdout)))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with kept_global_generators():
        torch.manual_seed(seed)
        try:
            epochs_done = fit_policy_value(
                model, dataset.observations, dataset.masks, dataset.policies, dataset.values,
                dataset.games, epochs=options.epochs, batch_size=options.batch_size,
                learning_rate=options.learning_rate, value_coef=options.value_weight, seed=seed,
                heldout_games=heldout_games, progress=progress,
            )  # fmt: skip
        finally:
            torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)  # the held-out games, drawn as fit_policy_value drew them
    heldout = np.isin(dataset.games, rng.choice(np.unique(dataset.games), size=heldout_games, replace=False))
    return FitReport(epochs_done, int((~heldout).sum()), int(heldout.sum()), heldout_games, games)
