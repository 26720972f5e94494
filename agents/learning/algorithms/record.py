"""What the training run, the config check, the checkpoints and the agent specs need to know of one
learning algorithm: the :class:`Algorithm` record.

A record names the algorithm's model class (a Stable-Baselines3 algorithm, or anything with the same
``learn``/``save``/``load`` interface and an SB3 policy) and says how to use it here: the policy it is
built with, whether its observations carry the legal-action mask, whether it takes a warm start by
imitation, which hyperparameters it takes and what they must be. Its methods are the one place where
such a model is built (:meth:`Algorithm.build`: training, the config check's trial build, speed
measurements), trained, saved, loaded, checkpointed and played. A record's defaults are those of an
SB3 algorithm; an algorithm that needs more overrides a method in a subclass.

Records are found through the entry-point group ``boardenvs_agents.algorithms``
(:mod:`boardenvs_agents.learning.algorithms`); ``docs/adding-an-algorithm.md`` writes one.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardenvs.core.options import OptionError

if TYPE_CHECKING:
    from boardenvs.core.game import Game
    from boardenvs_agents.base import Policy

#: A hyperparameter's rule: what it must be (for the message) and the check of a value.
Rule = tuple[str, Callable[[Any], bool]]

#: Constructor arguments the training run sets itself (never a hyperparameter of a config).
RESERVED = frozenset({"seed", "policy_kwargs", "tensorboard_log", "verbose", "device", "_init_setup_model"})
#: The file name of a model in a checkpoint, and of an off-policy algorithm's replay buffer.
CHECKPOINT_MODEL = "model.zip"
CHECKPOINT_REPLAY_BUFFER = "replay_buffer.pkl"
#: Modules of the ``train`` extra that loading a learned agent imports.
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib")


def is_int(v: Any) -> bool:
    """An integer (not a bool)."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def in_unit_interval(v: Any) -> bool:
    """A number in [0, 1]."""
    return is_number(v) and 0 <= v <= 1


#: Rules of the hyperparameters Stable-Baselines3's PPO and DQN share.
COMMON_RULES: dict[str, Rule] = {
    "learning_rate": ("a positive number", lambda v: is_number(v) and v > 0),
    "n_steps": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
    "batch_size": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
    "gamma": ("a number in [0, 1]", in_unit_interval),
    "max_grad_norm": ("a positive number", lambda v: is_number(v) and v > 0),
    "stats_window_size": ("an integer >= 1", lambda v: is_int(v) and v >= 1),
}


@dataclass(frozen=True)
class Algorithm:
    """One learning algorithm, as configs (``algo: <name>``) and agent specs (``<name>:<game>``,
    ``<name>:<path.zip>``) name it.

    Args:
        name: the name configs, specs, shipped model files (``agents/models/<name>_<game>.zip``) and
            the entry point use.
        model: where the model class lives, ``"module:Class"``, imported when first needed (so that
            finding the algorithms imports neither torch nor Stable-Baselines3).
        policy: the policy the model is built with (an SB3 policy name or class).
        mask_in_observation: observations are ``{"observation", "action_mask"}`` dicts (masked DQN:
            the replay buffer keeps the mask of every next state); otherwise arrays, the mask handed to
            the model through ``action_masks()`` (MaskablePPO).
        imitation: whether it takes a warm start by imitation (``imitation.teacher``;
            :mod:`boardenvs_agents.learning.imitation` fits a MaskablePPO-style actor-critic).
        hyperparameter_rules: what each hyperparameter must be; the model class's constructor says
            which it takes (:meth:`hyperparameter_names`), and the trial build catches the rest.
        net_arch_heads: the heads a ``policy_kwargs.net_arch`` mapping may size (PPO: ``pi``, ``vf``);
            empty: ``net_arch`` is a list of layer sizes only.
        trial_limits: upper bounds of hyperparameters in the config check's trial build (DQN: a replay
            buffer of 1,000 stands in for the run's).
        runner: the module of an algorithm that trains by a loop of its own instead of the model's
            ``learn`` on the training envs (expert iteration: self-play with search, then a fit):
            ``boardenvs-train`` hands a config of this algorithm to the module's ``start_run(raw,
            where, runs, name, progress)`` and a run directory of it to ``resume_run(run_dir,
            overrides, progress)``, both returning a :class:`~boardenvs_agents.learning.run.RunResult`
            (:mod:`boardenvs_agents.learning.expert.run`). Empty: the run of
            :mod:`boardenvs_agents.learning.run` (SB3's ``learn``, checkpoints, evaluations).
    """

    name: str
    model: str
    policy: Any = "MlpPolicy"
    mask_in_observation: bool = False
    imitation: bool = False
    hyperparameter_rules: Mapping[str, Rule] = field(default_factory=dict, hash=False)
    net_arch_heads: tuple[str, ...] = ()
    trial_limits: Mapping[str, int] = field(default_factory=dict, hash=False)
    runner: str = ""

    def __post_init__(self) -> None:
        module, colon, attribute = self.model.partition(":")
        if not (module and colon and attribute):
            raise ValueError(f"algorithm {self.name!r}: model is 'module:Class', got {self.model!r}")

    # -- the model class and its hyperparameters ---------------------------------------------------
    @property
    def runner_module(self) -> Any:
        """The module of :attr:`runner` (imported now), or ``None`` for an algorithm trained by the
        standard run."""
        return importlib.import_module(self.runner) if self.runner else None

    @property
    def model_class(self) -> type:
        """The model class (imported now)."""
        module, _, attribute = self.model.partition(":")
        target: Any = importlib.import_module(module)
        for part in attribute.split("."):
            target = getattr(target, part)
        return target

    def hyperparameter_names(self) -> set[str]:
        """The keyword arguments of the model class's constructor a config may set (following
        ``**kwargs`` up the class hierarchy), less those the run sets itself (:data:`RESERVED`)."""
        names: set[str] = set()
        for klass in self.model_class.__mro__:
            if "__init__" not in vars(klass):
                continue
            params = inspect.signature(klass.__init__).parameters.values()
            names |= {p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
            if not any(p.kind == p.VAR_KEYWORD for p in params):
                break
        return names - {"self", "policy", "env"} - RESERVED

    def check_hyperparameters(self, hyperparameters: Mapping[str, Any], where: str = "config: ") -> None:
        """Refuse a hyperparameter the model does not take, or a value its rule refuses.

        Raises:
            OptionError: naming the key (``where`` says which file).
        """
        accepted = self.hyperparameter_names()
        for key in hyperparameters:
            if key not in accepted:
                raise OptionError(
                    f"{where}hyperparameters.{key} is not a {self.name} hyperparameter here; "
                    f"valid: {sorted(accepted)}"
                )
        for key, value in hyperparameters.items():
            if key in self.hyperparameter_rules:
                allowed, ok = self.hyperparameter_rules[key]
                if not ok(value):
                    raise OptionError(f"{where}hyperparameters.{key} must be {allowed}, got {value!r}")

    def check_policy_kwargs(self, policy_kwargs: Mapping[str, Any], where: str = "config: ") -> None:
        """Refuse a ``net_arch`` that is neither a list of layer sizes nor a mapping of
        :attr:`net_arch_heads` to such lists.

        Raises:
            OptionError: naming the key.
        """

        def layers(v: Any) -> bool:
            return isinstance(v, (list, tuple)) and all(is_int(n) and n >= 1 for n in v)

        net_arch = policy_kwargs.get("net_arch", [])
        heads = self.net_arch_heads
        ok = layers(net_arch) or (
            bool(heads)
            and isinstance(net_arch, dict)
            and set(net_arch) <= set(heads)
            and all(layers(v) for v in net_arch.values())
        )
        if not ok:
            shapes = "a list of layer sizes (integers >= 1)"
            if heads:
                shapes += " or {" + ", ".join(f"{head}: [...]" for head in heads) + "}"
            raise OptionError(f"{where}policy_kwargs.net_arch must be {shapes}, got {net_arch!r}")

    def trial_hyperparameters(self, hyperparameters: Mapping[str, Any]) -> dict[str, Any]:
        """The hyperparameters of the config check's trial build: ``hyperparameters`` with
        :attr:`trial_limits` applied (a value left out counts as the limit)."""
        trial = dict(hyperparameters)
        for key, limit in self.trial_limits.items():
            trial[key] = min(int(trial.get(key, limit)), limit)
        return trial

    # -- build, train, save, load -----------------------------------------------------------------
    def build(
        self,
        env: Any,
        hyperparameters: Mapping[str, Any] | None = None,
        policy_kwargs: Mapping[str, Any] | None = None,
        seed: int | None = None,
        tensorboard_log: str | None = None,
    ) -> Any:
        """A new model on ``env`` (a Stable-Baselines3 ``VecEnv``), on the CPU, silent: the one place
        where models are built. ``seed`` seeds the model and the global generators (``None``: left as
        they are); ``tensorboard_log``: the folder of its TensorBoard events (``None``: none)."""
        return self.model_class(
            self.policy, env, seed=seed, device="cpu", tensorboard_log=tensorboard_log,
            policy_kwargs=dict(policy_kwargs or {}) or None, verbose=0, **dict(hyperparameters or {}),
        )  # fmt: skip

    def train(self, model: Any, steps: int, callbacks: Iterable[Any] = ()) -> Any:
        """Train ``model`` for ``steps`` more environment steps (Stable-Baselines3 stops at the first
        rollout boundary at or past them), its step count going on from where it stands, calling
        ``callbacks`` (SB3 callbacks) as it goes; TensorBoard events go to its ``run`` folder."""
        return model.learn(
            steps, callback=list(callbacks) or None, reset_num_timesteps=False, tb_log_name="run",
            progress_bar=False,
        )  # fmt: skip

    def save(self, model: Any, path: str | Path) -> None:
        """Write ``model`` (weights, optimizer state, counters) to ``path``
        (:func:`~boardenvs_agents.learning.models.save_model` adds the metadata)."""
        model.save(path)

    def load(self, path: str | Path, device: str = "cpu") -> Any:
        """The model saved at ``path``. Loading an SB3 model reseeds the global generators with its
        seed (:func:`~boardenvs_agents.learning.models.load_model` keeps them)."""
        return self.model_class.load(path, device=device)

    def checkpoint_files(self, model: Any) -> dict[str, Callable[[Path], Any]]:
        """The files of a checkpoint of ``model`` (name -> writer of that file): the model, and the
        replay buffer of an off-policy algorithm (masked DQN), so that a resumed run trains on."""
        files: dict[str, Callable[[Path], Any]] = {CHECKPOINT_MODEL: lambda path: self.save(model, path)}
        if _off_policy(model):
            files[CHECKPOINT_REPLAY_BUFFER] = model.save_replay_buffer
        return files

    def load_checkpoint(self, folder: str | Path) -> Any:
        """The model of the checkpoint in ``folder`` (:meth:`checkpoint_files`), its replay buffer
        loaded too."""
        model = self.load(Path(folder) / CHECKPOINT_MODEL)
        if _off_policy(model):
            model.load_replay_buffer(Path(folder) / CHECKPOINT_REPLAY_BUFFER)
        return model

    # -- play -----------------------------------------------------------------------------------
    def play(
        self,
        path: str | Path,
        game: Game,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "",
    ) -> Policy:
        """A player of the model saved at ``path`` for ``game`` (refused, with a message that says why,
        if trained for another game or other options): what ``<name>:<path.zip>`` and ``<name>:<game>``
        agent specs build. Default: :meth:`~boardenvs_agents.learning.models.LearnedPolicy.from_file`,
        which plays any SB3 model with action logits (actor-critic) or Q-values (``q_net``)."""
        from boardenvs_agents.learning.models import LearnedPolicy

        return LearnedPolicy.from_file(path, game, deterministic=deterministic, seed=seed, name=name)


    # -- agent specs ----------------------------------------------------------------------------
    def agent(
        self,
        game_name: str,
        seed: int | None,
        game_options: dict[str, Any] | None,
        model: str = "",
        deterministic: bool = True,
    ) -> Policy:
        """The factory of ``<name>:<model>`` specs (:mod:`boardenvs_agents.registry`): a player
        (:meth:`play`) of the model at a path, or of the model shipped for ``game_name`` and the options
        asked (``ppo:sorry_v0`` with two players is the two-player model; without options from the
        caller, the default model plays the options it was trained with). Encoding options (Gangsi's
        action features) are the model's own: it encodes its observations with them at any table of
        the same rules.

        Raises:
            ValueError: for no model, a model trained for another game or other options.
            FileNotFoundError: for a model file that does not exist.
            ImportError: when the ``train`` extra (torch, Stable-Baselines3) is missing, saying so.
        """
        from boardenvs.core.options import encoding_keys, options_to_dict
        from boardenvs.registry import make_game
        from boardenvs_agents.learning.models import read_metadata, resolve_model_path

        if not model:
            raise ValueError(
                f"name a model: '{self.name}:<path to .zip>' or '{self.name}:<game>' for a shipped one"
            )
        if game_options is not None and model == game_name:
            asked = make_game(game_name, **game_options).options
            path = resolve_model_path(model, self.name, options_to_dict(asked), ignore=encoding_keys(asked))
        else:
            path = resolve_model_path(model, self.name)
        trained = read_metadata(path)["options"]
        options = dict(game_options) if game_options is not None else dict(trained)
        for key in encoding_keys(make_game(game_name, **options).options):
            if key in trained:
                options[key] = trained[key]
        game = make_game(game_name, **options)
        try:
            return self.play(path, game, deterministic=deterministic, seed=seed, name=f"{self.name}:{model}")
        except ModuleNotFoundError as err:
            if (err.name or "").partition(".")[0] not in TRAIN_MODULES:
                raise
            raise ImportError(
                f"agent '{self.name}:{model}' is a Stable-Baselines3 model and needs the train extra "
                f'(torch, stable-baselines3, sb3-contrib): pip install "boardenvs[train]" '
                f"(missing module: {err.name})",
                name=err.name,
            ) from err

    def evaluator(self, game_name: str, game_options: dict[str, Any] | None, model: str = "") -> Any:
        """A search evaluator of the model (``mcts:evaluator=<name>:<model>``): its policy as prior and
        its value head as leaf value (:class:`~boardenvs_agents.learning.evaluator.NetworkEvaluator`).

        Raises:
            ValueError: for a model without action logits or a value head, or trained for one seat.
        """
        from boardenvs_agents.learning.evaluator import NetworkEvaluator

        return NetworkEvaluator(self.agent(game_name, None, game_options, model=model))

    def trained_for(self, model: str) -> tuple[str, dict[str, Any]]:
        """The game and options the model ``model`` (a path, or a game's shipped one) was trained for,
        read from its metadata.

        Raises:
            FileNotFoundError: for a model file that does not exist (naming the shipped models).
            ValueError: for a file that is not a boardenvs model.
        """
        from boardenvs_agents.learning.models import read_metadata, resolve_model_path

        metadata = read_metadata(resolve_model_path(model, self.name))
        return metadata["game"], dict(metadata["options"])


def _off_policy(model: Any) -> bool:
    """Whether ``model`` keeps a replay buffer (a Stable-Baselines3 off-policy algorithm)."""
    from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm

    return isinstance(model, OffPolicyAlgorithm)
