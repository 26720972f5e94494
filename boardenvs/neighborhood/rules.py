"""LEAVE this Neighborhood: the pure rules of ``neighborhood_v0`` (``docs/rules/neighborhood.md``).

Rule ids (L1-L26 of the spec, L27-L40 added here where it was silent; see the env docstring) are
cited where they are implemented. Standard Python only: a state is a few lists of ints (HP, positions,
flags), five :class:`~boardenvs.core.deck.Deck` objects and a *resolution stack* of small int lists,
so :meth:`NeighborhoodState.clone` is cheap and :meth:`NeighborhoodState.to_dict` is plain JSON.

How a turn runs. Everything that needs no decision is done by the state itself; it stops only at a
chance node (seating, die, spinner, card draw, roll-off) or at a decision of one player (one micro-action).
The work still to do is a stack of *frames* (lists of ints), resolved depth-first:

* ``SEAT`` then ``SETUP``: the seats' cyclic order around the table (a chance event), then the
  turn-order roll-off (L9);
* ``TURN``: die, spinner (re-spun over the directions that allow movement, L8), straight move, then
  the landing;
* ``LAND`` / ``MULTI`` / ``GROUPS``: what a landing triggers: a trap (L33), an encounter (Killer card;
  victim choice L15; Killer-or-Wild choice L14), a Wild card now (L13, L30) or later (L12), and the
  simultaneous-arrival rules (L16-L18, L36-L38), each square decided from the snapshot of the board
  taken at the move (L16);
* ``ROLLOFF``: dice until one player is highest (or lowest);
* ``DRAW`` then ``PROG``: a card is drawn (a chance node, or the known bottom card, L25) and its
  program of effects (:mod:`boardenvs.neighborhood.cards`) runs op by op; a move inside a card pushes
  the landing on top, so chains resolve depth-first (L19).

Action encoding (``Discrete(247)``); players are named by places around the table from the one deciding:

=========== ================== ============================================================
id          name               meaning
=========== ================== ============================================================
0-224       ``CELL + c``       a square (trap square, Subway destination); ``c = 15 row + col``
225-232     ``DIR + d``        a direction N, NE, E, SE, S, SW, W, NW (card moves, path steps)
233-236     ``DIST + k - 1``   move ``k`` squares (1-4) on an "up to" straight move
237-241     ``PLAYER + o``     the player ``o`` places after the decider around the table (L9; 0: itself)
242 / 243   ``OPTION_A/B``     the first / second choice printed on a card
244 / 245   ``KILLER/WILD``    play the Killer card or the Wild card (L14), or vote so (L17)
246         ``STOP``           end an "up to" curved path here, or decline an optional move
=========== ================== ============================================================
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Literal

import numpy as np

from boardenvs.core.deck import Deck
from boardenvs.core.fields import Fields, check_playable, flag, flags, integer, integers, show
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State
from boardenvs.neighborhood import board
from boardenvs.neighborhood.board import (
    CHEB,
    COLOR_NAMES,
    DIRECTION_NAMES,
    FRAME,
    LOCATION_NAMES,
    NUM_CELLS,
    SPINNER_POINTS,
    board_tables,
    cell_of,
    check_size,
    default_start_squares,
    default_wild_spaces,
    geometry,
    path_ends,
    toward,
)
from boardenvs.neighborhood.cards import (
    BLACK,
    COLOUR,
    DECK_NAMES,
    DECKS,
    DEFAULT_COUNTS,
    KILLER_DECK,
    ME,
    PROGRAMS,
    K,
    V,
)

# -- actions ----------------------------------------------------------------------------------------
CELL = 0
DIR = 225
DIST = 233
PLAYER = 237
OPTION_A = 242
OPTION_B = 243
KILLER = 244
WILD = 245
STOP = 246
NUM_ACTIONS = 247
MAX_HP = 10  # SEED: HP never exceeds 10
MAX_PLAYERS = 5

# -- decision kinds (what the mover is asked; part of the observation) -----------------------------
D_KILLER_OR_WILD, D_VICTIM, D_VOTE, D_PLAYER, D_BRANCH, D_DIRECTION, D_DISTANCE, D_PATH, D_SQUARE = range(9)
NUM_DECISION_KINDS = 9
DECISION_NAMES = (
    "Killer or Wild", "victim", "vote", "choose a player", "choose an option",
    "direction", "distance", "path step", "square",
)  # fmt: skip

# -- chance kinds -----------------------------------------------------------------------------------
CH_DIE, CH_SPIN, CH_DECK, CH_MOVE, CH_SEAT = range(5)

# -- frames: lists of ints, index 0 the kind and index 1 the inbox (a decision or chance answer) -----
F_SETUP, F_TURN, F_DRAW, F_PROG, F_LAND, F_MULTI, F_GROUPS, F_ROLLOFF, F_SEAT = range(9)
# F_SEAT    [kind, inbox]
# F_SETUP   [kind, inbox, stage, p1, roll_0 .. roll_n-1]
# F_TURN    [kind, inbox, stage, die]
# F_DRAW    [kind, inbox, deck, me, k, v, depth]
# F_PROG    [kind, inbox, program, pc, me, k, v, t, depth, deck, card, sub, a, b, path...]
# F_LAND    [kind, inbox, stage, mover, depth, no_wild(, SNAPSHOT, occupant...)]: after a simultaneous
#           move the listed occupants are the only ones "already there" (L16); else whoever is there
# F_MULTI   [kind, inbox, stage, cell, depth, killer, voter, n_occ, occupant..., member...]
# F_GROUPS  [kind, inbox, depth, (cell, n_arrivals, arrival..., n_occ, occupant...)...]
# F_ROLLOFF [kind, inbox, low, m, participant_1 .. participant_m, roll...]
PROG_BASE = 14  # first index of a PROG frame's path cells
SNAPSHOT = 1  # marks a LAND frame whose occupants come from the snapshot of a simultaneous move (L16)

#: L27 (DESIGNED): colours by player count when ``colors`` is not given.
DEFAULT_COLORS = {3: (0, 1, 3), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4)}


@lru_cache(maxsize=4)
def seatings(n: int) -> tuple[tuple[int, ...], ...]:
    """L9: every cyclic order of ``n`` seats, as the table read clockwise from seat 0 (``(n-1)!`` of
    them); the outcome ``i`` of the seating chance node is ``seatings(n)[i]``."""
    return tuple((0, *rest) for rest in itertools.permutations(range(1, n)))


@lru_cache(maxsize=8)
def _spin_table(points: int, size: int) -> tuple[tuple[int, ...], ...]:
    """L8: for each square, the spinner directions in which a character can move at all."""
    ray = geometry(size).ray
    return tuple(tuple(d for d in SPINNER_POINTS[points] if ray[c][d]) for c in range(NUM_CELLS))


@dataclass(frozen=True)
class NeighborhoodOptions:
    """Options of ``neighborhood_v0``; every DESIGNED value of neighborhood.md is one of them."""

    #: 3 to 5 players (SEED).
    num_players: int = 4
    #: L4/L26/L27: the colour (0 Silver, 1 Light Blue, 2 Dark Blue, 3 Purple, 4 Yellow) of each seat.
    colors: tuple[int, ...] | None = None
    #: L7: the spinner's points (8 compass points, or the 4 orthogonal ones); card directions too (L32).
    spinner: Literal[8, 4] = 8
    #: L6: faces of the die (the move, roll-offs and Showdown).
    die_faces: int = 6
    #: L18: who is the Killer when two arrive at once on an occupied square: the lower roller (SEED).
    triple_arrival_killer: Literal["lower", "higher"] = "lower"
    #: L23: rounds before the game ends with the highest HP winning.
    max_rounds: int = 60
    #: L19: deepest landing (1 = the turn's own move) that still triggers cards.
    chain_depth: int = 3
    #: L10: Killer deck, count of each card kind (default the 24-card deck of 1.4).
    killer_counts: tuple[int, ...] | None = None
    #: L11: the four Wild decks (Mountains, Village, City, Forest), count of each card kind.
    wild_counts: tuple[tuple[int, ...], ...] | None = None
    #: L1 (retuned, 1.1b): squares per side of the board, odd, 9 to 15; the locations, roads, Start
    #: squares and Wild Spaces are derived from it.
    board_size: int = 9
    #: L3: the Wild Spaces of each location, as (row, col); None: derived from ``board_size``.
    wild_spaces: tuple[tuple[tuple[int, int], ...], ...] | None = None
    #: L5: the Start square of each colour, as (row, col); None: derived from ``board_size``.
    start_squares: tuple[tuple[int, int], ...] | None = None
    #: Not a rule: the deciding player's observation ends with action features
    #: (``boardenvs/neighborhood/features.py``): where each move can land, the HP each choice moves.
    #: Off by default.
    action_features: bool = False

    #: Options that change only the observation encoding (:func:`boardenvs.core.options.encoding_keys`).
    ENCODING_OPTIONS: ClassVar[tuple[str, ...]] = ("action_features",)

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 5:
            raise ValueError(f"num_players must be 3, 4 or 5, got {self.num_players}")
        if self.colors is not None:
            if len(self.colors) != self.num_players:
                raise ValueError(
                    f"colors needs one colour per player ({self.num_players}), got {self.colors}"
                )
            if len(set(self.colors)) != len(self.colors) or not all(0 <= c <= 4 for c in self.colors):
                raise ValueError(f"colors must be distinct values in 0..4, got {self.colors}")
        if self.die_faces < 1:
            raise ValueError(f"die_faces must be at least 1, got {self.die_faces}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")
        if self.chain_depth < 1:
            raise ValueError(f"chain_depth must be at least 1, got {self.chain_depth}")
        for deck, counts in enumerate(self.deck_counts):
            if len(counts) != len(DECKS[deck]) or any(c < 0 for c in counts) or sum(counts) < 1:
                raise ValueError(
                    f"{DECK_NAMES[deck]} deck counts must be {len(DECKS[deck])} non-negative counts with at "
                    f"least one card, got {counts}"
                )
        check_size(self.board_size)
        size = self.board_size
        wild = self.board_wild_spaces
        if len(wild) != 4:
            raise ValueError(f"wild_spaces needs one list per location (4), got {len(wild)}")
        seen = set()
        for L, spaces in enumerate(wild):
            for r, c in spaces:
                if board.location_of(r, c, size) != L:
                    raise ValueError(
                        f"wild space {(r, c)} is not in the {LOCATION_NAMES[L]} of the {size}x{size} board"
                    )
                if (r, c) in seen:
                    raise ValueError(f"wild space {(r, c)} is given twice")
                seen.add((r, c))
        starts = self.board_start_squares
        if len(starts) != 5 or len(set(starts)) != 5:
            raise ValueError(f"start_squares needs five distinct squares, got {starts}")
        if not all(0 <= r < size and 0 <= c < size for r, c in starts):
            raise ValueError(f"start_squares must be on the {size}x{size} board, got {starts}")

    @property
    def board_wild_spaces(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """The Wild Spaces in play: ``wild_spaces``, or those derived from ``board_size`` (L3)."""
        if self.wild_spaces is not None:
            return self.wild_spaces
        return default_wild_spaces(self.board_size)

    @property
    def board_start_squares(self) -> tuple[tuple[int, int], ...]:
        """The Start squares in play: ``start_squares``, or those derived from ``board_size`` (L5)."""
        if self.start_squares is not None:
            return self.start_squares
        return default_start_squares(self.board_size)

    @property
    def seat_colors(self) -> tuple[int, ...]:
        """The colour of every seat (L26, L27)."""
        return self.colors if self.colors is not None else DEFAULT_COLORS[self.num_players]

    @property
    def deck_counts(self) -> tuple[tuple[int, ...], ...]:
        """Counts per card kind of the five decks (Killer, then the Wild decks by location)."""
        killer = self.killer_counts if self.killer_counts is not None else DEFAULT_COUNTS[0]
        wild = self.wild_counts if self.wild_counts is not None else DEFAULT_COUNTS[1:]
        if len(wild) != 4:
            raise ValueError(f"wild_counts needs one list per location (4), got {len(wild)}")
        return (tuple(killer), *(tuple(w) for w in wild))


class NeighborhoodState(State):
    """A position: HP, positions, flags, five decks, traps, whose turn, and the resolution stack."""

    game_name = "neighborhood_v0"
    __slots__ = (
        "options", "n", "colors", "hp", "pos", "alive", "pending", "thug", "skip", "trap_cell",
        "trap_owner", "decks", "stack", "to_move", "first", "direction", "round", "turns", "started",
        "over", "winner", "draw", "_actor", "_legal", "_dkind", "_chance", "_wild_loc", "_wild_cells",
        "_dirs", "_spin", "last_roll", "table", "_place", "hp_lost", "_geo", "_ray", "_step", "_loc",
    )  # fmt: skip

    def __init__(self, options: NeighborhoodOptions) -> None:
        self.options = options
        self.n = n = options.num_players
        self.colors = options.seat_colors
        self._set_tables()
        self.hp = [MAX_HP] * n  # SEED: everyone starts with 10 HP
        self.pos = [cell_of(*options.board_start_squares[c]) for c in self.colors]  # L5
        self.alive = [True] * n
        self.pending = [-1] * n  # L12: location of a Wild card to play next turn
        self.thug = [0] * n  # Hire a Thug: HP lost at the start of the next turn
        self.skip = [False] * n  # Curfew: the next turn is skipped
        self.trap_cell = [-1] * 4  # L33: the trap of each location's deck (Mountains, Forest)
        self.trap_owner = [-1] * 4
        self.decks = [Deck(c) for c in options.deck_counts]  # L25: shuffled once (unseen multisets)
        #: L9: the seats in their cyclic order around the table (drawn at setup; seat order until then).
        self.table = list(range(n))
        self._place = list(range(n))
        #: HP lost so far to Killer cards and to Wild cards (traps and Hire a Thug are Wild cards), a
        #: statistic for balance reports; no rule reads it.
        self.hp_lost = [0, 0]
        self.stack: list[list[int]] = [[F_SETUP, -1, 0, -1], [F_SEAT, -1]]
        self.to_move = -1
        self.first = -1
        self.direction = 1
        self.round = 0
        self.turns = 0
        self.started = False
        self.over = False
        self.winner = -1
        self.draw: list[int] = []
        #: The last turn move's ``[player, die, direction, turn]`` (die 0: Lost's spin), for pictures.
        self.last_roll = [-1, -1, -1, -1]
        self._actor = CHANCE
        self._legal: list[int] = []
        self._dkind = -1
        self._chance: tuple[int, Any] = (CH_DIE, options.die_faces)
        self._advance()

    def _set_tables(self) -> None:
        """Lookup tables derived from the options (shared between clones)."""
        self._wild_loc, self._wild_cells = board_tables(self.options.board_wild_spaces)
        self._dirs = SPINNER_POINTS[self.options.spinner]
        self._spin = _spin_table(self.options.spinner, self.options.board_size)
        self._geo = geo = geometry(self.options.board_size)
        self._ray, self._step, self._loc = geo.ray, geo.step, geo.location

    # -- whose move -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """The player to decide, CHANCE, or TERMINAL."""
        return TERMINAL if self.over else self._actor

    def is_out(self, player: int) -> bool:
        """True once ``player`` has lost all HP (L21); its return is then final."""
        return not self.alive[player]

    def returns(self) -> list[float]:
        """+1 winner, -1 others; a draw gives 0 to those tied (L22, L23); out players -1 meanwhile."""
        if self.winner >= 0:
            return [1.0 if p == self.winner else -1.0 for p in range(self.n)]
        if self.over:
            return [0.0 if p in self.draw else -1.0 for p in range(self.n)]
        return [0.0 if self.alive[p] else -1.0 for p in range(self.n)]

    def decision_kind(self) -> int:
        """What the player to move is asked (``D_*``), or -1 at chance and terminal nodes."""
        return self._dkind if not self.over and self._actor >= 0 else -1

    def chance_kind(self) -> int:
        """What a chance node draws (``CH_DIE``, ``CH_SPIN``, ``CH_DECK``, ``CH_MOVE``, ``CH_SEAT``), or -1
        at decisions and terminal nodes."""
        return self._chance[0] if not self.over and self._actor == CHANCE else -1

    def wild_location(self, cell: int) -> int:
        """The location whose Wild deck a Wild Space on ``cell`` draws from (L3), or -1 (no Wild Space)."""
        return self._wild_loc[cell]

    def curve_status(self) -> tuple[int, bool, tuple[int, ...]] | None:
        """While a curved path (L24) is being chosen: the steps still allowed, whether it is an "up to"
        path (it may stop after its first step) and the cells visited so far (start first); None at
        any other node."""
        if self.decision_kind() != D_PATH:
            return None
        f = self.stack[-1]
        _, _, steps, up_to = PROGRAMS[f[2]][f[3]]
        return steps - f[12], bool(up_to), tuple(f[PROG_BASE:])

    def move_ends(self, action: int) -> tuple[int, tuple[int, ...], bool]:
        """What a legal ``action`` of a move decision (a card's straight move, its distance, a step or
        the stop of a curved path) does: ``(mover, ends, triggers)``, the character it moves, every
        square the move can still end on after it (L8, L24; one square once the move is fixed), and
        whether that landing triggers cards (L19, L39). ``(-1, (), False)`` for an action that moves no
        one (declining an optional move), for Town Gossip's direction (everyone else moves) and at any
        other decision."""
        kind = self.decision_kind()
        if kind not in (D_DIRECTION, D_DISTANCE, D_PATH) or action not in self._legal:
            return -1, (), False
        f = self.stack[-1]
        op = PROGRAMS[f[2]][f[3]]
        triggers = f[8] + 1 <= self.options.chain_depth
        if kind == D_PATH:
            mover = self._actor
            left, up_to, visited = self.curve_status()  # type: ignore[misc]
            if action == STOP:
                return mover, (visited[-1],), triggers
            nxt = self._step[visited[-1]][action - DIR]
            if left == 1:
                return mover, (nxt,), triggers
            ends = path_ends(self._step, (*visited, nxt), left - 1, up_to, dead_ends=True)
            return mover, tuple(ends), triggers
        if op[0] != "line" or action == STOP:
            return -1, (), False
        _, mrole, _, dist, up_to, _, _ = op
        mover = f[mrole]
        cell = self.pos[mover]
        if kind == D_DISTANCE:
            return mover, (self._ray[cell][f[12]][action - DIST],), triggers
        ray = self._ray[cell][action - DIR]
        top = min(dist, len(ray))
        return mover, (ray[:top] if up_to else (ray[top - 1],)), triggers

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Die faces (index = value - 1), spinner directions, or the card kinds still unseen."""
        if self.over or self._actor != CHANCE:
            return []
        kind, param = self._chance
        if kind == CH_DIE:
            return [(i, 1.0 / param) for i in range(param)]
        if kind == CH_SPIN:
            return [(d, 1.0 / len(param)) for d in param]
        if kind == CH_MOVE:
            faces, dirs = param
            p = 1.0 / (faces * len(dirs))
            return [(8 * i + d, p) for i in range(faces) for d in dirs]
        if kind == CH_SEAT:
            count = len(seatings(param))
            return [(i, 1.0 / count) for i in range(count)]
        return self.decks[param].chance_outcomes()

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Exact sampler (one ``rng.random()`` draw)."""
        kind, param = self._chance
        if kind == CH_MOVE:
            faces, dirs = param
            i = int(rng.random() * faces * len(dirs))
            return 8 * (i // len(dirs)) + dirs[i % len(dirs)]
        if kind == CH_DIE:
            return int(rng.random() * param)
        if kind == CH_SPIN:
            return param[int(rng.random() * len(param))]
        if kind == CH_SEAT:
            return int(rng.random() * len(seatings(param)))
        return self.decks[param].sample(rng)

    # -- decisions --------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending; empty at chance and terminal nodes."""
        if self.over or self._actor < 0:
            return []
        return self._legal

    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or a decision, then resolve everything up to the next node."""
        if self.over:
            raise IllegalActionError("the game is over")
        top = self.stack[-1]
        if self._actor == CHANCE:
            kind, param = self._chance
            if kind == CH_MOVE:
                if not (0 <= action < 8 * param[0] and action % 8 in param[1]):
                    raise IllegalActionError(f"no die face and spinner direction {action}")
                if self._quiet_turn(action):
                    return
                top[1] = action
            elif kind == CH_DIE:
                if not 0 <= action < param:
                    raise IllegalActionError(f"no die face {action}")
                top[1] = action + 1
            elif kind == CH_SPIN:
                if action not in param:
                    raise IllegalActionError(f"direction {action} is not a spinner outcome here: {param}")
                top[1] = DIR + action
            elif kind == CH_SEAT:
                if not 0 <= action < len(seatings(param)):
                    raise IllegalActionError(
                        f"no seating {action}: the outcomes are 0..{len(seatings(param)) - 1}"
                    )
                top[1] = action
            else:
                try:
                    self.decks[param].take(action)
                except ValueError as err:
                    raise IllegalActionError(str(err)) from err
                top[1] = action
        else:
            if action not in self._legal:
                raise IllegalActionError(f"action {action} is not legal; legal: {self._legal}")
            top[1] = action
        self._advance()

    # -- the resolution loop ----------------------------------------------------------------------
    def _advance(self) -> None:
        """Resolve frames until a chance node, a decision or the end of the game."""
        handlers = _HANDLERS
        while not self.over:
            if not self.stack:
                self._next_turn()
                continue
            top = self.stack[-1]
            if handlers[top[0]](self, top):
                return
        self._actor = TERMINAL
        self._legal = []
        self._dkind = -1

    def _ask(self, player: int, kind: int, actions: list[int]) -> bool:
        """Stop for a decision of ``player``; always True (the handler then returns it)."""
        self._actor = player
        self._dkind = kind
        self._legal = sorted(actions)
        return True

    def _roll(self, kind: int, param: Any) -> bool:
        """Stop at a chance node; always True."""
        self._actor = CHANCE
        self._chance = (kind, param)
        self._legal = []
        self._dkind = -1
        return True

    def _take(self, frame: list[int]) -> int:
        """The answer in ``frame``'s inbox (and empty it)."""
        answer = frame[1]
        frame[1] = -1
        return answer

    # -- turns ------------------------------------------------------------------------------------
    def offset(self, player: int, other: int) -> int:
        """How many places ``other`` sits after ``player`` around the table, clockwise (L9)."""
        return (self._place[other] - self._place[player]) % self.n

    def seat_after(self, player: int, places: int) -> int:
        """The seat ``places`` places after ``player`` around the table, clockwise (L9)."""
        return self.table[(self._place[player] + places) % self.n]

    def _order(self, p: int) -> int:
        """Place of seat ``p`` in the play order that starts with the first player (L9)."""
        return ((self._place[p] - self._place[self.first]) * self.direction) % self.n

    def _play_order(self, players: list[int]) -> list[int]:
        """``players`` sorted by play order starting from the player whose turn it is (L36)."""
        place, direction, n = self._place, self.direction, self.n
        base = place[self.to_move if self.to_move >= 0 else self.first]
        return sorted(players, key=lambda p: ((place[p] - base) * direction) % n)

    def _next_turn(self) -> None:
        """The resolution stack is empty: the next living player's turn, or the end at the cap (L23)."""
        if not self.started:
            self.started = True
            self.round = 1
            self._start_turn(self.first)
            return
        cur = self.to_move
        q = cur
        for _ in range(self.n):
            q = self.seat_after(q, self.direction)
            if self.alive[q]:
                break
        if self._order(q) <= self._order(cur):
            if self.round >= self.options.max_rounds:
                self._end_at_cap()
                return
            self.round += 1
        self._start_turn(q)

    def _start_turn(self, p: int) -> None:
        """L34: Hire a Thug's HP first, then Curfew's skip, then a pending Wild card (L12) or the roll."""
        self.to_move = p
        self.turns += 1
        if self.thug[p]:
            self.hp_lost[1] += min(self.thug[p], self.hp[p])  # Hire a Thug is a Wild card
            self.hp[p] = max(0, self.hp[p] - self.thug[p])
            self.thug[p] = 0
            if self._check_out() or not self.alive[p]:
                return
        if self.skip[p]:
            self.skip[p] = False  # Curfew: the whole turn is skipped; a pending Wild card waits (L34)
            return
        if self.pending[p] >= 0:
            # L12: the pending Wild card replaces the whole roll + spin + move.
            loc = self.pending[p]
            self.pending[p] = -1
            self.stack.append([F_DRAW, -1, 1 + loc, p, -1, -1, 1])
            return
        self.stack.append([F_TURN, -1, 0, 0])

    def _quiet_turn(self, outcome: int) -> bool:
        """Fast path of the commonest turn: the move ends on a quiet square (no trap, nobody there,
        no Wild Space) and the next player simply rolls again. Exactly what :meth:`_h_turn`,
        :meth:`_next_turn` and :meth:`_start_turn` would do; False (nothing done) otherwise."""
        p = self.to_move
        pos = self.pos
        ray = self._ray[pos[p]][outcome & 7]
        cell = ray[min((outcome >> 3) + 1, len(ray)) - 1]
        if self._wild_loc[cell] >= 0 or cell in pos or cell in self.trap_cell:
            return False
        n, direction, table, place = self.n, self.direction, self.table, self._place
        q = p
        for _ in range(n):
            q = table[(place[q] + direction) % n]
            if self.alive[q]:
                break
        first = place[self.first]
        new_round = ((place[q] - first) * direction) % n <= ((place[p] - first) * direction) % n
        if (new_round and self.round >= self.options.max_rounds) or self.thug[q] or self.skip[q]:
            return False
        if self.pending[q] >= 0:
            return False
        pos[p] = cell
        self.last_roll = [p, (outcome >> 3) + 1, outcome & 7, self.turns]
        if new_round:
            self.round += 1
        self.to_move = q
        self.turns += 1
        self.stack[-1][1] = -1
        self._chance = (CH_MOVE, (self.options.die_faces, self._spin[pos[q]]))
        return True

    def _end_at_cap(self) -> None:
        """L23: after ``max_rounds`` rounds the highest HP wins; a tie is a draw among the tied."""
        living = [p for p in range(self.n) if self.alive[p]]
        best = max(self.hp[p] for p in living)
        top = [p for p in living if self.hp[p] == best]
        self._finish(top)

    def _finish(self, tied: list[int]) -> None:
        """End the game: one player wins, or a draw among ``tied``; cards in play go under their piles."""
        if len(tied) == 1:
            self.winner = tied[0]
        else:
            self.draw = sorted(tied)
        self.over = True
        for frame in self.stack:
            if frame[0] == F_PROG and frame[9] >= 0:
                self.decks[frame[9]].put_bottom(frame[10])
        self.stack = []

    # -- HP ---------------------------------------------------------------------------------------
    def _count_loss(self, lost: int) -> None:
        """Add HP lost to ``hp_lost``: to the Killer card if the innermost card being resolved is one."""
        if lost > 0:
            for frame in reversed(self.stack):
                if frame[0] == F_PROG and frame[9] >= 0:
                    self.hp_lost[0 if frame[9] == KILLER_DECK else 1] += lost
                    return
            self.hp_lost[1] += lost

    def _change(self, p: int, delta: int) -> None:
        """Gain (capped at 10, the excess discarded) or lose (down to 0) HP; nothing if ``p`` is out."""
        if p >= 0 and self.alive[p]:
            new = min(MAX_HP, max(0, self.hp[p] + delta))
            if new < self.hp[p]:
                self._count_loss(self.hp[p] - new)
            self.hp[p] = new

    def _steal(self, thief: int, victim: int, x: int) -> None:
        """L20: the victim gives min(x, its HP); the thief's excess over 10 goes back to the victim."""
        if thief < 0 or victim < 0 or not (self.alive[thief] and self.alive[victim]) or thief == victim:
            return
        given = min(x, self.hp[victim], MAX_HP - self.hp[thief])
        self.hp[victim] -= given
        self.hp[thief] += given
        self._count_loss(given)

    def _check_out(self) -> bool:
        """L21/L22: eliminate every player at 0 HP; True if the game is over."""
        newly = [p for p in range(self.n) if self.alive[p] and self.hp[p] <= 0]
        if not newly:
            return False
        for p in newly:
            self.alive[p] = False
            self.hp[p] = 0
            self.pos[p] = -1  # L21: off the board at once; pending effects cancelled
            self.pending[p] = -1
            self.thug[p] = 0
            self.skip[p] = False
        living = [p for p in range(self.n) if self.alive[p]]
        if len(living) == 1:
            self._finish(living)
        elif not living:
            self._finish(newly)  # L22: every remaining player out in the same effect: a draw among them
        return self.over

    def _trap(self, p: int) -> bool:
        """L33: a trap on ``p``'s square springs (not on its owner): 2 HP, trap removed. True if over."""
        cell = self.pos[p]
        for L in range(4):
            if self.trap_cell[L] == cell and self.trap_owner[L] != p:
                self.trap_cell[L] = -1
                self.trap_owner[L] = -1
                self.hp_lost[1] += min(2, self.hp[p])  # a trap is a Wild card's (L33)
                self.hp[p] = max(0, self.hp[p] - 2)
                return self._check_out()
        return False

    # -- frame handlers (each returns True when it stops at a node) -------------------------------
    def _h_seat(self, f: list[int]) -> bool:
        """L9: the seats' cyclic order around the table is a chance event (every order equally likely)."""
        if f[1] < 0:
            return self._roll(CH_SEAT, self.n)
        self._set_table(list(seatings(self.n)[self._take(f)]))
        self.stack.pop()
        return False

    def _set_table(self, table: list[int]) -> None:
        self.table = table
        self._place = [0] * self.n
        for i, p in enumerate(table):
            self._place[p] = i

    def _h_setup(self, f: list[int]) -> bool:
        """L9: everyone rolls; the highest is Player 1 (ties re-roll); P1's neighbours around the table
        compare their rolls (a tie between them re-rolls): play goes toward the higher one."""
        n = self.n
        stage = f[2]
        if stage == 0:
            if len(f) - 4 < n:
                if f[1] < 0:
                    return self._roll(CH_DIE, self.options.die_faces)
                f.append(self._take(f))
                return False
            rolls = f[4:]
            top = max(rolls)
            tied = [p for p in range(n) if rolls[p] == top]
            if len(tied) == 1:
                f[3] = tied[0]
                f[2] = 2
            else:
                f[2] = 1
                self.stack.append([F_ROLLOFF, -1, 0, len(tied), *tied])
            return False
        if stage == 1:
            f[3] = self._take(f)
            f[2] = 2
            return False
        p1 = f[3]
        left, right = self.seat_after(p1, -1), self.seat_after(p1, 1)
        if stage == 2:
            rl, rr = f[4 + left], f[4 + right]
            if rl == rr:
                f[2] = 3
                self.stack.append([F_ROLLOFF, -1, 0, 2, left, right])
                return False
            higher = right if rr > rl else left
        else:
            higher = self._take(f)
        self.first = p1
        self.direction = 1 if higher == right else -1
        self.stack.pop()
        return False

    def _h_rolloff(self, f: list[int]) -> bool:
        """Everyone in the roll-off rolls; a tie for the highest (lowest) re-rolls among the tied."""
        m = f[3]
        if len(f) - 4 - m < m:
            if f[1] < 0:
                return self._roll(CH_DIE, self.options.die_faces)
            f.append(self._take(f))
            return False
        parts, rolls = f[4 : 4 + m], f[4 + m :]
        best = min(rolls) if f[2] else max(rolls)
        tied = [p for p, r in zip(parts, rolls, strict=True) if r == best]
        if len(tied) == 1:
            self.stack.pop()
            self.stack[-1][1] = tied[0]
        else:
            f[3:] = [len(tied), *tied]
        return False

    def _h_turn(self, f: list[int]) -> bool:
        """L8: roll N and spin D, move N squares straight (truncated at the edge), then land.

        The die and the spinner are one chance node (no decision comes between them): outcome
        ``8 (N - 1) + D`` over the directions that allow movement only, which is the re-spin of L8.
        """
        p = self.to_move
        if f[1] < 0:
            return self._roll(CH_MOVE, (self.options.die_faces, self._spin[self.pos[p]]))
        outcome = self._take(f)
        self.last_roll = [p, (outcome >> 3) + 1, outcome & 7, self.turns]
        ray = self._ray[self.pos[p]][outcome & 7]
        cell = ray[min((outcome >> 3) + 1, len(ray)) - 1]  # passes through others: only the end counts
        self.pos[p] = cell
        if self._wild_loc[cell] < 0 and self.pos.count(cell) == 1 and cell not in self.trap_cell:
            self.stack.pop()  # a quiet square: nothing to resolve
        else:
            self.stack[-1] = [F_LAND, -1, 0, p, 1, 0]
        return False

    def _h_land(self, f: list[int]) -> bool:
        """What a single arrival triggers: trap (L33), encounter (L14, L15, L19), Wild card (L12, L13)."""
        mover = f[3]
        if not self.alive[mover]:
            self.stack.pop()
            return False
        cell = self.pos[mover]
        stage = f[2]
        if stage == 0:
            if self._trap(mover):
                return False
            if not self.alive[mover] or f[4] > self.options.chain_depth:
                self.stack.pop()  # L19/L39: beyond the depth limit a landing triggers no card
                return False
            f[2] = 1
        if len(f) > 6:  # L16: after a simultaneous move, only those there before it are Victims
            occupants = [q for q in f[7:] if self.alive[q] and self.pos[q] == cell]
        else:
            occupants = [q for q in range(self.n) if q != mover and self.alive[q] and self.pos[q] == cell]
        wild = -1 if f[5] else self._wild_loc[cell]
        if f[2] == 1:
            if occupants and wild >= 0:
                # L14: the arriving player chooses the Killer card or the Wild card, not both.
                if f[1] < 0:
                    return self._ask(mover, D_KILLER_OR_WILD, [KILLER, WILD])
                f[2] = 2 if self._take(f) == KILLER else 3
            elif occupants:
                f[2] = 2
            elif wild >= 0:
                f[2] = 3
            else:
                self.stack.pop()
                return False
        if f[2] == 2:
            # Second arrival is the Killer; with several occupants the arriving player picks one (L15).
            if len(occupants) == 1:
                victim = occupants[0]
            else:
                if f[1] < 0:
                    return self._ask(mover, D_VICTIM, [PLAYER + self.offset(mover, q) for q in occupants])
                victim = self.seat_after(mover, self._take(f) - PLAYER)
            self.stack[-1] = [F_DRAW, -1, KILLER_DECK, mover, mover, victim, f[4]]
            return False
        # A Wild Space: draw now on your own turn (L13, L30), else play it on your next turn (L12).
        if mover == self.to_move:
            self.stack[-1] = [F_DRAW, -1, 1 + wild, mover, -1, -1, f[4]]
        else:
            if self.pending[mover] < 0:
                self.pending[mover] = wild  # L29: one pending Wild card at most; the first one stays
            self.stack.pop()
        return False

    def _h_multi(self, f: list[int]) -> bool:
        """L16-L18, L36-L38: two or more characters arriving on one square at the same time.

        Who was "already there" comes from the snapshot of the board at the move (L16): the frame lists
        them; anyone who arrived since (a card move of an earlier square) is neither arrival nor occupant.
        """
        cell, depth = f[3], f[4]
        first = 8 + f[7]
        snapshot = f[8:first]
        members = [p for p in f[first:] if self.alive[p] and self.pos[p] == cell]
        stage = f[2]
        if stage == 0:
            # L38: a trap springs on the first arrival in play order that did not set it.
            owners = [self.trap_owner[L] for L in range(4) if self.trap_cell[L] == cell]
            if owners:
                hit = [p for p in members if p != owners[0]]
                if hit and self._trap(hit[0]):
                    return False
            members = [p for p in members if self.alive[p]]
            if depth > self.options.chain_depth or not members:
                self.stack.pop()  # L19/L39
                return False
            if len(members) == 1:
                self.stack[-1] = [F_LAND, -1, 1, members[0], depth, 0, SNAPSHOT, *snapshot]
                return False
            f[first:] = members
            f[2] = 1 if self._wild_loc[cell] >= 0 else 3
            return False
        if stage == 1:
            # L17: on a Wild Space the arrivals vote, in play order; any Killer vote means Killer.
            voter = f[6]
            if f[1] < 0:
                return self._ask(members[voter], D_VOTE, [KILLER, WILD])
            if self._take(f) == KILLER:
                f[2] = 3
                return False
            f[6] = voter + 1
            if f[6] < len(members):
                return False
            for p in members:  # L37: all voted Wild: each plays it on their own next turn (L12)
                if self.pending[p] < 0:
                    self.pending[p] = self._wild_loc[cell]
            self.stack.pop()
            return False
        if stage == 3:
            occupied = any(self.alive[q] and self.pos[q] == cell for q in snapshot)
            # L17: the higher roller is the Killer; L18: with a third already there, the lower one.
            low = occupied and self.options.triple_arrival_killer == "lower"
            f[2] = 4
            self.stack.append([F_ROLLOFF, -1, int(low), len(members), *members])
            return False
        if stage == 4:
            f[5] = self._take(f)
            f[2] = 5
        killer = f[5]
        others = [p for p in members if p != killer]
        if len(others) == 1:
            victim = others[0]
        else:  # L36: three or more arrivals: the Killer picks the Victim among the other arrivals
            if f[1] < 0:
                return self._ask(killer, D_VICTIM, [PLAYER + self.offset(killer, q) for q in others])
            victim = self.seat_after(killer, self._take(f) - PLAYER)
        self.stack[-1] = [F_DRAW, -1, KILLER_DECK, killer, killer, victim, depth]
        return False

    def _h_groups(self, f: list[int]) -> bool:
        """L16: after a simultaneous move, resolve each destination square in turn (L36: play order),
        each from the snapshot taken at the move (its arrivals and the characters already there)."""
        if len(f) <= 3:
            self.stack.pop()
            return False
        cell, count = f[3], f[4]
        members = f[5 : 5 + count]
        n_occ = f[5 + count]
        snapshot = f[6 + count : 6 + count + n_occ]
        del f[3 : 6 + count + n_occ]
        members = [p for p in members if self.alive[p] and self.pos[p] == cell]
        if len(members) == 1:
            self.stack.append([F_LAND, -1, 0, members[0], f[2], 0, SNAPSHOT, *snapshot])
        elif members:
            self.stack.append([F_MULTI, -1, 0, cell, f[2], -1, 0, len(snapshot), *snapshot, *members])
        return False

    def _h_draw(self, f: list[int]) -> bool:
        """Draw a card (chance, or the known card under the pile once the unseen ones are used, L25)."""
        deck = self.decks[f[2]]
        if f[1] < 0:
            if deck.draw_pile_size() == 0:
                self.stack.pop()  # L40: every card of that deck is in play: nothing is drawn
                return False
            if deck.next_draw_is_chance():
                return self._roll(CH_DECK, f[2])
            kind = deck.draw_known()
        else:
            kind = self._take(f)
        d, me, k, v, depth = f[2], f[3], f[4], f[5], f[6]
        program = BLACK[d][kind]
        colour = COLOUR[d][kind]
        if colour >= 0:
            # Colour lines replace the black text for that colour; "blue" is both blues (L28).
            card = DECKS[d][kind]
            role = card.colour_role
            who = (me,) if role == "me" else (v,) if role == "V" else (k, v)
            if any(p >= 0 and self.colors[p] in card.colours for p in who):
                program = colour
        self.stack[-1] = [F_PROG, -1, program, 0, me, k, v, -1, depth, d, kind, 0, -1, -1]
        return False

    def _h_prog(self, f: list[int]) -> bool:
        """Run a card's program op by op (:mod:`boardenvs.neighborhood.cards`)."""
        program = PROGRAMS[f[2]]
        if f[3] >= len(program):
            if f[9] >= 0:
                self.decks[f[9]].put_bottom(f[10])  # L25: used cards go to the bottom of their pile
            self.stack.pop()
            return False
        op = program[f[3]]
        return _OPS[op[0]](self, f, op)

    def _next_op(self, f: list[int]) -> None:
        f[3] += 1
        f[11] = 0
        f[12] = f[13] = -1
        del f[PROG_BASE:]

    # -- card effects -----------------------------------------------------------------------------
    def _op_hp(self, f: list[int], op: tuple) -> bool:
        for role, delta in op[1]:
            self._change(f[role], delta)
        self._next_op(f)
        self._check_out()
        return False

    def _op_steal(self, f: list[int], op: tuple) -> bool:
        self._steal(f[op[1]], f[op[2]], op[3])
        self._next_op(f)
        self._check_out()
        return False

    def _op_area_hp(self, f: list[int], op: tuple) -> bool:
        _, loc, delta, include_me = op
        me = f[ME]
        for q in range(self.n):
            if self.alive[q] and self._loc[self.pos[q]] == loc and (include_me or q != me):
                self._change(q, delta)
        self._next_op(f)
        self._check_out()
        return False

    def _op_near_hp(self, f: list[int], op: tuple) -> bool:
        me = f[ME]
        if self.alive[me]:
            here = CHEB[self.pos[me]]
            for q in [q for q in range(self.n) if self.alive[q] and here[self.pos[q]] <= op[1]]:
                self._change(q, op[2])
        self._next_op(f)
        return False

    def _op_steal_area(self, f: list[int], op: tuple) -> bool:
        me = f[ME]
        for q in self._play_order([q for q in range(self.n) if q != me]):
            if self.alive[q] and self._loc[self.pos[q]] == op[1]:
                self._steal(me, q, op[2])
        self._next_op(f)
        self._check_out()
        return False

    def _candidates(self, f: list[int], kind: str, param: int) -> list[int]:
        """Players a ``choose_player`` may name (see :mod:`boardenvs.neighborhood.cards`)."""
        me = f[ME]
        living = [q for q in range(self.n) if self.alive[q]]
        if kind == "any":
            return living
        if kind == "other_than_kv":
            return [q for q in living if q not in (f[K], f[V])]
        opponents = [q for q in living if q != me]
        if kind == "opponent":
            return opponents
        if kind == "in_location":
            return [q for q in opponents if self._loc[self.pos[q]] == param]
        here = CHEB[self.pos[me]]
        if kind == "within":
            return [q for q in opponents if here[self.pos[q]] <= param]
        nearest = min(here[self.pos[q]] for q in opponents)  # "nearest"
        return [q for q in opponents if here[self.pos[q]] == nearest]

    def _op_choose_player(self, f: list[int], op: tuple) -> bool:
        decider = f[op[1]]
        if decider < 0 or not self.alive[decider] or (op[2] != "any" and not self.alive[f[ME]]):
            f[7] = -1
            self._next_op(f)
            return False
        cands = self._candidates(f, op[2], op[3])
        if len(cands) <= 1:
            f[7] = cands[0] if cands else -1  # L35: nobody to choose: effects on T do nothing
        else:
            if f[1] < 0:
                return self._ask(decider, D_PLAYER, [PLAYER + self.offset(decider, q) for q in cands])
            f[7] = self.seat_after(decider, self._take(f) - PLAYER)
        self._next_op(f)
        return False

    def _op_branch(self, f: list[int], op: tuple) -> bool:
        decider = f[op[1]]
        if decider < 0 or not self.alive[decider]:
            self._next_op(f)
            return False
        if f[1] < 0:
            return self._ask(decider, D_BRANCH, [OPTION_A, OPTION_B])
        program = op[2] if self._take(f) == OPTION_A else op[3]
        self._next_op(f)
        self.stack.append([F_PROG, -1, program, 0, f[4], f[5], f[6], f[7], f[8], -1, -1, 0, -1, -1])
        return False

    def _line_dirs(self, f: list[int], mover: int, mode: str) -> list[int]:
        """Directions a straight card move may take: room to move (L8), and L31's "toward"."""
        cell = self.pos[mover]
        dirs = [d for d in self._dirs if self._ray[cell][d]]
        if mode == "toward_T":
            t = f[7]
            if t < 0 or not self.alive[t]:
                return []
            return [d for d in dirs if toward(cell, self.pos[t], d)]
        if mode == "toward_opponent":
            targets = [self.pos[q] for q in range(self.n) if q != mover and self.alive[q]]
            return [d for d in dirs if any(toward(cell, t, d) for t in targets)]
        return dirs

    def _op_line(self, f: list[int], op: tuple) -> bool:
        _, mrole, drole, dist, up_to, mode, optional = op
        mover, decider = f[mrole], f[drole]
        if mover < 0 or not self.alive[mover] or decider < 0 or not self.alive[decider]:
            self._next_op(f)
            return False
        cell = self.pos[mover]
        if f[11] == 0:
            if f[1] < 0:
                dirs = self._line_dirs(f, mover, mode)
                if not dirs:
                    self._next_op(f)
                    return False
                if mode == "spin":
                    return self._roll(CH_SPIN, tuple(dirs))  # L32: Lost re-spins like L8
                actions = [DIR + d for d in dirs] + ([STOP] if optional else [])
                if len(actions) > 1:
                    return self._ask(decider, D_DIRECTION, actions)
                f[1] = actions[0]
            a = self._take(f)
            if a == STOP:
                self._next_op(f)
                return False
            if mode == "spin":
                self.last_roll = [mover, 0, a - DIR, self.turns]
            f[12] = a - DIR
            f[11] = 1
        room = len(self._ray[cell][f[12]])
        if up_to:
            top = min(dist, room)
            if top == 1:
                steps = 1
            elif f[1] < 0:
                return self._ask(decider, D_DISTANCE, [DIST + k - 1 for k in range(1, top + 1)])
            else:
                steps = self._take(f) - DIST + 1
        else:
            steps = min(dist, room)
        self.pos[mover] = self._ray[cell][f[12]][steps - 1]
        depth = f[8]
        self._next_op(f)
        self.stack.append([F_LAND, -1, 0, mover, depth + 1, 0])  # L19: the mover is the second arrival
        return False

    def _op_curve(self, f: list[int], op: tuple) -> bool:
        """L24: a path of king-steps, no square twice, one step per decision; only the end counts."""
        _, mrole, steps, up_to = op
        mover = f[mrole]
        if mover < 0 or not self.alive[mover]:
            self._next_op(f)
            return False
        if f[11] == 0:
            f[11] = 1
            f[12] = 0
            f.append(self.pos[mover])
        done = f[12] >= steps
        if not done:
            cur = self.pos[mover]
            visited = f[PROG_BASE:]
            step = self._step[cur]
            actions = [DIR + d for d in range(8) if step[d] >= 0 and step[d] not in visited]
            if not actions:
                done = True
            else:
                if up_to and f[12] >= 1:
                    actions.append(STOP)
                if f[1] < 0 and len(actions) > 1:
                    return self._ask(mover, D_PATH, actions)
                a = self._take(f) if f[1] >= 0 else actions[0]
                if a == STOP:
                    done = True
                else:
                    nxt = step[a - DIR]
                    self.pos[mover] = nxt
                    f.append(nxt)
                    f[12] += 1
                    return False
        moved = f[12] > 0
        depth = f[8]
        self._next_op(f)
        if moved:
            self.stack.append([F_LAND, -1, 0, mover, depth + 1, 0])
        return False

    def _op_teleport(self, f: list[int], op: tuple) -> bool:
        """Subway: to any Wild Space outside the deck's location (L35); no Wild card there this turn."""
        me = f[ME]
        if not self.alive[me]:
            self._next_op(f)
            return False
        cells = [c for L in range(4) if L != op[1] for c in self._wild_cells[L] if c != self.pos[me]]
        if not cells:
            self._next_op(f)
            return False
        if f[1] < 0 and len(cells) > 1:
            return self._ask(me, D_SQUARE, [CELL + c for c in cells])
        self.pos[me] = self._take(f) - CELL if f[1] >= 0 else cells[0]
        depth = f[8]
        self._next_op(f)
        self.stack.append([F_LAND, -1, 0, me, depth + 1, 1])
        return False

    def _op_gossip(self, f: list[int], op: tuple) -> bool:
        """Town Gossip: everyone else moves 1 square in the chosen direction, all at once (L16)."""
        me = f[ME]
        if not self.alive[me]:
            self._next_op(f)
            return False
        if f[1] < 0:
            return self._ask(me, D_DIRECTION, [DIR + d for d in self._dirs])
        d = self._take(f) - DIR
        # L16: every destination first, then the arrivals grouped by square; the characters that did
        # not move (me, and those at the edge) are the ones already there.
        moved: dict[int, list[int]] = {}
        for q in self._play_order([q for q in range(self.n) if q != me and self.alive[q]]):
            nxt = self._step[self.pos[q]][d]
            if nxt >= 0:  # at the edge: no movement, no landing
                moved.setdefault(nxt, []).append(q)
        for cell, members in moved.items():
            for q in members:
                self.pos[q] = cell
        depth = f[8]
        self._next_op(f)
        if moved:
            groups = [depth + 1]
            everyone = self._play_order(list(range(self.n)))
            for cell, members in moved.items():  # in play order of each square's first arrival
                stayed = [q for q in everyone if self.alive[q] and self.pos[q] == cell and q not in members]
                groups += [cell, len(members), *members, len(stayed), *stayed]
            self.stack.append([F_GROUPS, -1, *groups])
        return False

    def _op_trap(self, f: list[int], op: tuple) -> bool:
        """L33: a trap on a chosen square of the location; a second trap card moves it."""
        me = f[ME]
        if not self.alive[me]:
            self._next_op(f)
            return False
        if f[1] < 0:
            return self._ask(me, D_SQUARE, [CELL + c for c in self._geo.cells_in[op[1]]])
        self.trap_cell[op[1]] = self._take(f) - CELL
        self.trap_owner[op[1]] = me
        self._next_op(f)
        return False

    def _op_showdown(self, f: list[int], op: tuple) -> bool:
        """K and V roll; the lower loses 3 HP; ties go to K, or to the Silver character (colour line)."""
        k, v = f[K], f[V]
        if not (self.alive[k] and self.alive[v]):
            self._next_op(f)
            return False
        if f[11] < 2:
            if f[1] < 0:
                return self._roll(CH_DIE, self.options.die_faces)
            f[12 + f[11]] = self._take(f)
            f[11] += 1
            return False
        rk, rv = f[12], f[13]
        if rk == rv:
            loser = v if op[1] == "K" or self.colors[k] == board.SILVER else k
        else:
            loser = v if rk > rv else k
        self._change(loser, -3)
        self._next_op(f)
        self._check_out()
        return False

    def _op_curfew(self, f: list[int], op: tuple) -> bool:
        t = f[op[1]]
        if t >= 0 and self.alive[t]:
            self.skip[t] = True
        self._next_op(f)
        return False

    def _op_thug(self, f: list[int], op: tuple) -> bool:
        t = f[op[1]]
        if t >= 0 and self.alive[t]:
            self.thug[t] += 1
        self._next_op(f)
        return False

    # -- copying and serialising ------------------------------------------------------------------
    def clone(self) -> NeighborhoodState:
        """An independent copy."""
        new = NeighborhoodState.__new__(NeighborhoodState)
        new.options = self.options
        new.n = self.n
        new.colors = self.colors
        new._wild_loc = self._wild_loc
        new._wild_cells = self._wild_cells
        new._dirs = self._dirs
        new._spin = self._spin
        new.hp = self.hp[:]
        new.pos = self.pos[:]
        new.alive = self.alive[:]
        new.pending = self.pending[:]
        new.thug = self.thug[:]
        new.skip = self.skip[:]
        new.trap_cell = self.trap_cell[:]
        new.trap_owner = self.trap_owner[:]
        new.decks = [d.clone() for d in self.decks]
        new.stack = [f[:] for f in self.stack]
        new.to_move = self.to_move
        new.first = self.first
        new.direction = self.direction
        new.round = self.round
        new.turns = self.turns
        new.started = self.started
        new.over = self.over
        new.winner = self.winner
        new.draw = self.draw[:]
        new.last_roll = self.last_roll[:]
        new.table = self.table[:]
        new._place = self._place[:]
        new.hp_lost = self.hp_lost[:]
        new._geo, new._ray, new._step, new._loc = self._geo, self._ray, self._step, self._loc
        new._actor = self._actor
        new._legal = self._legal
        new._dkind = self._dkind
        new._chance = self._chance
        return new

    _LISTS = (
        "hp", "pos", "alive", "pending", "thug", "skip", "trap_cell", "trap_owner", "draw", "table",
        "hp_lost",
    )  # fmt: skip
    _INTS = ("to_move", "first", "direction", "round", "turns", "winner", "_actor", "_dkind")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the exact position."""
        data: dict[str, Any] = {"game": self.game_name, "options": options_to_dict(self.options)}
        for name in self._LISTS:
            data[name] = list(getattr(self, name))
        for name in self._INTS:
            data[name.lstrip("_")] = getattr(self, name)
        data["started"] = self.started
        data["over"] = self.over
        data["decks"] = [d.to_dict() for d in self.decks]
        data["stack"] = [f[:] for f in self.stack]
        data["last_roll"] = self.last_roll[:]
        data["legal"] = list(self._legal)
        kind, param = self._chance
        data["chance"] = [
            kind,
            [param[0], list(param[1])]
            if kind == CH_MOVE
            else list(param)
            if isinstance(param, tuple)
            else param,
        ]
        return data

    #: Fewest ints in a frame of each kind (``F_SETUP`` .. ``F_SEAT``; see the frame layouts above).
    _FRAME_LENGTHS = (4, 4, 7, PROG_BASE, 6, 8, 3, 4, 2)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NeighborhoodState:
        """Rebuild a state written by :meth:`to_dict`, every field checked against the options (a
        missing, unknown or bad field raises :class:`~boardenvs.core.fields.StateDictError` naming it)."""
        f = Fields(data, "neighborhood_v0 state")
        state = cls.__new__(cls)
        options = state.options = f.options(NeighborhoodOptions, cls.game_name)
        n = state.n = options.num_players
        state.colors = options.seat_colors
        state._set_tables()
        last, cells, turns = n - 1, NUM_CELLS - 1, options.max_rounds * n
        square = "a square, 15 row + col"
        v = f.read(
            {
                "hp": integers(n, 0, MAX_HP, "SEED: at most 10"),
                "pos": integers(n, -1, cells, f"{square}; -1: out (L21)"),
                "alive": flags(n),
                "pending": integers(n, -1, 3, "L12: a Wild deck's location, -1: none"),
                "thug": integers(n, 0, None),
                "skip": flags(n),
                "trap_cell": integers(4, -1, cells, f"{square}; -1: none (L33)"),
                "trap_owner": integers(4, -1, last, "L33: a seat, -1: none"),
                "draw": integers(None, 0, last, "L22: the tied seats"),
                "table": integers(n, 0, last, "L9: the seats around the table"),
                "hp_lost": integers(2, 0, None),
                "to_move": integer(-1, last, "-1: before the first turn"),
                "first": integer(-1, last, "-1: before the roll-off"),
                "direction": integer(-1, 1, "L9: 1 clockwise, -1 counter-clockwise"),
                "round": integer(0, options.max_rounds, "max_rounds, L23"),
                "turns": integer(0, turns, "a turn a player a round"),
                "winner": integer(-1, last, "-1: none"),
                "actor": integer(TERMINAL, last, "-1 chance, -2 over"),
                "dkind": integer(-1, NUM_DECISION_KINDS - 1, "a decision kind, -1: none"),
                "started": flag(),
                "over": flag(),
                "last_roll": integers(
                    4, -1, [last, options.die_faces, 7, turns], "[player, die, direction, turn]"
                ),
                "legal": integers(None, 0, NUM_ACTIONS - 1, "an action"),
            }
        )
        for name in cls._LISTS + cls._INTS + ("started", "over", "last_roll"):
            setattr(state, name, v[name.lstrip("_")])
        state._legal = v["legal"]
        f.list("decks", len(options.deck_counts))
        state.decks = [Deck.read(f.sub("decks", i), counts) for i, counts in enumerate(options.deck_counts)]
        state.stack = []
        for i, frame in enumerate(f.list("stack")):
            frame = f.value(f"stack[{i}]", integers(None, -1, None), frame)
            kind = frame[0] if frame else -1
            f.check(
                F_SETUP <= kind <= F_SEAT and len(frame) >= cls._FRAME_LENGTHS[kind],
                f"stack[{i}]",
                f"= {frame} is not a frame (a kind 0..{F_SEAT} and its fields)",
            )
            state.stack.append(frame)
        state._chance = cls._read_chance(f, state)
        f.finish()
        on_board = state._geo.cells
        for p in range(n):
            alive = state.alive[p]
            f.check(alive == (state.hp[p] > 0), f"alive[{p}]", f"= {alive} with {state.hp[p]} HP (L21)")
            f.check(
                state.pos[p] in on_board if alive else state.pos[p] == -1,
                f"pos[{p}]",
                f"= {state.pos[p]}: a square of the {options.board_size}x{options.board_size} board "
                "while in the game, -1 once out (L21)",
            )
        for L in range(4):
            trap, owner = state.trap_cell[L], state.trap_owner[L]
            f.check(
                (trap < 0) == (owner < 0) and (trap < 0 or trap in on_board),
                f"trap_cell[{L}]",
                f"= {trap} with owner {owner}: a square of the board and its owner, or -1 and -1 (L33)",
            )
        if sorted(state.table) != list(range(n)):
            raise f.fail("table", f"= {state.table} is not an order of the seats 0..{last}")
        state._set_table(list(state.table))
        f.check(state.direction != 0, "direction", "= 0: play goes 1 (clockwise) or -1 (L9)")
        f.check(len(set(state.draw)) == len(state.draw), "draw", f"= {state.draw} names a seat twice")
        f.check(
            state.over == (state._actor == TERMINAL), "actor", f"= {state._actor} with over = {state.over}"
        )
        deciding = state._actor >= 0
        f.check(
            deciding == (state._dkind >= 0), "dkind", f"= {state._dkind}, but the actor is {state._actor}"
        )
        legal = state._legal
        f.check(
            deciding == bool(legal) and legal == sorted(set(legal)),
            "legal",
            f"= {show(legal)}: the ascending legal actions of a player to move, else []",
        )
        return check_playable(state, n, "neighborhood_v0 state")

    @staticmethod
    def _read_chance(f: Fields, state: NeighborhoodState) -> tuple[int, Any]:
        """The ``chance`` field ``[kind, parameter]``: the die's faces, the spinner's directions, a deck,
        both for a turn move, or the number of seats."""
        kind, param = f.list("chance", 2)
        kind = f.value("chance[0]", integer(CH_DIE, CH_SEAT, "a chance kind"), kind)
        faces, directions = state.options.die_faces, integers(None, 0, 7, "a direction")
        if kind == CH_MOVE:
            f.check(
                isinstance(param, (list, tuple)) and len(param) == 2,
                "chance[1]",
                f"= {show(param)} is not [faces, directions]",
            )
            f.value("chance[1][0]", integer(faces, faces, "die_faces"), param[0])
            param = (faces, tuple(f.value("chance[1][1]", directions, param[1])))
            f.check(bool(param[1]), "chance[1][1]", "= []: no direction")
        elif kind == CH_SPIN:
            param = tuple(f.value("chance[1]", directions, param))
            f.check(bool(param), "chance[1]", "= []: no direction")
        else:
            one = {
                CH_DIE: (faces, faces, "die_faces"),
                CH_SEAT: (state.n, state.n, "the seats"),
                CH_DECK: (0, len(DECKS) - 1, "a deck"),
            }[kind]
            param = f.value("chance[1]", integer(*one), param)
        return kind, param

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NeighborhoodState) and self.to_dict() == other.to_dict()

    # -- reading the resolution stack -------------------------------------------------------------
    def current_card(self) -> tuple[int, int, list[int]]:
        """``(deck, kind, [me, k, v, t])`` of the innermost card being resolved, or ``(-1, -1, [])``."""
        roles: list[int] = []
        for frame in reversed(self.stack):
            if frame[0] == F_PROG:
                if not roles:
                    roles = frame[4:8]
                if frame[9] >= 0:
                    return frame[9], frame[10], roles
        return -1, -1, roles

    # -- text -------------------------------------------------------------------------------------
    def player_name(self, p: int) -> str:
        """E.g. ``"Purple (player_2)"``."""
        return f"{COLOR_NAMES[self.colors[p]]} (player_{p})"

    def action_to_string(self, action: int, view: int | None = None) -> str:
        """Describe a decision in words, e.g. ``"victim: Yellow (player_3)"``, or a chance outcome
        (``"die 4, spinner NE"``). Nothing is private (L25: only the deck order): ``view`` changes nothing."""
        if self._actor == CHANCE and not self.over:
            kind, param = self._chance
            if kind == CH_DIE:
                return f"die {action + 1}"
            if kind == CH_SPIN and 0 <= action < len(DIRECTION_NAMES):
                return f"spinner {DIRECTION_NAMES[action]}"
            if kind == CH_MOVE and 0 <= action % 8 < len(DIRECTION_NAMES):
                return f"die {action // 8 + 1}, spinner {DIRECTION_NAMES[action % 8]}"
            if kind == CH_SEAT and 0 <= action < len(seatings(param)):
                order = ", ".join(f"player_{p}" for p in seatings(param)[action])
                return f"seating around the table: {order}"
            if kind == CH_DECK and 0 <= action < len(DECKS[param]):
                return f"draw {DECKS[param][action].name} ({DECK_NAMES[param]})"
            return f"chance outcome {action}"
        mover = self._actor if self._actor >= 0 else 0
        kind = DECISION_NAMES[self._dkind] if 0 <= self._dkind < NUM_DECISION_KINDS else "action"
        if CELL <= action < DIR:
            r, c = divmod(action - CELL, FRAME)
            return f"{kind}: square ({r}, {c})"
        if action < DIST:
            return f"{kind}: {DIRECTION_NAMES[action - DIR]}"
        if action < PLAYER:
            return f"{kind}: {action - DIST + 1} square(s)"
        if action < OPTION_A:
            return f"{kind}: {self.player_name(self.seat_after(mover, action - PLAYER))}"
        names = {OPTION_A: "first option", OPTION_B: "second option", KILLER: "Killer card",
                 WILD: "Wild card", STOP: "stop here"}  # fmt: skip
        return f"{kind}: {names.get(action, f'invalid action {action}')}"

    def render_text(self, view: int | None = None) -> str:
        """The 15x15 board (``*`` Wild Spaces, ``^`` traps, letters characters) and one line each.

        Everything on the table is public (L25: only the deck order is hidden), so ``view`` changes nothing.
        """
        size = self.options.board_size
        grid = [["." for _ in range(size)] for _ in range(size)]
        for c in range(NUM_CELLS):
            if self._wild_loc[c] >= 0:
                grid[c // FRAME][c % FRAME] = "*"
        for c in self.trap_cell:
            if c >= 0:
                grid[c // FRAME][c % FRAME] = "^"
        for p in range(self.n):
            if self.alive[p]:
                c = self.pos[p]
                here = grid[c // FRAME][c % FRAME]
                letter = board.COLOR_LETTERS[self.colors[p]]
                grid[c // FRAME][c % FRAME] = "+" if here in board.COLOR_LETTERS or here == "+" else letter
        lines = [" ".join(row) for row in grid]
        for p in range(self.n):
            status = f"{self.hp[p]:2d} HP" if self.alive[p] else "out"
            extra = []
            if self.pending[p] >= 0:
                extra.append(f"pending {LOCATION_NAMES[self.pending[p]]} Wild card")
            if self.skip[p]:
                extra.append("next turn skipped")
            if self.thug[p]:
                extra.append(f"thug {self.thug[p]}")
            lines.append(f"{self.player_name(p):>22}: {status}" + (f" ({', '.join(extra)})" if extra else ""))
        if self.over:
            if self.winner >= 0:
                lines.append(f"round {self.round}: {self.player_name(self.winner)} wins")
            else:
                lines.append(
                    f"round {self.round}: draw between {', '.join(self.player_name(p) for p in self.draw)}"
                )
        else:
            deck, kind, _ = self.current_card()
            card = f", resolving {DECKS[deck][kind].name} ({DECK_NAMES[deck]})" if deck >= 0 else ""
            who = (
                f"player_{self._actor} to decide ({DECISION_NAMES[self._dkind]})"
                if self._actor >= 0
                else "chance"
            )
            turn = f"{self.player_name(self.to_move)}'s turn" if self.to_move >= 0 else "turn-order roll"
            lines.append(f"round {self.round}, {turn}{card}; {who}")
        return "\n".join(lines)


_HANDLERS = (
    NeighborhoodState._h_setup,
    NeighborhoodState._h_turn,
    NeighborhoodState._h_draw,
    NeighborhoodState._h_prog,
    NeighborhoodState._h_land,
    NeighborhoodState._h_multi,
    NeighborhoodState._h_groups,
    NeighborhoodState._h_rolloff,
    NeighborhoodState._h_seat,
)
_OPS = {
    "hp": NeighborhoodState._op_hp,
    "steal": NeighborhoodState._op_steal,
    "area_hp": NeighborhoodState._op_area_hp,
    "near_hp": NeighborhoodState._op_near_hp,
    "steal_area": NeighborhoodState._op_steal_area,
    "choose_player": NeighborhoodState._op_choose_player,
    "branch": NeighborhoodState._op_branch,
    "line": NeighborhoodState._op_line,
    "curve": NeighborhoodState._op_curve,
    "teleport": NeighborhoodState._op_teleport,
    "gossip": NeighborhoodState._op_gossip,
    "trap": NeighborhoodState._op_trap,
    "showdown": NeighborhoodState._op_showdown,
    "curfew": NeighborhoodState._op_curfew,
    "thug": NeighborhoodState._op_thug,
}
