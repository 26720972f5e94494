# noqa: D212, D415
"""
# Star of the Lost City

| Import               | `from boardenvs import lost_city_v0`                       |
|----------------------|------------------------------------------------------------|
| Creation             | `lost_city_v0.env()` or `boardenvs.make("lost_city_v0")`   |
| Actions              | Discrete                                                   |
| Parallel API         | No                                                         |
| Manual Control       | No                                                         |
| Agents               | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents               | 2 to 7                                                     |
| Action Shape         | (1,)                                                       |
| Action Values        | Discrete(63)                                               |
| Observation Shape    | (1400,) on the default 12x12 board: `(8 * size^2 + 248,)`  |
| Observation Values   | [0, 1]                                                     |

A free-for-all grid battle: each player is one of seven characters (Rob, Aaron, Safina, Jack, Jamie,
Josh, Chris) on a 12x12 board with ruins, moving, attacking with d6 rolls, drawing battle cards on a
black face of the colour die, and spending Special Ability cards on the characters' abilities. The last
character standing wins. The rules are `../shared/rules/lost_city.md`; rule ids (T1-T29, and T30-T40
below) are cited in `boardenvs/lost_city/rules.py` and in `tests/lost_city/`.

### Turns and who acts

A turn is a sequence of micro-actions (4.3): optional `PLAY_HEALTH`, one move (staying put is a move),
then one of basic attack / ability / `END` (T6, T17), and after a hit the post-roll choices (+Damage
card, Critical, +Health, or `END` to apply the damage). Dice, the colour die and card draws are chance
nodes resolved by the env with its own generator. A step in which `END` is the only legal action is
taken by the env itself (T34), so every turn offers at least the move decision and a round-1 turn
(T7: no attacks) is just that move.

**Seduction (T20).** While Rob has seduced a character, on that character's next two turns
`current_player()` is *Rob's* seat and `agent_selection` is Rob's agent: Rob's agent picks the seduced
character's moves and attack (never on Rob, never using its card). The observation tells Rob whose
character he is moving: the acting seat is flagged, and the "acting for another seat" bit is set. The
same holds for Jamie copying Seduction.

### Observation Space

`observation` is float32 of shape `(8 * size^2 + 7 * 29 + 45,)` = `(1400,)` on the default board, in
the perspective of the observer: relative seat `r` is seat `(observer + r) % n` (r = 0 is me).

| Index                     | Meaning                                                                   |
|---------------------------|---------------------------------------------------------------------------|
| `0 .. S-1` (S = size^2)   | ruins (1 on a ruin square, row-major)                                     |
| `S (1 + r) + cell`        | the square of relative seat `r` (r = 0..6; zero when out or absent)       |
| `8 S + 29 r + f`          | seat block of relative seat `r`, feature `f`:                             |
|                           | 0 present, 1 alive, 2-8 character one-hot (Rob..Chris), 9 HP / 260,       |
|                           | 10 HP / own cap, 11-18 held card one-hot (+10 H, +10 D, +20 H, +20 D,     |
|                           | Skip, Null, Joker, Special), 19 Fire ticks / 3, 20 turns to skip / 2 (at  |
|                           | most 1), 21 seduced, 22 seduced by me, 23 controlled turns left / 2,      |
|                           | 24 shielded from me (I may not target it), 25 shielded from someone,      |
|                           | 26 shield turns left / 2, 27 the acting character, 28 the first player    |
| `8 S + 203 + 0..3`        | step one-hot: move, action, copy target, post-roll                        |
| `8 S + 207`               | I am acting for another seat's character (Seduction)                      |
| `8 S + 208`               | round / max_rounds                                                        |
| `8 S + 209 .. 214`        | damage roll one-hot (1..6) during the post-roll step                      |
| `8 S + 215`               | the colour die showed black (a card will be drawn)                        |
| `8 S + 216`, `217`        | Critical used on this attack; +Damage bonus / 20                          |
| `8 S + 218 .. 224`        | relative seat of the attack's target                                      |
| `8 S + 225 .. 231`        | character whose ability Jamie is copying                                  |
| `8 S + 232 .. 239`        | cards of each kind left in the draw pile / cards of that kind in the deck |
| `8 S + 240 .. 247`        | cards of each kind in the discard pile / cards of that kind in the deck   |

Everything is public (4.3): positions, HP, statuses and held cards; only the deck order is hidden
(draws are chance nodes from the unseen multiset).

#### Legal Actions Mask

`action_mask` (int8, `(63,)`) marks the legal actions of the agent to act and is all zeros for every
other agent. The agent to act always has a legal action: staying put (12) is always legal in the move
step, `END` (62) in the action and post-roll steps.

### Action Space

Targets are named by seat offset `o` (1..6) from the deciding seat (the same rotation as the
observation); moves by the offset `(dr, dc)` of the destination from the acting character.

| Action  | Meaning                                                                                  |
|---------|------------------------------------------------------------------------------------------|
| 0-24    | move to `(dr, dc)`, id `5 (dr + 2) + (dc + 2)`, `dr, dc` in -2..2 (12 = stay; T5)         |
| 25-30   | basic attack on seat offset `o`: `25 + o - 1` (range 1 melee, 3 ranged; T4)             |
| 31-36   | ability (own, or the one Jamie copies) on offset `o`: `31 + o - 1`; Double Hit with one target in range (40) |
| 37-51   | Double Hit on two targets: `37 + i`, `i` the index of `(o1, o2)`, `o1 < o2`, in (1,2), (1,3) .. (5,6) |
| 52-58   | Jamie: copy the ability of character `k` (0 Rob .. 6 Chris): `52 + k` (T22); the target follows |
| 59      | Critical after a hit (Aaron; Jamie with Aaron within 3, T37)                             |
| 60      | play the held +Damage card on the damage just rolled (T11)                               |
| 61      | play the held +Health card (T11, T16)                                                    |
| 62      | `END`: end the action step / apply the rolled damage                                     |

### Rewards

At the end only: the last character standing +1, every other -1. A character eliminated while others
play on is terminated at once with -1 (the game goes on). When the last characters die in the same
event (T26) or HP ties at the round cap (T28), the tied players get 0 and the others -1. Reaching the
round cap is a normal end (highest HP wins), not a truncation.

### Options

| Option                   | Default            | Meaning                                                   |
|--------------------------|--------------------|-----------------------------------------------------------|
| `num_players`            | 4                  | 2-7 (T2)                                                  |
| `characters`             | `None`             | T31: names by seat, e.g. `["Rob", "Jack"]`; `None`: drawn by chance |
| `first_player`           | `"roll"`           | T30: initiative roll-off (chance), or `"seat0"`           |
| `board_size`             | 12                 | T1: rows = columns                                        |
| `ruins`                  | the 12 of 4.3      | T1: impassable squares `(row, col)`                       |
| `spawns`                 | the 7 of 4.3       | T3: spawn squares in order; seat `i` uses `spawns[i]`     |
| `black_faces`            | 1                  | T9: black faces of the six-faced colour die               |
| `bad_draw_discards_held` | True               | T12: a bad/Null draw also discards the held card          |
| `card_counts`            | (4,4,2,2,2,4,2,8)  | 4.1: deck by kind (+10 H, +10 D, +20 H, +20 D, Skip, Null, Joker, Special) |
| `max_rounds`             | 150                | T28: round cap, then highest HP wins (ties draw)          |

### Readings added where the spec is silent (T30-T40)

* **T30** Initiative: the roll-off (highest d6, tied highest re-roll) gives every seat the same chance,
  so it is one chance node uniform over the seats; `first_player="seat0"` skips it.
* **T31** Seat `i` starts on `spawns[i]`; characters come from the `characters` option in seat order,
  or are drawn by chance one seat at a time, uniformly among those not yet taken.
* **T32** A skipped turn is still a turn: it counts as one of a seduced character's two controlled
  turns and as one of the seducer's two restricted turns; Fire ticks before the skip. Skips add up
  (two Traps before a turn skip two turns).
* **T33** Seduction cannot target a character already seduced or still shielded from its seducer.
  A seduced character cannot play its held card, so it cannot use its ability (which needs the
  Special Ability card); a card its hit draws is its own (replacing its held card, T12).
* **T34** A step where `END` is the only legal action is taken automatically; the move step is always
  offered (staying put is the explicit pass).
* **T35** Attack and ability targets are living characters other than the actor, other than the
  deciding seat (a seduced character never targets its seducer), and not shielded from the actor.
  Josh's "people within 1 space" counts these valid targets only.
* **T36** A black face with no card left in the pile or the discards (only with a custom tiny deck)
  draws nothing. With the default deck the pile is reshuffled from the discards when empty (T27).
* **T37** Jamie copies Critical after the damage roll of his own basic attack, like Aaron uses it, when
  a living Aaron is within 3 at that moment; Critical doubles the die damage (T19).
* **T38** An eliminated character leaves the board; its held card is discarded, its statuses end, and
  seductions it holds end (T20).
* **T39** A round starts each time the turn passes the first player's seat (even when that player is
  out); round 1 is every player's first turn (T7), and the game ends when round `max_rounds + 1`
  would start (T28).
* **T40** +Health cards may be played in the move, action and post-roll steps of one's own turn,
  even at full HP (the card is then wasted, T16); +Damage cards only in the post-roll step (T11).

### Version History

* v0: first release (boardenvs 0.1.0)
* v0: `render_mode` `"rgb_array"` (a Pillow picture of the board, 900 wide, 788 high on the default board) and `"human"` (shown in a window) beside `"ansi"`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.game import Game
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.rules import (
    NUM_ACTIONS,
    P_ACTION,
    P_COPY,
    P_MOVE,
    P_OVER,
    P_POSTROLL,
    LostCityOptions,
    LostCityState,
)

if TYPE_CHECKING:  # pragma: no cover - Pillow is imported only when a picture is drawn
    from PIL import Image

MAX_SEATS = 7
#: Features per seat block (see the module docstring).
SEAT_FEATURES = 29
#: Global features after the seat blocks.
GLOBAL_FEATURES = 45
_STEP = {P_MOVE: 0, P_ACTION: 1, P_COPY: 2, P_POSTROLL: 3}


def observation_size(board_size: int) -> int:
    """Length of the observation vector on a ``board_size`` x ``board_size`` board."""
    return 8 * board_size * board_size + MAX_SEATS * SEAT_FEATURES + GLOBAL_FEATURES


class LostCityGame(Game):
    """``lost_city_v0``: options, spaces, and the observation encoding of a Lost City state."""

    name = "lost_city_v0"
    Options = LostCityOptions
    state_class = LostCityState

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        size = self.options.board_size
        self._cells = size * size
        self._seats = 8 * self._cells
        self._glob = self._seats + MAX_SEATS * SEAT_FEATURES
        self._size = observation_size(size)
        self._ruin_hot = [i for i, ruin in enumerate(LostCityState(self.options).geo.ruin) if ruin]
        counts = np.asarray(self.options.card_counts, dtype=np.float32)
        self._inv_counts = np.where(counts > 0, 1.0 / np.maximum(counts, 1.0), 0.0).astype(np.float32)

    def num_actions(self, player: int) -> int:
        """63 actions for every seat."""
        return NUM_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """``(8 * size^2 + 248,)`` for every seat."""
        return (self._size,)

    def new_initial_state(self) -> LostCityState:
        """Characters (drawn or given) on their spawns; the first chance event or move to come."""
        return LostCityState(self.options)

    def observe(self, state: LostCityState, player: int) -> np.ndarray:  # type: ignore[override]
        """``player``'s view: seats rotated so that ``player`` is relative seat 0."""
        obs = np.zeros(self._size, dtype=np.float32)
        n = state.n
        cells = self._cells
        base = self._seats
        hot = self._ruin_hot[:]
        hp = state.hp
        nchar = len(state.char)
        playing = state.phase >= P_MOVE
        acting = state.to_move if playing and state.phase != P_OVER else -1
        for r in range(n):
            p = (player + r) % n
            b = base + SEAT_FEATURES * r
            hot.append(b)
            alive = hp[p] > 0
            if alive:
                hot.append(b + 1)
                hot.append(cells * (1 + r) + state.pos[p])
            if p < nchar:
                k = state.char[p]
                hot.append(b + 2 + k)
                obs[b + 9] = hp[p] / ch.HP_SCALE
                obs[b + 10] = hp[p] / ch.MAX_HP[k]
            if state.held[p] >= 0:
                hot.append(b + 11 + state.held[p])
            if state.burn[p]:
                obs[b + 19] = state.burn[p] / ch.FIRE_TURNS
            if state.skip[p]:
                obs[b + 20] = min(state.skip[p] / 2.0, 1.0)
            if state.ctrl[p] >= 0:
                hot.append(b + 21)
                if state.ctrl[p] == player:
                    hot.append(b + 22)
                obs[b + 23] = state.ctrl_turns[p] / ch.SEDUCTION_TURNS
            if state.shield_by[p] >= 0:
                if state.shield_by[p] == player:
                    hot.append(b + 24)
                hot.append(b + 25)
                obs[b + 26] = state.shield_turns[p] / ch.SEDUCTION_TURNS
            if p == acting:
                hot.append(b + 27)
            if playing and p == state.first:
                hot.append(b + 28)
        g = self._glob
        step = _STEP.get(state.phase)
        if step is not None:
            hot.append(g + step)
            if state.ctrl[state.to_move] >= 0:
                hot.append(g + 4)
        obs[g + 5] = min(state.round / state.options.max_rounds, 1.0)
        if state.roll:
            hot.append(g + 5 + state.roll)  # 6..11 for rolls 1..6
        if state.black:
            hot.append(g + 12)
        if state.crit:
            hot.append(g + 13)
        obs[g + 14] = min(state.bonus / 20.0, 1.0)
        if state.target >= 0:
            hot.append(g + 15 + (state.target - player) % n)
        if state.copy >= 0:
            hot.append(g + 22 + state.copy)
        obs[hot] = 1.0
        deck = state.deck
        obs[g + 29 : g + 37] = deck.unseen
        obs[g + 37 : g + 45] = deck.discards
        obs[g + 29 : g + 37] *= self._inv_counts
        obs[g + 37 : g + 45] *= self._inv_counts
        return obs

    def draw(self, state: LostCityState, view: int | None = None) -> Image.Image:  # type: ignore[override]
        """A picture of ``state`` (board, characters, HP, cards, dice, whose turn); needs Pillow.

        Everything but the deck order is public (4.3), so a player ``view`` shows the same facts as the
        full view (``None``) and marks that player's character. See :mod:`boardenvs.lost_city.draw`.
        """
        from boardenvs.lost_city.draw import draw_state

        return draw_state(self, state, view)


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``lost_city_v0`` AEC environment; see the module docstring."""

    game_class = LostCityGame
    metadata = {**BoardGameEnv.metadata, "name": "lost_city_v0"}


def env(**kwargs: object) -> raw_env:
    """``lost_city_v0`` with PettingZoo's standard wrappers (an illegal move loses the game with -1)."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
