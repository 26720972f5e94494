"""Training configs: one YAML file per game and algorithm, checked before anything runs.

Defaults live here, in :class:`TrainConfig`; a file ``configs/<game>/<algo>.yaml`` overrides them, and
``--set key=value`` on the command line overrides the file (dotted keys reach into sections:
``--set eval.games=50``, ``--set game_options.num_players=2``). Unknown keys, values of the wrong type,
unknown games, unknown agents and hyperparameters the algorithm does not take stop at once, with a
message that names the key and the file.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from boardenvs.core.options import OptionError, make_options, options_to_dict
from boardenvs_agents.config import read_config


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation against baselines, seats rotated on paired seeds."""

    #: Environment steps between evaluations (0: only at the end).
    every: int = 50_000
    #: Games per opponent, rounded up to a multiple of the number of seats.
    games: int = 100
    #: Agent specs to evaluate against.
    opponents: tuple[str, ...] = ("random", "heuristic")

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
    """A warm start before training: the policy imitates a teacher (MaskablePPO only; see
    :mod:`boardenvs_agents.learning.imitation`)."""

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
    #: ``ppo`` (sb3-contrib MaskablePPO) or ``dqn`` (MaskedDQN).
    algo: Literal["ppo", "dqn"] = "ppo"
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
    """Check what types cannot: the game, its options, the agents and the hyperparameters exist."""
    import boardenvs
    from boardenvs_agents.learning.models import algorithm_class
    from boardenvs_agents.registry import make_policy

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
    if config.imitation.teacher is not None and config.algo != "ppo":
        raise OptionError(
            f"{where}imitation: a warm start by imitation trains ppo policies, not {config.algo}"
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
    accepted = _init_parameters(algorithm_class(config.algo)) - {"self", "policy", "env"}
    reserved = {"seed", "policy_kwargs", "tensorboard_log", "verbose", "device", "_init_setup_model"}
    for key in config.hyperparameters:
        if key not in accepted or key in reserved:
            raise OptionError(
                f"{where}hyperparameters.{key} is not a {config.algo} hyperparameter here; "
                f"valid: {sorted(accepted - reserved)}"
            )
    for key, value in config.hyperparameters.items():
        if key in _HYPERPARAMETER_RULES:
            allowed, ok = _HYPERPARAMETER_RULES[key]
            if not ok(value):
                raise OptionError(f"{where}hyperparameters.{key} must be {allowed}, got {value!r}")
    _check_policy_kwargs(config, where)
    _try_model(config, where)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _unit(v: Any) -> bool:
    return _is_number(v) and 0 <= v <= 1


#: What the common hyperparameters must be (description, check); the rest is left to the algorithm.
_HYPERPARAMETER_RULES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "learning_rate": ("a positive number", lambda v: _is_number(v) and v > 0),
    "n_steps": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "batch_size": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "n_epochs": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "gamma": ("a number in [0, 1]", _unit),
    "gae_lambda": ("a number in [0, 1]", _unit),
    "clip_range": ("a positive number", lambda v: _is_number(v) and v > 0),
    "clip_range_vf": ("null or a positive number", lambda v: v is None or (_is_number(v) and v > 0)),
    "normalize_advantage": ("true or false", lambda v: isinstance(v, bool)),
    "ent_coef": ("a number >= 0", lambda v: _is_number(v) and v >= 0),
    "vf_coef": ("a number >= 0", lambda v: _is_number(v) and v >= 0),
    "max_grad_norm": ("a positive number", lambda v: _is_number(v) and v > 0),
    "target_kl": ("null or a positive number", lambda v: v is None or (_is_number(v) and v > 0)),
    "stats_window_size": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "buffer_size": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "learning_starts": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "tau": ("a number in [0, 1]", _unit),
    "train_freq": (
        "an integer >= 1 or [integer >= 1, 'step' or 'episode']",
        lambda v: (
            (_is_int(v) and v >= 1)
            or (
                isinstance(v, (list, tuple))
                and len(v) == 2
                and _is_int(v[0])
                and v[0] >= 1
                and v[1] in ("step", "episode")
            )
        ),
    ),  # fmt: skip
    "gradient_steps": ("an integer >= 1, or -1", lambda v: _is_int(v) and (v >= 1 or v == -1)),
    "target_update_interval": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "exploration_fraction": ("a number in [0, 1]", _unit),
    "exploration_initial_eps": ("a number in [0, 1]", _unit),
    "exploration_final_eps": ("a number in [0, 1]", _unit),
    "optimize_memory_usage": ("true or false", lambda v: isinstance(v, bool)),
}


def _check_init_model(config: TrainConfig, game: Any, where: str) -> None:
    """``init_model`` names a model of this game's rules (encoding options aside) and algorithm."""
    from boardenvs.core.options import rules_options
    from boardenvs.registry import make_game
    from boardenvs.wrappers.single_agent import LearnerView
    from boardenvs_agents.learning.models import read_metadata

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
    view = LearnerView(game, config.learner_seat, config.algo == "dqn")
    spaces = (list(view.box.shape), view.num_actions)
    if (metadata["observation_shape"], metadata["num_actions"]) != spaces:
        raise OptionError(
            f"{where}init_model: {path} takes observations of shape {metadata['observation_shape']} and "
            f"{metadata['num_actions']} actions; this run's are {spaces[0]} and {spaces[1]}"
        )


def _check_policy_kwargs(config: TrainConfig, where: str) -> None:
    def layers(v: Any) -> bool:
        return isinstance(v, (list, tuple)) and all(_is_int(n) and n >= 1 for n in v)

    net_arch = config.policy_kwargs.get("net_arch", [])
    ok = layers(net_arch) or (
        config.algo == "ppo"
        and isinstance(net_arch, dict)
        and set(net_arch) <= {"pi", "vf"}
        and all(layers(v) for v in net_arch.values())
    )
    if not ok:
        shapes = "a list of layer sizes (integers >= 1)" + (
            " or {pi: [...], vf: [...]}" if config.algo == "ppo" else ""
        )
        raise OptionError(f"{where}policy_kwargs.net_arch must be {shapes}, got {net_arch!r}")


def _try_model(config: TrainConfig, where: str) -> None:
    """Build the model once on the learner's spaces, so that what the rules above do not cover stops
    here, before a run directory exists (a small replay buffer stands in for DQN's)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from boardenvs.registry import make_game
    from boardenvs.wrappers.single_agent import SingleAgentEnv
    from boardenvs_agents.learning.models import algorithm_class

    def make() -> Any:
        game = make_game(config.game, **config.game_options)
        return SingleAgentEnv(game, "random", config.learner_seat, mask_in_observation=config.algo == "dqn")

    kwargs = dict(config.hyperparameters)
    if config.algo == "dqn":
        kwargs["buffer_size"] = min(int(kwargs.get("buffer_size", 1000)), 1000)
    policy = "MaskedDQNPolicy" if config.algo == "dqn" else "MlpPolicy"
    env = DummyVecEnv([make] * config.n_envs)
    try:
        with warnings.catch_warnings():  # the run's own model repeats them
            warnings.simplefilter("ignore")
            policy_kwargs = dict(config.policy_kwargs) or None
            algo = algorithm_class(config.algo)
            algo(policy, env, device="cpu", policy_kwargs=policy_kwargs, verbose=0, **kwargs)
    except (ValueError, TypeError, AssertionError, KeyError, AttributeError, RuntimeError) as err:
        raise OptionError(
            f"{where}hyperparameters / policy_kwargs: {config.algo} refuses them: {type(err).__name__}: {err}"
        ) from err
    finally:
        env.close()


def _init_parameters(cls: type) -> set[str]:
    """Keyword parameters of ``cls(...)``, following ``**kwargs`` up the class hierarchy."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = inspect.signature(klass.__init__).parameters.values()
        names |= {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    return names


def save_config(config: TrainConfig, path: str | Path) -> None:
    """Write ``config`` as YAML (the run directory keeps the exact config it ran with)."""
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
