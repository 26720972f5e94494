"""Policies by name: ``make_policy(spec, game_name, seed)``.

A spec is ``name`` or ``name:key=value,key=value`` (values read by the one ``key=value`` grammar of
:mod:`boardenvs_agents.keyvalue`: int, float, true/false, else text).
Learned agents name their model first: ``ppo:path/to/model.zip`` or ``ppo:sorry_v0`` (a model shipped in
``agents/models/``), then options, e.g. ``ppo:sorry_v0,deterministic=false``.

Nothing here lists the agents: a name is an entry of the group ``boardenvs_agents.agents`` (a factory,
``name = "module:function"``, called as ``factory(game_name, seed, game_options, **options)``) or of
``boardenvs_agents.algorithms`` (a learning algorithm, whose record plays its saved models:
:meth:`~boardenvs_agents.learning.algorithms.Algorithm.agent`), both found through
:mod:`boardenvs_agents.plugins`. This package registers ``random`` (``base.py``), ``heuristic`` (the
game's record, ``games/``), ``human`` (a person at the terminal), ``mcts``, ``rollouts``,
``champion`` and ``clairvoyant`` (``search/``; the last a reference that reads the future chance, never
a champion), ``rllib`` (a Ray RLlib run), and the algorithms ``ppo`` and ``dqn`` (``pyproject.toml``);
a package of yours adds names the same way.

So the registry imports nothing above :mod:`boardenvs_agents.base`: it sits at the bottom of the
agents package's layers (``tests/test_agents_layering.py``), and any layer asks it for an agent by spec
(the champion for its learned base, MCTS for its rollout policy or its learned evaluator, the arena
and training for their opponents) without importing the layer that defines it.
"""

from __future__ import annotations

from typing import Any

from boardenvs_agents import plugins
from boardenvs_agents.base import Policy
from boardenvs_agents.keyvalue import KeyValueError, parse_item


def algorithm_names() -> list[str]:
    """The registered learning algorithms: the agent names whose first spec option is a saved model."""
    return plugins.names(plugins.ALGORITHMS)


def _factory(name: str) -> Any:
    """The factory of specs named ``name`` (an agent's, else a registered algorithm's models), or ``None``."""
    if name in plugins.entry_points_of(plugins.AGENTS):
        return plugins.load(plugins.AGENTS, name, "agent")
    if name in algorithm_names():
        return plugins.load(plugins.ALGORITHMS, name, "algorithm").agent
    return None


def resolve_opponent(spec: str, game_name: str, game_options: dict[str, Any]) -> Policy | None:
    """The opponent provider published under the ``boardenvs.opponents`` entry point (pyproject.toml).

    ``boardenvs.wrappers.SingleAgentEnv`` (and so ``gymnasium.make("boardenvs/Sorry-v0",
    opponents="heuristic")``) calls it for every spec string other than its built-in ``"random"``:
    the policy :func:`make_policy` builds for the game's options, or ``None`` for a spec whose name is
    not one of :func:`policy_names` (another installed provider may know it). The env reseeds the
    policy at every reset.
    """
    name, _ = parse_spec(spec)
    if _factory(name) is None:
        return None
    return make_policy(spec, game_name, game_options=game_options)


def policy_names() -> list[str]:
    """Names a spec may start with: the registered agents and learning algorithms."""
    return sorted(set(plugins.names(plugins.AGENTS)) | set(algorithm_names()))


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the name and its options (each value read by
    :func:`boardenvs_agents.keyvalue.parse_item`).

    Raises:
        ValueError: for an option that is not ``key=value`` or a value that cannot be read, naming it.
    """
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    if rest:
        for i, item in enumerate(rest.split(",")):
            if i == 0 and "=" not in item:  # "ppo:path/to/model.zip": the model comes first
                options["model"] = item.strip()
                continue
            try:
                key, value = parse_item(item, "option")
            except KeyValueError as err:
                raise ValueError(
                    f"bad agent spec {spec!r}: {err} (options are key=value pairs separated by commas)"
                ) from None
            options[key] = value
    return name.strip(), options


def make_policy(
    spec: str, game_name: str, seed: int | None = None, game_options: dict[str, Any] | None = None
) -> Policy:
    """Build the policy named by ``spec`` for ``game_name``, with its own generator seeded by ``seed``.

    ``game_options`` are the options of the games it will play; a learned model trained for other
    options (or another game) is refused with a message that says which.

    Raises:
        ValueError: for an unknown name, options the policy does not take, or a model trained for
            another game or other options.
        FileNotFoundError: for a model file that does not exist.
    """
    name, options = parse_spec(spec)
    factory = _factory(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {policy_names()}")
    try:
        return factory(game_name, seed, game_options, **options)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(options)} in agent spec {spec!r}: {err}") from err


def make_evaluator(spec: str, game_name: str, game_options: dict[str, Any] | None = None) -> Any:
    """The search evaluator of a learned model's spec (``mcts:evaluator=ppo:sorry_v0``): its algorithm
    record's :meth:`~boardenvs_agents.learning.algorithms.Algorithm.evaluator`, the model's policy as
    prior and its value head as leaf value.

    Raises:
        ValueError: for a spec that names no registered algorithm, or a model without a value head.
    """
    name, options = parse_spec(spec)
    if name not in algorithm_names():
        known = name in policy_names() and name != "mcts"
        what = f"evaluator {spec!r} needs a learned model" if known else f"unknown evaluator {spec!r}"
        raise ValueError(
            f"mcts: {what}; an evaluator is 'rollout' (the "
            "default: random or heuristic rollouts, set with rollout=, depth=, leaf=) or a learned "
            f"policy-value model, '<algo>:<game or path to .zip>' with a registered algorithm "
            f"{algorithm_names()} (e.g. 'ppo:{game_name}')"
        )
    record = plugins.load(plugins.ALGORITHMS, name, "algorithm")
    try:
        return record.evaluator(game_name, game_options, **options)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(options)} in evaluator spec {spec!r}: {err}") from err


def trained_for(spec: str) -> tuple[str, dict[str, Any]] | None:
    """The game and options the model of a learned spec (``ppo:runs/x/final_model.zip``, ``ppo:sorry_v0``)
    was trained for, read from its metadata; ``None`` for a spec of another agent or without a model.

    Raises:
        ValueError: for a model file that does not exist (naming the shipped models) or that is not a
            boardenvs model.
    """
    name, options = parse_spec(spec)
    model = options.get("model")
    if name not in algorithm_names() or not isinstance(model, str) or not model:
        return None
    record = plugins.load(plugins.ALGORITHMS, name, "algorithm")
    try:
        return record.trained_for(model)
    except (FileNotFoundError, ValueError) as err:
        raise ValueError(f"bad agent spec {spec!r}: {err}") from err
