"""The config of an RLlib run (``configs/<game>/rllib.yaml``), checked before Ray starts.

Defaults live in :class:`RLlibConfig`; a file overrides them and ``--set key=value`` overrides the file
(dotted keys reach into sections: ``--set training.lr=0.001``). Unknown keys, wrong types, unknown games,
agents, PPO settings and mappings that the game's spaces do not allow stop at once with a message that
names the key and the file. This module does not start Ray; checking ``training`` imports RLlib.

Policy mapping (``mapping``), from agents (seats) to RLModules:

* ``shared``: one module ``shared`` plays every seat (self-play). Needs identical spaces in every seat.
* ``per_role``: one module per role; an agent's role is its name without the seat index
  (:func:`role_of`): ``kyonshi`` and ``hunter`` in ``gangsi_v0``, and ``player`` in the symmetric games
  (the same as ``shared`` there).
* ``vs_fixed``: one module ``learner`` in one seat per episode (drawn by the env's generator, or fixed
  with ``learner_seat``); every other seat is played inside the env by agents from :mod:`agents`
  (``opponents``: specs and weights, drawn per seat and episode).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from boardenvs.core.game import Game
from boardenvs.core.options import OptionError, make_options, options_to_dict
from boardenvs_agents.config import read_config
from boardenvs_agents.registry import make_policy

#: The policy mappings a config may name.
MAPPINGS = ("shared", "per_role", "vs_fixed")


@dataclass(frozen=True)
class RLlibEvalConfig:
    """Evaluation of the trained modules as an :class:`boardenvs_agents.base.Policy`, seats rotated,
    paired seeds."""

    #: Training iterations between evaluations (0: only at the end).
    every: int = 0
    #: Games per opponent, rounded up to a multiple of the number of seatings.
    games: int = 100
    #: Agent specs to evaluate against (every other seat).
    opponents: tuple[str, ...] = ("random", "heuristic")

    def __post_init__(self) -> None:
        if self.every < 0 or self.games < 1:
            raise ValueError(f"eval.every must be >= 0 and eval.games >= 1, got {self.every}, {self.games}")


@dataclass(frozen=True)
class RLlibConfig:
    """Everything an RLlib PPO run needs; every field has a default."""

    #: Registered env name.
    game: str = "sorry_v0"
    #: The game's options (see its docstring).
    game_options: dict[str, Any] = field(default_factory=dict)
    #: ``shared``, ``per_role`` or ``vs_fixed`` (see the module docstring).
    mapping: Literal["shared", "per_role", "vs_fixed"] = "shared"
    #: ``vs_fixed`` only: opponent specs and their weights, drawn per seat and episode.
    opponents: dict[str, float] = field(default_factory=lambda: {"heuristic": 1.0})
    #: ``vs_fixed`` only: the learner's seat, or null to draw it every episode.
    learner_seat: int | None = None
    #: Seed of RLlib (env runners, modules) and of the envs' generators.
    seed: int = 0
    #: Training iterations (one PPO batch each).
    iterations: int = 50
    #: Iterations between checkpoints (RLlib's ``save_to_path``); the last iteration is always saved.
    checkpoint_every: int = 10
    #: Remote env runners (0: sample in the driver process).
    num_env_runners: int = 1
    #: Envs stepped together by each env runner.
    num_envs_per_env_runner: int = 1
    #: Env steps per env runner and sample call (``auto``: the batch split between the runners).
    rollout_fragment_length: int | Literal["auto"] = "auto"
    #: Keyword arguments of ``PPOConfig.training`` (``lr``, ``train_batch_size_per_learner``, ...).
    training: dict[str, Any] = field(default_factory=dict)
    #: Hidden layers of the policy and value networks (``fcnet_hiddens``).
    hidden: tuple[int, ...] = (128, 128)
    #: Periodic evaluation.
    eval: RLlibEvalConfig = field(default_factory=RLlibEvalConfig)
    #: CPUs of the local Ray cluster started for the run (null: all of the machine's).
    num_cpus: int | None = None
    #: Threads torch may use in each process.
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if min(self.iterations, self.checkpoint_every, self.torch_threads, self.num_envs_per_env_runner) < 1:
            raise ValueError(
                "iterations, checkpoint_every, torch_threads and num_envs_per_env_runner must be at least 1"
            )
        if self.num_env_runners < 0:
            raise ValueError(f"num_env_runners must be >= 0, got {self.num_env_runners}")
        if self.num_cpus is not None and self.num_env_runners > self.num_cpus:
            raise ValueError(
                f"num_env_runners ({self.num_env_runners}) each take a CPU; num_cpus is {self.num_cpus} "
                "(Ray would wait for CPUs forever)"
            )
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden must list positive layer sizes, got {list(self.hidden)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML-able dict."""
        return options_to_dict(self)


def role_of(agent: str) -> str:
    """The role of an agent: its name without a trailing seat index (``hunter_2`` -> ``hunter``)."""
    return re.sub(r"_\d+$", "", agent)


def _spaces(game: Game, player: int) -> tuple[tuple[int, ...], int]:
    return tuple(game.observation_shape(player)), game.num_actions(player)


def module_map(game: Game, mapping: str, learner_seat: int | None = None) -> dict[str, str]:
    """Agent name -> RLModule id under ``mapping``, for the agents the modules play.

    ``vs_fixed`` maps only the seats the learner may take (all, or ``learner_seat``).

    Raises:
        ValueError: for an unknown mapping, a seat out of range, or agents that would share a module
            but have different observation or action spaces (e.g. ``shared`` in ``gangsi_v0``).
    """
    agents = list(game.agents)
    if mapping == "shared":
        modules = dict.fromkeys(agents, "shared")
    elif mapping == "per_role":
        modules = {agent: role_of(agent) for agent in agents}
    elif mapping == "vs_fixed":
        if learner_seat is not None and not 0 <= learner_seat < len(agents):
            raise ValueError(f"learner_seat must be in 0..{len(agents) - 1}, got {learner_seat}")
        seats = range(len(agents)) if learner_seat is None else [learner_seat]
        modules = {agents[p]: "learner" for p in seats}
    else:
        raise ValueError(f"unknown mapping {mapping!r}; known: {list(MAPPINGS)}")
    first: dict[str, tuple[str, Any]] = {}
    for agent, module in modules.items():
        spaces = _spaces(game, agents.index(agent))
        seen = first.setdefault(module, (agent, spaces))
        if seen[1] != spaces:
            hint = " (fix learner_seat)" if mapping == "vs_fixed" else " (use mapping: per_role)"
            raise ValueError(
                f"mapping {mapping!r} puts {seen[0]} and {agent} in module {module!r}, but their spaces "
                f"differ: observation {seen[1][0]} vs {spaces[0]}, actions {seen[1][1]} vs {spaces[1]}{hint}"
            )
    return modules


def ppo_training_keys() -> set[str]:
    """Keyword arguments ``PPOConfig.training`` accepts (imports RLlib)."""
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    names: set[str] = set()
    for method in (PPOConfig.training, AlgorithmConfig.training):
        params = inspect.signature(method).parameters.values()
        names |= {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    return names - {"self"}


def load_rllib_config(
    path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = (), check_training: bool = True
) -> RLlibConfig:
    """Read, override and check an RLlib config.

    ``check_training=False`` skips checking the ``training`` keys against RLlib (no RLlib import).

    Raises:
        OptionError: naming the key and the file, for anything that would make the run fail later.
    """
    raw, where = read_config(path, overrides)
    config = make_options(RLlibConfig, raw, where=where)
    check_rllib_config(config, where, check_training)
    return config


def check_rllib_config(config: RLlibConfig, where: str = "config: ", check_training: bool = True) -> None:
    """Check what types cannot: the game and its options, the mapping, the agents, the PPO settings."""
    import boardenvs
    if config.game not in boardenvs.env_names():
        raise OptionError(f"{where}game {config.game!r} is unknown; available: {boardenvs.env_names()}")
    try:
        game = boardenvs.make_game(config.game, **config.game_options)
    except OptionError as err:
        raise OptionError(f"{where}game_options: {err}") from err
    try:
        module_map(game, config.mapping, config.learner_seat)
    except ValueError as err:
        raise OptionError(f"{where}{err}") from err
    if config.mapping != "vs_fixed" and config.learner_seat is not None:
        raise OptionError(f"{where}learner_seat is for mapping: vs_fixed (the mapping is {config.mapping!r})")
    options = options_to_dict(game.options)
    specs = [("eval.opponents", spec) for spec in config.eval.opponents]
    if config.mapping == "vs_fixed":
        specs += [("opponents", spec) for spec in config.opponents]
        weights = list(config.opponents.values())
        if not weights or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise OptionError(f"{where}opponents: weights must be non-negative with a positive sum")
    for key, spec in specs:
        try:
            make_policy(spec, config.game, game_options=options)
        except (ValueError, FileNotFoundError) as err:
            raise OptionError(f"{where}{key}: {err}") from err
    if check_training:
        accepted = ppo_training_keys()
        for key in config.training:
            if key not in accepted:
                raise OptionError(
                    f"{where}training.{key} is not a PPOConfig.training argument; valid: {sorted(accepted)}"
                )


def save_rllib_config(config: RLlibConfig, path: str | Path) -> None:
    """Write ``config`` as YAML (the run directory keeps the exact config it ran with)."""
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
