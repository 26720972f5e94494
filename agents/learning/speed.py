"""How fast training runs: learner steps per second against random, heuristic and self-play opponents.

:func:`measure_training` times training itself (MaskablePPO from a game's ``ppo`` config, rollouts of
a fixed size) against random, heuristic and self-play opponents at several numbers of envs:
learner steps per second, the share of the time the learner waits for the envs (opponents and their
forward passes included) and, for network opponents, how many decisions each batched forward pass
answered; :func:`training_table` is its Markdown table. ``scripts/benchmark.py`` prints it after the
env and search tables of :mod:`boardenvs_agents.arena.speed`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from boardenvs_agents.learning.config import TrainConfig, load_config
from boardenvs_agents.learning.models import save_model
from boardenvs_agents.learning.training import env_wait_seconds, final_metadata, make_vec_env
from boardenvs_agents.learning.vec_env import BatchedVecEnv

#: Opponents of the training table: label and the config's ``opponents`` (``self``: a snapshot of the
#: learner, taken before the clock starts, in every other seat).
TRAINING_OPPONENTS: tuple[tuple[str, dict[str, float]], ...] = (
    ("random", {"random": 1.0}),
    ("heuristic", {"heuristic": 1.0}),
    ("self-play", {"self": 1.0}),
)


@dataclass
class TrainingSpeed:
    """One row of the training table: ``steps`` learner steps trained in ``seconds``."""

    opponents: str
    n_envs: int
    vec_env: str
    workers: int | None
    steps: int
    seconds: float
    #: Seconds the learner waited for the envs (their games, opponents and forward passes).
    env_seconds: float
    #: Opponent decisions answered in batches, and the batched forward passes that answered them.
    decisions: int = 0
    forward_calls: int = 0

    @property
    def steps_per_second(self) -> float:
        """Learner steps (decisions) trained per second."""
        return self.steps / self.seconds

    @property
    def env_share(self) -> float:
        """Share of the time spent waiting for the envs."""
        return self.env_seconds / self.seconds


def training_config(
    game: str, opponents: dict[str, float], n_envs: int, steps: int, rollout: int = 2048,
    vec_env: str = "batched", workers: int | None = None, seed: int = 0,
) -> TrainConfig:  # fmt: skip
    """The ``<game>/ppo`` config for a timing run: ``steps`` steps, no evaluation, ``n_envs`` envs with
    rollouts of ``rollout`` steps in all (``n_steps = rollout / n_envs``), the given opponents."""
    overrides = [
        f"total_timesteps={steps}", "eval.every=0", f"n_envs={n_envs}", f"vec_env={vec_env}", f"seed={seed}",
        f"hyperparameters.n_steps={max(1, rollout // n_envs)}",
        "opponents={" + ", ".join(f"{k}: {v}" for k, v in opponents.items()) + "}",
    ]  # fmt: skip
    if workers is not None:
        overrides.append(f"workers={workers}")
    return load_config(f"{game}/ppo", overrides)


def training_speed(config: TrainConfig, label: str = "") -> TrainingSpeed:
    """Train ``config``'s learner for ``config.total_timesteps`` steps and time it (nothing written but
    a temporary self-play snapshot: with ``self`` among the opponents, the untrained learner is added to
    every env's pool before the clock starts)."""
    torch.set_num_threads(config.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        vec = make_vec_env(config, root=tmp)
        try:
            algorithm = config.algorithm
            model = algorithm.build(vec, config.hyperparameters, config.policy_kwargs, seed=config.seed)
            if config.opponents.get("self", 0) > 0:
                path = save_model(model, Path(tmp) / "snapshot.zip", final_metadata(config, 0))
                vec.env_method("update_opponents", "add_snapshot", str(path))
            waited = env_wait_seconds(vec)
            start = time.perf_counter()
            algorithm.train(model, config.total_timesteps)
            seconds = time.perf_counter() - start
            waited = env_wait_seconds(vec) - waited
            batched = isinstance(vec, BatchedVecEnv)
            return TrainingSpeed(
                label or ",".join(config.opponents), config.n_envs, config.vec_env,
                vec.workers if batched and config.vec_env == "subproc" else None,
                model.num_timesteps, seconds, waited,
                vec.decisions if batched else 0, vec.forward_calls if batched else 0,
            )  # fmt: skip
        finally:
            vec.close()


def parse_vec_env(spec: str) -> tuple[str, int | None]:
    """``"batched"``, ``"dummy"``, ``"subproc"`` or ``"subproc:N"`` (N worker processes) as
    ``(vec_env, workers)``.

    Raises:
        ValueError: for anything else.
    """
    kind, colon, count = spec.partition(":")
    if kind in ("batched", "dummy", "subproc") and not colon:
        return kind, None
    if kind == "subproc" and count.isdigit() and int(count) >= 1:
        return kind, int(count)
    raise ValueError(f"a vec env is batched, dummy, subproc or subproc:N (N >= 1 workers), got {spec!r}")


def measure_training(
    game: str = "sorry_v0", envs: Sequence[int] = (2, 8), steps: int = 6144, rounds: int = 3,
    vec_envs: Sequence[str] = ("batched",), rollout: int = 2048, seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[TrainingSpeed]:  # fmt: skip
    """The training table: every :data:`TRAINING_OPPONENTS` entry at every number of ``envs`` with every
    vector env of ``vec_envs`` (:func:`parse_vec_env`), each trained ``steps`` steps in each of
    ``rounds`` interleaved rounds; the fastest round is kept (on a shared machine noise only ever slows
    a round down). ``progress(label)`` is called before each run.

    Raises:
        ValueError: for a non-positive ``steps``, ``rounds`` or number of envs, or a bad vec env.
    """
    if steps < 1 or rounds < 1 or not envs or min(envs) < 1:
        raise ValueError(
            f"steps, rounds and every number of envs must be at least 1, got {steps}, {rounds}, {list(envs)}"
        )
    setups = [parse_vec_env(spec) for spec in vec_envs]
    runs = [
        (label, opponents, n, kind, workers)
        for kind, workers in setups
        for n in envs
        for label, opponents in TRAINING_OPPONENTS
    ]
    best: dict[int, TrainingSpeed] = {}
    for round_ in range(rounds):
        for i, (label, opponents, n, kind, workers) in enumerate(runs):
            if progress is not None:
                where = kind + (f":{workers}" if workers else "")
                progress(f"round {round_ + 1}/{rounds}: {label}, {n} envs, {where}")
            config = training_config(game, opponents, n, steps, rollout, kind, workers, seed)
            row = training_speed(config, label)
            if i not in best or row.steps_per_second > best[i].steps_per_second:
                best[i] = row
    return [best[i] for i in range(len(runs))]


def training_table(rows: Sequence[TrainingSpeed]) -> str:
    """The Markdown table of :func:`measure_training` rows (``vs random``: against the random row with
    the same envs)."""
    columns = (
        "opponents", "envs", "vec env", "steps/s", "env share of time", "vs random",
        "decisions per forward pass",
    )  # fmt: skip
    lines = ["| " + " | ".join(columns) + " |", "|---|---:|---|---:|---:|---:|---:|"]
    reference = {(r.n_envs, r.vec_env, r.workers): r for r in rows if r.opponents == "random"}
    for row in rows:
        ref = reference.get((row.n_envs, row.vec_env, row.workers))
        ratio = f"{row.steps_per_second / ref.steps_per_second:.2f}x" if ref else ""
        kind = row.vec_env + (f":{row.workers}" if row.workers else "")
        per_call = f"{row.decisions / row.forward_calls:.1f}" if row.forward_calls else ""
        speed = f"{row.steps_per_second:,.0f} | {row.env_share:.0%}"
        lines.append(f"| {row.opponents} | {row.n_envs} | {kind} | {speed} | {ratio} | {per_call} |")
    return "\n".join(lines)
