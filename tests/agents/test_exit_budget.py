"""Expert iteration with a budget in searched decisions (``examples``), evaluations at points in
examples, the start network evaluated at step 0, and a start network made in the run by imitation
(``start: imitation``): what the benchmark's protocol runs it with (tests/bench)."""

import json
import zipfile

import pytest

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs_agents.learning.expert import ExItConfig
from boardenvs_agents.learning.expert import run as exit_run
from boardenvs_agents.learning.expert.iterate import IterationEvalConfig, start_model_path
from boardenvs_agents.learning.training import evaluate_against

OPTIONS = {"num_players": 2}

#: A run of two-game iterations (about 100 searched decisions each) until 400, evaluated every 250.
BUDGETED = {
    "game": "sorry_v0",
    "game_options": OPTIONS,
    "start": "ppo:sorry_v0",
    "iterations": 100,
    "examples": 400,
    "games": 2,
    "search": {"sims": 2},
    "selfplay": {"chunk_games": 1},
    "fit": {"epochs": 1},
    "seed": 5,
    "eval": {"every": 0, "every_examples": 250, "games": 2, "at_start": True, "seed": 123},
}

#: A start network cloned from four heuristic games.
IMITATION = {
    "start": "imitation",
    "warm_start": {
        "imitation": {"teacher": "heuristic", "games": 4, "epochs": 1},
        "policy_kwargs": {"net_arch": [32, 32]},
    },
}


def test_evaluations_are_due_at_the_last_iteration_every_nth_and_past_each_multiple_of_examples():
    by_examples = IterationEvalConfig(every=0, every_examples=100)
    assert by_examples.due(3, last=False, before=90, after=110)
    assert not by_examples.due(4, last=False, before=110, after=190)
    assert by_examples.due(5, last=False, before=190, after=200)  # reaching a multiple counts
    assert by_examples.due(6, last=True, before=200, after=210)
    assert not IterationEvalConfig(every=0).due(0, last=False, before=0, after=10_000)
    every_second = IterationEvalConfig(every=2)
    assert every_second.due(1, last=False) and not every_second.due(2, last=False)


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory):
    runs = tmp_path_factory.mktemp("budgeted")
    result = exit_run.start_run(BUDGETED, "", runs, "run", progress=False)
    return runs / "run", result


def test_a_budget_in_examples_stops_after_the_iteration_that_reaches_it(budgeted):
    run_dir, result = budgeted
    counts = [json.loads(p.read_text())["examples"] for p in sorted(run_dir.glob("iter_*/report.json"))]
    assert sum(counts) >= 400 > sum(counts[:-1])  # the last iteration, and only it, reached the budget
    assert result.metrics["examples"] == result.metrics["timesteps"] == sum(counts)
    assert result.metrics["iterations"] == len(counts) < BUDGETED["iterations"]


def test_the_start_network_is_evaluated_at_step_0_then_past_every_point_on_the_given_seeds(budgeted):
    run_dir, result = budgeted
    history = json.loads((run_dir / "eval.json").read_text())
    steps = [rec["step"] for rec in history]
    assert steps[0] == 0 and history[0]["iteration"] == -1
    counts = [json.loads(p.read_text())["examples"] for p in sorted(run_dir.glob("iter_*/report.json"))]
    totals = [sum(counts[: i + 1]) for i in range(len(counts))]
    before = [0, *totals[:-1]]
    expected = [t for i, t in enumerate(totals) if i == len(totals) - 1 or t // 250 > before[i] // 250]
    assert steps[1:] == expected and len(expected) < len(totals)  # some iterations are not evaluated
    seconds = [rec["wall_seconds"] for rec in history]
    assert seconds == sorted(seconds) and seconds[-1] > 0
    # The evaluation's games are those of eval.seed: the start network replayed on them gives its record.
    game = make_game("sorry_v0", **OPTIONS)
    from boardenvs_agents.learning.models import LearnedPolicy

    start = LearnedPolicy.from_file(start_model_path(ExItConfig.from_dict(BUDGETED)), game, name="learner")
    again = evaluate_against(game, start, "heuristic", 2, 123)
    assert (again["games"], again["wins"]) == (history[0]["games"], history[0]["wins"])
    rows = (run_dir / "eval.csv").read_text().splitlines()
    assert len(rows) == len(history) + 1 and rows[1].startswith("0,-1,heuristic,")


def test_a_start_made_by_imitation_is_made_once_the_same_for_a_seed_and_searched_with(tmp_path):
    config = {**BUDGETED, **IMITATION, "examples": 20, "eval": {"games": 2, "at_start": True}}
    first = exit_run.start_run(config, "", tmp_path, "a", progress=False)
    start = tmp_path / "a" / "start"
    report = json.loads((start / "report.json").read_text())
    assert report["start"] == "imitation" and report["seconds"] > 0 and len(report["eval"]) == 1
    assert json.loads((start / "imitation.json").read_text())["games"] == 4
    iteration = json.loads((tmp_path / "a" / "iter_000" / "report.json").read_text())
    assert iteration["network"] == str(start / "model.zip")
    # Its time is the training's: in wall_seconds from step 0 on.
    assert json.loads((tmp_path / "a" / "eval.json").read_text())[0]["wall_seconds"] == report["seconds"]

    made = (start / "model.zip").stat().st_mtime_ns
    again = exit_run.resume_run(tmp_path / "a", progress=False)
    assert (start / "model.zip").stat().st_mtime_ns == made
    assert again.metrics["examples"] == first.metrics["examples"]
    exit_run.start_run(config, "", tmp_path, "b", progress=False)
    assert policy_weights(start / "model.zip") == policy_weights(tmp_path / "b" / "start" / "model.zip")
    finals = [policy_weights(tmp_path / run / "final_model.zip") for run in ("a", "b")]
    assert finals[0] == finals[1]


def policy_weights(path):
    with zipfile.ZipFile(path) as z:
        return z.read("policy.pth")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"warm_start": {"imitation": {"teacher": "heuristic"}}}, "warm_start is for start: imitation"),
        ({**IMITATION, "warm_start": {"imitation": {"games": 4}}}, "warm_start.imitation.teacher"),
        ({**IMITATION, "warm_start": {**IMITATION["warm_start"], "seed": 3}}, "warm_start.seed"),
        ({**IMITATION, "warm_start": {**IMITATION["warm_start"], "policy_kwarg": {}}}, "policy_kwarg"),
        ({"examples": 0}, "examples must be a positive integer"),
        ({"eval": {"every_examples": -1}}, "eval.every_examples"),
    ],
)
def test_a_bad_budget_or_warm_start_is_refused_naming_it(change, message):
    with pytest.raises((OptionError, ValueError), match=message):
        ExItConfig.from_dict({**BUDGETED, **change})


def test_an_imitation_network_needs_a_teacher_and_writes_nothing_without_one(tmp_path):
    from boardenvs.core.options import make_options
    from boardenvs_agents.learning.config import TrainConfig
    from boardenvs_agents.learning.run import imitation_model

    with pytest.raises(OptionError, match="imitation.teacher"):
        imitation_model(make_options(TrainConfig, {"game": "sorry_v0"}), tmp_path / "start")
    assert not (tmp_path / "start").exists()
