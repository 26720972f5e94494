# noqa: D212, D415
"""
# Sorry! (three-pawn edition)

| Import               | `from boardenvs import sorry_v0`                  |
|----------------------|---------------------------------------------------|
| Creation             | `sorry_v0.env()` or `boardenvs.make("sorry_v0")`  |
| Actions              | Discrete                                          |
| Parallel API         | No                                                |
| Manual Control       | No (see `scripts/play.py` once it lands)          |
| Agents               | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents               | 2 to 4                                            |
| Action Shape         | (1,)                                              |
| Action Values        | Discrete(79)                                      |
| Observation Shape    | (843,)                                            |
| Observation Values   | [0, 1]                                            |

Each player races three pawns from Start, once round the 60-square track, into a five-square safety
zone and Home, drawing one card a turn from a 45-card deck. The rules are `docs/rules/sorry.md`;
rule ids (S1-S24) are cited in `boardenvs/sorry/rules.py` and in `tests/sorry/`.

### Observation Space

The observation is a dict with `observation` (float32, shape `(843,)`) and `action_mask`. Everything is
in the perspective of the player observing: seats are rotated so that "me" is seat 0 and the others
follow in turn order, and track squares are rotated so that my colour's side starts at square 0.

| Index       | Meaning                                                                                |
|-------------|----------------------------------------------------------------------------------------|
| 0-803       | one-hot position of pawn `i` of relative seat `r` at `67 (3 r + i) + position`; position |
|             | 0-59 = track square (rotated), 59+s = that pawn's own safety square s, 65 = Home, 66 = Start; |
|             | absent seats (2-3 players) are all zero                                                |
| 804-819     | one-hot colour of relative seat `r`, relative to mine, at `804 + 4 r + colour offset`  |
| 820-830     | one-hot kind of the card drawn (1, 2, 3, 4, 5, 7, 8, 10, 11, 12, Sorry!); zero if none |
| 831-841     | cards of each kind left in the draw pile / cards of that kind in the deck (public count) |
| 842         | cards drawn so far / `max_turns`                                                      |

#### Legal Actions Mask

`action_mask` (int8, shape `(79,)`) marks the legal uses of the drawn card for the agent to act; it is
all zeros for every other agent. The agent to act always has at least one legal action: `PASS` (78) is
its only action when the card cannot be used, and sits beside the switches when an 11 cannot move a
pawn forward (S13).

### Action Space

Pawns are numbered 0-2; opponents are named by seat offset `o` (1 = the next seat to the left).

| Action  | Meaning                                                                                      |
|---------|----------------------------------------------------------------------------------------------|
| 0-2     | pawn `i` forward by the card (1, 2, 3, 5, 7, 8, 10, 11, 12; 4 on a Sorry!), from Start too  |
| 3-5     | pawn `i` backward (4 on a 4, 1 on a 10)                                                     |
| 6-41    | 7 split `6 + 6 q + (k - 1)`: pair `q` of (0,1) (0,2) (1,0) (1,2) (2,0) (2,1) = `(i, j)`; pawn `i` forward `k`, then pawn `j` forward `7 - k` |
| 42-68   | 11 switch `42 + 9 i + 3 (o - 1) + m`: my pawn `i` with pawn `m` of seat offset `o`           |
| 69-77   | Sorry! `69 + 3 (o - 1) + m`: a pawn from my Start takes the square of pawn `m` of offset `o` |
| 78      | pass (forfeit)                                                                               |

A move out of Start always names the lowest-numbered pawn in Start (S24: pawns in Start are
interchangeable), so equivalent moves are offered once.

### Rewards

At the end only: the winner +1, every other player -1. There are no draws. A game still running after
`max_turns` card draws is truncated with 0 for everyone.

### Options

| Option                  | Default       | Meaning                                                        |
|-------------------------|---------------|----------------------------------------------------------------|
| `num_players`           | 4             | 2-4 (S20)                                                      |
| `slide_rule`            | `"own_color"` | S8: slide on slides showing your colour (seed); `"classic"`   |
| `start_count_exit_as`   | 1             | S5: the start-exit square counts as the first space (1) or not (0) |
| `seven_split_can_start` | True          | S6: a part of a 7 split may bring a pawn out of Start          |
| `max_turns`             | 1000          | card draws before truncation                                   |
| `first_player`          | `"seat0"`     | S21: seat 0 draws first, or `"random"` (a chance draw)         |
| `colors`                | by count      | S23: colour of each seat; (0, 2) with 2 players (both see the same board), (0, 1, 2) with 3 |

### Version History

* v0: first release (boardenvs 0.1.0)
* v0: `render_mode` `"rgb_array"` (a Pillow picture of the board, 890 x 600) and `"human"` (shown in a window) beside `"ansi"`
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.game import Game, Place
from boardenvs.sorry.board import NUM_POSITIONS, TRACK_LEN
from boardenvs.sorry.cards import CARD_COUNTS
from boardenvs.sorry.rules import NUM_ACTIONS, PAWNS, SorryOptions, SorryState

_POS = 4 * PAWNS * NUM_POSITIONS  # 804
_COLOR = _POS  # 804..819
_CARD = _COLOR + 16  # 820..830
_PILE = _CARD + len(CARD_COUNTS)  # 831..841
_TURN = _PILE + len(CARD_COUNTS)  # 842
OBS_SIZE = _TURN + 1
_INV_CARD_COUNTS = 1.0 / np.asarray(CARD_COUNTS, dtype=np.float32)


class SorryGame(Game):
    """``sorry_v0``: options, spaces, and the observation encoding of a Sorry! state."""

    name = "sorry_v0"
    Options = SorryOptions
    state_class = SorryState

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self._views: dict[int, tuple[list[tuple[int, int]], list[int], list[int]]] = {}

    def num_actions(self, player: int) -> int:
        """79 actions for every seat."""
        return NUM_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """``(843,)`` for every seat."""
        return (OBS_SIZE,)

    def new_initial_state(self) -> SorryState:
        """All pawns in Start, a full deck, the first draw (or first-player draw) to come."""
        return SorryState(self.options)

    def observe(self, state: SorryState, player: int) -> np.ndarray:  # type: ignore[override]
        """``player``'s view: seats and track rotated so that ``player`` comes first."""
        slots, rotation, fixed = self._view(player)
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        pos = state.pos
        hot = [offset + rotation[pos[k]] for offset, k in slots]
        hot += fixed
        if state.card >= 0:
            hot.append(_CARD + state.card)
        obs[hot] = 1.0
        pile = obs[_PILE:_TURN]
        pile[:] = state.deck.draw_pile_counts()
        pile *= _INV_CARD_COUNTS
        obs[_TURN] = min(state.turn / state.options.max_turns, 1.0)
        return obs

    def draw(self, state: SorryState, view: int | None = None) -> Any:  # type: ignore[override]
        """A picture of ``state`` (``PIL.Image.Image``, 890 x 600): the board, pawns, the card drawn,
        whose turn and the legal moves; ``view`` turns the board to that player's seat (needs Pillow)."""
        from boardenvs.sorry.draw import draw_state

        return draw_state(self, state, view)

    def action_places(self, state: SorryState, view: int | None = None) -> dict[int, Place]:  # type: ignore[override]
        """The pawn each move moves, on ``draw(state, view)`` (:func:`boardenvs.sorry.draw.action_places`)."""
        from boardenvs.sorry.draw import action_places

        return action_places(self, state, view)

    def _view(self, player: int) -> tuple[list[tuple[int, int]], list[int], list[int]]:
        """Per-seat constants of the encoding, computed once: (one-hot offset, pawn index) per pawn in
        relative seat order, the position rotation table, and the colour one-hots."""
        if player not in self._views:
            n = self.options.num_players
            colors = self.options.seat_colors
            shift = 15 * colors[player]
            rotation = [(at - shift) % TRACK_LEN for at in range(TRACK_LEN)]
            rotation += list(range(TRACK_LEN, NUM_POSITIONS))
            slots, fixed = [], []
            for r in range(n):
                p = (player + r) % n
                slots += [(NUM_POSITIONS * (PAWNS * r + i), PAWNS * p + i) for i in range(PAWNS)]
                fixed.append(_COLOR + 4 * r + (colors[p] - colors[player]) % 4)
            self._views[player] = (slots, rotation, fixed)
        return self._views[player]


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``sorry_v0`` AEC environment; see the module docstring."""

    game_class = SorryGame
    metadata = {**BoardGameEnv.metadata, "name": "sorry_v0"}


def env(**kwargs: object) -> raw_env:
    """``sorry_v0`` with PettingZoo's standard wrappers (an illegal move loses the game with -1)."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
