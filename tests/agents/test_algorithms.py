"""Algorithms register: ppo and dqn through the entry-point group ``boardenvs_agents.algorithms``, a
config's ``algo:`` and ``<algo>:<path>`` specs open to any registered one, and the tutorial
(docs/adding-an-algorithm.md) run as written: its module registered by a package's entry point only,
trained by ``boardenvs-train`` and played as ``a2c:<path>`` by ``boardenvs-evaluate``."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from importlib.metadata import EntryPoint, distribution
from pathlib import Path

import pytest

from boardenvs.core.options import OptionError
from boardenvs_agents import plugins
from boardenvs_agents.learning.algorithms import ENTRY_POINT_GROUP, Algorithm, algorithm_names, get_algorithm
from boardenvs_agents.learning.config import load_config
from boardenvs_agents.learning.models import read_metadata
from boardenvs_agents.registry import make_policy, policy_names

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "adding-an-algorithm.md"


def test_ppo_dqn_and_exit_are_registered_by_the_package_as_any_other_would_be():
    registered = distribution("boardenvs").entry_points.select(group=ENTRY_POINT_GROUP)
    assert {e.name: e.value for e in registered} == {
        "ppo": "boardenvs_agents.learning.algorithms.ppo:PPO",
        "dqn": "boardenvs_agents.learning.algorithms.dqn:DQN",
        "exit": "boardenvs_agents.learning.algorithms.expert_iteration:EXIT",
    }
    assert {"ppo", "dqn", "exit"} <= set(algorithm_names()) <= set(policy_names())
    # Expert iteration's network is a MaskablePPO actor-critic; its training loop is its own runner.
    exit_ = get_algorithm("exit")
    assert exit_.model_class.__name__ == "MaskablePPO" and exit_.runner_module.__name__.endswith("expert.run")
    assert get_algorithm("ppo").runner_module is None
    ppo, dqn = get_algorithm("ppo"), get_algorithm("dqn")
    assert (ppo.model_class.__name__, dqn.model_class.__name__) == ("MaskablePPO", "MaskedDQN")
    # What the branches on the name used to say, now each record's.
    assert (ppo.mask_in_observation, ppo.imitation, ppo.net_arch_heads) == (False, True, ("pi", "vf"))
    assert (dqn.mask_in_observation, dqn.imitation, dqn.policy) == (True, False, "MaskedDQNPolicy")


def test_an_unregistered_algorithm_is_refused_with_the_registered_names():
    with pytest.raises(
        OptionError, match=r"'algo' must be one of the registered algorithms \('dqn', 'exit', 'ppo'\)"
    ):
        load_config(None, ["algo=a2c"])
    with pytest.raises(ValueError, match=r"unknown algorithm 'a2c'; registered: \['dqn', 'exit', 'ppo'\]"):
        get_algorithm("a2c")
    with pytest.raises(ValueError, match="unknown agent 'a2c'"):
        make_policy("a2c:sorry_v0", "sorry_v0")
    # A training config of the standard run may not name an algorithm with a runner of its own.
    with pytest.raises(OptionError, match="algo exit trains by its own runner"):
        load_config(None, ["algo=exit"])


def test_a_record_names_its_model_class_as_module_and_class():
    with pytest.raises(ValueError, match="'module:Class'"):
        Algorithm(name="toy", model="MaskablePPO")


@pytest.fixture
def registered(monkeypatch):
    """Replace the installed entry points of the group by ``{name: [value, ...]}``."""

    def register(entries: dict[str, list[str]]) -> None:
        found = {
            name: tuple(EntryPoint(name, value, ENTRY_POINT_GROUP) for value in values)
            for name, values in entries.items()
        }
        real = plugins.entry_points_of
        monkeypatch.setattr(
            plugins, "entry_points_of", lambda group: found if group == ENTRY_POINT_GROUP else real(group)
        )
        get_algorithm.cache_clear()
        plugins.load.cache_clear()

    yield register
    get_algorithm.cache_clear()
    plugins.load.cache_clear()


#: A record for the tests below: MaskablePPO under another name.
TOY = Algorithm(name="toy", model="sb3_contrib:MaskablePPO", imitation=True)


def test_an_entry_point_must_be_a_record_of_its_name_and_registered_once(registered):
    registered({"toy": [f"{__name__}:TOY"], "other": [f"{__name__}:TOY"], "twice": ["a:B", "c:D"]})
    assert get_algorithm("toy") is TOY and algorithm_names() == ["other", "toy", "twice"]
    with pytest.raises(ValueError, match="must be an Algorithm record named 'other'"):
        get_algorithm("other")
    with pytest.raises(ValueError, match="registered more than once"):
        get_algorithm("twice")


def test_the_config_check_asks_the_record(registered):
    registered({"toy": [f"{__name__}:TOY"], "dqn": ["boardenvs_agents.learning.algorithms.dqn:DQN"]})
    # Imitation: the algorithms that take it are named.
    with pytest.raises(OptionError, match="imitation trains toy policies, not dqn"):
        load_config(None, ["algo=dqn", "imitation.teacher=heuristic"])
    # The toy record has no rules: its model class still says which hyperparameters exist.
    config = load_config(None, ["algo=toy", "hyperparameters.n_steps=64", "n_envs=1"])
    assert config.algorithm is TOY
    with pytest.raises(OptionError, match="hyperparameters.buffer_size is not a toy hyperparameter"):
        load_config(None, ["algo=toy", "hyperparameters.buffer_size=5"])
    # Without net_arch_heads, a mapping of heads is refused.
    with pytest.raises(OptionError, match=r"net_arch must be a list of layer sizes \(integers >= 1\), got"):
        load_config(None, ["algo=toy", "policy_kwargs.net_arch={pi: [8], vf: [8]}"])


# -- the tutorial, run as written --------------------------------------------------------------------
def code_blocks(language: str) -> list[str]:
    """The tutorial's fenced code blocks in ``language``."""
    return re.findall(rf"^```{language}\n(.*?)^```", TUTORIAL.read_text(), flags=re.S | re.M)


def entry_points_txt(pyproject: str) -> str:
    """The ``entry_points.txt`` an install writes for the tutorial's ``pyproject.toml`` lines."""
    lines = []
    for line in pyproject.splitlines():
        if header := re.fullmatch(r'\[project\.entry-points\."([^"]+)"\]', line.strip()):
            lines.append(f"[{header.group(1)}]")
        elif entry := re.fullmatch(r'(\S+)\s*=\s*"([^"]+)"', line.strip()):
            lines.append(f"{entry.group(1)} = {entry.group(2)}")
    return "\n".join(lines) + "\n"


#: Runs the console command ``sys.argv[1]`` of the installed boardenvs with the arguments after it.
COMMAND = """
import sys
from importlib.metadata import distribution
(entry,) = distribution("boardenvs").entry_points.select(group="console_scripts", name=sys.argv[1])
sys.argv = sys.argv[1:]
sys.exit(entry.load()())
"""


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    """The tutorial's package installed as a folder on PYTHONPATH (its module and the dist-info an
    install writes, entry point included) and its commands run there, in order, each in a process of
    its own: ``[(command line, completed process)]`` and the folder they ran in."""
    site = tmp_path_factory.mktemp("site")
    (module,) = [block for block in code_blocks("python") if block.startswith("# masked_a2c.py\n")]
    (site / "masked_a2c.py").write_text(module)
    info = site / "masked_a2c-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: masked-a2c\nVersion: 0.1\n")
    (pyproject,) = code_blocks("toml")
    (info / "entry_points.txt").write_text(entry_points_txt(pyproject))
    work = tmp_path_factory.mktemp("work")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
    }
    (commands,) = code_blocks("bash")
    done = []
    for line in commands.splitlines():
        args = shlex.split(line)
        proc = subprocess.run(
            [sys.executable, "-c", COMMAND, *args], cwd=work, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        done.append((args, proc))
    return done, work, env


def test_the_tutorial_algorithm_trains_from_its_entry_point_and_plays_as_a_spec(tutorial):
    done, work, _ = tutorial
    assert [args[0] for args, _ in done] == ["boardenvs-train", "boardenvs-evaluate"]
    (train_args, train), (_, evaluate) = done
    assert train.returncode == 0, train.stderr[-3000:]
    run = work / "runs" / train_args[train_args.index("--name") + 1]
    metadata = read_metadata(run / "final_model.zip")
    assert (metadata["algo"], metadata["game"], metadata["options"]["num_players"]) == ("a2c", "sorry_v0", 2)
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["algo"] == "a2c" and metrics["timesteps"] >= 400 and metrics["n_updates"] >= 40
    assert evaluate.returncode == 0, evaluate.stderr[-3000:]
    # The game and player count read from the model, and its four games against random.
    assert evaluate.stdout.startswith("sorry_v0, 2 players, 4 games"), evaluate.stdout
    assert "\n| a2c:runs/a2c_smoke/final_model.zip | 4 | " in evaluate.stdout, evaluate.stdout


def test_the_tutorial_config_check_says_what_it_says(tutorial):
    _, work, env = tutorial
    lines = TUTORIAL.read_text().splitlines()
    (said,) = [line.strip() for line in lines if "is not a a2c hyperparameter" in line]
    proc = subprocess.run(
        [sys.executable, "-c", COMMAND, "boardenvs-train", "--set", "algo=a2c", "--set",
         "hyperparameters.clip_range=0.2"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.strip() == f"boardenvs-train: error: {said}"
