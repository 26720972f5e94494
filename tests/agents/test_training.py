"""Training: configs checked up front, models saved with metadata and refused for the wrong game,
scripts/train.py end to end for every config, and --resume after SIGKILL."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs_agents.arena.match import play_game
from boardenvs_agents.learning.config import TrainConfig, load_config
from boardenvs_agents.learning.models import LearnedPolicy, load_model, read_metadata, save_model
from boardenvs_agents.registry import make_policy

ROOT = Path(__file__).resolve().parents[2]
# scripts/train.py's configs (league.yaml is the arena's, tested in test_arena.py; rllib.yaml is
# scripts/train_rllib.py's, tested in tests/rllib/).
CONFIGS = sorted(p for p in (ROOT / "configs").glob("*/*.yaml") if p.stem not in ("league", "rllib"))
TRAIN = ROOT / "scripts" / "train.py"
# A budget small enough for CI: a few thousand steps, tiny evaluations, frequent checkpoints.
TINY = [
    "--set", "total_timesteps=512", "--set", "eval.games=2", "--set", "eval.every=256",
    "--set", "checkpoint_every=256", "--set", "selfplay.snapshot_every=256", "--set", "n_envs=2",
    "--set", "hyperparameters.batch_size=32",
]  # fmt: skip
TINY_ALGO = {
    "ppo": ["--set", "hyperparameters.n_steps=128"],
    "dqn": ["--set", "hyperparameters.learning_starts=64", "--set", "hyperparameters.buffer_size=500"],
}


def write(tmp_path, text):
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    return path


# -- configs -------------------------------------------------------------------------------------
def test_every_shipped_config_loads():
    assert CONFIGS, "no configs found"
    games = {p.parent.name for p in CONFIGS}
    for game in games:
        assert {p.stem for p in CONFIGS if p.parent.name == game} == {"ppo", "dqn"}, game
    for path in CONFIGS:
        config = load_config(path)
        assert config.game == path.parent.name and config.algo == path.stem


def test_unknown_key_names_the_key_and_the_file(tmp_path):
    path = write(tmp_path, "game: sorry_v0\ntotal_timestep: 10\n")
    with pytest.raises(OptionError, match=r"cfg\.yaml.*'total_timestep'"):
        load_config(path)
    path = write(tmp_path, "eval:\n  gamez: 3\n")
    with pytest.raises(OptionError, match=r"cfg\.yaml.*'eval\.gamez'"):
        load_config(path)


def test_wrong_types_name_the_key(tmp_path):
    with pytest.raises(OptionError, match=r"cfg\.yaml.*'total_timesteps'.*integer"):
        load_config(write(tmp_path, "total_timesteps: lots\n"))
    with pytest.raises(OptionError, match=r"'opponents\.random'.*number"):
        load_config(write(tmp_path, "opponents: {random: often}\n"))
    with pytest.raises(OptionError, match=r"'algo'"):
        load_config(write(tmp_path, "algo: a2c\n"))


def test_unknown_game_agent_option_and_hyperparameter_stop_the_run(tmp_path):
    with pytest.raises(OptionError, match=r"cfg\.yaml: game 'chess_v0' is unknown"):
        load_config(write(tmp_path, "game: chess_v0\n"))
    with pytest.raises(OptionError, match=r"cfg\.yaml: opponents: .*unknown agent 'wizard'"):
        load_config(write(tmp_path, "opponents: {wizard: 1.0}\n"))
    with pytest.raises(OptionError, match=r"cfg\.yaml: eval\.opponents: .*unknown agent"):
        load_config(write(tmp_path, "eval: {opponents: [random, wizard]}\n"))
    with pytest.raises(OptionError, match=r"game_options: .*'num_player'"):
        load_config(write(tmp_path, "game_options: {num_player: 2}\n"))
    with pytest.raises(OptionError, match=r"hyperparameters\.learning_rat is not a ppo hyperparameter"):
        load_config(write(tmp_path, "hyperparameters: {learning_rat: 0.1}\n"))
    with pytest.raises(OptionError, match=r"hyperparameters\.n_epochs is not a dqn hyperparameter"):
        load_config(write(tmp_path, "algo: dqn\nhyperparameters: {n_epochs: 8}\n"))
    with pytest.raises(OptionError, match="not found"):
        load_config(tmp_path / "missing.yaml")


def test_command_line_overrides_any_key(tmp_path):
    path = write(tmp_path, "total_timesteps: 100\neval: {games: 10}\n")
    config = load_config(path, ["total_timesteps=5000", "eval.games=7", "game_options.num_players=2"])
    assert (config.total_timesteps, config.eval.games, config.game_options) == (5000, 7, {"num_players": 2})
    assert config.eval.opponents == TrainConfig().eval.opponents  # untouched keys keep defaults
    with pytest.raises(OptionError, match="key=value"):
        load_config(path, ["total_timesteps"])


# -- saved models --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A MaskablePPO model trained for a few hundred steps on 2-player Sorry!, saved with metadata."""
    from boardenvs_agents.learning.training import final_metadata, make_vec_env

    config = load_config(None, ["game_options.num_players=2", "hyperparameters.n_steps=128", "n_envs=1"])
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", make_vec_env(config), seed=0, device="cpu", n_steps=128, batch_size=64)
    model.learn(256)
    path = save_model(
        model, tmp_path_factory.mktemp("m") / "tiny", final_metadata(config, model.num_timesteps)
    )
    return path


def test_saved_model_carries_its_metadata(tiny_model):
    meta = read_metadata(tiny_model)
    assert meta["game"] == "sorry_v0" and meta["algo"] == "ppo"
    assert meta["options"]["num_players"] == 2
    assert meta["observation_shape"] == [843] and meta["num_actions"] == 79
    assert meta["timesteps"] >= 256 and "commit" in meta and meta["config"]["game"] == "sorry_v0"


def test_loading_into_another_game_or_options_fails_clearly(tiny_model):
    with pytest.raises(ValueError, match="other options.*num_players"):
        load_model(tiny_model, make_game("sorry_v0", num_players=4))
    with pytest.raises(ValueError, match="not a boardenvs model"):
        read_metadata(__file__)
    with pytest.raises(ValueError, match="num_players"):
        make_policy(f"ppo:{tiny_model}", "sorry_v0", game_options={"num_players": 3})
    with pytest.raises(FileNotFoundError, match="no model file"):
        make_policy("ppo:/nonexistent/model.zip", "sorry_v0")


def test_learned_policy_plays_legal_moves_through_the_common_interface(tiny_model):
    game = make_game("sorry_v0", num_players=2)
    policy = make_policy(f"ppo:{tiny_model}", "sorry_v0", game_options={"num_players": 2})
    assert isinstance(policy, LearnedPolicy)
    for seed in range(3):  # play_game raises on any illegal action
        result = play_game(game, [policy, make_policy("random", "sorry_v0")], seed)
        assert result.winner in (0, 1)


# -- scripts/train.py ----------------------------------------------------------------------------
def run_train(*args, cwd, timeout=300):
    return subprocess.run(
        [sys.executable, str(TRAIN), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_train_script_smoke(config, tmp_path):
    proc = run_train(
        "--config", str(config), *TINY, *TINY_ALGO[config.stem], "--runs", str(tmp_path), "--name", "run",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = tmp_path / "run"
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["timesteps"] >= 512 and metrics["steps_per_second"] > 0
    assert 0 < metrics["env_share_of_time"] < 1
    assert {r["opponent"] for r in metrics["final_eval"]} == {"random", "heuristic"}
    assert read_metadata(run / "final_model.zip")["game"] == config.parent.name
    assert (run / "eval.csv").read_text().count("\n") >= 3  # header + periodic + final rows
    assert any((run / "tb").rglob("events.out.tfevents*"))
    assert "| random |" in proc.stdout


def test_train_script_bad_config_exits_with_a_one_line_message(tmp_path):
    proc = run_train("--set", "total_timesteps=ten", "--runs", str(tmp_path), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert "total_timesteps" in proc.stderr and "Traceback" not in proc.stderr


def test_resume_after_sigkill_loses_at_most_one_interval(tmp_path):
    args = [
        "--config", str(ROOT / "configs" / "sorry_v0" / "ppo.yaml"), "--set", "total_timesteps=6144",
        "--set", "checkpoint_every=512", "--set", "eval.every=0", "--set", "eval.games=4",
        "--set", "hyperparameters.n_steps=256", "--set", "hyperparameters.batch_size=64",
        "--set", "opponents={random: 1.0}", "--runs", str(tmp_path), "--name", "run", "--no-progress",
    ]  # fmt: skip
    proc = subprocess.Popen([sys.executable, str(TRAIN), *args], cwd=tmp_path, stderr=subprocess.PIPE)
    state = tmp_path / "run" / "checkpoint" / "state.json"
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if state.exists() and json.loads(state.read_text())["num_timesteps"] >= 1024:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    saved = json.loads(state.read_text())["num_timesteps"]
    assert saved >= 1024
    resumed = run_train("--resume", str(tmp_path / "run"), "--no-progress", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming {tmp_path / 'run'} at step {saved:,}" in resumed.stderr
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["timesteps"] >= 6144
    # Only the steps after the checkpoint were trained again.
    assert metrics["timesteps"] - saved <= 6144 - 1024 + 512
    # Resuming a finished run trains nothing and writes the final model again.
    again = run_train("--resume", str(tmp_path / "run"), "--no-progress", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["timesteps"] == metrics["timesteps"]


SHIPPED = sorted((ROOT / "agents" / "models").glob("*.zip"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_models_load_by_name_and_play_legal_moves(path):
    algo, game_name = path.stem.split("_", 1)
    meta = read_metadata(path)
    assert (meta["algo"], meta["game"]) == (algo, game_name)
    policy = make_policy(f"{algo}:{game_name}", game_name)  # by name, with the options it was trained for
    game = make_game(game_name, **meta["options"])
    opponents = [make_policy("heuristic", game_name) for _ in range(game.num_players - 1)]
    for seed in range(2):
        seat = seed % game.num_players
        lineup = opponents[:seat] + [policy] + opponents[seat:]
        result = play_game(game, lineup, seed)  # raises on an illegal action
        assert result.num_decisions > 0
    # Its documented metrics sit beside it.
    metrics = json.loads(path.with_suffix(".json").read_text())
    assert metrics["game"] == game_name and metrics["timesteps"] == meta["timesteps"]
