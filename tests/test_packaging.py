"""What `pip install boardenvs` installs (issue 14): the wheel's import names are this project's alone,
nothing is left out of it, the shipped models, configs and type markers are in it, every console command
runs an importable ``main``, and no game's drawing module imports its env module.

The wheel is built once per session from a copy of the sources (so the checkout gets no ``build/``
folder), without build isolation when the installed setuptools is recent enough: offline and in about
two seconds.
"""

from __future__ import annotations

import ast
import configparser
import importlib
import importlib.metadata
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import boardenvs

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: Source folders and the import names they install as (pyproject's package-dir; the rest by name).
FOLDERS = {"boardenvs": "boardenvs", "agents": "boardenvs_agents", "configs": "boardenvs_agents.configs",
           "scripts": "boardenvs_agents.scripts"}  # fmt: skip
#: What a wheel needs from the checkout.
SOURCES = ["pyproject.toml", "README.md", *FOLDERS]


def setuptools_is_recent() -> bool:
    """Whether the installed setuptools meets the build requirement (else pip builds in isolation)."""
    try:
        import setuptools
    except ImportError:
        return False
    wanted = next(r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools"))
    minimum = tuple(int(x) for x in wanted.split(">=")[1].split("."))
    return tuple(int(x) for x in setuptools.__version__.split(".")[: len(minimum)]) >= minimum


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("source")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)]
    if setuptools_is_recent():  # offline; else pip fetches the build requirement
        command.append("--no-build-isolation")
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "would be ignored" not in proc.stderr and "as data is deprecated" not in proc.stderr, proc.stderr
    (path,) = out.glob("boardenvs-*.whl")
    with zipfile.ZipFile(path) as zf:
        yield zf


def module_name(folder: Path) -> str:
    """The import name a source folder installs as (``agents/arena`` -> ``boardenvs_agents.arena``)."""
    top, *rest = folder.relative_to(ROOT).parts
    return ".".join([FOLDERS[top], *rest])


def shipped_folders() -> dict[str, Path]:
    """Every source folder holding code (an ``__init__.py``) or shipped files, by its import name."""
    found = {}
    for top in FOLDERS:
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if "__pycache__" in folder.parts:
                continue
            files = [f for f in folder.iterdir() if f.is_file() and f.suffix != ".pyc"]
            if any(f.name == "__init__.py" for f in files) or any(f.suffix != ".py" for f in files):
                found[module_name(folder)] = folder
    return found


def test_the_wheel_installs_only_this_projects_import_names(wheel):
    names = {name.split("/", 1)[0] for name in wheel.namelist()}
    dist_info = {n for n in names if n.endswith(".dist-info")}
    assert len(dist_info) == 1
    assert names - dist_info == {"boardenvs", "boardenvs_agents"}  # no top-level `agents` (openai-agents)


def test_every_folder_of_code_or_shipped_files_is_a_listed_package_and_in_the_wheel(wheel):
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    folders = shipped_folders()
    assert sorted(set(folders) - listed) == [], "add these to [tool.setuptools] packages"
    assert sorted(listed - set(folders)) == [], "packages listed with no folder"
    in_wheel = set(wheel.namelist())
    for name, folder in folders.items():
        for source in folder.iterdir():
            if source.is_file() and source.suffix != ".pyc":
                assert f"{name.replace('.', '/')}/{source.name}" in in_wheel, source


def test_models_configs_and_type_markers_are_shipped(wheel):
    names = set(wheel.namelist())
    assert {"boardenvs/py.typed", "boardenvs_agents/py.typed"} <= names
    models = sorted(p.name for p in (ROOT / "agents" / "models").glob("*.zip"))
    assert models and all(f"boardenvs_agents/models/{m}" in names for m in models)
    assert all(f"boardenvs_agents/models/{Path(m).stem}.json" in names for m in models)
    configs = sorted(p.relative_to(ROOT / "configs") for p in (ROOT / "configs").glob("*/*.yaml"))
    assert {"sorry_v0/league.yaml", "sorry_v0/ppo.yaml"} <= {c.as_posix() for c in configs}
    assert all(f"boardenvs_agents/configs/{c.as_posix()}" in names for c in configs)


def test_console_commands_are_the_declared_ones_and_point_at_importable_mains(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    parser = configparser.ConfigParser()
    parser.read_string(wheel.read(entry_points).decode())
    commands = dict(parser["console_scripts"])
    assert commands == PYPROJECT["project"]["scripts"]
    assert {"boardenvs-train", "boardenvs-evaluate", "boardenvs-play", "boardenvs-replay", "boardenvs-league",
            "boardenvs-benchmark"} <= set(commands)  # fmt: skip
    for command, target in commands.items():
        module, _, function = target.partition(":")
        assert module == f"boardenvs_agents.scripts.{command.removeprefix('boardenvs-').replace('-', '_')}"
        assert f"{module.replace('.', '/')}.py" in wheel.namelist()
        main = getattr(importlib.import_module(module), function)
        assert callable(main) and function == "main", command


def test_no_game_drawing_module_imports_its_env_module():
    # draw.py draws a game it is given; env.py imports draw.py (lazily) for Game.draw: never both ways.
    for draw in sorted((ROOT / "boardenvs").glob("*/draw.py")):
        package = f"boardenvs.{draw.parent.name}"
        imported = set()
        for node in ast.walk(ast.parse(draw.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
        offending = sorted(m for m in imported if m == f"{package}.env" or m.startswith(f"{package}.env."))
        offending += sorted(m for m in imported if m.startswith("boardenvs.registry") or m.endswith("_v0"))
        assert offending == [], f"{draw.relative_to(ROOT)} imports {offending}"


def test_code_shipped_to_a_ray_cluster_imports_under_the_installed_names(tmp_path):
    # Ray's py_modules imports an uploaded folder under its own name: the checkout's agents/ folder must
    # travel as boardenvs_agents, with configs/ and scripts/ inside (no Ray needed to check the layout).
    from boardenvs_agents.rllib.cluster import stage_packages

    folders = stage_packages(tmp_path)
    version = importlib.metadata.version("boardenvs")
    names = ["boardenvs", "boardenvs_agents", f"boardenvs-{version}.dist-info"]
    assert [Path(f).name for f in folders] == names
    assert not list(tmp_path.rglob("__pycache__"))
    # The entry points travel too: a worker with the folders on its path finds every game and agent.
    (shipped,) = importlib.metadata.distributions(path=[str(tmp_path)])
    groups = {entry.group for entry in shipped.entry_points}
    assert {"boardenvs.games", "boardenvs_agents.agents", "boardenvs_agents.algorithms"} <= groups
    games = sorted(entry.name for entry in shipped.entry_points.select(group="boardenvs.games"))
    assert games == boardenvs.env_names()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import boardenvs, boardenvs_agents.rllib.cluster;"
        "from boardenvs_agents.config import find_config; import boardenvs_agents.scripts.league;"
        "from boardenvs_agents.learning.models import resolve_model_path;"
        "print(boardenvs.__file__, boardenvs_agents.__file__, find_config('sorry_v0/league'),"
        "resolve_model_path('sorry_v0', 'ppo'), boardenvs_agents.scripts.league.__file__)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    paths = [Path(p) for p in proc.stdout.split()]
    assert all(p.is_relative_to(tmp_path) and p.is_file() for p in paths), paths
