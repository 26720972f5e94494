"""The benchmark's protocol: one run per (algorithm, task, seed), trained and evaluated alike.

A run is a training run of the algorithm's benchmark config (``configs/bench/<algo>.yaml``: the same
hyperparameters on every task) with the suite's task, seed and budget put in
(:func:`run_config`): the game and its options, ``total_timesteps`` = :data:`~.suite.BUDGET`, the
learner's seat drawn per episode, and the evaluation of the suite (its pools, games and fixed seeds).
Expert iteration (``algo: exit``, trained by its own runner, not by steps) gets the same with the
budget as searched decisions of the learner (``examples``: one example per decision its search made),
evaluations after the iteration that passes each evaluation point, and its start network evaluated
at step 0 (:func:`exit_protocol_keys`).
After training, the final model plays the final evaluation (:data:`~.suite.FINAL_GAMES`, other fixed
seeds), and the run's results are written as plain files:

* ``results/<algo>/<task>/seed_<k>.csv``: one row per (evaluation, pool, role): ``phase`` (``curve``
  during training, ``final`` at the end), ``step``, ``wall_seconds`` (training time so far, evaluations
  not counted), ``pool``, ``role`` (``all``, then each role of a game with roles), ``games``, ``wins``,
  ``win_rate``, ``ci_low``, ``ci_high`` (95% Wilson);
* ``results/<algo>/<task>/seed_<k>.json``: the suite version, the exact training config, steps,
  seconds, the machine, library versions and the commit.

The training itself lives in ``train/<algo>/<task>/seed_<k>/`` (a run directory of
:mod:`boardenvs_agents.learning.run`, or of :mod:`boardenvs_agents.learning.expert.run`): a stopped run
is resumed from its last checkpoint by running the grid again (exactly, as any training run); its
checkpoints (a DQN's holds its replay buffer) and expert iteration's self-play examples are removed
once its results are written, ``final_model.zip`` and the logs are kept. A run whose results exist
is not run again.

Runs go one after another, in ``jobs`` local processes, or as Ray tasks (one run per task, one CPU
each) on the cluster ``ray.init`` finds (a local one if none), with the same results for the same
seeds.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardenvs_agents.bench.suite import (
    POOLS,
    SEEDS,
    STANDARD,
    SUITE_VERSION,
    TASKS,
    Protocol,
    Task,
    get_task,
)

#: The columns of a run's results file.
COLUMNS = ("phase", "step", "wall_seconds", "pool", "role", "games", "wins", "win_rate", "ci_low", "ci_high")

#: The config keys the protocol sets (a benchmark config may not: they are the suite's).
PROTOCOL_KEYS = ("game", "game_options", "seed", "total_timesteps", "learner_seat", "eval", "examples")

#: The algorithm trained by a runner of its own that the protocol runs: expert iteration.
EXIT = "exit"

#: What a finished run's directory no longer needs (its results are written): checkpoints, self-play data.
BULKY = ("checkpoint", "iter_*/data")


@dataclass(frozen=True)
class RunSpec:
    """One run of the grid: an algorithm's benchmark config on a task with a seed.

    ``algo`` names the config: ``configs/bench/<algo>.yaml`` or a YAML file of yours (its stem is the
    algorithm's name in the results); ``overrides`` are ``--set`` items applied to it (not the
    protocol's keys).
    """

    algo: str
    task: str
    seed: int
    overrides: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The algorithm's name in results: the config's stem."""
        return Path(self.algo).stem if self.algo.endswith(".yaml") else self.algo

    def results_file(self, out: str | Path) -> Path:
        """``<out>/results/<algo>/<task>/seed_<k>.csv``."""
        return Path(out) / "results" / self.label / self.task / f"seed_{self.seed}.csv"

    def train_dir(self, out: str | Path) -> Path:
        """``<out>/train/<algo>/<task>/seed_<k>``: the run directory."""
        return Path(out) / "train" / self.label / self.task / f"seed_{self.seed}"

    def __str__(self) -> str:
        return f"{self.label} on {self.task}, seed {self.seed}"


def grid(
    algos: Iterable[str], tasks: Iterable[str] | None = None, seeds: Iterable[int] = SEEDS
) -> list[RunSpec]:
    """Every (algorithm, task, seed) run, tasks of the whole suite by default: by algorithm, then seed
    (so that a grid stopped halfway has every task of its first seeds).

    Raises:
        ValueError: for a task that is not in the suite.
    """
    names = [t.name for t in TASKS] if tasks is None else [get_task(t).name for t in tasks]
    return [RunSpec(a, t, int(s)) for a in algos for s in seeds for t in names]


def bench_config_name(algo: str) -> str:
    """The config file or shipped name of a benchmark algorithm (``ppo`` -> ``bench/ppo``)."""
    return algo if algo.endswith(".yaml") else f"bench/{algo}"


def run_config(spec: RunSpec, protocol: Protocol = STANDARD) -> Any:
    """The training config of a run: the benchmark config with the task, seed and protocol put in (a
    :class:`~boardenvs_agents.learning.config.TrainConfig`, or for ``algo: exit`` an
    :class:`~boardenvs_agents.learning.expert.iterate.ExItConfig`).

    Raises:
        boardenvs.core.options.OptionError: for a bad config or override, one that sets a key the
            protocol sets (:data:`PROTOCOL_KEYS`), or an algorithm trained by another runner.
    """
    from boardenvs.core.options import OptionError, make_options
    from boardenvs_agents.config import read_config
    from boardenvs_agents.learning.config import TrainConfig, check_config
    from boardenvs_agents.learning.expert.iterate import ExItConfig

    raw, where = read_config(bench_config_name(spec.algo), spec.overrides)
    fixed = sorted(set(raw) & set(PROTOCOL_KEYS) - {"game"})
    if fixed:
        raise OptionError(f"{where}{fixed} are the benchmark protocol's to set, not a benchmark config's")
    task = get_task(spec.task)
    if raw.get("algo") == EXIT:
        raw.update(exit_protocol_keys(task, spec.seed, protocol))
        return make_options(ExItConfig, raw, where=where)  # its checks' errors come as OptionError
    raw.update(protocol_keys(task, spec.seed, protocol))
    config = make_options(TrainConfig, raw, where=where)
    if config.algorithm.runner:
        raise OptionError(
            f"{where}algo {config.algo} trains by a runner of its own; the benchmark runs the algorithms "
            f"trained by steps (ppo, dqn, any registered like them) and expert iteration ({EXIT})"
        )
    check_config(config, where)
    return config


def protocol_keys(task: Task, seed: int, protocol: Protocol = STANDARD) -> dict[str, Any]:
    """The config keys the protocol sets for ``task`` and ``seed``."""
    return {
        "game": task.game,
        "game_options": dict(task.options),
        "seed": seed,
        "total_timesteps": protocol.budget,
        "learner_seat": None,
        "eval": {"every": protocol.eval_every, "games": protocol.eval_games, "opponents": list(POOLS),
                 "seed": protocol.eval_seed},
    }  # fmt: skip


def exit_protocol_keys(task: Task, seed: int, protocol: Protocol = STANDARD) -> dict[str, Any]:
    """The config keys the protocol sets for expert iteration on ``task`` with ``seed``: the budget as
    searched decisions (``examples``), the evaluation after each iteration that passes a multiple of
    the protocol's ``eval_every`` (and the last), and of the start network at step 0."""
    return {
        "game": task.game,
        "game_options": dict(task.options),
        "seed": seed,
        "examples": protocol.budget,
        "eval": {"every": 0, "every_examples": protocol.eval_every, "games": protocol.eval_games,
                 "opponents": list(POOLS), "seed": protocol.eval_seed, "at_start": True},
    }  # fmt: skip


def role_rows(task: Task, rec: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of one evaluation record (:func:`~boardenvs_agents.learning.training.evaluate_against`'s):
    ``all`` seats, then each role's seats when the task has roles."""
    rows = [_row("all", rec["games"], rec["wins"])]
    if len(task.roles) > 1:
        for role in task.roles:
            seats = [s for s in range(task.num_players) if task.role_of(s) == role]
            games = sum(rec["per_seat"][s][0] for s in seats)
            wins = sum(rec["per_seat"][s][1] for s in seats)
            rows.append(_row(role, games, wins))
    return rows


def _row(role: str, games: int, wins: int) -> dict[str, Any]:
    from boardenvs_agents.arena.match import wilson_interval

    low, high = wilson_interval(wins, games)
    return {"role": role, "games": games, "wins": wins, "win_rate": wins / games if games else 0.0,
            "ci_low": low, "ci_high": high}  # fmt: skip


def write_results(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write a results file (:data:`COLUMNS`) atomically."""
    from boardenvs_agents.learning.models import atomic_write

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, write)


def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a results file, typed.

    Raises:
        ValueError: for a file that lacks the columns of :data:`COLUMNS`.
    """
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if rows and not set(COLUMNS) <= set(rows[0]):
        raise ValueError(
            f"{path} is not a benchmark results file: it lacks {sorted(set(COLUMNS) - set(rows[0]))}"
        )
    ints, floats = ("step", "games", "wins"), ("wall_seconds", "win_rate", "ci_low", "ci_high")
    return [
        {k: int(v) if k in ints else float(v) if k in floats else v for k, v in row.items()} for row in rows
    ]


def run_one(spec: RunSpec, out: str | Path, protocol: Protocol = STANDARD, progress: bool = False) -> Path:
    """Train (or resume) the run of ``spec``, play its final evaluation, write its results; returns the
    results file. A run whose results file exists is left as it is.

    Raises:
        boardenvs.core.options.OptionError: for a bad config.
        boardenvs_agents.learning.run.RunError: for a run directory that cannot be resumed.
    """
    from boardenvs_agents.learning.expert import run as exit_run
    from boardenvs_agents.learning.run import resume_run, start_run

    results = spec.results_file(out)
    if results.exists():
        return results
    config = run_config(spec, protocol)
    train_dir = spec.train_dir(out)
    if (train_dir / "config.yaml").is_file():
        result = resume_run(train_dir, progress=progress)
    else:
        train_dir.parent.mkdir(parents=True, exist_ok=True)
        if config.algo == EXIT:
            result = exit_run.start_config_run(config, train_dir.parent, train_dir.name, progress)
        else:
            result = start_run(config, train_dir.parent, train_dir.name, progress=progress)
    task = get_task(spec.task)
    history = json.loads((train_dir / "eval.json").read_text(encoding="utf-8"))
    rows = []
    for rec in history:
        for row in role_rows(task, rec):
            rows.append({"phase": "curve", "step": rec["step"], "wall_seconds": rec["wall_seconds"],
                         "pool": rec["opponent"], **row})  # fmt: skip
    step = int(result.metrics["timesteps"])
    seconds = history[-1]["wall_seconds"]
    for rec in final_evaluation(task, train_dir / "final_model.zip", protocol):
        for row in role_rows(task, rec):
            rows.append(
                {"phase": "final", "step": step, "wall_seconds": seconds, "pool": rec["opponent"], **row}
            )
    meta = {
        "suite": SUITE_VERSION,
        "protocol": protocol.to_dict(),
        "algo": spec.label,
        "task": spec.task,
        "seed": spec.seed,
        "steps": step,
        "wall_seconds": seconds,
        "config": result.config.to_dict(),
        "machine": machine(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    results.parent.mkdir(parents=True, exist_ok=True)
    results.with_suffix(".json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    write_results(results, rows)  # last: its existence says the run is done
    for pattern in BULKY:
        for folder in train_dir.glob(pattern):
            shutil.rmtree(folder, ignore_errors=True)
    return results


def final_evaluation(task: Task, model: Path, protocol: Protocol = STANDARD) -> list[dict[str, Any]]:
    """The final model against every pool: the protocol's final games, seats rotated, fixed seeds."""
    from boardenvs import make_game
    from boardenvs_agents.learning.models import LearnedPolicy
    from boardenvs_agents.learning.training import evaluate_against

    game = make_game(task.game, **task.options)
    learner = LearnedPolicy.from_file(model, game, name="learner")
    games = dict(protocol.final_games)
    return [evaluate_against(game, learner, pool, games[pool], protocol.final_seed) for pool in POOLS]


def machine() -> dict[str, Any]:
    """What a result was measured on: the machine, Python, the libraries and the commit."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in ("boardenvs", "torch", "stable-baselines3", "sb3-contrib", "numpy"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions,
        "commit": commit(),
    }


def commit() -> str | None:
    """The checkout's commit (``None`` outside a git checkout)."""
    try:
        here = Path(__file__).resolve().parent
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _run_in_worker(spec: RunSpec, out: str, protocol: Protocol) -> str:
    """A run in a worker process (or Ray task)."""
    return str(run_one(spec, out, protocol))


def run_all(
    specs: Sequence[RunSpec],
    out: str | Path,
    jobs: int = 1,
    backend: str = "local",
    announce: Callable[[str], Any] | None = None,
    protocol: Protocol = STANDARD,
) -> list[Path]:
    """Run every spec whose results are missing: in this process (``jobs=1``), in ``jobs`` worker
    processes, or as Ray tasks (``backend="ray"``, one CPU each); returns the results files in the
    order of ``specs``. A run that fails stops nothing else; its error is raised at the end.

    Raises:
        ValueError: for an unknown backend, or ``jobs`` below 1.
        RuntimeError: naming the runs that failed, once the others are done.
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    for spec in specs:  # a bad config fails now, before hours of runs
        run_config(spec, protocol)
    say = announce or (lambda _: None)
    todo = [s for s in specs if not s.results_file(out).exists()]
    say(f"{len(specs) - len(todo)} of {len(specs)} runs done already; {len(todo)} to run")
    failed: list[str] = []
    if backend == "ray":
        failed = _run_on_ray(todo, str(out), say, protocol)
    elif jobs == 1:
        for i, spec in enumerate(todo, 1):
            try:
                run_one(spec, out, protocol)
                say(f"[{i}/{len(todo)}] done: {spec}")
            except Exception as err:  # noqa: BLE001 - reported with the others at the end
                failed.append(f"{spec}: {err}")
    else:
        # Spawned, not forked: a fork of a process that has run torch can hang in its thread pools.
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_run_in_worker, s, str(out), protocol): s for s in todo}
            for i, future in enumerate(as_completed(futures), 1):
                try:
                    future.result()
                    say(f"[{i}/{len(todo)}] done: {futures[future]}")
                except Exception as err:  # noqa: BLE001
                    failed.append(f"{futures[future]}: {err}")
    if failed:
        raise RuntimeError(f"{len(failed)} run(s) failed:\n" + "\n".join(failed))
    return [s.results_file(out) for s in specs]


def _run_on_ray(
    specs: Sequence[RunSpec], out: str, say: Callable[[str], Any], protocol: Protocol
) -> list[str]:
    """One Ray task a run (``num_cpus=1``) on the cluster ``ray.init`` finds or starts; the failures."""
    try:
        import ray
    except ImportError as err:
        raise ImportError("backend 'ray' needs Ray: pip install -e '.[rllib]'") from err
    started = not ray.is_initialized()
    if started:
        ray.init(include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(_run_in_worker)
        pending = {task.remote(s, out, protocol): s for s in specs}
        failed = []
        done = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            spec = pending.pop(ready[0])
            done += 1
            try:
                ray.get(ready[0])
                say(f"[{done}/{len(specs)}] done: {spec}")
            except Exception as err:  # noqa: BLE001
                failed.append(f"{spec}: {err}")
        return failed
    finally:
        if started:
            ray.shutdown()


def measure_reference(task: Task, games: int = 2000, seed: int = 9_000_000) -> dict[str, Any]:
    """The score's zero: a random agent's win rate against heuristic players in every other seat, seats
    rotated, over ``games`` games; its one is the heuristic's even share (1 / seats)."""
    from boardenvs import make_game
    from boardenvs_agents.learning.training import evaluate_against

    game = make_game(task.game, **task.options)
    rec = evaluate_against(game, "random", "heuristic", games, seed)  # type: ignore[arg-type]
    return {
        "task": task.name,
        "random_vs_heuristic": rec["win_rate"],
        "ci95": rec["ci95"],
        "games": rec["games"],
        "seed": seed,
        "even_share": task.even_share,
        "roles": {row["role"]: row["win_rate"] for row in role_rows(task, rec)[1:]},
    }
