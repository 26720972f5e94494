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


def test_expert_iteration_gets_the_budget_in_searched_decisions_and_the_same_evaluation():
    from boardenvs_agents.learning.expert.iterate import ExItConfig

    config = run_config(RunSpec("exit", "gangsi_v0_3h", 3))
    ppo = run_config(RunSpec("ppo", "gangsi_v0_3h", 3))
    assert isinstance(config, ExItConfig) and config.examples == STANDARD.budget
    assert (config.game, config.game_options, config.seed) == (ppo.game, ppo.game_options, 3)
    assert config.start == "imitation" and config.warm_start_config().imitation.teacher == "heuristic"
    assert config.search["sims"] == 16  # a budget in simulations, never seconds
    # The evaluation of every other algorithm: its pools, games and seeds, at the same points in steps.
    assert (config.eval.opponents, config.eval.games, config.eval.seed) == (
        ppo.eval.opponents, ppo.eval.games, EVAL_SEED
    )  # fmt: skip
    assert config.eval.every_examples == ppo.eval.every == STANDARD.eval_every and config.eval.at_start


def test_an_expert_iteration_config_is_checked_and_may_not_set_the_budget(tmp_path):
    mine = tmp_path / "exit.yaml"
    mine.write_text("algo: exit\n")
    with pytest.raises(OptionError, match="'start' is required"):
        run_config(RunSpec(str(mine), "sorry_v0_4p", 0))
    mine.write_text("algo: exit\nstart: imitation\nexamples: 5000000\n")
    with pytest.raises(OptionError, match=r"\['examples'\] are the benchmark protocol's"):
        run_config(RunSpec(str(mine), "sorry_v0_4p", 0))
    mine.write_text("algo: exit\nstart: imitation\n")
    with pytest.raises(OptionError, match="warm_start.imitation.teacher"):
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


@pytest.mark.parametrize("algo", ["ppo", "ppo_bc", "dqn", "exit"])
def test_every_benchmark_config_makes_a_run_of_every_task(algo):
    from boardenvs_agents.bench.suite import TASKS

    for task in TASKS:
        config = run_config(RunSpec(algo, task.name, 0))
        assert config.algo == algo.partition("_")[0] and config.game_options == task.options


#: Expert iteration in a few hundred searched decisions: a start cloned from 4 heuristic games, 2 games an
#: iteration, 2 simulations.
SMALL_EXIT = (
    "warm_start.imitation.games=4", "warm_start.imitation.epochs=1",
    "warm_start.policy_kwargs.net_arch=[32,32]", "games=2", "search.sims=2", "fit.epochs=1",
    "selfplay.chunk_games=1",
)  # fmt: skip
TINY_EXIT = Protocol(budget=300, eval_every=150, eval_games=2, final_games=(("random", 2), ("heuristic", 2)))


@pytest.fixture(scope="module")
def exit_whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("exit_whole")
    spec = RunSpec("exit", "sorry_v0_2p", 0, SMALL_EXIT)
    return spec, protocol.run_one(spec, out, TINY_EXIT)


def test_an_expert_iteration_run_writes_results_from_its_start_to_its_budget(exit_whole):
    spec, path = exit_whole
    rows = read_results(path)
    curve = [r for r in rows if r["phase"] == "curve" and r["role"] == "all" and r["pool"] == "heuristic"]
    steps = [r["step"] for r in curve]
    assert steps[0] == 0 and steps[-1] >= 300 and steps == sorted(steps) and len(steps) >= 3
    assert [s // 150 for s in steps[1:-1]] == list(range(1, len(steps) - 1))  # one past each point
    seconds = [r["wall_seconds"] for r in curve]
    assert seconds[0] > 0 and seconds == sorted(seconds)  # the warm start's time counts, as ppo_bc's
    final = {r["pool"]: r for r in rows if r["phase"] == "final"}
    assert final["heuristic"]["games"] == final["random"]["games"] == 2
    assert final["heuristic"]["step"] == steps[-1]
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["algo"] == "exit" and meta["steps"] == steps[-1] and meta["config"]["examples"] == 300
    train = spec.train_dir(path.parents[3])
    assert (train / "final_model.zip").is_file() and (train / "start" / "model.zip").is_file()
    assert not list(train.glob("iter_*/data"))  # the self-play examples go once the results are written


def test_a_stopped_expert_iteration_run_resumes_to_the_results_of_one_never_stopped(
    exit_whole, tmp_path, monkeypatch
):
    from boardenvs_agents.learning.expert import iterate

    spec, path = exit_whole
    calls = []
    fit = iterate.fit

    def stop_at_the_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a kill in the second iteration, after its self-play
        return fit(*args, **kwargs)

    monkeypatch.setattr(iterate, "fit", stop_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        protocol.run_one(spec, tmp_path, TINY_EXIT)
    assert not spec.results_file(tmp_path).exists()
    monkeypatch.setattr(iterate, "fit", fit)
    resumed = protocol.run_one(spec, tmp_path, TINY_EXIT)
    assert results_without_seconds(resumed) == results_without_seconds(path)
    assert weights(tmp_path, spec) == weights(path.parents[3], spec)
