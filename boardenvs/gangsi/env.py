# noqa: D212, D415
"""
# キョンシー (Gangsi)

| Import               | `from boardenvs import gangsi_v0`                                   |
|----------------------|---------------------------------------------------------------------|
| Creation             | `gangsi_v0.env()` or `boardenvs.make("gangsi_v0")`                  |
| Actions              | Discrete (per role)                                                 |
| Parallel API         | No                                                                  |
| Manual Control       | No                                                                  |
| Agents               | `agents= ['kyonshi', 'hunter_0', 'hunter_1', 'hunter_2', 'hunter_3']` |
| Agents               | 2 to 5 (the Kyonshi and 2-4 hunter pieces; 2 = one controller, two pieces) |
| Action Shape         | (1,)                                                                |
| Action Values        | `kyonshi`: Discrete(5); `hunter_i`: Discrete(12)                    |
| Observation Shape    | `kyonshi`: (1499,); `hunter_i`: (1807,)                             |
| Observation Values   | [0, 1]                                                              |

An asymmetric hidden-information chase in an 11x11 walled maze. Hunter pieces leave the tomb entrance
to collect the five treasures on their mission cards, moving with five shared dice; the Kyonshi hunts
them without seeing them, hearing only what the table tells it. The default map (`maze="crypt"`, K7)
puts the entrance and the coffin side by side in a central hall (see Version History for the drawing
and the figures that chose it). The rules are
`docs/rules/gangsi.md`; rule ids (K1-K26, and K27-K34 added here) are cited in
`boardenvs/gangsi/rules.py` and in `tests/gangsi/`.

### Agents and roles

`kyonshi` is player 0. Hunter piece `i` is `hunter_i`, player `1 + i`; hunters play in that order
(K22), then the Kyonshi. With `num_players=2` (or `one_controller=True`) there are two hunter pieces
and one agent, `hunter_0`, moves both (K21); it sees both hands and wins if either piece wins.

### Observation Space

The observation is a dict with `observation` (float32) and `action_mask` (int8). The first part is a
stack of 11x11 planes (`plane * 121 + row * 11 + col`), then a vector. The two roles see different
things and have different shapes.

**Hunters** (`(1807,)`; `(1843,)` with `action_features=True`), in the perspective of the observing
piece ("me", slot 0; in the one-controller game the acting piece when it is mine, else my first living piece); the other pieces
follow in seat order in slots 1-3 (slot `r` is piece `(me + r) % num_hunters`; absent slots zero):

| Index     | Meaning                                                                                   |
|-----------|-------------------------------------------------------------------------------------------|
| 0-483     | planes 0-3: a wall on the north / east / south / west side of the square (the border too) |
| 484-604   | plane 4: the entrance and the coffin                                                      |
| 605-725   | plane 5: squares of the treasures still needed by me (unrevealed cards in my hand)        |
| 726-846   | plane 6: the Kyonshi                                                                      |
| 847-1330  | planes 7-10: the piece of slot 0-3 (on the entrance or the coffin too)                    |
| 1331-1451 | plane 11: squares visited by a move in progress (`hunter_turns`), start included          |
| 1452-1572 | plane 12: the square a move in progress has reached                                       |
| 1573-1772 | per slot `r` (50 each, at `1573 + 50 r`): alive, lives / 3, revealed cards (23), unrevealed cards in hand (23, only for pieces I move), revealed count / 5, acting |
| 1773      | Kyonshi tokens / tokens needed                                                            |
| 1774-1781 | phase one-hot: deal, reset?, roll, choose, direction, kyonshi roll, kyonshi move, over    |
| 1782-1786 | free dice showing 1, 2, 3, 4, arrow (count / 5)                                           |
| 1787-1792 | dice set aside, one-hot 0-5                                                               |
| 1793      | re-rolls this turn, min(count, 10) / 10                                                   |
| 1794-1798 | declared face one-hot (1, 2, 3, 4, arrow)                                                 |
| 1799      | steps left in a move in progress / 4 (0 when no move is in progress, K10)                 |
| 1800      | Kyonshi steps left / (largest die face + 5)                                               |
| 1801      | 1 during the Kyonshi's interrupt move                                                     |
| 1802      | completed rounds / `max_rounds`                                                           |
| 1803-1805 | hunter pieces one-hot (2, 3, 4)                                                           |
| 1806      | `hunter_turns`                                                                            |
| 1807-1842 | with `action_features=True`: action features, 3 per action `a` at `1807 + 3 a` (zeros but for my own decision): the move ends on a treasure I need; hunter moves from there to my nearest still-needed treasure / 10; the Kyonshi's steps to it / 20 (see below) |

**The Kyonshi** (`(1499,)`; `(1509,)` with `action_features=True`, `(1519,)` with `action_ranks=True` too) never sees a hunter's square or hand
(K9). It sees what the table tells it, and the public possibility set of every piece: the squares the piece may stand on given the
entrance, the declared faces, the walls, its own square, reveals (which pin a piece to its treasure),
captures (the coffin) and every square it stepped on without a catch (K32). Slots are pieces by
number (not rotated):

| Index     | Meaning                                                                                   |
|-----------|-------------------------------------------------------------------------------------------|
| 0-604     | planes 0-4: walls north / east / south / west, the entrance and the coffin                |
| 605-725   | plane 5: treasure squares not yet revealed by anyone                                      |
| 726-846   | plane 6: the Kyonshi                                                                      |
| 847-1330  | planes 7-10: the possibility set of piece 0-3 (empty once eliminated or absent)            |
| 1331-1470 | per piece `i` (35 each, at `1331 + 35 i`): alive, lives / 3, revealed cards (23), revealed count / 5, acting, moves since last known exactly min(n, 20) / 20, last declared face one-hot (1, 2, 3, 4, arrow, passed), possibility-set size / 121 |
| 1471      | tokens / tokens needed                                                                    |
| 1472-1479 | phase one-hot (as for hunters)                                                            |
| 1480-1485 | dice set aside, one-hot 0-5                                                               |
| 1486      | re-rolls this turn, min(count, 10) / 10                                                   |
| 1487-1491 | declared face one-hot (1, 2, 3, 4, arrow)                                                 |
| 1492      | Kyonshi steps left / (largest die face + 5)                                               |
| 1493      | 1 during an interrupt move                                                                |
| 1494      | completed rounds / `max_rounds`                                                           |
| 1495-1497 | hunter pieces one-hot (2, 3, 4)                                                           |
| 1498      | `hunter_turns`                                                                            |
| 1499-1508 | with `action_features=True`: action features, 2 per action `a` at `1499 + 2 a` (zeros outside its move): the public probability of a hunter on the square the step enters; the best probability a path of up to 5 steps starting that way crosses (plus 0.3 of where it ends leads on) / number of pieces |
| 1499-1518 | with `action_ranks=True` too: 4 per action `a` at `1499 + 4 a`: the two above, then the path value over the best choice's and 1 for the best choice (every step of a tie; standing still alone when it ties with a step): the heuristic's step is the best one |

**Action features** (`boardenvs/gangsi/features.py`, option `action_features=True`) say what each legal
choice leads to, from what the observer may know, so that a network need not find it in the planes:
they are the quantities the hand-written heuristic weighs. They are off by default because they cost
about twice the rest of a step (random play through `env()`: about 11,000 moves/s with them, 32,000
without). The option changes only the encoding, not the rules: a learned agent trained with it
(`ppo:gangsi_v0`) encodes its own observations with it in any game of the same rules
(`ENCODING_OPTIONS`). For a hunter, a face is scored by its best destination (a reveal first, then the
fewest hunter moves on, then the farthest from the Kyonshi), a direction by the square it
ends on, a re-roll (K14) by the square the piece stands on, a reset / keep (K16, K31) by whether the
interrupt can catch a piece in the open (1 / 0), the dice aside / 5 and the Kyonshi's steps to the
nearest such piece / 20. Hunter moves count straight lines of 1-4 squares and arrow slides (K10-K12);
a piece's "needed" treasures are the unrevealed cards of its own hand, so only the acting piece's
holder sees them. The Kyonshi's spread each piece's probability evenly over its public possibility
set (K32).

No observation holds the order of a deck: cards are dealt at chance nodes and the undealt ones are
never stored apart from the hands (K4).

#### Legal Actions Mask

`action_mask` marks the legal actions of the agent to act and is all zeros for everyone else; it is
never all zeros for the agent to act. Steps that need no decision are taken by the environment: a
forced reset (no free die, K16), a forced re-roll (no face can move, K13) and the end of a turn when
the dice run out (K27); so is every roll (chance).

### Action Space

Hunters, `Discrete(12)`:

| Action | Meaning                                                                                   |
|--------|-------------------------------------------------------------------------------------------|
| 0      | keep the dice set aside and roll the free ones (offered only beside 1)                    |
| 1      | reset: the Kyonshi moves up to the number of dice set aside (interrupt), then roll all 5  |
| 2      | re-roll every free die (K14)                                                              |
| 3-6    | declare the number 1-4 (accepting the roll, K29); only faces showing that can move        |
| 7      | declare the arrow                                                                         |
| 8-11   | direction north / east / south / west of the declared move; with `hunter_turns` a number move takes one direction per step, offered only if the move can still be completed |

The Kyonshi, `Discrete(5)`: 0-3 one step north / east / south / west (no walls, entrance or coffin);
4 stop. Its move ends by itself after the last step or a catch.

### Rewards

At the end only (K20). The hunter who reveals their fifth card wins alone: +1, every other agent -1
(`hunter_win_rewards="others_zero"`: the other hunters 0, the Kyonshi -1). A Kyonshi win (tokens reach
4 / 6 / 7 for 2 / 3 / 4 pieces, or the round cap, K26) pays the Kyonshi +1 and every hunter -1, with
either option. An eliminated hunter (K25) is one of the other hunters: with the default it is done at
once with -1; with `"others_zero"` its return waits for the winner. In the one-controller game the
hunter agent wins with either piece. With `round_cap="truncate"` the cap truncates the game with 0 for
everyone still playing.

### Options

| Option               | Default              | Meaning                                                             |
|----------------------|----------------------|---------------------------------------------------------------------|
| `num_hunters`        | 4                    | hunter pieces, 2-4 (K21)                                            |
| `num_players`        | 5                    | agents in all, 2-5; 2 = one controller running two pieces (K21)     |
| `one_controller`     | False                | K21: one agent moves both pieces of a two-piece game                |
| `hunter_turns`       | False                | K10: numbers move in one straight line (seed); True: turns allowed, no square twice |
| `kyonshi_die`        | (1, 1, 2, 2, 3, 3)   | K8: faces of the Kyonshi die                                        |
| `max_rounds`         | 80                   | K26: full rounds before the cap                                     |
| `round_cap`          | `"kyonshi_wins"`     | K26: the Kyonshi wins at the cap, or `"truncate"`                   |
| `hunter_win_rewards` | `"others_minus_one"` | K20: see Rewards                                                    |
| `action_features`    | False                | not a rule: append the action features to both observations (above) |
| `action_ranks`       | False                | not a rule: with `action_features`, the Kyonshi's features also rank its choices (above) |
| `maze`               | `"crypt"`            | K7: a named map (`"crypt"`, `"classic"`: the first map of gangsi.md 3.3, the drawing-format example) or a drawing in that format (a tuple of lines) |

### Rules settled here (new ids)

* **K27**: when no face can move and no die is left to re-roll, the turn ends without a decision
  (the pass of K13 is taken by the environment); the next hunter then faces a forced reset (K16). A
  forced re-roll counts as a re-roll in the public count (K9).
* **K28**: if the Kyonshi's interrupt catches the resetting piece, the piece still rolls all five dice
  and moves out of the coffin; if the catch eliminates it, its turn ends.
* **K29**: accepting the roll is declaring a face; only faces showing on a free die that give a legal
  move may be declared (K11, K24).
* **K30**: with `hunter_turns`, "no square twice in a move" includes the starting square.
* **K31**: the interrupt is as long as the number of dice set aside when the reset is declared; they
  stay aside (and count for nothing else) until the interrupt ends, then all five are free.
* **K32**: a Kyonshi step without a catch tells everyone that no hunter stood on that square; the
  Kyonshi's possibility sets use it.
* **K33**: a piece that stops on a treasure square without revealing is known, to the hunters who see
  it, not to hold that card (used by `determinize`).
* **K34**: the round cap counts the Kyonshi's normal turns; it is checked after each of them.

### Version History

* v0: first release (boardenvs 0.1.0); render modes `ansi`, `human` and `rgb_array` (a picture of the maze;
  `game.draw(state, view)` draws a player's view, the Kyonshi's with possibility sets, K9/K32)
* v0, revised before any release (issue 15; the id stays `gangsi_v0`): a new default map for K7 (the
  first map is kept as `maze="classic"`), and hunter observation index 1799 reads 0 once a move is made
  (it kept the steps of a straight-line move, e.g. 0.75 after a 3, into the next hunter's turn).

  **The map.** On the first map the entrance (10,5) and the coffin (10,6) each open onto one square;
  a hunter leaves only onto (9,5), where the Kyonshi waits, so the heuristic Kyonshi won every game in
  2-3 rounds with no treasure found. The default is now `"crypt"` (`boardenvs/gangsi/board.py`,
  `CRYPT_MAP`), mirror-symmetric but for the wall between entrance and coffin; the SEED rules are
  unchanged (K10's straight lines stay the default):

  ```
       0   1   2   3   4   5   6   7   8   9   10
     +---+---+---+---+---+---+---+---+---+---+---+
   0 |  .   .  A1   .   .   .   .   .  P1   .   .|
     +   +---+---+   +   +   +   +   +---+---+   +
   1 |  .   .   .   .| A3|  .| P3|  .   .   .   .|
     +   +   +   +   +   +   +   +   +   +   +   +
   2 |  .|  .  A2   .|  .| G1|  .|  .  P2   .|  .|
     +   +   +   +   +   +   +   +   +   +   +   +
   3 |  .|  .   .  A5   .   .   .  P5   .   .|  .|
     +   +---+---+   +   +   +   +   +---+---+   +
   4 |  .  A4   .   .   .   .   .   .   .  P4   .|
     +   +---+---+   +   +   +   +   +---+---+   +
   5 |  .   .  G2   .   .  EN| CF   .  G3   .   .|
     +   +---+---+   +   +   +   +   +---+---+   +
   6 |  .  O4   .   .   .   .   .   .   .  Y4   .|
     +   +---+---+   +   +   +   +   +---+---+   +
   7 |  .|  .   .  O5   .   .   .   .   .   .|  .|
     +   +   +   +   +   +   +   +   +   +   +   +
   8 |  .|  .  O2   .|  .| G4|  .|  .  Y2   .|  .|
     +   +   +   +   +   +   +   +   +   +   +   +
   9 |  .   .   .   .| O3|  .| Y3|  .   .   .   .|
     +   +---+---+   +   +   +   +   +---+---+   +
  10 |  .   .  O1   .   .   .   .   .  Y1   .   .|
     +---+---+---+---+---+---+---+---+---+---+---+
  ```

  K7's map targets: 49 interior walls (at least 40); every square reachable, at most 10 steps from
  the entrance; 8 independent loops inside each quadrant (at least 2); the treasures in their five
  areas (K5); entrance (5,5) and coffin (5,6) side by side with a wall between them, each opening onto
  three squares, and no square anywhere whose holder cuts the doors off from any part of the maze.

  **The figures** (`scripts/balance.py --game gangsi_v0 --games 1000 --check`, seed 0: heuristic in
  every seat, 1000 games per hunter count; heuristic in one rotated seat against random players, 1000):

  | hunters | Kyonshi wins [95%]   | ends by the rules / K26 cap | rounds median (p10-p90) | reveals / game | catches / game | heuristic vs random |
  |---------|----------------------|-----------------------------|-------------------------|----------------|----------------|---------------------|
  | 2       | 0.570 [0.539, 0.600] | 100% / 0%                   | 14 (9-20)               | 7.22           | 3.30           | 0.998 [0.993, 0.999], even share 0.333 |
  | 3       | 0.415 [0.385, 0.446] | 100% / 0%                   | 15 (10-20)              | 10.75          | 4.83           | 1.000 [0.996, 1.000], even share 0.250 |
  | 4       | 0.566 [0.535, 0.596] | 100% / 0%                   | 14 (10-18)              | 12.93          | 6.13           | 1.000 [0.996, 1.000], even share 0.200 |

  The one-controller game (`num_players=2`, two pieces, K21; `--num-players 2`, 1000 games): the
  Kyonshi wins 0.575 [0.544, 0.605], every target met. Every README and K7 target is met: the Kyonshi's (and so the hunters') win rate lies in 0.35-0.65
  for 2, 3 and 4 hunters, no game reaches the K26 cap, treasures are found in every game on average.
  Three hunters were the hardest setting for the Kyonshi on every map measured (the seed's token
  table asks 2 tokens per piece of 2 and of 3 pieces but 1.75 of 4, and more pieces race for the
  fifth treasure), so the map puts 3 hunters and 2 / 4 hunters at similar distances from the bounds.
  The targets are for the default rules; with K10's published variant (`hunter_turns=True`) the
  hunters have far more landing squares and win most games (Kyonshi 0.113 / 0.040 / 0.033 on this map,
  0.233 / 0.240 / 0.380 on the classic map, 300 games each).
  The heuristic Kyonshi's decisions matter as much: against random hunters it wins every game by
  tokens (median 12 / 12 / 9 rounds), where a random Kyonshi wins 17-30% by tokens and the rest only
  at the K26 cap; against heuristic hunters a random Kyonshi wins none of 1000 games per count.

  Candidates measured with the same heuristic (Kyonshi win rate with 2 / 3 / 4 hunters, heuristic in
  every seat, 1000 or 2000 games each): the first map 1.000 / 1.000 / 1.000 (no treasure found); an
  open 11x11 maze with the first map's doors 0.301 / 0.211 / 0.314, and with the entrance in its
  middle 0.177 / 0.103 / 0.153 (open halls and long lines favour the hunters); this map with the four
  corner treasures A1, P1, O1, Y1 on the corners 0.451 / 0.311 / 0.428, one square from the corners
  0.530 / 0.394 / 0.590, two squares (the default) 0.548 / 0.410 / 0.558 (2000 games, other seeds than
  the table above), inside the quadrant rooms (at (1,1) and its mirror images) 0.610 / 0.509 / 0.646.

  The heuristic's hunters were improved on the way (`boardenvs_agents.games.gangsi`), and the map is
  tuned to the improved heuristic. They used to reset the dice whenever at most one die was left free
  (or two were aside and the Kyonshi could not reach the resetting piece itself, whoever else it could
  reach): on an open 11x11 maze with a 7-square wall between the doors, 44% of the catches with 4 hunters came
  in those interrupts and the Kyonshi won 0.360 / 0.400 / 0.602 (500 games); resetting only when the
  interrupt can catch nobody gave 0.234 / 0.182 / 0.364. Counting, in the Kyonshi's reach, the dice
  the pieces still to move this round are expected to set aside then narrowed the gap between 3 and 4
  hunters (this map with A1 and P1 one square from their corners: 0.527 / 0.418 / 0.596 before, 0.504
  / 0.369 / 0.496 after, 1000 and 2000 games).
* v0, revised before any release (issue 18): option `action_features` (off by default): both
  observations end with action features (hunters 1807-1842, the Kyonshi 1499-1508), what each choice
  leads to; a network trained on the plain planes did not learn to play either role against the
  heuristic (docs/learning.md). Option `action_ranks` (off by default, needs `action_features`): the
  Kyonshi's features also rank its choices (1499-1518), since the path values of its best two steps
  are often a hundredth apart and a network cloned from the heuristic followed its step 77% of the
  time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.game import Game, Place
from boardenvs.gangsi.board import Maze
from boardenvs.gangsi.cards import NUM_MOVE_FACES, NUM_TREASURES, TREASURE_CODES
from boardenvs.gangsi.features import (
    HUNTER_FEATURES,
    KYONSHI_FEATURES,
    KYONSHI_RANK_FEATURES,
    hunter_action_features,
    kyonshi_action_features,
)
from boardenvs.gangsi.rules import (
    KYONSHI,
    NUM_HUNTER_ACTIONS,
    NUM_KYONSHI_ACTIONS,
    NUM_PHASES,
    PH_CHOOSE,
    PH_DIR,
    PH_KY_MOVE,
    PH_RESET,
    GangsiOptions,
    GangsiState,
    bits,
)

SLOTS = 4
# Hunter layout (in units of cells for the planes).
H_PLANES = 13
H_SLOT = 2 + 2 * NUM_TREASURES + 2  # 50
K_PLANES = 11
K_SLOT = 2 + NUM_TREASURES + 3 + (NUM_MOVE_FACES + 1) + 1  # 35


#: A card mask's set bits and its card count / 5 (the slots' "revealed count"), remembered: hands and
#: reveals hold at most five of the 23 cards, so few masks ever occur, and the encoders read them on
#: every observation.
_CARDS: dict[int, tuple[tuple[int, ...], float]] = {}

#: ``count / 5`` in float32 for a count of free dice showing a face (0-5), as the layouts hold it.
_FACE_SHARE = [float(np.float32(count) * np.float32(0.2)) for count in range(6)]


def _cards(mask: int) -> tuple[tuple[int, ...], float]:
    """The set bits of card mask ``mask`` (:func:`bits`) and their count / 5, remembered."""
    found = _CARDS.get(mask)
    if found is None:
        found = _CARDS[mask] = (tuple(bits(mask)), mask.bit_count() / 5.0)
    return found


class GangsiGame(Game):
    """``gangsi_v0``: options, role-specific spaces and the observation encodings of a Gangsi state."""

    name = "gangsi_v0"
    Options = GangsiOptions
    state_class = GangsiState

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self._state_proto = GangsiState(self.options)
        maze = self._state_proto.maze
        self.maze = maze
        size = maze.size
        self._size = size
        self._static = self._static_planes(maze)
        # Hunter offsets.
        self._h_vec = H_PLANES * size
        self._h_tail = self._h_vec + SLOTS * H_SLOT
        self._h_size = (
            self._h_tail + 1 + NUM_PHASES + NUM_MOVE_FACES + 6 + 1 + NUM_MOVE_FACES + 1 + 1 + 1 + 1 + 3 + 1
        )
        self._features = self.options.action_features
        self._ranks = self.options.action_ranks
        self._h_features = self._h_size
        if self._features:
            self._h_size += NUM_HUNTER_ACTIONS * HUNTER_FEATURES
        # Kyonshi offsets.
        self._k_vec = K_PLANES * size
        self._k_tail = self._k_vec + SLOTS * K_SLOT
        self._k_size = self._k_tail + 1 + NUM_PHASES + 6 + 1 + NUM_MOVE_FACES + 1 + 1 + 1 + 3 + 1
        self._k_features = self._k_size
        if self._features:
            self._k_size += NUM_KYONSHI_ACTIONS * (
                KYONSHI_FEATURES + (KYONSHI_RANK_FEATURES if self._ranks else 0)
            )
        self._ky_norm = 1.0 / (max(self.options.kyonshi_die) + 5)
        # Each role's observation starts as a copy of its template: the static planes, zeros elsewhere.
        self._h_template = np.zeros(self._h_size, dtype=np.float32)
        self._h_template[: 5 * size] = self._static
        self._k_template = np.zeros(self._k_size, dtype=np.float32)
        self._k_template[: 5 * size] = self._static
        # Plane 5 of each role by card mask (hunters: the unrevealed cards of my hand; the Kyonshi: the
        # cards revealed by anyone), kept as the masks occur.
        self._needed: dict[int, tuple[int, ...]] = {}
        self._unrevealed: dict[int, tuple[int, ...]] = {}

    @staticmethod
    def _static_planes(maze: Maze) -> np.ndarray:
        """Planes 0-4 of both roles: walls on each side of every square, the entrance and the coffin
        (K6: both sides of the board show the same map, so every role sees it)."""
        planes = np.zeros((5, maze.size), dtype=np.float32)
        for cell in range(maze.size):
            for d in range(4):
                if maze.nbr[cell][d] < 0:
                    planes[d, cell] = 1.0
        planes[4, maze.entrance] = 1.0
        planes[4, maze.coffin] = 1.0
        return planes.reshape(-1)

    # -- players and spaces -----------------------------------------------------------------------

    @property
    def agents(self) -> list[str]:
        """``kyonshi``, then ``hunter_0`` ... by player id."""
        return ["kyonshi"] + [f"hunter_{i}" for i in range(self.num_players - 1)]

    def num_actions(self, player: int) -> int:
        """5 for the Kyonshi, 12 for a hunter."""
        return NUM_KYONSHI_ACTIONS if player == KYONSHI else NUM_HUNTER_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """``(1499,)`` for the Kyonshi, ``(1807,)`` for a hunter (on the 11x11 map)."""
        return (self._k_size,) if player == KYONSHI else (self._h_size,)

    def new_initial_state(self) -> GangsiState:
        """Hunters on the entrance, the Kyonshi on its coffin, the deal to come."""
        return GangsiState(self.options)

    # -- observations -----------------------------------------------------------------------------
    # Each encoder copies its role's template (the static planes) and gathers the rest in two lists:
    # the indices set to 1 (``hot``) and the indices of the other values with those values (``at``,
    # ``val``), written with one ``ndarray.put`` each (cheaper than an index assignment from lists).

    def observe(self, state: GangsiState, player: int) -> np.ndarray:  # type: ignore[override]
        """What ``player`` may know of ``state`` (see the module docstring); never changes ``state``."""
        if player == KYONSHI:
            return self._observe_kyonshi(state)
        return self._observe_hunter(state, player)

    def _needed_cells(self, mask: int) -> tuple[int, ...]:
        """Hunter plane 5 for the unrevealed cards ``mask`` of my hand: their treasures' squares."""
        found = self._needed.get(mask)
        if found is None:
            cell = self.maze.treasure_cell
            found = self._needed[mask] = tuple(5 * self._size + cell[t] for t in bits(mask))
        return found

    def _unrevealed_cells(self, revealed: int) -> tuple[int, ...]:
        """Kyonshi plane 5 when the cards ``revealed`` (a mask) are revealed: the other treasures' squares."""
        found = self._unrevealed.get(revealed)
        if found is None:
            cell = self.maze.treasure_cell
            found = self._unrevealed[revealed] = tuple(
                5 * self._size + cell[t] for t in range(NUM_TREASURES) if not revealed >> t & 1
            )
        return found

    def _observe_hunter(self, state: GangsiState, player: int) -> np.ndarray:
        size = self._size
        lives, revealed, hand, pos, acting = state.lives, state.revealed, state.hand, state.pos, state.acting
        mine = state.pieces_of(player)
        n = state.n
        me = acting if acting in mine else next((j for j in mine if lives[j] > 0), mine[0])
        hot = list(self._needed_cells(hand[me] & ~revealed[me]))
        hot.append(6 * size + state.ky)
        at: list[int] = []
        val: list[float] = []
        vec = self._h_vec
        for r in range(n):
            j = (me + r) % n
            if pos[j] >= 0:
                hot.append((7 + r) * size + pos[j])
            base = vec + H_SLOT * r
            if lives[j] > 0:
                hot.append(base)
            shown, share = _cards(revealed[j])
            hot += [base + 2 + t for t in shown]
            if j in mine:
                hot += [base + 2 + NUM_TREASURES + t for t in _cards(hand[j] & ~revealed[j])[0]]
            at += (base + 1, base + 2 + 2 * NUM_TREASURES)
            val += (lives[j] / 3.0, share)
            if acting == j:
                hot.append(base + 3 + 2 * NUM_TREASURES)
        if state.cur >= 0 and acting in range(n):
            # A move in progress is seen by every hunter.
            hot += [11 * size + c for c in bits(state.visited)]
            hot.append(12 * size + state.cur)
        # The tail: tokens, phase, free dice, aside, re-rolls, declared face, steps, Kyonshi steps,
        # interrupt, round, hunter count, hunter_turns.
        tail = self._h_tail
        faces = state.faces
        at += (tail, *range(tail + 1 + NUM_PHASES, tail + 1 + NUM_PHASES + NUM_MOVE_FACES))
        val += (min(state.tokens / state.threshold, 1.0), *[_FACE_SHARE[count] for count in faces])
        hot.append(tail + 1 + state.phase)
        tail += 1 + NUM_PHASES + NUM_MOVE_FACES
        hot.append(tail + state.aside)
        tail += 6
        rerolls = tail
        tail += 1
        if state.face >= 0:
            hot.append(tail + state.face)
        tail += NUM_MOVE_FACES
        at += (rerolls, tail, tail + 1, tail + 2, tail + 3, tail + 7)
        val += (
            min(state.rerolls, 10) / 10.0,
            state.steps / 4.0,
            state.ky_steps * self._ky_norm,
            float(state.interrupt),
            min(state.round / state.options.max_rounds, 1.0),
            float(state.options.hunter_turns),
        )
        hot.append(tail + 4 + n - 2)
        obs = self._h_template.copy()
        obs.put(hot, 1.0)
        obs.put(at, val)
        if self._features and acting == me and state.phase in (PH_RESET, PH_CHOOSE, PH_DIR):
            # Action features: only for my own decision (they read the acting piece's hand).
            obs[self._h_features :] = hunter_action_features(state).reshape(-1)
        return obs

    def _observe_kyonshi(self, state: GangsiState) -> np.ndarray:
        size = self._size
        lives, revealed, maybe, acting = state.lives, state.revealed, state.maybe, state.acting
        n = state.n
        known = 0
        for mask in revealed:
            known |= mask
        hot = list(self._unrevealed_cells(known))
        hot.append(6 * size + state.ky)
        at: list[int] = []
        val: list[float] = []
        vec = self._k_vec
        for j in range(n):
            base = vec + K_SLOT * j
            if lives[j] > 0:
                hot.append(base)
            shown, share = _cards(revealed[j])
            hot += [base + 2 + t for t in shown]
            count = base + 2 + NUM_TREASURES
            if acting == j:
                hot.append(count + 1)
            if state.last_face[j] >= 0:
                hot.append(count + 3 + state.last_face[j])
            at += (base + 1, count, count + 2, count + 3 + NUM_MOVE_FACES + 1)
            val += (lives[j] / 3.0, share, min(state.since[j], 20) / 20.0, maybe[j].bit_count() / size)
        # The tail: tokens, phase, aside, re-rolls, declared face, Kyonshi steps, interrupt, round,
        # hunter count, hunter_turns.
        tail = self._k_tail
        at.append(tail)
        val.append(min(state.tokens / state.threshold, 1.0))
        hot.append(tail + 1 + state.phase)
        tail += 1 + NUM_PHASES
        hot.append(tail + state.aside)
        tail += 6
        rerolls = tail
        tail += 1
        if state.face >= 0:
            hot.append(tail + state.face)
        tail += NUM_MOVE_FACES
        at += (rerolls, tail, tail + 1, tail + 2, tail + 6)
        val += (
            min(state.rerolls, 10) / 10.0,
            state.ky_steps * self._ky_norm,
            float(state.interrupt),
            min(state.round / state.options.max_rounds, 1.0),
            float(state.options.hunter_turns),
        )
        hot.append(tail + 3 + n - 2)
        obs = self._k_template.copy()
        obs.put(hot, 1.0)
        obs.put(at, val)
        # Planes 7.. : every piece's possibility set (a bit mask of cells), joined into one mask of
        # consecutive planes and unpacked in one call.
        sets = 0
        for j in reversed(range(n)):
            sets = sets << size | maybe[j]
        packed = np.frombuffer(sets.to_bytes((n * size + 7) // 8, "little"), dtype=np.uint8)
        obs[7 * size : (7 + n) * size] = np.unpackbits(packed, count=n * size, bitorder="little")
        if self._features and state.phase == PH_KY_MOVE:
            obs[self._k_features :] = kyonshi_action_features(state, self._ranks).reshape(-1)
        return obs

    def draw(self, state: GangsiState, view: int | None = None) -> Any:  # type: ignore[override]
        """A picture of ``state`` (``PIL.Image.Image``); ``view=0`` is the Kyonshi's (possibility sets
        instead of hunter squares, no hands, no rolled faces), a hunter id that hunter's view."""
        from boardenvs.gangsi.draw import draw_state

        return draw_state(self, state, view)

    def action_places(self, state: GangsiState, view: int | None = None) -> dict[int, Place]:  # type: ignore[override]
        """Where each legal move has its place on ``draw(state, view)``
        (:func:`boardenvs.gangsi.draw.action_places`)."""
        from boardenvs.gangsi.draw import action_places

        return action_places(self, state, view)

    def treasure_name(self, t: int) -> str:
        """The code of treasure ``t`` (e.g. ``"A1"``)."""
        return TREASURE_CODES[t]


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``gangsi_v0`` AEC environment; see the module docstring."""

    game_class = GangsiGame
    metadata = {**BoardGameEnv.metadata, "name": "gangsi_v0"}


def env(**kwargs: object) -> raw_env:
    """``gangsi_v0`` with PettingZoo's standard wrappers (an illegal move loses the game with -1)."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
