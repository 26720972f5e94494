"""Policy improvement by paired rollouts: a base policy, corrected where simulation says it errs.

At a decision with a choice (``RolloutPolicy.act``), the base policy (a learned model or the
heuristic) proposes its move and ranks the others; or a ``first`` policy (such as one ply of
expectimax over the same model) proposes the default move and the base policy ranks the rest. For
each of the ``top`` candidates, the search plays the game on from the same sampled world with the same
dice and cards (**common random numbers**: rollout ``i`` of every candidate starts from the same
determinization and draws its chance outcomes and the policies' choices from generators seeded alike),
the searching seat playing the base policy and every other seat the ``opponents`` policy, to the end
of the game or for ``depth`` decisions (then scored by the game's progress measure,
:func:`boardenvs_agents.games.leaf_values`, or by a learned base policy's value head at the searching
seat's next decision, ``leaf="value"``). It then compares every candidate with the default move **on
the same rollouts** and switches only when the mean paired difference beats the default by more than
``z`` standard errors: a noisy estimate keeps the default move, so the search should never play much
worse than the policy that proposed it, and with a clear difference it plays better (a one-step
policy improvement; Tesauro and Galperin's rollouts of backgammon programs, 1996; Bertsekas's rollout
algorithms).

The budget is ``seconds`` per decision (the clock decides how many rounds of rollouts are played;
each round plays every candidate once) or a fixed number of ``rounds`` (reproducible to the action).
Hidden information is handled as in :mod:`boardenvs_agents.search.mcts`: every round starts from
``state.determinize(me, rng)``, and the search never reads the state beyond ``current_player()``,
``legal_actions()`` and that determinization.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs_agents.base import Policy
from boardenvs_agents.games import leaf_values
from boardenvs_agents.registry import make_policy


class RolloutPolicy(Policy):
    """A base policy improved by paired rollouts (see the module docstring).

    Args:
        base: the policy that proposes moves, plays the searching seat in rollouts and ranks the
            candidates (a learned policy by its scores; any other by its own move first, then the
            others in action order).
        opponents: the policy of every other seat in rollouts (``None``: the base policy).
        seed: seed of the search's generator.
        seconds: time budget per decision (``None``: ``rounds`` only).
        rounds: rollouts per candidate (a cap with ``seconds``; ``None`` with ``seconds``: no cap).
        top: candidates searched, the base policy's best-ranked ones (its own move included).
        depth: rollout decisions before scoring the position (``None``: to the end of the game).
        leaf: how a rollout cut by ``depth`` is scored: ``"progress"``, the game's progress measure
            there, or ``"value"``, the base policy's value head (a learned PPO base) at the searching
            seat's first decision after the cut.
        z: standard errors by which a candidate must beat the default move on the paired rollouts.
        min_rounds: rounds below which the default move is kept whatever the rollouts say (a standard
            error from a handful of rollouts says little).
        name: label in tables.
        first: the policy whose move is the default candidate, the one the others must beat
            (``None``: the base policy's), seeded with ``seed + 1``; the base policy still ranks the
            other candidates and plays the searching seat in rollouts.

    Raises:
        ValueError: for a budget, ``top``, ``depth`` or ``z`` out of range.
    """

    def __init__(
        self,
        base: Policy,
        opponents: Policy | None = None,
        seed: int | None = None,
        *,
        seconds: float | None = 0.09,
        rounds: int | None = None,
        top: int = 4,
        depth: int | None = None,
        leaf: str = "progress",
        z: float = 2.0,
        min_rounds: int = 6,
        name: str = "rollouts",
        first: Policy | None = None,
    ) -> None:
        super().__init__(seed)
        if seconds is None and rounds is None:
            raise ValueError("rollouts: give seconds, rounds or both")
        if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
            raise ValueError(f"rollouts: seconds must be a positive number, got {seconds!r}")
        if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 2):
            raise ValueError(f"rollouts: rounds must be an integer of at least 2, got {rounds!r}")
        if isinstance(top, bool) or not isinstance(top, int) or top < 2:
            raise ValueError(f"rollouts: top must be an integer of at least 2, got {top!r}")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"rollouts: depth must be a positive integer or None, got {depth!r}")
        if leaf not in ("progress", "value"):
            raise ValueError(f"rollouts: leaf must be 'progress' or 'value', got {leaf!r}")
        if leaf == "value" and not hasattr(base, "values"):
            raise ValueError(f"rollouts: leaf=value needs a learned base with a value head, not {base.name}")
        if isinstance(z, bool) or not isinstance(z, (int, float)) or z < 0:
            raise ValueError(f"rollouts: z must be a non-negative number, got {z!r}")
        self.base = base
        self.opponents = opponents if opponents is not None else base
        self.seconds = None if seconds is None else float(seconds)
        self.rounds = rounds
        self.top = top
        self.depth = depth
        self.leaf = leaf
        self.z = float(z)
        if isinstance(min_rounds, bool) or not isinstance(min_rounds, int) or min_rounds < 2:
            raise ValueError(f"rollouts: min_rounds must be an integer of at least 2, got {min_rounds!r}")
        self.min_rounds = min_rounds
        self.name = name
        self.first = first
        self._reseed_first(seed)
        #: Statistics of the last decision: rounds, seconds, candidates, mean paired differences, choice.
        self.last_search: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (the ``first`` policy too, from a seed of its own)."""
        super().reset(seed)
        self._reseed_first(seed)

    def _reseed_first(self, seed: int | None) -> None:
        """Seed the ``first`` policy from the search's ``seed`` (``seed + 1``; ``None``: left as it is)."""
        if self.first is not None and seed is not None:
            self.first.reset(seed + 1)

    def state_dict(self) -> dict[str, Any]:
        """The search's generator, and the ``first`` policy's state if there is one."""
        data = super().state_dict()
        if self.first is not None:
            data["first"] = self.first.state_dict()
        return data

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` in place."""
        super().load_state_dict(data)
        if self.first is not None:
            if "first" not in data:
                raise ValueError(f"{self.name}: bad policy state: no state of its first policy")
            self.first.load_state_dict(data["first"])

    def candidates(self, state: State) -> list[int]:
        """The default move (the ``first`` policy's, else the base policy's) first, then the base
        policy's next best-ranked legal actions, ``top`` in all."""
        legal = state.legal_actions()
        first = None if self.first is None else self.first.act(state)
        if hasattr(self.base, "encode") and hasattr(self.base, "network"):
            # A learned policy: its network's scores rank every legal action.
            obs, mask = self.base.encode(state)
            scores = self.base.network.scores([obs], mask[None])[0]
            if first is None:
                first = self.base.choose(scores, mask)
            others = sorted((a for a in legal if a != first), key=lambda a: -float(scores[a]))
        else:
            if first is None:
                first = self.base.act(state)
            others = [a for a in legal if a != first]
        return [first, *others[: self.top - 1]]

    def act(self, state: State) -> int:
        """The default move (the ``first`` policy's, else the base policy's), or a candidate that beat
        it on the paired rollouts."""
        me = state.current_player()
        if me < 0:
            raise ValueError(f"rollouts: act() needs a decision node, got current_player() == {me}")
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        world = state.determinize(me, self.rng)
        # The base and first policies read only what ``me`` may know, the same in every determinization.
        candidates = self.candidates(world)
        # ``outcomes[r][k]``: candidate k's rollout of round r, its value or the leaf state whose value
        # the base policy's value head gives (all leaves in one forward pass, after the last round).
        outcomes: list[list[float | State]] = []
        done = 0
        while True:
            if done:
                world = state.determinize(me, self.rng)
            round_seed = int(self.rng.integers(2**63))
            outcomes.append([self._rollout(world, action, me, round_seed) for action in candidates])
            done += 1
            if self.rounds is not None and done >= self.rounds:
                break
            if self.seconds is not None:
                # Stop before a round that would overrun the budget (rounds take about the same time).
                elapsed = time.perf_counter() - start
                if elapsed * (done + 1) / done >= self.seconds:
                    break
        diffs = self._paired_diffs(outcomes)
        best, best_score = 0, 0.0
        means = []
        for k in range(1, len(candidates)):
            mean, score = _paired_score(diffs[k], self.z)
            means.append(mean)
            if score > best_score and done >= self.min_rounds:
                best, best_score = k, score
        self.last_search = {
            "rounds": done,
            "seconds": time.perf_counter() - start,
            "candidates": candidates,
            "mean_gain": means,
            "choice": candidates[best],
        }
        return candidates[best]

    def _paired_diffs(self, outcomes: list[list[float | State]]) -> list[list[float]]:
        """``diffs[k][r]``: candidate k's value less the base move's in round r, the leaf states'
        values read from the base policy's value head in one batch (clipped to ``[-1, 1]``)."""
        leaves = [(r, k) for r, row in enumerate(outcomes) for k, v in enumerate(row) if isinstance(v, State)]
        if leaves:
            estimates = self.base.values([outcomes[r][k] for r, k in leaves])
            for (r, k), value in zip(leaves, estimates, strict=True):
                outcomes[r][k] = max(-1.0, min(1.0, value))
        n = len(outcomes[0])
        return [[row[k] - row[0] for row in outcomes] for k in range(n)]

    def _rollout(self, world: State, action: int, me: int, seed: int) -> float | State:
        """``me``'s value after ``action`` in a copy of ``world``, played on with generators seeded by
        ``seed`` (the same for every candidate of a round); with ``leaf="value"``, a rollout cut by
        ``depth`` returns its leaf (``me`` to move), for :meth:`_paired_diffs` to evaluate."""
        state = world.clone()
        state.apply_action(action)
        chance_rng = np.random.default_rng(seed)
        policy_rng = np.random.default_rng(seed + 1)
        base, opponents = self.base, self.opponents
        saved = (base.rng, opponents.rng)
        base.rng = opponents.rng = policy_rng
        try:
            steps = 0
            while True:
                player = state.current_player()
                if player == TERMINAL:
                    return float(state.returns()[me])
                if player == CHANCE:
                    state.apply_action(state.sample_chance(chance_rng))
                    continue
                if state.is_out(me):
                    return float(state.returns()[me])
                if self.depth is not None and steps >= self.depth:
                    if self.leaf == "progress":
                        return float(leaf_values(state)[me])
                    if player == me:
                        return state
                state.apply_action((base if player == me else opponents).act(state))
                steps += 1
        finally:
            base.rng, opponents.rng = saved

    def __repr__(self) -> str:
        return (
            f"RolloutPolicy(base={self.base.name!r}, opponents={self.opponents.name!r}, "
            f"seconds={self.seconds}, rounds={self.rounds}, top={self.top}, depth={self.depth}, z={self.z}"
            + ("" if self.first is None else f", first={self.first.name!r}")
            + ")"
        )


def paired_mean_stderr(diffs: Sequence[float]) -> tuple[float, float]:
    """The mean of paired differences and its standard error (the sample standard deviation over
    ``sqrt(n)``; 0 for fewer than two). Paired rollouts switch moves on it, and the arena's paired
    comparison of two agents (:func:`boardenvs_agents.arena.report.paired_difference`) reports it."""
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, 0.0
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def _paired_score(diffs: list[float], z: float) -> tuple[float, float]:
    """The mean of paired differences and by how much it clears ``z`` standard errors (0 or less: not)."""
    if len(diffs) < 2:
        return sum(diffs) / len(diffs), 0.0
    mean, stderr = paired_mean_stderr(diffs)
    return mean, mean - z * stderr


def make_rollouts(
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    policy: str = "heuristic",
    opponents: str = "heuristic",
    first: str | None = None,
    **options: Any,
) -> RolloutPolicy:
    """The registry's factory for specs such as ``rollouts:policy=ppo:sorry_v0,opponents=heuristic,top=3``.

    ``policy``, ``opponents`` and ``first`` (the default move's policy, e.g.
    ``first=expectimax:evaluator=ppo:sorry_v0``) are agent specs (without commas); the other options
    are :class:`RolloutPolicy`'s.

    Raises:
        ValueError: for unknown or out-of-range options, or a bad inner spec.
    """
    if "seconds" in options and options["seconds"] in ("none", "None"):
        options["seconds"] = None
    base = make_policy(policy, game_name, seed=seed, game_options=game_options)
    return rollouts_over(base, game_name, seed, game_options, opponents, first, policy_name=policy, **options)


def rollouts_over(
    base: Policy,
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    opponents: str = "heuristic",
    first: str | None = None,
    policy_name: str | None = None,
    **options: Any,
) -> RolloutPolicy:
    """The rollouts over ``base``, a policy already made (the spec factory's, or expert iteration's
    network), with the spec's options: ``opponents`` and ``first`` are agent specs (``opponents`` the
    same as ``policy_name``, the base's spec: the base plays them), the others :class:`RolloutPolicy`'s.

    Raises:
        ValueError: for unknown or out-of-range options, or a bad inner spec.
    """
    known = {"seconds", "rounds", "top", "depth", "leaf", "z", "min_rounds"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(
            f"rollouts: unknown option {unknown[0]!r}; "
            f"options are {sorted(known | {'policy', 'opponents', 'first'})}"
        )
    policy_name = policy_name if policy_name is not None else base.name
    others = base
    if opponents != policy_name:
        others = make_policy(opponents, game_name, seed=seed, game_options=game_options)
    proposer, name = None, f"rollouts({policy_name} vs {opponents})"
    if first is not None:
        proposer = make_policy(str(first), game_name, game_options=game_options)  # seeded by the search
        name = f"rollouts({first} over {policy_name} vs {opponents})"
    return RolloutPolicy(base, others, seed=seed, name=name, first=proposer, **options)
