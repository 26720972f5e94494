"""Train MaskablePPO, masked DQN or expert iteration on a boardenvs game.

    python scripts/train.py --config configs/sorry_v0/ppo.yaml
    python scripts/train.py --config configs/sorry_v0/ppo.yaml --set total_timesteps=20000 --set eval.games=40
    python scripts/train.py --resume runs/sorry_v0__ppo__0__20261129-130501

One learner seat per episode (drawn every episode unless ``learner_seat`` is set); the other seats
are played by opponents drawn from the configured weights (``random``, ``heuristic``, ``self`` for
frozen snapshots of the learner). A run directory holds the exact config, TensorBoard logs (``tb/``:
episode return, losses, steps per second, win rates against each baseline), ``eval.csv``, atomic
checkpoints (``checkpoint/``, the last two), self-play snapshots, and at the end ``final_model.zip``
(with metadata: game, options, spaces, algorithm, commit) and ``metrics.json``. ``--resume`` continues
a run that was killed, even with SIGKILL, from its last checkpoint, exactly as if it had not been
stopped (see :mod:`boardenvs_agents.learning.run`); ``--set`` with ``--resume`` may change only
``total_timesteps``, ``checkpoint_every``, ``vec_env`` and ``torch_threads``.

Expert iteration (``algo: exit``, ``configs/<game>/exit.yaml``) trains by a loop of its own, which this
command hands the config or run to (:mod:`boardenvs_agents.learning.expert.run`): iterations of
self-play with search and a fit, ``eval.csv`` of the network alone after each, ``--resume`` after any
stop (``--set iterations=N`` to go on; ``workers`` and ``backend`` may change too).

Exit codes: 0 done; 2 a bad command line or config, or a run that cannot be started or resumed (a
one-line message; nothing was written).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from boardenvs.core.options import OptionError
from boardenvs_agents import cli

if TYPE_CHECKING:
    from boardenvs_agents.learning.run import RunResult


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
    args = parser.parse_args(argv)
    if args.resume is not None and (args.config is not None or args.name is not None):
        parser.error("--resume continues a run with its own config and name; give --config or --resume")
    return Args(**vars(args))


def run(argv: list[str] | None = None) -> dict[str, Any]:
    """Run (or resume) a training run and print its report; returns its final metrics."""
    args = parse_args(argv)
    # The train extra (pyyaml, torch, Stable-Baselines3), imported once the arguments are read.
    from boardenvs_agents.learning.run import RunError, resume_run, start_run_from_file

    try:
        if args.resume:
            result = resume_run(args.resume, args.set, progress=not args.no_progress)
        else:
            result = start_run_from_file(args.config, args.set, args.runs, args.name, not args.no_progress)
    except (OptionError, RunError) as err:
        cli.fail(str(err))
    report(result)
    return result.metrics


@cli.command
def main(argv: list[str] | None = None) -> int:
    """The command (``boardenvs-train``): :func:`run`, exit status 0 once the run is done."""
    run(argv)
    return 0


def report(result: RunResult) -> None:
    """Print where the run is and its final evaluation as a Markdown table."""
    metrics = result.metrics
    seconds = metrics.get("train_seconds_this_session") or 0.0
    print(f"\nrun: {result.run_dir}\nmodel: {result.run_dir / 'final_model.zip'}\n")
    steps = metrics["timesteps"]
    # Expert iteration counts iterations and searched decisions (its examples), not env steps.
    done = f"{steps:,} steps"
    if "iterations" in metrics:
        done = f"{metrics['iterations']} iterations, {steps:,} examples"
    print(f"{metrics['game']}, {metrics['algo']}, {done}, {seconds:.0f} s this session")
    print("| opponent | games | wins | win rate [95% CI] | mean length |")
    print("|---|---|---|---|---|")
    for rec in metrics["final_eval"]:
        low, high = rec["ci95"]
        print(
            f"| {rec['opponent']} | {rec['games']} | {rec['wins']} | {rec['win_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}] | {rec['mean_length']:.1f} |"
        )


if __name__ == "__main__":
    raise SystemExit(main())
