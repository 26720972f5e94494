"""Expert iteration through ``boardenvs-train``: the runner of the ``exit`` algorithm
(:attr:`~boardenvs_agents.learning.algorithms.record.Algorithm.runner`).

    boardenvs-train --config sorry_v0/exit                # a new run in runs/sorry_v0__exit__0__<time>
    boardenvs-train --resume runs/sorry_v0__exit__0__<time>  # after any stop, or to go on
    boardenvs-train --resume <run> --set iterations=30       # a finished run, further

A run directory holds the exact config (``config.yaml``), the iterations of
:func:`~.iterate.run_iterations` (``exit.json``, ``iter_NNN/``: self-play data, ``model.zip``,
``report.json``; ``start/`` for a start made in the run or evaluated), ``eval.csv`` (the network
alone after each evaluated iteration, one row per opponent, in a training run's columns, ``step``
counting the self-play examples: the curve the league pages draw), ``eval.json`` (the same records
whole, as a training run's, with ``wall_seconds``: the training's seconds so far, the start's
imitation, self-play and fits, evaluations not counted), and at the end ``final_model.zip`` (the
last iteration's network, which ``exit:<run>/final_model.zip`` plays) and ``metrics.json``.
Resuming is the iterations' own: a run killed anywhere ends with the same weights, bit for bit, as a
run never stopped. A resume may change only :data:`RESUMABLE_KEYS` (what does not change the
networks).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from boardenvs.core.options import OptionError
from boardenvs_agents.config import parse_override
from boardenvs_agents.learning.expert.iterate import (
    ExItConfig,
    finished_report,
    iteration_folder,
    run_iterations,
    start_report,
)
from boardenvs_agents.learning.models import atomic_write
from boardenvs_agents.learning.run import RunError, RunResult, default_run_name, new_run_dir, say

#: Config keys a resume may change with ``--set``: they do not change the networks.
RESUMABLE_KEYS = ("iterations", "workers", "backend")

#: The columns of ``eval.csv``: a training run's (:mod:`boardenvs_agents.learning.training`), so the
#: league pages draw its curve, with ``step`` the self-play examples (searched decisions) so far.
EVAL_COLUMNS = ("step", "iteration", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high")


def load_exit_config(raw: dict[str, Any], where: str) -> ExItConfig:
    """The checked config of a mapping.

    Raises:
        RunError: naming the key and the file.
    """
    try:
        return ExItConfig.from_dict(raw, where=where)
    except (OptionError, ValueError) as err:
        message = str(err)
        raise RunError(message if message.startswith(where) else where + message) from err


def start_run(
    raw: dict[str, Any], where: str, runs: str | Path = "runs", name: str | None = None, progress: bool = True
) -> RunResult:
    """Create ``runs/<name>`` with the config and run its iterations.

    Raises:
        RunError: for a bad config or a run directory that exists already (nothing is written).
    """
    return start_config_run(load_exit_config(raw, where), runs, name, progress)


def start_config_run(
    config: ExItConfig, runs: str | Path = "runs", name: str | None = None, progress: bool = True
) -> RunResult:
    """:func:`start_run` of a config already checked (the benchmark's protocol makes one).

    Raises:
        RunError: for a run directory that exists already (nothing is written).
    """
    run_dir = new_run_dir(Path(runs) / (name or default_run_name(config)))
    _save_config(config, run_dir / "config.yaml")
    return _run(run_dir, config, progress, resumed=False)


def resume_run(run_dir: str | Path, overrides: Sequence[str] = (), progress: bool = True) -> RunResult:
    """Continue the run in ``run_dir`` (its finished iterations are kept, a half-done one goes on
    from its finished self-play chunks); ``overrides`` may change only :data:`RESUMABLE_KEYS`.

    Raises:
        RunError: naming what is wrong, before anything is written.
    """
    run_dir = Path(run_dir)
    config_file = run_dir / "config.yaml"
    try:
        raw = yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise RunError(f"{run_dir} is not a run directory ({config_file}: {err})") from err
    for item in overrides:
        key, value = parse_override(item)
        if key not in RESUMABLE_KEYS:
            raise RunError(
                f"--set {key}: a resumed run keeps its config; only {', '.join(RESUMABLE_KEYS)} may change "
                "(start a new run for anything else)"
            )
        raw[key] = value
    config = load_exit_config(raw, f"{config_file}: ")
    if overrides:
        atomic_write(config_file, lambda tmp: _save_config(config, tmp))
    say(f"resuming {run_dir}")
    return _run(run_dir, config, progress, resumed=True)


def _run(run_dir: Path, config: ExItConfig, progress: bool, resumed: bool) -> RunResult:
    """Run the iterations in ``run_dir``, then write ``eval.csv``, ``eval.json``, ``final_model.zip``,
    ``metrics.json``."""
    finished = (finished_report(run_dir, i) is not None for i in range(config.iterations))
    done = sum(finished) if resumed else None
    began = time.perf_counter()
    try:
        reports = run_iterations(config, run_dir, progress=say, show_games=progress)
    except (OptionError, ValueError, FileNotFoundError) as err:
        raise RunError(str(err)) from err
    seconds = time.perf_counter() - began
    last = reports[-1]
    final_eval = last.get("eval") or []
    examples = sum(report["examples"] for report in reports)
    metrics = {
        "game": config.game,
        "algo": config.algo,
        "iterations": len(reports),
        "timesteps": examples,
        "examples": examples,
        "train_seconds_this_session": seconds,
        "final_fit": last["fit"]["epochs"][-1],
        "final_eval": final_eval,
    }
    history = eval_history(start_report(run_dir), reports)
    atomic_write(run_dir / "eval.csv", lambda tmp: tmp.write_text(_eval_csv(history), encoding="utf-8"))
    text = json.dumps(history, indent=1)
    atomic_write(run_dir / "eval.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    final_model = iteration_folder(run_dir, last["iteration"]) / "model.zip"
    atomic_write(run_dir / "final_model.zip", lambda tmp: shutil.copyfile(final_model, tmp))
    atomic_write(run_dir / "metrics.json", lambda tmp: tmp.write_text(json.dumps(metrics, indent=2)))
    return RunResult(run_dir, config, metrics, resumed_from=done)


def eval_history(start: dict[str, Any] | None, reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every evaluation record of a run (its start's, then its iterations'), each with ``step`` (the
    examples so far), ``iteration`` (-1: the start network) and ``wall_seconds`` (the start's seconds,
    then each iteration's self-play and fit: the training's seconds, evaluations not counted)."""
    history = []
    seconds = start["seconds"] if start is not None else 0.0
    for rec in (start or {}).get("eval") or []:
        history.append({**rec, "step": 0, "iteration": -1, "wall_seconds": seconds})
    examples = 0
    for report in reports:
        examples += report["examples"]
        seconds += report["selfplay_seconds"] + report["fit_seconds"]
        for rec in report.get("eval") or []:
            where = {"step": examples, "iteration": report["iteration"], "wall_seconds": seconds}
            history.append({**rec, **where})
    return history


def _eval_csv(history: list[dict[str, Any]]) -> str:
    """``eval.csv``: one row per evaluation and opponent (:func:`eval_history`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EVAL_COLUMNS)
    for rec in history:
        low, high = rec["ci95"]
        writer.writerow(
            [rec["step"], rec["iteration"], rec["opponent"], rec["games"], rec["wins"],
             f"{rec['win_rate']:.4f}", f"{low:.4f}", f"{high:.4f}"]
        )  # fmt: skip
    return out.getvalue()


def _save_config(config: ExItConfig, path: str | Path) -> None:
    """Write ``config`` as YAML (the run directory keeps the exact config it ran with)."""
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False), encoding="utf-8")
