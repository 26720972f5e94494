"""Training runs: start one, resume one, finish it. A resumed run is the run that was never stopped.

    from boardenvs_agents.learning.config import load_config
    from boardenvs_agents.learning.run import resume_run, start_run

    result = start_run(load_config("sorry_v0/ppo"), runs="runs")
    result = resume_run("runs/sorry_v0__ppo__0__20261129-130501")

A run directory holds ``config.yaml`` (the exact config), ``tb/`` (TensorBoard), ``eval.csv``,
``checkpoint/step_<N>/`` (the last two checkpoints, :mod:`boardenvs_agents.learning.checkpoint`),
``snapshots/step_<N>.zip`` (self-play) and, at the end, ``final_model.zip`` and ``metrics.json``.

**What a resume guarantees.** Checkpoints are taken at rollout boundaries, after the rollout's
update, every ``checkpoint_every`` steps and once more at the end of training. A checkpoint holds
everything the next rollout depends on: the weights and optimizer state, SB3's counters, last
observations and episode starts; each env's position, generator, learner seat and seated opponents
(with their generators), and its self-play pool; the torch, numpy and Python generators; the
callbacks' state (when they last acted, the evaluation history). So a run killed at any moment (even
SIGKILL during a write) and resumed, as often as it takes, ends with the same step count, the same
number of updates, the same ``eval.csv`` rows (rows logged after the checkpoint are dropped and
played again, never duplicated) and the same final weights, bit for bit, as the run that was not
stopped, on the same machine, library versions and ``torch_threads``. That holds for MaskablePPO and
for masked DQN (its replay buffer is in the checkpoint), and for any registered algorithm whose
checkpoint files hold all it trains on
(:meth:`~boardenvs_agents.learning.algorithms.Algorithm.checkpoint_files`). The work since the last
checkpoint is done again. Not restored: TensorBoard events written after the checkpoint appear twice,
and timings (steps per second) are per session.

An algorithm whose record names a runner of its own (expert iteration) is handed its configs and run
directories by :func:`start_run_from_file` and :func:`resume_run`.

A resume is refused, with nothing written, when the run directory, its config or every checkpoint
is unreadable, or when ``--set`` tries to change anything but :data:`RESUMABLE_KEYS`; the run stays
resumable. An unreadable newest checkpoint (a truncated ``model.zip`` or ``state.json``) falls back
to the older one with a one-line warning. Snapshot paths are stored relative to the run directory,
which may be moved or copied.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core.options import OptionError
from boardenvs_agents.cli import progress_bar
from boardenvs_agents.config import read_config
from boardenvs_agents.learning.algorithms import algorithm_names, get_algorithm
from boardenvs_agents.learning.checkpoint import (
    checkpoint_dirs,
    read_state,
    remove_leftovers,
    write_checkpoint,
)
from boardenvs_agents.learning.config import TrainConfig, check_config, load_config, save_config
from boardenvs_agents.learning.models import atomic_write, save_model

#: Config keys a resume may change with ``--set`` (anything else would make it another run).
RESUMABLE_KEYS = ("total_timesteps", "checkpoint_every", "vec_env", "workers", "torch_threads")


class RunError(Exception):
    """A run that cannot be started or resumed as asked; nothing was written."""


@dataclass
class RunResult:
    """What a call to :func:`start_run` or :func:`resume_run` did."""

    #: The run directory.
    run_dir: Path
    #: The run's config (an algorithm with a runner of its own has its own config class).
    config: TrainConfig | Any
    #: ``metrics.json``: steps, updates, timings of this session, the final evaluation.
    metrics: dict[str, Any]
    #: The step resumed from (``None``: started from scratch; a runner's own unit, e.g. iterations).
    resumed_from: int | None = None
    #: True when the run had already finished and nothing was done.
    already_finished: bool = False


def say(message: str) -> None:
    """A one-line message on standard error (above the progress bar, when one is showing)."""
    try:
        from tqdm import tqdm
    except ImportError:
        print(message, file=sys.stderr, flush=True)
        return
    tqdm.write(message, file=sys.stderr)


def new_run_dir(run_dir: Path) -> Path:
    """Create the empty directory of a new run (an empty one that exists is taken).

    Raises:
        RunError: when ``run_dir`` exists with files in it (or as a file), or cannot be created.
    """
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise RunError(f"{run_dir} already exists; use --resume to continue it or --name for a new run")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RunError(f"cannot create the run directory {run_dir}: {err}") from err
    return run_dir


def default_run_name(config: TrainConfig) -> str:
    """``<game>__<algo>__<seed>__<date>-<time>``."""
    return f"{config.game}__{config.algo}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"


def start_run_from_file(
    path: str | Path | None,
    overrides: Sequence[str] = (),
    runs: str | Path = "runs",
    name: str | None = None,
    progress: bool = True,
) -> RunResult:
    """Start a run of the config file ``path`` with ``--set`` overrides: :func:`start_run`, or the
    algorithm's own runner (:attr:`Algorithm.runner <boardenvs_agents.learning.algorithms.Algorithm.runner>`:
    expert iteration) when its ``algo`` has one.

    Raises:
        OptionError: for a bad config (the standard run's check).
        RunError: for a run that cannot be started.
    """
    raw, where = read_config(path, overrides)
    runner = _runner_of(raw.get("algo", TrainConfig.algo))
    if runner is not None:
        return runner.start_run(raw, where, runs, name, progress)
    return start_run(load_config(path, overrides), runs, name, progress)


def _runner_of(algo: Any) -> Any:
    """The runner module of the registered algorithm ``algo``, or ``None`` (the standard run; also for
    a name nobody registered, which the config check then names)."""
    if not isinstance(algo, str) or algo not in algorithm_names():
        return None
    return get_algorithm(algo).runner_module


def start_run(
    config: TrainConfig, runs: str | Path = "runs", name: str | None = None, progress: bool = True
) -> RunResult:
    """Create ``runs/<name>`` with the config and train to ``config.total_timesteps``.

    Raises:
        RunError: for a bad config or a run directory that exists already (nothing is written).
    """
    try:
        check_config(config)
    except OptionError as err:
        raise RunError(str(err)) from err
    run_dir = new_run_dir(Path(runs) / (name or default_run_name(config)))
    save_config(config, run_dir / "config.yaml")
    return _Session(run_dir, config, None, progress).run()


def resume_run(run_dir: str | Path, overrides: Sequence[str] = (), progress: bool = True) -> RunResult:
    """Continue a run from its newest readable checkpoint (from scratch if it has none yet).

    ``overrides`` (``key=value``) may change only :data:`RESUMABLE_KEYS`, e.g. raise
    ``total_timesteps`` to train a finished run further. A finished run resumed does nothing.

    Raises:
        RunError: naming what is wrong, before anything is written (the run stays resumable).
    """
    run_dir = Path(run_dir)
    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise RunError(f"{run_dir} is not a run directory (no config.yaml)")
    try:
        raw, _ = read_config(config_file)
    except OptionError as err:
        raise RunError(str(err)) from err
    runner = _runner_of(raw.get("algo"))
    if runner is not None:
        return runner.resume_run(run_dir, overrides, progress)
    for item in overrides:
        key = item.partition("=")[0].strip()
        if key not in RESUMABLE_KEYS:
            raise RunError(
                f"--set {key}: a resumed run keeps its config; only {', '.join(RESUMABLE_KEYS)} may change "
                "(start a new run for anything else)"
            )
    try:
        saved = load_config(config_file)
        config = load_config(config_file, overrides) if overrides else saved
    except OptionError as err:
        raise RunError(str(err)) from err
    checkpoint = _load_checkpoint(run_dir, config)
    if checkpoint is None:
        say(f"{run_dir} has no checkpoint yet: starting it from step 0")
    else:
        _check_same_run(checkpoint.state.get("config"), config, run_dir)
        metrics = _finished_metrics(run_dir, checkpoint.step)
        if checkpoint.step >= config.total_timesteps and metrics is not None:
            say(f"{run_dir} finished at step {checkpoint.step:,}; nothing to do")
            return RunResult(run_dir, config, metrics, checkpoint.step, already_finished=True)
    # -- everything checked: from here on, the run directory changes ------------------------------------
    remove_leftovers([run_dir, run_dir / "checkpoint", run_dir / "snapshots"])
    if checkpoint is not None:
        for folder in checkpoint.unreadable:
            _remove_tree(folder)
        say(f"resuming {run_dir} at step {checkpoint.step:,}")
    if config != saved:
        atomic_write(config_file, lambda tmp: save_config(config, tmp))
    return _Session(run_dir, config, checkpoint, progress).run()


def require_teacher(config: TrainConfig) -> None:
    """Check that ``config`` names an imitation teacher.

    Raises:
        OptionError: for a config without one.
    """
    if config.imitation.teacher is None:
        raise OptionError("imitation needs imitation.teacher (an agent spec, e.g. heuristic)")


def imitate(model: Any, config: TrainConfig, run_dir: Path, progress: bool = False) -> dict[str, Any]:
    """The warm start of ``model`` (:mod:`boardenvs_agents.learning.imitation`, ``config.imitation``), its
    report written to ``run_dir/imitation.json`` and returned: the teacher's games, the cloning, then
    each DAgger round and the cloning again; ``progress``: progress bars over the games.

    Raises:
        OptionError: for a config without an imitation teacher.
    """
    from boardenvs_agents.learning.imitation import (
        clone_policy,
        collect_demonstrations,
        merge_demonstrations,
    )
    from boardenvs_agents.learning.models import LearnedPolicy
    from boardenvs_agents.learning.training import learner_view

    imitation = config.imitation
    require_teacher(config)
    game, view = learner_view(config)
    start = time.perf_counter()

    def collect(games: int, seed: Any, label: str, actor: LearnedPolicy | None = None) -> Any:
        bar = progress_bar(games, label) if progress else None
        try:
            return collect_demonstrations(
                game, view, imitation.teacher, games, seed, float(model.gamma),
                progress=None if bar is None else lambda done: bar.update(done - bar.n),
                opponents=imitation.opponents, record=imitation.seats,
                seat_teachers=imitation.seat_teachers, actor=actor,
            )  # fmt: skip
        finally:
            if bar is not None:
                bar.close()

    def fit(demos: Any, stage: str) -> list[dict[str, float]]:
        return clone_policy(
            model, demos, imitation.epochs, imitation.batch_size, imitation.learning_rate,
            imitation.value_coef, config.seed,
            progress=lambda r: say(
                f"imitation{stage} epoch {r['epoch']}/{imitation.epochs}: held-out accuracy "
                f"{r['heldout_accuracy']:.3f}, value mse {r['heldout_value_mse']:.3f}"
            ),
        )  # fmt: skip

    demos = collect(imitation.games, config.seed, f"imitation: {imitation.teacher} games")
    say(f"imitation: {len(demos):,} decisions of {imitation.games:,} {imitation.teacher} games")
    reports = fit(demos, "")
    rounds = []
    for r in range(1, imitation.dagger_rounds + 1):
        # DAgger: the policy plays (greedy, as evaluated), the teacher labels; the round's games
        # have seeds of their own.
        actor = LearnedPolicy(model, game, view.learner_seat, view.mask_in_observation, name="learner")
        new = collect(imitation.dagger_games, [config.seed, r], f"DAgger round {r}: games", actor)
        demos = merge_demonstrations([demos, new])
        say(f"DAgger round {r}: {len(new):,} decisions labelled, {len(demos):,} in all")
        rounds.append({"round": r, "games": imitation.dagger_games, "decisions": len(new),
                       "epochs": fit(demos, f" (DAgger round {r})")})  # fmt: skip
    report = {
        "teacher": imitation.teacher,
        "opponents": imitation.opponents,
        "seats": imitation.seats,
        "seat_teachers": imitation.seat_teachers,
        "games": imitation.games,
        "decisions": len(demos),
        "epochs": reports,
        "dagger": rounds,
        "seconds": time.perf_counter() - start,
    }
    text = json.dumps(report, indent=2)
    atomic_write(run_dir / "imitation.json", lambda tmp: tmp.write_text(text))
    return report


def imitation_model(config: TrainConfig, folder: str | Path, progress: bool = False) -> Path:
    """A network of ``config`` (its algorithm, ``policy_kwargs`` and ``hyperparameters``, built from its
    seed) warm-started by :func:`imitate` and nothing else, saved with its metadata to
    ``folder/model.zip`` beside ``imitation.json``; returns the model's path. Expert iteration's
    ``start: imitation`` (:mod:`boardenvs_agents.learning.expert`) starts from it.

    Raises:
        OptionError: for a config without an imitation teacher.
    """
    import torch

    from boardenvs_agents.learning.training import final_metadata, make_vec_env

    require_teacher(config)  # before anything is built or written
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(config, root=folder)
    try:
        hyperparameters, policy_kwargs = config.hyperparameters, config.policy_kwargs
        model = config.algorithm.build(vec_env, hyperparameters, policy_kwargs, seed=config.seed)
        imitate(model, config, folder, progress)
        save_model(model, folder / "model.zip", final_metadata(config, 0))
    finally:
        vec_env.close()
    return folder / "model.zip"


# -- checkpoints ----------------------------------------------------------------------------------
@dataclass
class _Checkpoint:
    folder: Path
    state: dict[str, Any]
    model: Any
    unreadable: list[Path]

    @property
    def step(self) -> int:
        return int(self.state["step"])


def _load_checkpoint(run_dir: Path, config: TrainConfig) -> _Checkpoint | None:
    """The newest checkpoint that reads (model and replay buffer loaded); ``None`` without any."""
    folders = checkpoint_dirs(run_dir / "checkpoint")
    if not folders and (run_dir / "checkpoint" / "state.json").exists():
        raise RunError(
            f"{run_dir}/checkpoint was written by an older boardenvs (one checkpoint, not resumable "
            "exactly); start a new run"
        )
    problems = []
    for index, folder in enumerate(folders):
        try:
            state = read_state(folder)
            for key in ("step", "envs", "rng", "callbacks", "config"):
                if key not in state:
                    raise ValueError(f"state.json has no {key!r}")
            for path in state["callbacks"]["selfplay"]["paths"][-config.selfplay.max_snapshots :]:
                if not (run_dir / path).is_file():
                    raise ValueError(f"its self-play snapshot {path} is missing")
            model = config.algorithm.load_checkpoint(folder)
        except Exception as err:  # anything unreadable: fall back to the older checkpoint
            problems.append(f"{folder.name}: {type(err).__name__}: {err}")
            continue
        if problems:
            say(f"warning: checkpoint {problems[0]}; falling back to {folder.name}")
        return _Checkpoint(folder, state, model, folders[:index])
    if folders:
        raise RunError(f"no readable checkpoint in {run_dir / 'checkpoint'}: " + "; ".join(problems))
    return None


#: The config's sections (dataclasses of their own: ``imitation``, ``eval``, ...), as opposed to free-form
#: mappings such as ``opponents`` or ``hyperparameters``, where a missing key means something.
_SECTIONS = tuple(
    f.name
    for f in dataclasses.fields(TrainConfig)
    if dataclasses.is_dataclass(getattr(TrainConfig(), f.name))
)


def _check_same_run(saved: Any, config: TrainConfig, run_dir: Path) -> None:
    """Refuse a config.yaml changed by hand since the checkpoint (but for the resumable keys)."""
    now = json.loads(json.dumps(config.to_dict()))  # as the checkpoint stored it (lists, not tuples)
    if not isinstance(saved, dict):
        raise RunError(f"{run_dir}: the checkpoint does not record its config")
    # Sections and section keys added since the checkpoint was written count as their defaults (e.g.
    # ``imitation``, ``imitation.dagger_rounds``).
    defaults = json.loads(json.dumps(TrainConfig().to_dict()))
    saved = {**{k: v for k, v in defaults.items() if k not in saved}, **saved}
    for key in _SECTIONS:
        if isinstance(saved.get(key), dict):
            saved[key] = {**defaults[key], **saved[key]}
    changed = sorted(
        k for k in set(saved) | set(now) if k not in RESUMABLE_KEYS and saved.get(k) != now.get(k)
    )
    if changed:
        raise RunError(
            f"{run_dir}/config.yaml differs from the config the checkpoint was trained with in {changed}; "
            "a resumed run keeps its config"
        )


def _finished_metrics(run_dir: Path, step: int) -> dict[str, Any] | None:
    """``metrics.json`` if the run finished at ``step`` (final model and metrics written)."""
    try:
        metrics = json.loads((run_dir / "metrics.json").read_text())
    except (OSError, ValueError):
        return None
    if not (run_dir / "final_model.zip").is_file() or not isinstance(metrics, dict):
        return None
    return metrics if metrics.get("timesteps") == step else None


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def rng_state() -> dict[str, Any]:
    """The global generators SB3 and torch draw from (torch, numpy, Python), JSON-able."""
    import torch

    name, keys, pos, has_gauss, gauss = np.random.get_state()
    version, internal, python_gauss = random.getstate()
    return {
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode(),
        "numpy": [name, [int(k) for k in keys], int(pos), int(has_gauss), float(gauss)],
        "python": [version, list(internal), python_gauss],
    }


def set_rng_state(data: dict[str, Any]) -> None:
    """Restore :func:`rng_state`."""
    import torch

    torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(data["torch"])), dtype=torch.uint8))
    name, keys, pos, has_gauss, gauss = data["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
    version, internal, python_gauss = data["python"]
    random.setstate((version, tuple(internal), python_gauss))


# -- one session of training ----------------------------------------------------------------------
class _Session:
    """Train from scratch or from a checkpoint to the end, then the final evaluation and files."""

    def __init__(self, run_dir: Path, config: TrainConfig, checkpoint: _Checkpoint | None, progress: bool):
        from boardenvs_agents.learning.training import Stopwatch

        self.run_dir, self.config, self.checkpoint, self.progress = run_dir, config, checkpoint, progress
        self.saved_step = checkpoint.step if checkpoint is not None else None
        #: The training's seconds (``eval.json``'s ``wall_seconds``): a new run's imitation counts too.
        self.stopwatch = Stopwatch()

    def run(self) -> RunResult:
        import torch

        from boardenvs_agents.learning.training import make_vec_env

        torch.set_num_threads(self.config.torch_threads)
        vec_env = make_vec_env(self.config, root=self.run_dir)
        try:
            return self._train(vec_env)
        finally:
            vec_env.close()

    def _train(self, vec_env: Any) -> RunResult:
        from boardenvs_agents.learning.training import (
            CheckpointCallback,
            EvaluationCallback,
            ProgressCallback,
            SelfPlayCallback,
            env_wait_seconds,
            final_metadata,
        )

        config, run_dir, checkpoint = self.config, self.run_dir, self.checkpoint
        algorithm = config.algorithm
        if checkpoint is None:
            model = algorithm.build(
                vec_env, config.hyperparameters, config.policy_kwargs, seed=config.seed,
                tensorboard_log=str(run_dir / "tb"),
            )  # fmt: skip
            if config.init_model is not None:
                self._init_from(model, Path(config.init_model))
            if config.imitation.teacher is not None:
                imitate(model, config, run_dir, self.progress)
        else:
            model = checkpoint.model
            model.set_env(vec_env, force_reset=False)  # keeps the last observations and episode starts
            model.tensorboard_log = str(run_dir / "tb")  # the directory may have moved
        self.model, self.vec_env = model, vec_env

        self.selfplay = SelfPlayCallback(config, run_dir)
        self.evaluation = EvaluationCallback(config, run_dir, say, self.stopwatch)
        self.checkpointing = CheckpointCallback(config.checkpoint_every, self.save)
        callbacks = [self.evaluation, self.checkpointing]
        if config.opponents.get("self", 0) > 0:
            callbacks.insert(0, self.selfplay)
        if self.progress:
            callbacks.append(ProgressCallback(config.total_timesteps))
        if checkpoint is not None:
            self._restore(checkpoint.state)
        else:
            self.evaluation.write_csv()  # rows of a session killed before its first checkpoint go

        start_steps = model.num_timesteps
        remaining = config.total_timesteps - model.num_timesteps
        start = time.perf_counter()
        if remaining > 0:
            if checkpoint is not None:
                set_rng_state(checkpoint.state["rng"])  # last: loading the model and snapshots drew from them
            algorithm.train(model, remaining, callbacks)
        else:  # a resumed run at its total whose final files were not written: just finish it
            from stable_baselines3.common.logger import configure

            model.set_logger(configure(None, []))
            for callback in callbacks:
                callback.init_callback(model)
        seconds = time.perf_counter() - start
        env_seconds = env_wait_seconds(vec_env)
        if self.saved_step != model.num_timesteps:
            self.save()  # the end of training, so that a kill during the final evaluation loses nothing

        final_eval = self.evaluation.evaluate()
        metrics = {
            "game": config.game,
            "algo": config.algo,
            "timesteps": model.num_timesteps,
            "n_updates": model._n_updates,
            "train_seconds_this_session": seconds,
            "steps_per_second": (model.num_timesteps - start_steps) / seconds if seconds else None,
            "env_seconds_this_session": env_seconds,
            "env_share_of_time": env_seconds / seconds if seconds else None,
            "final_eval": final_eval,
        }
        save_model(
            model, run_dir / "final_model.zip", final_metadata(config, model.num_timesteps, eval=final_eval)
        )
        atomic_write(run_dir / "metrics.json", lambda tmp: tmp.write_text(json.dumps(metrics, indent=2)))
        return RunResult(run_dir, config, metrics, checkpoint.step if checkpoint is not None else None)

    def _init_from(self, model: Any, path: Path) -> None:
        """Start from the weights of the saved model ``path`` (``init_model``; its spaces were checked
        with the config)."""
        source = self.config.algorithm.load(path)
        model.policy.load_state_dict(source.policy.state_dict())
        say(f"init_model: weights of {path}")

    def save(self) -> None:
        """Write a checkpoint of everything the next rollout depends on."""
        model = self.model
        files = self.config.algorithm.checkpoint_files(model)
        state = {
            "n_updates": model._n_updates,
            "time": time.time(),
            "config": self.config.to_dict(),
            "envs": self.vec_env.env_method("state_dict"),
            "rng": rng_state(),
            "callbacks": {
                "selfplay": self.selfplay.state_dict(),
                "evaluation": self.evaluation.state_dict(),
                "checkpoint": self.checkpointing.state_dict(),
            },
        }
        write_checkpoint(self.run_dir / "checkpoint", model.num_timesteps, files, state)
        self.saved_step = model.num_timesteps

    def _restore(self, state: dict[str, Any]) -> None:
        callbacks = state["callbacks"]
        self.selfplay.load_state_dict(callbacks["selfplay"], self.vec_env, self.config.selfplay.max_snapshots)
        self.evaluation.load_state_dict(callbacks["evaluation"])
        self.evaluation.write_csv()  # drops the rows logged after the checkpoint
        self.checkpointing.load_state_dict(callbacks["checkpoint"])
        if len(state["envs"]) != self.vec_env.num_envs:
            raise RunError(f"the checkpoint has {len(state['envs'])} envs, the run {self.vec_env.num_envs}")
        for index, env_state in enumerate(state["envs"]):
            self.vec_env.env_method("load_state_dict", env_state, indices=[index])
