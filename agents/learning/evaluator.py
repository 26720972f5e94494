"""A trained policy-value network as the evaluator of a search (AlphaZero's way of plugging in).

:class:`NetworkEvaluator` answers MCTS's questions about a leaf
(:class:`~boardenvs_agents.search.evaluators.Evaluator`) with a shipped or saved model, e.g.
``mcts:evaluator=ppo:sorry_v0,sims=50`` (:mod:`boardenvs_agents.registry`):

* **prior**: the model's policy for the player to move, its action logits masked to the legal actions
  and normalised (a softmax over the legal actions, summing to 1), read from that player's observation
  exactly as the model plays (:meth:`~boardenvs_agents.learning.models.LearnedPolicy.encode`).
* **values, one per player**: the model's value head on *each* player's own observation of the state
  (:attr:`LearnedPolicy.view`), clipped to the returns' ``[-1, 1]``; a player already out keeps its
  final return. The value head estimates the return of the player whose observation it reads (as
  trained: PPO's critic, discounted by the run's ``gamma``, 0.995 for the shipped models), and the
  shipped models were trained for every seat (``learner_seat`` null, seats drawn per game), so one
  network gives every seat's value. Why not the mover's value alone, with the others derived from it
  (``-v/(n-1)``, or the rest of the win chance shared out): that assumes symmetric, winner-takes-all
  returns, which Gangsi's roles (one Kyonshi against the hunters) are not, and it says nothing about
  which opponent is ahead. The price: a seat that is not to move is seen in a position the model only
  met as the mover (in Sorry! its observation shows the card the mover drew), so those values are a
  little off the training distribution. Models trained for one seat are refused.

The forward passes are batched over the states given: one pass of the policy head for the movers and
one of the value head for every (state, player) row. With the numpy networks of
:mod:`boardenvs_agents.learning.network` every row is computed on its own, so an evaluation is the same
alone or in any batch. The evaluator draws no random numbers. It reads only the (determinized) states
the search hands it, as the observations the players would see there.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.learning.models import LearnedPolicy
from boardenvs_agents.learning.network import NumpyMLP, frozen_value_network
from boardenvs_agents.search.evaluators import Evaluation, Evaluator


class NetworkEvaluator(Evaluator):
    """A learned policy-value network's prior and values (see the module docstring).

    Args:
        policy: the model as an agent (a PPO model: action logits and a value head), trained for
            every seat.

    Raises:
        ValueError: for a policy that is not a learned model, has no policy logits (DQN) or no value
            head numpy can copy, or was trained for one seat only.
    """

    has_prior = True
    #: It draws no random numbers, so :func:`~boardenvs_agents.search.batched.search_many` may answer the
    #: leaves of many searches in one batch.
    draws_random = False

    def __init__(self, policy: LearnedPolicy) -> None:
        if not isinstance(policy, LearnedPolicy):
            raise ValueError(f"a network evaluator needs a learned model (e.g. ppo:<game>), got {policy!r}")
        if policy.network.kind != "logits":
            raise ValueError(
                f"{policy.name} scores actions with {policy.network.kind!r} values, not a policy's logits: "
                "a network evaluator needs a policy-value model (ppo)"
            )
        if policy.learner_seat is not None:
            raise ValueError(
                f"{policy.name} was trained for seat {policy.learner_seat} only: a network evaluator gives "
                "every seat's prior and value with one network, trained for every seat"
            )
        value_network = frozen_value_network(policy.model) if policy.model is not None else None
        if value_network is None:
            raise ValueError(
                f"{policy.name} has no value head to evaluate states with (PPO models with MLP networks only)"
            )
        self.policy = policy
        self.value_network: NumpyMLP = value_network

    @classmethod
    def from_file(cls, path: str | Path, game: Game) -> NetworkEvaluator:
        """The evaluator of the model saved at ``path``, for ``game`` (checked as when loading an agent)."""
        return cls(LearnedPolicy.from_file(path, game))

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        """Priors and values of ``states`` (decision nodes) in two batched forward passes; ``rng`` unused."""
        policy = self.policy
        observations = []
        masks = []
        rows: list[tuple[int, int]] = []  # (state, player) of every value row
        row_observations = []
        values: list[list[float]] = []
        for i, state in enumerate(states):
            obs, mask = policy.encode(state)  # checks the options and that it is a decision node
            observations.append(obs)
            masks.append(mask)
            mover = state.current_player()
            returns = [float(r) for r in state.returns()]
            values.append(returns)
            for player in range(len(returns)):
                if state.is_out(player):
                    continue  # keeps its final return
                rows.append((i, player))
                row_observations.append(obs if player == mover else policy.view.observe(state, player))
        if not observations:
            return []
        scores = policy.network.scores(observations, np.asarray(masks))
        if rows:
            estimates = self._values(row_observations)
            for (i, player), value in zip(rows, estimates, strict=True):
                values[i][player] = float(value)
        out = []
        for i, mask in enumerate(masks):
            legal = np.flatnonzero(mask)
            z = scores[i, legal].astype(np.float64)
            weights = np.exp(z - z.max())
            weights /= weights.sum()
            out.append(Evaluation(values[i], dict(zip(legal.tolist(), weights.tolist(), strict=True))))
        return out

    def values_of(self, states: Sequence[State], player: int, rng: np.random.Generator) -> list[float]:
        """``player``'s values of ``states`` in one forward pass of the value head alone (the numbers of
        :meth:`evaluate`; a player already out: its final return); ``rng`` unused."""
        values = [float(state.returns()[player]) for state in states]
        rows = [i for i, state in enumerate(states) if not state.is_out(player)]
        if rows:
            policy = self.policy
            policy.encode(states[rows[0]])  # checks the game's options, as evaluate does
            observations = [policy.view.observe(states[i], player) for i in rows]
            for i, value in zip(rows, self._values(observations), strict=True):
                values[i] = value
        return values

    def _values(self, observations: list[Any]) -> list[float]:
        """The value head on each observation, clipped to the returns' ``[-1, 1]``."""
        return np.clip(self.value_network.forward(observations)[:, 0], -1.0, 1.0).tolist()

    def __repr__(self) -> str:
        return f"NetworkEvaluator({self.policy.name})"
