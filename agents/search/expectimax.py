"""One ply of expectimax on a learned value: the network's moves, re-scored by what follows them.

At a decision with a choice (:meth:`ExpectimaxPolicy.act`), the search takes the ``top`` moves the
evaluator's prior ranks highest and, for each, plays it on a determinization of the state
(``state.determinize(me, rng)``) and then goes through **every** chance outcome that follows, each with
its probability (``state.chance_outcomes()``: the next card of the deck, a die), until the next
decision. The move's value ``Q(a)`` is the probability-weighted mean of the evaluator's value for the
searching seat at those positions (a position where the game is over, or the seat is out, counts its
return). The move played maximises

    ``Q(a) + prior_weight * log P(a)``

``P`` the prior: with ``prior_weight=0`` the move of best expected value, with a large weight the
prior's own favourite; in between the prior breaks the near-ties the value cannot tell apart (ties
left: the search's generator).

Why an exact expectation rather than sampling: in a game of cards and dice the values of a position's
moves differ by a few hundredths, less than the spread over the next draw, so the sampled chance
outcomes of a tree search with tens of simulations (:mod:`boardenvs_agents.search.mcts`) mostly
measure which cards came up. Here every card is weighed by its probability, once: no sampling noise at
the one ply searched, for the price of ``outcomes x top`` evaluations a decision, batched in one call
of the evaluator (about 50 positions in four-player Sorry!, where a draw has 11 outcomes). Where the
outcomes up to the next decision are more than ``max_outcomes`` (chance after chance), the search
samples ``max_outcomes`` of them with its generator instead, each weighted alike.

With ``reply`` (an agent spec, e.g. ``reply=heuristic``) the search looks one decision further where
the next decision is another player's: that player replies as the ``reply`` agent would (drawing from
the search's generator), and the chance outcomes after the reply are gone through as well, before the
value is read. A model of the opponents, as the paired rollouts have (``opponents=``): right against
those players, a guess against others.

Hidden information is handled as in MCTS: the search reads the state it is given only through
``current_player()``, ``legal_actions()`` and ``determinize(me, rng)`` (one determinization a decision,
``samples`` to average over several). Sorry!, Star of the Lost City and LEAVE this Neighborhood hide
nothing in the state (``determinize`` is a clone), so there it is exact; in Gangsi it averages over
sampled worlds, and its chance outcomes are those of the sampled world.

Everything random comes from ``self.rng`` (determinizations, sampled outcomes, ties), and there is no
clock: the budget is the number of moves searched (``top``) and of outcomes, so the search makes the
same moves from the same seed on any machine under any load. ``last_search`` keeps the searched
moves' ``values``, ``prior`` and ``scores``.
"""

from __future__ import annotations

import math
from typing import Any

from boardenvs.core.state import State
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_evaluator, make_policy
from boardenvs_agents.search.evaluators import Evaluator, uniform_prior


class ExpectimaxPolicy(Policy):
    """The evaluator's prior, its top moves re-scored by one ply of expectimax on its value (see the
    module docstring).

    Args:
        evaluator: gives the prior (the moves searched and their ``log P``) and the values; a learned
            policy-value network (:class:`~boardenvs_agents.learning.evaluator.NetworkEvaluator`).
        seed: seed of the search's generator.
        top: moves searched, the prior's most likely ones.
        prior_weight: weight of ``log P(a)`` beside the move's expected value (0: value alone).
        samples: determinizations averaged a decision (1 for a game without hidden state).
        max_outcomes: chance outcomes gone through exactly after each move, at most; beyond, as many
            are sampled.
        reply: an agent spec for the next player's reply, searched one decision further (``None``:
            the value is read at the next decision).
        name: label in tables.

    Raises:
        ValueError: for an evaluator that is not one or gives no prior, or options out of range.
    """

    name = "expectimax"

    def __init__(
        self,
        evaluator: Evaluator,
        seed: int | None = None,
        *,
        top: int = 8,
        prior_weight: float = 0.01,
        samples: int = 1,
        max_outcomes: int = 64,
        reply: str | None = None,
        name: str = "expectimax",
    ) -> None:
        super().__init__(seed)
        if not isinstance(evaluator, Evaluator) or not evaluator.has_prior:
            raise ValueError(
                f"expectimax: the evaluator must be an Evaluator with a prior (a learned model such as "
                f"ppo:sorry_v0), got {evaluator!r}"
            )
        for key, value in (("top", top), ("samples", samples), ("max_outcomes", max_outcomes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"expectimax: {key} must be a positive integer, got {value!r}")
        if reply is not None and (not isinstance(reply, str) or not reply):
            raise ValueError(f"expectimax: reply must be an agent spec such as 'heuristic', got {reply!r}")
        if (
            isinstance(prior_weight, bool)
            or not isinstance(prior_weight, (int, float))
            or not math.isfinite(prior_weight)
            or prior_weight < 0
        ):
            raise ValueError(f"expectimax: prior_weight must be a non-negative number, got {prior_weight!r}")
        self.evaluator = evaluator
        self.top = top
        self.prior_weight = float(prior_weight)
        self.samples = samples
        self.max_outcomes = max_outcomes
        self.reply = reply
        self._replies: dict[str, Policy] = {}
        self.name = name
        #: The last search: ``moves`` searched, their ``values`` (Q), ``prior`` and ``scores``; ``{}``
        #: after a decision without a choice.
        self.last_search: dict[str, Any] = {}

    def act(self, state: State) -> int:
        """The searched move of the player to move (a lone legal action at once, without a search)."""
        legal = list(state.legal_actions())
        me = state.current_player()
        if len(legal) == 1:
            self.last_search = {}
            return legal[0]
        worlds = [state.determinize(me, self.rng) for _ in range(self.samples)]
        prior = self.evaluator.evaluate([worlds[0].clone()], self.rng)[0].prior or uniform_prior(worlds[0])
        moves = sorted(legal, key=lambda a: (-prior.get(a, 0.0), a))[: self.top]
        leaves: list[State] = []
        owners: list[tuple[int, float]] = []  # (move, weight) of each leaf
        values = dict.fromkeys(moves, 0.0)
        for world in worlds:
            for move in moves:
                after = world.clone()
                after.apply_action(move)
                for leaf, weight in self._leaves(after, me):
                    weight /= self.samples
                    if leaf.is_terminal() or leaf.is_out(me):
                        values[move] += weight * float(leaf.returns()[me])
                    else:
                        leaves.append(leaf)
                        owners.append((move, weight))
        if leaves:
            estimates = self.evaluator.values_of(leaves, me, self.rng)
            for (move, weight), value in zip(owners, estimates, strict=True):
                values[move] += weight * value
        scores = [(values[a] + self.prior_weight * math.log(max(prior.get(a, 0.0), 1e-12)), a) for a in moves]
        self.last_search = {
            "moves": moves,
            "values": values,
            "prior": {a: prior.get(a, 0.0) for a in moves},
            "scores": {a: s for s, a in scores},
        }
        return self.pick_best(scores)

    def _leaves(self, after: State, me: int) -> list[tuple[State, float]]:
        """The positions valued after a move: the next decision (every chance outcome on the way), or
        with ``reply`` the decision after the next player's reply, if that player is another."""
        leaves = self._outcomes(after)
        if self.reply is None:
            return leaves
        deeper = []
        for leaf, weight in leaves:
            if leaf.is_terminal() or leaf.current_player() == me or leaf.is_out(me):
                deeper.append((leaf, weight))
                continue
            leaf.apply_action(self._reply_policy(leaf).act(leaf))
            deeper.extend((position, weight * w) for position, w in self._outcomes(leaf))
        return deeper

    def _reply_policy(self, state: State) -> Policy:
        """The policy of the other players' replies for ``state``'s game (built once per game), drawing
        from the search's generator."""
        game = state.game_name
        policy = self._replies.get(game)
        if policy is None:
            assert self.reply is not None
            policy = self._replies[game] = make_policy(self.reply, game)
        policy.rng = self.rng
        return policy

    def _outcomes(self, state: State) -> list[tuple[State, float]]:
        """The positions at the next decision (or the end) after ``state``, with their probabilities:
        every chance outcome on the way, or ``max_outcomes`` sampled paths if there are more (or if
        going through them would expand more than ``max_outcomes`` chance nodes)."""
        exact = self._enumerate(state)
        if exact is not None:
            return exact
        sampled = []
        for _ in range(self.max_outcomes):
            path = state.clone()
            while path.is_chance_node():
                path.apply_action(path.sample_chance(self.rng))
            sampled.append((path, 1.0 / self.max_outcomes))
        return sampled

    def _enumerate(self, state: State) -> list[tuple[State, float]] | None:
        """Every outcome path from ``state`` to a decision or the end, depth first in the order of
        ``chance_outcomes()``; ``None`` past ``max_outcomes`` positions or chance nodes."""
        out: list[tuple[State, float]] = []
        stack = [(state, 1.0)]
        expanded = 0
        while stack:
            node, weight = stack.pop()
            if not node.is_chance_node():
                out.append((node, weight))
                if len(out) > self.max_outcomes:
                    return None
                continue
            expanded += 1
            if expanded > self.max_outcomes:
                return None
            children = []
            for outcome, probability in node.chance_outcomes():
                child = node.clone()
                child.apply_action(outcome)
                children.append((child, weight * probability))
            stack.extend(reversed(children))
        return out

    def __repr__(self) -> str:
        return (
            f"ExpectimaxPolicy({self.evaluator!r}, top={self.top}, prior_weight={self.prior_weight}, "
            f"samples={self.samples}, max_outcomes={self.max_outcomes}, reply={self.reply!r})"
        )


def make_expectimax(
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    evaluator: Any = None,
    **options: Any,
) -> ExpectimaxPolicy:
    """The factory of specs such as ``expectimax:evaluator=ppo:sorry_v0,top=8,prior_weight=0.01`` (entry
    point ``boardenvs_agents.agents``): ``evaluator`` a learned policy-value model's spec (built by
    :func:`~boardenvs_agents.registry.make_evaluator`) or an :class:`Evaluator`; the other options are
    :class:`ExpectimaxPolicy`'s.

    Raises:
        ValueError: for a missing evaluator, unknown or out-of-range options.
    """
    known = {"top", "prior_weight", "samples", "max_outcomes", "reply"}
    unknown = sorted(set(options) - known)
    if unknown:
        options_known = sorted(known | {"evaluator"})
        raise ValueError(f"expectimax: unknown option {unknown[0]!r}; options are {options_known}")
    if evaluator is None:
        raise ValueError("expectimax: give the evaluator, a learned model's spec (evaluator=ppo:sorry_v0)")
    if isinstance(evaluator, str):
        evaluator = make_evaluator(evaluator, game_name, game_options)
    return ExpectimaxPolicy(evaluator, seed, **options)
