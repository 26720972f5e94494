"""Star of the Lost City: the pure rules of ``lost_city_v0`` (``docs/rules/lost_city.md``).

Rule ids T1-T29 are the spec's; T30-T41 are readings added here where the spec is silent (listed in
:mod:`boardenvs.lost_city.env`). Only the standard library and the core helpers: a state is a handful
of per-seat lists, a :class:`~boardenvs.core.deck.Deck` and a few counters, so ``clone()`` is cheap.

A turn (4.3) is a sequence of micro-actions by the seat that decides for the acting character (the
character's own seat, or its seducer's while it is seduced, T20):

1. start-of-turn effects, applied by the state: Fire tick (T21), then a skipped turn (T15, T24);
2. the move step (``MOVE`` + offset, staying put included; ``PLAY_HEALTH`` may come first);
3. the action step: ``ATTACK`` a target in range, an ability (``ABILITY`` / ``PAIR`` / ``COPY``),
   ``PLAY_HEALTH``, or ``END``;
4. for a basic attack, chance: the hit roll, then the damage roll and the colour die (T10);
5. after a hit, the post-roll step: ``PLAY_DAMAGE``, ``CRITICAL``, ``PLAY_HEALTH`` or ``END`` (apply);
6. a card drawn on black is resolved (chance, T12, T13).

A step in which ``END`` would be the only legal action is taken by the state itself (T34).

Action encoding (``Discrete(63)``); targets are named by their seat offset ``o`` (1..6) from the
deciding seat, the same rotation as the observation:

======= ============================ ===========================================================
id      action                       meaning
======= ============================ ===========================================================
0-24    ``MOVE + 5(dr+2) + (dc+2)``  move to the square ``(dr, dc)`` from the acting character (T5);
                                     12 is staying put
25-30   ``ATTACK + o - 1``           basic attack on the character of seat offset ``o``
31-36   ``ABILITY + o - 1``          the ability (own, or the one being copied) on offset ``o``;
                                     Double Hit with exactly one target in range (40)
37-51   ``PAIR + i``                 Double Hit on the pair ``PAIRS[i] = (o1, o2)``, 25 each (T23)
52-58   ``COPY + k``                 Jamie copies the ability of character ``k`` (T22); the
                                     target follows as an ``ABILITY``/``PAIR`` action
59      ``CRITICAL``                 double the damage just rolled (Aaron, or Jamie copying, T37)
60      ``PLAY_DAMAGE``              add the held +Damage card to the damage just rolled (T11)
61      ``PLAY_HEALTH``              play the held +Health card (T11, T16)
62      ``END``                      end the action step / apply the rolled damage as it stands
63-69   ``PICK + k``                 the draft (T2, T31): take character ``k`` (0 Rob .. 6 Chris)
======= ============================ ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from boardenvs.core.deck import Deck
from boardenvs.core.fields import Fields, check_playable, flag, integer, integers
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import MOVE_OFFSETS, RUINS, SIZE, SPAWNS, Geometry, geometry

MOVE = 0
STAY = 12
ATTACK = 25
ABILITY = 31
PAIR = 37
COPY = 52
CRITICAL = 59
PLAY_DAMAGE = 60
PLAY_HEALTH = 61
END = 62
PICK = 63
NUM_ACTIONS = 70
#: Pairs of seat offsets for Double Hit on two targets (T23), ``o1 < o2``.
PAIRS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a + 1, 7))
PAIR_INDEX = {pair: i for i, pair in enumerate(PAIRS)}

# Phases. Chance phases: characters drawn (T31), first player (T30), hit, damage, colour die, card.
# P_PICK is the draft (T2): a decision of the seat to pick. Phases before P_MOVE are the setup.
(
    P_CHARS, P_FIRST, P_PICK, P_MOVE, P_ACTION, P_COPY, P_POSTROLL, P_HIT, P_DAMAGE, P_COLOUR, P_DRAW,
    P_OVER,
) = range(12)  # fmt: skip
PHASE_NAMES = (
    "characters", "first player", "draft", "move", "action", "copy target", "post-roll", "hit roll",
    "damage roll", "colour die", "card draw", "over",
)  # fmt: skip
_CHANCE_PHASES = frozenset((P_CHARS, P_FIRST, P_HIT, P_DAMAGE, P_COLOUR, P_DRAW))
_IS_CHANCE = tuple(p in _CHANCE_PHASES for p in range(12))
_DIE = [(face, 1.0 / 6.0) for face in range(1, 7)]
_COLOUR = [(face, 1.0 / 6.0) for face in range(6)]
#: T9: the colour die's faces; with ``black_faces = k`` faces ``0 .. k-1`` are black.
COLOUR_NAMES = ("black", "red", "blue", "green", "yellow", "white")


@dataclass(frozen=True)
class LostCityOptions:
    """Options of ``lost_city_v0``; every DESIGNED value of lost_city.md is one of them."""

    #: T2: 2 to 7 players.
    num_players: int = 4
    #: T2, T31: ``"pick"``: a draft before the first turn, in turn order, each player picking one of the
    #: characters not yet taken (a decision, public); ``"random"``: drawn by chance, seat by seat; or
    #: the character of each seat by name (distinct).
    characters: Literal["pick", "random"] | tuple[str, ...] = "pick"
    #: T30: ``"roll"``: the initiative roll-off picks the first player (chance); ``"seat0"``: seat 0.
    first_player: Literal["roll", "seat0"] = "roll"
    #: T1 (DESIGNED): rows and columns of the square grid.
    board_size: int = SIZE
    #: T1 (DESIGNED): impassable ruin squares ``(row, col)``.
    ruins: tuple[tuple[int, int], ...] = RUINS
    #: T3 (DESIGNED): spawn squares in seat order (seat ``i`` on ``spawns[i]``, T31); ``None``: the
    #: default spawns of the player count (:data:`~boardenvs.lost_city.board.SPAWNS`). Squares beyond
    #: the player count are never used and are dropped (so the options keep the ``num_players`` in use).
    spawns: tuple[tuple[int, int], ...] | None = None
    #: T9 (DESIGNED): black faces of the six-faced colour die (probability of a card per hit / 6).
    black_faces: int = 2
    #: T12 (DESIGNED): a bad or Null draw also discards the held card (``False``: only good draws do).
    bad_draw_discards_held: bool = True
    #: 4.1 (SEED counts): cards of each kind in the battle deck, in :data:`cards.CARD_NAMES` order.
    card_counts: tuple[int, ...] = cards.CARD_COUNTS
    #: T28 (DESIGNED): rounds before the game is decided by ``cap_tiebreak``.
    max_rounds: int = 150
    #: T28 (DESIGNED): who wins at the round cap among the living: ``"damage"``: the most damage dealt,
    #: then the highest share of the starting HP; ``"hp"``: the highest HP; ``"hp_share"``: the highest
    #: HP as a share of the starting HP. A tie that remains is a draw among the tied.
    cap_tiebreak: Literal["damage", "hp", "hp_share"] = "damage"
    #: Not a rule: the deciding player's observation ends with move features
    #: (``boardenvs/lost_city/features.py``), what each move leads to. Off by default.
    action_features: bool = False

    #: Options that change only the observation encoding (:func:`boardenvs.core.options.encoding_keys`).
    ENCODING_OPTIONS: ClassVar[tuple[str, ...]] = ("action_features",)

    def __post_init__(self) -> None:
        n = self.num_players
        if not 2 <= n <= 7:
            raise ValueError(f"num_players must be 2 to 7, got {n}")
        if isinstance(self.characters, str):
            if self.characters not in ("pick", "random"):
                raise ValueError(
                    f"characters must be 'pick', 'random' or one name per player, got {self.characters!r}"
                )
        elif not isinstance(self.characters, tuple):
            raise ValueError(
                f"characters must be 'pick', 'random' or one name per player, got {self.characters!r}"
            )
        else:
            if len(self.characters) != n:
                raise ValueError(f"characters needs one name per player ({n}), got {self.characters}")
            unknown = [c for c in self.characters if c not in ch.NAMES]
            if unknown:
                raise ValueError(f"unknown character {unknown[0]!r}; characters are {ch.NAMES}")
            if len(set(self.characters)) != n:
                raise ValueError(f"characters must be distinct, got {self.characters}")
        if not 3 <= self.board_size <= 32:
            raise ValueError(f"board_size must be 3 to 32, got {self.board_size}")
        size = self.board_size
        default_spawns = self.spawns is None
        if default_spawns:
            object.__setattr__(self, "spawns", SPAWNS[n])  # T3: the spawns of the player count
        for name, cells in (("ruins", self.ruins), ("spawns", self.spawns)):
            for r, c in cells:
                if not (0 <= r < size and 0 <= c < size):
                    defaulted = default_spawns and name == "spawns"
                    hint = " (the default spawns are for 12x12: give spawns)" if defaulted else ""
                    raise ValueError(f"{name} square {(r, c)} is off the {size}x{size} board{hint}")
            if len(set(cells)) != len(cells):
                raise ValueError(f"{name} squares must be distinct, got {cells}")
        if len(self.spawns) < n:
            raise ValueError(f"spawns needs at least {n} squares, got {len(self.spawns)}")
        object.__setattr__(self, "spawns", tuple(self.spawns[:n]))
        if set(self.spawns) & set(self.ruins):
            raise ValueError("a spawn square in use is a ruin")
        if not 0 <= self.black_faces <= 6:
            raise ValueError(f"black_faces must be 0 to 6, got {self.black_faces}")
        if len(self.card_counts) != cards.NUM_KINDS or min(self.card_counts) < 0:
            raise ValueError(
                f"card_counts needs {cards.NUM_KINDS} non-negative counts, got {self.card_counts}"
            )
        if sum(self.card_counts) < 1:
            raise ValueError("card_counts must hold at least one card")
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {self.max_rounds}")

    @property
    def character_ids(self) -> tuple[int, ...] | None:
        """The fixed character id of every seat, or ``None`` when they are picked or drawn."""
        if isinstance(self.characters, str):
            return None
        return tuple(ch.NAMES.index(name) for name in self.characters)

    @property
    def draft(self) -> bool:
        """True when the players pick their characters (T2, ``characters="pick"``)."""
        return self.characters == "pick"


class LostCityState(State):
    """A Lost City position: per-seat character, HP, square, card and statuses; phase and pending roll.

    Per seat ``p``: ``char[p]`` (character id; -1 while not yet picked or drawn, T2), ``hp[p]`` (0 =
    eliminated), ``pos[p]`` (cell index, -1 when eliminated), ``held[p]`` (card kind or -1), ``burn[p]``
    (Fire ticks left, T21), ``skip[p]`` (turns to skip, T15/T24/T32), ``ctrl[p]`` / ``ctrl_turns[p]``
    (seducer's seat and controlled turns left after the current one, T20), ``shield_by[p]`` /
    ``shield_turns[p]`` (the seducer who may not target ``p``, and how many of the seducer's own turns
    that still lasts, T20), ``burn_by[p]`` (who set the Fire burning ``p``, T21) and ``dealt[p]`` (HP
    the seat's decisions have taken from the other characters: its attacks and abilities, the attacks
    of a character it controls, its Fire ticks; the T28 tie-break, T41).
    """

    game_name = "lost_city_v0"
    __slots__ = (
        "options", "geo", "n", "char", "hp", "pos", "held", "burn", "skip", "ctrl", "ctrl_turns",
        "shield_by", "shield_turns", "burn_by", "dealt", "deck", "phase", "to_move", "first", "round",
        "roll", "black", "target", "crit", "bonus", "copy", "outcome", "_legal",
    )  # fmt: skip

    def __init__(self, options: LostCityOptions) -> None:
        self.options = options
        self.geo: Geometry = geometry(options.board_size, options.ruins)
        n = self.n = options.num_players
        size = options.board_size
        self.char = [-1] * n
        self.hp = [0] * n
        self.pos = [r * size + c for r, c in options.spawns]  # T3, T31
        self.held = [-1] * n
        self.burn = [0] * n
        self.skip = [0] * n
        self.ctrl = [-1] * n
        self.ctrl_turns = [0] * n
        self.shield_by = [-1] * n
        self.shield_turns = [0] * n
        self.burn_by = [-1] * n
        self.dealt = [0] * n
        self.deck = Deck(options.card_counts)
        self.phase = P_FIRST if options.draft and options.first_player == "roll" else P_CHARS
        self.to_move = 0
        self.first = 0
        self.round = 1
        self.roll = 0
        self.black = False
        self.target = -1
        self.crit = False
        self.bonus = 0
        self.copy = -1
        self.outcome: list[int] = []
        self._legal: list[int] | None = None
        fixed = options.character_ids
        if fixed is not None:
            for p, k in enumerate(fixed):
                self._add_character(p, k)
        elif options.draft and options.first_player != "roll":
            self._open_draft(0)

    # -- setup ------------------------------------------------------------------------------------
    def seated(self) -> int:
        """How many seats have a character (picked, drawn or given)."""
        return self.n - self.char.count(-1)

    def _open_draft(self, first: int) -> None:
        """T2: the draft starts with the first player and goes on in turn order (seat + 1)."""
        self.first = first
        self.to_move = first
        self.phase = P_PICK
        self._legal = None

    def _add_character(self, p: int, k: int) -> None:
        """Seat ``p`` becomes character ``k`` (T2, T31); then the next pick or draw, T30, or round 1.

        Drawn or given characters fill the seats in seat order and the initiative roll (T30) comes
        after them; in the draft the roll comes first and the seats pick in turn order from it. A pick
        with a single character left (the last seat of a 7-player draft) needs no decision: that
        character is assigned (T2).
        """
        self.char[p] = k
        self.hp[p] = ch.MAX_HP[k]
        self._legal = None
        if self.options.draft:
            if self.seated() < self.n:
                nxt = (p + 1) % self.n
                left = self.characters_left()
                if len(left) == 1:  # T2: the last character left is assigned, not picked
                    self._add_character(nxt, left[0])
                    return
                self.to_move = nxt
                self.phase = P_PICK
            else:
                self._begin(self.first)
        elif self.seated() < self.n:
            self.phase = P_CHARS
        elif self.options.first_player == "roll":
            self.phase = P_FIRST
        else:
            self._begin(0)

    def _begin(self, first: int) -> None:
        """Round 1 starts with seat ``first`` (T30); play goes clockwise (seat + 1)."""
        self.first = first
        self.round = 1
        self.to_move = first
        if not self._start_turn(first):
            self._advance()

    # -- whose move -------------------------------------------------------------------------------
    def current_player(self) -> int:
        """The deciding seat (the seducer while the acting character is seduced, T20), CHANCE or TERMINAL."""
        phase = self.phase
        if phase == P_OVER:
            return TERMINAL
        if _IS_CHANCE[phase]:
            return CHANCE
        c = self.ctrl[self.to_move]
        return c if c >= 0 else self.to_move

    def acting(self) -> int:
        """The seat whose character is taking its turn (differs from the decider under Seduction)."""
        return self.to_move

    def is_out(self, player: int) -> bool:
        """T26: an eliminated character is out (its -1 is final) while the others play on; nobody is out
        during the setup (draws, the initiative roll and the draft, T2, T30, T31)."""
        return self.phase >= P_MOVE and self.hp[player] <= 0

    def returns(self) -> list[float]:
        """+1 for the winner and -1 for the others; a draw (T26, T28) pays 0 to each tied player.

        Before the end, eliminated players already hold their final -1.
        """
        n = self.n
        if self.phase != P_OVER:
            if self.phase < P_MOVE:
                return [0.0] * n
            return [-1.0 if self.hp[p] <= 0 else 0.0 for p in range(n)]
        win = 1.0 if len(self.outcome) == 1 else 0.0
        return [win if p in self.outcome else -1.0 for p in range(n)]

    def winner(self) -> int:
        """The winning seat, or -1 (game running, or a draw)."""
        return self.outcome[0] if self.phase == P_OVER and len(self.outcome) == 1 else -1

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Character draw (T31), first player (T30), d6 hit and damage rolls (T8), colour die face
        (T9: faces ``< black_faces`` are black), or the kind of the card drawn (T12, T27)."""
        phase = self.phase
        if phase in (P_HIT, P_DAMAGE):
            return _DIE[:]
        if phase == P_COLOUR:
            return _COLOUR[:]
        if phase == P_DRAW:
            return self.deck.chance_outcomes()
        if phase == P_CHARS:
            left = self.characters_left()
            return [(k, 1.0 / len(left)) for k in left]
        if phase == P_FIRST:
            return [(p, 1.0 / self.n) for p in range(self.n)]
        return []

    def sample_chance(self, rng: Any) -> int:
        """Exact fast samplers for the dice and the deck; the generic one for setup draws."""
        phase = self.phase
        if phase == P_HIT or phase == P_DAMAGE:
            return 1 + int(rng.random() * 6)
        if phase == P_COLOUR:
            return int(rng.random() * 6)
        if phase == P_DRAW:
            return self.deck.sample(rng)
        return super().sample_chance(rng)

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if (phase == P_HIT or phase == P_DAMAGE) and not 1 <= outcome <= 6:
            raise IllegalActionError(f"no die face {outcome}")
        if phase == P_COLOUR and not 0 <= outcome < 6:
            raise IllegalActionError(f"no colour die face {outcome}")
        self._legal = None
        if phase == P_HIT:
            if outcome <= 3:  # 4.1 Attack 1: 1-3 hits
                self.phase = P_DAMAGE
            else:  # 4-6 misses and ends the turn
                self.target = -1
                self._end_turn()
        elif phase == P_DAMAGE:
            self.roll = outcome  # 4.1 Attack 2: damage 10 x the roll
            self.phase = P_COLOUR
        elif phase == P_COLOUR:
            self.black = outcome < self.options.black_faces  # T9, T10
            self.phase = P_POSTROLL
            self._settle()
        elif phase == P_DRAW:
            try:
                self.deck.take(outcome)
            except ValueError as err:
                raise IllegalActionError(str(err)) from err
            self._receive_card(self.to_move, outcome)
            if self.phase != P_OVER:
                self._end_turn()
        elif phase == P_CHARS:
            if not 0 <= outcome < ch.NUM_CHARACTERS or outcome in self.char:
                raise IllegalActionError(f"character {outcome} is taken or does not exist")
            self._add_character(self.char.index(-1), outcome)
        else:  # P_FIRST
            if not 0 <= outcome < self.n:
                raise IllegalActionError(f"no seat {outcome} to start")
            if self.options.draft and self.seated() < self.n:
                self._open_draft(outcome)  # T2: the draft goes in turn order from the first player
            else:
                self._begin(outcome)

    # -- decisions --------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal actions of the deciding seat, ascending; empty at chance and terminal nodes."""
        if self._legal is None:
            self._legal = [] if _IS_CHANCE[self.phase] or self.phase == P_OVER else self._generate()
        return self._legal

    def offset(self, target: int) -> int:
        """Seat offset (1..n-1) of ``target`` from the deciding seat, as actions name it."""
        return (target - self.current_player()) % self.n

    def seat_at_offset(self, o: int) -> int:
        """The seat at offset ``o`` from the deciding seat."""
        return (self.current_player() + o) % self.n

    def seat_of(self, character: int) -> int:
        """The seat playing ``character``, or -1."""
        return self.char.index(character) if character in self.char else -1

    def characters_left(self) -> list[int]:
        """The characters no seat has yet (T2: those a seat may still pick), ascending."""
        return [k for k in range(ch.NUM_CHARACTERS) if k not in self.char]

    def distance(self, a: int, b: int) -> int:
        """Chebyshev distance between the squares of seats ``a`` and ``b`` (T4)."""
        return self.geo.dist[self.pos[a] * self.geo.size * self.geo.size + self.pos[b]]

    def valid_targets(self, actor: int, reach: int | None) -> list[int]:
        """Seats ``actor`` may attack or ability-target within ``reach`` (T4, T20, T35; ``None``: at
        any distance).

        Living characters other than the actor, other than the deciding seat (a seduced character
        cannot be made to attack its seducer, T20), and not shielded from the actor (a seducer may not
        target the character he seduced, T20).
        """
        decider = self.ctrl[actor] if self.ctrl[actor] >= 0 else actor
        hp = self.hp
        dist = self.geo.dist
        row = self.pos[actor] * self.geo.size * self.geo.size
        pos = self.pos
        shield = self.shield_by
        return [
            t
            for t in range(self.n)
            if t != actor
            and t != decider
            and hp[t] > 0
            and shield[t] != actor
            and (reach is None or dist[row + pos[t]] <= reach)
        ]

    def move_destination(self, action: int) -> int:
        """The square the acting character ends on with move ``action`` (T5: the offset it names)."""
        dr, dc = MOVE_OFFSETS[action - MOVE]
        return self.pos[self.to_move] + dr * self.geo.size + dc

    def ability_actions(self, actor: int, ability: int) -> list[int]:
        """The ``ABILITY`` / ``PAIR`` actions that resolve ``ability`` from ``actor``'s square (T20-T25)."""
        targets = self.valid_targets(actor, ch.ABILITY_RANGE[ability])
        if ability == ch.SEDUCTION:
            # T33: a character already seduced, or still shielded from its seducer, cannot be seduced.
            targets = [t for t in targets if self.ctrl[t] < 0 and self.shield_by[t] < 0]
        decider = self.ctrl[actor] if self.ctrl[actor] >= 0 else actor
        offsets = sorted((t - decider) % self.n for t in targets)
        if ability == ch.DOUBLE_HIT and len(offsets) >= 2:  # T23: two people in range: choose two
            return [PAIR + PAIR_INDEX[(a, b)] for i, a in enumerate(offsets) for b in offsets[i + 1 :]]
        return [ABILITY + o - 1 for o in offsets]

    def _critical_ok(self, actor: int) -> bool:
        """T17/T37: Aaron's own Critical, or Jamie copying it from a living Aaron within 3."""
        k = self.char[actor]
        if k == ch.AARON:
            return True
        if k == ch.JAMIE:
            aaron = self.seat_of(ch.AARON)
            return (
                aaron >= 0
                and self.hp[aaron] > 0
                and self.distance(actor, aaron) <= ch.ABILITY_RANGE[ch.COPYCAT]
            )
        return False

    def _moves(self, actor: int) -> list[int]:
        """T5: squares within the allowance in king steps, not through or onto ruins or characters."""
        geo = self.geo
        at = self.pos[actor]
        occupied = [self.pos[p] for p in range(self.n) if p != actor and self.hp[p] > 0]
        acts = [STAY]
        for act, dest in geo.step1[at]:
            if dest not in occupied:
                acts.append(MOVE + act)
        if ch.MOVE[self.char[actor]] >= 2:
            for act, dest, mids in geo.step2[at]:
                if dest not in occupied:
                    for m in mids:
                        if m not in occupied:
                            acts.append(MOVE + act)
                            break
        acts.sort()
        return acts

    def _generate(self) -> list[int]:
        phase = self.phase
        if phase == P_PICK:  # T2: any character not yet taken
            return [PICK + k for k in self.characters_left()]
        a = self.to_move
        free = self.ctrl[a] < 0  # T20/T33: a seduced character cannot use its held card
        held = self.held[a]
        health = free and held >= 0 and cards.HEALTH_VALUE[held] > 0
        if phase == P_MOVE:
            acts = self._moves(a)
            if health:
                acts.append(PLAY_HEALTH)  # T11: +Health any time on one's own turn
            return acts
        if phase == P_ACTION:
            acts = []
            if self.round > 1:  # T7: nobody attacks or uses an ability in round 1
                k = self.char[a]
                decider = self.ctrl[a] if self.ctrl[a] >= 0 else a
                n = self.n
                targets = self.valid_targets(a, ch.RANGE[k])
                acts += sorted(ATTACK + (t - decider) % n - 1 for t in targets)
                if free and held == cards.SPECIAL:  # 4.1: an ability needs a Special Ability card
                    if k == ch.JAMIE:
                        acts += self._copy_actions(a)
                    elif k != ch.AARON:  # T17: Critical is used after the damage roll
                        acts += self.ability_actions(a, k)
            if health:
                acts.append(PLAY_HEALTH)
            acts.append(END)
            acts.sort()
            return acts
        if phase == P_COPY:
            return self.ability_actions(a, self.copy)
        # P_POSTROLL (T11, T17, T19)
        acts = []
        if free:
            if held == cards.SPECIAL and not self.crit and self._critical_ok(a):
                acts.append(CRITICAL)
            if held >= 0 and cards.DAMAGE_VALUE[held] > 0:
                acts.append(PLAY_DAMAGE)
            if health:
                acts.append(PLAY_HEALTH)
        acts.append(END)
        return acts

    def _copy_actions(self, jamie: int) -> list[int]:
        """T22: copy the targeted ability of a living character within 3 that has a target from here."""
        acts = []
        for q in range(self.n):
            if q == jamie or self.hp[q] <= 0:
                continue
            k = self.char[q]
            if k not in ch.COPYABLE_TARGETED or self.distance(jamie, q) > ch.ABILITY_RANGE[ch.COPYCAT]:
                continue
            if self.ability_actions(jamie, k):
                acts.append(COPY + k)
        return sorted(acts)

    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or a decision of the deciding seat."""
        phase = self.phase
        if phase == P_OVER:
            raise IllegalActionError("the game is over")
        if _IS_CHANCE[phase]:
            self._apply_chance(action)
            return
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"action {action} is not legal in the {PHASE_NAMES[phase]} step; legal: {self._legal}"
            )
        self._legal = None
        a = self.to_move
        if phase == P_PICK:  # T2: the pick is public and final
            self._add_character(a, action - PICK)
        elif action == PLAY_HEALTH:  # T11, T16
            card = self.held[a]
            self.hp[a] = min(ch.MAX_HP[self.char[a]], self.hp[a] + cards.HEALTH_VALUE[card])
            self._spend(a)
            self._settle()
        elif action < ATTACK:  # the move step (T5)
            self.pos[a] = self.move_destination(action)
            self.phase = P_ACTION
            self._settle()
        elif action == END:
            if phase == P_ACTION:
                self._end_turn()
            else:
                self._resolve_attack()
        elif action < ABILITY:  # basic attack: roll to hit (4.1 Attack)
            self.target = self.seat_at_offset(action - ATTACK + 1)
            self.phase = P_HIT
        elif action < COPY:
            ability = self.copy if phase == P_COPY else self.char[a]
            if action < PAIR:
                targets = [self.seat_at_offset(action - ABILITY + 1)]
            else:
                o1, o2 = PAIRS[action - PAIR]
                targets = [self.seat_at_offset(o1), self.seat_at_offset(o2)]
            self._spend(a)  # 4.1: the Special Ability card is spent
            self.copy = -1
            self._use_ability(a, ability, targets)
            if self.phase != P_OVER:
                self._end_turn()  # T17: the ability is the turn's one offensive action
        elif action < CRITICAL:  # T22: Jamie picks the ability; the target comes next
            self.copy = action - COPY
            self.phase = P_COPY
        elif action == CRITICAL:  # T17, T19, T37
            self.crit = True
            self._spend(a)
            self._settle()
        else:  # PLAY_DAMAGE (T11, T19)
            self.bonus += cards.DAMAGE_VALUE[self.held[a]]
            self._spend(a)
            self._settle()

    # -- resolution -------------------------------------------------------------------------------
    def _spend(self, p: int) -> None:
        """Discard ``p``'s held card (played or spent)."""
        self.deck.discard(self.held[p])
        self.held[p] = -1

    def _settle(self) -> None:
        """T34: while the pending step offers nothing but ``END``, take it."""
        while self.phase == P_ACTION or self.phase == P_POSTROLL:
            legal = self._generate()
            if legal != [END]:
                self._legal = legal
                return
            if self.phase == P_ACTION:
                self._end_turn()
            else:
                self._resolve_attack()

    def _resolve_attack(self) -> None:
        """Apply the basic attack's damage (T19: roll x 10, doubled by Critical, plus the card bonus),
        then draw a card on black (T10, T12, T27) or end the turn."""
        damage = self.roll * 10 * (2 if self.crit else 1) + self.bonus
        target = self.target
        self.roll = 0
        self.crit = False
        self.bonus = 0
        self.target = -1
        black = self.black
        self.black = False
        self._legal = None
        attacker = self.current_player()  # T20: the seducer's decision while the attacker is seduced
        killed = [target] if self._hurt(target, damage, attacker) else []
        if killed and self._check_over(killed):
            return
        if black:
            if self.deck.draw_pile_size() == 0:
                self.deck.reshuffle()  # T27: the discards become a new deck
            if self.deck.draw_pile_size() > 0:
                self.phase = P_DRAW
                return
            # T36: no card anywhere to draw (only with a tiny custom deck): nothing is drawn.
        self._end_turn()

    def _receive_card(self, p: int, kind: int) -> None:
        """T12-T15: the new card replaces the held one; good cards are kept, bad ones resolve at once."""
        good = cards.GOOD[kind]
        if self.held[p] >= 0 and (good or self.options.bad_draw_discards_held):
            self._spend(p)  # T12: the previous card is discarded
        if good:
            self.held[p] = kind
            return
        self.deck.discard(kind)
        if kind == cards.SKIP_TURN:
            self.skip[p] += 1  # T15: the drawer skips their next turn (T32: skips add up)
        elif kind == cards.JOKER:
            self.hp[p] -= self.hp[p] // 2  # T14: lose floor(HP / 2); never kills
        # Null (T13): no effect.

    def _use_ability(self, a: int, ability: int, targets: list[int]) -> None:
        """Resolve an ability from ``a``'s square on ``targets`` (T18: no roll, fixed effects)."""
        killed: list[int] = []
        if ability == ch.SEDUCTION:  # T20
            t = targets[0]
            self.ctrl[t] = a
            self.ctrl_turns[t] = ch.SEDUCTION_TURNS
            self.shield_by[t] = a
            self.shield_turns[t] = ch.SEDUCTION_TURNS
        elif ability == ch.HEALTH_STEAL:  # T25 (Jamie copying: capped at his own 200, T16)
            t = targets[0]
            drained = min(ch.STEAL, self.hp[t])
            self.hp[a] = min(ch.MAX_HP[self.char[a]], self.hp[a] + drained)
            if self._hurt(t, drained, a):
                killed.append(t)
        elif ability == ch.FIRE:  # T21: three ticks at the target's turn starts; re-burning refreshes
            self.burn[targets[0]] = ch.FIRE_TURNS
            self.burn_by[targets[0]] = a
        elif ability == ch.DOUBLE_HIT:  # T23
            each = ch.DOUBLE_HIT_EACH if len(targets) == 2 else ch.DOUBLE_HIT_SINGLE
            for t in targets:
                if self._hurt(t, each, a):
                    killed.append(t)
        else:  # TRAP, T24
            t = targets[0]
            if self._hurt(t, ch.TRAP_DAMAGE, a):
                killed.append(t)
            else:
                self.skip[t] += 1
        if killed:
            self._check_over(killed)

    def _hurt(self, t: int, amount: int, by: int) -> bool:
        """Take ``amount`` HP from seat ``t`` on seat ``by``'s account (T28: the HP actually lost counts
        as damage dealt); True if that eliminates ``t`` (T26, T38)."""
        if by >= 0 and by != t:
            self.dealt[by] += min(amount, self.hp[t])
        hp = self.hp[t] - amount
        if hp > 0:
            self.hp[t] = hp
            return False
        self.hp[t] = 0
        self._eliminate(t)
        return True

    def _eliminate(self, t: int) -> None:
        """T38: off the board, card discarded, statuses cleared; seductions it holds end (T20)."""
        self.pos[t] = -1
        if self.held[t] >= 0:
            self._spend(t)
        self.burn[t] = self.skip[t] = 0
        self.ctrl[t] = self.shield_by[t] = self.burn_by[t] = -1
        self.ctrl_turns[t] = self.shield_turns[t] = 0
        for p in range(self.n):
            if self.ctrl[p] == t:
                self.ctrl[p] = -1
                self.ctrl_turns[p] = 0
            if self.shield_by[p] == t:
                self.shield_by[p] = -1
                self.shield_turns[p] = 0

    def _check_over(self, killed: list[int]) -> bool:
        """T26: one character left wins; if the last ones die together, they draw. True if over."""
        alive = [p for p in range(self.n) if self.hp[p] > 0]
        if len(alive) >= 2:
            return False
        self.outcome = alive if alive else sorted(killed)
        self._finish()
        return True

    def _finish(self) -> None:
        self.phase = P_OVER
        self.roll = 0
        self.black = False
        self.target = -1
        self.crit = False
        self.bonus = 0
        self.copy = -1
        self._legal = None

    def cap_standing(self, p: int) -> tuple[float, ...]:
        """T28: the key by which the living seat ``p`` is ranked at the round cap (highest wins)."""
        share = self.hp[p] / ch.MAX_HP[self.char[p]]
        rule = self.options.cap_tiebreak
        if rule == "damage":
            return (float(self.dealt[p]), share)
        if rule == "hp":
            return (float(self.hp[p]),)
        return (share,)

    def _end_at_cap(self) -> None:
        """T28: after ``max_rounds`` rounds the living seat with the best :meth:`cap_standing` wins; a tie
        is a draw among the tied."""
        living = [p for p in range(self.n) if self.hp[p] > 0]
        best = max(self.cap_standing(p) for p in living)
        self.outcome = [p for p in living if self.cap_standing(p) == best]
        self._finish()

    # -- turns ------------------------------------------------------------------------------------
    def _end_turn(self) -> None:
        """Close the acting character's turn (T20 expiries) and pass the turn on."""
        self._close_turn(self.to_move)
        self._advance()

    def _close_turn(self, a: int) -> None:
        """T20: a seduction whose two controlled turns are used up ends, and so does the seducer's
        restriction once his own two turns are over."""
        self.phase = P_MOVE
        self.copy = -1
        if self.ctrl[a] >= 0 and self.ctrl_turns[a] == 0:
            self.ctrl[a] = -1
        for p in range(self.n):
            if self.shield_by[p] == a and self.shield_turns[p] == 0:
                self.shield_by[p] = -1

    def _advance(self) -> None:
        """Pass the turn clockwise to the next living seat; a round starts each time the turn passes
        the first player's seat (T39) and the cap ends the game (T28)."""
        n = self.n
        q = self.to_move
        while True:
            q = (q + 1) % n
            if q == self.first:
                self.round += 1
                if self.round > self.options.max_rounds:
                    self._end_at_cap()
                    return
            if self.hp[q] <= 0:
                continue
            self.to_move = q
            if self._start_turn(q) or self.phase == P_OVER:
                return

    def _start_turn(self, q: int) -> bool:
        """Start-of-turn effects (4.3 step 1). True if ``q`` now decides its move; False if the turn
        was used up (Fire killed ``q``, or the turn is skipped)."""
        self._legal = None
        for p in range(self.n):  # T20/T32: each own turn, skipped or not, counts for the restriction
            if self.shield_by[p] == q and self.shield_turns[p] > 0:
                self.shield_turns[p] -= 1
        if self.ctrl[q] >= 0 and self.ctrl_turns[q] > 0:
            self.ctrl_turns[q] -= 1  # T20/T32: this turn is one of the two controlled turns
        if self.burn[q] > 0:  # T21: Fire ticks at the start of the target's turn
            self.burn[q] -= 1
            burner = self.burn_by[q]
            if self.burn[q] == 0:
                self.burn_by[q] = -1
            if self._hurt(q, ch.FIRE_DAMAGE, burner):
                self._check_over([q])
                return False
        if self.skip[q] > 0:  # T15, T24: the turn is missed
            self.skip[q] -= 1
            self._close_turn(q)
            return False
        self.phase = P_MOVE
        return True

    # -- copying and serialising ------------------------------------------------------------------
    def clone(self) -> LostCityState:
        """An independent copy."""
        new = LostCityState.__new__(LostCityState)
        new.options = self.options
        new.geo = self.geo
        new.n = self.n
        new.char = self.char[:]
        new.hp = self.hp[:]
        new.pos = self.pos[:]
        new.held = self.held[:]
        new.burn = self.burn[:]
        new.skip = self.skip[:]
        new.ctrl = self.ctrl[:]
        new.ctrl_turns = self.ctrl_turns[:]
        new.shield_by = self.shield_by[:]
        new.shield_turns = self.shield_turns[:]
        new.burn_by = self.burn_by[:]
        new.dealt = self.dealt[:]
        new.deck = self.deck.clone()
        new.phase = self.phase
        new.to_move = self.to_move
        new.first = self.first
        new.round = self.round
        new.roll = self.roll
        new.black = self.black
        new.target = self.target
        new.crit = self.crit
        new.bonus = self.bonus
        new.copy = self.copy
        new.outcome = self.outcome[:]
        new._legal = self._legal
        return new

    _LISTS = (
        "char", "hp", "pos", "held", "burn", "skip", "ctrl", "ctrl_turns", "shield_by", "shield_turns",
        "burn_by", "dealt",
    )  # fmt: skip
    _SCALARS = ("phase", "to_move", "first", "round", "roll", "target", "bonus", "copy")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of the exact position."""
        data: dict[str, Any] = {"game": self.game_name, "options": options_to_dict(self.options)}
        for key in self._LISTS:
            data[key] = getattr(self, key)[:]
        for key in self._SCALARS:
            data[key] = getattr(self, key)
        data["black"] = self.black
        data["crit"] = self.crit
        data["outcome"] = self.outcome[:]
        data["deck"] = self.deck.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LostCityState:
        """Rebuild a state written by :meth:`to_dict`, every field checked against the options and the
        characters (a missing, unknown or bad field raises :class:`~boardenvs.core.fields.StateDictError`
        naming it, e.g. ``hp[2] = 999 is outside 0..250 (Rob's starting HP)``)."""
        f = Fields(data, "lost_city_v0 state")
        options: LostCityOptions = f.options(LostCityOptions, cls.game_name)
        state = cls(options)
        n, last, cells = state.n, state.n - 1, options.board_size**2
        seats, seat = integers(n, -1, last, "a seat, -1: none"), integer(-1, last, "a seat, -1: none")
        v = f.read(
            {"char": integers(n, -1, ch.NUM_CHARACTERS - 1, "-1: none yet, T2"), "phase": integer(0, P_OVER)}
        )
        char, phase = v["char"], v["phase"]
        picked = [k for k in char if k >= 0]
        f.check(len(set(picked)) == len(picked), "char", f"= {char} gives a character to two seats (T2)")
        fixed = options.character_ids
        f.check(fixed is None or tuple(char) == fixed, "char", f"= {char}, but the options fix {fixed}")
        f.check(phase != P_PICK or options.draft, "phase", "= draft, but the characters are not picked (T2)")
        f.check(
            phase < P_MOVE or len(picked) == n,
            "phase",
            f"= {PHASE_NAMES[phase]} before every seat has a character",
        )
        start_hp = [ch.MAX_HP[k] if k >= 0 else 0 for k in char]
        hp_notes = [f"{ch.NAMES[k]}'s starting HP" if k >= 0 else "no character yet" for k in char]
        v |= f.read(
            {
                "hp": integers(n, 0, start_hp, hp_notes),  # T16: healing stops at the starting HP
                "pos": integers(
                    n,
                    -1,
                    cells - 1,
                    f"a square of the {options.board_size}x{options.board_size} board, -1: out",
                ),
                "held": integers(n, -1, cards.NUM_KINDS - 1, "a card kind, -1: none"),
                "burn": integers(n, 0, ch.FIRE_TURNS, "T21: Fire ticks"),
                "skip": integers(n, 0, None),
                "ctrl": seats,
                "ctrl_turns": integers(n, 0, ch.SEDUCTION_TURNS, "T20"),
                "shield_by": seats,
                "shield_turns": integers(n, 0, ch.SEDUCTION_TURNS, "T20"),
                "burn_by": seats,
                "dealt": integers(n, 0, None),
                "to_move": integer(0, last),
                "first": integer(0, last),
                "round": integer(1, options.max_rounds + 1, "max_rounds + 1 once the cap ends the game, T28"),
                "roll": integer(0, 6, "the damage die, 0: none"),
                "target": seat,
                "bonus": integer(0, max(cards.DAMAGE_VALUE), "T11: one +Damage card"),
                "copy": integer(-1, ch.NUM_CHARACTERS - 1, "an ability, -1: none"),
                "black": flag(),
                "crit": flag(),
                "outcome": integers(None, 0, last, "the winner or the tied seats"),
            }
        )
        held = v["held"]
        state.deck = Deck.read(
            f.sub("deck"), options.card_counts, [held.count(k) for k in range(cards.NUM_KINDS)]
        )
        f.finish()
        for key, value in v.items():
            setattr(state, key, value)
        hp, pos, ruin, outcome = state.hp, state.pos, state.geo.ruin, state.outcome
        squares: set[int] = set()
        for p in range(n):
            on_board = hp[p] > 0 or phase < P_MOVE  # T38: an eliminated character leaves the board
            if on_board:
                f.check(
                    pos[p] >= 0 and not ruin[pos[p]], f"pos[{p}]", f"= {pos[p]} is not a free square (T1)"
                )
                f.check(
                    pos[p] not in squares, f"pos[{p}]", f"= {pos[p]}: another character stands there (T5)"
                )
                squares.add(pos[p])
            else:
                f.check(pos[p] == -1, f"pos[{p}]", f"= {pos[p]}, but player {p} is out (hp 0): -1 (T38)")
            f.check(
                held[p] < 0 or cards.GOOD[held[p]], f"held[{p}]", f"= {held[p]}: bad cards are not kept (T12)"
            )
            for key in ("ctrl", "shield_by"):
                f.check(
                    getattr(state, key)[p] != p,
                    f"{key}[{p}]",
                    f"= {p}: a character cannot seduce itself (T20)",
                )
        f.check(len(set(outcome)) == len(outcome), "outcome", f"= {outcome} names a seat twice")
        f.check(
            bool(outcome) == (phase == P_OVER),
            "outcome",
            f"= {outcome}: the winners once the game is over, else []",
        )
        acting = P_MOVE <= phase < P_OVER
        f.check(not acting or hp[state.to_move] > 0, "to_move", f"= {state.to_move}, a character that is out")
        state._legal = None
        return check_playable(state, n, "lost_city_v0 state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LostCityState) and self.to_dict() == other.to_dict()

    # -- text -------------------------------------------------------------------------------------
    def seat_name(self, p: int) -> str:
        """E.g. ``"Rob (player_0)"``; ``"? (player_0)"`` before the seat has a character."""
        name = ch.NAMES[self.char[p]] if self.char[p] >= 0 else "?"
        return f"{name} (player_{p})"

    def action_to_string(self, action: int, view: int | None = None) -> str:
        """Describe a decision in words, e.g. ``"Jack attacks Rob (player_0)"``, or a chance outcome
        (``"damage roll 3"``). Nothing is private (the deck order is never stored): ``view`` changes
        nothing."""
        phase = self.phase
        if _IS_CHANCE[phase]:
            if phase == P_CHARS and 0 <= action < ch.NUM_CHARACTERS and -1 in self.char:
                return f"player_{self.char.index(-1)} is {ch.NAMES[action]}"
            if phase == P_FIRST:
                return f"player_{action} goes first"
            if phase == P_HIT:
                return f"hit roll {action}: " + ("hit" if action <= 3 else "miss")
            if phase == P_DAMAGE:
                return f"damage roll {action}: {10 * action} damage"
            if phase == P_COLOUR:
                return "colour die shows " + ("black" if action < self.options.black_faces else "a colour")
            if phase == P_DRAW and 0 <= action < len(cards.CARD_NAMES):
                return f"{self.seat_name(self.to_move)} draws {cards.CARD_NAMES[action]}"
            return f"chance outcome {action}"
        if phase == P_OVER:
            return f"invalid action {action}"
        a = self.to_move
        if phase == P_PICK:
            if PICK <= action < NUM_ACTIONS:
                return f"player_{a} picks {ch.NAMES[action - PICK]}"
            return f"invalid action {action}"
        if not 0 <= action < PICK:
            return f"invalid action {action}"
        who = ch.NAMES[self.char[a]]
        if action < ATTACK:
            dr, dc = MOVE_OFFSETS[action]
            if (dr, dc) == (0, 0):
                return f"{who} stays put"
            r, c = self.geo.cell(self.pos[a])
            return f"{who} moves to {(r + dr, c + dc)}"
        if action < ABILITY:
            return f"{who} attacks {self.seat_name(self.seat_at_offset(action - ATTACK + 1))}"
        if action < COPY:
            ability = self.copy if self.phase == P_COPY else self.char[a]
            if action < PAIR:
                names = self.seat_name(self.seat_at_offset(action - ABILITY + 1))
            else:
                o1, o2 = PAIRS[action - PAIR]
                names = (
                    f"{self.seat_name(self.seat_at_offset(o1))} and {self.seat_name(self.seat_at_offset(o2))}"
                )
            return f"{who} uses {ch.ABILITY_NAMES[ability]} on {names}"
        if action < CRITICAL:
            return f"{who} copies {ch.ABILITY_NAMES[action - COPY]}"
        if action == CRITICAL:
            return f"{who} uses Critical on the {self.roll * 10} damage rolled"
        if action == PLAY_DAMAGE:
            return f"{who} plays {cards.CARD_NAMES[self.held[a]]}"
        if action == PLAY_HEALTH:
            return f"{who} plays {cards.CARD_NAMES[self.held[a]]}"
        return f"{who} ends the {PHASE_NAMES[self.phase]} step"

    def render_text(self, view: int | None = None) -> str:
        """The grid (``#`` ruins, seat digits) and a line per character.

        Every card and status is public (a held card was drawn openly: no hidden hands), so ``view``
        changes nothing.
        """
        size = self.geo.size
        grid = [["#" if self.geo.ruin[r * size + c] else "." for c in range(size)] for r in range(size)]
        for p in range(self.n):
            if self.hp[p] > 0 and self.pos[p] >= 0:
                r, c = self.geo.cell(self.pos[p])
                grid[r][c] = str(p)
        lines = [" ".join(row) for row in grid]
        for p in range(self.n):
            k = self.char[p]
            if k < 0:
                lines.append(f"player_{p}: (no character yet)")
                continue
            status = []
            if self.held[p] >= 0:
                status.append(f"card {cards.CARD_NAMES[self.held[p]]}")
            if self.burn[p]:
                status.append(f"burning {self.burn[p]}")
            if self.skip[p]:
                status.append(f"skips {self.skip[p]}")
            if self.ctrl[p] >= 0:
                status.append(f"seduced by player_{self.ctrl[p]} ({self.ctrl_turns[p]} more)")
            where = self.geo.cell(self.pos[p]) if self.pos[p] >= 0 else "out"
            lines.append(
                f"player_{p}: {ch.NAMES[k]:<6} HP {self.hp[p]:>3}/{ch.MAX_HP[k]} at {where}"
                + (f"; {', '.join(status)}" if status else "")
            )
        if self.phase == P_OVER:
            if len(self.outcome) == 1:
                lines.append(f"round {self.round}: {self.seat_name(self.outcome[0])} wins")
            else:
                lines.append(
                    f"round {self.round}: draw between {', '.join(map(self.seat_name, self.outcome))}"
                )
        elif self.phase >= P_MOVE:
            lines.append(
                f"round {self.round}: {self.seat_name(self.to_move)} to act ({PHASE_NAMES[self.phase]}), "
                f"deck {self.deck.draw_pile_size()}"
            )
        elif self.phase == P_PICK:
            left = ", ".join(ch.NAMES[k] for k in self.characters_left())
            lines.append(f"setup: draft, player_{self.to_move} to pick from {left}")
        else:
            lines.append(f"setup: {PHASE_NAMES[self.phase]}")
        return "\n".join(lines)
