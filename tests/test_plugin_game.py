"""A game of another distribution, registered only through its entry points (issue 28): docs/adding-a-game.md.

The tutorial's files (its code blocks that name a file) are written to a temporary folder, and the
package is "installed" the way pip installs it: a ``boardenvs_pig-0.1.0.dist-info`` folder with
``METADATA`` and an ``entry_points.txt`` made from the tutorial's ``pyproject.toml``, next to the
package on ``PYTHONPATH``, where :mod:`importlib.metadata` finds it. Subprocesses then make the game and
drive every command on it, without a file of this repository edited: first with the rules alone
(``boardenvs.games`` only: the tools that need only the rules), then with the agents' record as well.
Broken entry points are named with their distribution.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "adding-a-game.md"
BIN = Path(sys.executable).parent
#: A fenced code block that names its file: ```python file=pig/pig_game/rules.py
BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def tutorial_files() -> dict[str, str]:
    """The tutorial's files by path (``pig/...``)."""
    files = {path: text for path, text in BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))}
    assert {"pig/pyproject.toml", "pig/pig_game/rules.py", "pig/pig_game/pig_v0.py"} <= set(files)
    return files


def install(site: Path, groups: dict[str, dict[str, str]], name: str = "boardenvs-pig") -> None:
    """A dist-info folder in ``site`` publishing ``groups`` (group -> {name: value}), as pip writes it."""
    dist = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    lines = []
    for group, entries in groups.items():
        lines += [f"[{group}]", *(f"{k} = {v}" for k, v in entries.items()), ""]
    (dist / "entry_points.txt").write_text("\n".join(lines))


@pytest.fixture(scope="module")
def pig(tmp_path_factory) -> dict[str, Path]:
    """The tutorial's package, and three sites: the rules alone, with the record, and broken entry points."""
    root = tmp_path_factory.mktemp("plugin")
    for path, text in tutorial_files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    published = tomllib.loads((root / "pig" / "pyproject.toml").read_text())["project"]["entry-points"]
    assert published["boardenvs.games"] == {"pig_v0": "pig_game.pig_v0"}
    install(root / "rules", {"boardenvs.games": published["boardenvs.games"]})
    install(root / "full", published)
    install(
        root / "broken",
        {
            "boardenvs.games": {
                "gone_v0": "pig_game.gone",
                "bad_v0": "pig_game.rules",
                "pig_v0": "pig_game.pig_v0",
            },
            "boardenvs_agents.games": {"pig_v0": "pig_game.rules:PigState"},
        },
        name="broken-games",
    )
    install(root / "twice", {"boardenvs.games": {"pig_v0": "pig_game.rules"}}, name="pig-again")
    install(root / "again", {"boardenvs.games": {"pig_v0": "pig_game.pig_v0"}}, name="pig-again")
    return {"root": root, "package": root / "pig", "config": root / "pig" / "ppo.yaml"}


def run(pig: dict[str, Path], sites: list[str], *argv: str) -> subprocess.CompletedProcess:
    """Run a command (a console script of this environment, or ``python``) with the package and ``sites``
    (folders of the plug-in's root, or absolute paths) on ``PYTHONPATH``, in a scratch folder."""
    paths = [str(pig["package"]), *(str(pig["root"] / s) for s in sites)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONHASHSEED": "0"}
    command = [sys.executable if argv[0] == "python" else str(BIN / argv[0]), *argv[1:]]
    return subprocess.run(command, capture_output=True, text=True, cwd=pig["root"], env=env, timeout=600)


def ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc.stdout


def test_the_tutorial_package_installs_with_pip_and_registers_its_game_and_record(pig, tmp_path):
    site, source = tmp_path / "site", tmp_path / "source"  # a copy: the build leaves files in its source
    shutil.copytree(pig["package"], source)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    proc = subprocess.run([*pip, "--target", str(site), str(source)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (written,) = site.glob("boardenvs_pig-0.1.0.dist-info/entry_points.txt")
    assert (
        written.read_text().split()
        == (pig["root"] / "full")
        .joinpath("boardenvs_pig-0.1.0.dist-info", "entry_points.txt")
        .read_text()
        .split()
    )  # the dist-info the other tests write is the one pip writes
    probe = "import boardenvs; from boardenvs_agents.games import find_record; "
    probe += "print(boardenvs.make_game('pig_v0').name, find_record('pig_v0').champion)"
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.stdout.split() == ["pig_v0", "('heuristic',)"], out.stderr


def test_the_game_is_made_by_boardenvs_and_gymnasium_from_its_entry_point(pig):
    script = """
import json, gymnasium, numpy as np, boardenvs
from boardenvs.registry import gym_id
assert "pig_v0" in boardenvs.env_names() and gym_id("pig_v0") == "boardenvs/Pig-v0"
env = boardenvs.make("pig_v0", num_players=3)
env.reset(seed=1)
rng, steps = np.random.default_rng(0), 0
for agent in env.agent_iter():
    obs, reward, term, trunc, _ = env.last()
    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    steps += 1
state = boardenvs.make_game("pig_v0").new_initial_state()
single = gymnasium.make("boardenvs/Pig-v0", opponents="random")
obs, _ = single.reset(seed=0)
obs, reward, term, trunc, _ = single.step(int(np.flatnonzero(single.unwrapped.action_masks())[0]))
print(json.dumps({"steps": steps, "obs": list(obs.shape), "state": state.to_dict()["game"]}))
"""
    out = json.loads(ok(run(pig, ["rules"], "python", "-c", script)).splitlines()[-1])
    assert out["steps"] > 3 and out["obs"] == [3] and out["state"] == "pig_v0"


def test_the_env_contract_holds_for_it(pig):
    # Every check but illegal_actions, which needs an action that is illegal somewhere: every Pig
    # decision may roll or hold (P3).
    script = (
        "from env_contract import CHECKS, run_contract\n"
        "run_contract('pig_v0', checks=[c for c in CHECKS if c != 'illegal_actions'])\n"
        "print(sorted(CHECKS))"
    )
    checks = ok(run(pig, ["rules", str(ROOT / "tests")], "python", "-c", script)).splitlines()[-1]
    assert "pettingzoo_api" in checks and "state_dict_round_trip" in checks


def test_evaluate_plays_mcts_and_random_without_a_record(pig, tmp_path):
    out = tmp_path / "games.json"
    args = ["--game", "pig_v0", "--agent", "mcts:sims=20", "--opponent", "random", "--games", "6"]
    ok(run(pig, ["rules"], "boardenvs-evaluate", *args, "--json", str(out), "--no-progress"))
    games = json.loads(out.read_text())["games"]
    assert len(games) == 6 and {tuple(sorted(g["seating"])) for g in games} == {("mcts:sims=20", "random")}
    # The tools that need the record name it.
    proc = run(
        pig, ["rules"], "boardenvs-evaluate", "--game", "pig_v0", "--agent", "heuristic", "--games", "2"
    )
    assert proc.returncode == 2
    assert "the heuristic needs the agents' record of 'pig_v0'" in proc.stderr
    assert "boardenvs_agents.games" in proc.stderr


def test_balance_measures_random_players_without_a_record(pig, tmp_path):
    out = tmp_path / "balance.json"
    args = ["--game", "pig_v0", "--agents", "random", "--no-versus", "--games", "20", "--no-progress"]
    text = ok(run(pig, ["rules"], "boardenvs-balance", *args, "--json", str(out)))
    (setting,) = json.loads(out.read_text())["settings"]
    assert setting["num_players"] == 2 and setting["same"]["games"] == 20  # the game's default count
    assert setting["same"]["figures"] == {} and setting["same"]["rounds"]["mean"] >= 1
    assert "pig_v0, 2 players" in text
    proc = run(pig, ["rules"], "boardenvs-balance", "--game", "pig_v0", "--games", "2")  # the heuristic's
    assert proc.returncode == 2 and "record of 'pig_v0'" in proc.stderr


def test_the_league_plays_it_with_the_generic_strategy_figures(pig, tmp_path):
    config = tmp_path / "league.yaml"
    config.write_text(
        "game: pig_v0\ngame_options: {num_players: 2}\nseed: 0\nbaselines: [random]\n"
        "agents: {random: random, mcts: mcts:sims=10}\ngames: 4\n"
    )
    readme = tmp_path / "README.md"
    readme.write_text("<!-- league:start -->\n<!-- league:end -->\n")
    args = ["--game", "pig_v0", "--config", str(config), "--out", str(tmp_path / "out"), "--no-progress"]
    ok(run(pig, ["rules"], "boardenvs-league", *args, "--readme", str(readme)))
    page = (tmp_path / "out" / "pig_v0.md").read_text()
    assert "| agent | seat-games | choices per game |\n|---|---:|---:|\n| `random` | 4 |" in page


def test_train_runs_the_tutorial_config(pig):
    small = ["total_timesteps=128", "hyperparameters.n_steps=64", "hyperparameters.batch_size=32",
             "eval.every=0", "n_envs=1"]  # fmt: skip
    sets = [arg for value in small for arg in ("--set", value)]
    ok(run(pig, ["rules"], "boardenvs-train", "--config", str(pig["config"]), *sets, "--runs", "runs",
           "--name", "pig", "--no-progress"))  # fmt: skip
    assert (pig["root"] / "runs" / "pig" / "final_model.zip").is_file()


def test_the_record_gives_the_heuristic_search_leaves_and_the_pages_figures(pig, tmp_path):
    out = tmp_path / "balance.json"
    args = ["--game", "pig_v0", "--num-players", "3", "--games", "12", "--no-progress"]
    text = ok(run(pig, ["full"], "boardenvs-balance", *args, "--json", str(out)))
    (setting,) = json.loads(out.read_text())["settings"]
    assert set(setting["same"]["figures"]) == {"busts", "points_lost"} and setting["versus_random"]
    assert "busts (a 1 with points at stake) per game" in text
    script = """
import json
from boardenvs import make_game
from boardenvs_agents.arena.match import play_game
from boardenvs_agents.arena.strategy import StrategyObserver
from boardenvs_agents.registry import make_policy
game = make_game("pig_v0")
specs = ["heuristic:hold_at=15", "mcts:sims=10,leaf=eval,depth=4"]
policies = [make_policy(s, "pig_v0", seed=p) for p, s in enumerate(specs)]
result = play_game(game, policies, 3, StrategyObserver(game))
print(json.dumps([make_policy("champion", "pig_v0").spec, result.stats["strategy"]]))
"""
    champion, seats = json.loads(ok(run(pig, ["full"], "python", "-c", script)).splitlines()[-1])
    assert champion == "heuristic"
    assert set(seats[0]["kinds"]) <= {"roll", "hold"}
    assert sum(seats[0]["kinds"].values()) == seats[0]["choices"] > 0
    assert set(seats[0]["events"]) == {"busts"}


def test_broken_entry_points_are_named_with_their_distribution(pig):
    script = """
import boardenvs
from boardenvs.registry import GameEntryPointError
from boardenvs_agents.games import RecordEntryPointError, find_record
print(boardenvs.env_names())
for name in ("gone_v0", "bad_v0"):
    try:
        boardenvs.make(name)
    except GameEntryPointError as err:
        print(err)
try:
    find_record("pig_v0")
except RecordEntryPointError as err:
    print(err)
"""
    lines = ok(run(pig, ["broken"], "python", "-c", script)).splitlines()
    assert "'bad_v0', 'gangsi_v0', 'gone_v0'" in lines[0]  # import boardenvs still works
    assert lines[1].startswith(
        "entry point 'gone_v0 = pig_game.gone' (group boardenvs.games, distribution broken-games 0.1.0) "
        "fails to load: ModuleNotFoundError"
    )
    assert "'bad_v0 = pig_game.rules'" in lines[2] and "defines no env()" in lines[2]
    assert "no game_class" in lines[2]
    assert "distribution broken-games 0.1.0) names <class 'pig_game.rules.PigState'>, not a " in lines[3]
    twice = run(pig, ["rules", "twice"], "python", "-c", "import boardenvs; boardenvs.make('pig_v0')")
    assert twice.returncode == 1
    assert "game 'pig_v0' is registered more than once" in twice.stderr
    assert (
        "distribution boardenvs-pig 0.1.0" in twice.stderr and "distribution pig-again 0.1.0" in twice.stderr
    )
    # The same module published twice is one game.
    ok(run(pig, ["rules", "again"], "python", "-c", "import boardenvs; boardenvs.make('pig_v0')"))
