"""Train MaskablePPO or masked DQN on a boardenvs game, against a pool of opponents.

    python scripts/train.py --config configs/sorry_v0/ppo.yaml
    python scripts/train.py --config configs/sorry_v0/ppo.yaml --set total_timesteps=20000 --set eval.games=40
    python scripts/train.py --resume runs/sorry_v0__ppo__0__20261129-130501

One learner seat per episode (drawn every episode unless ``learner_seat`` is set); the other seats
are played by opponents drawn from the configured weights (``random``, ``heuristic``, ``self`` for
frozen snapshots of the learner). A run directory holds the exact config, TensorBoard logs (``tb/``:
episode return, losses, steps per second, win rates against each baseline), ``eval.csv``, atomic
checkpoints (``checkpoint/``), self-play snapshots, and at the end ``final_model.zip`` (with metadata:
game, options, spaces, algorithm, commit) and ``metrics.json``. ``--resume`` continues a run that was
killed, even with SIGKILL, from its last checkpoint.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from boardenvs.core.options import OptionError
from boardenvs_agents.learning.config import load_config, save_config
from boardenvs_agents.learning.models import algorithm_class, save_model
from boardenvs_agents.learning.training import (
    CheckpointCallback,
    EvaluationCallback,
    ProgressCallback,
    SelfPlayCallback,
    final_metadata,
    make_vec_env,
)


@dataclass
class Args:
    """Command-line arguments."""

    #: The YAML config (``configs/<game>/<algo>.yaml``); defaults in ``agents/learning/config.py``.
    config: str | None = None
    #: Overrides, ``key=value`` with dotted keys for sections (``eval.games=50``).
    set: list[str] = field(default_factory=list)
    #: Parent folder of new run directories.
    runs: str = "runs"
    #: Name of the run directory (default: game__algo__seed__time).
    name: str | None = None
    #: A run directory to continue from its last checkpoint.
    resume: str | None = None
    #: No progress bar.
    no_progress: bool = False


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML config (configs/<game>/<algo>.yaml)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key"
    )
    parser.add_argument("--runs", default="runs", help="parent folder of run directories")
    parser.add_argument("--name", help="run directory name (default: game__algo__seed__time)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue this run from its last checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return Args(**vars(parser.parse_args(argv)))


def fail(message: str) -> None:
    """Stop with a one-line message and exit code 2."""
    print(f"train.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> dict:
    """Run (or resume) a training run; returns its final metrics."""
    args = parse_args(argv)

    # -- config and run directory -----------------------------------------------------------------
    resume_state = None
    try:
        if args.resume:
            run_dir = Path(args.resume)
            config = load_config(run_dir / "config.yaml", args.set)
            state_file = run_dir / "checkpoint" / "state.json"
            if not state_file.exists():
                fail(f"{run_dir} has no checkpoint to resume from")
            resume_state = json.loads(state_file.read_text())
        else:
            config = load_config(args.config, args.set)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = Path(args.runs) / (args.name or f"{config.game}__{config.algo}__{config.seed}__{stamp}")
            if run_dir.exists() and any(run_dir.iterdir()):
                fail(f"{run_dir} already exists; use --resume to continue it or --name for a new run")
            run_dir.mkdir(parents=True, exist_ok=True)
    except OptionError as err:
        fail(str(err))
    save_config(config, run_dir / "config.yaml")

    # -- envs and model ---------------------------------------------------------------------------
    import torch

    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(config)
    algo = algorithm_class(config.algo)
    if resume_state is not None:
        model = algo.load(run_dir / "checkpoint" / "model.zip", env=vec_env, device="cpu")
        buffer = run_dir / "checkpoint" / "replay_buffer.pkl"
        if config.algo == "dqn" and buffer.exists():
            model.load_replay_buffer(buffer)
        print(f"resuming {run_dir} at step {model.num_timesteps:,}", file=sys.stderr)
    else:
        policy = "MaskedDQNPolicy" if config.algo == "dqn" else "MlpPolicy"
        model = algo(
            policy, vec_env, seed=config.seed, device="cpu", tensorboard_log=str(run_dir / "tb"),
            policy_kwargs=dict(config.policy_kwargs) or None, verbose=0, **config.hyperparameters,
        )  # fmt: skip

    # -- callbacks --------------------------------------------------------------------------------
    evaluation = EvaluationCallback(config, run_dir)
    selfplay = SelfPlayCallback(
        run_dir, config.selfplay.snapshot_every, lambda: final_metadata(config, model.num_timesteps)
    )
    if resume_state is not None:
        for path in resume_state.get("snapshots", []):
            if Path(path).exists():
                selfplay.add(path, vec_env)
        evaluation.history = resume_state.get("eval_history", [])
    checkpoint = CheckpointCallback(
        run_dir,
        config.checkpoint_every,
        lambda: {"snapshots": selfplay.paths, "eval_history": evaluation.history},
    )
    callbacks = [checkpoint, evaluation]
    if config.opponents.get("self", 0) > 0:
        callbacks.append(selfplay)
    if not args.no_progress:
        callbacks.append(ProgressCallback(config.total_timesteps))

    # -- train ------------------------------------------------------------------------------------
    remaining = config.total_timesteps - model.num_timesteps
    start = time.perf_counter()
    start_steps = model.num_timesteps
    if remaining > 0:
        model.learn(
            remaining, callback=callbacks, reset_num_timesteps=False, tb_log_name="run", progress_bar=False
        )
    else:  # nothing left to train (a resumed run that had reached its budget): just finish it
        from stable_baselines3.common.logger import configure

        model.set_logger(configure(None, []))
        for callback in callbacks:
            callback.init_callback(model)
    seconds = time.perf_counter() - start
    env_seconds = sum(vec_env.get_attr("env_seconds"))

    # -- final model, evaluation and metrics ------------------------------------------------------
    final_eval = evaluation.evaluate()
    metrics = {
        "game": config.game,
        "algo": config.algo,
        "timesteps": model.num_timesteps,
        "train_seconds_this_session": seconds,
        "steps_per_second": (model.num_timesteps - start_steps) / seconds if seconds else None,
        "env_seconds_this_session": env_seconds,
        "env_share_of_time": env_seconds / (seconds * (config.n_envs if config.vec_env == "subproc" else 1))
        if seconds
        else None,
        "final_eval": final_eval,
    }
    path = save_model(
        model, run_dir / "final_model.zip", final_metadata(config, model.num_timesteps, eval=final_eval)
    )
    checkpoint.save()
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
    vec_env.close()

    print(f"\nrun: {run_dir}\nmodel: {path}\n")
    print(f"{config.game}, {config.algo}, {model.num_timesteps:,} steps, {seconds:.0f} s this session")
    print("| opponent | games | wins | win rate [95% CI] | mean length |")
    print("|---|---|---|---|---|")
    for rec in final_eval:
        low, high = rec["ci95"]
        print(
            f"| {rec['opponent']} | {rec['games']} | {rec['wins']} | {rec['win_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}] | {rec['mean_length']:.1f} |"
        )
    return metrics


if __name__ == "__main__":
    main()
