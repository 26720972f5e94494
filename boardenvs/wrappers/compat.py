"""AEC wrappers for outside libraries whose PettingZoo support breaks on our games (docs/compatibility.md).

Neither is needed by PettingZoo itself: the raw envs follow PettingZoo's conventions, and these wrappers
bend them where a client library assumes something else.

* :class:`KeepEliminated`: torchrl's ``PettingZooWrapper`` and Tianshou's ``PettingZooEnv`` cannot take
  an eliminated agent's dead step (torchrl samples an action from its all-zero mask and then reads
  ``rewards`` of removed agents; Tianshou ends the episode at the first dead step, so the winner's +1 is
  never seen). This wrapper takes the dead steps itself while the game goes on.
* :class:`PadSpaces`: one observation and one action space for every agent (Gangsi's roles differ), for
  libraries that want a single space (Tianshou).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper


class KeepEliminated(BaseWrapper):
    """Knocked-out agents' dead steps are taken here while the game goes on, and the agents stay listed
    (terminated, reward 0 after the step that knocked them out) until the game ends, when every agent
    takes its dead step as usual.

    For torchrl's and Tianshou's AEC wrappers; not a standard PettingZoo env (``api_test`` refuses it:
    knocked-out agents never get a ``last()`` of their own).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._out: dict[str, tuple[bool, bool]] = {}  # agent -> (terminated, truncated), dead steps done here
        self._step_rewards: dict[str, float] = {}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the game; nobody is out."""
        self.env.reset(seed=seed, options=options)
        self._out = {}
        self._step_rewards = dict(self.env.rewards)

    def step(self, action: Any) -> None:
        """Play ``action`` (``None`` for an agent done), then the dead steps of those it knocked out."""
        env = self.env

        def done(agent: str) -> bool:
            return env.terminations[agent] or env.truncations[agent]

        env.step(None if done(env.agent_selection) else action)
        self._step_rewards = dict(env.rewards)  # with the knocked-out agents' -1, before dead steps clear it
        while env.agents and done(env.agent_selection) and not all(map(done, env.agents)):
            agent = env.agent_selection
            self._out[agent] = (env.terminations[agent], env.truncations[agent])
            env.step(None)

    @property
    def agents(self) -> list[str]:
        """The agents still in the game and those knocked out, until the game is over."""
        live = self.env.agents
        return [a for a in self.env.possible_agents if a in live or a in self._out] if live else []

    @property
    def terminations(self) -> dict[str, bool]:
        """Terminations, knocked-out agents included."""
        return {**{a: t for a, (t, _) in self._out.items()}, **self.env.terminations}

    @property
    def truncations(self) -> dict[str, bool]:
        """Truncations, knocked-out agents included."""
        return {**{a: t for a, (_, t) in self._out.items()}, **self.env.truncations}

    @property
    def rewards(self) -> dict[str, float]:
        """The last step's rewards, with the -1 of an agent knocked out by it."""
        return {**dict.fromkeys(self._out, 0.0), **self._step_rewards}

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return {**dict.fromkeys(self._out, 0.0), **self.env._cumulative_rewards}

    @property
    def infos(self) -> dict[str, dict]:
        """Infos, knocked-out agents included (empty)."""
        return {**{a: {} for a in self._out}, **self.env.infos}


class PadSpaces(BaseWrapper):
    """Every agent gets the largest observation and action space; padded actions are never legal."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        agents = env.possible_agents
        size = max(env.observation_space(a)["observation"].shape[0] for a in agents)
        n = max(env.action_space(a).n for a in agents)
        self._action_space = spaces.Discrete(n)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )

    def observation_space(self, agent: str) -> spaces.Dict:
        """The padded observation space (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """The largest action space (the same for every agent)."""
        return self._action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and mask, zero-padded."""
        obs = self.env.observe(agent)
        padded = {key: np.zeros(space.shape, space.dtype) for key, space in self._observation_space.items()}
        for key, value in obs.items():
            padded[key][: len(value)] = value
        return padded
