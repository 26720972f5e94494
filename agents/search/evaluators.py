"""What a search knows of a position it has not searched: a prior over the moves and a value per player.

MCTS (:mod:`boardenvs_agents.search.mcts`) asks an :class:`Evaluator` about the leaves of its tree, in
the manner of OpenSpiel's ``Evaluator`` (``open_spiel/python/algorithms/mcts.py``, where AlphaZero
plugs into an unchanged MCTS). An evaluation (:class:`Evaluation`) has two parts:

* ``values``: one number per player, each player's own expected return from the position, in the
  scale of ``state.returns()`` (``[-1, 1]`` in every game here). The search backs them all up and each
  player picks its own best (max^n): nothing assumes two players or zero sums.
* ``prior``: ``{action: probability}`` over the legal actions of the player to move, summing to 1;
  ``None`` means uniform. An evaluator with :attr:`Evaluator.has_prior` false always answers
  ``None``, and the search then runs plain UCT; with a prior it runs PUCT (AlphaZero).

The contract of :meth:`Evaluator.evaluate`:

* It takes a batch of states and answers one evaluation per state, in order, each the same whatever
  the batch (an evaluator may batch its work, e.g. one forward pass of a network for all of them).
* Every state is a decision node (``current_player() >= 0``): the search samples chance nodes itself
  and scores terminal states with their returns.
* The states are the search's own scratch copies, determinized for the searching player
  (``state.determinize(me, rng)``): whatever the evaluator reads in them is either what that player
  may know or a sample of what it may not, never the true hidden state. They are handed over: the
  evaluator may play them on in place (the rollouts do, sparing a clone a simulation); the search does
  not read them again.
* ``rng`` is the search's own generator: all randomness comes from it (so a search is reproducible from
  its seed), drawn in the order of the states; an evaluator without randomness ignores it.
* :attr:`Evaluator.draws_random` says whether it draws from ``rng`` at all. Only an evaluator that
  draws nothing may be handed the leaves of *several* searches in one call (the lockstep driver of
  :mod:`boardenvs_agents.search.batched`: one forward pass for many games); one that draws (the
  rollouts) is called once per search with that search's own generator, so every search draws in
  its own order, as alone. The default, ``True``, is the safe one: an evaluator that draws nothing
  and says so is merely batched.

The evaluators of this module need nothing learned and give a uniform prior:
:class:`RolloutEvaluator` plays a rollout from the state (uniformly random moves, the game's heuristic
or any policy spec), to the end of the game or for at most ``depth`` decisions, scoring a cut rollout
with ``state.returns()`` or the game's progress (:func:`boardenvs_agents.games.leaf_values`). A learned
policy-value network is an evaluator of the learning layer
(:class:`boardenvs_agents.learning.evaluator.NetworkEvaluator`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs_agents.base import Policy
from boardenvs_agents.games import leaf_values
from boardenvs_agents.registry import make_policy

#: How a rollout cut off by its depth is scored (see :class:`RolloutEvaluator`).
LEAVES = ("returns", "eval")


@dataclass(frozen=True)
class Evaluation:
    """An evaluator's answer for one state.

    Attributes:
        values: every player's expected return from the state (returns' scale), one per player.
        prior: ``{action: probability}`` over the legal actions of the player to move, summing to 1;
            ``None``: uniform.
    """

    values: list[float]
    prior: dict[int, float] | None = None


class Evaluator(ABC):
    """Evaluates leaves for a search: a value per player and a prior (see the module docstring)."""

    #: Whether :meth:`evaluate` gives priors; ``False``: always ``None`` (uniform), and MCTS runs UCT.
    has_prior: bool = False
    #: Whether :meth:`evaluate` draws from ``rng``; ``False`` lets a driver evaluate the leaves of
    #: several searches (each with its own generator) in one call (see the module docstring).
    draws_random: bool = True

    @abstractmethod
    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        """One :class:`Evaluation` per state of ``states`` (decision nodes, the caller's scratch
        copies), in order, drawing any randomness from ``rng``."""

    def evaluate_one(self, state: State, rng: np.random.Generator | None = None) -> Evaluation:
        """The evaluation of one state (``rng``: a fresh generator if not given)."""
        return self.evaluate([state], rng if rng is not None else np.random.default_rng())[0]

    def values_of(self, states: Sequence[State], player: int, rng: np.random.Generator) -> list[float]:
        """``player``'s value of each of ``states`` (decision nodes, handed over as to :meth:`evaluate`),
        in order: its component of :meth:`evaluate`'s values. An evaluator that can value one player's
        position more cheaply than every player's and the prior overrides it, with the same numbers."""
        return [evaluation.values[player] for evaluation in self.evaluate(states, rng)]


def uniform_prior(state: State) -> dict[int, float]:
    """Equal probability for every legal action of the player to move in ``state``."""
    legal = state.legal_actions()
    return {action: 1.0 / len(legal) for action in legal}


class RolloutEvaluator(Evaluator):
    """The value of a rollout from the state; a uniform prior.

    Args:
        rollout: ``"random"`` (uniformly random legal moves), ``"heuristic"``, or an agent spec for the
            rollout policy (e.g. ``"heuristic:depth=1"``), built once per game and drawing from the
            search's generator. Chance is sampled with that generator too.
        depth: at most this many rollout decisions (``None``: to the end of the game; every game has a
            cap of its own).
        leaf: the value of a rollout cut off by ``depth``: ``"returns"``, ``state.returns()`` at the cut
            (0, a draw, for every player still in, the final return of players already out), or
            ``"eval"``, the game's progress measure (:func:`boardenvs_agents.games.leaf_values`).

    Raises:
        ValueError: for a depth out of range, an unknown leaf or rollout.
    """

    def __init__(self, rollout: str = "random", depth: int | None = None, leaf: str = "returns") -> None:
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
            raise ValueError(f"mcts: depth must be a non-negative integer or None, got {depth!r}")
        if leaf not in LEAVES:
            raise ValueError(f"mcts: leaf must be 'returns' or 'eval', got {leaf!r}")
        if not isinstance(rollout, str) or rollout.split(":")[0] not in ("random", "heuristic"):
            raise ValueError(f"mcts: rollout must be 'random' or 'heuristic[:options]', got {rollout!r}")
        self.rollout = rollout
        self.depth = depth
        self.leaf = leaf
        self._policies: dict[str, Policy] = {}

    def evaluate(self, states: Sequence[State], rng: np.random.Generator) -> list[Evaluation]:
        """Roll every state out in turn (in place), see the class docstring."""
        return [Evaluation(self._rollout(state, rng)) for state in states]

    def _rollout(self, state: State, rng: np.random.Generator) -> list[float]:
        """Play ``state`` on (in place) with the rollout policy; every player's return at the end or cut."""
        depth = self.depth
        policy = None if self.rollout == "random" else self._policy(state, rng)
        steps = 0
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                state.apply_action(state.sample_chance(rng))
                continue
            if depth is not None and steps >= depth:
                if self.leaf == "eval":
                    return leaf_values(state)
                break
            if policy is None:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
            else:
                state.apply_action(policy.act(state))
            steps += 1
        return [float(r) for r in state.returns()]

    def _policy(self, state: State, rng: np.random.Generator) -> Policy:
        """The rollout policy for ``state``'s game (built once per game), drawing from ``rng``."""
        game = state.game_name
        policy = self._policies.get(game)
        if policy is None:
            policy = self._policies[game] = make_policy(self.rollout, game)
        policy.rng = rng
        return policy

    def __repr__(self) -> str:
        return f"RolloutEvaluator(rollout={self.rollout!r}, depth={self.depth}, leaf={self.leaf!r})"
