"""One self-play game of expert iteration, played through the core loop and turned into examples.

* :func:`frozen_evaluator`: the network as every worker gets it, a
  :class:`~boardenvs_agents.learning.evaluator.NetworkEvaluator` of numpy weights only (no torch, no
  Stable-Baselines3 model: small to pickle, the same scores in any process).
* :func:`search_policy`: a search's training target, from :attr:`MCTSPolicy.last_search
  <boardenvs_agents.search.mcts.MCTSPolicy.last_search>`.
* :func:`make_search`: the search a searching seat plays, MCTS or rollouts over the network.
* :class:`SearchingSeat`: a seat that searches with the network and records its decisions.
* :class:`GamePlayer`: plays game ``g`` of a :class:`~.config.SelfPlayConfig` and returns its examples.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.loop import derive_seeds, play_game
from boardenvs.core.options import options_to_dict, rules_options
from boardenvs.core.state import State
from boardenvs.registry import make_game
from boardenvs_agents.base import Policy
from boardenvs_agents.learning.evaluator import NetworkEvaluator
from boardenvs_agents.learning.expert.config import SELF, SelfPlayConfig
from boardenvs_agents.learning.expert.dataset import ARRAYS, Dataset
from boardenvs_agents.learning.models import LearnedPolicy
from boardenvs_agents.learning.network import NumpyMLP
from boardenvs_agents.registry import make_evaluator, make_policy
from boardenvs_agents.search.mcts import MCTSPolicy
from boardenvs_agents.search.rollouts import rollouts_over

#: What :func:`frozen_evaluator` takes: a learned spec (``ppo:sorry_v0``, ``ppo:runs/x/model.zip``), a
#: model file, a learned policy, or a network evaluator.
NetworkSource = str | Path | LearnedPolicy | NetworkEvaluator


def frozen_evaluator(source: NetworkSource, game: Game) -> NetworkEvaluator:
    """The network evaluator of ``source`` for ``game``, holding numpy weights only (see the module
    docstring): its policy is a :class:`~boardenvs_agents.learning.models.LearnedPolicy` without the
    Stable-Baselines3 model, its policy and value heads :class:`~boardenvs_agents.learning.network.NumpyMLP`.

    ``source`` is a learned spec (``ppo:sorry_v0``: the shipped model for ``game``'s options), a saved
    model's path, a :class:`LearnedPolicy` (a model loaded or trained in this process), or a
    :class:`NetworkEvaluator`.

    Raises:
        ValueError: for a model without a policy-value network numpy can copy, trained for one seat, or
            for another game or other rules.
    """
    if isinstance(source, Path) or (isinstance(source, str) and ":" not in source):
        source = LearnedPolicy.from_file(source, game)
    if isinstance(source, str):
        evaluator = make_evaluator(source, game.name, options_to_dict(game.options))
    elif isinstance(source, LearnedPolicy):
        evaluator = NetworkEvaluator(source)
    elif isinstance(source, NetworkEvaluator):
        evaluator = source
    else:
        raise ValueError(f"a self-play network is a learned spec, a model file or a policy, got {source!r}")
    policy = evaluator.policy
    if policy.game.name != game.name or rules_options(policy.game.options) != rules_options(game.options):
        raise ValueError(
            f"{policy.name} was trained for {policy.game.name} with "
            f"{rules_options(policy.game.options)}, not {game.name} with {rules_options(game.options)}"
        )
    if not isinstance(policy.network, NumpyMLP):
        raise ValueError(
            f"{policy.name}: self-play needs a network numpy can copy (flatten-then-MLP), got "
            f"{type(policy.network).__name__}"
        )
    if policy.model is None:
        return evaluator
    frozen = copy.copy(evaluator)
    frozen.policy = LearnedPolicy(
        None, policy.game, None, policy.view.mask_in_observation, True, None, policy.name, policy.network,
        evaluator.value_network,
    )  # fmt: skip
    return frozen


def network_key(evaluator: NetworkEvaluator) -> str:
    """A digest of the network's weights (policy and value heads) and encoding: two evaluators with
    the same key give the same priors and values."""
    digest = hashlib.sha256()
    policy = evaluator.policy
    digest.update(repr((policy.game.name, policy.game.options, policy.view.box.shape)).encode())
    for network in (policy.network, evaluator.value_network):
        for weight, bias, activation in network.layers:
            digest.update(np.ascontiguousarray(weight).tobytes())
            digest.update(b"" if bias is None else np.ascontiguousarray(bias).tobytes())
            digest.update(str(activation).encode())
    return digest.hexdigest()[:16]


def search_policy(search: Mapping[str, Any], num_actions: int, played: int) -> np.ndarray:
    """The training target of one search: ``(num_actions,)`` float32 over the actions (0 on illegal ones).

    ``search`` is the search's ``last_search`` after the decision (:attr:`MCTSPolicy.last_search
    <boardenvs_agents.search.mcts.MCTSPolicy.last_search>`); its ``target`` is what the search says to
    train on (Gumbel root selection's improved policy, else the root's visit distribution over the
    legal actions). A search that states no target (one that visited no child; the rollouts, whose
    choice is their one answer) targets the ``played`` action alone. This is the one place that reads
    a search's statistics as a target.
    """
    target = np.zeros(num_actions, dtype=np.float64)
    stated = search.get("target")
    if stated:
        for action, share in stated.items():
            target[action] = share
    else:
        target[played] = 1.0
    return target.astype(np.float32)


def make_search(config: SelfPlayConfig, evaluator: NetworkEvaluator, game: Game) -> Policy:
    """The search of ``config``'s searching seats over the network: an
    :class:`~boardenvs_agents.search.mcts.MCTSPolicy` with ``evaluator`` as its evaluator
    (``searcher: mcts``), or paired rollouts (:func:`~boardenvs_agents.search.rollouts.rollouts_over`)
    with the network as their base policy, its value head scoring their leaves (``searcher:
    rollouts``), with the config's ``search`` options and a budget in rounds, never seconds.

    Raises:
        TypeError: for an option the search does not take.
        ValueError: for an option out of range or a bad inner spec.
    """
    if config.searcher == "mcts":
        return MCTSPolicy(evaluator=evaluator, **config.search)
    options = {**config.search, "seconds": None}
    base = evaluator.policy.clone()  # a generator of its own: the rollouts set it in every rollout
    return rollouts_over(base, game.name, None, dict(config.game_options), **options)


class SearchingSeat(Policy):
    """A seat played by the search with the network, writing every decision to a journal.

    It plays ``search``'s choice (:func:`make_search`: an MCTS with the network as evaluator, or
    rollouts over it), or, for an MCTS's first ``temperature_moves`` decisions with a choice, an
    action drawn from the root visit counts to the power ``1 / temperature`` with the search's
    generator. Reset with a seed (as :func:`~boardenvs.core.loop.play_game` does), it resets the
    search with it: with ``temperature_moves=0`` it plays exactly as the search alone would.

    Args:
        search: the search (a policy with a ``last_search`` after each decision).
        encoder: the network's player, whose :meth:`LearnedPolicy.encode` gives the observation.
        seat: the seat it plays (checked at every decision).
        journal: where it appends ``(seat, observation, mask, target)`` for every recorded decision
            (shared by the searching seats of a game, so that it holds them in the game's order).
        temperature_moves: see :class:`~.config.SelfPlayConfig`.
        temperature: see :class:`~.config.SelfPlayConfig`.
        record_forced: record decisions with a single legal action too.
    """

    name = "self"

    def __init__(
        self,
        search: Policy,
        encoder: LearnedPolicy,
        seat: int,
        journal: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]],
        temperature_moves: int = 0,
        temperature: float = 1.0,
        record_forced: bool = False,
    ) -> None:
        super().__init__(None)
        self.search = search
        self.encoder = encoder
        self.seat = seat
        self.journal = journal
        self.temperature_moves = temperature_moves
        self.temperature = temperature
        self.record_forced = record_forced
        self.num_actions = encoder.view.num_actions
        self._choices = 0

    def reset(self, seed: int | None = None) -> None:
        """Reset the search with ``seed`` (and count this game's decisions from 0)."""
        self.search.reset(seed)
        self.rng = self.search.rng
        self._choices = 0

    def act(self, state: State) -> int:
        """The search's action (or a draw from its visits, early on), recorded."""
        if state.current_player() != self.seat:
            raise ValueError(f"the searching seat {self.seat} asked to play seat {state.current_player()}")
        forced = len(state.legal_actions()) == 1
        if forced and not self.record_forced:
            return self.search.act(state)
        observation, mask = self.encoder.encode(state)
        action = self.search.act(state)
        search = self.search.last_search
        if not forced:
            if self._choices < self.temperature_moves:
                action = self._draw(search, action)
            self._choices += 1
        target = search_policy({} if forced else search, self.num_actions, action)
        self.journal.append((self.seat, np.array(observation, dtype=np.float32), mask, target))
        return action

    def _draw(self, search: Mapping[str, Any], action: int) -> int:
        """An action drawn from the visit counts to the power ``1 / temperature`` (the search's
        ``action`` when it visited nothing)."""
        actions = sorted(search["visits"])
        counts = np.array([search["visits"][a] for a in actions], dtype=np.float64)
        if counts.sum() == 0:
            return action
        weights = (counts / counts.max()) ** (1.0 / self.temperature)  # scaled first: no overflow
        cumulative = np.cumsum(weights)
        at = int(np.searchsorted(cumulative, self.search.rng.random() * cumulative[-1], side="right"))
        return actions[min(at, len(actions) - 1)]


def draw_lineup(config: SelfPlayConfig, game_seed: int, num_players: int) -> list[str]:
    """What every seat plays in the game of ``game_seed``: ``"self"`` (it searches) or an agent spec.

    Drawn with child ``num_players + 1`` of the game's seed (the core loop's children ``0 ..
    num_players`` seed its chance and its seats, :mod:`boardenvs.core.loop`): first the searching
    seat when ``search_seats`` is null (uniformly), then, seat by seat, each other seat's kind from the
    ``opponents`` weights.
    """
    rng = np.random.default_rng(derive_seeds(game_seed, num_players + 2)[num_players + 1])
    if config.search_seats is None:
        searching = {int(rng.integers(num_players))}
    else:
        searching = set(config.search_seats)
    kinds = list(config.opponents)
    weights = np.array([config.opponents[k] for k in kinds], dtype=np.float64)
    weights /= weights.sum()
    lineup = []
    for seat in range(num_players):
        lineup.append(SELF if seat in searching else kinds[int(rng.choice(len(kinds), p=weights))])
    return lineup


class GamePlayer:
    """Plays the games of a self-play config with a network and turns each into examples; what every
    worker holds (built once, every game resetting its seats with the game's seeds).

    Args:
        config: the run.
        evaluator: the network (:func:`frozen_evaluator`).

    Raises:
        ValueError: for a game, search option, seat or opponent the config names wrongly, or a network
            of another game.
    """

    def __init__(self, config: SelfPlayConfig, evaluator: NetworkEvaluator) -> None:
        self.config = config
        self.game = make_game(config.game, **config.game_options)
        self.evaluator = frozen_evaluator(evaluator, self.game)
        self.encoder = self.evaluator.policy
        self.num_players = self.game.num_players
        self.seeds = derive_seeds(config.seed, config.games)
        if config.search_seats is not None and max(config.search_seats) >= self.num_players:
            raise ValueError(
                f"search_seats {list(config.search_seats)}: {self.game.name} with these options has "
                f"{self.num_players} seats"
            )
        self._seats: dict[tuple[str, int], Policy] = {}
        self._journal: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        try:
            self.seat_policy(SELF, 0)
        except TypeError as err:
            raise ValueError(f"bad search options {config.search}: {err}") from err
        for kind in config.opponents:
            if kind != SELF:
                self.seat_policy(kind, 0)

    def seat_policy(self, kind: str, seat: int) -> Policy:
        """The policy of ``kind`` in ``seat`` (built the first time, then kept: every game resets it)."""
        policy = self._seats.get((kind, seat))
        if policy is None:
            if kind == SELF:
                search = make_search(self.config, self.evaluator, self.game)
                policy = SearchingSeat(
                    search, self.encoder, seat, self._journal, self.config.temperature_moves,
                    self.config.temperature, self.config.record_forced,
                )  # fmt: skip
            else:
                policy = make_policy(kind, self.game.name, game_options=dict(self.config.game_options))
            self._seats[(kind, seat)] = policy
        return policy

    def play(self, index: int) -> Dataset:
        """The examples of game ``index`` (played with ``derive_seeds(config.seed, config.games)[index]``)."""
        seed = self.seeds[index]
        lineup = draw_lineup(self.config, seed, self.num_players)
        actors = [self.seat_policy(kind, seat) for seat, kind in enumerate(lineup)]
        self._journal.clear()
        played = play_game(self.game, actors, seed)
        rows, self._journal[:] = list(self._journal), []
        if not rows:
            size, actions = self.encoder.view.box.shape[0], self.encoder.view.num_actions
            return Dataset.empty(size, actions, self.num_players)
        returns = np.asarray(played.returns, dtype=np.float32)
        seats = np.asarray([r[0] for r in rows], dtype=ARRAYS["seats"])
        return Dataset(
            observations=np.stack([r[1] for r in rows]),
            masks=np.stack([r[2] for r in rows]),
            policies=np.stack([r[3] for r in rows]),
            seats=seats,
            values=returns[seats],
            returns=np.tile(returns, (len(rows), 1)),
            games=np.full(len(rows), index, dtype=ARRAYS["games"]),
        )
