"""A single-agent Gymnasium view of any boardenvs game, for Stable-Baselines3 and friends.

One learner seat per episode; every other seat is played inside :meth:`SingleAgentEnv.step` by
opponents, and chance is sampled with the env's own generator. The learner's seat is drawn by that
generator at every reset (or fixed with ``learner_seat``), so one network learns every seat; the reward
is the learner's return at the end of the game. The legal-action mask comes from
:meth:`SingleAgentEnv.action_masks` (the method sb3-contrib's MaskablePPO looks for, valid right after
``reset``), or, with ``mask_in_observation=True``, inside a ``Dict`` observation (for value-based
methods that must mask the target's max over next actions). Through ``gymnasium.make`` the env is
wrapped, and Gymnasium 1.x wrappers do not forward other methods: call
``env.unwrapped.action_masks()`` or ``env.get_wrapper_attr("action_masks")()``.

This view does not mix the opponents' moves into the learner's trajectory (the pitfall of
PettingZoo's SB3 tutorial): the learner only ever sees its own decisions. A game that ends before the
learner's first decision (possible where turns without a choice are common) is dealt again at reset.

**Opponents.** ``opponents`` is one of, for every other seat alike or as a list with one per other
seat (in seat order, the learner's seat skipped):

* a policy: any object with ``act(state) -> action`` reading the rules state (the agents package's
  ``Policy`` classes, or your own); if it has ``reset(seed=...)``, the env calls it at every reset with
  a seed drawn from its own generator, so episodes are reproducible from ``reset(seed=...)``;
* ``"random"``, built in (:class:`RandomOpponent`: uniform over the legal actions, its generator
  reseeded that way), so ``gymnasium.make("boardenvs/Sorry-v0")`` needs nothing beyond boardenvs;
* any other spec string (``"heuristic"``, ``"mcts:sims=50"``, ``"ppo:sorry_v0"``), handed to an
  *opponent provider*: a function published by an installed package under the entry-point group
  ``boardenvs.opponents`` (:data:`OPPONENT_PROVIDERS`), called as
  ``provider(spec, game_name, game_options)`` and returning a policy, or ``None`` when the spec's name
  is not one of its own. boardenvs never imports a provider by name: it finds them with
  :func:`importlib.metadata.entry_points` (as pytest finds its plugins), and only when a spec string
  other than ``"random"`` is given. The agents that ship with boardenvs (``boardenvs_agents``) publish
  ``boardenvs_agents.registry:resolve_opponent`` there, so every spec ``make_policy`` knows works.

Or, instead of all of these, an :data:`OpponentSampler` ``sampler(rng, seats) -> one policy per seat``
(any callable without ``act``), called at every reset: a self-play pool, a league.

**Opponent decisions handed out.** :meth:`SingleAgentEnv.step_moves` and
:meth:`SingleAgentEnv.reset_moves` are ``step`` and ``reset`` as coroutines: they yield the decisions of
the opponents a ``defer`` predicate picks, to be answered with ``send(action)``, and play the others
inside. ``step``/``reset`` are these coroutines with nothing deferred, so both ways play the same game.
A vector env uses them to answer the decisions of network opponents of many envs with one batched
forward pass (``boardenvs_agents.learning.vec_env``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Sequence
from importlib.metadata import entry_points
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from boardenvs.core.aec import action_index
from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, IllegalActionError, State

#: Something that picks opponents for an episode: ``sampler(rng, seats) -> one policy per seat``.
OpponentSampler = Callable[[np.random.Generator, Sequence[int]], Sequence[Any]]

#: The entry-point group where installed packages publish opponent providers (see the module docstring).
OPPONENT_PROVIDERS = "boardenvs.opponents"


def _finish(moves: Generator[Any, Any, Any]) -> Any:
    """Run a :meth:`SingleAgentEnv.step_moves` / ``reset_moves`` coroutine that defers nothing."""
    try:
        next(moves)
    except StopIteration as done:
        return done.value
    raise AssertionError("an opponent decision was deferred without a caller to answer it")


class RandomOpponent:
    """The built-in ``"random"`` opponent: uniform over the legal actions, with its own generator.

    The env reseeds it from its own generator at every reset (:meth:`reset`), so an episode is
    reproducible from ``env.reset(seed=...)``.

    Args:
        seed: seed of its generator (``None``: fresh entropy).
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a seed makes the choices reproducible from here."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def state_dict(self) -> dict[str, Any]:
        """Its generator's state (what its next choices depend on), for env snapshots."""
        return {"rng": self.rng.bit_generator.state}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` in place."""
        try:
            self.rng.bit_generator.state = data["rng"]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"random opponent: bad state {data!r}: {err}") from err

    def act(self, state: State) -> int:
        """Any legal action, each with equal probability."""
        legal = state.legal_actions()
        return legal[int(self.rng.random() * len(legal))]


@functools.cache
def opponent_providers() -> tuple[tuple[str, Callable[..., Any]], ...]:
    """``(name, provider)`` of every installed opponent provider (entry-point group
    :data:`OPPONENT_PROVIDERS`), loaded on first use, in name order."""
    found = sorted(entry_points(group=OPPONENT_PROVIDERS), key=lambda ep: ep.name)
    return tuple((ep.name, ep.load()) for ep in found)


def resolve_opponent(spec: Any, game: Game) -> Any:
    """A policy for ``game`` from ``spec``: a policy object itself, ``"random"`` (built in), or any
    other spec string through the installed opponent providers.

    Raises:
        ImportError: for a spec string when no opponent provider is installed (it says what to install).
        ValueError: for a spec string no provider knows.
        TypeError: for something that is neither a string nor has an ``act(state)`` method.
    """
    if isinstance(spec, str):
        if spec.strip() == "random":
            return RandomOpponent()
        providers = opponent_providers()
        if not providers:
            raise ImportError(
                f"opponent spec {spec!r}: only 'random' is built into boardenvs, and no package publishes "
                f"opponent specs (entry-point group {OPPONENT_PROVIDERS!r}). Install boardenvs with its "
                'agents (pip install boardenvs; from a checkout: pip install -e ".[train]") instead of '
                "putting the folder on sys.path, or pass a policy object with an act(state) method"
            )
        options = options_to_dict(game.options)
        for _, provider in providers:
            policy = provider(spec, game.name, options)
            if policy is not None:
                return policy
        names = ", ".join(name for name, _ in providers)
        raise ValueError(
            f"unknown opponent spec {spec!r} for {game.name}: 'random' is built in, and no installed "
            f"opponent provider ({names}) knows {spec.partition(':')[0]!r}"
        )
    if not callable(getattr(spec, "act", None)):
        raise TypeError(f"an opponent must be a spec string or have an act(state) method, got {spec!r}")
    return spec


class FixedOpponents:
    """An opponent sampler that always seats the same opponents (picklable, for ``SubprocVecEnv``).

    Args:
        opponents: one spec or policy for every other seat, or a list with one per other seat (in
            seat order, the learner's seat skipped).
        game: the game the specs are resolved for (:func:`resolve_opponent`).
    """

    def __init__(self, opponents: Any, game: Game) -> None:
        self.shared = isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence)
        self.policies = (
            [resolve_opponent(opponents, game)]
            if self.shared
            else [resolve_opponent(spec, game) for spec in opponents]
        )

    def __call__(self, rng: np.random.Generator, seats: Sequence[int]) -> Sequence[Any]:
        """The opponents for ``seats``."""
        if self.shared:
            return self.policies * len(seats)
        if len(self.policies) != len(seats):
            raise ValueError(f"{len(self.policies)} opponents given for {len(seats)} other seats")
        return self.policies

    # -- snapshots (see SingleAgentEnv.state_dict) ---------------------------------------------------
    def ref(self, policy: Any) -> int:
        """How a snapshot names ``policy``: its index among the opponents given."""
        return next(i for i, p in enumerate(self.policies) if p is policy)

    def deref(self, ref: Any) -> Any:
        """The opponent :meth:`ref` named."""
        if isinstance(ref, bool) or not isinstance(ref, int) or not 0 <= ref < len(self.policies):
            raise ValueError(f"opponent reference must be an index 0..{len(self.policies) - 1}, got {ref!r}")
        return self.policies[ref]

    def state_dict(self) -> dict[str, Any]:
        """Nothing beyond the seated opponents' own states (fixed opponents never change)."""
        return {}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """See :meth:`state_dict`."""


class LearnerView:
    """Spaces and observations of the learner's seat(s), shared by the env and trained policies.

    Seats with different spaces (the roles of an asymmetric game) share one padded space when the
    learner's seat is not fixed: the observation is zero-padded to the longest, followed by a one-hot
    of the seat, and actions a seat does not have are never legal.

    Args:
        game: the game.
        learner_seat: the one seat the learner plays, or ``None`` for any seat.
        mask_in_observation: observations are ``{"observation", "action_mask"}`` dicts.
    """

    def __init__(self, game: Game, learner_seat: int | None, mask_in_observation: bool) -> None:
        n = game.num_players
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be in 0..{n - 1}, got {learner_seat}")
        self.game = game
        self.learner_seat = learner_seat
        seats = [learner_seat] if learner_seat is not None else list(range(n))
        shapes = {game.observation_shape(p) for p in seats}
        self.pad = len(shapes) > 1 or len({game.num_actions(p) for p in seats}) > 1
        if self.pad and any(len(shape) != 1 for shape in shapes):
            raise ValueError(f"{game.name}: seats have different non-flat observations; fix learner_seat")
        shape = (max(sh[0] for sh in shapes) + n,) if self.pad else shapes.pop()
        self.box = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.num_actions = max(game.num_actions(p) for p in seats)
        self.mask_in_observation = mask_in_observation
        self.observation_space: spaces.Space = (
            spaces.Dict(
                {"observation": self.box, "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8)}
            )
            if mask_in_observation
            else self.box
        )

    def mask(self, state: State, seat: int) -> np.ndarray:
        """Boolean mask of ``seat``'s legal actions (all False when ``seat`` is not to move)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        if state.current_player() == seat:
            mask[list(state.legal_actions())] = True
        return mask

    def observe(self, state: State, seat: int, legal: bool = True) -> Any:
        """``seat``'s observation in this view's space (``legal=False``: an all-zero mask)."""
        obs = self.game.observe(state, seat)
        if self.pad:
            padded = np.zeros(self.box.shape, dtype=np.float32)
            padded[: obs.shape[0]] = obs
            padded[self.box.shape[0] - self.game.num_players + seat] = 1.0
            obs = padded
        if not self.mask_in_observation:
            return obs
        mask = self.mask(state, seat) if legal else np.zeros(self.num_actions, dtype=bool)
        return {"observation": obs, "action_mask": mask.astype(np.int8)}


class SingleAgentEnv(gymnasium.Env):
    """The game from one learner seat's point of view, the other seats played by opponents.

    Args:
        game: a registered env name (``"sorry_v0"``) or a :class:`~boardenvs.core.game.Game`.
        opponents: ``"random"`` (built in), another spec string (``"heuristic"``, ``"mcts:sims=50"``,
            ``"ppo:sorry_v0"``, resolved by an installed opponent provider), a policy (``act(state)``),
            a list of these (one per other seat), or an :data:`OpponentSampler` called at every reset.
            See the module docstring.
        learner_seat: fix the learner's seat; ``None`` draws it with the env's generator every reset.
        mask_in_observation: observations become ``{"observation", "action_mask"}`` (int8 mask).
        illegal_action: ``"lose"`` (the default, as ``env()`` does: the episode ends with reward -1
            and ``info["illegal_action"] = True``, like PettingZoo's TerminateIllegalWrapper) or
            ``"raise"`` (an :class:`IllegalActionError` naming the legal actions; for training code
            whose masks must never let an illegal action through). An action that is not an integer
            at all (a bool, a float, an array of several) raises either way.
        render_mode: ``None``, ``"ansi"`` (the position as text) or ``"rgb_array"`` (a picture of the
            board as the learner may see it, ``(H, W, 3) uint8``; needs Pillow,
            ``pip install "boardenvs[render]"``).
        **game_options: the game's options when ``game`` is a name.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str | Game = "sorry_v0",
        opponents: Any = "random",
        learner_seat: int | None = None,
        mask_in_observation: bool = False,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if isinstance(game, str):
            from boardenvs.registry import make_game

            game = make_game(game, **game_options)
        elif game_options:
            raise ValueError("give game options either to the Game or as keywords with a game name, not both")
        self.game = game
        self.view = LearnerView(game, learner_seat, mask_in_observation)
        self.learner_seat = learner_seat
        self.num_actions = self.view.num_actions
        self.action_space = spaces.Discrete(self.num_actions)
        self.observation_space = self.view.observation_space
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.sampler: OpponentSampler = (
            opponents
            if callable(opponents) and not hasattr(opponents, "act")
            else FixedOpponents(opponents, game)
        )
        self.state: State | None = None
        self._forfeited = False
        self.seat = 0
        self.opponents: dict[int, Any] = {}
        self._awaiting: int | None = None  # the opponent seat a suspended step_moves/reset_moves waits for

    # -- gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """New game: draw the learner's seat and opponents, play until the learner must decide."""
        return _finish(self.reset_moves(seed=seed, options=options))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's action, then the others' until the learner's next decision or the end.

        ``action`` is an ``int``, a numpy integer or a 0-d integer array (``model.predict(obs)[0]``).
        """
        return _finish(self.step_moves(action))

    # -- the same, with opponent decisions handed to the caller (batched opponents) -----------------
    def reset_moves(
        self,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        defer: Callable[[Any], bool] | None = None,
    ) -> Generator[tuple[int, Any], int, tuple[Any, dict]]:
        """:meth:`reset` as a coroutine that hands some opponent decisions to the caller.

        Every time an opponent for which ``defer(opponent)`` is true must move, the coroutine yields
        ``(seat, opponent)`` (the position is :attr:`state`) and waits for that opponent's action,
        sent back with ``send(action)``; other opponents play inside as in :meth:`reset`. It returns
        (``StopIteration.value``) what :meth:`reset` returns. Driving it with ``opponent.act(state)``
        for every yield is exactly :meth:`reset`: a vector env uses this to answer the decisions of
        many envs with one batched forward pass of a network (``boardenvs_agents.learning.vec_env``).
        """
        super().reset(seed=seed)
        self._awaiting = None
        n = self.game.num_players
        rng = self.np_random
        self.seat = self.learner_seat if self.learner_seat is not None else int(rng.random() * n)
        others = [p for p in range(n) if p != self.seat]
        policies = self.sampler(rng, others)
        self.opponents = dict(zip(others, policies, strict=True))
        for policy in {id(p): p for p in policies}.values():
            if hasattr(policy, "reset"):
                policy.reset(seed=int(rng.integers(2**31)))
        self._forfeited = False
        # A game that ends (or knocks the learner out) before the learner's first decision teaches
        # nothing and cannot be returned by reset(): deal again, with the same generator stream.
        for _ in range(1000):
            self.state = self.game.new_initial_state()
            yield from self._play_others(defer)
            if self.state.current_player() == self.seat:
                return self._observation(), self._info()
        raise RuntimeError(f"{self.game.name}: 1000 games in a row ended before seat {self.seat} could act")

    def step_moves(
        self, action: Any, defer: Callable[[Any], bool] | None = None
    ) -> Generator[tuple[int, Any], int, tuple[Any, float, bool, bool, dict]]:
        """:meth:`step` as a coroutine that hands some opponent decisions to the caller (see
        :meth:`reset_moves`); it returns what :meth:`step` returns."""
        state = self.state
        if self._awaiting is not None:
            raise RuntimeError(
                f"step() called while seat {self._awaiting} is still to answer in an unfinished step; "
                "finish that step (send the opponent's action) or call reset()"
            )
        if state is None or self._forfeited or state.current_player() != self.seat:
            raise RuntimeError("step() called after the episode ended or before reset(); call reset()")
        try:
            index = action_index(action)
        except TypeError as err:
            raise IllegalActionError(
                f"{self.game.name}: the learner's action {action!r} is not legal: {err}"
            ) from None
        try:
            state.apply_action(index)
        except IllegalActionError as err:
            if self.illegal_action == "lose":
                self._forfeited = True
                return self._observation(), -1.0, True, False, {**self._info(), "illegal_action": True}
            raise IllegalActionError(
                f"{self.game.name}: the learner's action {index} is not legal; "
                f"legal actions are {list(state.legal_actions())} (pass action_masks() to the policy)"
            ) from err
        yield from self._play_others(defer)
        done = state.is_terminal() or state.is_out(self.seat)
        truncated = done and state.is_truncated() and not state.is_out(self.seat)
        reward = float(state.returns()[self.seat]) if done else 0.0
        return self._observation(), reward, done and not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over).

        Raises:
            RuntimeError: before the first ``reset()`` (there is no position to mask yet).
        """
        if self.state is None:
            raise RuntimeError(f"{self.game.name}: action_masks() called before reset(); call reset()")
        if self._forfeited:
            return np.zeros(self.num_actions, dtype=bool)
        return self.view.mask(self.state, self.seat)

    def update_opponents(self, method: str, *args: Any) -> Any:
        """Call ``method`` of the opponent sampler (e.g. a self-play pool's ``add_snapshot``).

        With a vectorised env: ``vec_env.env_method("update_opponents", "add_snapshot", path)``.
        """
        return getattr(self.sampler, method)(*args)

    # -- snapshots (exact resume of training) -----------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able snapshot of the env: the rules state, the generator, the learner's seat, the
        opponents seated and their own states, and the opponent sampler's state. After
        :meth:`load_state_dict` (on an env made the same way) play goes on exactly as it would have.

        The sampler names the seated opponents: it needs ``ref(policy)``, ``deref(ref)``,
        ``state_dict()`` and ``load_state_dict()`` (:class:`FixedOpponents` and the agents' self-play
        pool have them); opponents with a ``state_dict()`` (a generator, for the agents' policies)
        are saved with it.
        """
        if self._awaiting is not None:
            raise RuntimeError(
                f"state_dict() called in the middle of a step (seat {self._awaiting} is still to answer); "
                "snapshot the env between steps"
            )
        sampler = self._snapshot_sampler()
        return {
            "state": None if self.state is None else self.state.to_dict(),
            "rng": self.np_random.bit_generator.state,
            "seat": self.seat,
            "forfeited": self._forfeited,
            "opponents": [
                [seat, sampler.ref(policy), policy.state_dict() if hasattr(policy, "state_dict") else None]
                for seat, policy in self.opponents.items()
            ],
            "sampler": sampler.state_dict(),
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` snapshot (bad or missing fields are refused, naming them)."""
        from boardenvs.core.fields import Fields, StateDictError, flag, integer

        sampler = self._snapshot_sampler()
        f = Fields(data, f"{self.game.name} single-agent env snapshot")
        n = self.game.num_players
        seat = f.value("seat", integer(0, n - 1, "a seat"))
        if self.learner_seat is not None and seat != self.learner_seat:
            raise f.fail("seat", f"= {seat}, but this env's learner seat is fixed at {self.learner_seat}")
        forfeited = f.value("forfeited", flag())
        rng = np.random.Generator(np.random.PCG64())
        try:
            rng.bit_generator.state = f.get("rng")
        except (TypeError, ValueError, KeyError) as err:
            raise f.fail("rng", f"is not a PCG64 generator state: {err}") from err
        state = None if f.get("state") is None else self.game.state_from_dict(f.get("state"))
        try:
            sampler.load_state_dict(f.get("sampler"))
        except (ValueError, KeyError, TypeError) as err:
            raise StateDictError(f"{f.what}: sampler: {err}") from err
        opponents = {}
        entries = f.list("opponents", length=0 if state is None else n - 1)
        for entry in entries:
            if not isinstance(entry, (list, tuple)) or len(entry) != 3:
                raise f.fail("opponents", f"entries must be [seat, reference, state], got {entry!r}")
            other = f.value("opponents", integer(0, n - 1, "a seat"), entry[0])
            try:
                policy = sampler.deref(entry[1])
            except (ValueError, KeyError, IndexError, TypeError) as err:
                raise f.fail("opponents", f"names no opponent of this env's sampler: {err}") from err
            if entry[2] is not None and hasattr(policy, "load_state_dict"):
                policy.load_state_dict(entry[2])
            opponents[other] = policy
        if state is not None and sorted(opponents) != [p for p in range(n) if p != seat]:
            raise f.fail("opponents", f"must seat all but the learner's seat {seat}, got {sorted(opponents)}")
        if state is not None and not (forfeited or state.is_terminal() or state.is_out(seat)):
            # Between steps the learner is to move, unless its episode is over.
            mover = state.current_player()
            f.check(mover == seat, "state", f"has player {mover} to move, not the learner's seat {seat}")
        f.finish()
        self.state, self.np_random, self.seat, self._forfeited = state, rng, seat, forfeited
        self.opponents = opponents
        self._awaiting = None

    def _snapshot_sampler(self) -> Any:
        sampler = self.sampler
        if not all(hasattr(sampler, m) for m in ("ref", "deref", "state_dict", "load_state_dict")):
            raise TypeError(
                f"this env's opponent sampler ({type(sampler).__name__}) cannot be snapshotted: it needs "
                "ref(), deref(), state_dict() and load_state_dict() methods"
            )
        return sampler

    def render(self) -> str | np.ndarray | None:
        """The position: text (``"ansi"``) or a picture as the learner may see it (``"rgb_array"``).

        ``None`` without a render mode or before the first ``reset()``.
        """
        if self.render_mode is None or self.state is None:
            return None
        if self.render_mode == "ansi":
            return self.state.render_text()
        return self.game.render_image(self.state, view=self.seat)

    # -- internals --------------------------------------------------------------------------------
    def _play_others(
        self, defer: Callable[[Any], bool] | None = None
    ) -> Generator[tuple[int, Any], int, None]:
        state = self.state
        assert state is not None
        rng = self.np_random
        while not state.is_terminal() and not state.is_out(self.seat):
            player = state.current_player()
            if player == self.seat:
                return
            if player == CHANCE:
                state.apply_action(state.sample_chance(rng))
                continue
            policy = self.opponents[player]
            if defer is not None and defer(policy):
                self._awaiting = player
                action = yield player, policy
                self._awaiting = None
            else:
                action = policy.act(state)
            state.apply_action(action)

    def _observation(self) -> Any:
        assert self.state is not None
        if self._forfeited:
            return self.view.observe(self.state, self.seat, legal=False)
        return self.view.observe(self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        return {"learner_seat": self.seat}
