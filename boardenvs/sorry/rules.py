"""Sorry! (three-pawn edition): the pure rules of ``sorry_v0`` (``docs/rules/sorry.md``).

Rule ids (S1-S24) are cited where they are implemented. Only numpy-free standard Python here: a
state is a flat list of pawn positions, a :class:`~boardenvs.core.deck.Deck`, the drawn card and a few
counters, so :meth:`SorryState.clone` is cheap.

Turn structure: a chance node draws a card (S1; the deck is reshuffled from the discards when the
draw pile runs out), then the player to move picks one legal use of the card (S16), or passes when
none exists or when the 11 allows forfeiting (S13). Play passes left (clockwise).

Action encoding (``Discrete(79)``), from the mover's point of view; opponents are named by their seat
offset ``o`` (1 = next to the left) so that one network can play every seat:

====== ============================= =====================================================
id     action                        meaning
====== ============================= =====================================================
0-2    ``FORWARD + i``               pawn ``i`` forward by the card's value (1, 2, 3, 5, 7, 8,
                                     10, 11, 12; 4 for the Sorry! card); from Start too (S5, S6)
3-5    ``BACKWARD + i``              pawn ``i`` backward by 4 (card 4) or 1 (card 10)
6-41   ``SPLIT + 6 q + (k - 1)``     7 split (S14): ordered pair ``q`` of ``SPLIT_PAIRS``
                                     ``(i, j)``, pawn ``i`` forward ``k``, then ``j`` ``7 - k``
42-68  ``SWITCH + 9 i + 3 (o-1) + m`` 11: switch pawn ``i`` with pawn ``m`` of seat offset ``o``
69-77  ``SORRY + 3 (o - 1) + m``     Sorry!: a pawn from Start onto pawn ``m`` of seat offset ``o``
78     ``PASS``                      forfeit: only when nothing else is legal, or S13
====== ============================= =====================================================

Pawns in Start are interchangeable, so a move out of Start always names the lowest-numbered pawn in
Start (S24), and a Sorry! always uses that pawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from boardenvs.core.deck import Deck
from boardenvs.core.dice import uniform_outcomes
from boardenvs.core.fields import Fields, check_playable, flag, integer, integers
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State
from boardenvs.sorry import board
from boardenvs.sorry.board import HOME, SAFE_BASE, SLIDES, START, TRACK_LEN
from boardenvs.sorry.cards import BACKWARD, CARD_COUNTS, CARD_NAMES, ELEVEN, FORWARD, SEVEN, SORRY

PAWNS = 3
FORWARD_ACTION = 0
BACKWARD_ACTION = 3
SPLIT = 6
SPLIT_PAIRS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
SWITCH = 42
SORRY_ACTION = 69
PASS = 78
NUM_ACTIONS = 79


def all_home(pos: list[int], player: int) -> bool:
    """Object (sorry.md): all three of ``player``'s pawns are Home in positions ``pos``, the win."""
    return pos[PAWNS * player : PAWNS * player + PAWNS].count(HOME) == PAWNS


#: S23 (the env's reading, recorded in sorry.md): colours by player count when ``colors`` is not given;
#: (0, 2) with two players, so that both see the same board, and (0, 1, 2) with three.
DEFAULT_COLORS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}


@dataclass(frozen=True)
class SorryOptions:
    """Options of ``sorry_v0``; every DESIGNED or DECIDED value of sorry.md is one of them."""

    #: S20: 2 to 4 players.
    num_players: int = 4
    #: S8: ``"own_color"`` (DECIDED, the seed's rule) or ``"classic"`` (the published rule).
    slide_rule: Literal["own_color", "classic"] = "own_color"
    #: S5: 1 if the start-exit square counts as the first space of a move out of Start, 0 if not.
    start_count_exit_as: Literal[0, 1] = 1
    #: S6: whether a part of a 7 split may bring a pawn out of Start.
    seven_split_can_start: bool = True
    #: Card draws before the game is truncated (no winner, every reward 0).
    max_turns: int = 1000
    #: S21: who draws first: seat 0, or a seat drawn by chance.
    first_player: Literal["seat0", "random"] = "seat0"
    #: S23: the colour (0 Red, 1 Blue, 2 Yellow, 3 Green) of each seat; default by player count.
    colors: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2, 3 or 4, got {self.num_players}")
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")
        if self.colors is not None:
            if len(self.colors) != self.num_players:
                raise ValueError(
                    f"colors needs one colour per player ({self.num_players}), got {self.colors}"
                )
            if len(set(self.colors)) != len(self.colors) or not all(0 <= c <= 3 for c in self.colors):
                raise ValueError(f"colors must be distinct values in 0..3, got {self.colors}")

    @property
    def seat_colors(self) -> tuple[int, ...]:
        """The colour of every seat (S23)."""
        return self.colors if self.colors is not None else DEFAULT_COLORS[self.num_players]


class SorryState(State):
    """A Sorry! position: pawns, deck, drawn card, whose turn, and the turn count."""

    game_name = "sorry_v0"
    __slots__ = (
        "options", "colors", "pos", "deck", "card", "to_move", "turn",
        "winner", "truncated", "choosing_first", "_legal", "_slides", "_fwd", "_back", "_exit",
    )  # fmt: skip

    def __init__(self, options: SorryOptions) -> None:
        self.options = options
        self.colors = options.seat_colors
        #: Position of pawn ``i`` of seat ``p`` at index ``3 p + i`` (see :mod:`board`).
        self.pos = [START] * (PAWNS * options.num_players)
        self.deck = Deck(CARD_COUNTS)
        self.card = -1
        self.to_move = 0
        self.turn = 0
        self.winner = -1
        self.truncated = False
        self.choosing_first = options.first_player == "random"
        self._legal: list[int] | None = None
        self._set_tables()

    def _set_tables(self) -> None:
        """Per-seat lookup tables (derived from the options; shared between clones)."""
        self._slides = tuple(SLIDES[self.options.slide_rule][c] for c in self.colors)
        self._fwd = tuple(board.FORWARD_TABLE[c] for c in self.colors)
        self._back = tuple(board.BACKWARD_TABLE[c] for c in self.colors)
        # S5: a move of n out of Start lands n - start_count_exit_as squares past the start exit.
        self._exit = tuple(board.start_exit(c) - self.options.start_count_exit_as for c in self.colors)

    # -- whose move -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to play the drawn card, CHANCE before a draw, TERMINAL at the end."""
        if self.winner >= 0 or self.truncated:
            return TERMINAL
        if self.card < 0 or self.choosing_first:
            return CHANCE
        return self.to_move

    def is_truncated(self) -> bool:
        """True when ``max_turns`` cards were drawn without a winner."""
        return self.truncated

    def returns(self) -> list[float]:
        """+1 for the winner and -1 for everyone else; all 0 before the end or when truncated."""
        n = self.options.num_players
        if self.winner < 0:
            return [0.0] * n
        return [1.0 if p == self.winner else -1.0 for p in range(n)]

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The first player (S21, option ``random``) or the kind of the card drawn (S1)."""
        if self.current_player() != CHANCE:
            return []
        if self.choosing_first:
            return uniform_outcomes(self.options.num_players)
        return self.deck.chance_outcomes()

    def sample_chance(self, rng: Any) -> int:
        """Exact sampler for the card draw; the first-player draw uses the generic one."""
        if self.choosing_first:
            return super().sample_chance(rng)
        return self.deck.sample(rng)

    # -- moves ------------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Every legal use of the drawn card (S16), or ``[PASS]`` when there is none."""
        if self._legal is None:
            self._legal = self._generate() if self.current_player() >= 0 else []
        return self._legal

    def apply_action(self, action: int) -> None:
        """Apply a chance outcome (first player or card kind) or a use of the drawn card."""
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalActionError("the game is over")
        if player == CHANCE:
            self._apply_chance(action)
            return
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"action {action} is not legal with card {CARD_NAMES[self.card]}; legal: {self._legal}"
            )
        if action != PASS:
            self._execute(self.pos, player, action)
        # Discard the card; reshuffle when the draw pile has run out (S1, "On your turn").
        self.deck.discard(self.card)
        if self.deck.draw_pile_size() == 0:
            self.deck.reshuffle()
        self.card = -1
        self._legal = None
        if all_home(self.pos, player):
            self.winner = player  # Object: all three pawns Home
        elif self.turn >= self.options.max_turns:
            self.truncated = True
        else:
            # S7: no card draws again; play passes to the left (S21).
            self.to_move = (player + 1) % self.options.num_players

    def _apply_chance(self, outcome: int) -> None:
        if self.choosing_first:
            if not 0 <= outcome < self.options.num_players:
                raise IllegalActionError(f"no seat {outcome} to draw first")
            self.to_move = outcome
            self.choosing_first = False
            return
        try:
            self.deck.take(outcome)
        except ValueError as err:
            raise IllegalActionError(str(err)) from err
        self.card = outcome
        self.turn += 1
        self._legal = None

    # -- move generation --------------------------------------------------------------------------
    def _dest_forward(self, player: int, i: int, n: int, pos: list[int]) -> int:
        """Landing square of pawn ``i`` moving ``n`` forward, or -1 (S5, S19, S4)."""
        at = pos[PAWNS * player + i]
        if at >= HOME:
            return -1 if at == HOME else (self._exit[player] + n) % TRACK_LEN
        return self._fwd[player][at][n]

    def _landing_ok(self, player: int, i: int, dest: int, pos: list[int]) -> bool:
        """Landing resolution 1: no landing on an own pawn, except at Home (Occupied spaces)."""
        if dest < 0:
            return False
        if dest == HOME:
            return True
        first = PAWNS * player
        for j in range(PAWNS):
            if j != i and pos[first + j] == dest:
                return False
        return True

    def _land(self, player: int, i: int, dest: int, pos: list[int]) -> int:
        """Put pawn ``i`` on ``dest``: bump an opponent there, then slide if it is a triangle the
        pawn slides from (landing resolution 2-3; S8, S9, S10). Returns the slides taken (0 or 1)."""
        pos[PAWNS * player + i] = dest
        if dest >= TRACK_LEN:
            return 0
        mover = PAWNS * player + i
        if pos.count(dest) > 1:  # another pawn is there (the scan in C spares the loop most moves)
            for k in range(len(pos)):
                if k != mover and pos[k] == dest:
                    pos[k] = START  # Jumping and bumping: the opponent goes back to its Start
        slide = self._slides[player][dest]
        if slide is not None:
            end, squares = slide
            for k in range(len(pos)):
                if k != mover and pos[k] < TRACK_LEN and pos[k] in squares:
                    pos[k] = START  # S9: every pawn on the slide, own ones included
            pos[mover] = end
            return 1
        return 0

    def _movable(self, player: int, pos: list[int]) -> list[int]:
        """Pawns that may be named: not Home, and of the pawns in Start only the lowest (S24)."""
        first = PAWNS * player
        out = []
        seen_start = False
        for i in range(PAWNS):
            at = pos[first + i]
            if at == HOME:
                continue
            if at == START:
                if seen_start:
                    continue
                seen_start = True
            out.append(i)
        return out

    def _generate(self) -> list[int]:
        player = self.to_move
        card = self.card
        pos = self.pos
        first = PAWNS * player
        actions: list[int] = []
        movable = self._movable(player, pos)
        fwd = FORWARD[card]
        forward_moves = []
        if fwd:
            for i in movable:
                if self._landing_ok(player, i, self._dest_forward(player, i, fwd, pos), pos):
                    forward_moves.append(FORWARD_ACTION + i)
        actions += forward_moves
        back = BACKWARD[card]
        if back:
            table = self._back[player]
            for i in movable:
                at = pos[first + i]
                if at != START and self._landing_ok(player, i, table[at][back], pos):
                    actions.append(BACKWARD_ACTION + i)
        if card == SEVEN:
            actions += self._splits(player)
        elif card == ELEVEN:
            switches = self._switches(player)
            actions += switches
            if not forward_moves:
                actions.append(PASS)  # S13: no forward 11, so the switch may be declined
        elif card == SORRY:
            actions += self._sorry_targets(player)
        if not actions:
            return [PASS]  # "If at any time you cannot move, you forfeit your turn."
        actions.sort()
        return actions

    def _splits(self, player: int) -> list[int]:
        """S14: ordered splits (k, 7-k) over two distinct pawns, both halves legal in order."""
        pos = self.pos
        first = PAWNS * player
        can_start = self.options.seven_split_can_start
        movable = self._movable(player, pos)
        in_start = [i for i in range(PAWNS) if pos[first + i] == START]
        out = []
        for q, (i, j) in enumerate(SPLIT_PAIRS):
            at_i, at_j = pos[first + i], pos[first + j]
            if at_i == HOME or at_j == HOME:
                continue
            if at_i == START and at_j == START:
                # S24: both from Start is one move; name the two lowest Start pawns, in order.
                if not can_start or in_start[:2] != [i, j]:
                    continue
            elif (at_i == START and i not in movable) or (at_j == START and j not in movable):
                continue
            elif not can_start and START in (at_i, at_j):
                continue
            for k in range(1, 7):
                d1 = self._dest_forward(player, i, k, pos)
                if not self._landing_ok(player, i, d1, pos):
                    continue
                after = pos[:]
                self._land(player, i, d1, after)
                if not can_start and after[first + j] == START:
                    continue  # S6: the first half slid pawn j back to Start; it may not start now
                d2 = self._dest_forward(player, j, 7 - k, after)
                if self._landing_ok(player, j, d2, after):
                    out.append(SPLIT + 6 * q + k - 1)
        return out

    def _switches(self, player: int) -> list[int]:
        """11: any own pawn on the open track with any opponent pawn on the open track."""
        pos = self.pos
        n = self.options.num_players
        out = []
        for i in range(PAWNS):
            if pos[PAWNS * player + i] >= TRACK_LEN:
                continue
            for o in range(1, n):
                other = (player + o) % n
                for m in range(PAWNS):
                    if pos[PAWNS * other + m] < TRACK_LEN:
                        out.append(SWITCH + 9 * i + 3 * (o - 1) + m)
        return out

    def _sorry_targets(self, player: int) -> list[int]:
        """S15: with a pawn in Start, any opponent pawn on the open track."""
        pos = self.pos
        if START not in pos[PAWNS * player : PAWNS * player + PAWNS]:
            return []
        n = self.options.num_players
        out = []
        for o in range(1, n):
            other = (player + o) % n
            for m in range(PAWNS):
                if pos[PAWNS * other + m] < TRACK_LEN:
                    out.append(SORRY_ACTION + 3 * (o - 1) + m)
        return out

    # -- execution --------------------------------------------------------------------------------
    def _execute(self, pos: list[int], player: int, action: int) -> int:
        """Carry out a legal, non-pass action on ``pos``; returns the slides taken."""
        first = PAWNS * player
        n = self.options.num_players
        if action < BACKWARD_ACTION:
            i = action - FORWARD_ACTION
            return self._land(player, i, self._dest_forward(player, i, FORWARD[self.card], pos), pos)
        if action < SPLIT:
            i = action - BACKWARD_ACTION
            return self._land(player, i, self._back[player][pos[first + i]][BACKWARD[self.card]], pos)
        if action < SWITCH:
            q, k = divmod(action - SPLIT, 6)
            k += 1
            i, j = SPLIT_PAIRS[q]
            slides = self._land(player, i, self._dest_forward(player, i, k, pos), pos)
            return slides + self._land(player, j, self._dest_forward(player, j, 7 - k, pos), pos)
        if action < SORRY_ACTION:
            i, rest = divmod(action - SWITCH, 9)
            o, m = divmod(rest, 3)
            other = PAWNS * ((player + o + 1) % n) + m
            mine = first + i
            # 11 switch: swap; only the mover's pawn may then slide (S10, S12).
            theirs_at = pos[other]
            pos[other] = pos[mine]
            return self._land(player, i, theirs_at, pos)
        o, m = divmod(action - SORRY_ACTION, 3)
        other = PAWNS * ((player + o + 1) % n) + m
        i = pos[first : first + PAWNS].index(START)
        target = pos[other]
        pos[other] = START  # S15: the target returns to its Start
        return self._land(player, i, target, pos)  # S11: a placement on a triangle slides

    def preview(self, action: int) -> tuple[list[int], int]:
        """The pawn positions (as :attr:`pos`) after the player to move plays the legal ``action``,
        and the number of slides it takes (S8-S11); the state is left unchanged.

        Raises:
            IllegalActionError: if it is not a player's turn or ``action`` is not legal.
        """
        player = self.current_player()
        if player < 0 or action not in self.legal_actions():
            raise IllegalActionError(f"action {action} is not a legal move here")
        pos = self.pos[:]
        slides = self._execute(pos, player, action) if action != PASS else 0
        return pos, slides

    # -- copying and serialising ------------------------------------------------------------------
    def clone(self) -> SorryState:
        """An independent copy."""
        new = SorryState.__new__(SorryState)
        new.options = self.options
        new.colors = self.colors
        new.pos = self.pos[:]
        new.deck = self.deck.clone()
        new.card = self.card
        new.to_move = self.to_move
        new.turn = self.turn
        new.winner = self.winner
        new.truncated = self.truncated
        new.choosing_first = self.choosing_first
        new._legal = self._legal
        new._slides = self._slides
        new._fwd = self._fwd
        new._back = self._back
        new._exit = self._exit
        return new

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the exact position."""
        return {
            "game": self.game_name,
            "options": options_to_dict(self.options),
            "pos": self.pos[:],
            "deck": self.deck.to_dict(),
            "card": self.card,
            "to_move": self.to_move,
            "turn": self.turn,
            "winner": self.winner,
            "truncated": self.truncated,
            "choosing_first": self.choosing_first,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SorryState:
        """Rebuild a state written by :meth:`to_dict`, every field checked against the options (a
        missing, unknown or bad field raises :class:`~boardenvs.core.fields.StateDictError` naming it)."""
        f = Fields(data, "sorry_v0 state")
        state = cls(f.options(SorryOptions, cls.game_name))
        n, last = state.options.num_players, state.options.num_players - 1
        v = f.read(
            {
                "pos": integers(PAWNS * n, 0, START, f"{HOME} Home, {START} Start"),
                "card": integer(-1, len(CARD_COUNTS) - 1, "-1: no card drawn"),
                "to_move": integer(0, last),
                "turn": integer(0, state.options.max_turns, "max_turns: card draws"),
                "winner": integer(-1, last, "-1: none yet"),
                "truncated": flag(),
                "choosing_first": flag(),
            }
        )
        held = [int(v["card"] == kind) for kind in range(len(CARD_COUNTS))]  # S1: the drawn card
        state.deck = Deck.read(f.sub("deck"), CARD_COUNTS, outside=held)
        f.finish()
        for key, value in v.items():
            setattr(state, key, value)
        taken: set[Any] = set()
        for i, at in enumerate(state.pos):  # landing resolution 1, bumping: one pawn a square
            square = at if at < TRACK_LEN else (i // PAWNS, at)  # a safety zone is its colour's own
            f.check(at >= HOME or square not in taken, f"pos[{i}]", f"= {at}: another pawn stands there")
            taken.add(square)
        f.check(not (state.truncated and state.winner >= 0), "truncated", "= true, but there is a winner")
        f.check(
            state.winner < 0
            or state.pos[PAWNS * state.winner : PAWNS * state.winner + PAWNS] == [HOME] * PAWNS,
            "winner",
            f"= {state.winner}, whose pawns are not all Home",
        )
        f.check(
            not state.choosing_first or state.options.first_player == "random",
            "choosing_first",
            "= true, but first_player is not 'random' (S21)",
        )
        return check_playable(state, n, "sorry_v0 state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SorryState) and self.to_dict() == other.to_dict()

    # -- text -------------------------------------------------------------------------------------
    def pawn_name(self, player: int, i: int) -> str:
        """E.g. ``"Red 1"``: the colour of ``player`` and the pawn number."""
        return f"{board.COLOR_NAMES[self.colors[player]]} {i}"

    def position_name(self, player: int, at: int) -> str:
        """Readable position of a pawn of ``player``."""
        if at == START:
            return "Start"
        if at == HOME:
            return "Home"
        if at > SAFE_BASE:
            return f"safety {at - SAFE_BASE}"
        return f"square {at}"

    def action_to_string(self, action: int, view: int | None = None) -> str:
        """Describe a use of the drawn card in words, e.g. ``"Red 0 forward 5: Start -> square 7"``, or a
        chance outcome (``"Red (player_0) draws 7"``). Nothing is private (S1): ``view`` changes nothing.

        Raises:
            IllegalActionError: for a chance outcome that names no seat (the first-player draw, S21) or
                no card kind (S1).
        """
        player = self.to_move
        if self.current_player() == CHANCE:
            if self.choosing_first:
                n = self.options.num_players
                if not 0 <= action < n:
                    raise IllegalActionError(
                        f"outcome {action} of the first-player draw (S21) names no seat: seats are 0-{n - 1}"
                    )
                return f"{board.COLOR_NAMES[self.colors[action]]} (player_{action}) goes first"
            if not 0 <= action < len(CARD_NAMES):
                raise IllegalActionError(
                    f"outcome {action} of the card draw (S1) names no card kind: "
                    f"kinds are 0-{len(CARD_NAMES) - 1}"
                )
            who = f"{board.COLOR_NAMES[self.colors[player]]} (player_{player})"
            return f"{who} draws {CARD_NAMES[action]}"
        n = self.options.num_players
        first = PAWNS * player
        pos = self.pos
        if action == PASS:
            return "pass (forfeit the turn)"
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
        after = pos[:]
        if self.current_player() == player and action in self.legal_actions():
            self._execute(after, player, action)
        if action < SPLIT:
            i = action % 3
            if action < BACKWARD_ACTION:
                steps = f"forward {FORWARD[self.card]}"
            else:
                steps = f"backward {BACKWARD[self.card]}"
            return (
                f"{self.pawn_name(player, i)} {steps}: {self.position_name(player, pos[first + i])}"
                f" -> {self.position_name(player, after[first + i])}"
            )
        if action < SWITCH:
            q, k = divmod(action - SPLIT, 6)
            i, j = SPLIT_PAIRS[q]
            return (
                f"split 7: {self.pawn_name(player, i)} forward {k + 1}, then "
                f"{self.pawn_name(player, j)} forward {6 - k}"
            )
        if action < SORRY_ACTION:
            i, rest = divmod(action - SWITCH, 9)
            o, m = divmod(rest, 3)
            return f"switch {self.pawn_name(player, i)} with {self.pawn_name((player + o + 1) % n, m)}"
        o, m = divmod(action - SORRY_ACTION, 3)
        return f"Sorry!: a pawn from Start takes the place of {self.pawn_name((player + o + 1) % n, m)}"

    def render_text(self, view: int | None = None) -> str:
        """The board as a 16x16 picture (2.3 grid rendering) with Start/Home counts and the card.

        Everything on the table is public (the deck order is never stored), so ``view`` changes nothing.
        """
        grid = [["  " for _ in range(16)] for _ in range(16)]
        for t in range(TRACK_LEN):
            r, c = board.grid_cell(t)
            grid[r][c] = " ."
        for side in range(4):
            for tri, _end in board.SLIDE_OFFSETS:
                r, c = board.grid_cell(board.base(side) + tri)
                grid[r][c] = " >"
        for p, color in enumerate(self.colors):
            letter = board.COLOR_LETTERS[color]
            for s in range(1, 6):
                r, c = board.safe_cell(color, s)
                grid[r][c] = " " + letter.lower()
            for i in range(PAWNS):
                at = self.pos[PAWNS * p + i]
                if at < TRACK_LEN:
                    r, c = board.grid_cell(at)
                elif at < HOME:
                    r, c = board.safe_cell(color, at - SAFE_BASE)
                else:
                    continue
                grid[r][c] = f"{letter}{i}"
        lines = ["".join(row) for row in grid]
        for p, color in enumerate(self.colors):
            mine = self.pos[PAWNS * p : PAWNS * p + PAWNS]
            name = board.COLOR_NAMES[color]
            lines.append(f"{name:>6} (player_{p}): Start {mine.count(START)}, Home {mine.count(HOME)}")
        status = f"turn {self.turn}, "
        if self.winner >= 0:
            status += f"{board.COLOR_NAMES[self.colors[self.winner]]} (player_{self.winner}) wins"
        elif self.truncated:
            status += "truncated at max_turns"
        elif self.card >= 0:
            status += f"player_{self.to_move} drew {CARD_NAMES[self.card]}"
        else:
            status += f"player_{self.to_move} to draw"
        lines.append(status)
        return "\n".join(lines)
