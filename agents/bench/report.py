"""The tables and plots of a benchmark results folder (``boardenvs-bench report`` and ``compare``).

A results folder holds ``reference.json`` (the scores' zero per task, :func:`~.protocol.measure_reference`)
and ``results/<algo>/<task>/seed_<k>.csv`` with its ``.json`` (:mod:`.protocol`); several folders
(the committed baselines, a new algorithm's runs) are read as one (:func:`load`), refused when their
suite versions or protocols differ. :func:`write_report` writes ``report.md`` and the plots:

* ``curves_steps.png`` / ``curves_wall.png``: each task's win rate against heuristic players over
  training steps / training seconds, the mean over seeds with the band of their range;
* ``aggregate_steps.png`` / ``aggregate_wall.png``: the IQM of the normalized score over every run and
  task, with its stratified-bootstrap 95% interval, at each evaluation against steps / on a grid of
  training seconds (a run scored by its latest evaluation, :func:`scores_at_seconds`);
* ``aggregates.png``, ``profiles.png``, ``improvement.png``: the final IQM, median and mean with their
  intervals, the performance profiles, and the probability of improvement of each pair.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from boardenvs_agents.bench import scores
from boardenvs_agents.bench.protocol import read_results
from boardenvs_agents.bench.suite import TASKS, get_task

#: Thresholds of the performance profiles (normalized score).
TAUS = tuple(np.round(np.linspace(0.0, 2.0, 41), 3))

#: The task names in report order.
TASK_NAMES = tuple(t.name for t in TASKS)


@dataclass
class Results:
    """Every run of a results folder (or of several), by algorithm, task and seed."""

    #: ``runs[algo][task][seed]``: the rows of a results file.
    runs: dict[str, dict[str, dict[int, list[dict[str, Any]]]]] = field(default_factory=dict)
    #: ``meta[algo][task][seed]``: its ``.json``.
    meta: dict[str, dict[str, dict[int, dict[str, Any]]]] = field(default_factory=dict)
    #: The scores' zero and one per task.
    reference: dict[str, Any] = field(default_factory=dict)
    #: The suite version and protocol the runs share.
    suite: str | None = None
    protocol: dict[str, Any] | None = None
    #: The bootstrap's results by ``(reps, seed)`` (:func:`final_aggregates`), shared by tables and plots.
    cache: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def algos(self) -> list[str]:
        """The algorithms, in the order read."""
        return list(self.runs)

    def tasks(self, algo: str) -> list[str]:
        """The tasks ``algo`` has runs of, in suite order."""
        return [t for t in TASK_NAMES if t in self.runs[algo]]

    def final(self, algo: str, task: str, pool: str = "heuristic", role: str = "all") -> dict[int, float]:
        """The final win rate of each seed's run against ``pool``."""
        out = {}
        for seed, rows in self.runs[algo][task].items():
            for row in rows:
                if row["phase"] == "final" and row["pool"] == pool and row["role"] == role:
                    out[seed] = row["win_rate"]
        return out

    def curve(self, algo: str, task: str, seed: int) -> list[dict[str, Any]]:
        """The rows of one run's evaluations during training against heuristic players, every seat."""
        return [r for r in self.runs[algo][task][seed]
                if r["phase"] == "curve" and r["pool"] == "heuristic" and r["role"] == "all"]  # fmt: skip

    def complete(self) -> list[str]:
        """The algorithms with a run of every seed of the first of them on every task (the aggregates'
        and profiles' condition)."""
        out = []
        for algo in self.algos:
            tasks = self.runs[algo]
            seeds = {frozenset(tasks[t]) for t in tasks}
            if set(tasks) == set(TASK_NAMES) and len(seeds) == 1:
                out.append(algo)
        return out

    def score_dict(self, algos: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Final normalized scores, ``runs x tasks`` (suite order), of the complete algorithms."""
        names = self.complete() if algos is None else list(algos)
        return {
            a: scores.score_matrix({t: self.final(a, t) for t in TASK_NAMES}, TASK_NAMES, self.reference)
            for a in names
        }

    def score(self, task: str, win_rate: float) -> float:
        """A win rate against the heuristic pool on ``task``, normalized."""
        ref = self.reference[task]
        return scores.normalized_score(win_rate, ref["random_vs_heuristic"], ref["even_share"])


def load(folders: Sequence[str | Path]) -> Results:
    """The runs and reference of the results folders.

    Raises:
        FileNotFoundError: for a folder without ``results/`` or without a ``reference.json`` anywhere.
        ValueError: for runs of two suite versions or protocols, or an algorithm in two folders.
    """
    out = Results()
    for folder in map(Path, folders):
        if not (folder / "results").is_dir():
            raise FileNotFoundError(f"{folder} holds no results/ folder of benchmark runs")
        if (folder / "reference.json").is_file() and not out.reference:
            out.reference = json.loads((folder / "reference.json").read_text(encoding="utf-8"))
        seen: set[str] = set()
        for path in sorted((folder / "results").glob("*/*/seed_*.csv")):
            algo, task = path.parent.parent.name, path.parent.name
            if algo in out.runs and algo not in seen:
                raise ValueError(f"{algo} has runs in two folders (the second: {folder})")
            seen.add(algo)
            seed = int(path.stem.removeprefix("seed_"))
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            for key, value in (("suite", meta["suite"]), ("protocol", meta["protocol"])):
                if getattr(out, key) is None:
                    setattr(out, key, value)
                elif getattr(out, key) != value:
                    raise ValueError(
                        f"{path}: {key} {value} differs from {getattr(out, key)}: results of another suite "
                        "version or protocol are not comparable"
                    )
            out.runs.setdefault(algo, {}).setdefault(task, {})[seed] = read_results(path)
            out.meta.setdefault(algo, {}).setdefault(task, {})[seed] = meta
    if not out.reference:
        raise FileNotFoundError(f"no reference.json in {[str(f) for f in folders]}")
    return out


def final_aggregates(
    results: Results, reps: int = scores.REPS, seed: int = 0
) -> tuple[dict[str, Any], dict[tuple[str, str], tuple[float, float, float]]]:
    """The complete algorithms' aggregates (:func:`~.scores.aggregates`) and probabilities of improvement
    (:func:`~.scores.probability_of_improvement`), bootstrapped once per ``reps`` and ``seed``: the
    tables, the plots and the comparison show the same draws."""
    if (reps, seed) not in results.cache:
        score_dict = results.score_dict()
        agg = scores.aggregates(score_dict, reps, seed) if score_dict else {}
        results.cache[(reps, seed)] = (agg, scores.probability_of_improvement(score_dict, reps, seed))
    return results.cache[(reps, seed)]


# -- tables ----------------------------------------------------------------------------------------------
def _interval(point: float, low: float, high: float, digits: int = 3) -> str:
    return f"{point:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _mean_range(values: Sequence[float]) -> str:
    return f"{np.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})" if values else "-"


def tables(results: Results, reps: int = scores.REPS, seed: int = 0) -> str:
    """The report's Markdown tables (see :func:`write_report`)."""
    lines: list[str] = []
    algos = results.algos
    complete = results.complete()
    score_dict = results.score_dict(complete)
    if complete:
        agg, poi = final_aggregates(results, reps, seed)
        lines += ["### Aggregate normalized score (final, every task, every seed)", "",
                  "| algorithm | runs | IQM | median | mean |", "|---|---|---|---|---|"]  # fmt: skip
        for a in complete:
            runs = score_dict[a].size
            lines.append(
                f"| {a} | {runs} | " + " | ".join(_interval(*agg[a][m]) for m in scores.METRICS) + " |"
            )
        lines += ["", f"Stratified-bootstrap 95% intervals, {reps:,} resamples, seed {seed}.", ""]
        if poi:
            lines += ["### Probability of improvement P(row > column)", "",
                      "| | " + " | ".join(complete) + " |", "|---" * (len(complete) + 1) + "|"]  # fmt: skip
            for x in complete:
                cells = ["-" if x == y else _interval(*poi[(x, y)], digits=2) for y in complete]
                lines.append(f"| {x} | " + " | ".join(cells) + " |")
            lines.append("")
    lines += ["### Final win rate against heuristic players, per task", "",
              "Each cell: the mean over seeds (lowest-highest seed) and the normalized score of that mean; "
              "the reference: a random agent's win rate (the score's 0) and the even share (its 1).", "",
              "| task | random | even share | " + " | ".join(algos) + " |",
              "|---|---|---|" + "---|" * len(algos)]  # fmt: skip
    for task in TASK_NAMES:
        ref = results.reference[task]
        cells = []
        for a in algos:
            finals = list(results.final(a, task).values()) if task in results.runs[a] else []
            cells.append(
                f"{_mean_range(finals)}, score {results.score(task, float(np.mean(finals))):.2f}"
                if finals
                else "-"
            )
        lines.append(
            f"| {task} | {ref['random_vs_heuristic']:.3f} | {ref['even_share']:.3f} | "
            + " | ".join(cells)
            + " |"
        )
    lines.append("")
    role_lines = []
    for task in TASK_NAMES:
        rows = [r for a in algos for runs in results.runs[a].get(task, {}).values() for r in runs]
        found = {r["role"] for r in rows}
        roles = [role for role in get_task(task).roles if role in found and role != "all"]
        for role in roles:
            cells = []
            for a in algos:
                finals = list(results.final(a, task, role=role).values()) if task in results.runs[a] else []
                cells.append(_mean_range(finals))
            role_lines.append(f"| {task} | {role} | " + " | ".join(cells) + " |")
    if role_lines:
        header = ["| task | role | " + " | ".join(algos) + " |", "|---|---|" + "---|" * len(algos)]
        lines += ["### Per role, against heuristic players", "", *header, *role_lines, ""]
    lines += ["### Final win rate against random players", "", "| task | " + " | ".join(algos) + " |",
              "|---|" + "---|" * len(algos)]  # fmt: skip
    for task in TASK_NAMES:
        cells = [_mean_range(list(results.final(a, task, pool="random").values())) if task in results.runs[a]
                 else "-" for a in algos]  # fmt: skip
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    lines += ["", "### Cost per run", "", "| algorithm | runs | steps | training seconds, mean (range) |",
              "|---|---|---|---|"]  # fmt: skip
    for a in algos:
        metas = [m for t in results.meta[a].values() for m in t.values()]
        secs = [m["wall_seconds"] for m in metas]
        steps = sorted({m["steps"] for m in metas})  # a range where runs stop past the budget unevenly
        spent = f"{steps[0]:,}" if len(steps) == 1 else f"{steps[0]:,}-{steps[-1]:,}"
        lines.append(f"| {a} | {len(metas)} | {spent} | "
                     f"{np.mean(secs):.0f} ({min(secs):.0f}-{max(secs):.0f}) |")  # fmt: skip
    missing = [a for a in algos if a not in complete]
    if missing:
        lines += ["", f"Not in the aggregates (runs missing on some task or seed): {', '.join(missing)}."]
    return "\n".join(lines) + "\n"


# -- plots -----------------------------------------------------------------------------------------------
def curves(
    results: Results, algo: str, task: str, x: str = "step"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The curve of ``algo`` on ``task`` against heuristic players: at each evaluation (its index), the
    mean over seeds of ``x`` (``step`` or ``wall_seconds``), and the mean, lowest and highest win rate."""
    per_eval: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for seed in results.runs[algo][task]:
        for i, r in enumerate(results.curve(algo, task, seed)):
            per_eval[i].append((r[x], r["win_rate"]))
    n = len(results.runs[algo][task])
    keys = [k for k in sorted(per_eval) if len(per_eval[k]) == n]
    xs = np.array([np.mean([p[0] for p in per_eval[k]]) for k in keys])
    rates = [np.array([p[1] for p in per_eval[k]]) for k in keys]
    return (
        xs,
        np.array([r.mean() for r in rates]),
        np.array([r.min() for r in rates]),
        np.array([r.max() for r in rates]),
    )


def _figure(width: float, height: float) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def plot_curves(results: Results, path: Path, x: str) -> None:
    """Every task's curves (one panel each), against ``x`` (``step`` or ``wall_seconds``)."""
    fig = _figure(12, 6.4)
    axes = fig.subplots(2, 3).ravel()
    for ax, task in zip(axes, TASK_NAMES, strict=True):
        for i, algo in enumerate(results.algos):
            if task not in results.runs[algo]:
                continue
            xs, mean, low, high = curves(results, algo, task, x)
            ax.plot(xs, mean, marker="o", markersize=3, color=f"C{i}", label=algo)
            ax.fill_between(xs, low, high, color=f"C{i}", alpha=0.15)
        ax.axhline(results.reference[task]["even_share"], color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(task, fontsize=10)
        ax.set_ylim(0, None)
        ax.set_xlabel("training steps" if x == "step" else "training seconds")
        ax.set_ylabel("win rate vs heuristic")
    axes[0].legend(fontsize=8)
    title = "Win rate against heuristic players (mean over seeds, band: their range; dashes: even share)"
    fig.suptitle(title, fontsize=10)
    fig.savefig(path, dpi=90)


def plot_aggregate_curves(
    results: Results, path: Path, reps: int, seed: int, x: Literal["step", "wall_seconds"] = "step"
) -> None:
    """The IQM of the normalized score over every run and task, with its stratified-bootstrap 95%
    interval, against training steps (at each evaluation) or training seconds (``x="wall_seconds"``: on
    a common grid of seconds, :func:`scores_at_seconds`)."""
    fig = _figure(6.4, 3.8)
    ax = fig.add_subplot()
    algos = results.complete()
    if x != "step":
        end = max(m["wall_seconds"] for a in algos for t in TASK_NAMES for m in results.meta[a][t].values())
        grid = np.linspace(0.0, end, 21)
    for i, algo in enumerate(algos):
        if x == "step":
            data = {t: curves_scores(results, algo, t) for t in TASK_NAMES}
            count = min(len(v[0]) for v in data.values())
            xs = np.mean([data[t][0][:count] for t in TASK_NAMES], axis=0)
            per_task = [data[t][1][:, :count] for t in TASK_NAMES]  # each seeds x points
        else:
            xs = grid
            per_task = [scores_at_seconds(results, algo, t, grid) for t in TASK_NAMES]
        matrices = np.stack(per_task, axis=1)  # seeds x tasks x points
        iqm = np.array([scores.aggregates({algo: matrices[:, :, k]}, reps, seed, ("IQM",))[algo]["IQM"]
                        for k in range(len(xs))])  # fmt: skip
        ax.plot(xs, iqm[:, 0], marker="o", markersize=3, color=f"C{i}", label=algo)
        ax.fill_between(xs, iqm[:, 1], iqm[:, 2], color=f"C{i}", alpha=0.2)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel("training steps" if x == "step" else "training seconds")
    ax.set_ylabel("IQM normalized score (95% CI)")
    ax.set_title("Every task and seed (1: the heuristic's level)", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=90)


def scores_at_seconds(results: Results, algo: str, task: str, seconds: np.ndarray) -> np.ndarray:
    """The normalized scores ``seeds x len(seconds)`` of ``algo`` on ``task`` against heuristic players at
    each of ``seconds`` of training: a run's score at its latest evaluation at or before that second; 0
    (a random agent's, an untrained network's level) before its first; its last once it has ended."""
    out = []
    for seed in sorted(results.runs[algo][task]):
        rows = results.curve(algo, task, seed)
        walls = np.array([r["wall_seconds"] for r in rows])
        values = np.array([results.score(task, r["win_rate"]) for r in rows])
        latest = np.searchsorted(walls, seconds, side="right") - 1
        out.append(np.where(latest >= 0, values[np.maximum(latest, 0)], 0.0))
    return np.array(out)


def curves_scores(results: Results, algo: str, task: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean step of each evaluation, and the normalized scores ``seeds x evaluations`` of ``algo`` on
    ``task`` against heuristic players."""
    per_seed = []
    steps = []
    for seed in sorted(results.runs[algo][task]):
        rows = results.curve(algo, task, seed)
        per_seed.append([results.score(task, r["win_rate"]) for r in rows])
        steps.append([r["step"] for r in rows])
    count = min(len(p) for p in per_seed)
    return (np.mean([s[:count] for s in steps], axis=0), np.array([p[:count] for p in per_seed]))


def plot_final(results: Results, out: Path, reps: int, seed: int) -> None:
    """``aggregates.png``, ``profiles.png`` and ``improvement.png`` of the complete algorithms."""
    score_dict = results.score_dict()
    if not score_dict:
        return
    algos = list(score_dict)
    agg, poi = final_aggregates(results, reps, seed)
    fig = _figure(9, 0.6 + 0.45 * len(algos))
    for j, metric in enumerate(scores.METRICS):
        ax = fig.add_subplot(1, len(scores.METRICS), j + 1)
        for i, a in enumerate(algos):
            point, low, high = agg[a][metric]
            ax.barh(i, high - low, left=low, height=0.6, color=f"C{i}", alpha=0.6)
            ax.plot([point, point], [i - 0.3, i + 0.3], color="black")
        ax.set_yticks(range(len(algos)), algos if j == 0 else [""] * len(algos))
        ax.set_title(metric, fontsize=10)
        ax.axvline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlabel("normalized score")
    fig.savefig(out / "aggregates.png", dpi=90)

    profiles = scores.performance_profiles(score_dict, TAUS, reps, seed)
    fig = _figure(6.4, 3.8)
    ax = fig.add_subplot()
    for i, a in enumerate(algos):
        profile, interval = profiles[a]
        ax.plot(TAUS, profile, color=f"C{i}", label=a)
        ax.fill_between(TAUS, interval[0], interval[1], color=f"C{i}", alpha=0.2)
    ax.set_xlabel("normalized score τ")
    ax.set_ylabel("fraction of runs with score > τ")
    ax.set_title("Performance profiles (every task and seed, 95% CI)", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(out / "profiles.png", dpi=90)

    if poi:
        pairs = list(poi)
        fig = _figure(6.4, 0.8 + 0.4 * len(pairs))
        ax = fig.add_subplot()
        for i, (x, y) in enumerate(pairs):
            point, low, high = poi[(x, y)]
            ax.barh(i, high - low, left=low, height=0.6, color="C0", alpha=0.5)
            ax.plot([point, point], [i - 0.3, i + 0.3], color="black")
        ax.set_yticks(range(len(pairs)), [f"P({x} > {y})" for x, y in pairs])
        ax.axvline(0.5, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlim(0, 1)
        ax.set_title("Probability of improvement (95% CI)", fontsize=10)
        fig.savefig(out / "improvement.png", dpi=90)


def write_report(
    results: Results, out: str | Path, command: str, reps: int = scores.REPS, seed: int = 0
) -> Path:
    """``report.md`` (``command``, the suite, the tables) and the plots in ``out``; returns ``report.md``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    text = tables(results, reps, seed)
    protocol = results.protocol or {}
    head = [
        "# Benchmark report", "", "```bash", command, "```", "",
        f"Suite {results.suite}; protocol {json.dumps(protocol)}.", "", "",
    ]  # fmt: skip
    plots = ["curves_steps.png", "curves_wall.png"]
    plot_curves(results, out / "curves_steps.png", "step")
    plot_curves(results, out / "curves_wall.png", "wall_seconds")
    if results.complete():
        plot_aggregate_curves(results, out / "aggregate_steps.png", reps, seed)
        plot_aggregate_curves(results, out / "aggregate_wall.png", reps, seed, x="wall_seconds")
        plot_final(results, out, reps, seed)
        finals = ("aggregate_steps", "aggregate_wall", "aggregates", "profiles", "improvement")
        plots += [f"{name}.png" for name in finals]
    images = [f"![{p}]({p})" for p in plots]
    path = out / "report.md"
    path.write_text("\n".join(head) + text + "\n" + "\n\n".join(images) + "\n", encoding="utf-8")
    return path


def comparison(results: Results, new: Sequence[str], reps: int = scores.REPS, seed: int = 0) -> str:
    """For each algorithm of ``new``: its IQM and, against each other algorithm, P(new > other), as a
    Markdown table (the complete algorithms only)."""
    complete = results.complete()
    missing = [a for a in new if a not in complete]
    if missing:
        raise ValueError(f"{missing} lack runs on some task or seed: every task of the suite, the same seeds")
    agg, poi = final_aggregates(results, reps, seed)
    lines = ["| algorithm | IQM | " + " | ".join(f"P(> {b})" for b in complete) + " |",
             "|---|---|" + "---|" * len(complete)]  # fmt: skip
    for a in new:
        cells = ["-" if a == b else _interval(*poi[(a, b)], digits=2) for b in complete]
        lines.append(f"| {a} | {_interval(*agg[a]['IQM'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
