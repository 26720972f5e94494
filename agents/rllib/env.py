"""Any boardenvs AEC env as an RLlib ``MultiAgentEnv`` for turn-based games.

:class:`TurnBasedMultiAgentEnv` drives a game's raw PettingZoo env (``boardenvs.make(name, raw=True)``)
and speaks RLlib's multi-agent protocol:

* **Only the agent to act observes.** ``reset()`` and every ``step()`` return one observation, for the
  agent whose turn it is (the same agent again when a turn has several decisions). The observation is
  the env's own ``Dict(observation=float32, action_mask=int8)``; the masking module
  (:mod:`boardenvs_agents.rllib.module`) reads the mask.
* **Rewards reach each agent the PettingZoo way**: what an agent earned since it last acted is paid
  when it is next selected, to act or for its dead step. The games pay only at the end (+1/-1, 0 for a
  draw or a truncation) and when a player is knocked out.
* **Done agents** get their final observation (all-zero mask), reward and flag, one per agent, when
  they leave the game: eliminated agents while the others play on (Lost City, Neighborhood, Gangsi
  hunters), everybody at the end, with ``"__all__"`` set once no agent the modules play is left.
  A game cut off by its cap is ``truncated`` for the agents still in it (``"__all__"`` in
  ``truncateds``); a finished game is ``terminated``.
* **Illegal actions never pass**: the raw env raises :class:`~boardenvs.core.state.IllegalActionError`
  for an action outside the mask; the adapter counts actions checked and illegal ones
  (:attr:`~TurnBasedMultiAgentEnv.num_actions_checked`, :attr:`~TurnBasedMultiAgentEnv.num_illegal_actions`)
  and re-raises, which stops the env runner and the training iteration.
* **Per-agent spaces** come from the env (``gangsi_v0``: ``kyonshi`` and ``hunter_i`` differ).
* **Fixed opponents** (``mapping: vs_fixed``): one learner seat per episode (drawn by the env's
  generator, or fixed); every other seat is played inside ``step()`` by policies from
  :func:`boardenvs_agents.registry.make_policy` acting on ``env.unwrapped.game_state``. Only the
  learner's agent
  is exposed, and the episode ends when the learner is done. A game that ends before the learner's
  first decision is dealt again.

Seeding: ``env_config["seed"]``, the env runner's ``worker_index`` and the ``vector_index`` seed the
adapter's generator; ``reset(seed=...)`` reseeds it; every game, opponent and seat draw derives from it.
Nothing touches ``random`` or ``np.random``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from boardenvs.core.options import options_to_dict
from boardenvs.core.state import IllegalActionError
from boardenvs.registry import make
from boardenvs_agents.registry import make_policy
from boardenvs_agents.rllib.config import module_map


class TurnBasedMultiAgentEnv(MultiAgentEnv):
    """A boardenvs game as an RLlib ``MultiAgentEnv``; only the agent to act observes.

    Args:
        config: ``game`` (env name), ``game_options``, ``mapping`` (``shared``, ``per_role`` or
            ``vs_fixed``), ``opponents`` (``vs_fixed``: spec -> weight), ``learner_seat``
            (``vs_fixed``: a seat or ``None``), ``seed``. An RLlib ``EnvContext`` also carries the
            ``worker_index`` and ``vector_index`` mixed into the seed.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        known = {"game", "game_options", "mapping", "opponents", "learner_seat", "seed"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"unknown env_config key {unknown[0]!r}; valid keys are {sorted(known)}")
        if "game" not in config:
            raise ValueError("env_config needs 'game', the env name (e.g. 'sorry_v0')")
        self.env = make(config["game"], raw=True, **dict(config.get("game_options") or {}))
        self.game = self.env.game
        self.mapping = config.get("mapping", "shared")
        self.learner_seat = config.get("learner_seat")
        #: Agent name -> RLModule id, for the agents exposed to RLlib.
        self.modules = module_map(self.game, self.mapping, self.learner_seat)
        self.possible_agents = list(self.modules)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

        self._opponent_specs: list[str] = []
        self._opponent_weights = np.zeros(0)
        self._opponent_policies: dict[str, Any] = {}
        if self.mapping == "vs_fixed":
            opponents = dict(config.get("opponents") or {"random": 1.0})
            self._opponent_specs = list(opponents)
            weights = np.asarray([float(w) for w in opponents.values()])
            if weights.min() < 0 or weights.sum() <= 0:
                raise ValueError(
                    f"opponent weights must be non-negative with a positive sum, got {opponents}"
                )
            self._opponent_weights = weights / weights.sum()
            options = options_to_dict(self.game.options)
            self._opponent_policies = {
                spec: make_policy(spec, self.game.name, game_options=options) for spec in self._opponent_specs
            }

        seed = config.get("seed")
        entropy = None if seed is None else [int(seed), getattr(config, "worker_index", 0) or 0]
        if entropy is not None:
            entropy.append(getattr(config, "vector_index", 0) or 0)
        self.rng = np.random.default_rng(entropy)
        #: Learner actions checked by the env (every action RLlib sent), and the illegal ones among them.
        self.num_actions_checked = 0
        self.num_illegal_actions = 0
        self._popped = (0, 0)
        #: Finished episodes since the env was made.
        self.num_episodes = 0
        self._exposed: set[str] = set()
        self._done: set[str] = set()
        self._seat_policy: dict[str, Any] = {}

    # -- RLlib API --------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game; returns the observation of the agent to act (one entry)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        while True:
            self.env.reset(seed=int(self.rng.integers(2**63)))
            self._seat_players()
            self._done = set()
            obs, _, _, _, infos = self._advance(at_reset=True)
            if obs:
                self.agents = sorted(self._exposed)
                return obs, infos

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the action of the agent to act; play on until an exposed agent must act or all are done.

        Raises:
            ValueError: if ``action_dict`` is not exactly one action, for the agent to act.
            IllegalActionError: for an action its mask forbids (counted, then raised).
        """
        agent = self.env.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(
                f"expected an action for {agent!r} (the agent to act) only, got {sorted(action_dict)}"
            )
        action = action_dict[agent]
        self.num_actions_checked += 1
        try:
            self.env.step(action.item() if isinstance(action, np.ndarray) and action.size == 1 else action)
        except IllegalActionError as err:
            self.num_illegal_actions += 1
            raise IllegalActionError(f"illegal action reached the env: {err}") from err
        result = self._advance(at_reset=False)
        self.agents = sorted(self._exposed - self._done)
        return result

    # -- internals --------------------------------------------------------------------------------
    def _seat_players(self) -> None:
        """Choose which agents RLlib plays this episode and the opponents for the others."""
        if self.mapping != "vs_fixed":
            self._exposed = set(self.possible_agents)
            self._seat_policy = {}
            return
        agents = self.env.possible_agents
        seat = self.learner_seat if self.learner_seat is not None else int(self.rng.integers(len(agents)))
        learner = agents[seat]
        self._exposed = {learner}
        self._seat_policy = {}
        reseeded: set[int] = set()
        for agent in agents:
            if agent == learner:
                continue
            spec = self._opponent_specs[
                int(self.rng.choice(len(self._opponent_specs), p=self._opponent_weights))
            ]
            policy = self._opponent_policies[spec]
            if id(policy) not in reseeded:  # one reset per policy object and game, as in play_game
                policy.reset(seed=int(self.rng.integers(2**63)))
                reseeded.add(id(policy))
            self._seat_policy[agent] = policy

    def _advance(
        self, at_reset: bool
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Play opponents' turns and dead steps until an exposed agent must act or none is left."""
        env = self.env
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terminateds: dict[str, bool] = {}
        truncateds: dict[str, bool] = {}
        infos: dict[str, Any] = {}
        while env.agents:
            agent = env.agent_selection
            _, reward, terminated, truncated, _ = env.last(observe=False)
            done = terminated or truncated
            if agent not in self._exposed:
                env.step(None if done else self._seat_policy[agent].act(env.game_state))
                continue
            if not done:
                obs[agent] = env.observe(agent)
                rewards[agent] = float(reward)
                break
            # An exposed agent leaves the game: eliminated, or the game is over.
            if not at_reset:  # at reset it never acted: RLlib has nothing to close
                obs[agent] = env.observe(agent)
                rewards[agent] = float(reward)
                terminateds[agent] = bool(terminated)
                truncateds[agent] = bool(truncated) and not terminated
            self._done.add(agent)
            env.step(None)
            if self._exposed <= self._done:
                break
        all_done = self._exposed <= self._done
        if all_done and not at_reset:
            self.num_episodes += 1
        cut_off = all_done and any(truncateds.values())
        terminateds["__all__"] = all_done and not cut_off
        truncateds["__all__"] = cut_off
        return obs, rewards, terminateds, truncateds, infos

    def pop_counts(self) -> tuple[int, int]:
        """Actions checked and illegal actions since the previous call (for metrics)."""
        counts = (self.num_actions_checked - self._popped[0], self.num_illegal_actions - self._popped[1])
        self._popped = (self.num_actions_checked, self.num_illegal_actions)
        return counts

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()
