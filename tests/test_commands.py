"""The console commands of pyproject.toml's [project.scripts], run as installed: each entry point's
function called as the console script calls it (``sys.exit(main())``, ``sys.argv[0]`` the command's
name), in a subprocess.

For every command: its exit status on a finished run (0) and on a bad argument (2, one error line
named after the command), ``--help`` and the one-line message of a missing extra in an install
without extras (numpy, gymnasium, pettingzoo only: the extras' modules made unimportable), and a quiet
stop when the reader of its output goes away (``boardenvs-replay game.json | head``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

import pytest

from boardenvs import make_game
from boardenvs.replay import record_game
from boardenvs_agents.cli import BROKEN_PIPE_STATUS, EXTRA_OF_MODULE
from boardenvs_agents.registry import make_policy

ROOT = Path(__file__).resolve().parents[1]

#: Runs the console entry point ``sys.argv[1]`` with the arguments after it, as the installed
#: command does; the modules named in $BLOCK (comma-separated) cannot be imported, as in an install
#: without them.
ENTRY = """
import os, sys
from importlib.metadata import distribution
for module in filter(None, os.environ.get("BLOCK", "").split(",")):
    sys.modules[module] = None
name = sys.argv[1]
(entry,) = distribution("boardenvs").entry_points.select(group="console_scripts", name=name)
main = entry.load()
sys.argv = [name, *sys.argv[2:]]
sys.exit(main())
"""


def console_scripts() -> list[str]:
    """The commands the installed package declares."""
    return sorted(e.name for e in distribution("boardenvs").entry_points.select(group="console_scripts"))


def command(
    name: str, *args: object, block: tuple[str, ...] = (), cwd: Path | None = None, stdout=subprocess.PIPE,
    input: str | None = None, timeout: int = 300,
) -> subprocess.CompletedProcess:  # fmt: skip
    env = {**os.environ, "BLOCK": ",".join(block)}
    return subprocess.run(
        [sys.executable, "-c", ENTRY, name, *map(str, args)],
        stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, input=input, timeout=timeout,
    )  # fmt: skip


@pytest.fixture(scope="module")
def game_file(tmp_path_factory) -> Path:
    """A finished two-player Sorry! game between random players, saved as a replay."""
    game = make_game("sorry_v0", num_players=2)
    replay = record_game(game, [make_policy("random", "sorry_v0") for _ in range(2)], seed=0)
    assert replay.finished
    return replay.save(tmp_path_factory.mktemp("replay") / "game.json")


def league_files(tmp_path: Path) -> list[str]:
    """The arguments of the smallest league: a config of 4 games between random and heuristic players,
    0.1 s of env speed, and a README to update."""
    config = tmp_path / "league.yaml"
    config.write_text(
        "game: sorry_v0\ngame_options: {num_players: 2}\nbaselines: [random, heuristic]\n"
        "agents: {random: random, heuristic: heuristic}\ngames: 4\nbenchmark_seconds: 0.1\n"
    )
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- league:start -->\n<!-- league:end -->\n")
    return ["--config", config, "--out", tmp_path / "results", "--readme", readme]


#: The tiniest training run: 256 steps of PPO in one env, two evaluation games per opponent.
TINY_TRAIN = [
    "--config", "sorry_v0/ppo", "--set", "total_timesteps=256", "--set", "n_envs=1",
    "--set", "hyperparameters.n_steps=128", "--set", "hyperparameters.batch_size=64", "--set", "eval.games=2",
    "--set", "eval.every=0", "--set", "game_options.num_players=2", "--name", "tiny", "--no-progress",
]  # fmt: skip


def test_every_command_is_tested_here():
    names = {
        "boardenvs-train", "boardenvs-evaluate", "boardenvs-play", "boardenvs-replay", "boardenvs-league",
        "boardenvs-benchmark", "boardenvs-train-rllib", "boardenvs-balance", "boardenvs-serve",
        "boardenvs-bench",
    }  # fmt: skip
    assert set(console_scripts()) == names == set(BAD_ARGUMENTS) == set(BARE_RUNS)
    # Every extra named for a missing module is one of pyproject.toml's.
    extras = set(distribution("boardenvs").metadata.get_all("Provides-Extra"))
    assert set(EXTRA_OF_MODULE.values()) <= extras


# -- a finished run exits 0 -------------------------------------------------------------------------
def test_train_exits_0_after_a_finished_run(tmp_path):
    proc = command("boardenvs-train", *TINY_TRAIN, "--runs", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"run: {tmp_path / 'tiny'}" in proc.stdout and "| heuristic | 2 |" in proc.stdout
    assert "'final_eval'" not in proc.stderr  # no metrics dict as an exit message
    assert json.loads((tmp_path / "tiny" / "metrics.json").read_text())["timesteps"] == 256


def test_evaluate_exits_0_and_plays_the_games_default_player_count():
    # No --num-players: sorry_v0 seats four (sorry_v0.env()'s default), so heuristic against three random.
    proc = command("boardenvs-evaluate", "--game", "sorry_v0", "--games", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("sorry_v0, 4 players, 4 games in 1 matchup(s)")
    assert "4 games: 4 seatings x 1 paired seeds" in proc.stdout and "| random (x3) | 4 |" in proc.stdout


def test_play_exits_0_after_a_whole_game_and_names_the_replay_command(tmp_path):
    saved = tmp_path / "game.json"
    proc = command(
        "boardenvs-play", "--num-players", "2", "--opponents", "random", "--seed", "4", "--no-board",
        "--save-replay", saved, input="1\n" * 2000,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Result after " in proc.stdout
    assert f"see it with: boardenvs-replay {saved}" in proc.stdout  # not scripts/replay.py, absent here
    assert command("boardenvs-replay", saved).returncode == 0


def test_replay_exits_0_on_a_recorded_game(game_file):
    proc = command("boardenvs-replay", game_file)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("sorry_v0 replay, seed 0, 2 seats") and "wins (" in proc.stdout


def test_league_exits_0_with_the_smallest_budget(tmp_path):
    proc = command("boardenvs-league", "--game", "sorry_v0", *league_files(tmp_path), "--workers", "1",
                   "--no-progress")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "sorry_v0: 8 games" in proc.stdout and (tmp_path / "results" / "sorry_v0.md").is_file()


def test_benchmark_exits_0_with_the_smallest_budget():
    proc = command("boardenvs-benchmark", "--seconds", "0.05", "--repeats", "1", "--envs", "sorry_v0",
                   "--no-mcts", "--train-steps", "0")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "| connect_four_v3 (PettingZoo) | env() |" in proc.stdout


def test_bench_exits_0_after_a_tiny_run_and_its_report(tmp_path):
    out = tmp_path / "bench"
    proc = command("boardenvs-bench", "run", "--algo", "ppo", "--task", "sorry_v0_2p", "--seeds", "0",
                   "--budget", "128", "--eval-every", "0", "--eval-games", "2", "--final-games", "2",
                   "--reference-games", "4",
                   "--set", "hyperparameters.n_steps=64", "--set", "hyperparameters.batch_size=64",
                   "--out", out)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "measuring the reference" in proc.stdout
    assert "[1/1] done: ppo on sorry_v0_2p, seed 0" in proc.stdout
    assert (out / "results" / "ppo" / "sorry_v0_2p" / "seed_0.csv").is_file()
    reference = json.loads((out / "reference.json").read_text())
    assert set(reference) == {"sorry_v0_4p", "sorry_v0_2p", "gangsi_v0_3h", "lost_city_v0_4p",
                              "lost_city_v0_2p", "neighborhood_v0_4p"}  # fmt: skip
    proc = command("boardenvs-bench", "report", out, "--reps", "100")
    assert proc.returncode == 0, proc.stderr
    assert "| sorry_v0_2p |" in proc.stdout and "Not in the aggregates" in proc.stdout
    assert (out / "curves_steps.png").is_file()


def test_bench_takes_the_committed_reference_from_any_folder_and_names_a_bad_key(tmp_path):
    # Run from outside the checkout: the reference is the checkout's (not 20 minutes measuring it again);
    # the bad key stops it with status 2 before any run.
    proc = command("boardenvs-bench", "run", "--algo", "ppo", "--task", "sorry_v0_2p", "--seeds", "0",
                   "--set", "no_such_key=1", "--out", "bench", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and "no_such_key" in proc.stderr
    committed = ROOT / "docs" / "results" / "bench" / "reference.json"
    assert f"the reference: {committed}" in proc.stdout
    assert (tmp_path / "bench" / "reference.json").read_text() == committed.read_text()


def test_balance_exits_0_and_names_itself_when_checking(tmp_path):
    proc = command("boardenvs-balance", "--game", "sorry_v0", "--num-players", "2", "--games", "2",
                   "--no-progress")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "heuristic in one seat (rotated) vs random" in proc.stdout
    # --check with a cap no game reaches the end within: a target is missed, exit 1, named after the command.
    proc = command("boardenvs-balance", "--game", "sorry_v0", "--num-players", "2", "--games", "2",
                   "--option", "max_turns=5", "--check", "--no-progress")  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("boardenvs-balance: ") and "target(s) missed" in proc.stderr


# -- a bad argument: exit 2, one error line named after the command ----------------------------------
#: A bad argument of each command: checked by the command itself (its message), and by argparse.
BAD_ARGUMENTS = {
    "boardenvs-train": (["--config", "nowhere/ppo"], "nowhere/ppo"),
    "boardenvs-evaluate": (["--game", "nope_v0"], "unknown environment 'nope_v0'"),
    "boardenvs-play": (["--game", "nope_v0"], "nope_v0"),
    "boardenvs-replay": (["/no/such/game.json"], "no such file: /no/such/game.json"),
    "boardenvs-league": (["--game", "nope_v0"], "unknown environment 'nope_v0'"),
    "boardenvs-benchmark": (["--envs", "nope_v0"], "unknown environment 'nope_v0'"),
    "boardenvs-train-rllib": (["--measure-sampling", "lots"], "argument --measure-sampling"),
    "boardenvs-balance": (["--game", "nope_v0"], "unknown environment 'nope_v0'; available: ["),
    "boardenvs-serve": (["--port", "0"], "argument --port: must be 1-65535, got 0"),
    "boardenvs-bench": (["run", "--algo", "ppo", "--task", "chess_4p"], "unknown task 'chess_4p'"),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGUMENTS))
def test_a_bad_argument_exits_2_with_one_line_named_after_the_command(name):
    args, message = BAD_ARGUMENTS[name]
    proc = command(name, *args)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith(f"{name}: error: ") and message in errors[0]
    assert proc.stderr.splitlines()[-1] == errors[0] and "Traceback" not in proc.stderr
    # argparse's own errors carry the command's name too.
    proc = command(name, "--no-such-option")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"usage: {name} ")
    assert proc.stderr.splitlines()[-1].startswith(f"{name}: error: ")  # unrecognized, or a required one


# -- an install without extras -----------------------------------------------------------------------
#: Every module of an extra, made unimportable.
BARE = tuple(EXTRA_OF_MODULE)
#: A run of each command that needs an extra in a bare install: arguments, the extra, its missing module.
BARE_RUNS = {
    "boardenvs-train": (["--config", "sorry_v0/ppo"], "train", "yaml"),
    "boardenvs-evaluate": (["--games", "2"], "train", "openskill"),
    "boardenvs-play": (["--opponents", "ppo:sorry_v0"], "train", "torch"),
    "boardenvs-replay": (["GAME", "--gif", "game.gif"], "render", "PIL"),
    "boardenvs-league": (["--game", "sorry_v0"], "train", "yaml"),
    "boardenvs-benchmark": (["--train-steps", "0"], "test", "pygame"),
    "boardenvs-train-rllib": (["--config", "sorry_v0/rllib"], "rllib", "ray"),
    "boardenvs-balance": (["--game", "sorry_v0", "--options", "variant.yaml"], "train", "yaml"),
    "boardenvs-serve": ([], "web", "starlette"),
    "boardenvs-bench": (["report"], "bench", "rliable"),
}


@pytest.mark.parametrize("name", sorted(BARE_RUNS))
def test_without_extras_help_works_and_a_missing_extra_is_one_line(name, game_file, tmp_path):
    proc = command(name, "--help", block=BARE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {name} ") and proc.stderr == ""

    args, extra, module = BARE_RUNS[name]
    args = [game_file if a == "GAME" else a for a in args]
    proc = command(name, *args, block=BARE, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"{name}: error: ") and f'pip install "boardenvs[{extra}]"' in line
    if extra != "render":  # boardenvs's own message for Pillow (the environments cannot import the agents)
        assert f"the {extra} extra" in line and line.endswith(f"(missing module: {module})")
    assert list(tmp_path.iterdir()) == []  # stopped before writing anything


def test_without_extras_the_heuristic_balance_replay_and_play_run(game_file):
    # --option needs no extra (the key=value grammar is the standard library's), an --options file yaml.
    proc = command("boardenvs-balance", "--game", "sorry_v0", "--num-players", "2", "--games", "2",
                   "--option", "max_turns=50", block=BARE)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = command("boardenvs-replay", game_file, block=BARE)
    assert proc.returncode == 0, proc.stderr
    proc = command("boardenvs-play", "--num-players", "2", "--seed", "4", "--no-board", input="1\n" * 2000,
                   block=BARE)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


# -- the reader of the output goes away ---------------------------------------------------------------
@pytest.mark.parametrize(
    "name, args",
    [
        ("boardenvs-replay", ["GAME", "--boards"]),
        ("boardenvs-evaluate", ["--games", "2", "--no-progress"]),
        ("boardenvs-balance", ["--game", "sorry_v0", "--num-players", "2", "--games", "2", "--no-progress"]),
        ("boardenvs-train", ["--help"]),
    ],
)
def test_a_closed_output_pipe_stops_the_command_quietly(name, args, game_file):
    # As `boardenvs-replay game.json | head` once head has exited: the pipe has no reader left.
    read, write = os.pipe()
    os.close(read)
    try:
        proc = command(name, *[game_file if a == "GAME" else a for a in args], stdout=write)
    finally:
        os.close(write)
    assert proc.stderr == ""  # no traceback, no "Exception ignored"
    # --help is printed by argparse, which ignores a failed write; the rest stop as Unix tools do.
    assert proc.returncode == (0 if args == ["--help"] else BROKEN_PIPE_STATUS)
