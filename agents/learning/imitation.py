"""A warm start for MaskablePPO: the policy first imitates a teacher (behaviour cloning).

PPO from random weights against the heuristic levels off far below it (Sorry!: 0.14 against three
heuristic players after a million steps). Starting from a copy of the heuristic's play moves that
starting point to about the heuristic's own level, and PPO then trains from there:

1. :func:`collect_demonstrations` plays ``games`` games with the teacher (an agent spec, e.g.
   ``heuristic``) in every seat (or in one seat against ``opponents``) and records every decision of
   the seats the learner may play, as the learner sees it
   (:class:`~boardenvs.wrappers.single_agent.LearnerView`: observation and legal-action mask) with the
   teacher's action and the discounted return that seat got (``gamma ** k * return``, ``k`` the seat's
   decisions still to come, as PPO's value function counts them);
2. :func:`clone_policy` fits the policy's action logits to the teacher's actions (cross-entropy over the
   legal actions) and its value head to those returns (mean squared error, weighted ``value_coef``),
   ``epochs`` passes in minibatches, with an Adam optimiser of its own (PPO's is left as it was). A
   tenth of the games is held out: the report gives its accuracy (how often the policy's most likely
   action is the teacher's, over the decisions with more than one legal action) and losses per epoch;
3. optionally DAgger (Ross et al. 2011): :func:`collect_demonstrations` with an ``actor`` (the policy
   itself, a :class:`~boardenvs_agents.learning.models.LearnedPolicy`) plays the recorded seats while
   the teacher only labels the decisions met there, so the policy learns the teacher's answer in the
   positions its own play leads to, not only in the teacher's; :func:`merge_demonstrations` adds them
   to the data and the policy is fitted again.

The training config's ``imitation`` section (:class:`~boardenvs_agents.learning.config.ImitationConfig`)
switches it on; :mod:`boardenvs_agents.learning.run` runs it once, before the first step, and writes
the report to ``imitation.json`` in the run directory. It is seeded (the games by ``seed``, the
minibatches by ``seed``), so a run killed before its first checkpoint and resumed does it again, the
same. The teacher's games are played by the one game loop, :func:`boardenvs.core.loop.play_game`, with
its seeding: game ``g`` has the seed ``derive_seeds(seed, games)[g]``, from which its chance and every
seat's policy are seeded as in the arena.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardenvs.core import loop
from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import State
from boardenvs.wrappers.single_agent import LearnerView
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_policy


@dataclass
class Demonstrations:
    """Decisions of a teacher, as the learner would see them."""

    #: ``(n, features)`` float32 observations.
    observations: np.ndarray
    #: ``(n, actions)`` boolean legal-action masks.
    masks: np.ndarray
    #: ``(n,)`` the teacher's actions.
    actions: np.ndarray
    #: ``(n,)`` float32 discounted returns of the deciding seat.
    returns: np.ndarray
    #: ``(n,)`` the game each decision comes from (held-out games are whole games).
    games: np.ndarray
    #: ``(n,)`` the seat that decided.
    seats: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


def collect_demonstrations(
    game: Game,
    view: LearnerView,
    teacher: str,
    games: int,
    seed: int | Sequence[int],
    gamma: float = 1.0,
    progress: Callable[[int], None] | None = None,
    opponents: str | None = None,
    record: Sequence[int] | None = None,
    seat_teachers: Mapping[int, str] | None = None,
    actor: Policy | None = None,
) -> Demonstrations:
    """Play ``games`` games with ``teacher`` in every seat (each seat its own seeded copy) and record
    the decisions of the learner's seats (every seat, or ``view``'s fixed one).

    With ``opponents`` (an agent spec) the teacher holds one seat of each game, the others are
    ``opponents``: the learner's fixed seat, or seat ``g % n`` in game ``g``; only the teacher's
    decisions are recorded. That imitates a teacher as it plays against the agents it should beat.
    With ``record`` only those seats' decisions are kept (e.g. one role of an asymmetric game), and
    ``seat_teachers`` gives some seats a teacher of their own (an agent spec by seat).
    With ``actor`` (DAgger) the recorded seats play the actor's moves instead of the teacher's; the
    teacher's choice in each of those positions is what is recorded.
    ``seed`` is anything :class:`numpy.random.SeedSequence` takes (an int, or a list of them): game
    ``g`` is the game loop's game of seed :func:`boardenvs.core.loop.derive_seeds` ``(seed, games)[g]``
    (its chance and every seat's policy seeded from it, as in the arena).

    ``progress(games_done)`` is called after each game.

    Raises:
        ValueError: for fewer than two games, or an unknown teacher or opponents spec.
    """
    if games < 2:
        raise ValueError(f"imitation needs at least 2 teacher games (one is held out), got {games}")
    n = game.num_players
    options = options_to_dict(game.options)

    def seated(specs: list[str]) -> list[Any]:
        """One policy per seat, ``specs[p]`` in seat ``p`` (each game resets it with its seat's seed)."""
        return [make_policy(specs[p], game.name, seed=0, game_options=options) for p in range(n)]

    teachers = seated([(seat_teachers or {}).get(p, teacher) for p in range(n)])
    others = seated([opponents] * n) if opponents is not None else teachers
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    game_ids: list[int] = []
    deciders: list[int] = []

    def recorded(g: int, player: int, policy: Policy, rows: list[int]) -> _Labelled:
        """Seat ``player`` of game ``g``: ``policy`` labels its decisions (and plays them unless an
        ``actor`` does), each one recorded as the learner sees it."""

        def keep(state: State, action: int) -> None:
            rows.append(len(actions))
            observations.append(view.observe(state, player))
            masks.append(view.mask(state, player))
            actions.append(int(action))
            returns.append(0.0)
            game_ids.append(g)
            deciders.append(player)

        return _Labelled(policy, keep, actor)

    for g, game_seed in enumerate(loop.derive_seeds(seed, games)):
        if opponents is None:
            seats = range(n) if view.learner_seat is None else [view.learner_seat]
            players = teachers
        else:
            seats = [g % n if view.learner_seat is None else view.learner_seat]
            players = [teachers[p] if p in seats else others[p] for p in range(n)]
        kept = [p for p in seats if record is None or p in record]
        rows: dict[int, list[int]] = {p: [] for p in kept}  # indices of each seat's decisions
        seated_now = [recorded(g, p, players[p], rows[p]) if p in rows else players[p] for p in range(n)]
        final = loop.play_game(game, seated_now, game_seed).state.returns()
        for player, indices in rows.items():
            for k, index in enumerate(reversed(indices)):
                returns[index] = float(final[player]) * gamma**k
        if progress is not None:
            progress(g + 1)
    return Demonstrations(
        np.asarray(observations, dtype=np.float32).reshape(len(actions), -1),
        np.asarray(masks, dtype=bool).reshape(len(actions), -1),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        np.asarray(game_ids, dtype=np.int64),
        np.asarray(deciders, dtype=np.int64),
    )


class _Labelled:
    """A recorded seat of a teacher game: ``teacher`` chooses, ``record(state, choice)`` keeps the
    choice, and the move played is the teacher's, or with an ``actor`` (DAgger) the actor's. A reset
    (the game loop's, with the seat's seed) resets the teacher; the actor plays as it is given."""

    def __init__(self, teacher: Policy, record: Callable[[State, int], None], actor: Policy | None) -> None:
        self.teacher = teacher
        self.record = record
        self.actor = actor

    def reset(self, seed: int | None = None) -> None:
        """Reset the teacher for a new game."""
        self.teacher.reset(seed=seed)

    def act(self, state: State) -> int:
        """The teacher's choice, recorded; the actor's move if there is one, else that choice."""
        action = self.teacher.act(state)
        self.record(state, action)
        return action if self.actor is None else self.actor.act(state)


def merge_demonstrations(parts: Sequence[Demonstrations]) -> Demonstrations:
    """The decisions of ``parts`` in one set, each part's games numbered after the previous part's
    (a held-out game stays whole)."""
    offset, games = 0, []
    for part in parts:
        games.append(part.games + offset)
        offset += int(part.games.max()) + 1 if len(part) else 0
    return Demonstrations(
        np.concatenate([p.observations for p in parts]),
        np.concatenate([p.masks for p in parts]),
        np.concatenate([p.actions for p in parts]),
        np.concatenate([p.returns for p in parts]),
        np.concatenate(games),
        np.concatenate([p.seats for p in parts]),
    )


def clone_policy(
    model: Any,
    demos: Demonstrations,
    epochs: int,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> list[dict[str, float]]:
    """Fit ``model``'s (MaskablePPO) policy to ``demos`` (see the module docstring); one report per epoch
    (``epoch``, ``train_loss``, ``heldout_accuracy``, ``heldout_cross_entropy``, ``heldout_value_mse``,
    ``seconds``), each also passed to ``progress``. A tenth of the games (at least one) is held out.

    Raises:
        ValueError: for a model that is not a MaskablePPO actor-critic, or demonstrations whose shapes
            do not fit its spaces.
    """
    keys = (
        "epoch", "train_loss", "heldout_accuracy", "heldout_cross_entropy", "heldout_value_mse", "seconds",
    )  # fmt: skip
    games = len(np.unique(demos.games))
    reports = fit_policy_value(
        model, demos.observations, demos.masks, demos.actions, demos.returns, demos.games,
        epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, value_coef=value_coef,
        seed=seed, heldout_games=max(1, games // 10),
        progress=None if progress is None else lambda r: progress({k: r[k] for k in keys}),
    )  # fmt: skip
    return [{k: r[k] for k in keys} for r in reports]


def fit_policy_value(
    model: Any,
    observations: np.ndarray,
    masks: np.ndarray,
    targets: np.ndarray,
    values: np.ndarray,
    games: np.ndarray,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float,
    seed: int,
    heldout_games: int,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> list[dict[str, float]]:
    """Fit a MaskablePPO ``model``'s policy and value head to recorded decisions, in place: the one
    fitting loop of behaviour cloning (:func:`clone_policy`) and of expert iteration's learning step
    (:func:`boardenvs_agents.learning.expert.fit.fit`).

    The loss of a minibatch is the cross-entropy of the policy's logits, masked to the legal actions,
    against ``targets`` plus ``value_coef`` times the squared error of the value head against
    ``values``; ``epochs`` passes over the training rows in an order drawn from ``seed``, with an Adam
    optimiser of its own. ``heldout_games`` whole games (drawn from ``seed``) are held out and scored
    after each epoch.

    Args:
        model: a MaskablePPO model (its policy is trained in place).
        observations: ``(n, features)`` float32 observations as the policy encodes them.
        masks: ``(n, actions)`` bool legal-action masks.
        targets: ``(n,)`` int64 actions (hard targets) or ``(n, actions)`` float32 distributions over
            the legal actions (soft targets, e.g. a search's visit distribution).
        values: ``(n,)`` float32 value targets.
        games: ``(n,)`` the game of each row (held-out games are whole games).
        epochs: passes over the training rows.
        batch_size: rows per gradient step.
        learning_rate: Adam's step size.
        value_coef: weight of the value head's squared error.
        seed: seeds the held-out draw and the order of the rows.
        heldout_games: how many games are held out.
        progress: called with each epoch's report.

    Returns:
        One report per epoch: ``epoch``, ``train_loss`` (policy + weighted value, the mean over the
        training rows), ``train_policy_loss``, ``train_value_mse``, ``heldout_cross_entropy``,
        ``heldout_kl`` (the targets' entropy subtracted: 0 for a policy equal to its targets),
        ``heldout_accuracy`` (how often the policy's most likely action is the target's, over the
        held-out decisions with more than one legal action), ``heldout_value_mse``, ``seconds``.

    Raises:
        ValueError: for a model that is not a MaskablePPO actor-critic, or arrays whose shapes do not
            fit its spaces.
    """
    import torch
    from torch.nn import functional

    policy = model.policy
    if not all(hasattr(policy, a) for a in ("mlp_extractor", "action_net", "value_net")):
        raise ValueError(f"fitting trains MaskablePPO policies, not {type(policy).__name__}")
    features = int(np.prod(policy.observation_space.shape))
    if observations.shape[1] != features or masks.shape[1] != policy.action_space.n:
        raise ValueError(
            f"demonstrations of {observations.shape[1]} features and {masks.shape[1]} actions "
            f"do not fit a policy of {features} features and {policy.action_space.n} actions"
        )
    soft = targets.ndim == 2
    rng = np.random.default_rng(seed)
    game_ids = np.unique(games)
    heldout_ids = rng.choice(game_ids, size=heldout_games, replace=False)
    heldout = np.isin(games, heldout_ids)
    train_idx, test_idx = np.flatnonzero(~heldout), np.flatnonzero(heldout)
    choice = masks[test_idx].sum(1) > 1  # accuracy counts the decisions with a choice
    obs = torch.as_tensor(observations)
    legal = torch.as_tensor(masks)
    target = torch.as_tensor(targets)
    best = target.argmax(1) if soft else target  # the target's most likely action
    returns = torch.as_tensor(values)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def forward(index: np.ndarray) -> tuple[Any, Any]:
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs[index]))
        logits = policy.action_net(latent_pi).masked_fill(~legal[index], -1e8)
        return logits, policy.value_net(latent_vf).squeeze(-1)

    def entropy(index: np.ndarray) -> float:
        """The mean entropy of the targets at ``index`` (0 for hard targets)."""
        if not soft:
            return 0.0
        p = target[index]
        return float(-(p * torch.log(p.clamp_min(1e-30))).sum(1).mean())

    reports = []
    start = time.perf_counter()
    test_entropy = entropy(test_idx)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        rng.shuffle(train_idx)
        total = policy_total = value_total = 0.0
        for i in range(0, len(train_idx), batch_size):
            index = train_idx[i : i + batch_size]
            logits, predicted = forward(index)
            policy_loss = functional.cross_entropy(logits, target[index])
            value_loss = functional.mse_loss(predicted, returns[index])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(index)
            policy_total += policy_loss.item() * len(index)
            value_total += value_loss.item() * len(index)
        with torch.no_grad():
            logits, predicted = forward(test_idx)
            cross_entropy = float(functional.cross_entropy(logits, target[test_idx]))
            report = {
                "epoch": epoch + 1,
                "train_loss": total / max(1, len(train_idx)),
                "train_policy_loss": policy_total / max(1, len(train_idx)),
                "train_value_mse": value_total / max(1, len(train_idx)),
                "heldout_accuracy": float((logits.argmax(1) == best[test_idx])[choice].float().mean()),
                "heldout_cross_entropy": cross_entropy,
                "heldout_kl": cross_entropy - test_entropy,
                "heldout_value_mse": float(functional.mse_loss(predicted, returns[test_idx])),
                "seconds": time.perf_counter() - start,
            }
        reports.append(report)
        if progress is not None:
            progress(report)
    policy.set_training_mode(False)
    return reports
