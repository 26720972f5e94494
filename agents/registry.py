"""Policies by name: ``make_policy(spec, game_name, seed)``.

A spec is ``name`` or ``name:key=value,key=value`` (values read by the one ``key=value`` grammar of
:mod:`boardenvs_agents.keyvalue`: int, float, true/false, else text).
Learned agents name their model first: ``ppo:path/to/model.zip`` or ``ppo:sorry_v0`` (a model shipped in
``agents/models/``), then options, e.g. ``ppo:sorry_v0,deterministic=false``.

Names: ``random``, ``heuristic`` (one per game), ``human`` (a person at the terminal), ``mcts``
(``agents/search/mcts.py``), ``rollouts`` (a base policy improved by paired rollouts,
``agents/search/rollouts.py``), ``champion`` (the strongest shipped agent of a game,
``agents/search/champion.py``), ``rllib`` (a Ray RLlib run), and every registered learning algorithm
(``ppo``, ``dqn``, or one of yours: :mod:`boardenvs_agents.learning.algorithms`), whose record plays its
saved models.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from boardenvs_agents.base import Policy, RandomPolicy
from boardenvs_agents.keyvalue import KeyValueError, parse_item
from boardenvs_agents.learning.algorithms import algorithm_names, get_algorithm


def _heuristic(game_name: str, seed: int | None, game_options: dict[str, Any], **kwargs: Any) -> Policy:
    from boardenvs_agents.games import heuristic_class

    cls = heuristic_class(game_name)
    try:
        return cls(seed=seed, **kwargs)
    except TypeError as err:
        raise ValueError(f"bad options {sorted(kwargs)} for the {game_name} heuristic: {err}") from err


def _random(game_name: str, seed: int | None, game_options: dict[str, Any], **kwargs: Any) -> Policy:
    if kwargs:
        raise ValueError(f"the random policy takes no options, got {sorted(kwargs)}")
    return RandomPolicy(seed=seed)


#: Modules of the ``train`` extra that loading a learned agent imports.
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib")


def _learned(algo: str) -> Callable[..., Policy]:
    """The factory of ``<algo>:<model>`` specs: a player of the saved model (its record's
    :meth:`~boardenvs_agents.learning.algorithms.Algorithm.play`)."""

    def make(
        game_name: str,
        seed: int | None,
        game_options: dict[str, Any],
        model: str = "",
        deterministic: bool = True,
    ) -> Policy:
        from boardenvs.core.options import encoding_keys, options_to_dict
        from boardenvs.registry import make_game
        from boardenvs_agents.learning.models import read_metadata, resolve_model_path

        if not model:
            raise ValueError(f"name a model: '{algo}:<path to .zip>' or '{algo}:<game>' for a shipped one")
        # A shipped model by game name: the one trained for the options asked (``ppo:sorry_v0`` with
        # two players is the two-player model). Without options from the caller, the default model
        # plays the options it was trained with. Encoding options (Gangsi's action features) are the
        # model's own: it encodes its observations with them at any table of the same rules.
        if game_options is not None and model == game_name:
            asked = make_game(game_name, **game_options).options
            path = resolve_model_path(model, algo, options_to_dict(asked), ignore=encoding_keys(asked))
        else:
            path = resolve_model_path(model, algo)
        trained = read_metadata(path)["options"]
        options = dict(game_options) if game_options is not None else dict(trained)
        for key in encoding_keys(make_game(game_name, **options).options):
            if key in trained:
                options[key] = trained[key]
        game = make_game(game_name, **options)
        try:
            return get_algorithm(algo).play(
                path, game, deterministic=deterministic, seed=seed, name=f"{algo}:{model}"
            )
        except ModuleNotFoundError as err:
            if (err.name or "").partition(".")[0] not in TRAIN_MODULES:
                raise
            raise ImportError(
                f"agent '{algo}:{model}' is a Stable-Baselines3 model and needs the train extra "
                f'(torch, stable-baselines3, sb3-contrib): pip install "boardenvs[train]" '
                f"(missing module: {err.name})",
                name=err.name,
            ) from err

    return make


def _mcts(
    game_name: str,
    seed: int | None,
    game_options: dict[str, Any] | None,
    evaluator: Any = "rollout",
    **options: Any,
) -> Policy:
    """``mcts:...`` (:func:`boardenvs_agents.search.mcts.make_mcts`); ``evaluator=<algo>:<model>``
    (e.g. ``ppo:sorry_v0``) searches with that learned model's policy as prior and its value head as
    leaf value (:class:`boardenvs_agents.learning.evaluator.NetworkEvaluator`) instead of rollouts
    (``evaluator=rollout``, the default, set by ``rollout``, ``depth`` and ``leaf``)."""
    from boardenvs_agents.search.mcts import make_mcts

    if evaluator != "rollout":
        name, _ = parse_spec(str(evaluator))
        if name not in policy_names() or name == "mcts":
            raise ValueError(
                f"mcts: unknown evaluator {evaluator!r}; evaluators are 'rollout' (the default: random or "
                "heuristic rollouts, set with rollout=, depth=, leaf=) or a learned policy-value model, "
                f"'<algo>:<game or path to .zip>' (e.g. 'ppo:{game_name}')"
            )
        from boardenvs_agents.learning.evaluator import NetworkEvaluator

        options["evaluator"] = NetworkEvaluator(make_policy(str(evaluator), game_name, None, game_options))
    return make_mcts(game_name, seed, game_options, **options)


def _lazy(target: str) -> Callable[..., Policy]:
    """The factory ``"module:function"``, imported on first use (torch, ray, ... only when asked for)."""

    def make(*args: Any, **kwargs: Any) -> Policy:
        module, function = target.split(":")
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    return make


_FACTORIES: dict[str, Callable[..., Policy]] = {
    "random": _random,
    "heuristic": _heuristic,
    "human": _lazy("boardenvs_agents.human:make_human"),
    "mcts": _mcts,
    "rollouts": _lazy("boardenvs_agents.search.rollouts:make_rollouts"),
    "champion": _lazy("boardenvs_agents.search.champion:make_champion"),
    "rllib": _lazy("boardenvs_agents.rllib.policy:make_rllib"),
}


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


def _factory(name: str) -> Callable[..., Policy] | None:
    """The factory of specs named ``name``: a built-in agent, else a registered learning algorithm's
    models; ``None`` for neither."""
    if name in _FACTORIES:
        return _FACTORIES[name]
    return _learned(name) if name in algorithm_names() else None


def policy_names() -> list[str]:
    """Names a spec may start with: the built-in agents and the registered learning algorithms."""
    return sorted(set(_FACTORIES) | set(algorithm_names()))


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
