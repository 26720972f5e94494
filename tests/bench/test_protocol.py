"""The benchmark protocol: the configs it makes, a run's results files, skipping and resuming runs."""

import csv
import json
import zipfile

import pytest

from boardenvs.core.options import OptionError
from boardenvs_agents.bench import protocol
from boardenvs_agents.bench.protocol import COLUMNS, RunSpec, grid, read_results, role_rows, run_config
from boardenvs_agents.bench.suite import EVAL_SEED, STANDARD, Protocol, get_task

#: A few hundred steps: PPO's rollouts of 2 envs x 64 steps, three evaluations of 4 games.
TINY = Protocol(budget=384, eval_every=128, eval_games=4, final_games=(("random", 2), ("heuristic", 4)))
SMALL_PPO = ("hyperparameters.n_steps=64", "hyperparameters.batch_size=64", "checkpoint_every=128")


def test_the_config_is_the_algorithms_with_the_protocols_keys():
    config = run_config(RunSpec("ppo", "gangsi_v0_3h", 3))
    assert (config.game, config.game_options, config.seed) == ("gangsi_v0", {"num_players": 4}, 3)
    assert config.total_timesteps == STANDARD.budget and config.learner_seat is None
    assert config.eval.opponents == ("random", "heuristic") and config.eval.seed == EVAL_SEED
    # Every run of every algorithm is evaluated on the same games; the algorithm's hyperparameters stay.
    dqn, ppo = run_config(RunSpec("dqn", "sorry_v0_4p", 0)), run_config(RunSpec("ppo", "sorry_v0_4p", 4))
    assert dqn.eval == ppo.eval
    assert run_config(RunSpec("ppo_bc", "sorry_v0_4p", 0)).imitation.teacher == "heuristic"


def test_a_config_may_not_set_the_protocols_keys(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("algo: ppo\nseed: 3\ntotal_timesteps: 5000000\n")
    with pytest.raises(OptionError, match=r"\['seed', 'total_timesteps'\] are the benchmark protocol's"):
        run_config(RunSpec(str(mine), "sorry_v0_4p", 0))
    with pytest.raises(OptionError, match="unknown|hyperparameters"):
        run_config(RunSpec("ppo", "sorry_v0_4p", 0, ("hyperparameters.no_such_key=1",)))
    assert RunSpec(str(mine), "sorry_v0_4p", 0).label == "mine"


def test_an_algorithm_with_a_runner_of_its_own_is_refused_with_a_reason(tmp_path):
    mine = tmp_path / "exit.yaml"
    mine.write_text("algo: exit\n")
    with pytest.raises(OptionError, match="runner of its own"):
        run_config(RunSpec(str(mine), "sorry_v0_4p", 0))


def test_the_grid_goes_by_algorithm_then_seed_and_names_bad_tasks():
    specs = grid(["ppo", "dqn"], ["sorry_v0_2p", "gangsi_v0_3h"], [0, 1])
    assert [(s.algo, s.seed, s.task) for s in specs[:3]] == [
        ("ppo", 0, "sorry_v0_2p"), ("ppo", 0, "gangsi_v0_3h"), ("ppo", 1, "sorry_v0_2p")
    ]  # fmt: skip
    assert len(specs) == 8 and len(grid(["ppo"])) == 30
    with pytest.raises(ValueError, match="unknown task"):
        grid(["ppo"], ["go_19x19"])


def test_role_rows_split_gangsi_by_role():
    rec = {"games": 8, "wins": 3, "per_seat": [[2, 2], [2, 1], [2, 0], [2, 0]]}
    rows = role_rows(get_task("gangsi_v0_3h"), rec)
    expected = [("all", 8, 3), ("kyonshi", 2, 2), ("hunter", 6, 1)]
    assert [(r["role"], r["games"], r["wins"]) for r in rows] == expected
    assert [r["role"] for r in role_rows(get_task("sorry_v0_4p"), rec)] == ["all"]


def results_without_seconds(path):
    return [{k: v for k, v in row.items() if k != "wall_seconds"} for row in read_results(path)]


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    spec = RunSpec("ppo", "gangsi_v0_3h", 1, SMALL_PPO)
    return spec, protocol.run_one(spec, out, TINY)


def test_a_run_writes_its_results_and_keeps_only_what_it_needs(whole):
    spec, path = whole
    rows = read_results(path)
    with open(path, newline="") as f:
        assert tuple(next(csv.reader(f))) == COLUMNS
    curve = [r for r in rows if r["phase"] == "curve" and r["role"] == "all"]
    assert [r["step"] for r in curve if r["pool"] == "heuristic"] == [128, 256, 384]
    final = {(r["pool"], r["role"]): r for r in rows if r["phase"] == "final"}
    assert final[("heuristic", "all")]["games"] == 4 and final[("random", "all")]["games"] == 4  # x seats
    assert final[("heuristic", "kyonshi")]["games"] + final[("heuristic", "hunter")]["games"] == 4
    steps = [r["wall_seconds"] for r in curve if r["pool"] == "heuristic"]
    assert steps == sorted(steps) and steps[0] > 0
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["suite"] == "boardenvs-bench-v1" and meta["protocol"]["budget"] == 384
    assert meta["config"]["game"] == "gangsi_v0" and meta["steps"] == 384
    train = path.parents[3] / "train" / "ppo" / "gangsi_v0_3h" / "seed_1"
    assert (train / "final_model.zip").is_file() and not (train / "checkpoint").exists()


def test_a_finished_run_is_not_run_again(whole, monkeypatch):
    spec, path = whole
    before = path.read_text()
    monkeypatch.setattr(protocol, "run_config", lambda *a: pytest.fail("a finished run was configured again"))
    assert protocol.run_one(spec, path.parents[3], TINY) == path and path.read_text() == before


def test_a_stopped_run_resumes_to_the_results_of_one_never_stopped(whole, tmp_path, monkeypatch):
    from boardenvs_agents.learning import training

    spec, path = whole
    calls = []
    evaluate = training.EvaluationCallback.evaluate

    def stop_at_the_second(self):
        calls.append(self.model.num_timesteps)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a kill after the first checkpoint (step 128)
        return evaluate(self)

    monkeypatch.setattr(training.EvaluationCallback, "evaluate", stop_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        protocol.run_one(spec, tmp_path, TINY)
    assert not spec.results_file(tmp_path).exists()
    monkeypatch.setattr(training.EvaluationCallback, "evaluate", evaluate)
    resumed = protocol.run_one(spec, tmp_path, TINY)
    assert results_without_seconds(resumed) == results_without_seconds(path)
    assert weights(tmp_path, spec) == weights(path.parents[3], spec)


def weights(out, spec):
    with zipfile.ZipFile(spec.train_dir(out) / "final_model.zip") as z:
        return z.read("policy.pth")


def test_another_seed_trains_another_network_on_the_same_evaluation_games(whole, tmp_path):
    spec, path = whole
    other = RunSpec("ppo", "gangsi_v0_3h", 2, SMALL_PPO)
    protocol.run_one(other, tmp_path, TINY)
    assert weights(tmp_path, other) != weights(path.parents[3], spec)
    metas = [p.with_suffix(".json") for p in (path, other.results_file(tmp_path))]
    seeds = {json.loads(p.read_text())["config"]["eval"]["seed"] for p in metas}
    assert seeds == {EVAL_SEED}


def test_run_all_in_two_processes_gives_the_results_of_one(whole, tmp_path):
    spec, path = whole
    specs = [spec, RunSpec("ppo", "sorry_v0_2p", 0, SMALL_PPO)]
    files = protocol.run_all(specs, tmp_path, jobs=2, protocol=TINY)
    assert results_without_seconds(files[0]) == results_without_seconds(path)
    assert [f.exists() for f in files] == [True, True]
    with pytest.raises(ValueError, match="backend"):
        protocol.run_all(specs, tmp_path, backend="slurm")


@pytest.mark.parametrize("algo", ["ppo", "ppo_bc", "dqn"])
def test_every_benchmark_config_makes_a_run_of_every_task(algo):
    from boardenvs_agents.bench.suite import TASKS

    for task in TASKS:
        config = run_config(RunSpec(algo, task.name, 0))
        assert config.algo == algo.partition("_")[0] and config.game_options == task.options
