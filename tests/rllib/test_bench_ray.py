"""The benchmark's runs as Ray tasks (boardenvs_agents.bench.protocol, backend ``ray``): one task a run,
the same results as the runs in this process, on a local Ray that the test starts."""

import ray

from boardenvs_agents.bench import protocol
from boardenvs_agents.bench.protocol import RunSpec, read_results
from boardenvs_agents.bench.suite import Protocol

TINY = Protocol(budget=256, eval_every=128, eval_games=2, final_games=(("random", 2), ("heuristic", 2)))
SMALL = ("hyperparameters.n_steps=64", "hyperparameters.batch_size=64", "checkpoint_every=128")


def without_seconds(path):
    return [{k: v for k, v in row.items() if k != "wall_seconds"} for row in read_results(path)]


def test_ray_tasks_give_the_results_of_local_runs(tmp_path):
    specs = [RunSpec("ppo", "sorry_v0_2p", 0, SMALL), RunSpec("dqn", "lost_city_v0_2p", 1)]
    local = [protocol.run_one(s, tmp_path / "local", TINY) for s in specs]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = protocol.run_all(specs, tmp_path / "ray", backend="ray", protocol=TINY)
        assert ray.is_initialized()  # a Ray started by the caller is left running
    finally:
        ray.shutdown()
    assert [without_seconds(p) for p in on_ray] == [without_seconds(p) for p in local]
