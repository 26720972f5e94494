"""``toy_v0``: a tiny dice game that exercises every path of the core adapter (tests only).

Setup: each player is dealt a secret face index by chance (hidden from the others). Each turn a die
is rolled (chance) and the player to move picks PASS (0), TAKE (1: add the rolled face to the score)
or DOUBLE (2: add twice the face; legal only when the roll equals the mover's secret, which reveals
the secret). A score above ``target`` eliminates the player (-1, the others play on); exactly
``target`` wins (+1, every other player -1), as does being the last player left. When every player
still in passes in a row the game is a draw (0 for those still in). After ``max_turns`` decisions
the game is truncated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.dice import Die
from boardenvs.core.game import Game
from boardenvs.core.options import make_options, options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State

PASS, TAKE, DOUBLE = 0, 1, 2
NUM_ACTIONS = 3


@dataclass(frozen=True)
class ToyOptions:
    """Options of ``toy_v0``."""

    num_players: int = 3
    target: int = 7
    max_turns: int = 60
    faces: tuple[int, ...] = (1, 2, 3)

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2, 3 or 4, got {self.num_players}")
        if self.target < 1 or self.max_turns < 1:
            raise ValueError(f"target and max_turns must be at least 1, got {self.target}, {self.max_turns}")
        if not self.faces or min(self.faces) < 1:
            raise ValueError(f"faces must be positive integers, got {self.faces}")


class ToyState(State):
    """Scores, secrets (dealt by chance), eliminations, the roll and the turn counters."""

    game_name = "toy_v0"
    _FIELDS = ("scores", "secrets", "revealed", "out", "to_move", "roll", "turn", "passes", "winner",
               "draw", "truncated")  # fmt: skip

    def __init__(self, options: ToyOptions) -> None:
        n = options.num_players
        self.options = options
        self.die = Die(options.faces)
        self.scores, self.secrets = [0] * n, []
        self.revealed, self.out = [False] * n, [False] * n
        self.to_move, self.roll, self.turn, self.passes, self.winner = 0, -1, 0, 0, -1
        self.draw = self.truncated = False

    def current_player(self) -> int:
        """TERMINAL when over, CHANCE while dealing or before a roll, else the mover."""
        if self.winner >= 0 or self.draw or self.truncated:
            return TERMINAL
        if len(self.secrets) < self.options.num_players or self.roll < 0:
            return CHANCE
        return self.to_move

    def is_truncated(self) -> bool:
        """True when ``max_turns`` ran out."""
        return self.truncated

    def is_out(self, player: int) -> bool:
        """True once ``player`` went over the target."""
        return self.out[player]

    def legal_actions(self) -> list[int]:
        """PASS and TAKE; DOUBLE too when the roll equals the mover's secret."""
        if self.current_player() < 0:
            return []
        return [PASS, TAKE, DOUBLE] if self.roll == self.secrets[self.to_move] else [PASS, TAKE]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A secret face index while dealing, else the die roll."""
        return self.die.outcomes() if self.current_player() == CHANCE else []

    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or the mover's decision."""
        player = self.current_player()
        if player == CHANCE:
            if not 0 <= action < len(self.die.faces):
                raise IllegalActionError(f"no chance outcome {action}")
            if len(self.secrets) < self.options.num_players:
                self.secrets.append(action)
            else:
                self.roll = action
            return
        if action not in self.legal_actions():
            raise IllegalActionError(f"action {action} is not legal")
        face = self.die.face(self.roll)
        self.turn += 1
        self.passes = self.passes + 1 if action == PASS else 0
        if action == DOUBLE:
            self.revealed[player] = True
        self.scores[player] += {PASS: 0, TAKE: face, DOUBLE: 2 * face}[action]
        alive = [p for p in range(self.options.num_players) if not self.out[p]]
        if self.scores[player] > self.options.target:
            self.out[player] = True
            alive.remove(player)
        if len(alive) == 1:
            self.winner = alive[0]
        elif self.scores[player] == self.options.target:
            self.winner = player
        elif self.passes >= len(alive):
            self.draw = True
        elif self.turn >= self.options.max_turns:
            self.truncated = True
        else:
            nxt = (player + 1) % self.options.num_players
            while self.out[nxt]:
                nxt = (nxt + 1) % self.options.num_players
            self.to_move, self.roll = nxt, -1

    def returns(self) -> list[float]:
        """+1 winner / -1 others; else -1 for eliminated players and 0 for the rest."""
        n = self.options.num_players
        if self.winner >= 0:
            return [1.0 if p == self.winner else -1.0 for p in range(n)]
        return [-1.0 if self.out[p] else 0.0 for p in range(n)]

    def clone(self) -> ToyState:
        """An independent copy."""
        return self.from_dict(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the exact position."""
        data: dict[str, Any] = {"game": self.game_name, "options": options_to_dict(self.options)}
        for f in self._FIELDS:
            v = getattr(self, f)
            data[f] = v[:] if isinstance(v, list) else v
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToyState:
        """Rebuild a state written by :meth:`to_dict`."""
        state = cls(make_options(ToyOptions, data["options"]))
        for f in cls._FIELDS:
            v = data[f]
            setattr(state, f, list(v) if isinstance(v, list) else v)
        return state

    def determinize(self, player: int, rng: np.random.Generator) -> ToyState:
        """A copy with every secret ``player`` cannot see (others', unrevealed) resampled."""
        new = self.clone()
        for p in range(len(new.secrets)):
            if p != player and not new.revealed[p]:
                new.secrets[p] = self.die.sample(rng)
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToyState) and self.to_dict() == other.to_dict()

    def render_text(self) -> str:
        """One line per player, then the roll and turn."""
        lines = [f"player_{p}: score {s}{' (out)' if self.out[p] else ''}" for p, s in enumerate(self.scores)]
        return "\n".join([*lines, f"roll {self.roll}, turn {self.turn}"])


class ToyGame(Game):
    """``toy_v0``: spaces and the observation of a toy state."""

    name = "toy_v0"
    Options = ToyOptions
    state_class = ToyState

    def num_actions(self, player: int) -> int:
        """PASS, TAKE, DOUBLE."""
        return NUM_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """Per seat: score, out, revealed secret; then own secret, roll, turn and passes."""
        f = len(self.options.faces)
        return (self.num_players * (2 + f) + 2 * f + 2,)

    def new_initial_state(self) -> ToyState:
        """Nothing dealt yet."""
        return ToyState(self.options)

    def observe(self, state: ToyState, player: int) -> np.ndarray:  # type: ignore[override]
        """``player``'s view, seats rotated so that ``player`` comes first; others' secrets hidden."""
        n, f = self.num_players, len(self.options.faces)
        obs = np.zeros(self.observation_shape(player), dtype=np.float32)
        for r in range(n):
            p, base = (player + r) % n, r * (2 + f)
            obs[base] = min(state.scores[p] / self.options.target, 1.0)
            obs[base + 1] = state.out[p]
            if state.revealed[p]:
                obs[base + 2 + state.secrets[p]] = 1.0
        base = n * (2 + f)
        if player < len(state.secrets):
            obs[base + state.secrets[player]] = 1.0
        if state.roll >= 0:
            obs[base + f + state.roll] = 1.0
        obs[-2] = min(state.turn / self.options.max_turns, 1.0)
        obs[-1] = state.passes / n
        return obs

    def draw(self, state: ToyState, view: int | None = None) -> Any:  # type: ignore[override]
        """A bar per player (its score) and the roll; secrets shown only to their owner (or all)."""
        from PIL import ImageDraw

        from boardenvs.core import render

        image = render.new_image(240, 40 + 30 * self.num_players)
        draw = ImageDraw.Draw(image)
        render.text(draw, (10, 10), f"roll {state.roll}, turn {state.turn}")
        for p, score in enumerate(state.scores):
            y = 40 + 30 * p
            draw.rectangle((10, y, 10 + 20 * score, y + 20), fill=render.SEAT_COLORS[p])
            if p < len(state.secrets) and (view is None or view == p or state.revealed[p]):
                render.text(draw, (200, y), str(self.options.faces[state.secrets[p]]))
        return image


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``toy_v0`` AEC environment."""

    game_class = ToyGame
    metadata = {**BoardGameEnv.metadata, "name": "toy_v0"}


def env(**kwargs: object) -> raw_env:
    """``toy_v0`` with PettingZoo's standard wrappers."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
