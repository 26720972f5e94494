"""Normalized scores and rliable's aggregates reproduce known values on fixed inputs."""

import numpy as np
import pytest

from boardenvs_agents.bench import scores


def test_the_normalized_score_is_0_for_random_1_for_the_even_share():
    assert scores.normalized_score(0.02, 0.02, 0.25) == 0.0
    assert scores.normalized_score(0.25, 0.02, 0.25) == pytest.approx(1.0)
    assert scores.normalized_score(0.48, 0.02, 0.25) == pytest.approx(2.0)
    assert scores.normalized_score(0.0, 0.0, 0.25) == 0.0
    with pytest.raises(ValueError, match="below the even share"):
        scores.normalized_score(0.3, 0.5, 0.5)


def test_the_iqm_is_the_mean_of_the_middle_half():
    # 8 values: the middle four are 2, 3, 4, 5.
    assert scores.iqm(np.arange(8.0).reshape(2, 4)) == pytest.approx(3.5)
    assert scores.iqm(np.array([[0.0, 1.0, 1.0, 100.0]])) == pytest.approx(1.0)  # the outlier trimmed


@pytest.mark.parametrize("shape", [(5, 6), (30, 6), (4, 1), (7, 3), (1, 4)])
def test_the_iqm_and_the_probability_of_improvement_are_rlibles_to_the_last_bit(shape):
    from rliable import metrics

    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    for rounding in (None, 1):  # continuous scores, then many ties
        x, y = rng.random(shape) * 2 - 0.5, rng.random((shape[0] + 1, shape[1]))
        if rounding is not None:
            x, y = x.round(rounding), y.round(rounding)
        assert scores.iqm(x) == metrics.aggregate_iqm(x)
        assert scores.improvement(x, y) == metrics.probability_of_improvement(x, y)
        assert scores.improvement(y, x) == metrics.probability_of_improvement(y, x)
        assert scores.improvement(x, x.copy()) == metrics.probability_of_improvement(x, x.copy()) == 0.5


def test_aggregates_give_the_point_values_and_the_same_intervals_for_a_seed():
    rng = np.random.default_rng(3)
    data = {"a": rng.random((5, 6)) + 1.0, "b": rng.random((5, 6))}
    one = scores.aggregates(data, reps=300, seed=7)
    assert one == scores.aggregates(data, reps=300, seed=7)
    assert one != scores.aggregates(data, reps=300, seed=8)
    assert one["a"]["mean"][0] == pytest.approx(data["a"].mean())
    assert one["a"]["median"][0] == pytest.approx(np.median(data["a"].mean(axis=0)))  # of the task means
    assert one["b"]["IQM"][0] == pytest.approx(scores.iqm(data["b"]))
    for algo in data:
        for point, low, high in one[algo].values():
            assert low <= point <= high
    # One metric alone: the same point, and the same resamples, so the same interval.
    iqm_only = scores.aggregates(data, reps=300, seed=7, metrics=("IQM",))
    assert iqm_only == {a: {"IQM": one[a]["IQM"]} for a in data}


def test_the_global_generator_is_left_as_it_was():
    np.random.seed(11)
    expected = np.random.random()
    np.random.seed(11)
    scores.aggregates({"a": np.ones((3, 2))}, reps=50, seed=0)
    assert np.random.random() == expected


def test_probability_of_improvement_of_a_dominating_algorithm_is_one():
    low = np.zeros((4, 3))
    high = np.ones((4, 3))
    poi = scores.probability_of_improvement({"high": high, "low": low}, reps=100)
    assert poi[("high", "low")] == (1.0, 1.0, 1.0)
    assert poi[("low", "high")] == (0.0, 0.0, 0.0)
    same = scores.probability_of_improvement({"x": high, "y": high.copy()}, reps=100)
    assert same[("x", "y")][0] == pytest.approx(0.5)  # ties count a half


def test_performance_profiles_count_the_runs_above_each_threshold():
    data = {"a": np.array([[0.0, 0.5], [1.0, 1.5]])}
    profile, interval = scores.performance_profiles(data, [-0.1, 0.25, 0.75, 1.25, 2.0], reps=100)["a"]
    assert profile.tolist() == [1.0, 0.75, 0.5, 0.25, 0.0]
    assert interval.shape == (2, 5)


def test_a_score_matrix_is_seeds_by_tasks_and_needs_the_same_seeds():
    reference = {"t1": {"random_vs_heuristic": 0.0, "even_share": 0.25},
                 "t2": {"random_vs_heuristic": 0.1, "even_share": 0.5}}  # fmt: skip
    finals = {"t1": {0: 0.25, 1: 0.5}, "t2": {0: 0.1, 1: 0.5}}
    assert scores.score_matrix(finals, ["t1", "t2"], reference).tolist() == [[1.0, 0.0], [2.0, 1.0]]
    with pytest.raises(ValueError, match="seeds"):
        scores.score_matrix({"t1": {0: 0.2}, "t2": {1: 0.2}}, ["t1", "t2"], reference)
