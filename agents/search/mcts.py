"""Monte Carlo tree search over the rules states: UCT (or PUCT with a prior) with chance nodes, max^n
values, information-set sampling (single-observer ISMCTS) for hidden information, and leaves scored by
an evaluator (rollouts, or a learned policy-value network).

How one decision is searched (``MCTSPolicy.act``):

1. **A fresh determinization per simulation.** The searching seat ``me`` never reads the state it is
   given beyond ``current_player()`` and ``legal_actions()`` (both part of its own observation: the
   action mask). Every simulation starts from ``state.determinize(me, rng)``, a full state whose
   hidden parts are resampled from what ``me`` may know. Sorry!, Star of the Lost City and LEAVE this
   Neighborhood hold no secret in the state: their decks are unordered multisets of unseen cards drawn
   at chance nodes (:mod:`boardenvs.core.deck`; Neighborhood's used cards go under the pile in a known,
   public order, L25; Lost City's held cards are public, 4.3), so their ``determinize`` is a clone and
   the search is plain UCT with chance nodes. Gangsi resamples hunter hands (for everyone but their
   holder) and, for the Kyonshi, the hunters' squares and rolls (K9, K32).
2. **One tree, statistics per action sequence** (single-observer information-set MCTS, Cowling,
   Powley and Whitehouse 2012) rather than N separate determinized trees: at 25-200 simulations a
   decision, N trees would each be too small to say anything, and one tree evaluates every root move
   across all the samples instead of in the one world each tree believes in. A decision node's
   children are keyed by (mover, action); actions legal in some samples but not in others are scored
   with their *availability* count (how often they were legal when their parent was visited) in place
   of the parent's visit count.
3. **Chance nodes** are sampled with the policy's own generator (OpenSpiel style) and the outcome is a
   child of its own, so the positions after different cards or dice keep separate statistics (a
   player who decides after a draw knows the card). Chance children met on the way down are created
   as they are sampled.
4. **Max^n backups and selection.** Every node sums the return of *every* player (``state.returns()``,
   or the evaluator's value per player); the player to move at a node picks the child maximizing its
   own component. Nothing assumes two players or alternation: eliminated players (``is_out``) never
   move again and keep their final return, and a player taking several micro-actions in a row is
   simply the mover of several nodes in a row. The rule follows the evaluator (``selection``):

   - **UCT** without a prior (the rollout evaluators): untried actions first (one drawn at random),
     then ``Q_p + c * sqrt(ln(avail) / n)``. Each simulation adds exactly one decision edge; the
     position after it (and after any chance that follows, sampled outside the tree) is the leaf.
   - **PUCT** with a prior (AlphaZero): ``Q_p + c * P(a) * sqrt(N) / (1 + n)``, ``N`` the node's
     visits, ``P`` the prior the evaluator gave when the node was evaluated, ``Q_p`` of an unvisited
     action the node's own mean value for ``p`` (an action legal in this determinization only has the
     uniform share as prior). A simulation descends until a decision node never evaluated (the root,
     at the first simulation; then the node after a new edge or after a chance outcome not met
     before) or a terminal one: that node is the leaf, and its prior is kept on it.
5. **Leaves are evaluated** by an :class:`~boardenvs_agents.search.evaluators.Evaluator` (a terminal
   leaf scores its returns): a value per player, and a prior over the moves of the player to move
   (:mod:`boardenvs_agents.search.evaluators` states the contract). The default,
   :class:`~boardenvs_agents.search.evaluators.RolloutEvaluator`, is set by ``rollout``, ``depth`` and
   ``leaf``: rollouts play uniformly random legal moves (``rollout="random"``) or the game's
   heuristic (``rollout="heuristic"``, or any spec such as ``"heuristic:depth=1"``), chance sampled
   with the same generator, to the end of the game (every game has its own cap: Sorry! ``max_turns``,
   Gangsi ``max_rounds``, Lost City and Neighborhood their round caps) or for at most ``depth``
   decisions. A rollout cut off by ``depth`` scores ``state.returns()`` there (``leaf="returns"``: 0,
   a draw, for every player still in, the final -1 of players already out) or the game's progress
   measure (``leaf="eval"``, :mod:`boardenvs_agents.games`). Random rollouts to the end are the
   default, as the one setting that needs nothing game-specific; but a random Sorry! game runs about
   200 decisions and a Gangsi one several hundred, so ``depth=10,leaf="eval"`` is 10-20 times faster
   (and is what the README's strength table measures). A learned policy-value network is an evaluator
   too (:class:`boardenvs_agents.learning.evaluator.NetworkEvaluator`, spec
   ``mcts:evaluator=ppo:sorry_v0``): its policy is the prior, its value head the value, and the search
   runs PUCT. The rollout evaluators give a uniform prior and keep the search exactly what it was
   before evaluators (the same moves from the same seeds: ``tests/agents/test_mcts_pinned.py``).
6. **The move played** is the root child with the most visits (ties: the higher mean value for
   ``me``, then the higher prior, then the lower action id: with one simulation and a prior, the
   prior's favourite). A lone legal action is returned at once, without a search.

Everything random comes from ``self.rng`` (determinizations, chance, the evaluator's rollouts and the
heuristic they use, untried-action order), so a policy reset with a seed repeats its decisions
exactly; the clock is read only when ``seconds`` is set.

Known limits, as for any single-observer ISMCTS: the other players are modelled as if they saw the
sampled world (they act on its hidden information inside the tree), and a Kyonshi's later decisions in
the tree are keyed by hunter moves it would not see; only the root decision is an information-set
decision.
"""

from __future__ import annotations

import math
import time
from typing import Any

from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_evaluator
from boardenvs_agents.search.evaluators import Evaluator, RolloutEvaluator, uniform_prior

#: Children keys are ``action * _KEY + slot``, ``slot`` = 0 for a chance outcome, ``1 + player`` else.
_KEY = 16

#: Selection rules: UCT (no prior) or PUCT (AlphaZero's, with the evaluator's prior).
SELECTIONS = ("uct", "puct")


class _Node:
    """A tree node: children by key, visits, availability (ISMCTS), the sum of every player's return,
    and (PUCT) the prior over the moves of the player to move, once the node was evaluated."""

    __slots__ = ("children", "visits", "avail", "total", "prior")

    def __init__(self, num_players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = [0.0] * num_players
        self.prior: dict[int, float] | None = None


class MCTSPolicy(Policy):
    """UCT / PUCT information-set MCTS with chance nodes and max^n values (see the module docstring).

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        sims: simulations per decision (default 200 without ``seconds``; with ``seconds``, a cap).
        seconds: time budget per decision instead of (or as well as) ``sims``; at least one simulation
            is always run. The only use of the clock.
        c: exploration constant of UCT or PUCT; values are returns in ``[-1, 1]``.
        rollout: ``"random"``, ``"heuristic"``, or an agent spec for the rollout policy (e.g.
            ``"heuristic:depth=1"``); it plays on determinized states only. With ``depth`` and ``leaf``,
            it sets the default evaluator, a
            :class:`~boardenvs_agents.search.evaluators.RolloutEvaluator`.
        depth: at most this many rollout decisions (``None``: to the end of the game).
        leaf: the value of a rollout cut off by ``depth``: ``"returns"``, ``state.returns()`` at the cut
            (0, a draw, for every player still in), or ``"eval"``, the game's progress measure
            (:func:`boardenvs_agents.games.leaf_values`: pawn progress, HP, treasures or tokens).
        evaluator: evaluates the leaves instead of the rollouts (an
            :class:`~boardenvs_agents.search.evaluators.Evaluator`, e.g. a learned policy-value network,
            :class:`boardenvs_agents.learning.evaluator.NetworkEvaluator`); not with ``rollout``,
            ``depth`` or ``leaf``.
        selection: ``"uct"`` or ``"puct"``; default: PUCT when the evaluator gives priors
            (``evaluator.has_prior``), else UCT.

    Raises:
        ValueError: for a budget, constant or depth out of range, an unknown rollout, leaf or
            selection, or rollout options given with an evaluator.
    """

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        *,
        sims: int | None = None,
        seconds: float | None = None,
        c: float = 1.0,
        rollout: str = "random",
        depth: int | None = None,
        leaf: str = "returns",
        evaluator: Evaluator | None = None,
        selection: str | None = None,
    ) -> None:
        super().__init__(seed)
        if sims is None and seconds is None:
            sims = 200
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ValueError(f"mcts: sims must be a positive integer, got {sims!r}")
        if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
            raise ValueError(f"mcts: seconds must be a positive number, got {seconds!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"mcts: c must be a non-negative number, got {c!r}")
        if evaluator is None:
            evaluator = RolloutEvaluator(rollout, depth, leaf)
        elif not isinstance(evaluator, Evaluator):
            raise ValueError(f"mcts: evaluator must be an Evaluator, got {evaluator!r}")
        elif (rollout, depth, leaf) != ("random", None, "returns"):
            raise ValueError(
                "mcts: rollout, depth and leaf set the rollout evaluator; they do not go with an "
                f"evaluator of its own ({evaluator!r})"
            )
        if selection is None:
            selection = "puct" if evaluator.has_prior else "uct"
        if selection not in SELECTIONS:
            raise ValueError(f"mcts: selection must be one of {SELECTIONS}, got {selection!r}")
        self.sims = sims
        self.seconds = None if seconds is None else float(seconds)
        self.c = float(c)
        self.rollout = rollout
        self.depth = depth
        self.leaf = leaf
        self.evaluator = evaluator
        self.selection = selection
        #: Statistics of the last search: simulations, seconds, root visits by action, and the root's
        #: prior (PUCT; ``None`` under UCT).
        self.last_search: dict[str, Any] = {}

    # -- the search -------------------------------------------------------------------------------
    def act(self, state: State) -> int:
        """The most visited root action after the search (a lone legal action without one).

        Reads only ``state.current_player()``, ``state.legal_actions()`` and
        ``state.determinize(me, rng)``: never the state's hidden parts.
        """
        me = state.current_player()
        if me < 0:
            raise ValueError(f"mcts: act() needs a decision node, got current_player() == {me}")
        legal = list(state.legal_actions())
        if len(legal) == 1:
            self.last_search = {"sims": 0, "seconds": 0.0, "visits": {legal[0]: 0}, "prior": None}
            return legal[0]
        rng = self.rng
        start = time.perf_counter() if self.seconds is not None else 0.0
        root: _Node | None = None
        done = 0
        while True:
            world = state.determinize(me, rng)
            if root is None:
                if len(world.returns()) >= _KEY:
                    raise ValueError(f"mcts: at most {_KEY - 1} players, got {len(world.returns())}")
                root = _Node(len(world.returns()))
            self._simulate(root, world)
            done += 1
            if self.sims is not None and done >= self.sims:
                break
            if self.seconds is not None and time.perf_counter() - start >= self.seconds:
                break
        assert root is not None
        slot = me + 1
        prior = root.prior or {}
        best_action = legal[0]
        best_key: tuple[int, float, float] | None = None
        visits: dict[int, int] = {}
        for action in legal:
            child = root.children.get(action * _KEY + slot)
            n = child.visits if child is not None else 0
            visits[action] = n
            mean = child.total[me] / n if child is not None and n else -math.inf
            key = (n, mean, prior.get(action, 0.0))
            if best_key is None or key > best_key:
                best_key = key
                best_action = action
        self.last_search = {
            "sims": done,
            "seconds": time.perf_counter() - start if self.seconds is not None else None,
            "visits": visits,
            "prior": root.prior,
        }
        return best_action

    def _simulate(self, root: _Node, state: State) -> None:
        """One simulation from the determinized root ``state``: select, expand, evaluate, back up."""
        rng = self.rng
        c = self.c
        puct = self.selection == "puct"
        num_players = len(root.total)
        node = root
        path = [root]
        while True:
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcome = state.sample_chance(rng)
                state.apply_action(outcome)
                key = outcome * _KEY
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = _Node(num_players)
                node = child
                path.append(node)
                continue
            if puct:
                if node.prior is None:
                    break  # a decision node never evaluated: the leaf
                action, node = self._puct_child(node, state, player)
                state.apply_action(action)
                path.append(node)
                continue
            slot = player + 1
            children = node.children
            untried = []
            best = None
            best_score = -math.inf
            for action in state.legal_actions():
                child = children.get(action * _KEY + slot)
                if child is None:
                    untried.append(action)
                    continue
                child.avail += 1
                if untried:
                    continue  # expansion comes first; availability is still counted
                n = child.visits
                score = child.total[player] / n + c * math.sqrt(math.log(child.avail) / n)
                if score > best_score:
                    best_score = score
                    best = (action, child)
            if untried:
                action = untried[int(rng.random() * len(untried))] if len(untried) > 1 else untried[0]
                child = children[action * _KEY + slot] = _Node(num_players)
                state.apply_action(action)
                path.append(child)
                break
            assert best is not None
            action, node = best
            state.apply_action(action)
            path.append(node)
        returns = self._evaluate(node if puct else None, state)
        for visited in path:
            visited.visits += 1
            total = visited.total
            for p in range(num_players):
                total[p] += returns[p]

    def _puct_child(self, node: _Node, state: State, player: int) -> tuple[int, _Node]:
        """The action of ``player`` maximizing ``Q + c * P * sqrt(N) / (1 + n)`` at the evaluated
        ``node``, and its child (made if new). ``Q`` of an unvisited action is the node's own mean
        value for ``player``; an action missing from the node's prior (legal in this determinization
        only) gets the uniform share. Ties: the first legal action."""
        slot = player + 1
        children = node.children
        legal = state.legal_actions()
        prior = node.prior
        assert prior is not None
        scale = self.c * math.sqrt(node.visits)
        first = node.total[player] / node.visits
        uniform = 1.0 / len(legal)
        best_action = legal[0]
        best_score = -math.inf
        for action in legal:
            child = children.get(action * _KEY + slot)
            p = prior.get(action, uniform)
            if child is None or not child.visits:
                score = first + scale * p
            else:
                n = child.visits
                score = child.total[player] / n + scale * p / (1 + n)
            if score > best_score:
                best_score = score
                best_action = action
        key = best_action * _KEY + slot
        child = children.get(key)
        if child is None:
            child = children[key] = _Node(len(node.total))
        return best_action, child

    def _evaluate(self, leaf: _Node | None, state: State) -> list[float]:
        """Every player's value of the simulation's last ``state``: its returns if terminal, else the
        evaluator's, past any chance nodes (sampled with the policy's generator, outside the tree).
        With PUCT, the prior is kept on the ``leaf`` node."""
        rng = self.rng
        while state.current_player() == CHANCE:  # UCT stops right after its new edge
            state.apply_action(state.sample_chance(rng))
        if state.current_player() == TERMINAL:
            return [float(r) for r in state.returns()]
        evaluator = self.evaluator
        fallback = uniform_prior(state) if leaf is not None and not evaluator.has_prior else None
        evaluation = evaluator.evaluate([state], rng)[0]
        if leaf is not None:
            prior = evaluation.prior if evaluation.prior is not None else fallback
            if prior is None:
                raise ValueError(f"mcts: {evaluator!r} says it has priors but gave none")
            leaf.prior = prior
        return evaluation.values

    def __repr__(self) -> str:
        if isinstance(self.evaluator, RolloutEvaluator):
            leaves = f"rollout={self.rollout!r}, depth={self.depth}, leaf={self.leaf!r}"
        else:
            leaves = f"evaluator={self.evaluator!r}"
        return (
            f"MCTSPolicy(sims={self.sims}, seconds={self.seconds}, c={self.c}, {leaves}, "
            f"selection={self.selection!r})"
        )


def make_mcts(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **options: Any
) -> MCTSPolicy:
    """The factory of specs such as ``mcts:sims=200,rollout=heuristic`` (any game; entry point
    ``boardenvs_agents.agents``).

    ``evaluator=rollout`` (the default) evaluates leaves by rollouts (``rollout``, ``depth``, ``leaf``);
    ``evaluator=<algo>:<model>`` (e.g. ``ppo:sorry_v0``) by that learned model's policy as prior and
    its value head as leaf value, which the registry builds
    (:func:`~boardenvs_agents.registry.make_evaluator`: search knows nothing of learning). An
    :class:`~boardenvs_agents.search.evaluators.Evaluator` object is taken as it is.

    Raises:
        ValueError: for unknown or out-of-range options, or an unknown evaluator.
    """
    known = {"sims", "seconds", "c", "rollout", "depth", "leaf", "evaluator", "selection"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"mcts: unknown option {unknown[0]!r}; options are {sorted(known)}")
    evaluator = options.pop("evaluator", "rollout")
    if isinstance(evaluator, str):
        if evaluator != "rollout":
            options["evaluator"] = make_evaluator(evaluator, game_name, game_options)
    else:
        options["evaluator"] = evaluator
    return MCTSPolicy(seed=seed, **options)
