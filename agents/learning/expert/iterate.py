"""Expert iteration's driver: :func:`run_iterations` alternates self-play with search and the learning
step, one folder per iteration, and resumes after any stop.

Iteration ``i`` (from 0) of an :class:`ExItConfig`:

1. **self-play**: :func:`~.selfplay.generate` plays ``games`` games with the current network searching
   (``searcher``: an MCTS it guides, or paired rollouts over it; ``search`` options, e.g. ``{"sims":
   16, "selection": "gumbel"}``; the other self-play keys in ``selfplay``) into
   ``out/iter_{i:03d}/data`` (the chunked, resumable folder of :mod:`.chunks`). The
   current network is the ``start`` model for iteration 0 (a learned spec such as ``ppo:sorry_v0``, the
   shipped model for the game's options, or a model file), else the model iteration ``i - 1`` saved;
2. **learning step**: the current network's model, loaded from its file, is trained by :func:`.fit.fit`
   on the examples of the last ``window`` iterations (this one and up to ``window - 1`` before it: a
   replay window; their games are numbered apart, so a held-out game stays whole);
3. it is saved to ``out/iter_{i:03d}/model.zip`` with the project's
   :func:`~boardenvs_agents.learning.models.save_model` and the start model's metadata (the game and
   options, the algorithm ``exit``, plus an ``expert_iteration`` entry), so that
   ``exit:out/iter_003/model.zip`` plays it and ``mcts:evaluator=exit:out/iter_003/model.zip``
   searches with it;
4. **evaluation** (every ``eval.every`` iterations, and the last): the network alone (greedy, no
   search) against each of ``eval.opponents`` in every other seat, seats rotated, ``eval.games`` games
   on the same seeds every time (``seed + 10_000``, as a training run's), so that the iterations'
   win rates are paired; then ``out/iter_{i:03d}/report.json``: the fit's report, the evaluation, the
   examples, the seconds.

**The start and the budget**: ``start: imitation`` makes the network of iteration 0 in the run, a
MaskablePPO network of the ``warm_start`` keys (a ``ppo`` training config's ``imitation``,
``policy_kwargs``, ``hyperparameters``) cloned from its teacher's games
(:func:`~boardenvs_agents.learning.run.imitation_model`), in ``out/start/`` with its seconds and, with
``eval.at_start``, its evaluation (``out/start/report.json``). ``examples`` is a budget in searched
decisions: the iterations stop after the one whose examples bring the run to it (``iterations`` is then
the most there may be); ``eval.every_examples`` evaluates after each iteration that passes a multiple of
it. The benchmark (:mod:`boardenvs_agents.bench.protocol`) runs expert iteration that way.

**Seeding**: iteration ``i`` plays its games with seed ``derive_seeds([seed, 0], iterations)[i]`` and
fits with ``derive_seeds([seed, 1], iterations)[i]`` (:func:`boardenvs.core.loop.derive_seeds`: a run
of more iterations begins with the same ones).

**Stopping and resuming**: every iteration starts from files (the previous model is read back from its
``model.zip``, the fit's optimiser is fresh), so a run killed anywhere and started again with the same
folder and config ends with the same final weights, bit for bit, as a run never stopped: an iteration
whose ``report.json`` is complete (written last, atomically, beside its ``model.zip``) is skipped; a
half-done one reads the finished chunks of its self-play, plays the others, and fits again from the
previous model. ``out/exit.json`` records the config (less ``iterations``, ``workers``, ``backend`` and
``eval``, which do not change the networks); a folder of another config is refused. Raising
``iterations`` and running again continues a finished run.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from boardenvs.core.loop import derive_seeds
from boardenvs.core.options import encoding_keys, make_options, options_to_dict
from boardenvs.registry import make_game
from boardenvs_agents.learning.expert.config import BACKENDS, SelfPlayConfig
from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.expert.fit import FitConfig, fit
from boardenvs_agents.learning.expert.selfplay import generate
from boardenvs_agents.learning.models import (
    atomic_write,
    git_commit,
    load_model,
    resolve_model_path,
    save_model,
)

#: The manifest of a run's folder.
MANIFEST_NAME = "exit.json"

#: First value of the manifest's and reports' ``format``; bumped if the layout changes.
EXIT_FORMAT = "boardenvs-exit-iterations/1"

#: Self-play keys :class:`ExItConfig` sets itself (the rest may be given in its ``selfplay`` section).
OWN_SELFPLAY_KEYS = ("game", "game_options", "games", "seed", "search", "searcher", "workers", "backend")

#: Keys of :class:`ExItConfig` that do not change the networks a run makes (left out of its manifest).
NOT_RESULTS_KEYS = ("algo", "iterations", "workers", "backend", "eval")

#: The algorithms whose models expert iteration starts from and saves (MaskablePPO actor-critics).
NETWORK_ALGORITHMS = ("ppo", "exit")

#: The evaluation's seed is the run's plus this (as a training run's), unless ``eval.seed`` sets it.
EVAL_SEED_OFFSET = 10_000

#: The folder of a run's start network (``start: imitation``) and its ``report.json``.
START_FOLDER = "start"

#: The ``start`` that makes the network of iteration 0 in the run by imitation (``warm_start``).
IMITATION = "imitation"

#: ``warm_start`` keys the expert-iteration config sets itself.
OWN_WARM_START_KEYS = ("game", "game_options", "seed", "algo")


@dataclass(frozen=True)
class IterationEvalConfig:
    """The evaluation of the network alone after an iteration (a config section, ``eval``)."""

    #: Evaluate after every ``every`` iterations (and after the last); 0: after the last only.
    every: int = 1
    #: Games per opponent, rounded up to a whole number of seatings.
    games: int = 400
    #: Agent specs in every other seat.
    opponents: tuple[str, ...] = ("heuristic",)
    #: Also after each iteration whose examples pass a multiple of this (0: not by examples).
    every_examples: int = 0
    #: Evaluate the start network too, before the first iteration (step 0 of ``eval.csv``).
    at_start: bool = False
    #: First seed of the evaluation games (``None``: the run's seed + :data:`EVAL_SEED_OFFSET`).
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ("every", "every_examples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"eval.{name} must be an integer >= 0, got {value!r}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise ValueError(f"eval.games must be a positive integer, got {self.games!r}")

    def due(self, iteration: int, last: bool, before: int = 0, after: int = 0) -> bool:
        """Whether iteration ``iteration`` (from 0) is evaluated: the ``last`` one, every ``every``-th,
        and one whose examples took the run from ``before`` to ``after`` past a multiple of
        ``every_examples``."""
        by_examples = self.every_examples > 0 and after // self.every_examples > before // self.every_examples
        return last or by_examples or (self.every > 0 and (iteration + 1) % self.every == 0)


@dataclass(frozen=True)
class ExItConfig:
    """A run of expert iteration (a YAML config, checked with :func:`~boardenvs.core.options.make_options`;
    see the module docstring). Every key but ``game`` and ``start`` has a default."""

    #: Registered env name.
    game: str = ""
    #: The game's options (``num_players`` and any other).
    game_options: dict[str, Any] = field(default_factory=dict)
    #: The algorithm (``boardenvs-train`` reads it): always ``exit``.
    algo: str = "exit"
    #: The network of iteration 0: a learned spec (``ppo:sorry_v0``: the shipped model for the game's
    #: options; ``exit:...`` goes on from an expert-iteration network), a MaskablePPO model file
    #: saved with metadata, or ``imitation``: a network made in the run from ``warm_start``.
    start: str = ""
    #: For ``start: imitation``: the keys of a ``ppo`` training config
    #: (:class:`~boardenvs_agents.learning.config.TrainConfig`) that make the start network: its
    #: ``imitation`` section (a teacher is required), ``policy_kwargs``, ``hyperparameters``.
    warm_start: dict[str, Any] = field(default_factory=dict)
    #: Iterations to run (with ``examples``: at most).
    iterations: int = 10
    #: A budget in searched decisions (examples): stop after the iteration that reaches it (``None``:
    #: run ``iterations``).
    examples: int | None = None
    #: Self-play games per iteration.
    games: int = 100
    #: Options of the search (:class:`~boardenvs_agents.search.mcts.MCTSPolicy`'s, or for ``searcher:
    #: rollouts`` the rollouts'), a budget in simulations (rounds), never seconds.
    search: dict[str, Any] = field(default_factory=lambda: {"sims": 16, "selection": "gumbel"})
    #: ``mcts`` (the network guides an MCTS, its targets the visit distributions) or ``rollouts`` (paired
    #: rollouts over the network, its targets their moves): :class:`~.config.SelfPlayConfig`.
    searcher: Literal["mcts", "rollouts"] = "mcts"
    #: Other :class:`~.config.SelfPlayConfig` keys (``opponents``, ``search_seats``, ``temperature_moves``,
    #: ``chunk_games``, ...), the same every iteration.
    selfplay: dict[str, Any] = field(default_factory=dict)
    #: The learning step's options (:class:`~.fit.FitConfig`).
    fit: FitConfig = field(default_factory=FitConfig)
    #: Train on the examples of the last ``window`` iterations (1: this iteration's only).
    window: int = 1
    #: The run's seed (see the module docstring).
    seed: int = 0
    #: Processes or actors that play the games (``local``: 1).
    workers: int = 1
    #: ``local``, ``process`` or ``ray`` (:class:`~.config.SelfPlayConfig`).
    backend: Literal["local", "process", "ray"] = "local"
    #: The evaluation of the network alone after the iterations (:class:`IterationEvalConfig`).
    eval: IterationEvalConfig = field(default_factory=IterationEvalConfig)

    def __post_init__(self) -> None:
        if self.algo != "exit":
            raise ValueError(f"algo of an expert-iteration config is 'exit', got {self.algo!r}")
        if not self.start:
            raise ValueError("'start' is required: a learned spec (ppo:sorry_v0) or a model file")
        for name in ("iterations", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        own = sorted(set(self.selfplay) & set(OWN_SELFPLAY_KEYS))
        if own:
            raise ValueError(f"selfplay.{own[0]} is set by the expert-iteration config itself ({own[0]})")
        if self.examples is not None and (
            isinstance(self.examples, bool) or not isinstance(self.examples, int) or self.examples < 1
        ):
            raise ValueError(f"examples must be a positive integer (or null), got {self.examples!r}")
        if self.start == IMITATION:
            self.warm_start_config()  # checks the warm start's keys now
        elif self.warm_start:
            raise ValueError(f"warm_start is for start: {IMITATION} (the start here is {self.start!r})")
        self.selfplay_config(0)  # checks the self-play keys (and game, games, seed, search) now

    @classmethod
    def from_dict(cls, raw: dict[str, Any], where: str = "") -> ExItConfig:
        """The config of a mapping (a YAML file), keys and types checked.

        Raises:
            boardenvs.core.options.OptionError: naming the key.
        """
        return make_options(cls, raw, where=where)

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML-able dict."""
        return options_to_dict(self)

    def results_dict(self) -> dict[str, Any]:
        """What the networks depend on: :meth:`to_dict` without :data:`NOT_RESULTS_KEYS`."""
        return {k: v for k, v in self.to_dict().items() if k not in NOT_RESULTS_KEYS}

    def selfplay_config(self, iteration: int) -> SelfPlayConfig:
        """The self-play of iteration ``iteration``.

        Raises:
            boardenvs.core.options.OptionError: naming a bad self-play key.
        """
        raw = {
            **self.selfplay,
            "game": self.game,
            "game_options": dict(self.game_options),
            "games": self.games,
            "seed": derive_seeds([self.seed, 0], iteration + 1)[iteration],
            "search": dict(self.search),
            "searcher": self.searcher,
            "workers": self.workers,
            "backend": self.backend,
        }
        return make_options(SelfPlayConfig, raw, path="selfplay.")

    def warm_start_config(self) -> Any:
        """The :class:`~boardenvs_agents.learning.config.TrainConfig` of ``start: imitation``'s network:
        ``warm_start`` with this config's game, options and seed, algorithm ``ppo``.

        Raises:
            boardenvs.core.options.OptionError: naming a bad ``warm_start`` key.
            ValueError: for a warm start without an imitation teacher.
        """
        from boardenvs_agents.learning.config import TrainConfig

        own = sorted(set(self.warm_start) & set(OWN_WARM_START_KEYS))
        if own:
            raise ValueError(f"warm_start.{own[0]} is set by the expert-iteration config itself")
        raw = {**self.warm_start, "algo": "ppo", "game": self.game, "game_options": dict(self.game_options),
               "seed": self.seed}  # fmt: skip
        config = make_options(TrainConfig, raw, path="warm_start.")
        if config.imitation.teacher is None:
            raise ValueError(f"start: {IMITATION} needs warm_start.imitation.teacher (e.g. heuristic)")
        return config

    def fit_seed(self, iteration: int) -> int:
        """The seed of iteration ``iteration``'s learning step."""
        return derive_seeds([self.seed, 1], iteration + 1)[iteration]


def start_model_path(config: ExItConfig, out: str | Path = ".") -> Path:
    """The model file of ``config.start``: a spec's model (``ppo:sorry_v0``: the shipped one for the
    config's game options), a path, or for ``imitation`` the one the run in ``out`` makes
    (``out/start/model.zip``).

    Raises:
        FileNotFoundError: for a model that does not exist.
        ValueError: for a spec of another algorithm than :data:`NETWORK_ALGORITHMS` or a shipped game
            with no model for these options.
    """
    if config.start == IMITATION:
        return Path(out) / START_FOLDER / "model.zip"
    algo, sep, name = config.start.partition(":")
    if not sep:
        return resolve_model_path(config.start, "ppo")
    if algo not in NETWORK_ALGORITHMS:
        raise ValueError(
            f"expert iteration trains MaskablePPO models (ppo:... or exit:...), got start {config.start!r}"
        )
    if name == config.game:
        options = make_game(config.game, **config.game_options).options
        return resolve_model_path(name, algo, options_to_dict(options), ignore=encoding_keys(options))
    return resolve_model_path(name, algo)


def iteration_folder(out: str | Path, iteration: int) -> Path:
    """``out/iter_{iteration:03d}``."""
    return Path(out) / f"iter_{iteration:03d}"


def finished_report(out: str | Path, iteration: int) -> dict[str, Any] | None:
    """The report of iteration ``iteration`` if it is finished (its ``model.zip`` and a complete
    ``report.json``), else ``None``."""
    folder = iteration_folder(out, iteration)
    try:
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    complete = report.get("format") == EXIT_FORMAT and report.get("iteration") == iteration
    return report if complete and (folder / "model.zip").is_file() else None


def run_iterations(
    config: ExItConfig,
    out: str | Path,
    progress: Callable[[str], None] | None = None,
    show_games: bool = False,
) -> list[dict[str, Any]]:
    """Run (or resume) the ``config.iterations`` iterations of ``config`` in the folder ``out`` (see the
    module docstring); returns every iteration's report.

    Args:
        config: the run.
        out: its folder (made if missing).
        progress: called with one line per iteration (default: printed to standard error).
        show_games: a progress bar over each iteration's self-play games.

    Raises:
        ValueError: for a folder of another config, or a start model that does not fit the game.
        FileNotFoundError: for a start model that does not exist.
    """
    say = progress if progress is not None else (lambda line: print(line, file=sys.stderr, flush=True))
    out = Path(out)
    game = make_game(config.game, **config.game_options)
    start = start_model_path(config, out)  # checked before anything is written
    _check_manifest(out, config)
    prepare_start(config, out, say)

    def network(iteration: int) -> Path:
        """The network iteration ``iteration`` searches with (and the fit starts from)."""
        return start if iteration == 0 else iteration_folder(out, iteration - 1) / "model.zip"

    def data(iteration: int, show: bool = False) -> Dataset:
        """Iteration ``iteration``'s examples (played now, or read back from its finished chunks)."""
        folder = iteration_folder(out, iteration) / "data"
        return generate(config.selfplay_config(iteration), network(iteration), out=folder, progress=show)

    reports: list[dict[str, Any]] = []
    total = 0  # examples so far
    for i in range(config.iterations):
        if config.examples is not None and total >= config.examples:
            break
        report = finished_report(out, i)
        if report is not None:
            say(f"exit {config.game} iteration {i + 1}/{config.iterations}: done already, skipped")
            reports.append(report)
            total += report["examples"]
            continue
        began = time.perf_counter()
        examples = data(i, show_games)
        played = time.perf_counter() - began
        last = i == config.iterations - 1 or (
            config.examples is not None and total + len(examples) >= config.examples
        )
        first = max(0, i - config.window + 1)
        window = [data(j) for j in range(first, i)] + [examples]
        model, metadata = load_model(network(i), game)
        fit_began = time.perf_counter()
        fitted = fit(model, _numbered_apart(window), **config.fit.to_dict(), seed=config.fit_seed(i))
        fit_seconds = time.perf_counter() - fit_began
        folder = iteration_folder(out, i)
        metadata = {
            # The start model's own evaluations ("eval") are not this network's: dropped.
            **{key: value for key, value in metadata.items() if key != "eval"},
            "algo": "exit",
            "commit": git_commit(),
            "expert_iteration": {"iteration": i, "start": config.start, "config": config.results_dict()},
        }
        save_model(model, folder / "model.zip", metadata)
        due = config.eval.due(i, last, total, total + len(examples))
        total += len(examples)
        evaluation = evaluate_network(config, folder / "model.zip") if due else []
        final = fitted.final
        report = {
            "format": EXIT_FORMAT,
            "iteration": i,
            "network": str(network(i)),
            "examples": len(examples),
            "games": config.games,
            "window_iterations": list(range(first, i + 1)),
            "window_examples": sum(len(d) for d in window),
            "selfplay_seconds": played,
            "examples_per_second": len(examples) / played if played > 0 else None,
            "fit_seconds": fit_seconds,
            "seconds": time.perf_counter() - began,
            "fit": fitted.to_dict(),
            "eval": evaluation,
        }
        atomic_write(
            folder / "report.json",
            lambda tmp, report=report: tmp.write_text(json.dumps(report, indent=2), encoding="utf-8"),
        )
        say(
            f"exit {config.game} iteration {i + 1}/{config.iterations}: {len(examples)} examples "
            f"({report['window_examples']} in the window) in {played:.1f} s, fit {fit_seconds:.1f} s: "
            f"held-out KL {final['heldout_kl']:.3f}, agreement {final['heldout_accuracy']:.3f}, "
            f"value MSE {final['heldout_value_mse']:.3f}"
            + "".join(
                f"; vs {rec['opponent']} {rec['win_rate']:.3f} [{rec['ci95'][0]:.3f}, {rec['ci95'][1]:.3f}]"
                for rec in evaluation
            )
            + f" -> {folder / 'model.zip'}"
        )
        reports.append(report)
    return reports


def evaluate_network(config: ExItConfig, path: str | Path) -> list[dict[str, Any]]:
    """The network saved at ``path`` alone (greedy, no search) against each of ``config.eval.opponents``
    in every other seat, seats rotated, ``config.eval.games`` games on the seeds of ``config.eval.seed``
    (by default ``config.seed + 10_000``): one record per opponent, as a training run's evaluation
    (:func:`~boardenvs_agents.learning.training.evaluate_against`)."""
    from boardenvs_agents.learning.models import LearnedPolicy
    from boardenvs_agents.learning.training import evaluate_against

    game = make_game(config.game, **config.game_options)
    network = LearnedPolicy.from_file(path, game, name="learner")
    seed = config.seed + EVAL_SEED_OFFSET if config.eval.seed is None else config.eval.seed
    return [evaluate_against(game, network, spec, config.eval.games, seed) for spec in config.eval.opponents]


def prepare_start(
    config: ExItConfig, out: str | Path, say: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """Make the start network of ``start: imitation`` and evaluate the start network (``eval.at_start``)
    unless ``out/start/report.json`` holds both already; returns that report (``seconds``: the
    imitation's, ``eval``: the records), or ``None`` for a run that has neither."""
    from boardenvs_agents.learning.run import imitation_model

    if config.start != IMITATION and not config.eval.at_start:
        return None
    report = start_report(out)
    if report is not None:
        return report
    folder = Path(out) / START_FOLDER
    seconds = 0.0
    if config.start == IMITATION:
        began = time.perf_counter()
        imitation_model(config.warm_start_config(), folder)
        seconds = time.perf_counter() - began
    start = start_model_path(config, out)
    evaluation = evaluate_network(config, start) if config.eval.at_start else []
    report = {"format": EXIT_FORMAT, "start": config.start, "network": str(start), "seconds": seconds,
              "eval": evaluation}  # fmt: skip
    text = json.dumps(report, indent=2)
    atomic_write(folder / "report.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    if say is not None:
        say(
            f"exit {config.game} start {config.start} ({seconds:.1f} s)"
            + "".join(f"; vs {rec['opponent']} {rec['win_rate']:.3f}" for rec in evaluation)
        )
    return report


def start_report(out: str | Path) -> dict[str, Any] | None:
    """``out/start/report.json`` if it is complete (:func:`prepare_start`), else ``None``."""
    try:
        report = json.loads((Path(out) / START_FOLDER / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if report.get("format") == EXIT_FORMAT else None


def _numbered_apart(datasets: list[Dataset]) -> Dataset:
    """The examples of ``datasets`` in one, each one's games numbered after the previous one's."""
    offset, parts = 0, []
    for dataset in datasets:
        parts.append(replace(dataset, games=(dataset.games + offset).astype(np.int32)))
        offset += int(dataset.games.max()) + 1 if len(dataset) else 0
    return Dataset.concatenate(parts)


def _check_manifest(out: Path, config: ExItConfig) -> None:
    """Write ``out/exit.json``, or check that the one there is this config's.

    Raises:
        ValueError: for a folder of another run (naming the first key that differs).
    """
    path = out / MANIFEST_NAME
    manifest = {"format": EXIT_FORMAT, "config": config.results_dict()}
    if path.exists():
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as err:
            raise ValueError(f"{path} is not an expert-iteration manifest ({err})") from err
        if found != manifest:
            old, new = found.get("config", {}), manifest["config"]
            key = next((k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)), "format")
            raise ValueError(
                f"{out} holds a run of another config ({key}: {old.get(key)!r} there, {new.get(key)!r} "
                "now); use another folder"
            )
        return
    atomic_write(path, lambda tmp: tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8"))
