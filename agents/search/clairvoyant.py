"""``clairvoyant``: a reference agent that knows the game's future chance outcomes. Never a champion.

What it is for: the league's ladder ``random < heuristic < learned < champion < clairvoyant``. Its win
rate against the heuristic says how much of a game is luck (a game of pure skill leaves nothing to
know ahead; a game of pure luck lets the one who knows the dice win nearly always) and how much room
is left above the champion. It is a measuring stick, not a player: it cheats twice, on purpose.

* **It reads the future chance stream.** The game loop (:func:`boardenvs.core.loop.play_game`) hands
  an actor with ``see_chance(rng)`` a *copy* of the game's chance generator before each of its
  decisions (:class:`boardenvs.core.loop.ChanceReader`; the game's own generator is never handed out,
  so the game draws the outcomes its seed says whatever this agent does). ``state.sample_chance(copy)``
  at every chance node, in order, gives exactly the cards and dice the game will deal, given the
  moves. Outside that loop (an opponent of ``gymnasium.make("boardenvs/Sorry-v0",
  opponents=...)``, a state handed to :meth:`ClairvoyantPolicy.act` directly) there is no stream to
  read, and it raises :class:`ChanceStreamMissing` rather than play blind.
* **It reads the true state**, hidden information included: Gangsi's hunter cards (K9) and, as the
  Kyonshi, the hunters' true squares (K32); the deck order is not in any state (decks are unordered
  multisets drawn at chance nodes, :mod:`boardenvs.core.deck`), it is the chance stream. Every other
  agent reads only what its seat may know (``state.determinize``; the leak tests); this one is exempt
  because it measures the game, not the agents: the headroom above the champion is what an agent that
  knew everything could still gain with the same continuation play.

Hence it must never be a champion or a training opponent whose results are reported as play: its
strength is not reachable by any agent that plays fair.

**The search** (:meth:`ClairvoyantPolicy.act`): at each decision with a choice, for each legal action,
play the game on from a clone of the true state with the known future: chance drawn from a copy of the
stream (**common random numbers**: every candidate sees the same stream, in order), every seat played
by the continuation policy (``policy``, the game's heuristic by default; each seat its own copy, reset
with the same seeds for every candidate), to the end of the game (or for ``depth`` decisions, then
scored by the game's progress measure, :func:`boardenvs_agents.games.leaf_values`). The action with the
best own final return is played; ties go to the continuation policy's own choice when it is among the
best, else to the first best action. With ``plies=2`` (or more) the search also tries every action at
its own next decisions in each rollout (a shallow exhaustive search of its own moves over the known
future, the others playing the continuation), at about the branching factor times the cost.

Against heuristic opponents the continuation is also a model of the others' play, so a rollout is
close to an exact prediction of the game (up to the opponents' own tie-breaks): the search is a
one-step policy improvement with the future known. Its cost per decision is the number of legal
actions times one rollout to the end (measured in ``docs/agents.md``, "The clairvoyant reference").
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardenvs import make_game
from boardenvs.core.loop import copy_generator
from boardenvs.core.state import CHANCE, TERMINAL, State
from boardenvs_agents.base import Policy
from boardenvs_agents.games import leaf_values
from boardenvs_agents.registry import make_policy


class ChanceStreamMissing(RuntimeError):
    """The clairvoyant was asked to move without the game loop's chance stream to read ahead."""


class ClairvoyantPolicy(Policy):
    """Searches every legal action with the game's known future (see the module docstring).

    Args:
        continuation: one policy per seat, playing that seat in the rollouts (every candidate's
            rollouts reset them with the same seeds).
        seed: seed of the agent's own generator (the rollouts' policy seeds are drawn from it).
        plies: own decisions searched exhaustively in each rollout (1: the action now only).
        depth: decisions a rollout plays before it is scored by the game's progress measure
            (``None``: to the end of the game).
        name: label in tables.

    Raises:
        ValueError: for ``plies`` or ``depth`` out of range, or no continuation policy.
    """

    def __init__(
        self,
        continuation: Sequence[Policy],
        seed: int | None = None,
        *,
        plies: int = 1,
        depth: int | None = None,
        name: str = "clairvoyant",
    ) -> None:
        super().__init__(seed)
        if not continuation:
            raise ValueError("clairvoyant: give one continuation policy per seat")
        if isinstance(plies, bool) or not isinstance(plies, int) or plies < 1:
            raise ValueError(f"clairvoyant: plies must be a positive integer, got {plies!r}")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"clairvoyant: depth must be a positive integer or None, got {depth!r}")
        self.continuation = list(continuation)
        self.plies = plies
        self.depth = depth
        self.name = name
        self._stream: np.random.Generator | None = None
        #: Statistics of the last decision: rollouts, seconds, every candidate's value, choice.
        self.last_search: dict[str, Any] = {}

    # -- the loop's hook --------------------------------------------------------------------------
    def see_chance(self, rng: np.random.Generator) -> None:
        """Keep the copy of the chance generator the game loop hands over before this decision."""
        self._stream = rng

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed, and forget any chance stream of the last one."""
        super().reset(seed)
        self._stream = None

    # -- the search -------------------------------------------------------------------------------
    def act(self, state: State) -> int:
        """The legal action whose rollout with the known future ends best for the player to move.

        Raises:
            ChanceStreamMissing: when the game loop did not hand over its chance stream for this
                decision (the agent is played outside :func:`boardenvs.core.loop.play_game`).
            ValueError: at a node where no player decides.
        """
        stream, self._stream = self._stream, None
        if stream is None:
            raise ChanceStreamMissing(
                "clairvoyant needs the game loop's chance stream: it is a reference that reads the game's "
                "future cards and dice, handed to it by boardenvs.core.loop.play_game (the arena, the "
                "league, boardenvs-evaluate) through see_chance() before each decision; it cannot play "
                "a state given directly or as an opponent of a gymnasium/PettingZoo env"
            )
        me = state.current_player()
        if me < 0:
            raise ValueError(f"clairvoyant: act() needs a decision node, got current_player() == {me}")
        legal = list(state.legal_actions())
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        seed = int(self.rng.integers(2**62))
        self._rollouts = 0
        values = [self._branch(state, action, me, stream, seed, self.plies - 1, 0) for action in legal]
        best = max(values)
        top = [a for a, v in zip(legal, values, strict=True) if v >= best - 1e-9]
        choice = top[0]
        if len(top) > 1:
            self._reset_continuation(seed)
            own = self.continuation[me].act(state.clone())
            if own in top:
                choice = own
        self.last_search = {
            "rollouts": self._rollouts,
            "seconds": time.perf_counter() - start,
            "candidates": legal,
            "values": values,
            "choice": choice,
        }
        return choice

    def _reset_continuation(self, seed: int) -> None:
        for seat, policy in enumerate(self.continuation):
            policy.reset(seed=seed + seat)

    def _branch(
        self,
        state: State,
        action: int,
        me: int,
        stream: np.random.Generator,
        seed: int,
        plies: int,
        steps: int,
    ) -> float:
        """``me``'s value of ``action`` in a copy of ``state``: the copy played on with a copy of
        ``stream`` and the continuation policies reset with ``seed`` (the same for every candidate)."""
        child = state.clone()
        child.apply_action(action)
        self._reset_continuation(seed)
        return self._rollout(child, me, copy_generator(stream), seed, plies, steps + 1)

    def _rollout(
        self, state: State, me: int, chance: np.random.Generator, seed: int, plies: int, steps: int
    ) -> float:
        self._rollouts += 1
        continuation = self.continuation
        while True:
            player = state.current_player()
            if player == TERMINAL or state.is_out(me):
                return float(state.returns()[me])
            if player == CHANCE:
                state.apply_action(state.sample_chance(chance))
                continue
            if self.depth is not None and steps >= self.depth:
                return float(leaf_values(state)[me])
            if player == me and plies > 0:
                legal = state.legal_actions()
                if len(legal) > 1:
                    return max(self._branch(state, a, me, chance, seed, plies - 1, steps) for a in legal)
            state.apply_action(continuation[player].act(state))
            steps += 1

    def __repr__(self) -> str:
        return (
            f"ClairvoyantPolicy(continuation={self.continuation[0].name!r}, plies={self.plies}, "
            f"depth={self.depth})"
        )


def make_clairvoyant(
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    policy: str = "heuristic",
    plies: int = 1,
    depth: int | None = None,
) -> ClairvoyantPolicy:
    """The factory of ``clairvoyant`` (entry point ``boardenvs_agents.agents``), e.g.
    ``clairvoyant``, ``clairvoyant:policy=heuristic,plies=2`` or ``clairvoyant:depth=40``.

    ``policy`` is the continuation's agent spec (without commas), one copy per seat of the game with
    ``game_options``; ``plies`` and ``depth`` are :class:`ClairvoyantPolicy`'s.

    Raises:
        ValueError: for a bad option or continuation spec.
    """
    if isinstance(policy, str) and policy.split(":")[0] == "clairvoyant":
        raise ValueError("clairvoyant: the continuation policy cannot be the clairvoyant itself")
    n = make_game(game_name, **(game_options or {})).num_players
    continuation = [make_policy(policy, game_name, seed=seed, game_options=game_options) for _ in range(n)]
    return ClairvoyantPolicy(continuation, seed=seed, plies=plies, depth=depth, name="clairvoyant")
