"""Layering: the environments (boardenvs/) never import the agents package, at any depth, at any time.

boardenvs needs numpy, gymnasium and pettingzoo only; agents (boardenvs_agents, installed from the
repository's agents/ folder) sit above it. Opponent specs reach the single-agent view through the
``boardenvs.opponents`` entry point, never through an import (boardenvs/wrappers/single_agent.py).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import boardenvs

PACKAGE = Path(boardenvs.__file__).resolve().parent
FORBIDDEN = {"boardenvs_agents", "agents"}
HEAVY = ["boardenvs_agents", "torch", "stable_baselines3", "sb3_contrib", "ray"]


def imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import in ``tree``, nested ones (inside functions, ``try``,
    ``if TYPE_CHECKING``) included, and of ``importlib.import_module("...")`` / ``__import__("...")``
    calls with a literal name."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return sorted(found)


def test_the_checker_sees_nested_and_dynamic_imports():
    source = (
        "def f():\n    from boardenvs_agents.registry import make_policy\n"
        "try:\n    import agents.base\nexcept ImportError:\n    pass\n"
        "importlib.import_module('boardenvs_agents.registry')\n"
        "from . import sibling\nimport numpy\n"
    )
    roots = [name.split(".")[0] for _, name in imported_names(ast.parse(source))]
    assert roots == ["boardenvs_agents", "agents", "boardenvs_agents", "numpy"]


def test_no_module_under_boardenvs_imports_the_agents_package():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 20 and PACKAGE / "wrappers" / "single_agent.py" in modules
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in modules
        for line, name in imported_names(ast.parse(path.read_text(), str(path)))
        if name.split(".")[0] in FORBIDDEN
    ]
    assert offenders == []


SCRIPT = """
import importlib, json, pkgutil, sys
import gymnasium
import boardenvs
from boardenvs.registry import gym_ids
for info in pkgutil.walk_packages(boardenvs.__path__, "boardenvs."):
    importlib.import_module(info.name)
for name in boardenvs.env_names():
    env = boardenvs.make(name)
    env.reset(seed=0)
    env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    boardenvs.make(name, raw=True).reset(seed=0)
for gym_id in gym_ids().values():
    env = gymnasium.make(gym_id)  # "random" opponents: built in
    env.reset(seed=0)
    env.step(int(env.unwrapped.action_masks().nonzero()[0][0]))
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)))
"""


def test_importing_boardenvs_and_making_every_env_loads_no_agent_and_no_learning_library():
    script = f"HEAVY = {HEAVY!r}\n{SCRIPT}"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
