"""The pieces of an RLlib run that ``scripts/train_rllib.py`` puts together.

* :func:`build_ppo_config`: RLlib's ``PPOConfig`` (new API stack) for an :class:`RLlibConfig`: the
  turn-based env, the policy mapping, one :class:`~boardenvs_agents.rllib.module.MaskedPPOTorchRLModule` per
  module id, env runners, seeds;
* :class:`BoardEnvCallbacks`: actions checked by the env and illegal ones, as RLlib metrics;
* :func:`save_checkpoint` / :func:`read_checkpoint_metadata`: RLlib's own checkpoint (``save_to_path``)
  plus ``boardenvs_rllib.json`` (game, options, mapping, agent -> module, iteration, commit);
* :func:`evaluate`: the modules as an :class:`boardenvs_agents.base.Policy` against baselines, seats rotated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.registry import make_game
from boardenvs_agents.rllib.config import RLlibConfig, module_map
from boardenvs_agents.rllib.env import TurnBasedMultiAgentEnv
from boardenvs_agents.rllib.module import MaskedPPOTorchRLModule

#: Name of the metadata file written into every checkpoint directory.
METADATA_NAME = "boardenvs_rllib.json"
#: RLlib metric keys of the actions the env checked and of the illegal ones (lifetime sums).
ACTIONS_CHECKED = "boardenvs_actions_checked"
ILLEGAL_ACTIONS = "boardenvs_illegal_actions"


class AgentToModule:
    """RLlib's ``policy_mapping_fn``: agent name -> module id, from a fixed table (picklable)."""

    def __init__(self, modules: dict[str, str]) -> None:
        self.modules = dict(modules)

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        """The module that plays ``agent_id``."""
        try:
            return self.modules[agent_id]
        except KeyError:
            raise ValueError(
                f"no module plays agent {agent_id!r}; mapped agents: {sorted(self.modules)}"
            ) from None


class BoardEnvCallbacks(RLlibCallback):
    """Logs, per finished episode, the actions the env checked and the illegal ones (lifetime sums)."""

    def on_episode_end(self, *, episode: Any, env: Any = None, env_index: int = 0, metrics_logger: Any = None,
                       **kwargs: Any) -> None:  # fmt: skip
        """Read the counters of the env that played ``episode``."""
        if env is None or metrics_logger is None:
            return
        checked, illegal = env.envs[env_index].unwrapped.pop_counts()
        metrics_logger.log_value(ACTIONS_CHECKED, checked, reduce="lifetime_sum")
        metrics_logger.log_value(ILLEGAL_ACTIONS, illegal, reduce="lifetime_sum")


def env_config(config: RLlibConfig) -> dict[str, Any]:
    """The ``env_config`` of :class:`~boardenvs_agents.rllib.env.TurnBasedMultiAgentEnv` for ``config``."""
    return {
        "game": config.game,
        "game_options": dict(config.game_options),
        "mapping": config.mapping,
        "opponents": dict(config.opponents),
        "learner_seat": config.learner_seat,
        "seed": config.seed,
    }


def build_ppo_config(config: RLlibConfig) -> PPOConfig:
    """RLlib's ``PPOConfig`` for ``config``: env, mapping, masked modules, env runners, training, seed."""
    game = make_game(config.game, **config.game_options)
    modules = module_map(game, config.mapping, config.learner_seat)
    module_ids = sorted(set(modules.values()))
    model_config = {"fcnet_hiddens": list(config.hidden), "fcnet_activation": "relu"}
    ppo = (
        PPOConfig()
        # RLlib's env checker steps random actions, which our env refuses as illegal.
        .environment(TurnBasedMultiAgentEnv, env_config=env_config(config), disable_env_checking=True)
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            rollout_fragment_length=config.rollout_fragment_length,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .multi_agent(
            policies=set(module_ids),
            policy_mapping_fn=AgentToModule(modules),
            policies_to_train=module_ids,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    mid: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)
                    for mid in module_ids
                }
            )
        )
        .callbacks(BoardEnvCallbacks)
        .debugging(seed=config.seed, log_level="ERROR")
    )
    if config.training:
        ppo = ppo.training(**config.training)
    return ppo


def checkpoint_metadata(config: RLlibConfig, iteration: int, **extra: Any) -> dict[str, Any]:
    """The metadata saved beside an RLlib checkpoint of a run with ``config``."""
    import ray

    from boardenvs_agents.learning.models import git_commit

    game = make_game(config.game, **config.game_options)
    return {
        "format": 1,
        "kind": "rllib",
        "game": game.name,
        "options": options_to_dict(game.options),
        "mapping": config.mapping,
        "learner_seat": config.learner_seat,
        "modules": module_map(game, config.mapping, config.learner_seat),
        "iteration": iteration,
        "ray_version": ray.__version__,
        "commit": git_commit(),
        **extra,
    }


def save_checkpoint(algo: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """RLlib's ``algo.save_to_path(path)``, then the metadata file (written last: its presence marks a
    complete checkpoint)."""
    path = Path(path).resolve()
    path.mkdir(parents=True, exist_ok=True)
    (path / METADATA_NAME).unlink(missing_ok=True)
    algo.save_to_path(str(path))
    tmp = path / f".{METADATA_NAME}.tmp"
    tmp.write_text(json.dumps(metadata, indent=2))
    tmp.replace(path / METADATA_NAME)
    return path


def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory: ``path`` itself, a run's ``final/``, or a run's newest complete checkpoint.

    Raises:
        FileNotFoundError: if none of these holds a complete checkpoint (one with its metadata file).
    """
    path = Path(path)
    if (path / METADATA_NAME).exists():
        return path
    if (path / "final" / METADATA_NAME).exists():
        return path / "final"
    saved = sorted(p.parent for p in (path / "checkpoints").glob(f"*/{METADATA_NAME}"))
    if saved:
        return saved[-1]
    raise FileNotFoundError(
        f"{path} is not an RLlib checkpoint of this project (no {METADATA_NAME}), nor a run directory with "
        "final/ or checkpoints/"
    )


def read_checkpoint_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a checkpoint directory (resolved with :func:`resolve_checkpoint`)."""
    return json.loads((resolve_checkpoint(path) / METADATA_NAME).read_text())


def evaluate(
    policy: Any, game: Game, opponents: tuple[str, ...] | list[str], games: int, seed: int,
    learner_seat: int | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Win rates of ``policy`` against each opponent spec in every other seat (seats rotated, paired
    seeds, 95% Wilson intervals), as in ``scripts/train.py``."""
    from boardenvs_agents.learning.training import evaluate_against

    return [evaluate_against(game, policy, spec, games, seed, learner_seat) for spec in opponents]


def measure_sampling(algo: Any, env_steps: int) -> dict[str, Any]:
    """Sampling throughput of ``algo``'s env runners (env steps per second, no learning).

    One round of sampling first (actors and modules warm up), then at least ``env_steps`` env steps,
    every env runner sampling its ``rollout_fragment_length`` in parallel per round, as a PPO iteration
    samples; counts the env steps of the episodes returned (turn-based: one per decision).
    """
    import time

    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    def sample(steps: int) -> int:
        # With metrics, as a training iteration samples: the runners' metrics are pulled (and reset).
        episodes, _ = synchronous_parallel_sample(
            worker_set=algo.env_runner_group, max_env_steps=steps, concat=True, _uses_new_env_runners=True,
            _return_metrics=True,
        )  # fmt: skip
        return sum(episode.env_steps() for episode in episodes)

    sample(1)
    total = 0
    start = time.perf_counter()
    while total < env_steps:
        total += sample(env_steps - total)
    seconds = time.perf_counter() - start
    return {
        "env_steps": total,
        "seconds": round(seconds, 2),
        "env_steps_per_s": round(total / seconds, 1),
        "num_env_runners": algo.config.num_env_runners,
        "num_envs_per_env_runner": algo.config.num_envs_per_env_runner,
    }
