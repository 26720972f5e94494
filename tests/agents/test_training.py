"""Training: configs checked up front, models saved with metadata and refused for the wrong game,
scripts/train.py end to end for every config, and runs killed at any moment resumed bit for bit."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs_agents.arena.match import play_game
from boardenvs_agents.learning.config import TrainConfig, load_config
from boardenvs_agents.learning.models import LearnedPolicy, load_model, read_metadata, save_model
from boardenvs_agents.registry import make_policy
from boardenvs_agents.scripts.train import main as train_main
from boardenvs_agents.scripts.train import run as train_run

ROOT = Path(__file__).resolve().parents[2]
# scripts/train.py's configs (league.yaml is the arena's, tested in test_arena.py; rllib.yaml is
# scripts/train_rllib.py's, tested in tests/rllib/; exit.yaml is expert iteration's, whose runner
# boardenvs-train hands it to, tested in test_exit_fit.py).
# The game's training configs (configs/bench/ holds the benchmark's, without a game: tests/bench).
CONFIGS = sorted(
    p for p in (ROOT / "configs").glob("*/*.yaml")
    if not p.stem.startswith(("league", "rllib", "exit")) and p.parent.name != "bench"
)  # fmt: skip
TRAIN = ROOT / "scripts" / "train.py"
# A budget small enough for CI: a few thousand steps, tiny evaluations, frequent checkpoints.
TINY = [
    "--set", "total_timesteps=512", "--set", "eval.games=2", "--set", "eval.every=256",
    "--set", "checkpoint_every=256", "--set", "selfplay.snapshot_every=256", "--set", "n_envs=2",
    "--set", "hyperparameters.batch_size=32", "--set", "imitation.games=4", "--set", "imitation.epochs=1",
]  # fmt: skip
TINY_ALGO = {
    "ppo": ["--set", "hyperparameters.n_steps=128"],
    "dqn": ["--set", "hyperparameters.learning_starts=64", "--set", "hyperparameters.buffer_size=500"],
}


# A fine-tuning config (init_model: a first stage's model) without its first stage.
NO_STAGE_ONE = ["init_model=null", "imitation.seat_teachers={}"]


def init_model(config: Path) -> str:
    """A shipped config's ``init_model`` (``""``: none)."""
    return yaml.safe_load(config.read_text()).get("init_model") or ""


def fine_tunes(config: Path) -> bool:
    """Whether a shipped config starts from a first stage's run (``init_model`` under ``runs/``)."""
    return init_model(config).startswith("runs/")


def shipped_start(config: Path) -> list[str]:
    """The override that points a config starting from a shipped model (``agents/models/``) at it from
    any working directory (none for other configs)."""
    start = init_model(config)
    return [f"init_model={ROOT / start}"] if start.startswith("agents/models/") else []


def write(tmp_path, text):
    path = tmp_path / "cfg.yaml"
    path.write_text(text)
    return path


# -- configs -------------------------------------------------------------------------------------
def test_every_shipped_config_loads():
    assert CONFIGS, "no configs found"
    games = {p.parent.name for p in CONFIGS}
    for game in games:
        # Every game has its ppo and dqn configs; variants are named <algo>_<variant>.yaml.
        assert {p.stem for p in CONFIGS if p.parent.name == game} >= {"ppo", "dqn"}, game
    for path in CONFIGS:
        # A fine-tuning config names stage 1's model, which a clean checkout does not have.
        config = load_config(path, NO_STAGE_ONE if fine_tunes(path) else shipped_start(path))
        assert config.game == path.parent.name and config.algo == path.stem.partition("_")[0]


def test_a_fine_tuning_config_names_its_first_stage():
    tuning = [p for p in CONFIGS if fine_tunes(p)]
    assert [p.relative_to(ROOT).as_posix() for p in tuning] == ["configs/gangsi_v0/ppo_finetune.yaml"]
    data = yaml.safe_load(tuning[0].read_text())
    assert data["init_model"] == "runs/gangsi_v0_bc/final_model.zip"
    assert set(data["imitation"]["seat_teachers"].values()) == {f"ppo:{data['init_model']}"}
    # Stage 1 is the game's imitation config, named in the comments with the run name init_model reads.
    assert "--config configs/gangsi_v0/ppo_bc.yaml --name gangsi_v0_bc" in tuning[0].read_text()
    with pytest.raises(OptionError, match="init_model: no file runs/gangsi_v0_bc/final_model.zip"):
        load_config(tuning[0])


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


def test_a_shipped_name_resolves_to_the_model_for_the_options_asked(tiny_model, monkeypatch, tmp_path):
    """``ppo:<game>`` is the default model without options, the variant trained for the options asked
    otherwise, and a clear refusal naming the shipped player counts when none fits."""
    from boardenvs_agents.learning import models

    shutil.copy(models.MODELS_DIR / "ppo_sorry_v0.zip", tmp_path / "ppo_sorry_v0.zip")  # four players
    shutil.copy(tiny_model, tmp_path / "ppo_sorry_v0__2p.zip")
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path)
    shipped = [tmp_path / "ppo_sorry_v0.zip", tmp_path / "ppo_sorry_v0__2p.zip"]
    assert models.shipped_models("ppo", "sorry_v0") == shipped
    four = make_policy("ppo:sorry_v0", "sorry_v0")
    assert four.game.num_players == 4  # no options asked: the default model, with its own options
    two = make_policy("ppo:sorry_v0", "sorry_v0", game_options={"num_players": 2})
    assert two.game.num_players == 2 and two.network.key.startswith(f"file:{shipped[1].resolve()}:")
    assert make_policy("ppo:sorry_v0", "sorry_v0", game_options={"num_players": 4}).game.num_players == 4
    with pytest.raises(ValueError, match=r"asked: 3 players; shipped: ppo_sorry_v0.zip for 4 players, "
                       r"ppo_sorry_v0__2p.zip for 2 players"):  # fmt: skip
        make_policy("ppo:sorry_v0", "sorry_v0", game_options={"num_players": 3})
    with pytest.raises(ValueError, match="and other options"):
        make_policy("ppo:sorry_v0", "sorry_v0", game_options={"num_players": 2, "slide_rule": "classic"})
    # <game>__<variant> names one model whatever the options, checked when it loads.
    assert models.resolve_model_path("sorry_v0__2p", "ppo", {"num_players": 4}) == shipped[1]
    named = make_policy("ppo:sorry_v0__2p", "sorry_v0", game_options={"num_players": 2})
    assert named.name == "ppo:sorry_v0__2p" and named.network.key.startswith(f"file:{shipped[1].resolve()}:")
    with pytest.raises(ValueError, match=r"differ in \{'num_players': \(2, 4\)\}"):
        make_policy("ppo:sorry_v0__2p", "sorry_v0", game_options={"num_players": 4})
    with pytest.raises(FileNotFoundError, match="sorry_v0__3p"):
        make_policy("ppo:sorry_v0__3p", "sorry_v0", game_options={"num_players": 3})


def test_shipped_lost_city_models_fit_the_spawns_of_their_player_count():
    """T3 (issue 27): spawns are chosen per player count, and the 2- and 4-player ones are the first
    design's, so the shipped models (saved with the first design's seven spawns) still fit their
    counts; asked for another count, a model differs in the player count only (the spawns follow it)."""
    from boardenvs.core.options import options_to_dict
    from boardenvs_agents.learning import models

    for algo, n, name in (("ppo", 4, "ppo_lost_city_v0.zip"), ("ppo", 2, "ppo_lost_city_v0__2p.zip")):
        options = options_to_dict(make_game("lost_city_v0", num_players=n).options)
        assert models.resolve_model_path("lost_city_v0", algo, options, ("action_features",)).name == name
    three = options_to_dict(make_game("lost_city_v0", num_players=3).options)
    with pytest.raises(ValueError, match=r"dqn_lost_city_v0.zip for 4 players\); train one"):
        models.resolve_model_path("lost_city_v0", "dqn", three, ("action_features",))


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


def first_stage(config: Path) -> Path:
    """The config of a fine-tuning config's stage 1: the one its comments train under the run name that
    its ``init_model`` reads (``runs/<name>/final_model.zip``)."""
    text = config.read_text()
    name = Path(yaml.safe_load(text)["init_model"]).parent.name
    for path, run_name in re.findall(r"--config (\S+\.yaml) --name (\S+)", text):
        if run_name == name:
            return ROOT / path
    raise AssertionError(f"{config.name}: no comment trains stage 1 with --name {name}")


def stage_one_sets(config: Path, stage_one: Path) -> list[str]:
    """``--set``s that point a fine-tuning config's ``init_model`` (stage 1 of its recipe, absent from a
    clean checkout), and the seat teachers that play that model, at ``stage_one``: a tiny run of stage
    1's own config."""
    data = yaml.safe_load(config.read_text())
    stage_one_spec = f"ppo:{data['init_model']}"
    teachers = data.get("imitation", {}).get("seat_teachers", {})
    mapped = ", ".join(
        f"{seat}: {f'ppo:{stage_one}' if spec == stage_one_spec else spec}" for seat, spec in teachers.items()
    )
    return ["--set", f"init_model={stage_one}", "--set", f"imitation.seat_teachers={{{mapped}}}"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """scripts/train.py on a shipped config with the tiny budget, each config trained once a module: a
    fine-tuning config's stage 1 is the tiny run of stage 1's config, the one its smoke test checks."""
    done: dict[Path, tuple[subprocess.CompletedProcess, Path]] = {}

    def train(config: Path) -> tuple[subprocess.CompletedProcess, Path]:
        if config not in done:
            algo = config.stem.partition("_")[0]
            stage_one = [arg for setting in shipped_start(config) for arg in ("--set", setting)]
            if fine_tunes(config):
                proc, stage_one_run = train(first_stage(config))
                assert proc.returncode == 0, proc.stderr[-3000:]
                stage_one = stage_one_sets(config, stage_one_run / "final_model.zip")
            runs = tmp_path_factory.mktemp(f"{config.parent.name}-{config.stem}")
            proc = run_train(
                "--config", str(config), *TINY, *TINY_ALGO[algo], *stage_one, "--runs", str(runs),
                "--name", "run", "--no-progress", cwd=runs,
            )  # fmt: skip
            done[config] = (proc, runs / "run")
        return done[config]

    return train


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_train_script_smoke(config, tiny_run):
    proc, run = tiny_run(config)
    assert proc.returncode == 0, proc.stderr[-3000:]
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


def test_bad_hyperparameters_stop_before_a_run_directory_exists(tmp_path, capsys):
    for setting, key in [
        ("hyperparameters.n_steps=-5", "hyperparameters.n_steps"),
        ("hyperparameters.learning_rate=fast", "hyperparameters.learning_rate"),
        ("policy_kwargs.net_arch=big", "policy_kwargs.net_arch"),
        ("hyperparameters.gamma=1.5", "hyperparameters.gamma"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            train_main(["--set", setting, "--runs", str(tmp_path / "runs"), "--name", "run"])
        assert exit_info.value.code == 2
        assert key in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
    with pytest.raises(OptionError, match="activation_fn|policy_kwargs"):
        load_config(None, ["policy_kwargs.activation_fn=relu"])


# -- what a run shows ------------------------------------------------------------------------------
SHOWN = ["game_options.num_players=2", "n_envs=2", "eval.every=256", "eval.games=2", "checkpoint_every=10000"]
SHOWN_ALGO = {
    # PPO rolls out n_steps x n_envs = 128 steps at a time: 600 steps asked, 5 rollouts, 640 steps.
    "ppo": (ROOT / "configs" / "sorry_v0" / "ppo.yaml", 600, 640,
            ["hyperparameters.n_steps=64", "hyperparameters.batch_size=64"]),
    # DQN collects train_freq x n_envs = 8 steps at a time: 602 asked, 608 played.
    "dqn": (ROOT / "configs" / "sorry_v0" / "dqn.yaml", 602, 608,
            ["hyperparameters.learning_starts=64", "hyperparameters.buffer_size=500",
             "hyperparameters.batch_size=32"]),
}  # fmt: skip


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_the_progress_bar_ends_at_the_last_step_and_evaluations_say_what_they_play(tmp_path, capsys, algo):
    """The step bar's total is the step the run stops at (whole rollouts: a little past total_timesteps)
    and its count never passes it; every evaluation first says what it plays and how many games, one
    line per opponent (one per row of eval.csv)."""
    import re

    from boardenvs_agents.learning.run import start_run

    config, asked, stops, extra = SHOWN_ALGO[algo]
    settings = [*SHOWN, f"total_timesteps={asked}", *extra]
    result = start_run(load_config(config, settings), tmp_path, "run", progress=True)
    err = capsys.readouterr().err
    assert result.metrics["timesteps"] == stops
    counts = [(int(n), int(total)) for n, total in re.findall(r"(\d+)/(\d+) \[", err)]
    assert counts and {total for _, total in counts} == {stops}
    assert max(n for n, _ in counts) == counts[-1][0] == stops and "100%" in err
    announced = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("evaluation at")]
    rows = [row.split(",") for row in eval_rows(result.run_dir)[1:]]
    assert [int(step) for step, *_ in rows] == [256, 256, 512, 512, stops, stops]
    assert announced == [
        f"evaluation at step {step}: {games} games of the learner against 1 {opponent} player (seats rotated)"
        for step, opponent, games, *_ in rows
    ]


# -- runs: exact resume ----------------------------------------------------------------------------
# A run small enough for the suite (8 rollouts of 256 steps), with everything a resume must restore:
# self-play snapshots (one retired from a pool of 2), periodic evaluations, a checkpoint per rollout.
RUN = [
    "game_options.num_players=2", "total_timesteps=2048", "n_envs=2", "checkpoint_every=256",
    "eval.every=512", "eval.games=2", "selfplay.snapshot_every=512", "selfplay.max_snapshots=2",
    "opponents={random: 0.4, heuristic: 0.3, self: 0.3}", "hyperparameters.n_steps=128",
    "hyperparameters.batch_size=64", "hyperparameters.n_epochs=2",
]  # fmt: skip
PPO = ROOT / "configs" / "sorry_v0" / "ppo.yaml"
FAULTY = Path(__file__).with_name("faulty_train.py")


def sets(items):
    return [arg for item in items for arg in ("--set", item)]


def weights(run):
    """The final model's parameters and optimizer state."""
    from stable_baselines3.common.save_util import load_from_zip_file

    return load_from_zip_file(run / "final_model.zip")[1]


def same_tensors(a, b):
    import torch

    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_tensors(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tensors(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def eval_rows(run):
    return (run / "eval.csv").read_text().splitlines()


def leftovers(run):
    return [p for p in run.rglob(".*") if ".tmp" in p.name or ".old" in p.name]


def tree(run):
    """Every file of a run directory with its bytes (to show nothing was written)."""
    return {p.relative_to(run): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The reference run, trained in this process without a stop."""
    from boardenvs_agents.learning.run import start_run

    runs = tmp_path_factory.mktemp("runs")
    result = start_run(load_config(PPO, RUN), runs, "reference", progress=False)
    return result.run_dir


def test_a_run_killed_at_random_moments_resumes_bit_identical(uninterrupted, tmp_path):
    """Fault injection: SIGKILL during checkpoint writes and at random moments, the run directory
    moved between two sessions; every resume continues exactly where the checkpoint left off."""
    import random

    rng = random.Random(16)
    run = tmp_path / "a" / "run"
    fresh = ["--config", str(PPO), *sets(RUN), "--runs", str(run.parent), "--name", "run", "--no-progress"]

    def newest(run_dir):
        return max((int(p.name.split("_")[1]) for p in (run_dir / "checkpoint").glob("step_*")), default=-1)

    def session(args, kill_after=None, env_kill=None):
        """One process of the run; ``kill_after``: SIGKILL that many seconds after its first checkpoint
        (so the kill lands in training, an evaluation or a write, whatever the machine's load)."""
        env = {**os.environ, **({"KILL_AT": env_kill} if env_kill else {})}
        run_dir = Path(args[args.index("--resume") + 1]) if "--resume" in args else run
        start = newest(run_dir)
        proc = subprocess.Popen(
            [sys.executable, str(FAULTY), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        if kill_after is not None:
            deadline = time.monotonic() + 180
            while proc.poll() is None and newest(run_dir) <= start and time.monotonic() < deadline:
                time.sleep(0.02)
            try:
                proc.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                proc.kill()
        out, err = proc.communicate(timeout=180)
        return proc.returncode, err

    # 1. killed while writing the second checkpoint's model.zip (half written)
    code, err = session(fresh, env_kill="write:3")
    assert code == -signal.SIGKILL, err[-2000:]
    assert leftovers(run), "the killed write left nothing to clean up"
    # 2. resumed, killed at a random moment
    code, err = session(["--resume", str(run), "--no-progress"], kill_after=rng.uniform(0, 2))
    assert code in (0, -signal.SIGKILL), err[-2000:]
    # 3. the run directory moves; resumed there, killed just before a checkpoint folder is renamed
    moved = tmp_path / "b" / "moved"
    moved.parent.mkdir()
    shutil.move(run, moved)
    code, err = session(["--resume", str(moved), "--no-progress"], env_kill="rename:2")
    assert code in (0, -signal.SIGKILL), err[-2000:]
    # 4. killed at random again, then resumed to the end
    code, err = session(["--resume", str(moved), "--no-progress"], kill_after=rng.uniform(0, 2))
    assert code in (0, -signal.SIGKILL), err[-2000:]
    code, err = session(["--resume", str(moved), "--no-progress"])
    assert code == 0, err[-3000:]
    assert not leftovers(moved)

    reference = json.loads((uninterrupted / "metrics.json").read_text())
    metrics = json.loads((moved / "metrics.json").read_text())
    assert metrics["timesteps"] == reference["timesteps"] == 2048
    assert metrics["n_updates"] == reference["n_updates"]
    rows = eval_rows(moved)
    assert len({tuple(r.split(",")[:2]) for r in rows}) == len(rows)  # no step evaluated twice
    assert rows == eval_rows(uninterrupted)
    assert same_tensors(weights(moved), weights(uninterrupted))  # bit for bit, optimizer included
    state = json.loads(max((moved / "checkpoint").glob("step_*/state.json")).read_text())
    assert state["callbacks"]["selfplay"]["paths"] == ["snapshots/step_512.zip", "snapshots/step_1024.zip",
                                                       "snapshots/step_1536.zip"]  # fmt: skip

    # 5. a finished run resumed does nothing: no row appended, no file changed
    before = tree(moved)
    code, err = session(["--resume", str(moved), "--no-progress"])
    assert code == 0 and "nothing to do" in err, err[-2000:]
    assert tree(moved) == before


def test_masked_dqn_killed_in_a_checkpoint_write_resumes_bit_identical(tmp_path):
    """DQN's checkpoint adds its replay buffer: killed while writing it, the run still resumes exactly."""
    from boardenvs_agents.learning.run import start_run

    dqn = ROOT / "configs" / "sorry_v0" / "dqn.yaml"
    settings = [
        "game_options.num_players=2", "total_timesteps=768", "checkpoint_every=128", "eval.every=256",
        "eval.games=2", "hyperparameters.learning_starts=64", "hyperparameters.buffer_size=500",
        "hyperparameters.batch_size=32", "hyperparameters.target_update_interval=100",
    ]  # fmt: skip
    reference = start_run(load_config(dqn, settings), tmp_path, "reference", progress=False).run_dir
    run = tmp_path / "killed"
    args = ["--config", str(dqn), *sets(settings), "--runs", str(tmp_path), "--name", "killed"]
    env = {**os.environ, "KILL_AT": "write:5"}  # the second checkpoint's replay_buffer.pkl, half written
    command = [sys.executable, str(FAULTY), *args, "--no-progress"]
    killed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    resumed = run_train("--resume", str(run), "--no-progress", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming {run} at step 128" in resumed.stderr
    metrics, expected = (json.loads((r / "metrics.json").read_text()) for r in (run, reference))
    assert (metrics["timesteps"], metrics["n_updates"]) == (expected["timesteps"], expected["n_updates"])
    assert eval_rows(run) == eval_rows(reference)
    assert same_tensors(weights(run), weights(reference))


def copy_run(run, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(run, target)
    return target


@pytest.mark.parametrize("damaged", ["model.zip", "state.json"])
def test_an_unreadable_checkpoint_falls_back_to_the_older_one(uninterrupted, tmp_path, capsys, damaged):
    from boardenvs_agents.learning.run import resume_run

    run = copy_run(uninterrupted, tmp_path)
    newest, older = sorted((run / "checkpoint").glob("step_*"), reverse=True)
    path = newest / damaged
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    (run / "checkpoint" / ".step_000000002304.tmp999").mkdir()  # what a killed write leaves
    (run / ".metrics.json.tmp999").write_text("{")
    result = resume_run(run, progress=False)
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and newest.name in warnings[0]
    assert f"falling back to {older.name}" in warnings[0]
    assert result.resumed_from == int(older.name.split("_")[1])
    assert not leftovers(run)
    assert result.metrics["timesteps"] == 2048
    assert eval_rows(run) == eval_rows(uninterrupted)
    assert same_tensors(weights(run), weights(uninterrupted))


def test_a_refused_resume_writes_nothing_and_the_run_stays_resumable(uninterrupted, tmp_path, capsys):
    run = copy_run(uninterrupted, tmp_path)
    newest = max((run / "checkpoint").glob("step_*"))
    shutil.rmtree(newest)  # so that the plain resume below has a rollout left to train
    before = tree(run)
    for argv, message in [
        (["--resume", str(run), "--set", "game_options.num_players=3"], "game_options.num_players"),
        (["--resume", str(run), "--set", "n_envs=4"], "n_envs"),
        (["--resume", str(run), "--config", str(PPO)], "--config"),
        (["--resume", str(tmp_path / "nowhere")], "not a run directory"),
        (["--resume", str(run), "--set", "total_timesteps=lots"], "total_timesteps"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            train_main([*argv, "--no-progress"])
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
        assert tree(run) == before
    # Every checkpoint unreadable: refused, naming them.
    broken = copy_run(run, tmp_path / "broken")
    for state in (broken / "checkpoint").glob("step_*/state.json"):
        state.write_text("{")
    with pytest.raises(SystemExit):
        train_main(["--resume", str(broken), "--no-progress"])
    assert "no readable checkpoint" in capsys.readouterr().err
    # A config.yaml edited by hand is refused too.
    edited = copy_run(run, tmp_path / "edited")
    (edited / "config.yaml").write_text((edited / "config.yaml").read_text().replace("seed: 0", "seed: 5"))
    with pytest.raises(SystemExit):
        train_main(["--resume", str(edited), "--no-progress"])
    assert "seed" in capsys.readouterr().err
    # The run itself resumes as if nothing had been tried.
    metrics = train_run(["--resume", str(run), "--no-progress"])
    assert metrics["timesteps"] == 2048
    assert same_tensors(weights(run), weights(uninterrupted))


def test_snapshots_are_taken_in_memory_and_a_resume_rebuilds_the_pool_from_their_files(tmp_path, monkeypatch):
    """A run hands its pools each self-play snapshot in memory and reads no snapshot file back (each is
    written, as the run's model at that step); resumed, it rebuilds the pools from the files: the same
    snapshots, with the weights the run that was not stopped played, and the same final weights."""
    import numpy as np

    from boardenvs_agents.learning.run import _Session, resume_run, start_run
    from boardenvs_agents.learning.selfplay import OpponentPool

    in_memory, read, restored = {}, [], []
    add_snapshot, restore = OpponentPool.add_snapshot, _Session._restore
    from_file = LearnedPolicy.from_file.__func__

    def spy_add(pool, path, player=None):
        kept = add_snapshot(pool, path, player)
        if player is not None:
            in_memory.setdefault(pool.snapshot_paths[-1], pool._snapshots[-1].network)
        return kept

    def spy_from_file(cls, path, *args, **kwargs):
        read.append(f"snapshots/{Path(path).name}")
        return from_file(cls, path, *args, **kwargs)

    def spy_restore(session, state):
        restore(session, state)
        restored.extend(env.sampler for env in session.vec_env.envs)

    monkeypatch.setattr(OpponentPool, "add_snapshot", spy_add)
    monkeypatch.setattr(LearnedPolicy, "from_file", classmethod(spy_from_file))
    monkeypatch.setattr(_Session, "_restore", spy_restore)
    settings = [*RUN, "total_timesteps=1280", "selfplay.snapshot_every=256", "eval.every=0"]
    run = start_run(load_config(PPO, settings), tmp_path, "run", progress=False).run_dir
    names = [f"snapshots/step_{step}.zip" for step in (256, 512, 768, 1024)]
    assert sorted(in_memory) == sorted(names) and read == []
    assert sorted(p.relative_to(run).as_posix() for p in (run / "snapshots").iterdir()) == sorted(names)

    reference = copy_run(run, tmp_path)
    shutil.rmtree(max((run / "checkpoint").glob("step_*")))  # resume at step 1024, the last snapshot's
    assert resume_run(run, progress=False).resumed_from == 1024
    assert set(names[2:]) <= set(read) <= set(names)  # the pool's two, and retired ones still seated
    assert len(restored) == 2
    for pool in restored:
        assert pool.snapshot_paths == names[2:]
        for name, player in zip(pool.snapshot_paths, pool._snapshots, strict=True):
            assert all(
                np.array_equal(w, w0) and np.array_equal(b, b0) and a == a0
                for (w, b, a), (w0, b0, a0) in zip(player.network.layers, in_memory[name].layers, strict=True)
            )
    assert eval_rows(run) == eval_rows(reference)
    assert same_tensors(weights(run), weights(reference))


@pytest.mark.parametrize(
    "overrides", [["vec_env=dummy"], ["vec_env=subproc", "workers=2"]], ids=["dummy", "subproc"]
)
def test_a_run_resumed_with_another_vec_env_ends_bit_identical(uninterrupted, tmp_path, overrides):
    """The reference run's envs were a BatchedVecEnv in its process; its checkpoint resumed with SB3's
    DummyVecEnv (opponents one at a time) or with envs in two worker processes ends the same."""
    from boardenvs_agents.learning.run import resume_run

    run = copy_run(uninterrupted, tmp_path)
    shutil.rmtree(max((run / "checkpoint").glob("step_*")))  # resume a rollout before the end
    result = resume_run(run, overrides, progress=False)
    assert result.resumed_from == 1792 and result.metrics["timesteps"] == 2048
    assert eval_rows(run) == eval_rows(uninterrupted)
    assert same_tensors(weights(run), weights(uninterrupted))


SHIPPED = sorted((ROOT / "agents" / "models").glob("*.zip"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_models_load_by_name_and_play_legal_moves(path):
    algo, game_name = path.stem.split("__")[0].split("_", 1)
    meta = read_metadata(path)
    assert (meta["algo"], meta["game"]) == (algo, game_name)
    # By name, for the options it was trained for.
    policy = make_policy(f"{algo}:{game_name}", game_name, game_options=meta["options"])
    assert policy.network.key.startswith(f"file:{path.resolve()}:")  # this file, not another variant
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
