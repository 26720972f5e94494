"""Expert iteration's self-play on Ray actors (boardenvs_agents.learning.expert, backend ``ray``): the
same examples as in this process for the same seed, on a local Ray that the test starts, and on one
that ``generate`` starts and stops itself."""

import dataclasses

import pytest
import ray

from boardenvs import make_game
from boardenvs_agents.learning.expert import SelfPlayConfig, frozen_evaluator, generate

OPTIONS = {"num_players": 2}
CONFIG = SelfPlayConfig(
    game="sorry_v0",
    game_options=OPTIONS,
    games=4,
    seed=5,
    search={"sims": 4},
    opponents={"self": 0.7, "heuristic": 0.3},
    chunk_games=2,
)


@pytest.fixture(scope="module")
def network():
    return frozen_evaluator("ppo:sorry_v0", make_game("sorry_v0", **OPTIONS))


@pytest.fixture(scope="module")
def local(network):
    return generate(CONFIG, network)


def test_ray_actors_give_the_local_examples(network, local, tmp_path):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = generate(dataclasses.replace(CONFIG, backend="ray", workers=2), network, out=tmp_path)
        assert ray.is_initialized()  # a Ray started by the caller is left running
    finally:
        ray.shutdown()
    assert len(local) > 0 and on_ray.equals(local)
    assert sorted(p.name for p in tmp_path.glob("chunk_*.npz")) == ["chunk_000000.npz", "chunk_000001.npz"]


def test_generate_starts_and_stops_a_local_ray_of_its_own(network, local):
    assert not ray.is_initialized()
    one_actor = generate(dataclasses.replace(CONFIG, backend="ray", workers=1), network)
    assert not ray.is_initialized()
    assert one_actor.equals(local)
