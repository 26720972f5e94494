"""Expert iteration's self-play data (boardenvs_agents.learning.expert): what an example holds, the same
examples whatever the backend and workers, saving, and resuming a stopped run.

Two-player Sorry! with the shipped two-player model and 6 simulations a decision: a game takes a tenth
of a second."""

import dataclasses
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.loop import derive_seeds, play_game
from boardenvs.core.options import OptionError
from boardenvs_agents.learning.evaluator import NetworkEvaluator
from boardenvs_agents.learning.expert import (
    Dataset,
    GamePlayer,
    SelfPlayConfig,
    frozen_evaluator,
    generate,
    network_key,
    search_policy,
)
from boardenvs_agents.learning.expert import selfplay as selfplay_module
from boardenvs_agents.learning.expert.chunks import MANIFEST_NAME
from boardenvs_agents.learning.expert.games import draw_lineup
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.mcts import MCTSPolicy

OPTIONS = {"num_players": 2}
CONFIG = SelfPlayConfig(
    game="sorry_v0", game_options=OPTIONS, games=6, seed=11, search={"sims": 6}, chunk_games=2
)


@pytest.fixture(scope="module")
def network():
    """The shipped two-player Sorry! model, frozen to numpy weights."""
    return frozen_evaluator(
        make_policy("ppo:sorry_v0", "sorry_v0", game_options=OPTIONS), make_game("sorry_v0", **OPTIONS)
    )


@pytest.fixture(scope="module")
def data(network):
    return generate(CONFIG, network)


# -- the network the workers get ------------------------------------------------------------------
def test_frozen_evaluator_holds_numpy_weights_and_answers_as_the_model(network):
    game = make_game("sorry_v0", **OPTIONS)
    model = make_policy("ppo:sorry_v0", "sorry_v0", game_options=OPTIONS)
    assert model.model is not None and network.policy.model is None
    assert len(pickle.dumps(network)) < 4_000_000
    full = NetworkEvaluator(model)
    copy = pickle.loads(pickle.dumps(network))
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.current_player() < 0 or len(state.legal_actions()) < 2:
        state.apply_action(
            state.sample_chance(rng) if state.current_player() < 0 else state.legal_actions()[0]
        )
    assert copy.evaluate([state.clone()], rng) == full.evaluate([state.clone()], rng)
    assert network_key(copy) == network_key(frozen_evaluator(model, game))
    # The spec and the policy freeze to the same weights.
    assert network_key(frozen_evaluator("ppo:sorry_v0", game)) == network_key(network)


def test_frozen_evaluator_refuses_what_is_no_policy_value_network_of_the_game():
    game = make_game("sorry_v0", num_players=4)
    with pytest.raises(ValueError, match="not a policy's logits"):
        frozen_evaluator("dqn:sorry_v0", game)
    two_players = frozen_evaluator("ppo:sorry_v0", make_game("sorry_v0", num_players=2))
    with pytest.raises(ValueError, match="was trained for sorry_v0 with .*'num_players': 2"):
        frozen_evaluator(two_players, game)


# -- the examples ---------------------------------------------------------------------------------
def test_search_policy_reads_the_searchs_target():
    target = search_policy({"target": {3: 0.25, 5: 0.75}, "visits": {3: 2, 5: 6, 7: 0}}, 9, played=5)
    assert target.dtype == np.float32
    assert target.tolist() == pytest.approx([0, 0, 0, 0.25, 0, 0.75, 0, 0, 0])
    # No target stated (nothing searched): the move played.
    assert search_policy({"target": None, "visits": {6: 0}}, 9, played=6).tolist() == [0] * 6 + [1, 0, 0]


def test_search_policy_of_a_real_search_is_its_visit_distribution_or_gumbels_improved_policy():
    game = make_game("sorry_v0", num_players=2)
    state, rng = game.new_initial_state(), np.random.default_rng(3)
    while state.is_chance_node() or len(state.legal_actions()) < 3:
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    size = game.num_actions(state.current_player())
    for spec in ("mcts:sims=12,depth=4,leaf=eval", "mcts:sims=8,selection=gumbel,depth=4,leaf=eval"):
        search = make_policy(spec, "sorry_v0", seed=0, game_options={"num_players": 2})
        played = search.act(state)
        target = search_policy(search.last_search, size, played)
        assert target.sum() == pytest.approx(1.0)
        assert set(np.flatnonzero(target)) <= set(state.legal_actions())
        if "gumbel" in spec:
            assert dict(enumerate(target)) == pytest.approx(
                {a: search.last_search["improved_policy"].get(a, 0.0) for a in range(size)}
            )
        else:
            visits = search.last_search["visits"]
            assert target[played] == pytest.approx(visits[played] / sum(visits.values()))


def test_targets_are_distributions_over_the_legal_actions(data):
    assert len(data) > 100 and sorted(set(data.games.tolist())) == list(range(CONFIG.games))
    assert np.allclose(data.policies.sum(axis=1), 1.0, atol=1e-6)
    assert not data.policies[~data.masks].any()
    assert (data.policies >= 0).all()
    assert (data.masks.sum(axis=1) >= 2).all()  # forced moves are no examples by default
    assert data.observations.dtype == np.float32 and data.masks.dtype == bool


class _Watcher:
    """Records what the network sees, what the search found and the move played at every decision
    with a choice of the ``seats`` (``None``: every seat)."""

    def __init__(self, actors, encoder, seats=None):
        self.actors, self.encoder, self.seats, self.rows = actors, encoder, seats, []

    def before(self, state, player, action):
        if player >= 0 and (self.seats is None or player in self.seats) and len(state.legal_actions()) > 1:
            observation, mask = self.encoder.encode(state)
            search = self.actors[player].last_search
            self.rows.append((player, observation, mask, search_policy(search, len(mask), action), action))

    def after(self, state):
        pass

    def result(self, state):
        return {}


def test_examples_are_the_searches_of_the_game_the_search_alone_plays(data, network):
    """Every example is a decision of the game MCTS with the network plays alone from the same seed:
    the observation and mask the network encodes there, the visit distribution of its search, the
    seat, and the seat's final return."""
    game = make_game("sorry_v0", **OPTIONS)
    seeds = derive_seeds(CONFIG.seed, CONFIG.games)
    for index in range(CONFIG.games):
        actors = [MCTSPolicy(sims=6, evaluator=network) for _ in range(2)]
        watcher = _Watcher(actors, network.policy)
        played = play_game(game, actors, seeds[index], observer=watcher)
        rows = data.select(data.games == index)
        assert len(rows) == len(watcher.rows)
        assert rows.seats.tolist() == [r[0] for r in watcher.rows]
        assert np.array_equal(rows.observations, np.stack([r[1] for r in watcher.rows]))
        assert np.array_equal(rows.masks, np.stack([r[2] for r in watcher.rows]))
        assert np.array_equal(rows.policies, np.stack([r[3] for r in watcher.rows]))
        returns = np.asarray(played.returns, dtype=np.float32)
        assert np.array_equal(rows.values, returns[rows.seats])
        assert np.array_equal(rows.returns, np.tile(returns, (len(rows), 1)))
        assert sorted(set(rows.values.tolist())) == [-1.0, 1.0]  # one winner, one loser


def test_opponents_and_searching_seats_are_drawn_per_game_from_its_seed(network):
    mixed = dataclasses.replace(CONFIG, games=8, opponents={"self": 0.5, "heuristic": 0.5})
    seeds = derive_seeds(mixed.seed, mixed.games)
    lineups = [draw_lineup(mixed, seed, 2) for seed in seeds]
    assert lineups == [draw_lineup(mixed, seed, 2) for seed in seeds]
    assert all("self" in lineup for lineup in lineups)  # search_seats null: one seat always searches
    assert {tuple(lineup) for lineup in lineups} >= {("self", "heuristic"), ("heuristic", "self")}
    data = generate(mixed, network)
    for index, lineup in enumerate(lineups):
        seats = set(data.seats[data.games == index].tolist())
        assert seats == {seat for seat, kind in enumerate(lineup) if kind == "self"}
    fixed = dataclasses.replace(CONFIG, games=2, search_seats=(1,), opponents={"heuristic": 1.0})
    assert set(generate(fixed, network).seats.tolist()) == {1}


def test_forced_decisions_are_recorded_when_asked(network):
    config = dataclasses.replace(CONFIG, games=2, record_forced=True)
    data = generate(config, network)
    forced = data.masks.sum(axis=1) == 1
    assert forced.any()
    assert np.array_equal(data.policies[forced], data.masks[forced].astype(np.float32))


def test_temperature_draws_early_moves_from_the_visits_reproducibly(data, network):
    warm = dataclasses.replace(CONFIG, games=3, temperature_moves=30, temperature=2.0)
    first = generate(warm, network)
    assert first.equals(generate(warm, network))
    assert not first.equals(data.select(data.games < 3))
    assert np.allclose(first.policies.sum(axis=1), 1.0, atol=1e-6)


ROLLOUTS = {"rounds": 3, "opponents": "heuristic", "depth": 2, "leaf": "value", "top": 2}


def test_rollouts_as_the_search_target_the_moves_the_rollouts_spec_plays(network):
    """With ``searcher: rollouts``, a searching seat plays as the rollouts spec over the same model
    (the frozen network's scores and value head are the model's), and each example's target is the
    move played, on the legal actions; the same examples from a pool of processes."""
    config = dataclasses.replace(
        CONFIG, games=2, search=ROLLOUTS, searcher="rollouts", search_seats=(0,), opponents={"heuristic": 1.0}
    )
    data = generate(config, network)
    spec = "rollouts:policy=ppo:sorry_v0,opponents=heuristic,depth=2,leaf=value,top=2,rounds=3,seconds=none"
    game = make_game("sorry_v0", **OPTIONS)
    seeds = derive_seeds(config.seed, config.games)
    for index in range(config.games):
        actors = [make_policy(name, "sorry_v0", game_options=OPTIONS) for name in (spec, "heuristic")]
        watcher = _Watcher(actors, network.policy, seats={0})
        play_game(game, actors, seeds[index], observer=watcher)
        rows = data.select(data.games == index)
        assert len(rows) == len(watcher.rows) > 10 and set(rows.seats.tolist()) == {0}
        assert np.array_equal(rows.observations, np.stack([r[1] for r in watcher.rows]))
        targets = np.zeros_like(rows.policies)
        targets[np.arange(len(rows)), [r[4] for r in watcher.rows]] = 1.0
        assert np.array_equal(rows.policies, targets)
    assert not data.policies[~data.masks].any()
    assert generate(dataclasses.replace(config, backend="process", workers=2), network).equals(data)


# -- the same examples whatever plays them --------------------------------------------------------
def test_same_seed_same_dataset_across_backends_and_workers(data, network):
    processes = generate(dataclasses.replace(CONFIG, backend="process", workers=2), network)
    assert processes.equals(data)
    # A shorter run plays the first games of a longer one.
    assert generate(dataclasses.replace(CONFIG, games=3), network).equals(data.select(data.games < 3))


def test_different_seeds_differ(data, network):
    other = generate(dataclasses.replace(CONFIG, seed=12), network)
    assert len(other) != len(data) or not np.array_equal(other.observations, data.observations)


def test_the_ray_backend_names_its_extra_when_ray_is_missing(network, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    with pytest.raises(ImportError, match=r"rllib extra") as err:
        generate(dataclasses.replace(CONFIG, backend="ray", workers=2), network)
    assert "\n" not in str(err.value)


# -- the dataset ----------------------------------------------------------------------------------
def test_dataset_save_load_concatenate_and_size(data, tmp_path):
    path = data.save(tmp_path / "examples")
    assert path.name == "examples.npz"
    loaded = Dataset.load(path)
    assert loaded.equals(data)
    assert loaded.nbytes == len(data) * Dataset.example_bytes(*data.shapes)
    assert Dataset.example_bytes(843, 79, 4) == 3793  # four-player Sorry!, as the docs say
    halves = Dataset.concatenate([data.select(slice(0, 10)), data.select(slice(10, None))])
    assert halves.equals(data)
    with pytest.raises(ValueError, match="different sizes"):
        Dataset.concatenate([data, Dataset.empty(5, 79, 2)])
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not an expert-iteration dataset"):
        Dataset.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="float32"):
        dataclasses.replace(data, values=data.values.astype(np.float64))


# -- stopping and resuming ------------------------------------------------------------------------
def test_a_killed_run_resumes_from_its_finished_chunks_and_ends_identical(
    data, network, tmp_path, monkeypatch
):
    real = selfplay_module.play_games

    def killed_after_three(*args, **kwargs):
        for k, item in enumerate(real(*args, **kwargs)):
            if k == 3:
                raise KeyboardInterrupt  # game 3 (the second of chunk 1) never arrives
            yield item

    monkeypatch.setattr(selfplay_module, "play_games", killed_after_three)
    with pytest.raises(KeyboardInterrupt):
        generate(CONFIG, network, out=tmp_path)
    assert sorted(p.name for p in tmp_path.glob("chunk_*.npz")) == ["chunk_000000.npz"]
    monkeypatch.setattr(selfplay_module, "play_games", real)
    (tmp_path / ".chunk_000001.npz.tmp999").write_bytes(b"half a write")

    played = []
    real_play = GamePlayer.play

    def counting(self, index):
        played.append(index)
        return real_play(self, index)

    monkeypatch.setattr(GamePlayer, "play", counting)
    resumed = generate(CONFIG, network, out=tmp_path)
    assert played == [2, 3, 4, 5]  # chunk 0 (games 0 and 1) is read, not played again
    assert resumed.equals(data)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "chunk_000000.npz", "chunk_000001.npz", "chunk_000002.npz", MANIFEST_NAME
    ]  # fmt: skip
    # Once finished, a rerun plays nothing and reads the same examples, whatever the backend.
    played.clear()
    assert generate(dataclasses.replace(CONFIG, backend="process", workers=2), network, out=tmp_path).equals(
        data
    )
    assert played == []


KILLED_RUN = """
import os, pickle, signal, sys
from boardenvs_agents.learning.expert import GamePlayer, generate

config, network, out = pickle.load(open(sys.argv[1], "rb"))
play = GamePlayer.play

def play_or_die(self, index):
    if index == 5:  # in the middle of chunk 2 (games 4 and 5): game 4 is played, its chunk unwritten
        os.kill(os.getpid(), signal.SIGKILL)
    return play(self, index)

GamePlayer.play = play_or_die
generate(config, network, out=out)
"""


def test_a_run_killed_by_sigkill_loses_only_its_unfinished_chunk(data, network, tmp_path, monkeypatch):
    out = tmp_path / "run"
    job = tmp_path / "job.pkl"
    job.write_bytes(pickle.dumps((CONFIG, network, out)))
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(KILLED_RUN))
    killed = subprocess.run([sys.executable, str(script), str(job)], capture_output=True, timeout=300)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    assert sorted(p.name for p in out.glob("chunk_*.npz")) == ["chunk_000000.npz", "chunk_000001.npz"]
    played = []
    real_play = GamePlayer.play
    monkeypatch.setattr(
        GamePlayer, "play", lambda self, index: played.append(index) or real_play(self, index)
    )
    assert generate(CONFIG, network, out=out).equals(data)
    assert played == [4, 5]


def test_a_folder_of_another_run_is_refused(network, tmp_path):
    generate(dataclasses.replace(CONFIG, games=2), network, out=tmp_path)
    with pytest.raises(ValueError, match=r"another self-play run .*'config'"):
        generate(dataclasses.replace(CONFIG, games=2, seed=12), network, out=tmp_path)


# -- the config -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"backend": "spark"}, "backend must be one of"),
        ({"workers": 2}, "backend 'local' plays in this process"),
        ({"search": {"sims": 8, "seconds": 0.1}}, "'seconds' is not for self-play"),
        ({"search": {"evaluator": "rollout"}}, "'evaluator' is not for self-play"),
        ({"opponents": {"self": -1.0, "heuristic": 1.0}}, "non-negative weights"),
        ({"opponents": {"self": 0.0}}, "positive sum"),
        ({"games": 0}, "games must be a positive integer"),
        ({"search_seats": (0, 0)}, "search_seats must be distinct"),
        ({"temperature": 0.0}, "temperature must be positive"),
        ({"game": ""}, "'game' is required"),
        ({"searcher": "beam"}, "searcher must be one of"),
        ({"searcher": "rollouts", "search": {"rounds": 4, "policy": "heuristic"}}, "'policy' is not for"),
        ({"searcher": "rollouts", "search": {"rounds": 4, "seconds": 0.1}}, "'seconds' is not for"),
        ({"searcher": "rollouts", "search": {"depth": 4}}, "needs search.rounds"),
        ({"searcher": "rollouts", "search": {"rounds": 4}, "temperature_moves": 3}, "rollouts have none"),
    ],
)
def test_bad_configs_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(CONFIG, **changes)


def test_config_errors_found_with_the_game(network):
    with pytest.raises(ValueError, match="has 2 seats"):
        generate(dataclasses.replace(CONFIG, search_seats=(2,)), network)
    with pytest.raises(ValueError, match="bad search options"):
        generate(dataclasses.replace(CONFIG, search={"simulations": 4}), network)
    with pytest.raises(ValueError, match="rollouts: unknown option 'sims'"):
        generate(dataclasses.replace(CONFIG, searcher="rollouts", search={"rounds": 4, "sims": 4}), network)
    with pytest.raises(ValueError, match="rollouts: rounds must be"):
        generate(dataclasses.replace(CONFIG, searcher="rollouts", search={"rounds": 1}), network)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        generate(dataclasses.replace(CONFIG, opponents={"self": 1.0, "nobody": 1.0}), network)


def test_config_from_a_mapping_checks_keys_and_types():
    config = SelfPlayConfig.from_dict(
        {"game": "sorry_v0", "search_seats": [0], "backend": "process", "workers": 2}
    )
    assert config.search_seats == (0,) and config.to_dict()["search_seats"] == [0]
    assert "workers" not in config.data_dict() and "backend" not in config.data_dict()
    with pytest.raises(OptionError, match="unknown option 'sims'"):
        SelfPlayConfig.from_dict({"game": "sorry_v0", "sims": 8})
