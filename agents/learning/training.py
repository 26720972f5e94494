"""The pieces of a training run that :mod:`boardenvs_agents.learning.run` puts together.

* :func:`make_vec_env`: the single-agent view of the game
  (:func:`~boardenvs_agents.learning.envs.make_single_agent_env`), one learner seat per episode, the other
  seats from an :class:`~boardenvs_agents.learning.selfplay.OpponentPool`, network opponents answered in
  batches (:class:`~boardenvs_agents.learning.vec_env.BatchedVecEnv`), in one process or several;
* callbacks for Stable-Baselines3: a progress bar, and, at rollout boundaries (after the update),
  checkpoints (:class:`CheckpointCallback`, written by :mod:`boardenvs_agents.learning.run`), self-play
  snapshots (:class:`SelfPlayCallback`) and evaluation against baselines with seats rotated
  (:class:`EvaluationCallback`), each with a ``state_dict()`` for checkpoints;
* :func:`evaluate_against`: win rates of a policy against a baseline with 95% Wilson intervals.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from boardenvs.core.game import Game
from boardenvs.registry import make_game
from boardenvs.wrappers.single_agent import LearnerView
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.arena.runner import Arena, Matchup, seatings
from boardenvs_agents.base import Policy
from boardenvs_agents.learning.config import TrainConfig
from boardenvs_agents.learning.envs import make_single_agent_env
from boardenvs_agents.learning.models import LearnedPolicy, atomic_write, model_metadata, save_model
from boardenvs_agents.learning.selfplay import OpponentPool, SnapshotCache
from boardenvs_agents.learning.vec_env import BatchedVecEnv


class TimedEnv(gymnasium.Wrapper):
    """Counts the seconds spent inside the env's ``step`` and ``reset`` (the env's share of training)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.env_seconds = 0.0

    def step(self, action: Any) -> Any:
        """Timed ``step``."""
        start = time.perf_counter()
        out = self.env.step(action)
        self.env_seconds += time.perf_counter() - start
        return out

    def reset(self, **kwargs: Any) -> Any:
        """Timed ``reset``."""
        start = time.perf_counter()
        out = self.env.reset(**kwargs)
        self.env_seconds += time.perf_counter() - start
        return out

    def action_masks(self) -> Any:
        """The wrapped env's legal-action mask."""
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]

    def update_opponents(self, method: str, *args: Any) -> Any:
        """Forwarded to :meth:`SingleAgentEnv.update_opponents`."""
        return self.env.unwrapped.update_opponents(method, *args)  # type: ignore[attr-defined]

    def state_dict(self) -> dict[str, Any]:
        """:meth:`SingleAgentEnv.state_dict` and the episode in progress of SB3's ``Monitor``."""
        monitor = self.env
        assert isinstance(monitor, Monitor)
        return {
            "env": self.env.unwrapped.state_dict(),  # type: ignore[attr-defined]
            "monitor": {
                "rewards": [float(r) for r in monitor.rewards],
                "needs_reset": monitor.needs_reset,
                "total_steps": monitor.total_steps,
            },
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`: the env continues its episode without a reset."""
        self.env.unwrapped.load_state_dict(data["env"])  # type: ignore[attr-defined]
        monitor = self.env
        assert isinstance(monitor, Monitor)
        monitor.rewards = list(data["monitor"]["rewards"])
        monitor.needs_reset = bool(data["monitor"]["needs_reset"])
        monitor.total_steps = int(data["monitor"]["total_steps"])


def _env_factory(
    config: TrainConfig, root: Path | None, cache: SnapshotCache, wrap: bool
) -> Callable[[], Any]:
    mask_in_observation = config.algorithm.mask_in_observation

    def make() -> Any:
        pool = OpponentPool(
            config.game, config.opponents, config.selfplay.max_snapshots, config.game_options, root=root,
            cache=cache,
        )  # fmt: skip
        # The masks keep every action the learner takes legal: one that is not is a bug to stop on, not a
        # lost game to learn from, so training asks for "raise" (the env's default is "lose").
        env = make_single_agent_env(
            config.game,
            opponents=pool,
            learner_seat=config.learner_seat,
            mask_in_observation=mask_in_observation,
            illegal_action="raise",
            **config.game_options,
        )
        return TimedEnv(Monitor(env)) if wrap else env

    return make


def make_vec_env(config: TrainConfig, root: str | Path | None = None) -> VecEnv:
    """``config.n_envs`` seeded copies of the learner's env (``config.vec_env``):

    * ``batched``: a :class:`~boardenvs_agents.learning.vec_env.BatchedVecEnv` in this process, network
      opponents answered in batched forward passes;
    * ``subproc``: the same with the envs in ``config.workers`` processes (default: one per CPU core,
      at most ``n_envs``), the forward passes still batched here;
    * ``dummy``: SB3's ``DummyVecEnv`` of ``TimedEnv(Monitor(env))``, every opponent move on its own.

    All three play the same games from the same seed and take each other's checkpoints.
    ``root``: the run directory, which self-play snapshot names are relative to.
    """
    import os

    root_path = None if root is None else Path(root)
    cache = SnapshotCache(config.selfplay.max_snapshots + 2)  # shared by the pools of one process
    wrap = config.vec_env == "dummy"
    fns = [_env_factory(config, root_path, cache, wrap) for _ in range(config.n_envs)]
    vec: VecEnv
    if config.vec_env == "dummy":
        vec = DummyVecEnv(fns)
    elif config.vec_env == "subproc":
        workers = config.workers or min(config.n_envs, os.cpu_count() or 1)
        vec = BatchedVecEnv(fns, workers=workers)
    else:
        vec = BatchedVecEnv(fns)
    vec.seed(config.seed)
    return vec


def env_wait_seconds(vec_env: VecEnv) -> float:
    """Wall-clock seconds the learner has waited for ``vec_env`` (steps and resets, opponents
    included): :class:`~boardenvs_agents.learning.vec_env.BatchedVecEnv` times itself, a
    ``DummyVecEnv`` of :class:`TimedEnv` s sums its envs."""
    if isinstance(vec_env, BatchedVecEnv):
        return vec_env.env_seconds
    return float(sum(vec_env.get_attr("env_seconds")))


def learner_view(config: TrainConfig) -> tuple[Game, LearnerView]:
    """The game and the learner's view of it, as the envs of ``config`` build them."""
    game = make_game(config.game, **config.game_options)
    return game, LearnerView(game, config.learner_seat, config.algorithm.mask_in_observation)


def evaluation_matchup(game: Game, opponent: str, games: int, learner_seat: int | None = None) -> Matchup:
    """The arena matchup :func:`evaluate_against` plays: the learner in each seat in turn (only
    ``learner_seat`` when it is fixed), ``opponent`` in all the others, ``games`` rounded up to a whole
    number of rounds of those seatings (:attr:`Matchup.num_games` says how many)."""
    lineup = ["learner"] + [opponent] * (game.num_players - 1)
    table = [s for s in seatings(lineup) if learner_seat is None or s[learner_seat] == "learner"]
    return Matchup(f"learner vs {opponent}", tuple(table), max(1, math.ceil(games / len(table))))


def evaluate_against(
    game: Game,
    learner: Policy,
    opponent: str,
    games: int,
    seed: int,
    learner_seat: int | None = None,
) -> dict[str, Any]:
    """Win rate of ``learner`` against ``opponent`` in every other seat, seats rotated, paired seeds.

    The arena matchup :func:`evaluation_matchup`, played in this process. Returns games, wins, the win
    rate and its 95% Wilson interval, the per-seat record and the mean game length.
    """
    matchup = evaluation_matchup(game, opponent, games, learner_seat)
    results = Arena(game, {"learner": learner, opponent: opponent}).run([matchup], seed)
    stats = agent_stats(results, "learner")
    return {
        "opponent": opponent,
        "games": stats.games,
        "wins": stats.wins,
        "win_rate": stats.win_rate,
        "ci95": list(stats.interval()),
        "per_seat": [list(x) for x in stats.per_seat],
        "mean_length": stats.mean_length,
    }


def last_step(model: Any, total_timesteps: int) -> int:
    """The step count at which ``model.learn`` stops when asked to train to ``total_timesteps`` steps in
    all from where the model stands (``reset_num_timesteps=False``).

    Stable-Baselines3 collects whole rollouts: ``n_steps`` steps per env for PPO, ``train_freq`` steps
    per env for DQN, so a run stops at the first rollout boundary at or past its total (PPO's quick
    start: 49 rollouts of 8 x 256 steps, 100,352 steps for 100,000). A DQN trained by episodes
    (``train_freq`` in episodes) has no fixed rollout: ``total_timesteps`` is returned.
    """
    from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
    from stable_baselines3.common.type_aliases import TrainFrequencyUnit

    start = int(model.num_timesteps)
    if start >= total_timesteps:
        return start
    if isinstance(model, OnPolicyAlgorithm):
        chunk = model.n_steps * model.n_envs
    elif getattr(model, "train_freq", None) is not None and model.train_freq.unit == TrainFrequencyUnit.STEP:
        chunk = model.train_freq.frequency * model.n_envs
    else:
        return total_timesteps
    return start + math.ceil((total_timesteps - start) / chunk) * chunk


class ProgressCallback(BaseCallback):
    """A tqdm progress bar over the run's environment steps (silent without tqdm).

    Its total is the step the run stops at (:func:`last_step`: whole rollouts, so a little past
    ``total``), and it never counts past it.

    Args:
        total: the run's ``total_timesteps``.
    """

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: Any = None

    def _on_training_start(self) -> None:
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(
            total=last_step(self.model, self.total),
            initial=self.num_timesteps,
            unit="step",
            dynamic_ncols=True,
        )

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(min(self.num_timesteps, self.bar.total) - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class BoundaryCallback(BaseCallback):
    """Acts every ``every`` environment steps, at a rollout boundary (``every=0``: never).

    It runs at the start of a rollout, that is after the update of the rollout before: what it
    saves or measures was trained on every step counted, and a run resumed from a checkpoint taken
    there continues exactly. :meth:`state_dict` is the step it last acted at, for checkpoints.
    """

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self.last = 0

    def _on_step(self) -> bool:
        return True

    def _on_rollout_start(self) -> None:
        step = self.model.num_timesteps
        if self.every and step - self.last >= self.every:
            self.last = step - step % self.every
            self.act()

    def act(self) -> None:
        """What to do at the boundary (subclasses)."""

    def state_dict(self) -> dict[str, Any]:
        """The callback's state, JSON-able."""
        return {"last": self.last}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        self.last = int(data["last"])


class CheckpointCallback(BoundaryCallback):
    """Calls ``save()`` every ``every`` steps at a rollout boundary (the run writes the checkpoint)."""

    def __init__(self, every: int, save: Callable[[], Any]) -> None:
        super().__init__(every)
        self.save = save

    def act(self) -> None:
        """Write the checkpoint."""
        self.save()


class SelfPlayCallback(BoundaryCallback):
    """Every ``config.selfplay.snapshot_every`` steps, a frozen snapshot of the learner joins every
    env's pool.

    The snapshot is taken in memory (:meth:`LearnedPolicy.snapshot`, a copy of the weights) and handed
    to the pools; its file, ``snapshots/step_<N>.zip`` in the run directory, is written too, for a
    resumed run to rebuild the pool from and for evaluating the run's intermediate models, but not
    read back. :attr:`paths` lists the files relative to the run directory (a moved or copied run
    directory keeps them).
    """

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        super().__init__(config.selfplay.snapshot_every)
        self.config = config
        self.run_dir = Path(run_dir)
        self.paths: list[str] = []

    def act(self) -> None:
        """Take a snapshot now: write its file and add the copy in memory to the pools."""
        step = self.model.num_timesteps
        path = save_model(
            self.model, self.run_dir / "snapshots" / f"step_{step}.zip", final_metadata(self.config, step)
        )
        game, view = learner_view(self.config)
        player = LearnedPolicy.snapshot(self.model, game, view.learner_seat, view.mask_in_observation)
        self.add(path.relative_to(self.run_dir).as_posix(), player=player)

    def add(self, path: str, env: VecEnv | None = None, player: LearnedPolicy | None = None) -> None:
        """Add a snapshot file (relative to the run directory) to every env's pool of ``env`` (default:
        the training env): ``player``, its copy in memory, or else the file loaded by each pool."""
        args = [str(self.run_dir / path)] + ([] if player is None else [player])
        (env or self.training_env).env_method("update_opponents", "add_snapshot", *args)
        self.paths.append(path)

    def state_dict(self) -> dict[str, Any]:
        """The last snapshot step and the snapshots taken (relative paths)."""
        return {"last": self.last, "paths": list(self.paths)}

    def load_state_dict(self, data: dict[str, Any], env: VecEnv | None = None, keep: int = 0) -> None:
        """Restore :meth:`state_dict`; with ``env``, add the newest ``keep`` snapshots to its pools again."""
        super().load_state_dict(data)
        paths = list(data["paths"])
        self.paths = paths[: max(0, len(paths) - keep)]
        if env is not None:
            for path in paths[len(self.paths) :]:
                self.add(path, env)


class Stopwatch:
    """Seconds of training, across sessions: running from its creation, paused while evaluating.

    Args:
        seconds: the seconds counted before (a resumed run's, from its checkpoint).
    """

    def __init__(self, seconds: float = 0.0) -> None:
        self.before = float(seconds)
        self.started: float | None = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Seconds counted so far."""
        running = 0.0 if self.started is None else time.perf_counter() - self.started
        return self.before + running

    def pause(self) -> None:
        """Stop counting (evaluation time is not training time)."""
        self.before, self.started = self.seconds, None

    def resume(self) -> None:
        """Count again."""
        if self.started is None:
            self.started = time.perf_counter()


class EvaluationCallback(BoundaryCallback):
    """Every ``every`` steps, plays the learner against each baseline (seats rotated) and logs it.

    Says each matchup as it starts with ``announce`` (a line: what it plays, how many games), logs
    ``eval/win_rate_vs_<opponent>`` (and its interval) to TensorBoard and appends a row to ``eval.csv``
    in the run directory (at step 0 too when the run starts with imitation); :attr:`history` holds
    every record, and :meth:`write_csv` rewrites the file from it (a resumed run drops the rows after
    its checkpoint that way). ``eval.json`` holds the same records whole: the learner's record per
    seat, the mean game length and ``wall_seconds``, the training's seconds (``stopwatch``: from the
    run's start, across resumes, evaluations not counted) when it was taken; the benchmark reads it.
    ``eval.csv`` is exactly the same for a run resumed and one never stopped; the seconds are not.
    """

    COLUMNS = ("step", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high")

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        announce: Callable[[str], Any] | None = None,
        stopwatch: Stopwatch | None = None,
    ) -> None:
        super().__init__(config.eval.every)
        self.config = config
        self.announce = announce
        self.stopwatch = stopwatch or Stopwatch()
        self.csv = Path(run_dir) / "eval.csv"
        self.json = Path(run_dir) / "eval.json"
        self.history: list[dict[str, Any]] = []
        #: Evaluate before the first step too: a warm-started policy's starting point (step 0).
        self.at_start = config.imitation.teacher is not None and config.eval.every > 0

    def _on_training_start(self) -> None:
        if self.at_start and self.model.num_timesteps == 0 and not self.history:
            self.evaluate()

    def act(self) -> None:
        """A periodic evaluation."""
        self.evaluate()

    def evaluate(self) -> list[dict[str, Any]]:
        """Play the evaluation games now; returns one record per opponent."""
        game, view = learner_view(self.config)
        learner = LearnedPolicy(
            self.model, game, self.config.learner_seat, view.mask_in_observation, name="learner"
        )
        step = self.model.num_timesteps
        seconds = round(self.stopwatch.seconds, 2)
        self.stopwatch.pause()
        records = []
        for opponent in self.config.eval.opponents:
            if self.announce is not None:
                self.announce(self.describe(game, opponent, step))
            rec = evaluate_against(
                game,
                learner,
                opponent,
                self.config.eval.games,
                self.eval_seed,
                self.config.learner_seat,
            )
            rec["step"] = step
            rec["wall_seconds"] = seconds
            records.append(rec)
            tag = opponent.replace(":", "_")
            self.logger.record(f"eval/win_rate_vs_{tag}", rec["win_rate"])
            self.logger.record(f"eval/win_rate_vs_{tag}_ci_low", rec["ci95"][0])
            self.logger.record(f"eval/win_rate_vs_{tag}_ci_high", rec["ci95"][1])
        self.logger.dump(step)
        new_file = not self.csv.exists()
        with open(self.csv, "a", newline="") as f:
            writer = csv.writer(f)
            if new_file:
                writer.writerow(self.COLUMNS)
            writer.writerows(self.row(rec) for rec in records)
        self.history.extend(records)
        self._write_json()
        if self.every:
            self.last = step - step % self.every
        self.stopwatch.resume()
        return records

    @property
    def eval_seed(self) -> int:
        """The first seed of the evaluation games (``eval.seed``, else the run's seed + 10,000)."""
        seed = self.config.eval.seed
        return self.config.seed + 10_000 if seed is None else seed

    def describe(self, game: Game, opponent: str, step: int) -> str:
        """The line announcing an evaluation against ``opponent``: what it plays and how many games."""
        seat = self.config.learner_seat
        matchup = evaluation_matchup(game, opponent, self.config.eval.games, seat)
        others = game.num_players - 1
        where = "seats rotated" if seat is None else f"the learner in seat {seat}"
        return (
            f"evaluation at step {step:,}: {matchup.num_games:,} games of the learner against "
            f"{others} {opponent} player{'s' if others > 1 else ''} ({where})"
        )

    @staticmethod
    def row(rec: dict[str, Any]) -> list[Any]:
        """The ``eval.csv`` row of a record."""
        return [
            rec["step"], rec["opponent"], rec["games"], rec["wins"], f"{rec['win_rate']:.4f}",
            f"{rec['ci95'][0]:.4f}", f"{rec['ci95'][1]:.4f}",
        ]  # fmt: skip

    def write_csv(self) -> None:
        """Rewrite ``eval.csv`` from :attr:`history`, atomically (no file while the history is empty)."""
        if not self.history:
            self.csv.unlink(missing_ok=True)
            self.json.unlink(missing_ok=True)
            return

        def write(tmp: Path) -> None:
            with open(tmp, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(self.COLUMNS)
                writer.writerows(self.row(rec) for rec in self.history)

        atomic_write(self.csv, write)
        self._write_json()

    def _write_json(self) -> None:
        """``eval.json``: :attr:`history`, every record whole."""
        text = json.dumps(self.history, indent=1)
        atomic_write(self.json, lambda tmp: tmp.write_text(text, encoding="utf-8"))

    def state_dict(self) -> dict[str, Any]:
        """The last evaluation step, every record so far and the training's seconds."""
        return {"last": self.last, "history": list(self.history), "seconds": self.stopwatch.seconds}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict` (call :meth:`write_csv` to bring ``eval.csv`` in line); the
        stopwatch goes on from the checkpoint's seconds."""
        super().load_state_dict(data)
        self.history = list(data["history"])
        self.stopwatch = Stopwatch(float(data.get("seconds", 0.0)))


def final_metadata(config: TrainConfig, timesteps: int, **extra: Any) -> dict[str, Any]:
    """Metadata saved with a model of this run."""
    game, view = learner_view(config)
    return model_metadata(
        game, view, config.learner_seat, config.algo, timesteps=timesteps, config=config.to_dict(), **extra
    )
