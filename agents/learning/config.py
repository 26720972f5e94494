"""Training configs: one YAML file per game and algorithm, checked before anything runs.

Defaults live here, in :class:`TrainConfig`; a file ``configs/<game>/<algo>.yaml`` overrides them, and
``--set key=value`` on the command line overrides the file (dotted keys reach into sections:
``--set eval.games=50``, ``--set game_options.num_players=2``). Unknown keys, values of the wrong type,
unknown games, unknown agents, unknown algorithms and hyperparameters the algorithm does not take stop
at once, with a message that names the key and the file. What an algorithm takes is its record's to say
(:class:`~boardenvs_agents.learning.algorithms.Algorithm`): ``algo:`` names any registered algorithm.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from boardenvs.core.options import OptionError, make_options, options_to_dict
from boardenvs_agents.config import read_config
from boardenvs_agents.learning.algorithms import Algorithm, algorithm_names, get_algorithm
from boardenvs_agents.learning.models import read_metadata
from boardenvs_agents.registry import make_policy


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation against baselines, seats rotated on paired seeds."""

    #: Environment steps between evaluations (0: only at the end).
    every: int = 50_000
    #: Games per opponent, rounded up to a multiple of the number of seats.
    games: int = 100
    #: Agent specs to evaluate against.
    opponents: tuple[str, ...] = ("random", "heuristic")
    #: First seed of the evaluation games (the same games at every evaluation); null: the run's seed +
    #: 10,000. The benchmark fixes it, so that every run of a task is evaluated on the same games.
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.every < 0 or self.games < 1:
            raise ValueError(f"eval.every must be >= 0 and eval.games >= 1, got {self.every}, {self.games}")


@dataclass(frozen=True)
class SelfPlayConfig:
    """Frozen snapshots of the learner joining the opponent pool (weight ``opponents.self``)."""

    #: Environment steps between snapshots.
    snapshot_every: int = 50_000
    #: Newest snapshots kept in the pool.
    max_snapshots: int = 5

    def __post_init__(self) -> None:
        if self.snapshot_every < 1 or self.max_snapshots < 1:
            raise ValueError("selfplay.snapshot_every and selfplay.max_snapshots must be at least 1")


@dataclass(frozen=True)
class ImitationConfig:
    """A warm start before training: the policy imitates a teacher (algorithms whose record takes it:
    ppo; see :mod:`boardenvs_agents.learning.imitation`)."""

    #: Agent spec of the teacher (e.g. ``heuristic``); null: no warm start.
    teacher: str | None = None
    #: Games the teacher plays; a tenth is held out to measure the fit.
    games: int = 2000
    #: Agent spec of the other seats (the teacher in one seat, rotated game by game, or the learner's
    #: fixed seat; only its decisions are imitated); null: the teacher in every seat.
    opponents: str | None = None
    #: Only these seats' decisions are imitated (e.g. ``[0]``: Gangsi's Kyonshi); null: every seat
    #: the learner may play.
    seats: tuple[int, ...] | None = None
    #: Teachers of some seats, by seat, instead of ``teacher`` there (e.g. the model being fine-tuned,
    #: ``ppo:<its zip>``, in one role, so that the network keeps its play there while it learns another).
    seat_teachers: dict[int, str] = field(default_factory=dict)
    #: Passes over the teacher's decisions (more overfit: docs/learning.md).
    epochs: int = 3
    #: Decisions per gradient step.
    batch_size: int = 256
    #: Adam's step size.
    learning_rate: float = 1e-3
    #: Weight of the value head's loss (fitted to the discounted returns) beside the policy's.
    value_coef: float = 0.5
    #: DAgger rounds after the cloning (0: none). In each, ``dagger_games`` games in which the policy
    #: itself plays the seats it imitates (its most likely legal action) while the teacher labels
    #: every decision it meets; then the policy is fitted again, ``epochs`` passes, on every decision
    #: gathered so far (the teacher's games and each round's).
    dagger_rounds: int = 0
    #: Games per DAgger round.
    dagger_games: int = 1000

    def __post_init__(self) -> None:
        if self.games < 2 or self.epochs < 1 or self.batch_size < 1:
            raise ValueError(
                f"imitation.games must be >= 2, epochs and batch_size >= 1, got {self.games}, "
                f"{self.epochs}, {self.batch_size}"
            )
        if self.dagger_rounds < 0 or self.dagger_games < 2:
            raise ValueError(
                f"imitation.dagger_rounds must be >= 0 and dagger_games >= 2, got {self.dagger_rounds}, "
                f"{self.dagger_games}"
            )
        if not (self.learning_rate > 0 and self.value_coef >= 0):
            raise ValueError("imitation.learning_rate must be positive and imitation.value_coef >= 0")


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run needs; every field has a default."""

    #: Registered env name.
    game: str = "sorry_v0"
    #: The game's options (see its docstring).
    game_options: dict[str, Any] = field(default_factory=dict)
    #: A registered algorithm (:mod:`boardenvs_agents.learning.algorithms`): ``ppo`` (sb3-contrib
    #: MaskablePPO), ``dqn`` (MaskedDQN), or one a package of yours registers.
    algo: str = "ppo"
    #: Seed of the envs, the learner and the evaluation games.
    seed: int = 0
    #: Environment steps (learner decisions) to train for.
    total_timesteps: int = 200_000
    #: Parallel environments.
    n_envs: int = 2
    #: ``batched`` (the envs in the training process, network opponents answered in batched forward
    #: passes), ``subproc`` (the same with the envs in ``workers`` processes) or ``dummy`` (SB3's
    #: DummyVecEnv: every opponent move is its own forward pass; the same games, slower).
    vec_env: Literal["batched", "subproc", "dummy"] = "batched"
    #: Worker processes for ``vec_env: subproc`` (null: one per CPU core, at most ``n_envs``).
    workers: int | None = None
    #: The learner's seat, or null to draw it every episode.
    learner_seat: int | None = None
    #: Opponent kinds and their weights: agent specs and ``self`` (snapshots of the learner).
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    #: Self-play snapshots.
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    #: Keyword arguments of the algorithm's constructor (learning_rate, n_steps, ...).
    hyperparameters: dict[str, Any] = field(default_factory=dict)
    #: The policy network (e.g. ``net_arch: [128, 128]``).
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    #: A saved model (``.zip``) of the same game, rules and spaces whose weights the run starts from
    #: (fine-tuning; imitation, if any, then trains them further); null: fresh weights.
    init_model: str | None = None
    #: Imitation of a teacher before training (off unless ``imitation.teacher`` is set).
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    #: Periodic evaluation.
    eval: EvalConfig = field(default_factory=EvalConfig)
    #: Environment steps between checkpoints.
    checkpoint_every: int = 25_000
    #: Threads torch may use (1 is fastest for these small networks and leaves a core to the envs).
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if min(self.total_timesteps, self.n_envs, self.checkpoint_every, self.torch_threads) < 1:
            raise ValueError("total_timesteps, n_envs, checkpoint_every and torch_threads must be at least 1")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1 (or null: one per CPU core), got {self.workers}")

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML-able dict."""
        return options_to_dict(self)

    @property
    def algorithm(self) -> Algorithm:
        """The record of :attr:`algo` (``ValueError`` for an algorithm nobody registered)."""
        return get_algorithm(self.algo)


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> TrainConfig:
    """Read, override and check a training config.

    Raises:
        OptionError: naming the key and the file, for anything that would make the run fail later.
    """
    raw, where = read_config(path, overrides)
    config = make_options(TrainConfig, raw, where=where)
    check_config(config, where)
    return config


def check_config(config: TrainConfig, where: str = "config: ") -> None:
    """Check what types cannot: the algorithm, the game, its options, the agents and the
    hyperparameters exist."""
    import boardenvs
    if config.algo not in algorithm_names():
        raise OptionError(
            f"{where}option 'algo' must be one of the registered algorithms {tuple(algorithm_names())}, "
            f"got {config.algo!r}"
        )
    algorithm = config.algorithm
    if algorithm.runner:
        raise OptionError(
            f"{where}algo {config.algo} trains by its own runner ({algorithm.runner}), with a config of its "
            f"own (configs/<game>/{config.algo}.yaml): boardenvs-train --config <that file>"
        )
    if config.game not in boardenvs.env_names():
        raise OptionError(f"{where}game {config.game!r} is unknown; available: {boardenvs.env_names()}")
    try:
        game = boardenvs.make_game(config.game, **config.game_options)
    except OptionError as err:
        raise OptionError(f"{where}game_options: {err}") from err
    if config.learner_seat is not None and not 0 <= config.learner_seat < game.num_players:
        raise OptionError(
            f"{where}learner_seat must be in 0..{game.num_players - 1}, got {config.learner_seat}"
        )
    if config.init_model is not None:
        _check_init_model(config, game, where)
    imitation, last = config.imitation, game.num_players - 1
    for key, seats in (("seats", imitation.seats or ()), ("seat_teachers", imitation.seat_teachers)):
        if not all(0 <= p <= last for p in seats):
            raise OptionError(f"{where}imitation.{key}: seats are 0..{last}, got {list(seats)}")
    if imitation.seats == ():
        raise OptionError(f"{where}imitation.seats: list at least one seat (or null: every seat)")
    if config.imitation.teacher is not None and not algorithm.imitation:
        takers = " or ".join(name for name in algorithm_names() if get_algorithm(name).imitation)
        raise OptionError(
            f"{where}imitation: a warm start by imitation trains {takers or 'no'} policies, not {config.algo}"
        )
    for key, specs in (
        ("opponents", [k for k in config.opponents if k != "self"]),
        ("eval.opponents", config.eval.opponents),
        ("imitation.teacher", [config.imitation.teacher] if config.imitation.teacher else []),
        ("imitation.opponents", [config.imitation.opponents] if config.imitation.opponents else []),
        ("imitation.seat_teachers", list(config.imitation.seat_teachers.values())),
    ):
        for spec in specs:
            try:
                make_policy(spec, config.game)
            except (ValueError, FileNotFoundError) as err:
                raise OptionError(f"{where}{key}: {err}") from err
    if any(w < 0 for w in config.opponents.values()) or sum(config.opponents.values()) <= 0:
        raise OptionError(f"{where}opponents: weights must be non-negative with a positive sum")
    algorithm.check_hyperparameters(config.hyperparameters, where)
    algorithm.check_policy_kwargs(config.policy_kwargs, where)
    _try_model(config, where)


def _check_init_model(config: TrainConfig, game: Any, where: str) -> None:
    """``init_model`` names a model of this game's rules (encoding options aside) and algorithm."""
    from boardenvs.core.options import rules_options
    from boardenvs.registry import make_game
    from boardenvs.wrappers.single_agent import LearnerView
    path = Path(str(config.init_model))
    if not path.exists():
        raise OptionError(f"{where}init_model: no file {path}")
    try:
        metadata = read_metadata(path)
    except ValueError as err:
        raise OptionError(f"{where}init_model: {err}") from err
    if metadata["game"] != config.game or metadata["algo"] != config.algo:
        raise OptionError(
            f"{where}init_model: {path} is a {metadata['algo']} model of {metadata['game']}, "
            f"not {config.algo} of {config.game}"
        )
    trained = rules_options(make_game(config.game, **metadata["options"]).options)
    if trained != rules_options(game.options):
        raise OptionError(f"{where}init_model: {path} was trained for other rules ({metadata['options']})")
    view = LearnerView(game, config.learner_seat, config.algorithm.mask_in_observation)
    spaces = (list(view.box.shape), view.num_actions)
    if (metadata["observation_shape"], metadata["num_actions"]) != spaces:
        raise OptionError(
            f"{where}init_model: {path} takes observations of shape {metadata['observation_shape']} and "
            f"{metadata['num_actions']} actions; this run's are {spaces[0]} and {spaces[1]}"
        )


def _try_model(config: TrainConfig, where: str) -> None:
    """Build the model once on the learner's spaces, so that what the checks above do not cover stops
    here, before a run directory exists (with the record's trial limits: a small replay buffer stands
    in for DQN's)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from boardenvs.registry import make_game
    from boardenvs.wrappers.single_agent import SingleAgentEnv

    algorithm = config.algorithm

    def make() -> Any:
        game = make_game(config.game, **config.game_options)
        return SingleAgentEnv(
            game, "random", config.learner_seat, mask_in_observation=algorithm.mask_in_observation
        )

    env = DummyVecEnv([make] * config.n_envs)
    try:
        with warnings.catch_warnings():  # the run's own model repeats them
            warnings.simplefilter("ignore")
            trial = algorithm.trial_hyperparameters(config.hyperparameters)
            algorithm.build(env, trial, config.policy_kwargs)
    except (ValueError, TypeError, AssertionError, KeyError, AttributeError, RuntimeError) as err:
        raise OptionError(
            f"{where}hyperparameters / policy_kwargs: {config.algo} refuses them: {type(err).__name__}: {err}"
        ) from err
    finally:
        env.close()


def save_config(config: TrainConfig, path: str | Path) -> None:
    """Write ``config`` as YAML (the run directory keeps the exact config it ran with)."""
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
