"""The one PettingZoo ``AECEnv`` adapter, serving every game in the package.

:class:`BoardGameEnv` drives a game's rules :class:`~boardenvs.core.state.State`: it seeds its own
generator through ``reset(seed=...)``, resolves chance nodes with it (agents never see a chance node),
hands the turn to the agent of ``state.current_player()``, builds observations
``{"observation": float32, "action_mask": int8}`` (the mask is all zeros for every agent but the one to
act), pays rewards from ``state.returns()`` when the game ends, and handles dead steps the PettingZoo
way: a player knocked out mid-game is terminated with its reward at once and selected next for its
``step(None)``, which removes it from ``agents``; while that dead step is pending the mask is already
on the agent who moves after it, so that nothing but ``agent_selection`` changes across the dead step
(``turn_based_aec_to_parallel`` relies on that; see docs/compatibility.md). A game module only
subclasses it to name its :class:`~boardenvs.core.game.Game`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from boardenvs.core.fields import Fields, show
from boardenvs.core.game import Game
from boardenvs.core.state import IllegalActionError, State, play_chance


def action_index(action: Any) -> int:
    """``action`` as a Python ``int``, the one form the rules take.

    Accepted: ``int``, numpy integers (``np.int64(3)``) and 0-d integer arrays (``np.array(3)``, what
    Stable-Baselines3's ``model.predict(obs)[0]`` returns for one observation). Refused with a
    ``TypeError`` that says why: bools (``True`` is not action 1), floats (even whole ones), arrays
    with more than one element or of another dtype, strings, ``None`` and anything else.
    """
    if isinstance(action, np.ndarray):
        if action.shape != ():
            raise TypeError(
                f"an action is one integer, not an array of shape {action.shape} "
                "(of a vectorised predict, pass actions[i])"
            )
        action = action[()]
    if isinstance(action, (bool, np.bool_)):
        raise TypeError("an action is an integer, not a bool")
    if isinstance(action, (float, np.floating)):
        raise TypeError("an action is an integer, not a float (whole floats are refused too)")
    if not isinstance(action, (int, np.integer)):
        raise TypeError(
            f"an action is an integer (an int, a numpy integer or a 0-d integer array), "
            f"not {type(action).__name__}"
        )
    return int(action)


class UnknownAgentError(KeyError):
    """An agent name the env does not have (a ``KeyError``, whose message reads without quotes)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class BoardGameEnv(AECEnv, EzPickle):
    """PettingZoo AEC environment over any :class:`Game`; subclasses set ``game_class`` and ``metadata``.

    Args:
        render_mode: ``None``; ``"ansi"`` (``render()`` returns the position as text); ``"rgb_array"``
            (``render()`` returns a picture of the board, ``(H, W, 3) uint8``, drawn with Pillow:
            ``pip install "boardenvs[render]"``); or ``"human"`` (the picture is shown in a window
            after every step where pygame and a display exist, else the text is printed).
        **options: the game's options (see the game's docstring); unknown keys raise at once.
    """

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {
        "name": "board_game",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"{self.metadata['name']}: render_mode {render_mode!r} is not one of "
                f"{self.metadata['render_modes']}"
            )
        self.render_mode = render_mode
        self._window: Any = None
        self.game = self.game_class(**options)
        self.possible_agents = list(self.game.agents)
        self._player_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.action_spaces = {
            agent: spaces.Discrete(self.game.num_actions(i)) for i, agent in enumerate(self.possible_agents)
        }
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, self.game.observation_shape(i), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.game.num_actions(i),), dtype=np.int8),
                }
            )
            for i, agent in enumerate(self.possible_agents)
        }
        self._num_actions = [self.game.num_actions(i) for i in range(len(self.possible_agents))]
        # Games without eliminations skip the per-step is_out() scan.
        self._has_eliminations = self.game.state_class.is_out is not State.is_out
        self._state: State | None = None
        #: The agent whose illegal action made the ``env()`` wrapper stop the game, or ``None``.
        self._stopped_by: str | None = None
        self.np_random, self.np_random_seed = seeding.np_random(None)

    # -- spaces -----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The ``Dict(observation, action_mask)`` space of ``agent``."""
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space:
        """The ``Discrete`` action space of ``agent``."""
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: Any) -> UnknownAgentError:
        """The error for a name that is none of the env's agents (raise it)."""
        return UnknownAgentError(
            f"{self.metadata['name']}: no agent {agent!r}; the agents are {self.possible_agents}"
        )

    # -- the rules state --------------------------------------------------------------------------
    @property
    def game_state(self) -> State:
        """The current rules state (for agents that search or read public information)."""
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before using the env")
        return self._state

    # -- AEC API ----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` reseeds the env's generator, ``None`` continues its stream.

        ``options`` is accepted for API compatibility and ignored: game options are fixed when the env
        is made.
        """
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self._state = self.game.new_initial_state()
        play_chance(self._state, self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._stopped_by = None
        self._rewards_paid = False
        self._settle()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and action mask; has no effect on the game."""
        state = self._state
        if state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before observe()")
        try:
            player = self._player_of[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        mask = bytearray(self._num_actions[player])
        mover = self.agent_selection
        if self._skip_agent_selection is not None and (
            self.terminations.get(mover, True) or self.truncations.get(mover, True)
        ):
            # An eliminated agent is taking its dead step (PettingZoo's _deads_step_first): the mask
            # already goes to the agent who moves once the dead steps are taken, so that nothing but
            # agent_selection changes across them. turn_based_aec_to_parallel observes before it takes
            # them; with the mask on no one, the next mover's parallel action would be illegal.
            mover = self._skip_agent_selection
        if (
            agent == mover
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        ):
            for action in state.legal_actions():
                mask[action] = 1
        return {
            "observation": self.game.observe(state, player),
            "action_mask": np.frombuffer(mask, dtype=np.int8),
        }

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action, resolve chance, and pass the turn.

        Raises:
            IllegalActionError: for an action that is not legal (the ``env()`` wrapper stack instead
                ends the game with -1 for the offender).
        """
        self._check_live("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        try:
            index = action if type(action) is int else action_index(action)
        except TypeError as err:
            raise IllegalActionError(
                f"{self.metadata['name']}: action {action!r} is not legal for {agent}: {err}"
            ) from None
        try:
            state.apply_action(index)
        except IllegalActionError as err:
            raise IllegalActionError(
                f"{self.metadata['name']}: action {index} is not legal for {agent}; "
                f"legal actions are {list(state.legal_actions())}"
            ) from err
        play_chance(state, self.np_random)
        self._cumulative_rewards[agent] = 0.0
        self._settle()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, termination, truncation and info (PettingZoo's)."""
        self._check_live("last")
        return super().last(observe)

    def _check_live(self, method: str) -> None:
        """A clear error instead of a ``KeyError`` for the agent of a finished game."""
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before {method}()")
        if not self.agents:
            raise RuntimeError(
                f"{self.metadata['name']}: {method}() after the game is over (every agent is done); "
                "call reset() to start a new one"
            )

    def _settle(self) -> None:
        """Set rewards, terminations and the next agent from the (decision or terminal) state."""
        state = self.game_state
        if self._rewards_paid:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewards_paid = False
        if state.is_terminal():
            returns = state.returns()
            truncated = state.is_truncated()
            for a in self.agents:
                if not (self.terminations[a] or self.truncations[a]):
                    player = self._player_of[a]
                    self.rewards[a] = float(returns[player])
                    # A player knocked out by the last move has a final result even if the game
                    # is cut off by its cap at the same moment.
                    if truncated and not state.is_out(player):
                        self.truncations[a] = True
                    else:
                        self.terminations[a] = True
            self._rewards_paid = True
            self._accumulate_rewards()
            self._deads_step_first()
            return
        self.agent_selection = self.possible_agents[state.current_player()]
        if not self._has_eliminations:
            return
        newly_out = False
        for a in self.agents:
            player = self._player_of[a]
            if not self.terminations[a] and state.is_out(player):
                self.terminations[a] = True
                self.rewards[a] = float(state.returns()[player])
                newly_out = True
        if newly_out:
            self._rewards_paid = True
            self._accumulate_rewards()
            self._skip_agent_selection = None
            self._deads_step_first()

    def render(self) -> str | np.ndarray | None:
        """The position: text (``"ansi"``), a picture (``"rgb_array"``), or shown/printed (``"human"``)."""
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; pass 'ansi', 'rgb_array' or 'human'")
            return None
        if self.render_mode == "ansi":
            return self.game_state.render_text()
        if self.render_mode == "rgb_array":
            return self.game.render_image(self.game_state)
        # "human": a window where one can be shown, else the text on standard output.
        from boardenvs.core import render

        if self._window is None and render.display_available():
            self._window = render.Window(self.metadata["name"])
        if self._window is not None:
            self._window.show(self.game.render_image(self.game_state))
        else:
            print(self.game_state.render_text())
        return None

    def close(self) -> None:
        """Close the ``"human"`` render window, if one was opened."""
        if self._window is not None:
            self._window.close()
            self._window = None

    # -- whole-env snapshots ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able snapshot of the env: rules state, generator state and AEC bookkeeping (with
        ``stopped_by``, the agent whose illegal action made ``env()`` stop the game, or ``None``)."""
        return {
            "state": self.game_state.to_dict(),
            "rng": self.np_random.bit_generator.state,
            "agents": self.agents[:],
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "skip_agent_selection": getattr(self, "_skip_agent_selection", None),
            "stopped_by": self._stopped_by,
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` snapshot; play then continues exactly as it would have.

        Raises:
            StateDictError: for a missing, unknown or bad field, or bookkeeping that does not fit the
                rules state (an agent list, rewards or ends the game cannot have), naming the field
                (nothing is changed).
        """
        f = Fields(data, f"{self.metadata['name']} env snapshot")
        state = self.game.state_from_dict(f.get("state"))
        rng = np.random.Generator(np.random.PCG64())
        try:
            rng.bit_generator.state = f.get("rng")
        except (TypeError, ValueError, KeyError) as err:
            raise f.fail("rng", f"is not a PCG64 generator state: {err}") from err
        possible = self.possible_agents
        stopped = f.get("stopped_by")
        f.check(
            stopped is None or stopped in possible, "stopped_by", f"= {show(stopped)} is not null or an agent"
        )
        agents = f.list("agents")
        f.check(
            agents == [a for a in possible if a in agents],
            "agents",
            f"= {show(agents)} are not distinct agents of {possible} in that order",
        )
        for p, agent in enumerate(possible):  # who left took its dead step: out, or the game is over
            gone = stopped is not None or state.is_terminal() or state.is_out(p)
            f.check(
                agent in agents or gone, "agents", f"= {show(agents)} lacks {agent}, who is still in the game"
            )
        selection = f.get("agent_selection")
        f.check(selection in possible, "agent_selection", f"= {show(selection)} is not one of {possible}")
        tables = {}
        for key, kind in (
            ("rewards", float),
            ("cumulative_rewards", float),
            ("terminations", bool),
            ("truncations", bool),
        ):
            table = f.get(key)
            ok = isinstance(table, dict) and sorted(table, key=str) == sorted(agents)
            values = table.values() if ok else ()
            ok = ok and all(
                isinstance(v, (int, float)) and isinstance(v, bool) == (kind is bool) and np.isfinite(v)
                for v in values
            )
            f.check(
                ok,
                key,
                f"= {show(table)} does not map each of {agents} to "
                f"{'true/false' if kind is bool else 'a number'}",
            )
            tables[key] = dict(table)
        skip = f.get("skip_agent_selection")
        f.check(
            skip is None or skip in possible,
            "skip_agent_selection",
            f"= {show(skip)} is not null or an agent",
        )
        f.finish()
        self._check_bookkeeping(f, state, agents, selection, tables, skip, stopped)
        self._state, self.np_random, self.agents, self.agent_selection = state, rng, list(agents), selection
        self.rewards = tables["rewards"]
        self._cumulative_rewards = tables["cumulative_rewards"]
        self.terminations = tables["terminations"]
        self.truncations = tables["truncations"]
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = skip
        self._stopped_by = stopped
        self._rewards_paid = any(self.rewards.values())

    def _check_bookkeeping(
        self,
        f: Fields,
        state: State,
        agents: list[str],
        selection: str,
        tables: dict[str, dict[str, Any]],
        skip: str | None,
        stopped: str | None,
    ) -> None:
        """A snapshot's AEC bookkeeping must be what the env makes of its rules state: the agents still in
        the game, who is done and why, the rewards paid, whose step it is."""
        term, trunc = tables["terminations"], tables["truncations"]
        done = [a for a in agents if term[a] or trunc[a]]
        if stopped is not None:  # the env() wrapper ended the game on an illegal action: all are done
            f.check(not state.is_terminal(), "stopped_by", f"= {stopped}, but the rules ended the game")
            f.check(
                done == agents and all(term.values()) and all(trunc.values()),
                "terminations",
                f"= {show(term)}: every agent is done once an illegal action stopped the game",
            )
            f.check(
                not agents or selection in agents, "agent_selection", f"= {selection} is not among {agents}"
            )
            return
        terminal = state.is_terminal()
        possible = self.possible_agents
        f.check(
            terminal or 0 <= state.current_player() < len(possible),
            "state",
            "is at a chance node: an env snapshot rests where an agent decides",
        )
        returns = state.returns()
        for p, agent in enumerate(possible):
            out = terminal or state.is_out(p)
            if agent not in agents:  # removed by its dead step
                continue
            for key, table in (("terminations", term), ("truncations", trunc)):
                f.check(
                    not table[agent] or out, key, f"= {show(table)}: {agent} is done, but still in the game"
                )
            if not (term[agent] or trunc[agent]):
                why = "the game is over" if terminal else "it is out of the game"
                f.check(not out, "terminations", f"= {show(term)}: {agent} is not done, but {why}")
            f.check(
                not trunc[agent] or state.is_truncated(),
                "truncations",
                f"= {show(trunc)}: only a game cut off by its cap is truncated",
            )
            # A player's return is paid once, when it is out or the game ends; it waits in the
            # cumulative reward until its (dead) step.
            final = float(returns[p]) if out else 0.0
            for key, allowed in (("rewards", {0.0, final}), ("cumulative_rewards", {final})):
                value = tables[key][agent]
                f.check(
                    value in allowed, key, f"= {show(tables[key])}: {agent}'s should be {final}, not {value}"
                )
        if not agents:
            return
        f.check(selection in agents, "agent_selection", f"= {selection} is not among {agents}")
        if done:  # the dead steps come first (PettingZoo's _deads_step_first)
            f.check(
                selection == done[0], "agent_selection", f"= {selection}, but {done[0]} takes its dead step"
            )
            if not terminal:
                mover = possible[state.current_player()]
                f.check(skip == mover, "skip_agent_selection", f"= {show(skip)}, not {mover}, who moves next")
        else:
            mover = possible[state.current_player()]
            f.check(selection == mover, "agent_selection", f"= {selection}, but {mover} is to move")
            f.check(skip is None, "skip_agent_selection", f"= {show(skip)}, but no dead step is pending")


#: AEC bookkeeping that wrappers read on every step but never override.
_BOOKKEEPING = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos")


def _read_through(name: str, guarded: bool) -> property:
    """A read-only property that fetches ``name`` from the unwrapped env in one step.

    PettingZoo wrappers find such attributes through ``__getattr__``, one wrapper at a time; with
    three wrappers that walk cost more than our whole adapter. ``guarded`` keeps
    OrderEnforcingWrapper's "cannot be accessed before reset" error.
    """

    def get(self: wrappers.BaseWrapper) -> Any:
        if guarded and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"``{name}`` of the unwrapped env.")


def _fast(cls: type, guarded: bool = False) -> type:
    """Subclass of a PettingZoo wrapper that reads the bookkeeping straight from the raw env."""
    namespace: dict[str, Any] = {name: _read_through(name, guarded) for name in _BOOKKEEPING}
    namespace["_cumulative_rewards"] = _read_through("_cumulative_rewards", False)
    namespace["__doc__"] = f"{cls.__doc__}\n\n(boardenvs: bookkeeping read from the unwrapped env directly.)"

    def __init__(self: wrappers.BaseWrapper, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        cls.__init__(self, env, *args, **kwargs)

    def last(self: wrappers.BaseWrapper, observe: bool = True) -> Any:
        # AECEnv.last, with the bookkeeping read from the raw env once.
        raw = self._raw
        raw._check_live("last")
        agent = raw.agent_selection
        obs = self.observe(agent) if observe else None
        return (
            obs,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    namespace["__init__"] = __init__
    namespace["last"] = last
    return type(cls.__name__, (cls,), namespace)


class TerminateIllegalWrapper(_fast(wrappers.TerminateIllegalWrapper)):  # type: ignore[misc]
    """PettingZoo's TerminateIllegalWrapper with a direct path for the common step: a legal action of a
    live agent whose observation (with its mask) was just taken goes straight to the env; every other
    case (no observation taken, a dead step, an illegal action) runs PettingZoo's own code."""

    def observe(self, agent: str) -> Any:
        """The env's observation; the selected agent's is kept for the mask check (as PettingZoo's)."""
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        """Step a legal action of a live agent at once; anything else as PettingZoo does (an illegal
        action stops the game: the raw env records who made it, for its snapshots)."""
        prev = self._prev_obs
        raw = self._raw
        agent = raw.agent_selection
        if type(prev) is dict and type(action) is int:
            mask = prev["action_mask"]
            live = not (raw.terminations[agent] or raw.truncations[agent])
            if live and 0 <= action < len(mask) and mask[action]:
                self._prev_obs = self._prev_info = None
                self.env.step(action)
                return
        super().step(action)
        # PettingZoo's illegal-action path marks every agent both terminated and truncated, which the
        # rules never do: the game was stopped, not ended.
        if raw._stopped_by is None and raw.agents and not raw.game_state.is_terminal():
            if all(raw.terminations[a] and raw.truncations[a] for a in raw.agents):
                raw._stopped_by = agent


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An action outside the agent's action space given to ``env()``; an ``AssertionError`` too, as
    PettingZoo's AssertOutOfBoundsWrapper raises, so code written for it still catches it."""


class AssertOutOfBoundsWrapper(_fast(wrappers.AssertOutOfBoundsWrapper)):  # type: ignore[misc]
    """PettingZoo's AssertOutOfBoundsWrapper, with the raw env's action check (:func:`action_index`)
    first: a bool, a float or an array of several actions is refused with the raw env's message before
    TerminateIllegalWrapper indexes the mask with it; a 0-d integer array goes on as an ``int``. An action
    inside the agent's ``Discrete(n)`` goes on without the space's (slow) ``contains``; one outside it
    raises :class:`ActionOutOfBoundsError` naming the game, the agent and the legal actions (the raw
    env's message), where PettingZoo's says only "action is not in action space"."""

    def step(self, action: Any) -> None:
        """Check a live agent's action (type, then bounds) and step it; a done agent's must be ``None``."""
        raw = self._raw
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            try:
                action = action_index(action)
            except TypeError as err:
                raise IllegalActionError(
                    f"{raw.metadata['name']}: action {action!r} is not legal for {agent}: {err}"
                ) from None
            size = raw._num_actions[raw._player_of[agent]]
            if not 0 <= action < size:
                legal = list(raw.game_state.legal_actions())
                raise ActionOutOfBoundsError(
                    f"{raw.metadata['name']}: action {action} is not in {agent}'s action space "
                    f"(Discrete({size}): 0..{size - 1}); legal actions are {legal}"
                )
            self.env.step(action)
            return
        if action is not None:
            raise ActionOutOfBoundsError(
                f"{raw.metadata['name']}: {agent} is done: its step is step(None), not step({action!r})"
            )
        super().step(action)


class OrderEnforcingWrapper(_fast(wrappers.OrderEnforcingWrapper, guarded=True)):  # type: ignore[misc]
    """PettingZoo's OrderEnforcingWrapper; its ``step`` reads the raw env's ``agents`` directly."""

    def step(self, action: Any) -> None:
        """PettingZoo's order checks, then the step."""
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)


def wrap_env(raw: BoardGameEnv) -> AECEnv:
    """PettingZoo's standard wrapper stack: an illegal action ends the game with -1 for the offender.

    The wrappers are PettingZoo's own classes (``isinstance`` checks hold), subclassed only so that
    the bookkeeping they read on every step comes straight from ``raw``.
    """
    env: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    env = OrderEnforcingWrapper(env)
    return env
