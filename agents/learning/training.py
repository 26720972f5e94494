"""The pieces of a training run that ``scripts/train.py`` puts together.

* :func:`make_vec_env`: the single-agent view of the game
  (:func:`~boardenvs_agents.learning.envs.make_single_agent_env`), one learner seat per episode, the other
  seats from an :class:`~boardenvs_agents.learning.selfplay.OpponentPool`, in one process or several;
* callbacks for Stable-Baselines3: a progress bar, atomic checkpoints (:class:`CheckpointCallback`),
  self-play snapshots (:class:`SelfPlayCallback`) and evaluation against baselines with seats rotated
  (:class:`EvaluationCallback`);
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
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from boardenvs.core.game import Game
from boardenvs.registry import make_game
from boardenvs.wrappers.single_agent import LearnerView
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.arena.runner import Arena, Matchup, seatings
from boardenvs_agents.base import Policy
from boardenvs_agents.learning.config import TrainConfig
from boardenvs_agents.learning.envs import make_single_agent_env
from boardenvs_agents.learning.models import LearnedPolicy, atomic_write, model_metadata, save_model
from boardenvs_agents.learning.selfplay import OpponentPool


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


def _env_factory(config: TrainConfig) -> Callable[[], gymnasium.Env]:
    def make() -> gymnasium.Env:
        pool = OpponentPool(config.game, config.opponents, config.selfplay.max_snapshots, config.game_options)
        # The masks keep every action the learner takes legal: one that is not is a bug to stop on, not a
        # lost game to learn from, so training asks for "raise" (the env's default is "lose").
        env = make_single_agent_env(
            config.game,
            opponents=pool,
            learner_seat=config.learner_seat,
            mask_in_observation=config.algo == "dqn",
            illegal_action="raise",
            **config.game_options,
        )
        return TimedEnv(Monitor(env))

    return make


def make_vec_env(config: TrainConfig) -> VecEnv:
    """``config.n_envs`` seeded copies of the learner's env, in this process or in subprocesses."""
    fns = [_env_factory(config) for _ in range(config.n_envs)]
    vec: VecEnv = SubprocVecEnv(fns) if config.vec_env == "subproc" else DummyVecEnv(fns)
    vec.seed(config.seed)
    return vec


def learner_view(config: TrainConfig) -> tuple[Game, LearnerView]:
    """The game and the learner's view of it, as the envs of ``config`` build them."""
    game = make_game(config.game, **config.game_options)
    return game, LearnerView(game, config.learner_seat, config.algo == "dqn")


def evaluate_against(
    game: Game,
    learner: Policy,
    opponent: str,
    games: int,
    seed: int,
    learner_seat: int | None = None,
) -> dict[str, Any]:
    """Win rate of ``learner`` against ``opponent`` in every other seat, seats rotated, paired seeds.

    An arena matchup (:mod:`boardenvs_agents.arena.runner`), played in this process: the learner in each
    seat in
    turn (only ``learner_seat`` when it is fixed), the opponent in all the others. Returns games,
    wins, the win rate and its 95% Wilson interval, the per-seat record and the mean game length.
    """
    lineup = ["learner"] + [opponent] * (game.num_players - 1)
    table = [s for s in seatings(lineup) if learner_seat is None or s[learner_seat] == "learner"]
    matchup = Matchup(f"learner vs {opponent}", tuple(table), max(1, math.ceil(games / len(table))))
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


class ProgressCallback(BaseCallback):
    """A tqdm progress bar over the run's total environment steps (silent without tqdm)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: Any = None

    def _on_training_start(self) -> None:
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=self.total, initial=self.num_timesteps, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class CheckpointCallback(BaseCallback):
    """Writes ``checkpoint/model.zip`` (and DQN's replay buffer) every ``every`` steps, atomically.

    ``checkpoint/state.json`` is written last, so it always names a complete checkpoint: a run killed
    at any moment resumes from the last one, losing at most one interval.
    """

    def __init__(self, run_dir: Path, every: int, extra_state: Callable[[], dict[str, Any]]) -> None:
        super().__init__()
        self.dir = Path(run_dir) / "checkpoint"
        self.every = every
        self.extra_state = extra_state
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps - self.num_timesteps % self.every

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps - self.num_timesteps % self.every
            self.save()
        return True

    def save(self) -> None:
        """Write the checkpoint now."""
        step = self.num_timesteps
        atomic_write(self.dir / "model.zip", lambda tmp: _save_zip(self.model, tmp))
        if hasattr(self.model, "replay_buffer") and self.model.replay_buffer is not None:
            atomic_write(self.dir / "replay_buffer.pkl", lambda tmp: _save_buffer(self.model, tmp))
        state = {"num_timesteps": step, "time": time.time(), **self.extra_state()}
        atomic_write(self.dir / "state.json", lambda tmp: tmp.write_text(json.dumps(state, indent=2)))


def _save_zip(model: Any, tmp: Path) -> None:
    model.save(tmp)
    if not tmp.exists():  # SB3 appends .zip to names without it
        tmp.with_name(tmp.name + ".zip").rename(tmp)


def _save_buffer(model: Any, tmp: Path) -> None:
    model.save_replay_buffer(tmp)
    if not tmp.exists():
        tmp.with_name(tmp.name + ".pkl").rename(tmp)


class SelfPlayCallback(BaseCallback):
    """Every ``every`` steps, saves a frozen snapshot of the learner and adds it to every env's pool."""

    def __init__(self, run_dir: Path, every: int, metadata: Callable[[], dict[str, Any]]) -> None:
        super().__init__()
        self.dir = Path(run_dir) / "snapshots"
        self.every = every
        self.metadata = metadata
        self.paths: list[str] = []
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps - self.num_timesteps % self.every

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps - self.num_timesteps % self.every
            path = save_model(self.model, self.dir / f"step_{self.num_timesteps}.zip", self.metadata())
            self.add(str(path))
        return True

    def add(self, path: str, env: VecEnv | None = None) -> None:
        """Add an existing snapshot file to every env's pool (of ``env``, default the training env)."""
        (env or self.training_env).env_method("update_opponents", "add_snapshot", path)
        self.paths.append(path)


class EvaluationCallback(BaseCallback):
    """Every ``every`` steps, plays the learner against each baseline (seats rotated) and logs it.

    Logs ``eval/win_rate_vs_<opponent>`` (and its interval) to TensorBoard and appends a row to
    ``eval.csv`` in the run directory.
    """

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        super().__init__()
        self.config = config
        self.csv = Path(run_dir) / "eval.csv"
        self.every = config.eval.every
        self.last = 0
        self.history: list[dict[str, Any]] = []

    def _on_training_start(self) -> None:
        if self.every:
            self.last = self.num_timesteps - self.num_timesteps % self.every

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps - self.num_timesteps % self.every
            self.evaluate()
        return True

    def evaluate(self) -> list[dict[str, Any]]:
        """Play the evaluation games now; returns one record per opponent."""
        game, view = learner_view(self.config)
        learner = LearnedPolicy(
            self.model, game, self.config.learner_seat, view.mask_in_observation, name="learner"
        )
        # The model's step count: the callback's own is only updated in _on_step, which a resumed run
        # already at its total never reaches (its final evaluation used to be logged at step 0).
        step = self.model.num_timesteps
        records = []
        for opponent in self.config.eval.opponents:
            rec = evaluate_against(
                game,
                learner,
                opponent,
                self.config.eval.games,
                self.config.seed + 10_000,
                self.config.learner_seat,
            )
            rec["step"] = step
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
                writer.writerow(["step", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high"])
            for rec in records:
                writer.writerow(
                    [rec["step"], rec["opponent"], rec["games"], rec["wins"], f"{rec['win_rate']:.4f}",
                     f"{rec['ci95'][0]:.4f}", f"{rec['ci95'][1]:.4f}"]
                )  # fmt: skip
        self.history.extend(records)
        return records


def final_metadata(config: TrainConfig, timesteps: int, **extra: Any) -> dict[str, Any]:
    """Metadata saved with a model of this run."""
    game, view = learner_view(config)
    return model_metadata(
        game, view, config.learner_seat, config.algo, timesteps=timesteps, config=config.to_dict(), **extra
    )
