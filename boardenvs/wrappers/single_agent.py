"""A single-agent Gymnasium view of any boardenvs game, for Stable-Baselines3 and friends.

One learner seat per episode; every other seat is played inside :meth:`SingleAgentEnv.step` by
opponent policies (objects with ``act(state) -> action``, e.g. :class:`boardenvs_agents.base.Policy`),
and chance
is sampled with the env's own generator. The learner's seat is drawn by that generator at every reset
(or fixed with ``learner_seat``), so one network learns every seat; the reward is the learner's return
at the end of the game. The legal-action mask comes from :meth:`SingleAgentEnv.action_masks` (the
method sb3-contrib's MaskablePPO looks for, valid right after ``reset``), or, with
``mask_in_observation=True``, inside a ``Dict`` observation (for value-based methods that must mask
the target's max over next actions).

This view does not mix the opponents' moves into the learner's trajectory (the pitfall of
PettingZoo's SB3 tutorial): the learner only ever sees its own decisions. A game that ends before the
learner's first decision (possible where turns without a choice are common) is dealt again at reset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, IllegalActionError, State

#: Something that picks opponents for an episode: ``sampler(rng, seats) -> one policy per seat``.
OpponentSampler = Callable[[np.random.Generator, Sequence[int]], Sequence[Any]]


def _resolve(spec: Any, game: Game) -> Any:
    """A policy object from a spec string (via :func:`boardenvs_agents.make_policy`) or the object itself."""
    if isinstance(spec, str):
        try:
            from boardenvs_agents.registry import make_policy
        except ImportError as err:  # pragma: no cover - agents ships with boardenvs
            raise ImportError("opponent specs given as strings need the 'agents' package") from err
        return make_policy(spec, game.name, game_options=options_to_dict(game.options))
    if not callable(getattr(spec, "act", None)):
        raise TypeError(f"an opponent must be a spec string or have an act(state) method, got {spec!r}")
    return spec


class FixedOpponents:
    """An opponent sampler that always seats the same opponents (picklable, for ``SubprocVecEnv``).

    Args:
        opponents: one spec or policy for every other seat, or a list with one per other seat (in
            seat order, the learner's seat skipped).
        game: the game the specs are resolved for.
    """

    def __init__(self, opponents: Any, game: Game) -> None:
        self.shared = isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence)
        self.policies = (
            [_resolve(opponents, game)] if self.shared else [_resolve(spec, game) for spec in opponents]
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
        opponents: a spec (``"random"``, ``"heuristic"``, ...), a policy, a list of either (one per
            other seat), or an :data:`OpponentSampler` called at every reset.
        learner_seat: fix the learner's seat; ``None`` draws it with the env's generator every reset.
        mask_in_observation: observations become ``{"observation", "action_mask"}`` (int8 mask).
        illegal_action: ``"raise"`` (an :class:`IllegalActionError` naming the legal actions) or
            ``"lose"`` (the episode ends with reward -1 and ``info["illegal_action"] = True``, as
            PettingZoo's TerminateIllegalWrapper does).
        render_mode: ``None`` or ``"ansi"``.
        **game_options: the game's options when ``game`` is a name.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str | Game = "sorry_v0",
        opponents: Any = "random",
        learner_seat: int | None = None,
        mask_in_observation: bool = False,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
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
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
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

    # -- gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """New game: draw the learner's seat and opponents, play until the learner must decide."""
        super().reset(seed=seed)
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
            self._play_others()
            if self.state.current_player() == self.seat:
                return self._observation(), self._info()
        raise RuntimeError(f"{self.game.name}: 1000 games in a row ended before seat {self.seat} could act")

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's action, then the others' until the learner's next decision or the end."""
        state = self.state
        if state is None or self._forfeited or state.current_player() != self.seat:
            raise RuntimeError("step() called after the episode ended or before reset(); call reset()")
        try:
            state.apply_action(int(action))
        except IllegalActionError as err:
            if self.illegal_action == "lose":
                obs = self._observation()
                self._forfeited = True
                return obs, -1.0, True, False, {**self._info(), "illegal_action": True}
            raise IllegalActionError(
                f"{self.game.name}: the learner's action {int(action)} is illegal; "
                f"legal actions are {list(state.legal_actions())} (pass action_masks() to the policy)"
            ) from err
        self._play_others()
        done = state.is_terminal() or state.is_out(self.seat)
        truncated = done and state.is_truncated() and not state.is_out(self.seat)
        reward = float(state.returns()[self.seat]) if done else 0.0
        return self._observation(), reward, done and not truncated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        if self.state is None or self._forfeited:
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
        from boardenvs.core.fields import Fields, StateDictError

        sampler = self._snapshot_sampler()
        f = Fields(data, f"{self.game.name} single-agent env snapshot")
        n = self.game.num_players
        seat = f.int("seat", 0, n - 1)
        if self.learner_seat is not None and seat != self.learner_seat:
            raise f.fail("seat", f"is {seat}, but this env's learner seat is fixed at {self.learner_seat}")
        forfeited = f.bool("forfeited")
        rng = np.random.Generator(np.random.PCG64())
        try:
            rng.bit_generator.state = f.get("rng")
        except (TypeError, ValueError, KeyError) as err:
            raise f.fail("rng", f"is not a PCG64 generator state: {err}") from err
        state = None if f.get("state") is None else self.game.state_from_dict(f.get("state"))
        try:
            sampler.load_state_dict(f.get("sampler"))
        except (ValueError, KeyError, TypeError) as err:
            raise StateDictError(f"{f.what}: field 'sampler': {err}") from err
        opponents = {}
        entries = f.list("opponents", length=0 if state is None else n - 1)
        for entry in entries:
            if not isinstance(entry, (list, tuple)) or len(entry) != 3:
                raise f.fail("opponents", f"entries must be [seat, reference, state], got {entry!r}")
            other = f.int("opponents", 0, n - 1, value=entry[0])
            try:
                policy = sampler.deref(entry[1])
            except (ValueError, KeyError, IndexError, TypeError) as err:
                raise f.fail("opponents", f"names no opponent of this env's sampler: {err}") from err
            if entry[2] is not None and hasattr(policy, "load_state_dict"):
                policy.load_state_dict(entry[2])
            opponents[other] = policy
        if state is not None and sorted(opponents) != [p for p in range(n) if p != seat]:
            raise f.fail("opponents", f"must seat all but the learner's seat {seat}, got {sorted(opponents)}")
        self.state, self.np_random, self.seat, self._forfeited = state, rng, seat, forfeited
        self.opponents = opponents

    def _snapshot_sampler(self) -> Any:
        sampler = self.sampler
        if not all(hasattr(sampler, m) for m in ("ref", "deref", "state_dict", "load_state_dict")):
            raise TypeError(
                f"this env's opponent sampler ({type(sampler).__name__}) cannot be snapshotted: it needs "
                "ref(), deref(), state_dict() and load_state_dict() methods"
            )
        return sampler

    def render(self) -> str | None:
        """The position as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.state is None:
            return None
        return self.state.render_text()

    # -- internals --------------------------------------------------------------------------------
    def _play_others(self) -> None:
        state = self.state
        assert state is not None
        rng = self.np_random
        while not state.is_terminal() and not state.is_out(self.seat):
            player = state.current_player()
            if player == self.seat:
                return
            if player == CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(self.opponents[player].act(state))

    def _observation(self) -> Any:
        assert self.state is not None
        if self._forfeited:
            return self.view.observe(self.state, self.seat, legal=False)
        return self.view.observe(self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        return {"learner_seat": self.seat}
