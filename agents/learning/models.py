"""Trained Stable-Baselines3 models as agents: saving with metadata, checked loading, and a Policy.

A saved model is SB3's own zip with one more member, ``boardenvs.json``: the game, its options, the
learner view (seat, mask in observation, spaces), the algorithm, the training steps and the git commit.
:func:`load_model` reads it first and refuses a model made for another game, other options or other
spaces with a message that says which. Files are written atomically (a temporary file, then a rename),
so a crash never leaves half a model behind.

Shipped models live in ``agents/models/<algo>_<game>.zip`` and are named by spec, e.g. ``ppo:sorry_v0``;
``ppo:path/to/model.zip`` loads any file. ``<algo>`` is any registered algorithm
(:mod:`boardenvs_agents.learning.algorithms`), whose record builds, saves and loads its models.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import os
import subprocess
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict, rules_options
from boardenvs.core.state import State
from boardenvs.registry import env_names, make_game
from boardenvs.wrappers.single_agent import LearnerView
from boardenvs_agents.base import Policy
from boardenvs_agents.learning.algorithms import get_algorithm
from boardenvs_agents.learning.network import FrozenNetwork, NumpyMLP, frozen_network, frozen_value_network

METADATA_NAME = "boardenvs.json"
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


def algorithm_class(algo: str) -> type:
    """The model class of the registered algorithm ``algo`` (``"ppo"``: MaskablePPO, ``"dqn"``:
    MaskedDQN; :func:`~boardenvs_agents.learning.algorithms.get_algorithm`).

    Raises:
        ValueError: for an algorithm nobody registered.
    """
    return get_algorithm(algo).model_class


def git_commit() -> str:
    """The current git commit of this checkout, or ``"unknown"``."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
            cwd=Path(__file__).resolve().parent,
        )  # fmt: skip
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def model_metadata(game: Game, view: LearnerView, learner_seat: int | None, algo: str, **extra: Any) -> dict:
    """The metadata saved beside a model trained on ``game`` through ``view``."""
    return {
        "format": 1,
        "game": game.name,
        "options": options_to_dict(game.options),
        "algo": algo,
        "learner_seat": learner_seat,
        "mask_in_observation": view.mask_in_observation,
        "observation_shape": list(view.box.shape),
        "num_actions": view.num_actions,
        "commit": git_commit(),
        **extra,
    }


def atomic_write(path: Path, write: Any) -> None:
    """Call ``write(tmp_path)`` then rename the result onto ``path`` (atomic on one filesystem)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def save_model(model: Any, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Save a model of the algorithm ``metadata["algo"]`` (:meth:`Algorithm.save
    <boardenvs_agents.learning.algorithms.Algorithm.save>`) with its metadata, atomically; returns the
    path (``.zip`` added if missing)."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    algorithm = get_algorithm(metadata["algo"])

    def write(tmp: Path) -> None:
        algorithm.save(model, tmp)
        saved = tmp if tmp.exists() else tmp.with_name(tmp.name + ".zip")
        with zipfile.ZipFile(saved, "a") as zf:
            zf.writestr(METADATA_NAME, json.dumps(metadata, indent=2))
        if saved != tmp:
            os.replace(saved, tmp)

    atomic_write(path, write)
    return path


def shipped_models(algo: str, game_name: str) -> list[Path]:
    """The shipped ``algo`` models of the game ``game_name``: ``models/<algo>_<game>.zip`` (the default
    one, first) and its variants for other options, ``models/<algo>_<game>__<variant>.zip`` (e.g.
    ``__2p``); none for a name that is not a registered game."""
    if game_name not in env_names():
        return []
    default = MODELS_DIR / f"{algo}_{game_name}.zip"
    variants = sorted(MODELS_DIR.glob(f"{algo}_{game_name}__*.zip"))
    return ([default] if default.exists() else []) + variants


def shipped_games(algo: str) -> list[str]:
    """The games with a shipped ``algo`` model (:func:`shipped_models`)."""
    prefix = f"{algo}_"
    stems = (p.stem[len(prefix) :].split("__")[0] for p in MODELS_DIR.glob(f"{prefix}*.zip"))
    return sorted({game for game in stems if game in env_names()})


def resolve_model_path(
    name_or_path: str, algo: str, options: dict[str, Any] | None = None, ignore: Sequence[str] = ()
) -> Path:
    """A model file: a shipped model by game name, one shipped variant by name, or a path.

    ``sorry_v0`` names the shipped models of that game (:func:`shipped_models`): with ``options`` (the
    game's full options, as :func:`~boardenvs.core.options.options_to_dict` gives them) the one trained
    for exactly those but for the keys in ``ignore`` (encoding options, which a model brings along),
    else the default one. ``sorry_v0__2p`` names one variant, ``models/<algo>_sorry_v0__2p.zip``,
    whatever the options, as a path does: both are taken as they are (the options are checked when
    the model is loaded).

    Raises:
        FileNotFoundError: for a name that is neither a shipped model nor a file.
        ValueError: for a game whose shipped models were all trained for other options (the message
            says which player counts have one).
    """
    shipped = shipped_models(algo, name_or_path)
    if shipped:
        if options is None:
            return shipped[0]
        trained = [(path, read_metadata(path)["options"]) for path in shipped]

        def rules(opts: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in opts.items() if k not in ignore}

        for path, model_options in trained:
            if rules(model_options) == rules(options):
                return path
        have = ", ".join(
            f"{path.name} for {model_options.get('num_players', '?')} players"
            + (
                ""
                if _same_but_players(name_or_path, model_options, options, ignore)
                else " and other options"
            )
            for path, model_options in trained
        )
        raise ValueError(
            f"no shipped {algo} model of {name_or_path} fits: each was trained for {name_or_path} with other "
            f"options (asked: {options.get('num_players', '?')} players; shipped: {have}); train one with "
            f"python scripts/train.py --config configs/{name_or_path}/{algo}.yaml "
            "--set game_options.num_players=N"
        )
    variant = MODELS_DIR / f"{algo}_{name_or_path}.zip"
    if variant in shipped_models(algo, name_or_path.partition("__")[0]):
        return variant
    path = Path(name_or_path)
    if path.exists():
        return path
    if path.with_suffix(".zip").exists():
        return path.with_suffix(".zip")
    raise FileNotFoundError(
        f"no model file {name_or_path!r} and no shipped {algo} model of that name "
        f"(shipped: {shipped_games(algo)})"
    )


def _same_but_players(
    game_name: str, trained: dict[str, Any], asked: dict[str, Any], ignore: Sequence[str] = ()
) -> bool:
    """Whether options ``trained`` and ``asked`` differ in the player count only, but for the keys in
    ``ignore``: every option ``trained`` left at its default for its count takes the default of the
    asked count (Lost City's spawns are chosen per count), the others must match."""
    try:
        defaults = options_to_dict(make_game(game_name, num_players=trained["num_players"]).options)
        chosen = {k: v for k, v in trained.items() if v != defaults.get(k)}
        moved = options_to_dict(
            make_game(game_name, **{**chosen, "num_players": asked["num_players"]}).options
        )
    except (KeyError, ValueError):
        return False
    return {k: v for k, v in moved.items() if k not in ignore} == {
        k: v for k, v in asked.items() if k not in ignore
    }


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a saved model (a clear error for a file that is not a boardenvs model).

    Its ``options`` are the game's full options: an option the game gained after the model was saved
    reads as its default (the model was trained without it).
    """
    try:
        with zipfile.ZipFile(path) as zf:
            metadata = json.loads(zf.read(METADATA_NAME))
    except (zipfile.BadZipFile, KeyError) as err:
        raise ValueError(f"{path} is not a boardenvs model (no {METADATA_NAME} inside)") from err
    if "game" in metadata and "options" in metadata:
        try:
            options = make_game(metadata["game"], **metadata["options"]).options
        except ValueError as err:
            raise ValueError(f"{path} was trained with options this version does not know: {err}") from err
        metadata["options"] = options_to_dict(options)
    return metadata


def check_compatible(metadata: dict[str, Any], game: Game, path: str | Path = "model") -> None:
    """Raise ``ValueError`` if a model with ``metadata`` was not trained for ``game`` and its options."""
    if metadata["game"] != game.name:
        raise ValueError(f"{path} was trained for {metadata['game']}, not {game.name}")
    options = options_to_dict(game.options)
    if metadata["options"] != options:
        diff = {
            k: (metadata["options"].get(k), v) for k, v in options.items() if metadata["options"].get(k) != v
        }
        raise ValueError(
            f"{path} was trained for {game.name} with other options; (trained, asked) differ in {diff}"
        )


def load_model(path: str | Path, game: Game | None = None, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """Load a saved model and its metadata; with ``game``, check the model was trained for it."""
    metadata = read_metadata(path)
    if game is not None:
        check_compatible(metadata, game, path)
    with kept_global_generators():
        model = get_algorithm(metadata["algo"]).load(path, device=device)
    return model, metadata


@contextmanager
def kept_global_generators() -> Iterator[None]:
    """Restore the global generators (torch, numpy, ``random``) on the way out.

    Loading an SB3 model reseeds all three with the seed it was trained with (``_setup_model``), and
    building its network draws from torch's: a snapshot loaded into a self-play pool in the
    learner's process must leave the learner's streams as they were, so that a run is the same
    whether its envs live in this process or in others.
    """
    import random

    import torch

    python_state, numpy_state, torch_state = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
        torch.set_rng_state(torch_state)


class LearnedPolicy(Policy):
    """A trained SB3 model playing through the common interface (masks always applied).

    It plays a frozen copy of the model's network (:func:`~boardenvs_agents.learning.network.frozen_network`,
    taken when the policy is made: train the model further and make a new policy to follow it). A
    decision is :meth:`forced` (the only legal action, where there is no choice), or else :meth:`encode`
    (the observation and mask of the player to move), the network's
    :meth:`~boardenvs_agents.learning.network.FrozenNetwork.scores`, then :meth:`choose`; :meth:`act` does
    it all for one decision, and a vector env scores a batch of decisions of many envs at once
    (:attr:`batch_key` names the network), with the same result for each.

    Args:
        model: the SB3 model (MaskablePPO or MaskedDQN); ``None`` for a player of ``network`` alone
            (:meth:`snapshot`).
        game: the game it plays (observations are encoded exactly as in training).
        learner_seat: the seat it was trained for (``None``: any seat).
        mask_in_observation: whether its observations carry the mask (DQN).
        deterministic: greedy actions (``True``) or samples: from the policy's masked distribution
            (PPO), epsilon-greedy with the model's exploration rate (DQN); drawn with the policy's own
            generator.
        seed: seed of the generator used when sampling.
        name: label in tables.
        network: the frozen network to play (default: a copy of ``model``'s; policies loaded from one
            file share theirs).
        value_network: the frozen value head :meth:`values` reads (default: a copy of ``model``'s,
            taken when first needed; a player of ``network`` alone has one only if given it here).
    """

    def __init__(
        self,
        model: Any,
        game: Game,
        learner_seat: int | None = None,
        mask_in_observation: bool = False,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "learned",
        network: FrozenNetwork | None = None,
        value_network: NumpyMLP | None = None,
    ) -> None:
        super().__init__(seed)
        if model is None and network is None:
            raise ValueError("a LearnedPolicy plays a model or a frozen network: got neither")
        self.model = model
        self.game = game
        self.view = LearnerView(game, learner_seat, mask_in_observation)
        self.learner_seat = learner_seat
        self.deterministic = deterministic
        self.name = name
        self.network = network if network is not None else frozen_network(model)
        #: Epsilon of a stochastic DQN policy (the model's exploration rate when the policy was made).
        self.exploration_rate = float(getattr(model, "exploration_rate", 0.0))
        self._options_seen: Any = None
        self._value_network: Any = value_network

    @classmethod
    def from_file(
        cls, path: str | Path, game: Game, deterministic: bool = True, seed: int | None = None, name: str = ""
    ) -> LearnedPolicy:
        """Load a saved model for ``game`` (refused with a clear message if trained for another)."""
        model, meta = load_model(path, game)
        return cls(
            model, game, meta["learner_seat"], meta["mask_in_observation"], deterministic, seed,
            name or f"{meta['algo']}:{Path(path).stem}", frozen_network(model, file_key(path)),
        )  # fmt: skip

    @classmethod
    def snapshot(
        cls,
        model: Any,
        game: Game,
        learner_seat: int | None = None,
        mask_in_observation: bool = False,
        name: str = "self",
    ) -> LearnedPolicy:
        """A greedy player of ``model`` as it is now, taken in memory: it holds a frozen copy of the
        network and not the model (training the model on does not change it, and it pickles small, for
        envs in other processes). It chooses the actions :meth:`from_file` of the model saved now
        chooses (the same weights); it has no :meth:`value`."""
        player = cls(None, game, learner_seat, mask_in_observation, True, None, name, frozen_network(model))
        player.exploration_rate = float(getattr(model, "exploration_rate", 0.0))
        return player

    def clone(self, seed: int | None = None) -> LearnedPolicy:
        """The same player (model and network shared) with a generator of its own."""
        twin = LearnedPolicy(
            self.model, self.game, self.learner_seat, self.view.mask_in_observation, self.deterministic,
            seed, self.name, self.network, self._value_network,
        )  # fmt: skip
        twin.exploration_rate = self.exploration_rate
        return twin

    @property
    def batch_key(self) -> str:
        """Names the network: decisions of policies with the same key may share a forward pass."""
        return self.network.key

    def encode(self, state: State) -> tuple[Any, np.ndarray]:
        """The observation (as in training) and the boolean legal-action mask of the player to move."""
        seat = self._check(state)
        return self.view.observe(state, seat), self.view.mask(state, seat)

    def forced(self, state: State) -> int | None:
        """The only legal action where there is no choice (played without the network and without a
        draw from the generator, alone or batched), else ``None``."""
        self._check(state)
        legal = state.legal_actions()
        return legal[0] if len(legal) == 1 else None

    def _check(self, state: State) -> int:
        """The player to move, after checking this policy was trained for its seat and the options."""
        seat = state.current_player()
        options = getattr(state, "options", None)
        if options is not None and options is not self._options_seen:
            # Encoding options (e.g. Gangsi's action features) are this policy's own: it encodes the
            # state with its game's, whatever the table's are.
            if rules_options(options) != rules_options(self.game.options):
                raise ValueError(
                    f"{self.name} was trained for {self.game.name} with {self.game.options}, not {options}"
                )
            self._options_seen = options  # options are frozen: checked once per object
        if self.learner_seat is not None and seat != self.learner_seat:
            raise ValueError(
                f"{self.name} was trained for seat {self.learner_seat}, asked to play seat {seat}"
            )
        return seat

    def choose(self, scores: np.ndarray, mask: np.ndarray) -> int:
        """The action for one decision from the network's ``scores`` row (``-inf`` where illegal):
        the best, or a draw with this policy's generator (see the class docstring)."""
        if self.deterministic:
            return self._checked(int(scores.argmax()), mask)
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise RuntimeError(f"{self.name} asked to act where no action is legal")
        if self.network.kind == "logits":
            # A draw from the softmax over the legal actions by its cumulative sums, in plain Python:
            # a decision has a handful of legal actions, where numpy's per-call cost would dominate.
            z = scores[legal].tolist()
            top = max(z)
            cumulative = list(itertools.accumulate(math.exp(v - top) for v in z))
            at = bisect.bisect_right(cumulative, self.rng.random() * cumulative[-1])
            return self._checked(legal[min(at, len(legal) - 1)], mask)
        if self.rng.random() < self.exploration_rate:
            return self._checked(legal[int(self.rng.random() * len(legal))], mask)
        return self._checked(int(scores.argmax()), mask)

    def _checked(self, action: int, mask: np.ndarray) -> int:
        if not mask[action]:  # cannot happen with masks applied; never play an illegal move
            raise RuntimeError(f"{self.name} chose illegal action {action}")
        return action

    def value(self, state: State) -> float:
        """The model's value head at ``state`` for the player to move (its expected return, as
        trained), from that player's observation.

        Raises:
            ValueError: for a model without a value head that numpy can copy (DQN, custom networks).
        """
        return self.values([state])[0]

    def values(self, states: Sequence[State]) -> list[float]:
        """:meth:`value` of every state, in one forward pass (each the same number as alone: the
        frozen network computes row by row).

        Raises:
            ValueError: for a model without a value head that numpy can copy (DQN, custom networks).
        """
        if self._value_network is None:
            if self.model is None:
                raise ValueError(f"{self.name} is a snapshot of a policy network: it has no value head")
            self._value_network = frozen_value_network(self.model)
            if self._value_network is None:
                raise ValueError(f"{self.name} has no value head to evaluate states with (PPO MLPs only)")
        if not states:
            return []
        out = self._value_network.forward([self.encode(state)[0] for state in states])
        return [float(v) for v in out[:, 0]]

    def act(self, state: State) -> int:
        """The model's action for the player to move, among legal actions only."""
        forced = self.forced(state)
        if forced is not None:
            return forced
        obs, mask = self.encode(state)
        return self.choose(self.network.scores([obs], mask[None])[0], mask)


def file_key(path: str | Path) -> str:
    """Names the model saved at ``path`` as it is now (the resolved path, modification time and size):
    networks loaded from it, in any process, share the key."""
    path = Path(path).resolve()
    stat = path.stat()
    return f"file:{path}:{stat.st_mtime_ns}:{stat.st_size}"
