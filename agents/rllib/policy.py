"""Trained RLlib modules as an agent: :class:`RLlibPolicy` and the ``rllib:<checkpoint>`` spec.

A checkpoint of ``scripts/train_rllib.py`` is RLlib's own (``Algorithm.save_to_path``) plus
``boardenvs_rllib.json`` (:mod:`boardenvs_agents.rllib.training`). :func:`load_rllib_policy` reads the
metadata
first, refuses a checkpoint made for another game or other options with a message that says which,
then loads each module with ``RLModule.from_checkpoint`` from
``<checkpoint>/learner_group/learner/rl_module/<module id>`` (no Ray cluster needed). The policy picks
the module of the seat to move (``shared``: one for all; ``per_role``: the Kyonshi's or the hunters' in
Gangsi), encodes the observation exactly as the env did, masks the logits and plays the best legal
action (or samples one with its own generator, ``deterministic=false``).

``make_policy("rllib:runs/<run>", "sorry_v0")`` takes a checkpoint directory, or a run directory (its
``final/`` checkpoint, else its newest one), so ``scripts/evaluate.py --agent rllib:runs/<run>`` plays
it against every other agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.base import Policy


class RLlibPolicy(Policy):
    """RLlib RLModules playing through the common interface (masks always applied).

    Args:
        modules: module id -> RLModule (torch) taking ``{"obs": {"observation", "action_mask"}}``.
        agent_modules: agent name -> module id, for the agents (seats) the policy can play.
        game: the game it plays (observations are encoded as the training env encoded them).
        deterministic: the best legal action (``True``) or a sample from the masked distribution.
        seed: seed of the generator used when sampling.
        name: label in tables.
    """

    def __init__(
        self,
        modules: dict[str, Any],
        agent_modules: dict[str, str],
        game: Game,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "rllib",
    ) -> None:
        super().__init__(seed)
        missing = sorted(set(agent_modules.values()) - set(modules))
        if missing:
            raise ValueError(f"no module for ids {missing}; modules given: {sorted(modules)}")
        self.modules = modules
        self.agent_modules = dict(agent_modules)
        self.game = game
        self.deterministic = deterministic
        self.name = name

    @property
    def seats(self) -> list[int]:
        """The seats this policy can play."""
        return [p for p, agent in enumerate(self.game.agents) if agent in self.agent_modules]

    def logits(self, state: State) -> np.ndarray:
        """Masked logits of the player to move (illegal actions at the most negative float)."""
        import torch
        from ray.rllib.core.columns import Columns

        seat = state.current_player()
        agents = self.game.agents
        if not 0 <= seat < len(agents):
            raise ValueError(f"{self.name} acts at decision nodes only; the player to move is {seat}")
        agent = agents[seat]
        if agent not in self.agent_modules:
            raise ValueError(
                f"{self.name} plays {sorted(self.agent_modules)}, was asked to play {agent} (seat {seat})"
            )
        obs = self.game.observe(state, seat)
        mask = self.game.action_mask(state, seat)
        batch = {
            Columns.OBS: {
                "observation": torch.from_numpy(np.asarray(obs, dtype=np.float32)[None]),
                "action_mask": torch.from_numpy(mask[None]),
            }
        }
        with torch.no_grad():
            out = self.modules[self.agent_modules[agent]].forward_inference(batch)
        logits = out[Columns.ACTION_DIST_INPUTS][0].numpy().astype(np.float64)
        return np.where(mask > 0, logits, -np.inf)

    def act(self, state: State) -> int:
        """The module's action for the player to move, among legal actions only."""
        options = getattr(state, "options", None)
        if options is not None and options != self.game.options:
            raise ValueError(
                f"{self.name} was trained for {self.game.name} with {self.game.options}, not {options}"
            )
        logits = self.logits(state)
        legal = np.flatnonzero(np.isfinite(logits))
        if self.deterministic:
            action = int(legal[np.argmax(logits[legal])])
        else:
            z = logits[legal] - logits[legal].max()
            p = np.exp(z) / np.exp(z).sum()
            action = int(legal[self.rng.choice(len(legal), p=p)])
        if action not in state.legal_actions():  # cannot happen with the mask applied
            raise RuntimeError(f"{self.name} chose illegal action {action}")
        return action


def load_rllib_policy(
    path: str | Path,
    game_name: str | None = None,
    game_options: dict[str, Any] | None = None,
    deterministic: bool = True,
    seed: int | None = None,
    name: str = "",
) -> RLlibPolicy:
    """Load the modules of an RLlib checkpoint (or run directory) as a :class:`RLlibPolicy`.

    Without ``game_options`` the policy plays the options it was trained with.

    Raises:
        FileNotFoundError: if ``path`` holds no checkpoint of this project.
        ValueError: if it was trained for another game or other options.
    """
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE
    from ray.rllib.core.rl_module.rl_module import RLModule

    from boardenvs.registry import make_game
    from boardenvs_agents.learning.models import check_compatible
    from boardenvs_agents.rllib.training import read_checkpoint_metadata, resolve_checkpoint

    checkpoint = resolve_checkpoint(path)
    metadata = read_checkpoint_metadata(checkpoint)
    game_name = game_name or metadata["game"]
    game = make_game(game_name, **(metadata["options"] if game_options is None else game_options))
    check_compatible(metadata, game, checkpoint)
    root = checkpoint / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE
    modules = {}
    for module_id in sorted(set(metadata["modules"].values())):
        module = RLModule.from_checkpoint(root / module_id)
        module.eval()
        modules[module_id] = module
    return RLlibPolicy(
        modules, metadata["modules"], game, deterministic, seed, name or f"rllib:{Path(path).name}"
    )


def make_rllib(
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    model: str = "",
    deterministic: bool = True,
) -> RLlibPolicy:
    """The ``rllib:<checkpoint or run dir>[,deterministic=false]`` spec of
    :func:`boardenvs_agents.make_policy`."""
    if not model:
        raise ValueError("name a checkpoint: 'rllib:<checkpoint dir>' or 'rllib:<run dir>'")
    return load_rllib_policy(model, game_name, game_options, deterministic, seed, name=f"rllib:{model}")
