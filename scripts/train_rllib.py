"""Train PPO with Ray RLlib on a boardenvs game: self-play, one module per role, or against fixed agents.

    python scripts/train_rllib.py --config configs/sorry_v0/rllib.yaml
    python scripts/train_rllib.py --config configs/gangsi_v0/rllib.yaml --set iterations=5
    python scripts/train_rllib.py --config configs/sorry_v0/rllib.yaml --address auto   # an existing cluster
    python scripts/train_rllib.py --config configs/sorry_v0/rllib.yaml --measure-sampling 20000
    python scripts/train_rllib.py --resume runs/sorry_v0__rllib__0__20261201-101500

Without ``--address`` Ray starts a local cluster for the run (``num_cpus`` CPUs, no dashboard) and stops
it at the end; ``--address auto`` or ``--address ray://<head>:10001`` joins an existing cluster and ships
this checkout's ``boardenvs`` and ``agents`` to it. A run directory holds the exact config,
``progress.csv`` (one row per iteration: env steps, steps per second, mean returns per module, actions
checked by the env and illegal ones), RLlib checkpoints every ``checkpoint_every`` iterations
(``checkpoints/iter_<n>/``) and at the end (``final/``), each with ``boardenvs_rllib.json``, and
``metrics.json`` with the final evaluation. The trained modules play as an agent:
``python scripts/evaluate.py --agent rllib:<run dir> ...``. See ``docs/rllib.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardenvs.core.options import OptionError
from boardenvs_agents import cli
from boardenvs_agents.cli import fail


@dataclass
class Args:
    """Command-line arguments."""

    #: The YAML config (``configs/<game>/rllib.yaml``); defaults in ``agents/rllib/config.py``.
    config: str | None = None
    #: Overrides, ``key=value`` with dotted keys for sections (``training.lr=0.001``).
    set: list[str] = field(default_factory=list)
    #: Parent folder of new run directories.
    runs: str = "runs"
    #: Name of the run directory (default: game__rllib__seed__time).
    name: str | None = None
    #: A run directory to continue from its newest checkpoint.
    resume: str | None = None
    #: Ray cluster to join (``auto``, ``ray://host:10001``); none: start a local one for this run.
    address: str | None = None
    #: Do not upload this checkout's packages to the cluster (they are installed on every node).
    no_ship_code: bool = False
    #: Only measure sampling: env steps per second of the config's env runners over this many steps.
    measure_sampling: int | None = None


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML config (configs/<game>/rllib.yaml)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key"
    )
    parser.add_argument("--runs", default="runs", help="parent folder of run directories")
    parser.add_argument("--name", help="run directory name (default: game__rllib__seed__time)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue this run from its newest checkpoint")
    parser.add_argument(
        "--address", help="join this Ray cluster ('auto', 'ray://<head>:10001'); default: a local cluster"
    )
    parser.add_argument(
        "--no-ship-code", action="store_true",
        help="with --address: do not upload boardenvs/ and agents/ (they are installed on every node)",
    )  # fmt: skip
    parser.add_argument(
        "--measure-sampling", type=int, metavar="ENV_STEPS",
        help="no training: sample this many env steps with the config's env runners and print steps/s",
    )  # fmt: skip
    return Args(**vars(parser.parse_args(argv)))


def check_extras() -> None:
    """Stop with one line (exit code 2) unless the rllib and train extras are installed."""
    try:
        cli.check_extra("rllib", "ray")
        cli.check_extra("train", "yaml", "torch")
    except ImportError as err:
        fail(str(err))


def start_ray(args: Args, num_cpus: int | None) -> bool:
    """Start a local Ray cluster for the run, or join ``args.address``; ``False`` if this process had
    already started or joined one (it is used as it is, and left running)."""
    import ray

    if ray.is_initialized():
        return False
    if args.address is None:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        return True
    if args.no_ship_code:  # the packages are installed on every node
        ray.init(address=args.address, log_to_driver=False)
        return True
    import tempfile

    from boardenvs_agents.rllib.cluster import stage_packages

    # The packages under their import names (the checkout's agents/ folder as boardenvs_agents), uploaded
    # by ray.init, so the staging folder can go once it returns.
    with tempfile.TemporaryDirectory(prefix="boardenvs-ship-") as staging:
        runtime_env = {"py_modules": stage_packages(staging)}
        ray.init(address=args.address, runtime_env=runtime_env, log_to_driver=False)
    return True


def iteration_row(result: dict[str, Any], iteration: int, seconds: float) -> dict[str, Any]:
    """The progress.csv row of one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    steps = runners.get("num_env_steps_sampled", 0)
    row = {
        "iteration": iteration,
        "env_steps": runners.get("num_env_steps_sampled_lifetime", 0),
        "env_steps_this_iter": steps,
        "steps_per_s": round(steps / seconds, 1) if seconds else "",
        "episodes": runners.get("num_episodes_lifetime", ""),
        "episode_len_mean": round(runners.get("episode_len_mean", float("nan")), 1),
        "actions_checked": runners.get("boardenvs_actions_checked", 0),
        "illegal_actions": runners.get("boardenvs_illegal_actions", 0),
        "seconds": round(seconds, 2),
    }
    for module, value in sorted(runners.get("module_episode_returns_mean", {}).items()):
        row[f"return_{module}"] = round(float(value), 3)
    return row


@cli.command
def main(argv: list[str] | None = None) -> int:
    """The command (``boardenvs-train-rllib``): :func:`run`, exit status 0 once the run is done."""
    run(argv)
    return 0


def run(argv: list[str] | None = None) -> dict[str, Any]:
    """Run (or resume) an RLlib training run, or measure sampling; returns the final metrics (the
    measurement)."""
    args = parse_args(argv)
    check_extras()
    from boardenvs_agents.rllib.config import load_rllib_config, save_rllib_config

    if args.measure_sampling is not None:
        return measure(args)

    # -- config and run directory (checked before Ray starts) -------------------------------------
    try:
        if args.resume:
            run_dir = Path(args.resume)
            config = load_rllib_config(run_dir / "config.yaml", args.set)
        else:
            config = load_rllib_config(args.config, args.set)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = Path(args.runs) / (args.name or f"{config.game}__rllib__{config.seed}__{stamp}")
            if run_dir.exists() and any(run_dir.iterdir()):
                fail(f"{run_dir} already exists; use --resume to continue it or --name for a new run")
            run_dir.mkdir(parents=True, exist_ok=True)
    except OptionError as err:
        fail(str(err))
    save_rllib_config(config, run_dir / "config.yaml")

    import ray
    import torch

    from boardenvs_agents.rllib.policy import load_rllib_policy
    from boardenvs_agents.rllib.training import (
        build_ppo_config,
        checkpoint_metadata,
        evaluate,
        read_checkpoint_metadata,
        resolve_checkpoint,
        save_checkpoint,
    )

    torch.set_num_threads(config.torch_threads)
    started = start_ray(args, config.num_cpus)
    try:
        algo = build_ppo_config(config).build_algo()
        done = 0
        if args.resume:
            try:
                checkpoint = resolve_checkpoint(run_dir)
            except FileNotFoundError:
                fail(f"{run_dir} has no checkpoint to resume from")
            algo.restore_from_path(str(checkpoint.resolve()))
            done = read_checkpoint_metadata(checkpoint)["iteration"]
            print(f"resuming {run_dir} after iteration {done}", file=sys.stderr)

        # -- train --------------------------------------------------------------------------------
        progress = run_dir / "progress.csv"
        rows: list[dict[str, Any]] = []
        evals: list[dict[str, Any]] = []
        writer = None
        with open(progress, "a", newline="") as f:
            for iteration in range(done + 1, config.iterations + 1):
                start = time.perf_counter()
                result = algo.train()
                row = iteration_row(result, iteration, time.perf_counter() - start)
                rows.append(row)
                if writer is None:
                    writer = csv.DictWriter(f, fieldnames=list(row), extrasaction="ignore")
                    if f.tell() == 0:
                        writer.writeheader()
                writer.writerow(row)
                f.flush()
                print(" ".join(f"{k}={v}" for k, v in row.items()), file=sys.stderr)
                if row["illegal_actions"]:
                    fail(f"{row['illegal_actions']} illegal actions reached the env")
                if iteration % config.checkpoint_every == 0 and iteration < config.iterations:
                    save_checkpoint(
                        algo, run_dir / "checkpoints" / f"iter_{iteration:06d}",
                        checkpoint_metadata(config, iteration, env_steps=row["env_steps"]),
                    )  # fmt: skip
                if config.eval.every and iteration % config.eval.every == 0 and iteration < config.iterations:
                    policy = _policy_from(algo, config, iteration, run_dir, row)
                    evals.append({"iteration": iteration, "eval": _evaluate(policy, config, evaluate)})
        final = save_checkpoint(
            algo, run_dir / "final",
            checkpoint_metadata(config, config.iterations, env_steps=rows[-1]["env_steps"] if rows else None),
        )  # fmt: skip
    finally:
        if "algo" in locals():
            algo.stop()
        if started:
            ray.shutdown()

    # -- the trained modules as an agent, against the baselines ---------------------------------------
    policy = load_rllib_policy(final, config.game, config.game_options, seed=config.seed)
    final_eval = _evaluate(policy, config, evaluate)
    measured = rows[1:] or rows  # the first iteration includes start-up
    metrics = {
        "game": config.game,
        "mapping": config.mapping,
        "iterations": config.iterations,
        "env_steps": rows[-1]["env_steps"] if rows else None,
        "num_env_runners": config.num_env_runners,
        "steps_per_s": _mean([r["steps_per_s"] for r in measured]),
        "actions_checked": rows[-1]["actions_checked"] if rows else 0,
        "illegal_actions": rows[-1]["illegal_actions"] if rows else 0,
        "checkpoint": str(final),
        "evals": evals,
        "final_eval": final_eval,
    }
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))

    print(f"\nrun: {run_dir}\ncheckpoint: {final}\nagent spec: rllib:{run_dir}\n")
    print(
        f"{config.game}, mapping {config.mapping}, {metrics['env_steps']:.0f} env steps, "
        f"{metrics['steps_per_s']} env steps/s (sampling and learning)"
    )
    print("| opponent | games | wins | win rate [95% CI] | mean length |")
    print("|---|---|---|---|---|")
    for rec in final_eval:
        low, high = rec["ci95"]
        print(
            f"| {rec['opponent']} | {rec['games']} | {rec['wins']} | {rec['win_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}] | {rec['mean_length']:.1f} |"
        )
    return metrics


def measure(args: Args) -> dict[str, Any]:
    """``--measure-sampling``: the sampling throughput of the config's env runners, printed as JSON."""
    import ray

    from boardenvs_agents.rllib.config import load_rllib_config
    from boardenvs_agents.rllib.training import build_ppo_config, measure_sampling

    if args.measure_sampling < 1:
        fail(f"--measure-sampling takes a positive number of env steps, got {args.measure_sampling}")
    try:
        config = load_rllib_config(args.config, args.set)
    except OptionError as err:
        fail(str(err))
    started = start_ray(args, config.num_cpus)
    try:
        algo = build_ppo_config(config).build_algo()
        try:
            result = {"game": config.game, **measure_sampling(algo, args.measure_sampling)}
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
    print(json.dumps(result))
    return result


def _mean(values: list[Any]) -> float | None:
    numbers = [float(v) for v in values if v != ""]
    return round(sum(numbers) / len(numbers), 1) if numbers else None


def _policy_from(algo: Any, config: Any, iteration: int, run_dir: Path, row: dict[str, Any]) -> Any:
    """The modules as they are now, through a checkpoint (the path the arena takes)."""
    from boardenvs_agents.rllib.policy import load_rllib_policy
    from boardenvs_agents.rllib.training import checkpoint_metadata, save_checkpoint

    path = save_checkpoint(
        algo, run_dir / "checkpoints" / f"iter_{iteration:06d}",
        checkpoint_metadata(config, iteration, env_steps=row["env_steps"]),
    )  # fmt: skip
    return load_rllib_policy(path, config.game, config.game_options, seed=config.seed)


def _evaluate(policy: Any, config: Any, evaluate: Any) -> list[dict[str, Any]]:
    from boardenvs.registry import make_game

    game = make_game(config.game, **config.game_options)
    return evaluate(policy, game, config.eval.opponents, config.eval.games, config.seed, config.learner_seat)


if __name__ == "__main__":
    raise SystemExit(main())
