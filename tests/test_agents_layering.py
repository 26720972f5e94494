"""Layering inside the agents package (``boardenvs_agents``, from ``agents/``): imports run one way.

From the bottom up (a module may import its own layer and the layers below, never one above, at any
depth: module level, inside functions, under ``TYPE_CHECKING``, or by ``importlib.import_module`` of a
literal name):

0. **foundation**: ``base`` (the ``Policy`` interface), ``keyvalue`` (the one ``key=value`` grammar),
   ``plugins`` (entry points), ``registry`` (agents by spec, found through the entry points: it lists
   none, so it imports nothing above ``base``), ``cli`` and ``config`` (what the command lines and the
   YAML configs share);
1. **games**: what agents know of each game (heuristics, progress, records), and ``human``;
2. **search**: MCTS and its evaluators, paired rollouts, the champion;
3. **arena**: games between agents, evaluations, leagues, balance, speed;
4. **learning**: training (which evaluates through the arena), algorithms, models, the network evaluator;
5. **apps**: ``rllib``, ``play`` (terminal play), ``web`` (the browser app), ``bench`` (the research
   benchmark, which trains and evaluates), and the package's ``__init__``.

A lower layer that needs an agent of a higher one asks the registry by spec (``make_policy("ppo:sorry_v0",
...)``), and the registry finds the factory through an entry point: the inversion PettingZoo's users
know from pytest plugins, and the one ``boardenvs`` itself uses to reach these agents
(``boardenvs.opponents``). The scripts (``scripts/``, installed as ``boardenvs_agents.scripts``) sit on top.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layering import imported_names

import boardenvs_agents

PACKAGE = Path(boardenvs_agents.__file__).resolve().parent
ROOT = "boardenvs_agents"

#: Layers from the bottom up; a module's layer is the first match of its path below the package.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("base", "keyvalue", "plugins", "registry", "cli", "config")),
    ("games", ("games", "human")),
    ("search", ("search",)),
    ("arena", ("arena",)),
    ("learning", ("learning",)),
    ("apps", ("rllib", "play", "web", "bench", "__init__")),
)


def module_name(path: Path) -> str:
    """``agents/search/mcts.py`` -> ``boardenvs_agents.search.mcts`` (a package: its ``__init__``'s name)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join([ROOT, *parts])


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``boardenvs_agents.<first>...`` (by its first name below the root).

    Raises:
        KeyError: for a module no layer claims (a new top-level module must be given a layer here).
    """
    parts = module.split(".")
    first = parts[1] if len(parts) > 1 else "__init__"
    for index, (_, members) in enumerate(LAYERS):
        if first in members:
            return index
    raise KeyError(f"{module}: no layer claims {first!r}; add it to LAYERS in {__file__}")


def own_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of the agents package in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    found = [(line, n) for line, n in imported_names(tree) if n.split(".")[0] == ROOT and n != ROOT]
    name = module_name(path).split(".")
    package = name if path.name == "__init__.py" else name[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == ROOT:
            found += [(node.lineno, f"{ROOT}.{alias.name}") for alias in node.names]  # from root import x
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            base = package[: len(package) - node.level + 1]
            found.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
    return sorted(found)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "models" not in p.relative_to(PACKAGE).parts[:1])


def test_every_module_has_a_layer():
    names = [module_name(p) for p in modules()]
    assert len(names) > 40
    for name in names:
        layer_of(name)  # raises for an unclaimed module


def test_imports_inside_the_agents_package_run_one_way():
    upward = []
    for path in modules():
        me = module_name(path)
        for line, name in own_imports(path):
            if layer_of(name) > layer_of(me):
                upward.append(
                    f"{path.relative_to(PACKAGE.parent)}:{line}: {LAYERS[layer_of(me)][0]} imports "
                    f"{name} ({LAYERS[layer_of(name)][0]})"
                )
    assert upward == []


def test_no_import_cycles_at_module_level():
    """Module-level imports of the package form no cycle (a cycle is what function-local imports used to
    hide)."""
    graph: dict[str, set[str]] = {}
    for path in modules():
        tree = ast.parse(path.read_text(), str(path))
        targets = set()
        for node in tree.body:  # module level only: imports inside functions run later
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(ROOT):
                targets.add(node.module)
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith(ROOT)}
        graph[module_name(path)] = targets

    def resolve(name: str) -> str | None:  # "pkg.mod.attr" -> the module it names
        while name and name not in graph:
            name = name.rpartition(".")[0]
        return name or None

    edges = {m: {t for t in (resolve(x) for x in ts) if t and t != m} for m, ts in graph.items()}
    # A package's __init__ importing its own submodules is no cycle of layers; skip parent -> child edges.
    edges = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in edges.items()}
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt) :] + [node, nxt]) if nxt in path else nxt)
            elif nxt not in state:
                visit(nxt, [*path, node])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_the_checker_finds_an_upward_import(tmp_path):
    """The rule can fail: a search module importing the learning layer is reported."""
    assert layer_of("boardenvs_agents.search.mcts") < layer_of("boardenvs_agents.learning.models")
    source = "def f():\n    from boardenvs_agents.learning.models import LearnedPolicy\n"
    names = [name for _, name in imported_names(ast.parse(source))]
    assert names == ["boardenvs_agents.learning.models"]
    assert layer_of(names[0]) > layer_of("boardenvs_agents.search.champion")
