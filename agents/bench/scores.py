"""Normalized scores and their aggregates across tasks and seeds, with rliable (Agarwal et al., 2021).

**The score of a run on a task** is its final win rate against heuristic players in every other seat,
normalized so that 0 is a random agent's win rate there (measured: the reference, :func:`reference`)
and 1 is the heuristic's own, its even share of the wins (1 / seats: a player as strong as the three
others, seats rotated); above 1 is better than the heuristic:

    score = (win_rate - random_rate) / (1 / seats - random_rate)

**Aggregates** follow rliable: the interquartile mean (IQM, the mean of the middle half of all runs x
tasks), the median of the task means and the mean, each with a stratified-bootstrap 95% interval
(runs resampled within each task); performance profiles (the share of runs scoring above each
threshold, with intervals); and the probability of improvement of each algorithm over each other (the
chance that a run of one beats a run of the other on a task drawn at random, Mann-Whitney's U
statistic averaged over tasks, ties a half), with its interval. rliable draws its bootstrap from
numpy's global generator (``random_state`` is ignored by its 1.2 release), so every function here
seeds it, and restores it after: the same inputs and ``seed`` give the same intervals.

rliable's bootstrap calls the metric once per resample; its IQM and probability of improvement go
through scipy (``trim_mean``, ``mannwhitneyu``), whose checks cost a hundred times the arithmetic on
thirty runs. :func:`iqm` and :func:`improvement` are the same operations in numpy, equal to rliable's
to the last bit (tested), so the intervals are rliable's, in a fraction of the time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

#: Bootstrap resamples of the intervals (rliable recommends at least 2,000).
REPS = 2000

#: The aggregate metrics reported, by name.
METRICS = ("IQM", "median", "mean")


def normalized_score(win_rate: float, random_rate: float, even_share: float) -> float:
    """``(win_rate - random_rate) / (even_share - random_rate)``.

    Raises:
        ValueError: when the random agent's rate is not below the even share (no scale).
    """
    if not random_rate < even_share:
        raise ValueError(f"the random rate {random_rate} must be below the even share {even_share}")
    return (win_rate - random_rate) / (even_share - random_rate)


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Numpy's global generator seeded for the block, its state restored after (rliable draws from it)."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _metric_funcs() -> dict[str, Any]:
    from rliable import metrics

    return {"IQM": iqm, "median": metrics.aggregate_median, "mean": metrics.aggregate_mean}


def iqm(scores: np.ndarray) -> float:
    """The interquartile mean of every value of ``scores`` (runs x tasks): rliable's ``aggregate_iqm``
    (scipy's ``trim_mean`` of a quarter at each end, the same partition and mean)."""
    values = np.asarray(scores, dtype=float).ravel()
    low = int(0.25 * values.size)
    high = values.size - low
    return float(np.mean(np.partition(values, (low, high - 1))[low:high]))


def improvement(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """P(X > Y) averaged over tasks (``runs x tasks`` each): rliable's ``probability_of_improvement``,
    Mann-Whitney's U of each task's runs (a tie counts a half) over the pairs, a half for equal runs."""
    x, y = np.asarray(scores_x, dtype=float), np.asarray(scores_y, dtype=float)
    greater = (x[:, None, :] > y[None, :, :]).sum(axis=(0, 1))
    ties = (x[:, None, :] == y[None, :, :]).sum(axis=(0, 1))
    u = greater + 0.5 * ties
    pairs = x.shape[0] * y.shape[0]
    per_task = [0.5 if np.array_equal(x[:, t], y[:, t]) else u[t] / pairs for t in range(x.shape[1])]
    return float(np.mean(per_task))


def aggregates(
    score_dict: Mapping[str, np.ndarray], reps: int = REPS, seed: int = 0, metrics: Sequence[str] = METRICS
) -> dict[str, dict[str, tuple[float, float, float]]]:
    """The ``metrics`` (IQM, median and mean) of each algorithm's scores (``runs x tasks``) with
    stratified-bootstrap 95% intervals: ``{algo: {metric: (point, low, high)}}``."""
    from rliable import library as rly

    funcs = _metric_funcs()

    def aggregate(x: np.ndarray) -> np.ndarray:
        return np.array([funcs[m](x) for m in metrics])

    with seeded(seed):
        points, intervals = rly.get_interval_estimates(dict(score_dict), aggregate, reps=reps)
    return {
        algo: {m: (float(points[algo][i]), float(intervals[algo][0, i]), float(intervals[algo][1, i]))
               for i, m in enumerate(metrics)}
        for algo in score_dict
    }  # fmt: skip


def probability_of_improvement(
    score_dict: Mapping[str, np.ndarray], reps: int = REPS, seed: int = 0
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """P(X > Y) of every ordered pair of algorithms (X, Y), with its 95% interval:
    ``{(x, y): (point, low, high)}``."""
    from rliable import library as rly

    algos = list(score_dict)
    pairs = {f"{x},{y}": (score_dict[x], score_dict[y]) for x in algos for y in algos if x != y}
    if not pairs:
        return {}
    with seeded(seed):
        points, intervals = rly.get_interval_estimates(
            pairs, lambda x, y: np.array([improvement(x, y)]), reps=reps
        )
    out = {}
    for key in pairs:
        x, y = key.split(",")
        out[(x, y)] = (float(points[key][0]), float(intervals[key][0, 0]), float(intervals[key][1, 0]))
    return out


def performance_profiles(
    score_dict: Mapping[str, np.ndarray], taus: Sequence[float], reps: int = REPS, seed: int = 0
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The share of runs (over every task) scoring above each ``tau``, with its 95% interval (rows low,
    high): ``{algo: (profile, interval)}``."""
    from rliable import library as rly

    with seeded(seed):
        profiles, intervals = rly.create_performance_profile(dict(score_dict), np.asarray(taus), reps=reps)
    return {algo: (np.asarray(profiles[algo]), np.asarray(intervals[algo])) for algo in score_dict}


def score_matrix(
    finals: Mapping[str, Mapping[int, float]], tasks: Sequence[str], reference: Mapping[str, Any]
) -> np.ndarray:
    """One algorithm's scores as ``runs x tasks``: ``finals[task][seed]`` is a run's final win rate
    against the heuristic pool; ``reference[task]`` holds ``random_vs_heuristic`` and ``even_share``.

    Raises:
        ValueError: when the tasks do not have the same seeds (the stratified bootstrap pairs them).
    """
    seeds = sorted(finals[tasks[0]])
    for task in tasks:
        if sorted(finals[task]) != seeds:
            raise ValueError(f"{task} has the runs of seeds {sorted(finals[task])}, {tasks[0]} of {seeds}")
    return np.array(
        [[normalized_score(finals[t][s], reference[t]["random_vs_heuristic"], reference[t]["even_share"])
          for t in tasks] for s in seeds]
    )  # fmt: skip
