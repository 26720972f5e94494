"""Monte Carlo tree search over the rules states: UCT (or PUCT or Gumbel with a prior) with chance nodes,
max^n values, information-set sampling (single-observer ISMCTS) for hidden information, and leaves scored by
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
   - **Gumbel** (``selection="gumbel"``; Danihelka et al. 2022, "Policy improvement by planning with
     Gumbel", as DeepMind mctx's ``gumbel_muzero_policy``), which holds up with few simulations
     (8-32). The root is evaluated first (not one of ``sims``); then ``g(a)`` is drawn for every root
     action (standard Gumbel times ``gumbel_scale``), and sequential halving
     (:func:`considered_visits`) shares the ``sims`` simulations out: the ``gumbel_k`` (16) actions
     of highest ``g + logits`` first, each phase visiting the best-scoring half of the survivors
     again, scored by ``g(a) + logits(a) + sigma(q(a))``. ``q`` is the completed Q-value of the
     *mover's own* value component (max^n: at the root, ``me``'s; an unvisited action gets the mixed
     value, the evaluator's value of the node averaged with the prior-weighted ``q`` of the visited
     actions), rescaled to ``[0, 1]`` over the node's actions, and
     ``sigma(q) = (50 + max N) * 0.1 * q`` (mctx's defaults). Below the root, the deterministic rule
     of Full Gumbel MuZero: the action maximizing ``pi'(a) - N(a) / (1 + sum N)``, ``pi' =
     softmax(logits + sigma(q))`` the mover's improved policy at that node, so visits follow
     ``pi'``. Leaves as under PUCT. Chance nodes are sampled as everywhere (an expectation over the
     outcomes, by sampling). With an evaluator without priors (the rollouts) the prior is uniform and
     the ``logits`` equal: Gumbel-top-k samples ``k`` root moves uniformly and halving keeps the
     best by value.
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
   prior's favourite). For self-play, ``temperature=T > 0`` samples it instead with probability
   proportional to ``visits ** (1 / T)`` (AlphaZero; ``policy.temperature`` may be changed between
   moves). Under Gumbel, it is the action of highest ``g + logits + sigma(q)`` among the most
   visited (the last survivors of the halving): a sample from the improved policy when the values
   are exact, the argmax of ``logits + sigma(q)`` with ``gumbel_scale=0``. A lone legal action is
   returned at once, without a search.
7. **What the search leaves for training** (expert iteration), in ``last_search``: ``visits``
   (root visits by legal action), ``prior`` (the evaluator's root prior, before any noise; ``None``
   under UCT), ``visit_policy`` (the visits normalised over the legal actions; with no root child
   visited, one PUCT simulation, the prior), ``improved_policy`` (Gumbel: ``softmax(logits +
   sigma(completed q))`` over the legal actions, summing to 1; else ``None``), **``target``**, the
   policy target to train on (the improved policy under Gumbel, else the visit distribution),
   ``values`` (the root's mean value per player), ``sims`` and ``seconds``. A lone legal action
   leaves ``{action: 1.0}`` as its target.
8. **Root exploration for self-play**, off by default: under PUCT, ``dirichlet_frac > 0`` mixes
   Dirichlet noise into the root's prior once it is evaluated, ``(1 - frac) * P + frac *
   Dir(dirichlet_alpha)`` (AlphaZero: 0.25 and 0.3). Gumbel explores by its Gumbel noise instead.
9. **Many searches at once**: :meth:`MCTSPolicy.search` is the search as a coroutine that yields the
   leaves it needs evaluated, and :func:`boardenvs_agents.search.batched.search_many` runs many in
   lockstep, one evaluator call (one forward pass) serving the leaves of all of them, with the moves
   of each search alone.

Everything random comes from ``self.rng`` (determinizations, chance, the evaluator's rollouts and the
heuristic they use, untried-action order, the Dirichlet and Gumbel noise, the temperature's draw), so
a policy reset with a seed repeats its decisions exactly; the clock is read only when ``seconds`` is
set. With the defaults (no noise, no temperature, UCT or PUCT) it draws exactly what it drew before
these options existed (``tests/agents/test_mcts_pinned.py``).

Known limits, as for any single-observer ISMCTS: the other players are modelled as if they saw the
sampled world (they act on its hidden information inside the tree), and a Kyonshi's later decisions in
the tree are keyed by hunter moves it would not see; only the root decision is an information-set
decision.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import Any

from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_evaluator
from boardenvs_agents.search.evaluators import Evaluation, Evaluator, RolloutEvaluator, uniform_prior

#: Children keys are ``action * _KEY + slot``, ``slot`` = 0 for a chance outcome, ``1 + player`` else.
_KEY = 16

#: Selection rules: UCT (no prior), PUCT (AlphaZero's, with the evaluator's prior), or Gumbel (Gumbel
#: MuZero's: sequential halving at the root, the deterministic improved-policy rule below it).
SELECTIONS = ("uct", "puct", "gumbel")

#: Gumbel's value transform ``sigma(q) = (C_VISIT + max_b N(b)) * C_SCALE * q``, ``q`` rescaled to
#: ``[0, 1]`` over the node's actions (mctx's ``qtransform_completed_by_mix_value`` defaults, the
#: paper's ``c_visit`` and ``c_scale``).
GUMBEL_C_VISIT = 50.0
GUMBEL_C_SCALE = 0.1
#: Gumbel's default number of root actions sampled (mctx's ``max_num_considered_actions``).
GUMBEL_K = 16

#: The log of a zero probability (mctx clips probabilities at the float's ``tiny``).
_TINY = 2.2250738585072014e-308
#: mctx's floor of a considered action's score (``score_considered``).
_LOW_LOGIT = -1e9

#: What a search coroutine yields (a leaf to evaluate), is sent (its evaluation) and returns (the move).
Search = Generator[State, Evaluation, int]


def considered_visits(k: int, sims: int) -> tuple[int, ...]:
    """Sequential halving's schedule (Karnin et al. 2013, as mctx's ``get_sequence_of_considered_visits``):
    for each of ``sims`` root simulations, the visit count an action must have to be visited next.

    ``k`` actions share the budget in phases of ``ceil(log2 k)``, the considered set halving after each
    (at least 2 are kept); the best-scoring action with the considered count is visited, so the
    survivors of a phase are its best half. ``k <= 1``: one action gets every simulation.
    """
    if k <= 1:
        return tuple(range(sims))
    log2k = math.ceil(math.log2(k))
    sequence: list[int] = []
    visits = [0] * k
    considered = k
    while len(sequence) < sims:
        extra = max(1, int(sims / (log2k * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:sims])


class _Node:
    """A tree node: children by key, visits, availability (ISMCTS), the sum of every player's return,
    and (PUCT, Gumbel) the prior over the moves of the player to move and every player's value, as the
    evaluator gave them when the node was evaluated."""

    __slots__ = ("children", "visits", "avail", "total", "prior", "value")

    def __init__(self, num_players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = [0.0] * num_players
        self.prior: dict[int, float] | None = None
        self.value: list[float] | None = None


class MCTSPolicy(Policy):
    """UCT / PUCT / Gumbel information-set MCTS with chance nodes and max^n values (see the module
    docstring).

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        sims: simulations per decision (default 200 without ``seconds``; with ``seconds``, a cap). Under
            Gumbel, the simulations after the root's own evaluation (the budget sequential halving
            shares out), so the evaluator is asked up to ``sims + 1`` times.
        seconds: time budget per decision instead of (or as well as) ``sims``; at least one simulation
            is always run. The only use of the clock. Not with Gumbel alone (it halves a known budget).
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
        selection: ``"uct"``, ``"puct"`` or ``"gumbel"``; default: PUCT when the evaluator gives priors
            (``evaluator.has_prior``), else UCT. Gumbel with an evaluator without priors (the rollouts)
            uses the uniform prior.
        temperature: self-play's move choice under UCT or PUCT: ``0`` (the default) plays the most
            visited root action; ``T > 0`` samples an action with probability proportional to
            ``visits ** (1 / T)`` (``1``: the visit distribution itself).
        dirichlet_alpha: concentration of the root's Dirichlet noise (PUCT; AlphaZero: 0.3 in chess).
        dirichlet_frac: weight of that noise in the root's prior, ``(1 - frac) * P + frac * Dir(alpha)``;
            ``0`` (the default) adds none.
        gumbel_k: Gumbel: at most this many root actions are sampled (Gumbel-top-k) and halved over
            (default :data:`GUMBEL_K`).
        gumbel_scale: Gumbel: scale of the Gumbel noise (default 1; 0: the prior's top-k and the
            highest ``logits + sigma(q)``, no sampling).
        gumbel_c_scale: Gumbel: ``c_scale`` of ``sigma(q) = (c_visit + max N) * c_scale * q`` (default
            :data:`GUMBEL_C_SCALE`, mctx's ``value_scale``).
        gumbel_rescale: Gumbel: rescale the completed Q-values to ``[0, 1]`` over the node's actions
            before ``sigma`` (default ``True``, mctx's ``rescale_values``). ``False`` keeps them in
            return units: in a game of chance searched with few simulations, the rescaling blows the
            noise of a few sampled outcomes up to the whole scale, and the improved policy becomes the
            argmax of that noise (docs/learning.md, "Expert iteration that improves").

    Raises:
        ValueError: for a budget, constant, depth, temperature or noise out of range, an unknown
            rollout, leaf or selection, rollout options given with an evaluator, or options of one
            selection rule given to another.
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
        temperature: float = 0.0,
        dirichlet_alpha: float = 0.3,
        dirichlet_frac: float = 0.0,
        gumbel_k: int | None = None,
        gumbel_scale: float | None = None,
        gumbel_c_scale: float | None = None,
        gumbel_rescale: bool | None = None,
    ) -> None:
        super().__init__(seed)
        if sims is None and seconds is None:
            sims = 200
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ValueError(f"mcts: sims must be a positive integer, got {sims!r}")
        if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
            raise ValueError(f"mcts: seconds must be a positive number, got {seconds!r}")
        if not _is_number(c) or c < 0:
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
        if not _is_number(temperature) or temperature < 0:
            raise ValueError(f"mcts: temperature must be a non-negative number, got {temperature!r}")
        if not _is_number(dirichlet_alpha) or not dirichlet_alpha > 0:
            raise ValueError(f"mcts: dirichlet_alpha must be a positive number, got {dirichlet_alpha!r}")
        if not _is_number(dirichlet_frac) or not 0 <= dirichlet_frac <= 1:
            raise ValueError(f"mcts: dirichlet_frac must be a number in [0, 1], got {dirichlet_frac!r}")
        if dirichlet_frac > 0 and selection != "puct":
            raise ValueError(
                f"mcts: Dirichlet noise perturbs PUCT's root prior; selection {selection!r} has "
                + ("no prior" if selection == "uct" else "its own root noise (gumbel_scale)")
            )
        if selection == "gumbel":
            if temperature > 0:
                raise ValueError(
                    "mcts: Gumbel samples its move through its Gumbel noise (gumbel_scale), not a temperature"
                )
            if sims is None:
                raise ValueError("mcts: Gumbel halves a number of simulations: give sims (seconds is a cap)")
            gumbel_k = GUMBEL_K if gumbel_k is None else gumbel_k
            gumbel_scale = 1.0 if gumbel_scale is None else gumbel_scale
            if isinstance(gumbel_k, bool) or not isinstance(gumbel_k, int) or gumbel_k < 1:
                raise ValueError(f"mcts: gumbel_k must be a positive integer, got {gumbel_k!r}")
            if not _is_number(gumbel_scale) or gumbel_scale < 0:
                raise ValueError(f"mcts: gumbel_scale must be a non-negative number, got {gumbel_scale!r}")
            gumbel_c_scale = GUMBEL_C_SCALE if gumbel_c_scale is None else gumbel_c_scale
            gumbel_rescale = True if gumbel_rescale is None else gumbel_rescale
            if not _is_number(gumbel_c_scale) or not gumbel_c_scale > 0:
                raise ValueError(f"mcts: gumbel_c_scale must be a positive number, got {gumbel_c_scale!r}")
            if not isinstance(gumbel_rescale, bool):
                raise ValueError(f"mcts: gumbel_rescale must be true or false, got {gumbel_rescale!r}")
        elif any(o is not None for o in (gumbel_k, gumbel_scale, gumbel_c_scale, gumbel_rescale)):
            raise ValueError(
                "mcts: gumbel_k, gumbel_scale, gumbel_c_scale and gumbel_rescale are options of selection "
                f"'gumbel', not {selection!r}"
            )
        self.sims = sims
        self.seconds = None if seconds is None else float(seconds)
        self.c = float(c)
        self.rollout = rollout
        self.depth = depth
        self.leaf = leaf
        self.evaluator = evaluator
        self.selection = selection
        #: Self-play's move temperature (UCT, PUCT); may be changed between moves (e.g. 1 for the
        #: opening moves, then 0).
        self.temperature = float(temperature)
        self.dirichlet_alpha = float(dirichlet_alpha)
        self.dirichlet_frac = float(dirichlet_frac)
        self.gumbel_k = gumbel_k
        self.gumbel_scale = None if gumbel_scale is None else float(gumbel_scale)
        self.gumbel_c_scale = None if gumbel_c_scale is None else float(gumbel_c_scale)
        self.gumbel_rescale = gumbel_rescale
        #: Statistics of the last search (module docstring, item 7): ``sims``, ``seconds``, ``visits``
        #: (root visits by legal action), ``prior`` (the evaluator's root prior; ``None`` under UCT),
        #: ``visit_policy``, ``improved_policy`` (Gumbel; else ``None``), ``target`` (the policy
        #: target of expert iteration) and ``values`` (the root's mean value per player).
        self.last_search: dict[str, Any] = {}

    # -- the search -------------------------------------------------------------------------------
    def act(self, state: State) -> int:
        """The searched root action (module docstring, item 6; a lone legal action without a search).

        Reads only ``state.current_player()``, ``state.legal_actions()`` and
        ``state.determinize(me, rng)``: never the state's hidden parts.
        """
        search = self.search(state)
        evaluator = self.evaluator
        rng = self.rng
        try:
            leaf = next(search)
            while True:
                leaf = search.send(evaluator.evaluate([leaf], rng)[0])
        except StopIteration as stop:
            return stop.value

    def search(self, state: State) -> Search:
        """The search of :meth:`act` as a coroutine, for drivers that evaluate leaves themselves
        (:func:`boardenvs_agents.search.batched.search_many`).

        It yields every leaf that needs the evaluator (a decision node: the search's own scratch copy,
        handed over as in :meth:`Evaluator.evaluate`), takes that leaf's :class:`Evaluation` by
        ``send``, and returns the action (``StopIteration.value``), leaving ``last_search`` set. The
        evaluation must be the one ``self.evaluator.evaluate([leaf], self.rng)`` gives (an evaluator
        that draws random numbers must draw them from ``self.rng`` at that point): then the search is
        :meth:`act`'s, draw for draw.

        Raises:
            ValueError: for a state that is not a decision node, or a game with 16 or more players.
        """
        me = state.current_player()
        if me < 0:
            raise ValueError(f"mcts: act() needs a decision node, got current_player() == {me}")
        legal = list(state.legal_actions())
        if len(legal) == 1:
            only = {legal[0]: 1.0}
            self.last_search = {
                "sims": 0,
                "seconds": 0.0,
                "visits": {legal[0]: 0},
                "prior": None,
                "visit_policy": only,
                "improved_policy": dict(only) if self.selection == "gumbel" else None,
                "target": only,
                "values": None,
            }
            return legal[0]
        rng = self.rng
        gumbel = self.selection == "gumbel"
        noisy = self.dirichlet_frac > 0
        start = time.perf_counter() if self.seconds is not None else 0.0
        root: _Node | None = None
        prior: dict[int, float] | None = None  # the evaluator's root prior, before any noise
        noise: list[float] = []  # Gumbel's g by root action, in the order of ``legal``
        table: tuple[int, ...] = ()
        done = 0
        while True:
            world = state.determinize(me, rng)
            if root is None:
                if len(world.returns()) >= _KEY:
                    raise ValueError(f"mcts: at most {_KEY - 1} players, got {len(world.returns())}")
                root = _Node(len(world.returns()))
            if gumbel and root.prior is None:
                yield from self._simulate(root, world, None)  # the root's evaluation, not one of sims
                assert root.prior is not None
                prior = root.prior
                k = min(self.gumbel_k or GUMBEL_K, len(legal))
                table = considered_visits(k, self.sims or 0)
                scale = self.gumbel_scale or 0.0
                noise = (rng.gumbel(size=len(legal)) * scale).tolist() if scale > 0 else [0.0] * len(legal)
                continue
            yield from self._simulate(root, world, (legal, noise, table) if gumbel else None)
            if prior is None and root.prior is not None:
                prior = root.prior
                if noisy:
                    share = rng.dirichlet([self.dirichlet_alpha] * len(legal)).tolist()
                    frac = self.dirichlet_frac
                    mix = zip(legal, share, strict=True)
                    root.prior = {a: (1 - frac) * prior.get(a, 0.0) + frac * n for a, n in mix}
            done += 1
            if self.sims is not None and done >= self.sims:
                break
            if self.seconds is not None and time.perf_counter() - start >= self.seconds:
                break
        assert root is not None
        visits, children = self._root_visits(root, legal, me)
        total = sum(visits.values())
        if total:
            visit_policy = {a: n / total for a, n in visits.items()}
        else:  # PUCT with one simulation: only the root was evaluated
            visit_policy = dict(prior) if prior is not None else {a: 1.0 / len(legal) for a in legal}
        improved = None
        if gumbel:
            assert prior is not None
            logits = [math.log(max(prior.get(a, 0.0), _TINY)) for a in legal]
            sigma, counts = self._sigma(root, legal, me, prior)
            most = max(counts)
            best_action = legal[0]
            best_score = -math.inf
            for action, g, logit, s, n in zip(legal, noise, logits, sigma, counts, strict=True):
                score = max(_LOW_LOGIT, g + logit + s) if n == most else -math.inf
                if score > best_score:
                    best_score = score
                    best_action = action
            improved = _softmax(legal, [logit + s for logit, s in zip(logits, sigma, strict=True)])
        elif self.temperature > 0 and total:
            best_action = self._sample_visits(visits)
        else:
            best_action = legal[0]
            best_key: tuple[int, float, float] | None = None
            ranked = prior or {}
            for action in legal:
                child = children[action]
                n = visits[action]
                mean = child.total[me] / n if child is not None and n else -math.inf
                key = (n, mean, ranked.get(action, 0.0))
                if best_key is None or key > best_key:
                    best_key = key
                    best_action = action
        self.last_search = {
            "sims": done,
            "seconds": time.perf_counter() - start if self.seconds is not None else None,
            "visits": visits,
            "prior": prior,
            "visit_policy": visit_policy,
            "improved_policy": improved,
            "target": improved if improved is not None else visit_policy,
            "values": [t / root.visits for t in root.total],
        }
        return best_action

    def _root_visits(
        self, root: _Node, legal: list[int], me: int
    ) -> tuple[dict[int, int], dict[int, _Node | None]]:
        """Visits and children of the root's legal actions (a child not made yet: 0 and ``None``)."""
        slot = me + 1
        children = {a: root.children.get(a * _KEY + slot) for a in legal}
        return {a: (child.visits if child is not None else 0) for a, child in children.items()}, children

    def _sample_visits(self, visits: dict[int, int]) -> int:
        """An action drawn with probability proportional to ``visits ** (1 / temperature)``."""
        most = max(visits.values())
        power = 1.0 / self.temperature
        weights = [(n / most) ** power for n in visits.values()]
        u = self.rng.random() * sum(weights)
        chosen = next(iter(visits))
        for action, w in zip(visits, weights, strict=True):
            if w > 0:
                chosen = action
                u -= w
                if u < 0:
                    break
        return chosen

    def _simulate(
        self, root: _Node, state: State, gumbel_root: tuple[list[int], list[float], tuple[int, ...]] | None
    ) -> Generator[State, Evaluation, None]:
        """One simulation from the determinized root ``state``: select, expand, evaluate, back up.

        ``gumbel_root``: under Gumbel once the root is evaluated, its legal actions, their Gumbel noise
        and the halving schedule (the root's move is then sequential halving's)."""
        rng = self.rng
        c = self.c
        rule = self.selection
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
            if rule != "uct":
                if node.prior is None:
                    break  # a decision node never evaluated: the leaf
                if rule == "puct":
                    action, node = self._puct_child(node, state, player)
                elif node is root and gumbel_root is not None:
                    action, node = self._gumbel_root_child(root, player, *gumbel_root)
                else:
                    action, node = self._gumbel_child(node, state, player)
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
        # The leaf: every player's value of the simulation's last ``state``, its returns if terminal,
        # else the evaluator's, past any chance nodes (sampled with the policy's generator, outside the
        # tree); with a prior rule, the prior and values are kept on the leaf node.
        while state.current_player() == CHANCE:  # UCT stops right after its new edge
            state.apply_action(state.sample_chance(rng))
        if state.current_player() == TERMINAL:
            returns = [float(r) for r in state.returns()]
        else:
            keep = rule != "uct"
            fallback = uniform_prior(state) if keep and not self.evaluator.has_prior else None
            evaluation = yield state
            if keep:
                prior = evaluation.prior if evaluation.prior is not None else fallback
                if prior is None:
                    raise ValueError(f"mcts: {self.evaluator!r} says it has priors but gave none")
                node.prior = prior
                node.value = evaluation.values
            returns = evaluation.values
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
        return best_action, _child(node, best_action * _KEY + slot)

    def _sigma(
        self, node: _Node, actions: list[int], player: int, prior: dict[int, float]
    ) -> tuple[list[float], list[int]]:
        """Gumbel's ``sigma`` of the completed Q-values of ``actions`` at the evaluated ``node`` for
        ``player`` (mctx's ``qtransform_completed_by_mix_value``), and the actions' visits.

        ``Q(a)`` is ``player``'s mean value after ``a``; an unvisited action gets the mixed value, the
        node's own value for ``player`` (the evaluator's) averaged with the prior-weighted ``Q`` of the
        visited actions; the completed values are rescaled to ``[0, 1]`` over ``actions`` (unless
        ``gumbel_rescale`` is off: then only shifted, their lowest to 0) and multiplied by ``(C_VISIT +
        max N) * gumbel_c_scale``."""
        slot = player + 1
        children = node.children
        counts = []
        qs: list[float | None] = []
        for action in actions:
            child = children.get(action * _KEY + slot)
            n = child.visits if child is not None else 0
            counts.append(n)
            qs.append(child.total[player] / n if child is not None and n else None)
        assert node.value is not None
        mixed = node.value[player]
        visited = sum(counts)
        if visited:
            seen = [(a, q) for a, q in zip(actions, qs, strict=True) if q is not None]
            weights = [max(prior.get(a, 0.0), _TINY) for a, _ in seen]
            values = [q for _, q in seen]
            weighted = sum(w * q for w, q in zip(weights, values, strict=True)) / sum(weights)
            mixed = (mixed + visited * weighted) / (visited + 1)
        completed = [mixed if q is None else q for q in qs]
        low = min(completed)
        c_scale = self.gumbel_c_scale
        assert c_scale is not None  # set under selection "gumbel", the only one that asks for sigma
        scale = (GUMBEL_C_VISIT + max(counts)) * c_scale
        if self.gumbel_rescale:
            scale /= max(max(completed) - low, 1e-8)
        return [(q - low) * scale for q in completed], counts

    def _gumbel_root_child(
        self, root: _Node, me: int, legal: list[int], noise: list[float], table: tuple[int, ...]
    ) -> tuple[int, _Node]:
        """Sequential halving with Gumbel at the root (mctx's ``gumbel_muzero_root_action_selection``):
        among the root actions with the visit count the schedule considers now, the one maximizing
        ``g + logits + sigma(q)``. Ties: the first legal action."""
        prior = root.prior
        assert prior is not None
        sigma, counts = self._sigma(root, legal, me, prior)
        considered = table[sum(counts)]
        best_action = legal[0]
        best_score = -math.inf
        for action, g, s, n in zip(legal, noise, sigma, counts, strict=True):
            if n != considered:
                continue
            score = max(_LOW_LOGIT, g + math.log(max(prior.get(action, 0.0), _TINY)) + s)
            if score > best_score:
                best_score = score
                best_action = action
        return best_action, _child(root, best_action * _KEY + me + 1)

    def _gumbel_child(self, node: _Node, state: State, player: int) -> tuple[int, _Node]:
        """Gumbel MuZero's deterministic rule below the root (mctx's
        ``gumbel_muzero_interior_action_selection``): the action maximizing ``pi'(a) - N(a) / (1 + sum
        N)``, ``pi' = softmax(logits + sigma(q))`` the improved policy of ``player`` at ``node``, so
        the visits follow ``pi'``. An action missing from the node's prior (legal in this
        determinization only) gets the uniform share. Ties: the first legal action."""
        legal = list(state.legal_actions())
        prior = node.prior
        assert prior is not None
        uniform = 1.0 / len(legal)
        shares = {a: prior.get(a, uniform) for a in legal}
        sigma, counts = self._sigma(node, legal, player, shares)
        logits = [math.log(max(shares[a], _TINY)) + s for a, s in zip(legal, sigma, strict=True)]
        improved = _softmax(legal, logits)
        denominator = 1 + sum(counts)
        best_action = legal[0]
        best_score = -math.inf
        for action, n in zip(legal, counts, strict=True):
            score = improved[action] - n / denominator
            if score > best_score:
                best_score = score
                best_action = action
        return best_action, _child(node, best_action * _KEY + player + 1)

    def __repr__(self) -> str:
        if isinstance(self.evaluator, RolloutEvaluator):
            leaves = f"rollout={self.rollout!r}, depth={self.depth}, leaf={self.leaf!r}"
        else:
            leaves = f"evaluator={self.evaluator!r}"
        extra = ""
        if self.selection == "gumbel":
            extra = f", gumbel_k={self.gumbel_k}, gumbel_scale={self.gumbel_scale}"
            if (self.gumbel_c_scale, self.gumbel_rescale) != (GUMBEL_C_SCALE, True):
                extra += f", gumbel_c_scale={self.gumbel_c_scale}, gumbel_rescale={self.gumbel_rescale}"
        if self.temperature:
            extra += f", temperature={self.temperature}"
        if self.dirichlet_frac:
            extra += f", dirichlet_alpha={self.dirichlet_alpha}, dirichlet_frac={self.dirichlet_frac}"
        return (
            f"MCTSPolicy(sims={self.sims}, seconds={self.seconds}, c={self.c}, {leaves}, "
            f"selection={self.selection!r}{extra})"
        )


def _is_number(value: Any) -> bool:
    """Whether ``value`` is an int or float (not a bool)."""
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _child(node: _Node, key: int) -> _Node:
    """``node``'s child under ``key``, made if new."""
    child = node.children.get(key)
    if child is None:
        child = node.children[key] = _Node(len(node.total))
    return child


def _softmax(actions: list[int], logits: list[float]) -> dict[int, float]:
    """``{action: probability}``, the softmax of ``logits``."""
    top = max(logits)
    weights = [math.exp(z - top) for z in logits]
    total = sum(weights)
    return {a: w / total for a, w in zip(actions, weights, strict=True)}


#: The options of the ``mcts`` spec (:func:`make_mcts`).
OPTIONS = (
    "sims", "seconds", "c", "rollout", "depth", "leaf", "evaluator", "selection", "temperature",
    "dirichlet_alpha", "dirichlet_frac", "gumbel_k", "gumbel_scale", "gumbel_c_scale", "gumbel_rescale",
)  # fmt: skip


def make_mcts(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **options: Any
) -> MCTSPolicy:
    """The factory of specs such as ``mcts:sims=200,rollout=heuristic`` (any game; entry point
    ``boardenvs_agents.agents``); every :class:`MCTSPolicy` argument is an option
    (``mcts:evaluator=ppo:sorry_v0,selection=gumbel,sims=16``).

    ``evaluator=rollout`` (the default) evaluates leaves by rollouts (``rollout``, ``depth``, ``leaf``);
    ``evaluator=<algo>:<model>`` (e.g. ``ppo:sorry_v0``) by that learned model's policy as prior and
    its value head as leaf value, which the registry builds
    (:func:`~boardenvs_agents.registry.make_evaluator`: search knows nothing of learning). An
    :class:`~boardenvs_agents.search.evaluators.Evaluator` object is taken as it is.

    Raises:
        ValueError: for unknown or out-of-range options, or an unknown evaluator.
    """
    known = set(OPTIONS)
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
