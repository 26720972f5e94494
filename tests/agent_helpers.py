"""Helpers shared by the agent tests: a recording, checking wrapper around any policy."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import State
from boardenvs_agents.arena.match import GameResult, play_game
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_policy


class Recorder(Policy):
    """Wraps a policy: checks each action is legal and logs ``(seat, *note(state), action)``.

    With ``perturb`` set, it burns and reseeds the global generators before every decision: a policy
    that used them would then play differently from an unperturbed run.
    """

    def __init__(
        self,
        inner: Policy,
        log: list,
        perturb: int | None = None,
        note: Callable[[State], tuple] = lambda state: (),
    ) -> None:
        super().__init__(seed=0)
        self.inner = inner
        self.name = inner.name
        self.log = log
        self.perturb = perturb
        self.note = note

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, state: State) -> int:
        if self.perturb is not None:
            self.perturb += 1
            random.seed(self.perturb)
            np.random.seed(self.perturb % 2**32)
            random.random()
            np.random.random(3)
        legal = list(state.legal_actions())
        action = self.inner.act(state)
        assert action in legal, f"illegal action {action}; legal {legal}"
        self.log.append((state.current_player(), *self.note(state), action))
        return action


def play_logged(
    game: Game,
    specs: list[str],
    seed: int,
    perturb: int | None = None,
    note: Callable[[State], tuple] = lambda state: (),
) -> tuple[GameResult, list]:
    """One seeded game of ``game`` with the agents of ``specs`` (one per seat), every decision logged."""
    log: list = []
    policies = [Recorder(make_policy(s, game.name), log, perturb, note) for s in specs]
    return play_game(game, policies, seed), log
