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
| Action Values        | Discrete(70)                                               |
| Observation Shape    | (1415,) on the default 12x12 board: `(8 * size^2 + 263,)`  |
| Observation Values   | [0, 1]                                                     |

A free-for-all grid battle: each player picks one of seven characters (Rob, Aaron, Safina, Jack, Jamie,
Josh, Chris) and fights on a 12x12 board with ruins, moving, attacking with d6 rolls, drawing battle
cards on a black face of the colour die, and spending Special Ability cards on the characters'
abilities. The last character standing wins. The rules are `docs/rules/lost_city.md`; rule ids
(T1-T29, and T30-T41 below) are cited in `boardenvs/lost_city/rules.py` and in `tests/lost_city/`.

### The draft (T2)

By default (`characters="pick"`) the players pick their characters before the first turn: the
initiative roll-off comes first (T30), then, in turn order from the first player, each seat picks one of
the characters not yet taken, with action `63 + k` (`k`: 0 Rob .. 6 Chris). The picks are decisions,
made in the open: every observation shows which seat has which character (seat features 2-8), which
characters are still free (`8 S + 255 .. 261`), that the draft is on (`8 S + 262`) and whose pick it is
(seat feature 27). A pick with a single character left is no decision: with 7 players the seventh
seat is not asked, the rules give it the last character (T2), so the draft asks six picks (with 2-6
players every pick has at least two characters free). Round 1 then starts with the first player, each
seat on its spawn (T3, T31).
`characters="random"` draws the characters by chance instead (seat by seat, before the roll-off), and a
list of names fixes them by seat. The heuristic (`boardenvs_agents.games.lost_city`) picks the strongest
character still free by its measured win rate for the player count (table below).

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
character he is moving: the acting seat is flagged, and the "acting for another seat" bit is set in
Rob's observation only (the deciding seat's; every other observer, the seduced character's seat
included, reads 0). The same holds for Jamie copying Seduction.

### Observation Space

`observation` is float32 of shape `(8 * size^2 + 7 * 30 + 53,)` = `(1415,)` on the default board, in
the perspective of the observer: relative seat `r` is seat `(observer + r) % n` (r = 0 is me).

| Index                     | Meaning                                                                   |
|---------------------------|---------------------------------------------------------------------------|
| `0 .. S-1` (S = size^2)   | ruins (1 on a ruin square, row-major)                                     |
| `S (1 + r) + cell`        | the square of relative seat `r` (r = 0..6; zero when out or absent)       |
| `8 S + 30 r + f`          | seat block of relative seat `r`, feature `f`:                             |
|                           | 0 present, 1 alive, 2-8 character one-hot (Rob..Chris; zero while the     |
|                           | seat has none yet, T2), 9 HP / 260, 10 HP / own cap, 11-18 held card      |
|                           | one-hot (+10 H, +10 D, +20 H, +20 D, Skip, Null, Joker, Special),         |
|                           | 19 Fire ticks / 3, 20 turns to skip / 2 (at most 1), 21 seduced,          |
|                           | 22 seduced by me, 23 controlled turns left / 2, 24 shielded from me (I    |
|                           | may not target it), 25 shielded from someone, 26 shield turns left / 2,   |
|                           | 27 the acting character (in the draft: the seat to pick), 28 the first    |
|                           | player (once rolled), 29 damage dealt / 1560 (at most 1; T28 tie-break)   |
| `8 S + 210 + 0..3`        | step one-hot: move, action, copy target, post-roll                        |
| `8 S + 214`               | I am acting for another seat's character (Seduction; T20: set only in the |
|                           | deciding seat's observation)                                              |
| `8 S + 215`               | round / max_rounds                                                        |
| `8 S + 216 .. 221`        | damage roll one-hot (1..6) during the post-roll step                      |
| `8 S + 222`               | the colour die showed black (a card will be drawn)                        |
| `8 S + 223`, `224`        | Critical used on this attack; +Damage bonus / 20                          |
| `8 S + 225 .. 231`        | relative seat of the attack's target                                      |
| `8 S + 232 .. 238`        | character whose ability Jamie is copying                                  |
| `8 S + 239 .. 246`        | cards of each kind left in the draw pile / cards of that kind in the deck |
| `8 S + 247 .. 254`        | cards of each kind in the discard pile / cards of that kind in the deck   |
| `8 S + 255 .. 261`        | character `k` (Rob..Chris) is not taken by any seat (T2: free to pick)    |
| `8 S + 262`               | the draft is on (a seat is picking its character, T2)                     |

Everything is public (4.3): positions, HP, statuses and held cards; only the deck order is hidden
(draws are chance nodes from the unseen multiset).

With the option `action_features=True` the observation is 75 longer (1490 on the default board): the
**move features** at `8 S + 263 + 3 m` for move action `m` (0-24), set only in the deciding player's
observation during the move step and only for legal moves (`boardenvs/lost_city/features.py`, the
measures the heuristic weighs): the best strike the square allows (a basic attack in range this turn,
the ability a held Special Ability card allows there, half for one more move away; weighted toward
targets with fewer hits left; none in round 1, T7) / 200, the expected damage the square is exposed
to next turn (every enemy that can walk within its range, T4, T5; zero for a seduced character, T20)
/ 100, and the walking steps around the ruins to the nearest target / 20, each capped at 1. The
option changes only the encoding, not the rules: a learned agent trained with it encodes its own
observations with it at any table of the same rules (`ENCODING_OPTIONS`).

#### Legal Actions Mask

`action_mask` (int8, `(70,)`) marks the legal actions of the agent to act and is all zeros for every
other agent. The agent to act always has a legal action: a free character in the draft, staying put
(12) in the move step, `END` (62) in the action and post-roll steps.

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
| 63-69   | the draft (T2): pick character `k` (0 Rob .. 6 Chris): `63 + k`, any not yet taken       |

### Rewards

At the end only: the last character standing +1, every other -1. A character eliminated while others
play on is terminated at once with -1 (the game goes on). When the last characters die in the same
event (T26) or tie at the round cap (T28), the tied players get 0 and the others -1. Reaching the round
cap is a normal end (decided by `cap_tiebreak`, by default the most damage dealt), not a truncation.

### Options

| Option                   | Default            | Meaning                                                   |
|--------------------------|--------------------|-----------------------------------------------------------|
| `num_players`            | 4                  | 2-7 (T2)                                                  |
| `characters`             | `"pick"`           | T2: `"pick"` (the draft), `"random"` (a chance draw, T31), or names by seat, e.g. `["Rob", "Jack"]` |
| `first_player`           | `"roll"`           | T30: initiative roll-off (chance), or `"seat0"`           |
| `board_size`             | 12                 | T1: rows = columns                                        |
| `ruins`                  | the 12 of 4.3      | T1: impassable squares `(row, col)`                       |
| `spawns`                 | `None`             | T3: spawn squares by seat, seat `i` on `spawns[i]`; `None`: the player count's (4.3, `board.SPAWNS`); `board.FIRST_SPAWNS`: the first design's |
| `black_faces`            | 2                  | T9: black faces of the six-faced colour die (P(card) = 1/3 per hit) |
| `bad_draw_discards_held` | True               | T12: a bad/Null draw also discards the held card          |
| `card_counts`            | (4,4,2,2,2,4,2,8)  | 4.1: deck by kind (+10 H, +10 D, +20 H, +20 D, Skip, Null, Joker, Special) |
| `max_rounds`             | 150                | T28: round cap, then `cap_tiebreak` decides               |
| `cap_tiebreak`           | `"damage"`         | T28: at the cap the living character with the most damage dealt wins, then the highest share of its starting HP; `"hp"` (the highest HP) and `"hp_share"` (the highest share) are the alternatives; a tie left is a draw |
| `action_features`        | False              | not a rule: append the move features to the deciding player's observation (above) |

### Readings added where the spec is silent (T30-T41)

* **T30** Initiative: the roll-off (highest d6, tied highest re-roll) gives every seat the same chance,
  so it is one chance node uniform over the seats; `first_player="seat0"` skips it.
* **T31** Seat `i` starts on `spawns[i]` (T3: the spawns of the player count); characters are picked in the draft (T2: after the roll-off,
  in turn order from the first player), given by the `characters` option in seat order, or drawn by
  chance one seat at a time (before the roll-off), uniformly among those not yet taken.
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
  out); round 1 is every player's first turn (T7), after the draft, and the game ends when round
  `max_rounds + 1` would start (T28).
* **T40** +Health cards may be played in the move, action and post-roll steps of one's own turn,
  even at full HP (the card is then wasted, T16); +Damage cards only in the post-roll step (T11).
* **T41** Damage dealt (the `"damage"` tie-break of T28) is the HP a seat's decisions took from other
  characters: its basic attacks (Critical and +Damage included) and abilities, the attacks of a
  character it controls by Seduction (T20), and the ticks of a Fire it lit (T21); HP beyond what the
  target had does not count, nor Jokers (T14).

### Designed values and the figures behind them (issue 15)

Measured with the balance tool, 1,000 games per setting (the heuristic in every seat; the heuristic in
one rotated seat against random players; with 2 players also the T9 round robin, every ordered pair of
characters, 1,008 games), on the defaults: `boardenvs-balance --game lost_city_v0 --games 1000
--check` (every target met; run again for issue 27 on the spawns of each player count, with the
7-player draft's last character assigned: rows 3, 5, 6 and 7 changed).

| Players | cap ends | draws | rounds: median (p10-p90) | decisions | cards drawn | abilities | heuristic vs random |
|---|---|---|---|---|---|---|---|
| 2 | 0.0% | 0.0% | 14 (10-19) | 54 | 3.46 | 0.88 | 0.969 [0.956, 0.978] (even 0.500) |
| 3 | 0.0% | 0.0% | 18 (14-23) | 81 | 4.33 | 0.35 | 0.918 [0.900, 0.934] (even 0.333) |
| 4 | 0.0% | 0.0% | 25 (20-31) | 135 | 7.40 | 1.68 | 0.731 [0.703, 0.758] (even 0.250) |
| 5 | 0.0% | 0.0% | 31 (24-39) | 186 | 9.92 | 2.50 | 0.617 [0.586, 0.647] (even 0.200) |
| 6 | 0.0% | 0.0% | 32 (26-40) | 222 | 11.79 | 2.88 | 0.563 [0.532, 0.593] (even 0.167) |
| 7 | 0.0% | 0.0% | 35 (28-42) | 261.5 | 13.67 | 3.29 | 0.488 [0.457, 0.518] (even 0.143) |

(cards drawn and abilities used are per game, heuristic in every seat; decisions is the median.)

* **`black_faces` = 2 (T9).** P(card) = 1/3 per hit. Target: at least 1.5 abilities used per 4-player
  game, and every character's 2-player round-robin win rate within 0.30-0.70. With 2 faces: 1.68
  abilities per 4-player game; round robin Aaron 0.535, Chris 0.552, Jack 0.465, Jamie 0.451, Josh
  0.458, Rob 0.479, Safina 0.559 (288 games each; with distinct seeds per pair, 4,200 games: 0.40-0.65).
  With 1 face (the same heuristic, `--option black_faces=1`): 0.84 abilities per 4-player game, and the
  round robin splits into stat lines: every melee character but Safina 0.580, every ranged one 0.382.
* **`characters` = `"pick"` (T2).** The seed lets each player choose. The heuristic picks by this
  table of win rates (heuristic in every seat, `characters="random"`, 2,000 games per count):

  | Players | Rob | Aaron | Safina | Jack | Jamie | Josh | Chris |
  |---|---|---|---|---|---|---|---|
  | 2 | 0.513 | 0.559 | 0.628 | 0.410 | 0.413 | 0.428 | 0.556 |
  | 3 | 0.302 | 0.247 | 0.266 | 0.424 | 0.430 | 0.417 | 0.242 |
  | 4 | 0.248 | 0.214 | 0.305 | 0.269 | 0.252 | 0.243 | 0.219 |
  | 5 | 0.242 | 0.206 | 0.266 | 0.148 | 0.188 | 0.156 | 0.195 |
  | 6 | 0.197 | 0.161 | 0.239 | 0.127 | 0.143 | 0.123 | 0.178 |
  | 7 | 0.182 | 0.150 | 0.206 | 0.095 | 0.115 | 0.099 | 0.152 |

* **`spawns` by player count (T3, issue 27).** The rules README's seat fairness asks every seat of the
  heuristic's games to win 0.7x-1.4x its even share. The first design's seven spawns, taken in listed
  order, missed it with 3, 5, 6 and 7 players (3 players: 0.621 / 0.312 / 0.067; 5 players: seat 4
  0.052; 6: seats 4 and 5 0.093 and 0.075; 7: seats 3 and 4 0.064 and 0.065). A seat loses when its
  neighbours reach it first: the heuristic lets two others fight and strikes the survivor. Layouts
  tried (heuristic in every seat; `measure("lost_city_v0", n, {"spawns": ...}, with_versus=False)` of
  `boardenvs_agents.arena.balance`; win rate over the even share, lowest and highest seat):
  * 3 players, a truel: 30 layouts spaced evenly around the perimeter (44/3 squares apart, 300 games
    each) all give one seat 1.4x-2.7x, the one standing farther from the other two than they stand
    from each other. Layouts whose three squares are 11 apart pairwise (two corners of one edge, a
    square of the opposite edge, 12 squares x 2 seat orders, 400 games each) run from 0.14x-1.85x
    (a corner) to 0.95x-1.06x (the middle square, (11,6)); one square off, (0,1) or (1,11), gives a
    seat 2.2x (1,000 games). Chosen: (0,0) (0,11) (11,6), 0.77x-1.13x over 2,000 fresh games.
  * 5 players: 18 evenly spaced layouts (300 games): the weakest seat 0.20x-0.60x; a local
    search from the best (moving one spawn a square at a time) 0.71x-1.30x (2,000 games); the 20
    layouts that give every seat the same nearest distances, in both seat orders (500 games), then the
    best three over 2,000 games: chosen (0,2) (6,0) (11,6) (5,11) (0,8), 0.82x-1.21x (the others
    0.71x-1.22x).
  * 6 players: layouts symmetric under the half turn (seats `i` and `i + 3` mirror each other with the
    turn order kept), the 10 with the most even distances in both seat orders (400 games), the best
    three over 2,000 games: chosen (4,11) (0,5) (2,0) (7,0) (11,6) (9,11), 0.86x-1.10x (the others
    0.81x-1.20x and 0.84x-1.18x).
  * 7 players: 12 near-even spacings and 8 layouts with every seat's nearest distance 5, both seat
    orders (400 games; the first design 0.45x-1.55x), the best three over 2,000 games: chosen (0,1)
    (0,6) (1,11) (6,11) (11,8) (11,3) (5,0), 0.86x-1.20x (the others 0.64x-1.34x and 0.76x-1.47x).
  The draft table above was measured again on these spawns (3, 5, 6, 7 players; 2 and 4 unchanged).
* **Games that end (T28).** With the first heuristic, 42% (2 players), 63% (4) and 52% (7) of games
  reached the 150-round cap: ranged characters stood off and melee ones would not walk into a shooter's
  reach (two Ranged five squares apart waited for each other forever). The heuristic now closes in
  whenever it cannot strike, except while two other characters are fighting each other: no game of
  1,000 per count reaches the cap, none is drawn. `max_rounds` stays 150 (games last 14-32 rounds).
* **Waiting (T28).** Is waiting still the best play? Fields of heuristic variants (`characters="random"`,
  2,000 games with 3 and 4 players, 1,000 with 7; one variant in a rotated seat): a player that always
  stands off (`charge=False`) among this heuristic wins 0.470 / 0.332 / 0.182 (3 / 4 / 7 players; even
  0.333 / 0.250 / 0.143), the first heuristic 0.403 / 0.265 / 0.148, a heuristic that closes in even
  while others fight (`patient=False`) 0.271 / 0.153 / 0.049; none of these games reaches the cap. So
  letting the others fight pays, in games that end by the rules: an edge no tie-break can remove. A field
  of players who all stand off does stall (`charge=False` in every seat: 45% / 56% / 56% of games reach
  the cap with 2 / 4 / 7 players, characters drawn at random), and there the tie-break decides who
  gains from waiting:
* **`cap_tiebreak` = `"damage"` (T28, T41).** Under the first rule (`"hp"`, the highest HP), a
  character that never dealt a point of damage won 14.3% / 23.0% / 17.6% of those games (2 / 4 / 7
  players; by starting with more HP, or by being hit least), with 30.5% / 13.4% / 4.0% draws;
  `"hp_share"` (HP over the starting HP) still 0% / 13.4% / 16.4%, with 44.8% / 23.3% / 4.4% draws. Under
  `"damage"` (the most damage dealt, then the share of starting HP), nobody who did not fight can win at
  the cap (0%), and draws fall to 44.8% / 2.6% / 0.2% (with 2 players the remaining draws are stand-offs
  in which neither side ever dealt damage). The cap and draw shares are the balance tool's: `--agents
  heuristic:charge=false --option characters=random --option cap_tiebreak=hp` (and `hp_share`,
  `damage`), `--num-players 2 4 7`, 1,000 games each; the zero-damage winners were read off `dealt`
  in the same games.

### Version History

* v0: first release (boardenvs 0.1.0)
* v0: `render_mode` `"rgb_array"` (a Pillow picture of the board, 900 wide, 788 high on the default board) and `"human"` (shown in a window) beside `"ansi"`
* v0 (issue 15, no release yet): the character draft (T2, `characters="pick"` by default; actions
  63-69, `Discrete(70)`; observation: characters still free, the draft flag); `black_faces` 2 (T9);
  the round cap decided by the most damage dealt (T28, T41: `cap_tiebreak`, seat feature 29); the
  "acting for another seat" bit only in the deciding seat's observation (T20); observation
  `(8 * size^2 + 263,)` = 1415
* v0, revised before any release (issue 18): option `action_features` (off by default): the deciding
  player's observation ends with move features (75 numbers), what each move leads to
* v0, revised before any release (issue 27): in a 7-player draft the seventh seat is given the last
  character instead of being asked to pick it (T2: a step with one choice is not a decision)
* v0, revised before any release (issue 27): spawns chosen per player count (T3) so that every seat
  can win (2 and 4 players unchanged); the heuristic's draft table re-measured for 3, 5, 6 and 7
  players on the new spawns
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.game import Game, Place
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.features import MOVE_FEATURES, NUM_MOVES, move_action_features
from boardenvs.lost_city.rules import (
    NUM_ACTIONS,
    P_ACTION,
    P_COPY,
    P_MOVE,
    P_OVER,
    P_PICK,
    P_POSTROLL,
    LostCityOptions,
    LostCityState,
)

if TYPE_CHECKING:  # pragma: no cover - Pillow is imported only when a picture is drawn
    from PIL import Image

MAX_SEATS = 7
#: Features per seat block (see the module docstring).
SEAT_FEATURES = 30
#: Damage dealt is observed over the most HP six characters can lose without healing (T28).
DEALT_SCALE = 6 * ch.HP_SCALE
#: Global features after the seat blocks.
GLOBAL_FEATURES = 53
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
        self._features = self.options.action_features
        if self._features:
            self._size += NUM_MOVES * MOVE_FEATURES
        self._ruin_hot = [i for i, ruin in enumerate(LostCityState(self.options).geo.ruin) if ruin]
        counts = np.asarray(self.options.card_counts, dtype=np.float32)
        self._inv_counts = np.where(counts > 0, 1.0 / np.maximum(counts, 1.0), 0.0).astype(np.float32)

    def num_actions(self, player: int) -> int:
        """70 actions for every seat."""
        return NUM_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """``(8 * size^2 + 263,)`` for every seat (75 more with ``action_features``)."""
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
        phase = state.phase
        first_known = phase >= P_PICK  # T30 has been rolled (or skipped)
        acting = state.to_move if first_known and phase != P_OVER else -1  # the picker in the draft
        for r in range(n):
            p = (player + r) % n
            b = base + SEAT_FEATURES * r
            hot.append(b)
            alive = hp[p] > 0
            if alive:
                hot.append(b + 1)
                hot.append(cells * (1 + r) + state.pos[p])
            k = state.char[p]
            if k >= 0:
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
            if first_known and p == state.first:
                hot.append(b + 28)
            if state.dealt[p]:
                obs[b + 29] = min(state.dealt[p] / DEALT_SCALE, 1.0)
        g = self._glob
        step = _STEP.get(phase)
        if step is not None:
            hot.append(g + step)
            if state.ctrl[state.to_move] == player:  # T20: only the seducer deciding gets the bit
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
        for k in state.characters_left():  # T2: what is still free to pick
            obs[g + 45 + k] = 1.0
        if phase == P_PICK:
            obs[g + 52] = 1.0
        if self._features and phase == P_MOVE and state.current_player() == player:
            obs[g + GLOBAL_FEATURES :] = move_action_features(state).reshape(-1)
        return obs

    def draw(self, state: LostCityState, view: int | None = None) -> Image.Image:  # type: ignore[override]
        """A picture of ``state`` (board, characters, HP, cards, dice, whose turn); needs Pillow.

        Everything but the deck order is public (4.3), so a player ``view`` shows the same facts as the
        full view (``None``) and marks that player's character. See :mod:`boardenvs.lost_city.draw`.
        """
        from boardenvs.lost_city.draw import draw_state

        return draw_state(self, state, view)

    def action_places(self, state: LostCityState, view: int | None = None) -> dict[int, Place]:  # type: ignore[override]
        """Where each legal move has its place on ``draw(state, view)``
        (:func:`boardenvs.lost_city.draw.action_places`)."""
        from boardenvs.lost_city.draw import action_places

        return action_places(self, state, view)


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``lost_city_v0`` AEC environment; see the module docstring."""

    game_class = LostCityGame
    metadata = {**BoardGameEnv.metadata, "name": "lost_city_v0"}


def env(**kwargs: object) -> raw_env:
    """``lost_city_v0`` with PettingZoo's standard wrappers (an illegal move loses the game with -1)."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
