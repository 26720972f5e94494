"""キョンシー (Gangsi): the pure rules of ``gangsi_v0`` (``docs/rules/gangsi.md``).

Rule ids (K1-K26 of the specification, K27-K34 added here where it reads two ways) are cited where
they are implemented. Only the standard library and numpy; a state is a handful of ints and short
lists (cell sets are Python ints used as bitmasks over the maze's cells), so :meth:`GangsiState.clone`
is cheap.

Players: ``0`` is the Kyonshi; hunter piece ``i`` (0..3) is player ``1 + i``, except in the published
two-player game (``one_controller``, K21) where player ``1`` runs both hunter pieces.

Turn structure (3.3), one decision per action:

1. Dealing: one chance node per card, each hunter one card of every colour (K4).
2. For each living hunter piece in seat order (K22):
   ``RESET?`` (a decision when 1-4 dice are set aside, forced when all 5 are, K16; a reset gives the
   Kyonshi an interrupt move first), then a chance node per die rolled (Kyonshi faces go aside, K15),
   then ``REROLL`` or declare a face (K14, K29; forced re-rolls when no face can move, K13), then the
   direction (one action; with ``hunter_turns`` one action per step, K10), then the mandatory reveal
   (K23) and the fifth-reveal win (K20).
3. The Kyonshi's normal turn: a chance node for its die (K8), then steps ``N/E/S/W`` or ``STOP``,
   up to die + dice set aside (K17); a catch ends the move (K18).

Hunter actions (``Discrete(12)``):

====== =========== ==========================================================================
id     name        meaning
====== =========== ==========================================================================
0      ``KEEP``    do not reset: roll the free dice (only offered beside ``RESET``)
1      ``RESET``   reset the dice set aside (K16); the Kyonshi's interrupt move comes first
2      ``REROLL``  throw every free die again (K14)
3-6    ``FACE+f``  declare the number ``f + 1`` (1-4) and move by it (K10-K12)
7      ``ARROW``   declare the arrow: slide to the square before the nearest obstacle (K12, K24)
8-11   ``DIR+d``   direction ``d`` (north, east, south, west) of the declared move, or of the next
                   step of a number move when ``hunter_turns`` is on
====== =========== ==========================================================================

Kyonshi actions (``Discrete(5)``): ``0-3`` one step north, east, south, west; ``4`` ``STOP``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Literal

from boardenvs.core.fields import Fields, check_playable, flag, integer, integers
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State
from boardenvs.gangsi import cards
from boardenvs.gangsi.board import DEFAULT_MAZE, DIRECTION_NAMES, Maze, get_maze
from boardenvs.gangsi.cards import (
    ARROW,
    COLOR_MASK,
    FACE_STEPS,
    HAND_SIZE,
    HUNTER_FACES,
    KYONSHI_FACE,
    LIVES,
    NUM_COLORS,
    NUM_HUNTER_DICE,
    NUM_MOVE_FACES,
    TOKENS_TO_WIN,
    TREASURE_CODES,
)

KYONSHI = 0
# Hunter actions.
KEEP = 0
RESET = 1
REROLL = 2
FACE = 3  # FACE + f, f = 0..3 the numbers 1..4, f = 4 the arrow
ARROW_ACTION = FACE + ARROW
DIR = 8  # DIR + d
NUM_HUNTER_ACTIONS = 12
# Kyonshi actions.
STEP = 0  # STEP + d
STOP = 4
NUM_KYONSHI_ACTIONS = 5

# Phases.
PH_DEAL, PH_RESET, PH_ROLL, PH_CHOOSE, PH_DIR, PH_KY_ROLL, PH_KY_MOVE, PH_OVER = range(8)
PHASE_NAMES = ("deal", "reset?", "roll", "choose", "direction", "kyonshi roll", "kyonshi move", "over")
NUM_PHASES = 8
#: ``last_face`` of a hunter whose dice ran out without a move (K27).
PASSED = NUM_MOVE_FACES


@dataclass(frozen=True)
class GangsiOptions:
    """Options of ``gangsi_v0``; every DESIGNED or DECIDED value of gangsi.md is one of them.

    ``num_hunters``, ``num_players`` and ``one_controller`` describe the same thing and are filled in
    from each other: ``num_players`` counts agents (the Kyonshi included), so 2 is the published
    two-player game (one controller, two hunter pieces, K21) and 3-5 are 2-4 hunter pieces.
    """

    #: K21: hunter pieces on the board, 2-4 (default 4).
    num_hunters: int | None = None
    #: K21: agents in all (2-5); 2 means ``one_controller`` with two pieces.
    num_players: int | None = None
    #: K21 (PUBLIC): one agent runs both pieces of a two-piece game (the "2 hunters" token row).
    one_controller: bool | None = None
    #: K10 (DECIDED): False = numbers move in one straight line (seed); True = turns allowed, no
    #: square twice in a move (the published game).
    hunter_turns: bool = False
    #: K8 (DESIGNED): faces of the Kyonshi die.
    kyonshi_die: tuple[int, ...] = cards.DEFAULT_KYONSHI_DIE
    #: K26 (DESIGNED): full rounds before the game ends.
    max_rounds: int = 80
    #: K26 (DESIGNED): at the round cap the Kyonshi wins, or (``"truncate"``) the game is truncated.
    round_cap: Literal["kyonshi_wins", "truncate"] = "kyonshi_wins"
    #: K20: a hunter's win pays every other agent -1 (the default), or (``"others_zero"``) the other
    #: hunters 0 and the Kyonshi -1. A Kyonshi win pays the Kyonshi +1 and every hunter -1 either way.
    hunter_win_rewards: Literal["others_minus_one", "others_zero"] = "others_minus_one"
    #: K7 (DESIGNED): the maze: the name of a map of :data:`boardenvs.gangsi.board.MAPS` (``"crypt"``,
    #: the default, or ``"classic"``, the first map of gangsi.md 3.3) or a drawing in that format (its
    #: lines).
    maze: str | tuple[str, ...] = DEFAULT_MAZE
    #: Not a rule: both observations end with action features (``boardenvs/gangsi/features.py``),
    #: what each choice leads to. Off by default: they cost about twice the rest of a step.
    action_features: bool = False
    #: Not a rule: with ``action_features``, the Kyonshi's features also rank its choices
    #: (``boardenvs/gangsi/features.py``).
    action_ranks: bool = False

    #: Options that change only the observation encoding (:func:`boardenvs.core.options.encoding_keys`).
    ENCODING_OPTIONS: ClassVar[tuple[str, ...]] = ("action_features", "action_ranks")

    def __post_init__(self) -> None:
        given_players = self.num_players
        if given_players is not None:
            if not 2 <= given_players <= 5:
                raise ValueError(
                    f"num_players must be 2-5 (the Kyonshi and 1-4 hunters), got {given_players}"
                )
            pieces = 2 if given_players == 2 else given_players - 1
            single = given_players == 2
            if self.num_hunters is not None and self.num_hunters != pieces:
                raise ValueError(
                    f"num_hunters={self.num_hunters} contradicts num_players={given_players} "
                    f"({pieces} hunter pieces)"
                )
            if self.one_controller is not None and self.one_controller != single:
                raise ValueError(
                    f"one_controller={self.one_controller} contradicts num_players={given_players}"
                )
        else:
            pieces = 4 if self.num_hunters is None else self.num_hunters
            single = bool(self.one_controller)
            if not 2 <= pieces <= 4:
                raise ValueError(f"num_hunters must be 2, 3 or 4, got {pieces}")
            if single and pieces != 2:
                raise ValueError(f"one_controller runs exactly two hunter pieces, not num_hunters={pieces}")
        object.__setattr__(self, "num_hunters", pieces)
        object.__setattr__(self, "one_controller", single)
        object.__setattr__(self, "num_players", 2 if single else pieces + 1)
        if not 1 <= len(self.kyonshi_die) <= 12 or not all(0 <= f <= 10 for f in self.kyonshi_die):
            raise ValueError(f"kyonshi_die needs 1-12 faces of 0-10 steps, got {self.kyonshi_die}")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")
        if self.action_ranks and not self.action_features:
            raise ValueError("action_ranks ranks the action features: it needs action_features=True")
        if not isinstance(self.maze, (str, tuple)):
            raise ValueError(f"maze must be a map name or a drawing (a tuple of lines), got {self.maze!r}")
        try:
            get_maze(self.maze)
        except ValueError as err:
            raise ValueError(f"maze: {err}") from err


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


@lru_cache(maxsize=8)
def _walk_table(maze: Maze) -> tuple[tuple[int, ...], ...]:
    """``table[n][cell]``: end squares of every walk of ``n`` squares from ``cell`` that never enters a
    square twice, a wall, the entrance or the coffin (K10 with ``hunter_turns``, K30)."""

    def ends(cell: int, steps: int, visited: int) -> int:
        if steps == 0:
            return 1 << cell
        out = 0
        for nxt in maze.nbr[cell]:
            if nxt >= 0 and maze.enterable[nxt] and not visited >> nxt & 1:
                out |= ends(nxt, steps - 1, visited | 1 << nxt)
        return out

    return tuple(tuple(ends(c, n, 1 << c) for c in range(maze.size)) for n in range(5))


class GangsiState(State):
    """A Gangsi position: pieces, hands, the shared dice, the phase, and the Kyonshi's public belief.

    Public fields kept for the Kyonshi (K9, K32): ``maybe[i]`` is the set (bitmask of cells) of squares
    hunter piece ``i`` may stand on given only what the Kyonshi has seen and heard; ``since[i]`` counts
    moves since it was last known exactly; ``last_face[i]`` is its last declared face.
    ``excluded[i]`` (K33) is the set of treasures piece ``i`` is known by the hunters not to hold.
    """

    game_name = "gangsi_v0"
    __slots__ = (
        "options", "maze", "n", "pos", "lives", "ky", "tokens", "hand", "revealed", "excluded",
        "deal", "aside", "to_roll", "faces", "rerolls", "acting", "phase", "face", "steps", "cur",
        "visited", "ky_steps", "interrupt", "round", "winner", "truncated", "maybe", "since",
        "last_face", "_legal",
    )  # fmt: skip

    def __init__(self, options: GangsiOptions) -> None:
        self.options = options
        self.maze: Maze = get_maze(options.maze)
        n = options.num_hunters
        self.n = n
        m = self.maze
        #: Cell of every hunter piece (the entrance at the start), -1 once eliminated.
        self.pos = [m.entrance] * n
        self.lives = [LIVES] * n
        self.ky = m.coffin  # the Kyonshi starts on its coffin (seed, K19)
        self.tokens = 0
        #: Bitmask of the treasure cards dealt to each piece, and of those revealed.
        self.hand = [0] * n
        self.revealed = [0] * n
        self.excluded = [0] * n
        self.deal = 0
        self.aside = 0
        self.to_roll = 0
        #: Free dice showing each move face (1, 2, 3, 4, arrow) after the last roll.
        self.faces = [0] * NUM_MOVE_FACES
        self.rerolls = 0
        self.acting = 0
        self.phase = PH_DEAL
        self.face = -1
        self.steps = 0
        self.cur = -1
        self.visited = 0
        self.ky_steps = 0
        self.interrupt = False
        self.round = 0
        self.winner = -1
        self.truncated = False
        self.maybe = [1 << m.entrance] * n
        self.since = [0] * n
        self.last_face = [-1] * n
        self._legal: list[int] | None = None

    # -- players ----------------------------------------------------------------------------------
    def player_of(self, piece: int) -> int:
        """The player who moves hunter piece ``piece``."""
        return 1 if self.options.one_controller else 1 + piece

    def pieces_of(self, player: int) -> list[int]:
        """Hunter pieces moved by ``player`` (none for the Kyonshi)."""
        if player == KYONSHI:
            return []
        return list(range(self.n)) if self.options.one_controller else [player - 1]

    @property
    def threshold(self) -> int:
        """Life tokens the Kyonshi needs (the seed's end table)."""
        return TOKENS_TO_WIN[self.n]

    def alive(self, piece: int) -> bool:
        """True while piece ``piece`` has a life token left."""
        return self.lives[piece] > 0

    # -- whose move -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """The Kyonshi (0), the player of the acting hunter piece, CHANCE or TERMINAL."""
        phase = self.phase
        if phase == PH_OVER:
            return TERMINAL
        if phase in (PH_DEAL, PH_ROLL, PH_KY_ROLL):
            return CHANCE
        if phase == PH_KY_MOVE:
            return KYONSHI
        return self.player_of(self.acting)

    def is_truncated(self) -> bool:
        """True when the round cap ended the game with ``round_cap="truncate"``."""
        return self.truncated

    def is_out(self, player: int) -> bool:
        """An eliminated hunter (K25) is out while the others play on, if its return is already final.

        With ``hunter_win_rewards="others_zero"`` its return still depends on who wins, so it is not
        reported out (it simply never moves again).
        """
        if player == KYONSHI or self.options.one_controller:
            return False
        if self.options.hunter_win_rewards != "others_minus_one":
            return False
        return self.lives[player - 1] == 0

    def returns(self) -> list[float]:
        """K20: see :class:`GangsiOptions` ``hunter_win_rewards``; K26 truncation pays 0."""
        num = self.options.num_players
        out = [0.0] * num
        if self.winner == KYONSHI:
            return [1.0] + [-1.0] * (num - 1)
        if self.winner > 0:
            if self.options.hunter_win_rewards == "others_minus_one":
                return [1.0 if p == self.winner else -1.0 for p in range(num)]
            out[KYONSHI] = -1.0
            out[self.winner] = 1.0
            return out
        for p in range(1, num):
            if self.is_out(p):
                out[p] = -1.0  # K25: an eliminated hunter can no longer win
        return out

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A card of the colour being dealt (K4), a hunter die face (K2), or a Kyonshi die face (K8)."""
        phase = self.phase
        if phase == PH_DEAL:
            left = self._deal_pool()
            return [(t, 1.0 / len(left)) for t in left]
        if phase == PH_ROLL:
            return [(f, 1.0 / 6.0) for f in range(6)]
        if phase == PH_KY_ROLL:
            k = len(self.options.kyonshi_die)
            return [(i, 1.0 / k) for i in range(k)]
        return []

    def _deal_pool(self) -> list[int]:
        color = self.deal % NUM_COLORS
        dealt = 0
        for h in self.hand:
            dealt |= h
        return bits(COLOR_MASK[color] & ~dealt)

    def sample_chance(self, rng: Any) -> int:
        """Exact fast sampler of the current chance node."""
        phase = self.phase
        if phase == PH_ROLL:
            return int(rng.random() * 6)
        if phase == PH_KY_ROLL:
            return int(rng.random() * len(self.options.kyonshi_die))
        if phase == PH_DEAL:
            left = self._deal_pool()
            return left[int(rng.random() * len(left))]
        raise ValueError("not a chance node")

    # -- legal actions ----------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move, ascending; ``[]`` at chance and terminal nodes."""
        if self._legal is None:
            self._legal = self._generate()
        return self._legal

    def _generate(self) -> list[int]:
        phase = self.phase
        if phase == PH_RESET:
            return [KEEP, RESET]
        if phase == PH_CHOOSE:
            return [REROLL] + [FACE + f for f in self.movable_faces()]
        if phase == PH_DIR:
            return [DIR + d for d in self._legal_dirs()]
        if phase == PH_KY_MOVE:
            m = self.maze
            nbr = m.nbr[self.ky]
            return [STEP + d for d in range(4) if nbr[d] >= 0 and m.enterable[nbr[d]]] + [STOP]
        return []

    def _others(self, piece: int) -> int:
        """Cells held by the other living pieces, apart from the entrance and the coffin."""
        m = self.maze
        mask = 0
        for j, at in enumerate(self.pos):
            if j != piece and at >= 0:
                mask |= 1 << at
        return mask & ~((1 << m.entrance) | (1 << m.coffin))

    def straight_dest(self, piece: int, start: int, steps: int, d: int) -> int:
        """K10-K12: where a number move of ``steps`` in a straight line ends, or -1 if illegal.

        Walls, the Kyonshi, the entrance and the coffin block; other hunters may be passed over but
        not landed on (K12); the move is exact (K11).
        """
        m = self.maze
        nbr = m.nbr
        enterable = m.enterable
        ky = self.ky
        cur = start
        for _ in range(steps):
            nxt = nbr[cur][d]
            if nxt < 0 or not enterable[nxt] or nxt == ky:
                return -1
            cur = nxt
        if self._others(piece) >> cur & 1:
            return -1  # "Only one person may occupy a space."
        return cur

    def arrow_dest(self, piece: int, start: int, d: int) -> int:
        """K12, K24: the square before the nearest obstacle in direction ``d``, or -1 if that is 0 squares.

        Obstacles: walls, other hunters, the entrance, the coffin and the Kyonshi (seed).
        """
        m = self.maze
        nbr = m.nbr
        enterable = m.enterable
        ky = self.ky
        others = self._others(piece)
        cur = start
        while True:
            nxt = nbr[cur][d]
            if nxt < 0 or not enterable[nxt] or nxt == ky or others >> nxt & 1:
                break
            cur = nxt
        return -1 if cur == start else cur

    def _can_finish(self, cell: int, steps: int, visited: int, others: int) -> bool:
        """K10 (``hunter_turns``): can a walk of ``steps`` more squares from ``cell`` end legally,
        never entering a square twice (K30), a wall, the Kyonshi, the entrance or the coffin?"""
        if steps == 0:
            return not others >> cell & 1
        m = self.maze
        for nxt in m.nbr[cell]:
            if nxt >= 0 and m.enterable[nxt] and nxt != self.ky and not visited >> nxt & 1:
                if self._can_finish(nxt, steps - 1, visited | 1 << nxt, others):
                    return True
        return False

    def face_has_move(self, piece: int, face: int) -> bool:
        """True when ``face`` gives ``piece`` at least one legal move (K13, K24)."""
        start = self.pos[piece]
        if face == ARROW:
            return any(self.arrow_dest(piece, start, d) >= 0 for d in range(4))
        steps = FACE_STEPS[face]
        if not self.options.hunter_turns:
            return any(self.straight_dest(piece, start, steps, d) >= 0 for d in range(4))
        return self._can_finish(start, steps, 1 << start, self._others(piece))

    def movable_faces(self) -> list[int]:
        """Faces showing on the free dice with which the acting piece can move (K29)."""
        piece = self.acting
        return [f for f in range(NUM_MOVE_FACES) if self.faces[f] and self.face_has_move(piece, f)]

    def _legal_dirs(self) -> list[int]:
        piece = self.acting
        if self.face == ARROW:
            return [d for d in range(4) if self.arrow_dest(piece, self.cur, d) >= 0]
        if not self.options.hunter_turns:
            steps = FACE_STEPS[self.face]
            return [d for d in range(4) if self.straight_dest(piece, self.cur, steps, d) >= 0]
        m = self.maze
        others = self._others(piece)
        out = []
        for d in range(4):
            nxt = m.nbr[self.cur][d]
            if nxt < 0 or not m.enterable[nxt] or nxt == self.ky or self.visited >> nxt & 1:
                continue
            if self._can_finish(nxt, self.steps - 1, self.visited | 1 << nxt, others):
                out.append(d)
        return out

    def move_destinations(self, piece: int, face: int) -> dict[int, int]:
        """Every square ``piece`` can end on with ``face``: ``{cell: first direction}`` (for agents)."""
        start = self.pos[piece]
        out: dict[int, int] = {}
        if face == ARROW or not self.options.hunter_turns:
            for d in range(4):
                if face == ARROW:
                    dest = self.arrow_dest(piece, start, d)
                else:
                    dest = self.straight_dest(piece, start, FACE_STEPS[face], d)
                if dest >= 0:
                    out.setdefault(dest, d)
            return out
        m = self.maze
        others = self._others(piece)

        def walk(cell: int, steps: int, visited: int, first: int) -> None:
            if steps == 0:
                if not others >> cell & 1:
                    out.setdefault(cell, first)
                return
            for d, nxt in enumerate(m.nbr[cell]):
                if nxt >= 0 and m.enterable[nxt] and nxt != self.ky and not visited >> nxt & 1:
                    walk(nxt, steps - 1, visited | 1 << nxt, d if first < 0 else first)

        walk(start, FACE_STEPS[face], 1 << start, -1)
        return out

    def pending_destinations(self) -> dict[int, int]:
        """In the direction phase: every square the declared move can still end on, ``{cell: next
        direction}`` (for agents; the same moves as :meth:`legal_actions`)."""
        if self.phase != PH_DIR:
            return {}
        piece = self.acting
        if self.face == ARROW or not self.options.hunter_turns:
            out: dict[int, int] = {}
            for d in self._legal_dirs():
                if self.face == ARROW:
                    out.setdefault(self.arrow_dest(piece, self.cur, d), d)
                else:
                    out.setdefault(self.straight_dest(piece, self.cur, FACE_STEPS[self.face], d), d)
            return out
        m = self.maze
        others = self._others(piece)
        found: dict[int, int] = {}

        def walk(cell: int, steps: int, visited: int, first: int) -> None:
            if steps == 0:
                if not others >> cell & 1:
                    found.setdefault(cell, first)
                return
            for d, nxt in enumerate(m.nbr[cell]):
                if nxt >= 0 and m.enterable[nxt] and nxt != self.ky and not visited >> nxt & 1:
                    walk(nxt, steps - 1, visited | 1 << nxt, d if first < 0 else first)

        walk(self.cur, self.steps, self.visited, -1)
        return found

    # -- applying actions -------------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or a decision (raises :class:`IllegalActionError`, state unchanged)."""
        phase = self.phase
        if phase == PH_OVER:
            raise IllegalActionError("the game is over")
        if phase in (PH_DEAL, PH_ROLL, PH_KY_ROLL):
            self._apply_chance(action)
            return
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"action {action} is not legal in phase {PHASE_NAMES[phase]}; legal: {self._legal}"
            )
        self._legal = None
        if phase == PH_RESET:
            if action == RESET:
                self._reset_dice()
            else:
                self._roll(NUM_HUNTER_DICE - self.aside)
        elif phase == PH_CHOOSE:
            if action == REROLL:
                self.rerolls += 1  # K14: every free die is thrown again
                self._roll(NUM_HUNTER_DICE - self.aside)
            else:
                self._declare(action - FACE)
        elif phase == PH_DIR:
            self._move(action - DIR)
        else:
            self._kyonshi_step(action)

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if phase == PH_DEAL:
            if outcome not in self._deal_pool():
                raise IllegalActionError(f"card {outcome} cannot be dealt now")
            self.hand[self.deal // NUM_COLORS] |= 1 << outcome
            self.deal += 1
            if self.deal == NUM_COLORS * self.n:
                self._start_round()
        elif phase == PH_ROLL:
            if not 0 <= outcome < 6:
                raise IllegalActionError(f"a hunter die has faces 0-5, got {outcome}")
            if outcome == KYONSHI_FACE:
                self.aside += 1  # K15: a Kyonshi face is set aside at once, shared by all hunters
            else:
                self.faces[outcome] += 1
            self.to_roll -= 1
            if self.to_roll == 0:
                self._after_roll()
        else:
            if not 0 <= outcome < len(self.options.kyonshi_die):
                raise IllegalActionError(f"the Kyonshi die has {len(self.options.kyonshi_die)} faces")
            # K17: the die plus the hunter dice set aside at this moment (K15: they stay aside).
            self.ky_steps = self.options.kyonshi_die[outcome] + self.aside
            self.interrupt = False
            self.phase = PH_KY_MOVE
            if self.ky_steps == 0:
                self._end_kyonshi_move()
        self._legal = None

    # -- the hunters' turns -----------------------------------------------------------------------
    def _start_round(self) -> None:
        first = self._next_piece(-1)
        self._start_turn(first)

    def _next_piece(self, after: int) -> int:
        """K22: the next living piece in seat order after ``after``, or -1 when the round is done."""
        for j in range(after + 1, self.n):
            if self.lives[j] > 0:
                return j
        return -1

    def _start_turn(self, piece: int) -> None:
        self.acting = piece
        self.rerolls = 0
        self.face = -1
        self.faces = [0] * NUM_MOVE_FACES
        free = NUM_HUNTER_DICE - self.aside
        if free == 0:
            self._reset_dice()  # K16: forced when no die is left to roll
        elif self.aside:
            self.phase = PH_RESET  # K16: optional with at least one die set aside
        else:
            self._roll(free)

    def _reset_dice(self) -> None:
        """K16: the Kyonshi moves first (interrupt, up to the number of dice set aside), then all 5
        dice come back (K31)."""
        self.phase = PH_KY_MOVE
        self.interrupt = True
        self.ky_steps = self.aside

    def _roll(self, count: int) -> None:
        self.faces = [0] * NUM_MOVE_FACES
        self.to_roll = count
        self.phase = PH_ROLL

    def _after_roll(self) -> None:
        if any(self.faces) and self.movable_faces():
            self.phase = PH_CHOOSE
            return
        free = NUM_HUNTER_DICE - self.aside
        if free:
            self.rerolls += 1  # K13: no face can move, so the free dice must be thrown again
            self._roll(free)
            return
        # K27: no die left and no move: the turn passes without a decision.
        self.last_face[self.acting] = PASSED
        self._end_turn()

    def _declare(self, face: int) -> None:
        """K29: accepting the roll is declaring one face (public, K9)."""
        self.face = face
        self.cur = self.pos[self.acting]
        self.steps = FACE_STEPS[face] if face != ARROW else 0
        self.visited = 1 << self.cur
        self.phase = PH_DIR

    def _move(self, d: int) -> None:
        piece = self.acting
        if self.face == ARROW:
            self.cur = self.arrow_dest(piece, self.cur, d)
        elif not self.options.hunter_turns:
            self.cur = self.straight_dest(piece, self.cur, FACE_STEPS[self.face], d)
        else:
            self.cur = self.maze.nbr[self.cur][d]
            self.visited |= 1 << self.cur
            self.steps -= 1
            if self.steps:
                return
        self._finish_move()

    def _finish_move(self) -> None:
        piece = self.acting
        m = self.maze
        self.pos[piece] = self.cur
        self.steps = 0  # no move is in progress any more (observation index 1799, K10)
        self.maybe[piece] = self._spread(self.maybe[piece], self.face)  # K32
        self.since[piece] += 1
        self.last_face[piece] = self.face
        t = m.treasure_at[self.cur]
        if t >= 0:
            bit = 1 << t
            if self.hand[piece] & bit and not self.revealed[piece] & bit:
                # K23: revealing is mandatory; it tells everyone where the piece stands (K9).
                self.revealed[piece] |= bit
                self.maybe[piece] = 1 << self.cur
                self.since[piece] = 0
                if _popcount(self.revealed[piece]) == HAND_SIZE:
                    self.winner = self.player_of(piece)  # K20: the fifth reveal wins alone
                    self.phase = PH_OVER
                    self.visited = 0
                    self.cur = -1
                    return
            elif not self.hand[piece] & bit:
                self.excluded[piece] |= bit  # K33: the hunters saw it stop here without a reveal
        self.visited = 0
        self.cur = -1
        self._end_turn()

    def _end_turn(self) -> None:
        self.face = -1
        nxt = self._next_piece(self.acting)
        if nxt >= 0:
            self._start_turn(nxt)
        else:
            self.acting = -1
            self.phase = PH_KY_ROLL

    # -- the Kyonshi ------------------------------------------------------------------------------
    def _kyonshi_step(self, action: int) -> None:
        if action == STOP:
            self._end_kyonshi_move()
            return
        m = self.maze
        self.ky = m.nbr[self.ky][action - STEP]
        self.ky_steps -= 1
        cell = self.ky
        bit = 1 << cell
        caught = -1
        for j, at in enumerate(self.pos):
            if at == cell:
                caught = j
            else:
                # K32: no catch here, so nobody else stood on this square (public at the table).
                self.maybe[j] &= ~bit
        if caught >= 0:
            # K18: the hunter goes to the coffin and hands over a life token; the move ends at once.
            self.tokens += 1
            self.lives[caught] -= 1
            self.since[caught] = 0
            if self.lives[caught] == 0:
                self.pos[caught] = -1  # K25: the piece leaves the game with its cards
                self.maybe[caught] = 0
            else:
                self.pos[caught] = m.coffin
                self.maybe[caught] = 1 << m.coffin
            if self.tokens >= self.threshold:
                self.winner = KYONSHI  # the seed's end table
                self.phase = PH_OVER
                return
            self._end_kyonshi_move()
            return
        if self.ky_steps == 0:
            self._end_kyonshi_move()

    def _end_kyonshi_move(self) -> None:
        self.ky_steps = 0
        if self.interrupt:
            # K16, K28: after the interrupt every die is free; the resetting piece rolls all 5.
            self.interrupt = False
            self.aside = 0
            if self.lives[self.acting] > 0:
                self._roll(NUM_HUNTER_DICE)
            else:
                self._end_turn()
            return
        self.round += 1
        if self.round >= self.options.max_rounds:
            # K26: the round cap.
            if self.options.round_cap == "kyonshi_wins":
                self.winner = KYONSHI
            else:
                self.truncated = True
            self.phase = PH_OVER
            return
        self._start_round()

    # -- the Kyonshi's public belief (K32) --------------------------------------------------------
    def _spread(self, cells: int, face: int) -> int:
        """Squares a piece may reach from any of ``cells`` with ``face``, knowing only the maze and the
        Kyonshi's square (other hunters, unseen, may block an arrow anywhere along its line)."""
        m = self.maze
        free = m.full & ~(1 << self.ky)
        out = 0
        if face == ARROW:
            for d in range(4):
                cur = cells
                while True:
                    cur = m.step_mask(cur, d) & free
                    if not cur:
                        break
                    out |= cur
            return out
        steps = FACE_STEPS[face]
        if not self.options.hunter_turns:
            for d in range(4):
                cur = cells
                for _ in range(steps):
                    cur = m.step_mask(cur, d) & free
                out |= cur
            return out
        table = _walk_table(m)[steps]
        dist = m.dist
        ky = self.ky
        for cell in bits(cells):
            near = dist[cell][ky]
            if 0 <= near <= steps:
                out |= self._walk_ends(cell, steps, 1 << cell)  # the Kyonshi may stand in the way
            else:
                out |= table[cell]
        return out

    def _walk_ends(self, cell: int, steps: int, visited: int) -> int:
        if steps == 0:
            return 1 << cell
        m = self.maze
        out = 0
        for nxt in m.nbr[cell]:
            if nxt >= 0 and m.enterable[nxt] and nxt != self.ky and not visited >> nxt & 1:
                out |= self._walk_ends(nxt, steps - 1, visited | 1 << nxt)
        return out

    # -- hidden information -----------------------------------------------------------------------
    def determinize(self, player: int, rng: Any) -> GangsiState:
        """A full state consistent with what ``player`` knows; hidden parts sampled with ``rng``.

        Hunters: the unrevealed cards of every piece they do not move are redealt from the cards they
        have not seen, one per colour, avoiding treasures a piece was seen to stop on (K33). The
        Kyonshi: every living piece is put on a square of its public possibility set ``maybe``
        (uniformly, distinct squares apart from entrance and coffin), then all unrevealed cards are
        redealt. The sets are sound (the true squares are always in them) but the joint sample is not
        the exact posterior over the whole history: pieces are drawn independently given the sets.
        """
        new = self.clone()
        new._legal = None
        if player == KYONSHI:
            new._sample_unseen_by_kyonshi(rng)
            new.excluded = [0] * self.n
            for j, at in enumerate(new.pos):
                if at >= 0 and new.maze.treasure_at[at] >= 0:
                    t = new.maze.treasure_at[at]
                    if not new.revealed[j] >> t & 1:
                        new.excluded[j] |= 1 << t
            new._redeal(set(range(self.n)), rng)
        else:
            mine = set(self.pieces_of(player))
            new._redeal(set(range(self.n)) - mine, rng)
        return new

    def _sample_unseen_by_kyonshi(self, rng: Any) -> None:
        """Squares, the acting piece's roll and any move in progress, as the Kyonshi cannot see them.

        The roll keeps its number of dice (public) and a declared face (public); a move in progress
        restarts from the piece's sampled square. Samples in which the acting piece could not make
        the move the public record says it makes (a declared face, or a roll it may accept) are
        rejected.
        """
        piece = self.acting if self.phase in (PH_CHOOSE, PH_DIR, PH_ROLL) else -1
        shown = sum(self.faces)
        for _ in range(1000):
            self._sample_positions(rng)
            faces = [0] * NUM_MOVE_FACES
            dice = [int(rng.random() * NUM_MOVE_FACES) for _ in range(shown)]
            if self.phase == PH_DIR and dice:
                dice[0] = self.face
            for f in dice:
                faces[f] += 1
            self.faces = faces
            if piece < 0 or self.lives[piece] == 0:
                return
            if self.phase == PH_DIR:
                self.cur = self.pos[piece]
                self.visited = 1 << self.cur
                self.steps = FACE_STEPS[self.face] if self.face != ARROW else 0
                if self.face_has_move(piece, self.face):
                    return
            elif self.phase == PH_CHOOSE:
                if self.movable_faces():
                    return
            else:
                return
        raise RuntimeError("no sample of the hidden squares and roll fits the public information")

    def _sample_positions(self, rng: Any) -> None:
        m = self.maze
        shared = (1 << m.entrance) | (1 << m.coffin)
        living = [j for j in range(self.n) if self.lives[j] > 0]
        options = {j: bits(self.maybe[j]) for j in living}
        for _ in range(200):
            taken = 0
            ok = True
            chosen = {}
            for j in living:
                cell = options[j][int(rng.random() * len(options[j]))]
                if taken >> cell & 1 and not shared >> cell & 1:
                    ok = False
                    break
                taken |= 1 << cell
                chosen[j] = cell
            if ok:
                for j, cell in chosen.items():
                    self.pos[j] = cell
                return
        # Rare fallback: a randomised backtracking search (the true squares are one solution).
        order = list(living)

        def place(k: int, taken: int) -> bool:
            if k == len(order):
                return True
            j = order[k]
            cells = options[j][:]
            rng.shuffle(cells)
            for cell in cells:
                if taken >> cell & 1 and not shared >> cell & 1:
                    continue
                self.pos[j] = cell
                if place(k + 1, taken | 1 << cell):
                    return True
            return False

        if not place(0, 0):
            raise RuntimeError("no placement of the hunters fits the public information")

    def _redeal(self, pieces: set[int], rng: Any) -> None:
        """Redeal the unrevealed cards of ``pieces`` from the cards nobody else in the view has seen."""
        known = 0
        for j in range(self.n):
            known |= self.revealed[j]
            if j not in pieces:
                known |= self.hand[j]
        for color in range(NUM_COLORS):
            cmask = COLOR_MASK[color]
            needy = [j for j in sorted(pieces) if not self.revealed[j] & cmask]
            if not needy:
                continue
            pool = bits(cmask & ~known)
            for attempt in range(300):
                picks = list(pool)
                rng.shuffle(picks)
                picks = picks[: len(needy)]
                if all(not self.excluded[j] >> t & 1 for j, t in zip(needy, picks, strict=True)):
                    break
                if attempt == 299:
                    picks = self._assign(needy, pool)
            for j, t in zip(needy, picks, strict=True):
                self.hand[j] = (self.hand[j] & ~cmask) | 1 << t

    def _assign(self, needy: list[int], pool: list[int]) -> list[int]:
        """Deterministic fallback: any assignment of distinct cards avoiding exclusions."""

        def go(k: int, used: int) -> list[int] | None:
            if k == len(needy):
                return []
            for t in pool:
                if not used >> t & 1 and not self.excluded[needy[k]] >> t & 1:
                    rest = go(k + 1, used | 1 << t)
                    if rest is not None:
                        return [t, *rest]
            return None

        found = go(0, 0)
        if found is None:
            raise RuntimeError("no redeal of the hidden cards fits the public information")
        return found

    # -- copying and serialising ------------------------------------------------------------------
    def clone(self) -> GangsiState:
        """An independent copy."""
        new = GangsiState.__new__(GangsiState)
        new.options = self.options
        new.maze = self.maze
        new.n = self.n
        new.pos = self.pos[:]
        new.lives = self.lives[:]
        new.ky = self.ky
        new.tokens = self.tokens
        new.hand = self.hand[:]
        new.revealed = self.revealed[:]
        new.excluded = self.excluded[:]
        new.deal = self.deal
        new.aside = self.aside
        new.to_roll = self.to_roll
        new.faces = self.faces[:]
        new.rerolls = self.rerolls
        new.acting = self.acting
        new.phase = self.phase
        new.face = self.face
        new.steps = self.steps
        new.cur = self.cur
        new.visited = self.visited
        new.ky_steps = self.ky_steps
        new.interrupt = self.interrupt
        new.round = self.round
        new.winner = self.winner
        new.truncated = self.truncated
        new.maybe = self.maybe[:]
        new.since = self.since[:]
        new.last_face = self.last_face[:]
        new._legal = self._legal
        return new

    _FIELDS = (
        "pos", "lives", "ky", "tokens", "hand", "revealed", "excluded", "deal", "aside", "to_roll",
        "faces", "rerolls", "acting", "phase", "face", "steps", "cur", "visited", "ky_steps",
        "interrupt", "round", "winner", "truncated", "maybe", "since", "last_face",
    )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the exact position (cell sets as ints, which JSON keeps exactly)."""
        data: dict[str, Any] = {"game": self.game_name, "options": options_to_dict(self.options)}
        for name in self._FIELDS:
            value = getattr(self, name)
            data[name] = value[:] if isinstance(value, list) else value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GangsiState:
        """Rebuild a state written by :meth:`to_dict`, every field checked against the options and the
        maze (a missing, unknown or bad field raises :class:`~boardenvs.core.fields.StateDictError`
        naming it)."""
        f = Fields(data, "gangsi_v0 state")
        options: GangsiOptions = f.options(GangsiOptions, cls.game_name)
        state = cls(options)
        n, size, dice, rounds = state.n, state.maze.size, NUM_HUNTER_DICE, options.max_rounds
        cells, treasures = (1 << size) - 1, (1 << cards.NUM_TREASURES) - 1
        cell_set, card_set = (
            integers(n, 0, cells, "a set of cells"),
            integers(n, 0, treasures, "a set of treasures"),
        )
        v = f.read(
            {
                "pos": integers(n, -1, size - 1, "a cell of the maze, -1: out (K25)"),
                "lives": integers(n, 0, LIVES, "K18"),
                "ky": integer(0, size - 1, "a cell of the maze"),
                "tokens": integer(0, state.threshold, "the tokens that win"),
                "hand": card_set,
                "revealed": card_set,
                "excluded": card_set,
                "deal": integer(0, n * NUM_COLORS, "K4: the cards dealt"),
                "aside": integer(0, dice, "K15"),
                "to_roll": integer(0, dice, "K14"),
                "faces": integers(NUM_MOVE_FACES, 0, dice, "free dice"),
                "rerolls": integer(0, None),
                "acting": integer(-1, n - 1, "a hunter piece, -1: none"),
                "phase": integer(0, NUM_PHASES - 1),
                "face": integer(-1, NUM_MOVE_FACES - 1, "a declared face, -1: none"),
                "steps": integer(0, max(FACE_STEPS), "K10"),
                "cur": integer(-1, size - 1, "a cell of the maze, -1: no move"),
                "visited": integer(0, cells, "a set of cells"),
                "ky_steps": integer(0, max(options.kyonshi_die) + dice, "K17: the die and the dice aside"),
                "interrupt": flag(),
                "round": integer(0, rounds, "max_rounds, K26"),
                "winner": integer(-1, options.num_players - 1, "-1: none"),
                "truncated": flag(),
                "maybe": cell_set,
                "since": integers(n, 0, rounds, "one move a round"),
                "last_face": integers(n, -1, PASSED, "a face, 5: passed, -1: none"),
            }
        )
        f.finish()
        for key, value in v.items():
            setattr(state, key, value)
        for piece in range(n):
            hand = state.hand[piece]
            f.check(
                (state.lives[piece] == 0) == (state.pos[piece] < 0),
                f"pos[{piece}]",
                f"= {state.pos[piece]} with {state.lives[piece]} lives: -1 exactly when out (K25)",
            )
            f.check(
                all(_popcount(hand & mask) <= 1 for mask in COLOR_MASK),
                f"hand[{piece}]",
                f"= {hand} holds two cards of a colour (K4)",
            )
            f.check(
                state.revealed[piece] & ~hand == 0, f"revealed[{piece}]", "holds a card not in the hand (K23)"
            )
            f.check(
                all(not hand & state.hand[other] for other in range(piece)),
                f"hand[{piece}]",
                "shares a card with another hand (K4)",
            )
        f.check(
            sum(map(_popcount, state.hand)) == state.deal,
            "deal",
            f"= {state.deal}, not the cards in the hands",
        )
        f.check(
            state.aside + state.to_roll + sum(state.faces) <= dice,
            "faces",
            f"= {state.faces} with {state.aside} aside and {state.to_roll} to roll: over {dice} dice",
        )
        f.check(
            state.tokens == sum(LIVES - lives for lives in state.lives),
            "tokens",
            f"= {state.tokens}, not the {sum(LIVES - x for x in state.lives)} lives lost (K18)",
        )
        over = state.winner >= 0 or state.truncated
        f.check(
            over == (state.phase == PH_OVER),
            "phase",
            f"= {PHASE_NAMES[state.phase]} with winner {state.winner}",
        )
        return check_playable(state, options.num_players, "gangsi_v0 state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GangsiState) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # -- text -------------------------------------------------------------------------------------
    def action_to_string(self, action: int, view: int | None = None) -> str:
        """Describe ``action`` of the player to move, e.g. ``"declare 3"`` or ``"kyonshi north"``.

        With a ``view``, only what that player may know (K9): a card dealt to a piece it does not
        move is "a card"; the Kyonshi hears neither a hunter die's face (only a Kyonshi face, which
        goes aside in public, K15) nor a move's direction.
        """
        phase = self.phase
        self._check_view(view)
        if phase == PH_KY_MOVE:
            return "kyonshi stop" if action == STOP else f"kyonshi {DIRECTION_NAMES[action - STEP]}"
        if phase in (PH_DEAL, PH_ROLL, PH_KY_ROLL):
            if phase == PH_DEAL:
                piece = self.deal // NUM_COLORS
                if view is not None and piece not in self.pieces_of(view):
                    return f"deal a card to hunter_{piece}"
                return f"deal {TREASURE_CODES[action]} to hunter_{piece}"
            if phase == PH_ROLL:
                if view == KYONSHI and action != KYONSHI_FACE:
                    return "die rolled (face hidden)"
                return f"die shows {HUNTER_FACES[action]}"
            return f"kyonshi die shows {self.options.kyonshi_die[action]}"
        if view == KYONSHI and DIR <= action < NUM_HUNTER_ACTIONS:
            return "move (direction hidden)"
        names = {KEEP: "keep the dice aside and roll", RESET: "reset the dice", REROLL: "re-roll"}
        if action in names:
            return names[action]
        if FACE <= action < DIR:
            return f"declare {HUNTER_FACES[action - FACE]}"
        if DIR <= action < NUM_HUNTER_ACTIONS:
            return f"move {DIRECTION_NAMES[action - DIR]}"
        return f"invalid action {action}"

    def _check_view(self, view: int | None) -> None:
        if view is not None and not 0 <= view < self.options.num_players:
            last = self.options.num_players - 1
            raise ValueError(f"gangsi_v0: view must be None or a player id 0..{last}, got {view!r}")

    def render_text(self, view: int | None = None) -> str:
        """The maze with the pieces, then the table's state.

        ``view=None`` shows everything. A hunter's view shows every square (hunters see each other
        and the Kyonshi) but only its own pieces' unrevealed cards. The Kyonshi's view (K9, K32)
        shows no hunter square: a ``?`` marks every square some living piece may stand on (its public
        possibility set), and neither unrevealed cards nor the faces of a hunter's roll are shown.
        """
        self._check_view(view)
        m = self.maze
        lines = [list(line) for line in m.lines]
        offset = m.lines[0].find("+")
        hidden_squares = view == KYONSHI
        if hidden_squares:
            maybe = 0
            for j in range(self.n):
                if self.lives[j] > 0:
                    maybe |= self.maybe[j]
            for at in bits(maybe & ~((1 << m.entrance) | (1 << m.coffin))):
                r, c = divmod(at, m.cols)
                cell = lines[2 * r + 1]
                if cell[offset + 3 + 4 * c] == ".":
                    cell[offset + 3 + 4 * c] = "?"
                else:  # a treasure square keeps its label
                    cell[offset + 1 + 4 * c] = "?"
        else:
            for j, at in enumerate(self.pos):
                if at >= 0 and at not in (m.entrance, m.coffin):
                    r, c = divmod(at, m.cols)
                    lines[2 * r + 1][offset + 1 + 4 * c : offset + 4 + 4 * c] = f"H{j} "
        r, c = divmod(self.ky, m.cols)
        if self.ky != m.coffin:
            lines[2 * r + 1][offset + 1 + 4 * c : offset + 4 + 4 * c] = " K "
        out = ["".join(line) for line in lines]
        mine = set(range(self.n)) if view is None else set(self.pieces_of(view))
        for j in range(self.n):
            if j in mine:
                shown = [
                    TREASURE_CODES[t] + ("*" if self.revealed[j] >> t & 1 else "") for t in bits(self.hand[j])
                ]
            else:
                shown = [TREASURE_CODES[t] + "*" for t in bits(self.revealed[j])]
                unseen = _popcount(self.hand[j] & ~self.revealed[j])
                if unseen:
                    shown.append(f"+{unseen} hidden")
            if self.pos[j] < 0:
                where = "out"
            elif hidden_squares and _popcount(self.maybe[j]) == 1:
                where = f"at {m.cell_name(bits(self.maybe[j])[0])}"  # pinned down by public information
            elif hidden_squares:
                where = f"at a hidden square ({_popcount(self.maybe[j])} possible)"
            else:
                where = f"at {m.cell_name(self.pos[j])}"
            out.append(f"hunter_{j} {where}, lives {self.lives[j]}, cards {' '.join(shown)}")
        out.append(f"kyonshi at {m.cell_name(self.ky)}, tokens {self.tokens}/{self.threshold}")
        status = f"round {self.round + 1}, dice aside {self.aside}, phase {PHASE_NAMES[self.phase]}"
        if self.phase == PH_OVER:
            status += ", truncated" if self.truncated else f", winner player {self.winner}"
        elif self.acting >= 0:
            status += f", hunter_{self.acting} acting"
            if any(self.faces):
                if hidden_squares:
                    status += f", roll hidden, re-rolls {self.rerolls}"
                else:
                    shown = " ".join(f"{HUNTER_FACES[f]}x{k}" for f, k in enumerate(self.faces) if k)
                    status += f", roll {shown}, re-rolls {self.rerolls}"
            if self.phase == PH_DIR and self.face >= 0:
                status += f", declared {HUNTER_FACES[self.face]}"
        out.append(status)
        return "\n".join(out)
