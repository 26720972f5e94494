"""RLlib end to end on a local Ray (one ray.init for the module): a tiny training run of
scripts/train_rllib.py, no illegal action in rollouts, and the exported policy playing in the arena."""

import csv
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import ray

from boardenvs import make_game
from boardenvs.core.state import IllegalActionError
from boardenvs_agents.arena.match import play_game
from boardenvs_agents.registry import make_policy
from boardenvs_agents.rllib.config import load_rllib_config
from boardenvs_agents.rllib.module import MaskedPPOTorchRLModule
from boardenvs_agents.rllib.policy import RLlibPolicy, load_rllib_policy
from boardenvs_agents.rllib.training import (
    build_ppo_config,
    checkpoint_metadata,
    measure_sampling,
    save_checkpoint,
)

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "iterations=2",
    "checkpoint_every=1",
    "num_env_runners=0",
    "training.train_batch_size_per_learner=300",
    "training.minibatch_size=100",
    "training.num_epochs=1",
    "hidden=[32]",
    "eval.games=4",
]


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def sorry_run(local_ray, tmp_path_factory):
    """A two-iteration self-play run on two-player Sorry!, through the script."""
    runs = tmp_path_factory.mktemp("runs")
    argv = ["--config", str(ROOT / "configs/sorry_v0/rllib.yaml"), "--runs", str(runs), "--name", "tiny"]
    argv += [x for item in [*TINY, "game_options.num_players=2"] for x in ("--set", item)]
    metrics = load_script("train_rllib").run(argv)
    return runs / "tiny", metrics


def test_tiny_training_run(sorry_run):
    run_dir, metrics = sorry_run
    assert metrics["illegal_actions"] == 0
    assert 0 < metrics["actions_checked"] <= metrics["env_steps"]
    rows = list(csv.DictReader(open(run_dir / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert float(rows[-1]["env_steps"]) >= 600
    assert "return_shared" in rows[-1]
    # RLlib's checkpoints, each with our metadata; the final one is the run's agent.
    for checkpoint in (run_dir / "checkpoints" / "iter_000001", run_dir / "final"):
        meta = json.loads((checkpoint / "boardenvs_rllib.json").read_text())
        assert meta["game"] == "sorry_v0" and meta["options"]["num_players"] == 2
        assert meta["modules"] == {"player_0": "shared", "player_1": "shared"}
        assert (checkpoint / "learner_group" / "learner" / "rl_module" / "shared").is_dir()
    assert json.loads((run_dir / "metrics.json").read_text())["final_eval"][0]["opponent"] == "random"
    assert [rec["games"] for rec in metrics["final_eval"]] == [4, 4]


def test_exported_policy_plays_in_the_arena(sorry_run, capsys):
    run_dir, _ = sorry_run
    game = make_game("sorry_v0", num_players=2)
    policy = make_policy(f"rllib:{run_dir}", "sorry_v0", seed=0, game_options={"num_players": 2})
    assert isinstance(policy, RLlibPolicy) and policy.seats == [0, 1]
    heuristic = make_policy("heuristic", "sorry_v0")
    first = [play_game(game, [policy, heuristic], seed) for seed in range(3)]
    again = [play_game(game, [heuristic, policy], seed) for seed in range(3)]
    assert all(r.num_decisions > 0 and not r.truncated for r in first + again)
    assert [r.returns for r in first] == [
        r.returns for r in (play_game(game, [policy, heuristic], s) for s in range(3))
    ]
    sampler = make_policy(f"rllib:{run_dir},deterministic=false", "sorry_v0", seed=1)
    assert play_game(game, [sampler, sampler], seed=5).num_decisions > 0

    load_script("evaluate").main(
        ["--agent", f"rllib:{run_dir}", "--opponent", "random", "--game", "sorry_v0", "--num-players", "2",
         "--games", "4", "--no-progress"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert f"| rllib:{run_dir} | 4 |" in out

    with pytest.raises(ValueError, match="other options"):
        make_policy(f"rllib:{run_dir}", "sorry_v0", game_options={"num_players": 3})
    with pytest.raises(FileNotFoundError, match="not an RLlib checkpoint"):
        make_policy(f"rllib:{run_dir / 'nowhere'}", "sorry_v0")


def test_resume_continues_from_the_newest_checkpoint(sorry_run, tmp_path):
    run_dir, _ = sorry_run
    copy = tmp_path / "resumed"
    shutil.copytree(run_dir, copy)
    # Through the command's main, as boardenvs-train-rllib runs it: a finished run exits 0.
    status = load_script("train_rllib").main(
        ["--resume", str(copy), "--set", "iterations=3", "--set", "eval.games=2"]
    )
    assert status == 0
    metrics = json.loads((copy / "metrics.json").read_text())
    rows = list(csv.DictReader(open(copy / "progress.csv")))
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3]
    assert float(rows[-1]["env_steps"]) > float(rows[1]["env_steps"])  # counters restored, then grown
    assert json.loads((copy / "final" / "boardenvs_rllib.json").read_text())["iteration"] == 3
    assert metrics["illegal_actions"] == 0


def test_no_illegal_action_reaches_the_env_in_rollouts(local_ray, tmp_path):
    """Gangsi, one module per role with different spaces: every action of every rollout is legal."""
    config = load_rllib_config(ROOT / "configs/gangsi_v0/rllib.yaml", [*TINY, "game_options.num_players=3"])
    algo = build_ppo_config(config).build_algo()
    try:
        algo.train()
        runner = algo.env_runner
        env = runner.env.envs[0].unwrapped
        checked_before = env.num_actions_checked
        episodes = runner.sample(num_episodes=3, explore=True)
        actions = 0
        modules = set()
        for episode in episodes:
            for agent, sa in episode.agent_episodes.items():
                masks = np.asarray(sa.get_observations(slice(0, len(sa)))["action_mask"])
                taken = np.asarray(sa.get_actions(slice(0, len(sa))))
                assert masks[np.arange(len(sa)), taken].all(), f"{agent} took an action outside its mask"
                actions += len(sa)
                modules.add(sa.module_id)
        assert modules == {"kyonshi", "hunter"}
        assert env.num_actions_checked - checked_before == actions  # every action went through the check
        assert env.num_illegal_actions == 0
        path = save_checkpoint(algo, tmp_path / "ckpt", checkpoint_metadata(config, 1))
    finally:
        algo.stop()

    # The per-role export plays both roles, in every seat.
    policy = load_rllib_policy(path, "gangsi_v0", {"num_players": 3}, seed=0)
    assert set(policy.modules) == {"kyonshi", "hunter"}
    game = make_game("gangsi_v0", num_players=3)
    heuristic = make_policy("heuristic", "gangsi_v0")
    for seating in ([policy, heuristic, heuristic], [heuristic, policy, policy], [policy] * 3):
        assert play_game(game, seating, seed=2).num_decisions > 0


class UnmaskedModule(MaskedPPOTorchRLModule):
    """A broken module that forgets the mask: the env must stop it."""

    def _forward(self, batch, **kwargs):
        inner, _ = self._split(batch)
        return super(MaskedPPOTorchRLModule, self)._forward(inner, **kwargs)


def test_an_unmasked_module_is_stopped_by_the_env(local_ray):
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    config = load_rllib_config(ROOT / "configs/sorry_v0/rllib.yaml", TINY)
    ppo = build_ppo_config(config).rl_module(
        rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={"shared": RLModuleSpec(module_class=UnmaskedModule)}
        )
    )
    algo = ppo.build_algo()
    try:
        with pytest.raises(RuntimeError) as err:
            algo.env_runner.sample(num_episodes=1, explore=True)
        cause = err.value
        while cause is not None and not isinstance(cause, IllegalActionError):
            cause = cause.__cause__
        assert isinstance(cause, IllegalActionError)
        assert algo.env_runner.env.envs[0].unwrapped.num_illegal_actions == 1
    finally:
        algo.stop()


def test_measure_sampling_counts_env_steps(local_ray):
    config = load_rllib_config(ROOT / "configs/sorry_v0/rllib.yaml", [*TINY, "rollout_fragment_length=100"])
    algo = build_ppo_config(config).build_algo()
    try:
        env = algo.env_runner.env.envs[0].unwrapped
        result = measure_sampling(algo, 250)
        # Warm-up round of 100, then 3 rounds: 300 steps, each one action checked by the env (shared).
        assert result["env_steps"] == 300 and env.num_actions_checked == 400
        assert result["env_steps_per_s"] > 0 and result["num_env_runners"] == 0
    finally:
        algo.stop()
