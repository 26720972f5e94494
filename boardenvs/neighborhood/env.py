# noqa: D212, D415
"""
# LEAVE this Neighborhood

| Import               | `from boardenvs import neighborhood_v0`                        |
|----------------------|----------------------------------------------------------------|
| Creation             | `neighborhood_v0.env()` or `boardenvs.make("neighborhood_v0")` |
| Actions              | Discrete                                                       |
| Parallel API         | No                                                             |
| Manual Control       | No                                                             |
| Agents               | `agents= ['player_0', 'player_1', 'player_2', 'player_3']`     |
| Agents               | 3 to 5                                                         |
| Action Shape         | (1,)                                                           |
| Action Values        | Discrete(247)                                                  |
| Observation Shape    | (1831,)                                                        |
| Observation Values   | [0, 1]                                                         |

Characters roam a 9x9 neighbourhood of four locations (`board_size`, 9 to 15), moved by a die and a
compass spinner; landing on another character draws a Killer card, landing on a Wild Space a Wild card
of that location. The last character with HP wins. The rules are `docs/rules/neighborhood.md`; rule ids (L1-L26 there,
L27-L40 below) are cited in `boardenvs/neighborhood/rules.py`, the tables in `board.py` and `cards.py`,
and the tests in `tests/neighborhood/`.

Most of a turn is chance (the die and spinner, card draws, roll-offs), resolved by the environment, as
is the setup: the seats' cyclic order around the table (L9: every one of the `(n-1)!` orders equally
likely; outcome `i` is `rules.seatings(n)[i]`, the table read clockwise from seat 0), then the roll for
the first player and the direction of play.
An agent acts only when a rule asks it to decide: which victim (L15), Killer or Wild card (L14), a
vote (L17), and each "choose" on a card: a player, one of two options, a direction, a distance, each
step of a curved path (L24), a square. The same agent may act several times in a row, and a player
whose turn it is not may be asked (a victim's choice, a vote). A decision with one option is applied
automatically, so the agent to act always has at least two legal actions.

### Observation Space

`observation` (float32, shape `(1831,)`) is in the observer's perspective: seat slot `r` is the player
`r` places after the observer around the table, clockwise (L9; absent seats with 3-4 players are all
zero). The board is not rotated (each colour has its own location). Squares are numbered `15 row + col`
whatever the board size (a smaller board uses the top-left corner of that frame), so the shapes do not
depend on the options.

| Index          | Meaning                                                                         |
|----------------|---------------------------------------------------------------------------------|
| 240 r + 0-224  | one-hot square of the character of slot `r` (`15 row + col`; zero once out)      |
| 240 r + 225    | its HP / 10                                                                     |
| 240 r + 226    | still in the game                                                               |
| 240 r + 227-231| its colour one-hot (Silver, Light Blue, Dark Blue, Purple, Yellow)              |
| 240 r + 232-235| location of its pending Wild card (L12), one-hot                                |
| 240 r + 236    | Hire a Thug HP due at its next turn / 3 (capped)                                |
| 240 r + 237    | its next turn is skipped (Curfew)                                               |
| 240 r + 238    | it is its turn                                                                  |
| 240 r + 239    | it is the player to decide now                                                  |
| 1200           | play goes clockwise around the table (1) or counter-clockwise (0) (L9)          |
| 1201           | round / `max_rounds`                                                            |
| 1202-1426      | squares holding a trap I set (L33)                                              |
| 1427-1651      | squares holding a trap set by someone else                                      |
| 1652-1699      | cards of each kind left in its draw pile / cards of that kind in the deck (public count; the 48 kinds are the Killer deck's 12 then the Wild decks' 9 each, in `cards.py` order) |
| 1700-1747      | one-hot of the next card of each deck when it is known (L25: the unseen cards are used up and the used ones lie below in a known order) |
| 1748-1752      | draw pile size / deck size, per deck                                             |
| 1753-1761      | what the player to move is asked (victim, Killer or Wild, vote, player, option, direction, distance, path step, square) |
| 1762-1809      | the card being resolved (innermost), one-hot over the 48 kinds                  |
| 1810-1829      | its roles by seat slot, one-hot: ME (who follows it), K, V, and T (the chosen player) |
| 1831 - 1       | steps of the current curved path taken / 5                                      |

With the option `action_features=True` the observation is 310 longer (`(2141,)`): **action features**
(`boardenvs/neighborhood/features.py`), set only in the deciding player's observation and only for its
legal actions, zeros elsewhere. Most decisions are the steps of curved paths (L24; about 86 of the 121
decisions of a four-player game between heuristic players), and a step matters only through the squares
the path can still end on, which the one-hot squares leave to be learned; the features spell them out:

| Index              | Meaning                                                                     |
|--------------------|-----------------------------------------------------------------------------|
| 1831 + 12 m + 0-11 | **move features** of move action `m` (0-7 the directions, 8-11 the distances 1-4, 12 stop), at a direction, distance or path-step decision: the character moved is me; an end square holds another character; the highest and the lowest HP / 10 among them; an end is an empty Wild Space of location 0-3; an end is quiet (no character, no Wild Space, no trap of another); an end holds another player's trap; the number of end squares / 10 (capped at 1); the landing triggers cards (L19) |
| 1987 + 7 c + 0-6   | **choice features** of action `225 + c` (every action but a square), at any decision: the action applied to a copy of the state, resolved by the rules up to the next chance event or decision, and the HP it moved (/ 10): the HP I lose, I gain, the opponents lose and gain (means), the opponent with the most HP loses; opponents knocked out / 4; I am knocked out |

The end squares of a move come from `NeighborhoodState.move_ends` (every square the move can still
end on: a path's continuations without revisiting, dead ends included, or the squares of a straight
move). No chance outcome is looked at. The option changes only the encoding, not the rules: a learned
agent trained with it encodes its own observations with it at any table of the same rules
(`ENCODING_OPTIONS`).

#### Legal Actions Mask

`action_mask` (int8, shape `(247,)`) marks the legal actions of the agent to act and is all zeros for
every other agent. It is never all zeros for the agent to act.

### Action Space

| Action    | Meaning                                                                                  |
|-----------|------------------------------------------------------------------------------------------|
| 0-224     | a square `15 row + col` (a trap square, L33; a Subway destination, L35)                   |
| 225-232   | a direction N, NE, E, SE, S, SW, W, NW (a straight card move, Town Gossip, a path step)   |
| 233-236   | move `k` = 1-4 squares (an "up to" straight move: Chase, Eagle's Eye)                    |
| 237-241   | the player `o` places after me around the table (`o` = 0-4; 0 is myself, e.g. Summit Signal) |
| 242, 243  | the first / second choice printed on the card                                            |
| 244, 245  | Killer card / Wild card (L14), or a vote for it (L17)                                    |
| 246       | stop an "up to" curved path here, or decline Chase's optional move                        |

### Rewards

At the end only: the last character with HP +1, every other player -1. A player who is out gets -1 at
once and leaves the game (its agent is terminated while the others play on). Everyone still in going
out in the same effect is a draw among them, 0 each (L22). After `max_rounds` rounds the highest HP
wins, and a tie is a draw among the tied, 0 each, the others -1 (L23; a real ending, not a truncation).

### Options

| Option                  | Default      | Meaning                                                            |
|-------------------------|--------------|--------------------------------------------------------------------|
| `num_players`           | 4            | 3-5                                                                |
| `colors`                | by count     | L27: colour of each seat; (0, 1, 3), (0, 1, 3, 4), (0, 1, 2, 3, 4)  |
| `board_size`            | 9            | L1: squares a side, odd, 9-15 (retuned, 1.1b; was 15)              |
| `spinner`               | 8            | L7: 8 compass points or 4 (also the directions of card moves, L32) |
| `die_faces`             | 6            | L6                                                                 |
| `triple_arrival_killer` | `"lower"`    | L18: the lower roller is the Killer (SEED), or `"higher"`          |
| `max_rounds`            | 60           | L23 (retuned, 1.1b: kept, see below)                               |
| `chain_depth`           | 3            | L19: deepest landing that still triggers a card                    |
| `killer_counts`         | see below    | L10: count of each of the 12 Killer card kinds (retuned, 1.1b)     |
| `wild_counts`           | see below    | L11: counts of the 9 kinds of each Wild deck (retuned, 1.1b)       |
| `wild_spaces`           | by size      | L3: the Wild Spaces of each location (retuned, 1.1b: see below)    |
| `start_squares`         | by size      | L5: the Start square of each colour, beside the star               |
| `action_features`       | False        | not a rule: append the action features to the decider's observation (above) |

The board (L1, L2) is `board_size` squares a side: the quadrants are the locations, the middle row and
column the roads, the middle square the star; the Start squares (L5) sit beside it on their colour's
side (on 9x9: Silver (3, 3), Light Blue (3, 5), Dark Blue (4, 5), Purple (5, 5), Yellow (5, 3)).
`wild_spaces` and `start_squares` left out are derived from the size; given, they must lie on it.
A Start square may also be a Wild Space (L5): on the default board every one but Dark Blue's is, so
with four players everyone starts on a Wild Space. Starting there at setup triggers nothing; landing
there later (a turn move or a card move) triggers the Wild Space as anywhere else.

### Balance: the retuned values (neighborhood.md 1.1b, issue 15)

The first design (15x15, six Wild Spaces per location, a 24-card Killer deck, four 12-card Wild decks)
was not a real game: every game reached the 60-round cap and 41-44% were drawn. The DESIGNED values
below were retuned, keeping every SEED rule and every card kind, and measured with
`nice -n 5 boardenvs-balance --game neighborhood_v0 --num-players 3 4 5 --check` (seed 0; per player
count 1000 games with the heuristic in every seat and 1000 with the heuristic in one rotated seat
against random players; 1075 s on the shared 2-core machine):

| Players | Ends by elimination | L23 cap | Draws | Rounds: median (p10-p90) | Decisions (median) | Eliminations | HP lost to Killer / Wild cards | Killer share | Heuristic vs random (even share) |
|---|---|---|---|---|---|---|---|---|---|
| 3 | 100.0% | 0.0% | 1.5% | 17 (11-27) | 77.5 | 2.02 | 22.9 / 13.8 | 62.4% | 0.795 [0.769, 0.819] (0.331) |
| 4 | 100.0% | 0.0% | 1.3% | 21 (14-32) | 120 | 3.01 | 32.1 / 22.2 | 59.1% | 0.675 [0.645, 0.703] (0.248) |
| 5 | 99.5% | 0.5% | 0.9% | 25 (17-37) | 178 | 4.00 | 38.2 / 35.0 | 52.2% | 0.685 [0.656, 0.713] (0.198) |

(Draws are L22's simultaneous last eliminations, plus one 5-player cap tie; the intervals are 95%
Wilson intervals; HP lost are means per game.) Every target of README "Balance targets" and of 1.1b is
met at every count. The chosen values:

* **L1** `board_size=9` (was 15): the first lever for encounters, the smallest size 1.1b allows.
  With the first design's decks, random players in every seat and the Wild Spaces below (400
  four-player games each), 0%, 2% and 6% of games ended before the cap on 15x15, 11x11 and 9x9, with
  2.9, 5.0 and 6.2 Killer cards a game (the first design itself: 0% and 4.0).
* **L3** Wild Spaces: every square of a location on the board's edge or beside a road (12 per location
  on 9x9, 48 of the 81 squares; 16, 20, 24 per location on 11x11, 13x13, 15x15), so that the decks'
  attack cards (Shortcut, Eagle's Eye) come often and lead to most encounters. Tried with the final
  decks' forerunner (four-player heuristic games): a checkerboard
  (8 per location) ended 70% of games within 60 rounds (median 48), the ring 93% (median 34), every
  location square (16 per location) 88% (median 32), 60 games each. With the final decks a Wild card
  comes 0.81-0.89 times a turn and a Killer card 0.18-0.22 times (300 heuristic games per count).
* **L10** Killer deck, 25 cards, counts in `cards.py` order (Ambush, Knife in the Dark, Mug, Your Money
  or Your Life, Mercy, Showdown, Chase, Flee, Self-Defence, Hostage, Double-Cross, Frenzy):
  (4, 3, 1, 2, 1, 3, 3, 1, 1, 2, 1, 3), was (3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1): more damage per
  card and fewer steals and heals (Mug, Mercy), so that encounters end games.
* **L11** Wild decks, counts in `cards.py` order (Shortcut, First Aid, Bad Luck, Crossroads, then the
  location's five kinds): Mountains (8, 1, 1, 1, 3, 3, 1, 1, 1) (20 cards), Village
  (8, 1, 1, 1, 1, 1, 1, 1, 2) (17), City (8, 1, 1, 1, 1, 4, 2, 2, 1) (21), Forest
  (8, 1, 1, 1, 1, 3, 1, 1, 1) (18); each was 12 cards with 2 Shortcuts. One copy of each heal (First
  Aid, Healer's Hut, Market Deal, Berries, Campfire: HP gained was 25-60 a game), more damage to
  opponents (Avalanche, Alley Fight, Hire a Thug) and 8 Shortcuts, the Wild card that leads to
  encounters: along the way, with 4, 5, 6 and 8 Shortcuts (other counts changing too) the five-player
  median was 42, 28, 29 and 26 rounds and the Killer share 45%, 42%, 46% and 51% (40-100 games).
* **L23** `max_rounds=60` kept: the cap ends 0-0.5% of games. A 40-round cap would have ended 0%, 2.7%
  and 4.3% of the 3-, 4- and 5-player games, a 50-round one 0%, 0.7% and 1.0% (300 games per count).

Random players in every seat (the second line; 400 games per count) end 69%, 56% and 57% of the 3-, 4-
and 5-player games by elimination (median 49-57 rounds) with a Killer share of 14-20%: they land on one
another about once in 48 turns (a Killer card 0.021 times a turn on 9x9 with four players), and at that
rate no deck meeting the other targets can make Killer cards 40% of the HP lost; the 1.1b targets are
met by players that use the attack cards (the heuristic).

Roles (colours, heuristic in every seat) are near the even share with one exception: Yellow wins 0.310
[0.282, 0.339] of four-player games (even 0.25) and 0.241 [0.216, 0.268] of five-player ones (0.20);
Wolf at 2 or 1 copies did not change that beyond the noise of 400-600 games, so the measured decks
stand (no target covers colours).

### Rules added here (the specification was silent)

* **L27** (DESIGNED) default colours by player count: 3 Silver, Light Blue, Purple; 4 adds Yellow; 5 all.
* **L28** whose colour selects a colour line: a Wild card's drawer; on Killer cards the character the
  line favours: Knife in the Dark the Killer, Flee and Self-Defence the Victim, Showdown either.
* **L29** a player holds at most one pending Wild card; landing on another Wild Space outside their
  turn keeps the first one.
* **L30** a card that moves the player whose turn it is onto a Wild Space draws that Wild card at once
  (as L13; Subway says not to); anyone else moved onto one plays it on their next turn (L12).
* **L31** "toward" an opponent: a direction within 45 degrees of the straight line to them.
* **L32** card directions come from the spinner's compass (8 or 4 points); Lost's spin re-spins like
  L8; the die and the spinner of a turn are one joint chance node (no decision comes between them).
* **L33** a trap card sets that location's one trap on a chosen square of it (a second card moves it).
  It springs on the next character other than its setter to land there, turn move or card move, at
  any depth: 2 HP, before that landing's encounter or Wild card; then it is removed.
* **L34** start of a turn: Hire a Thug's HP is lost first (out: no turn), then a Curfew skips the whole
  turn (a pending Wild card waits), then the pending Wild card replaces the roll (L12).
* **L35** a "choose" with one candidate is automatic; with none, effects on the chosen player do
  nothing (Hostage: only V loses 1; Double-Cross, Eagle's Eye, Alley Fight, yellow Wolf: no effect).
  Subway goes to a Wild Space outside the City, other than the mover's own square.
* **L36** simultaneous arrivals (only Town Gossip moves several characters; Summit Signal moves one,
  so L19 applies to it) are resolved square by square in play order of their first arrival from the
  player whose turn it is, each square from the snapshot of the board at the move (L16: the characters
  that stood there and did not move are the Victims; a character brought there since by a card of an
  earlier square takes no part); with three or more arriving on one square, the roll-off's Killer picks
  the Victim among the other arrivals.
* **L37** the L17 vote is asked in play order and the first Killer vote settles it; if all vote Wild,
  each plays that location's Wild card on their next turn (the arrivals are never the player whose
  turn it is), so no roll-off is needed.
* **L38** a trap under several simultaneous arrivals springs on the first of them in play order who
  did not set it.
* **L39** depth (L19): the turn's own move or pending Wild card is depth 1, each card move one more; a
  landing deeper than `chain_depth` triggers no card (not even a pending Wild card); traps still spring.
* **L40** a draw from a deck whose every card is in play draws nothing (custom small decks only).

### Version History

* v0: first release (boardenvs 0.1.0)
* v0: `render_mode` `"rgb_array"` (a Pillow picture of the board, 900 x 690) and `"human"` (shown in a window) beside `"ansi"`
* v0 (issue 15, no release yet, so the id stays): the DESIGNED values retuned to neighborhood.md 1.1b
  (figures above): a 9x9 board (new option `board_size`, 9-15), Wild Spaces ringing each location
  (12 per location), a 25-card Killer deck heavy on damage and Wild decks with 8 Shortcuts each;
  `max_rounds` stays 60. The first design is still playable: `board_size=15,
  wild_spaces=board.FIRST_WILD_SPACES, killer_counts=cards.FIRST_KILLER_COUNTS,
  wild_counts=cards.FIRST_WILD_COUNTS`. Rule fixes: L16/L17, a Town Gossip move's encounters are
  decided from the snapshot of the board at the move (a character moved onto an empty square was made
  the Killer of a later card-driven arrival and drew a second Killer card; a pair arriving together lost
  its L17 roll-off when someone had come since); L9, the seats' cyclic order around the table is a
  chance event at setup (seat 2 could never play right after seat 0 with four players). The
  observation's seat slots and the "player `o` places after me" actions follow the table.
* v0, revised before any release (issue 18): option `action_features` (off by default): the deciding
  player's observation ends with the move and choice features (310 numbers), for learned agents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardenvs.core.aec import BoardGameEnv, wrap_env
from boardenvs.core.deck import Deck
from boardenvs.core.game import Game, Place
from boardenvs.neighborhood.board import NUM_CELLS
from boardenvs.neighborhood.cards import KIND_OFFSET, NUM_DECKS, NUM_KINDS_TOTAL
from boardenvs.neighborhood.features import (
    CHOICE_ACTIONS,
    CHOICE_FEATURES,
    MOVE_ACTIONS,
    MOVE_FEATURES,
    choice_action_features,
    move_action_features,
)
from boardenvs.neighborhood.rules import (
    D_DIRECTION,
    D_DISTANCE,
    D_PATH,
    F_PROG,
    MAX_HP,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_DECISION_KINDS,
    PROG_BASE,
    NeighborhoodOptions,
    NeighborhoodState,
)

SEAT = 240  # per seat slot: square (225), HP, alive, colour (5), pending (4), thug, skip, turn, decider
_HP, _ALIVE, _COLOR, _PENDING, _THUG, _SKIP, _TURN, _DECIDER = 225, 226, 227, 232, 236, 237, 238, 239
_DIRECTION = SEAT * MAX_PLAYERS  # 1200
_ROUND = _DIRECTION + 1
_MY_TRAPS = _ROUND + 1  # 1202
_OTHER_TRAPS = _MY_TRAPS + NUM_CELLS  # 1427
_PILE = _OTHER_TRAPS + NUM_CELLS  # 1652
_NEXT = _PILE + NUM_KINDS_TOTAL  # 1700
_SIZES = _NEXT + NUM_KINDS_TOTAL  # 1748
_DECISION = _SIZES + NUM_DECKS  # 1753
_CARD = _DECISION + NUM_DECISION_KINDS  # 1762
_ROLES = _CARD + NUM_KINDS_TOTAL  # 1810
_PATH = _ROLES + 4 * MAX_PLAYERS  # 1830
OBS_SIZE = _PATH + 1  # 1831
_CHOICES = OBS_SIZE + len(MOVE_ACTIONS) * MOVE_FEATURES  # 1987
FEATURES_SIZE = _CHOICES + len(CHOICE_ACTIONS) * CHOICE_FEATURES - OBS_SIZE  # 310, with action_features
MOVE_DECISIONS = (D_DIRECTION, D_DISTANCE, D_PATH)


class NeighborhoodGame(Game):
    """``neighborhood_v0``: options, spaces, and the observation encoding of a state."""

    name = "neighborhood_v0"
    Options = NeighborhoodOptions
    state_class = NeighborhoodState

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        counts = self.options.deck_counts
        self._inv_counts = np.zeros(NUM_KINDS_TOTAL, dtype=np.float32)
        for d in range(NUM_DECKS):
            for k, c in enumerate(counts[d]):
                self._inv_counts[KIND_OFFSET[d] + k] = 1.0 / c if c else 0.0
        self._inv_sizes = [1.0 / sum(c) for c in counts]
        # The deck part of the observation (pile counts, known next card, pile sizes) changes only when
        # a card is drawn or put back: it is kept here and re-encoded per deck when the deck differs
        # from the one it was encoded from (compared by content, so any state of this game may ask).
        self._deck_block = np.zeros(_DECISION - _PILE, dtype=np.float32)
        self._deck_kept: list[tuple[list[int], list[int]]] = [([], [])] * NUM_DECKS
        # The seat slots of a player at a table (L9), kept by player, table and colours.
        self._rotations: dict[tuple[int, ...], tuple[list[int], list[int], list[int], list[int]]] = {}
        self._features = self.options.action_features

    def num_actions(self, player: int) -> int:
        """247 actions for every seat."""
        return NUM_ACTIONS

    def observation_shape(self, player: int) -> tuple[int, ...]:
        """``(1831,)`` for every seat (``(2141,)`` with ``action_features``)."""
        return (OBS_SIZE + FEATURES_SIZE,) if self._features else (OBS_SIZE,)

    def new_initial_state(self) -> NeighborhoodState:
        """Everyone on their Start square with 10 HP, the turn-order roll-off (L9) to come."""
        return NeighborhoodState(self.options)

    def observe(self, state: NeighborhoodState, player: int) -> np.ndarray:  # type: ignore[override]
        """``player``'s view: seat slots rotated so that ``player`` comes first."""
        actor = state.current_player()
        hp, alive, pos = state.hp, state.alive, state.pos
        order, slot_of, hot, hp_at = self._rotation(state, player)
        hot = hot[:]  # the colours of the slots; the other entries that are 1 follow
        at = hp_at[:]  # the HP of the slots; the other entries with any value follow (in ``val``)
        val = [hp[p] / MAX_HP for p in order]
        pending, thug, skip = state.pending, state.thug, state.skip
        for r, p in enumerate(order):
            base = SEAT * r
            if alive[p]:
                hot += (base + pos[p], base + _ALIVE)
            if pending[p] >= 0:
                hot.append(base + _PENDING + pending[p])
            if thug[p]:
                at.append(base + _THUG)
                val.append(min(thug[p], 3) / 3.0)
            if skip[p]:
                hot.append(base + _SKIP)
        if state.to_move >= 0:
            hot.append(SEAT * slot_of[state.to_move] + _TURN)
        if actor >= 0:
            hot.append(SEAT * slot_of[actor] + _DECIDER)
        at += (_DIRECTION, _ROUND)
        val += (float(state.direction == 1), min(state.round / state.options.max_rounds, 1.0))
        for cell, owner in zip(state.trap_cell, state.trap_owner, strict=True):
            if cell >= 0:
                hot.append((_MY_TRAPS if owner == player else _OTHER_TRAPS) + cell)
        kind = state.decision_kind()
        if kind >= 0:
            hot.append(_DECISION + kind)
        if state.stack:
            deck, card, roles = state.current_card()
            if deck >= 0:
                hot.append(_CARD + KIND_OFFSET[deck] + card)
            for i, p in enumerate(roles):
                if p >= 0:
                    hot.append(_ROLES + MAX_PLAYERS * i + slot_of[p])
            top = state.stack[-1]
            if top[0] == F_PROG and len(top) > PROG_BASE:
                at.append(_PATH)
                val.append(min(top[12] / 5.0, 1.0))
        kept = self._deck_kept
        for d, deck in enumerate(state.decks):
            unseen, bottom = kept[d]
            if deck.unseen != unseen or deck.bottom != bottom:
                self._encode_deck(d, deck)
                kept[d] = (deck.unseen[:], deck.bottom[:])
        obs = np.zeros(OBS_SIZE + FEATURES_SIZE if self._features else OBS_SIZE, dtype=np.float32)
        obs[_PILE:_DECISION] = self._deck_block
        obs.put(hot, 1.0)
        obs.put(at, val)
        if self._features and actor == player:
            if kind in MOVE_DECISIONS:
                obs[OBS_SIZE:_CHOICES] = move_action_features(state).reshape(-1)
            obs[_CHOICES:] = choice_action_features(state).reshape(-1)
        return obs

    def _rotation(
        self, state: NeighborhoodState, player: int
    ) -> tuple[list[int], list[int], list[int], list[int]]:
        """For ``player`` at ``state``'s table (L9), kept by table: the seat of each slot, the slot of each
        seat, the colour entries of the slots and the indices of their HP."""
        key = (player, *state.table, *state.colors)
        found = self._rotations.get(key)
        if found is None:
            table = state.table
            at = table.index(player)
            order = table[at:] + table[:at]
            slot_of = [0] * len(order)
            for r, p in enumerate(order):
                slot_of[p] = r
            colours = [SEAT * r + _COLOR + state.colors[p] for r, p in enumerate(order)]
            found = self._rotations[key] = (
                order,
                slot_of,
                colours,
                [SEAT * r + _HP for r in range(len(order))],
            )
        return found

    def _encode_deck(self, d: int, deck: Deck) -> None:
        """Deck ``d``'s entries of the kept deck block: its pile counts by kind (unseen and the known
        cards below, L25) over the deck's counts, the next card when known, the pile size."""
        block = self._deck_block
        off = KIND_OFFSET[d]
        counts = deck.draw_pile_counts()
        kinds = slice(off, off + len(counts))
        block[kinds] = counts
        block[kinds] *= self._inv_counts[kinds]
        nxt = slice(_NEXT - _PILE + off, _NEXT - _PILE + off + len(counts))
        block[nxt] = 0.0
        if deck.bottom and deck.unseen_total == 0:
            block[nxt.start + deck.bottom[0]] = 1.0
        block[_SIZES - _PILE + d] = (deck.unseen_total + len(deck.bottom)) * self._inv_sizes[d]

    def draw(self, state: NeighborhoodState, view: int | None = None) -> Any:  # type: ignore[override]
        """A picture of ``state`` (``PIL.Image.Image``, 900 x 690): board, characters, HP, cards, dice.

        ``view=None`` shows everything; a player id shows what that player observes (the setter of a
        trap is shown only if it is that player). Needs Pillow (``boardenvs[render]``).
        """
        from boardenvs.neighborhood.draw import draw_state

        return draw_state(self, state, view)

    def action_places(self, state: NeighborhoodState, view: int | None = None) -> dict[int, Place]:  # type: ignore[override]
        """Where each legal move has its place on ``draw(state, view)``
        (:func:`boardenvs.neighborhood.draw.action_places`)."""
        from boardenvs.neighborhood.draw import action_places

        return action_places(self, state, view)


class raw_env(BoardGameEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env class)
    """The unwrapped ``neighborhood_v0`` AEC environment; see the module docstring."""

    game_class = NeighborhoodGame
    metadata = {**BoardGameEnv.metadata, "name": "neighborhood_v0"}


def env(**kwargs: object) -> raw_env:
    """``neighborhood_v0`` with PettingZoo's standard wrappers (an illegal move loses with -1)."""
    return wrap_env(raw_env(**kwargs))  # type: ignore[return-value]
