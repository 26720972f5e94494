"""Rules-lawyer tests for the Gangsi rules core (``docs/rules/gangsi.md``).

Every test cites the rule id it checks (K2-K26 of the specification; K27-K34 are settled in
``boardenvs/gangsi/env.py``). Positions are scripted on the classic map (the first map of gangsi.md
3.3, ``maze="classic"``, the drawing-format example): the rules do not depend on the map, and that
map's facts are listed below; the default map's own facts are checked by the K5 and K7 tests. A
scripted table is a fresh :class:`GangsiState`, hands dealt by hand, pieces placed, and the dice
rolled as explicit chance outcomes (0-3 = the numbers 1-4, 4 = the arrow, 5 = the Kyonshi face).
Squares are ``sq(row, col)``.

Classic-map facts used below: row 5 has no wall between its squares; (5,0) opens north, east and
south; (5,1) is walled on the north; (5,2) and (5,3) on the south; the entrance (10,5) opens only to
(9,5) and the coffin (10,6) only to (9,6); (9,5) and (9,6) are walled on the north.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError
from boardenvs.gangsi import board
from boardenvs.gangsi.board import CLASSIC_MAP, CRYPT_MAP, DEFAULT_MAZE, MAPS, get_maze, parse_maze
from boardenvs.gangsi.cards import (
    CARD_COLOR,
    COLOR_COUNTS,
    COLOR_MASK,
    HUNTER_FACES,
    NUM_TREASURES,
    TOKENS_TO_WIN,
    TREASURE_CODES,
)
from boardenvs.gangsi.rules import (
    ARROW_ACTION,
    DIR,
    FACE,
    KEEP,
    KYONSHI,
    PASSED,
    PH_CHOOSE,
    PH_DEAL,
    PH_DIR,
    PH_KY_MOVE,
    PH_KY_ROLL,
    PH_OVER,
    PH_RESET,
    PH_ROLL,
    REROLL,
    RESET,
    STEP,
    STOP,
    GangsiOptions,
    GangsiState,
)

N, E, S, W = range(4)
ONE, TWO, THREE, FOUR, ARROW, KY = range(6)
#: The map of the scripted positions.
MAZE = get_maze("classic")
EN, CF = MAZE.entrance, MAZE.coffin


def sq(r: int, c: int) -> int:
    return r * 11 + c


def t(code: str) -> int:
    return TREASURE_CODES.index(code)


def hand(*codes: str) -> int:
    return sum(1 << t(code) for code in codes)


#: Default hands: piece j holds the (j+1)-th card of every colour.
HANDS = [hand(f"A{j + 1}", f"P{j + 1}", f"O{j + 1}", f"Y{j + 1}", f"G{j + 1}") for j in range(4)]


def table(n: int = 2, pos=None, ky: int | None = None, hands=None, aside: int = 0, **options) -> GangsiState:
    """Cards dealt, pieces on ``pos`` (default: the entrance), the Kyonshi on ``ky`` (default: coffin),
    on the classic map unless ``maze`` is given."""
    options.setdefault("maze", "classic")
    s = GangsiState(GangsiOptions(num_hunters=n, **options))
    s.hand = list(hands or HANDS[:n])
    s.deal = 5 * n
    if pos is not None:
        s.pos = list(pos)
        s.maybe = [1 << p if p >= 0 else 0 for p in pos]
        s.lives = [3 if p >= 0 else 0 for p in pos]
    if ky is not None:
        s.ky = ky
    s.aside = aside
    s.phase = PH_OVER  # set by the helpers below
    s._legal = None
    return s


def hunter_turn(s: GangsiState, piece: int) -> GangsiState:
    """Start piece ``piece``'s turn the way the rules do (reset decision, forced reset or roll)."""
    s.phase = PH_OVER
    s._start_turn(piece)
    s._legal = None
    return s


def roll(s: GangsiState, *faces: int) -> None:
    """Apply die faces as chance outcomes, checking each is a chance node."""
    for f in faces:
        assert s.current_player() == CHANCE and s.phase == PH_ROLL, (s.phase, faces)
        s.apply_action(f)


def kyonshi_turn(s: GangsiState, die_index: int) -> None:
    """Start the Kyonshi's normal turn with face ``die_index`` of its die."""
    s.acting = -1
    s.phase = PH_KY_ROLL
    s._legal = None
    s.apply_action(die_index)


def legal(s: GangsiState) -> set[int]:
    return set(s.legal_actions())


def play(s: GangsiState, *actions: int) -> None:
    for a in actions:
        assert a in s.legal_actions(), (a, s.action_to_string(a), s.legal_actions())
        s.apply_action(a)


def dirs(*ds: int) -> set[int]:
    return {DIR + d for d in ds}


# -- K2, K8: dice --------------------------------------------------------------------------------------------
def test_k2_hunter_die_has_six_uniform_faces_and_kyonshi_faces_go_aside():
    assert HUNTER_FACES == ("1", "2", "3", "4", "arrow", "kyonshi")
    s = hunter_turn(table(2, pos=[sq(5, 0), EN]), 0)
    assert s.phase == PH_ROLL and s.to_roll == 5
    assert s.chance_outcomes() == [(f, pytest.approx(1 / 6)) for f in range(6)]
    roll(s, KY, ONE, KY, ARROW, ARROW)
    assert s.aside == 2
    assert s.faces == [1, 0, 0, 0, 2]
    assert s.phase == PH_CHOOSE and s.current_player() == 1


@pytest.mark.parametrize(
    "die,index,steps", [((1, 1, 2, 2, 3, 3), 0, 1), ((1, 1, 2, 2, 3, 3), 5, 3), ((4,), 0, 4)]
)
def test_k8_kyonshi_die_faces_are_an_option(die, index, steps):
    s = table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), kyonshi_die=die)
    s.acting = -1
    s.phase = PH_KY_ROLL
    assert s.chance_outcomes() == [(i, pytest.approx(1 / len(die))) for i in range(len(die))]
    s.apply_action(index)
    assert s.phase == PH_KY_MOVE and s.ky_steps == steps
    assert GangsiOptions().kyonshi_die == (1, 1, 2, 2, 3, 3)


# -- K3, K4, K5: the mission cards ---------------------------------------------------------------------------
def test_k3_twenty_three_cards_in_five_colours():
    assert NUM_TREASURES == 23
    assert COLOR_COUNTS == (5, 5, 5, 4, 4)
    assert [CARD_COLOR.count(c) for c in range(5)] == [5, 5, 5, 4, 4]
    assert sum(bin(m).count("1") for m in COLOR_MASK) == 23


@pytest.mark.parametrize("n", [2, 3, 4])
def test_k4_each_hunter_is_dealt_one_card_of_every_colour(n):
    s = GangsiState(GangsiOptions(num_hunters=n))
    assert s.phase == PH_DEAL and s.current_player() == CHANCE
    # The first card is hunter 0's grey card: any of the five grey cards, evenly.
    assert s.chance_outcomes() == [(k, pytest.approx(0.2)) for k in range(5)]
    rng = np.random.default_rng(n)
    for k in range(5 * n):
        outcomes = dict(s.chance_outcomes())
        colour = k % 5
        dealt = set()
        for h in s.hand:
            dealt |= {x for x in range(23) if h >> x & 1}
        assert set(outcomes) == {x for x in range(23) if CARD_COLOR[x] == colour} - dealt
        with pytest.raises(IllegalActionError):
            s.apply_action(next(iter(dealt))) if dealt else s.apply_action(22 if colour != 4 else 0)
        s.apply_action(s.sample_chance(rng))
    for h in s.hand:
        assert sorted(CARD_COLOR[x] for x in range(23) if h >> x & 1) == [0, 1, 2, 3, 4]
    # The deal is over: hunter_0's first roll follows.
    assert s.phase == PH_ROLL and s.acting == 0


@pytest.mark.parametrize("name", sorted(MAPS))
def test_k5_each_treasure_once_on_the_board_in_its_colour_area(name):
    maze = get_maze(name)
    middle = maze.rows // 2
    assert len(set(maze.treasure_cell)) == 23
    for x, cell in enumerate(maze.treasure_cell):
        r, c = divmod(cell, maze.cols)
        colour = CARD_COLOR[x]
        area = {
            0: r < middle and c < middle,
            1: r < middle and c > middle,
            2: r > middle and c < middle,
            3: r > middle and c > middle,
            4: r == middle or c == middle,
        }[colour]
        assert area, (name, TREASURE_CODES[x], r, c)
    assert MAZE.treasure_cell[t("A1")] == sq(0, 3) and MAZE.treasure_cell[t("G4")] == sq(5, 8)
    assert get_maze().treasure_cell[t("A1")] == sq(0, 2) and get_maze().treasure_cell[t("G4")] == sq(8, 5)


# -- K7: the maze --------------------------------------------------------------------------------------------
def open_neighbours(maze, cell: int) -> list[int]:
    return [n for n in maze.nbr[cell] if n >= 0 and maze.enterable[n]]


def reachable(maze, start: int, blocked: int = -1) -> set[int]:
    """Squares a piece can reach from ``start`` when ``blocked`` is held (entrance and coffin closed)."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in open_neighbours(maze, todo.pop()):
            if nxt != blocked and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_k7_the_default_map_is_a_maze_with_open_doors():
    """K7 (revised): the default map meets the map targets of gangsi.md (the balance targets are
    measured by ``scripts/balance.py``; the figures are in the env docstring)."""
    assert DEFAULT_MAZE == "crypt" and GangsiOptions().maze == "crypt"
    maze = get_maze()
    assert maze is get_maze("crypt") and maze.lines == CRYPT_MAP
    assert GangsiState(GangsiOptions()).maze is maze
    assert maze.rows == maze.cols and maze.rows % 2 == 1 and 11 <= maze.rows <= 15
    assert maze.walls == 49 >= 40
    en, cf = maze.entrance, maze.coffin
    assert (en, cf) == (sq(5, 5), sq(5, 6))
    # Side by side, a wall between them; each opens onto three squares.
    assert cf == en + 1 and maze.nbr[en][E] == -1 and maze.nbr[cf][W] == -1
    assert open_neighbours(maze, en) == [sq(4, 5), sq(6, 5), sq(5, 4)]
    assert open_neighbours(maze, cf) == [sq(4, 6), sq(5, 7), sq(6, 6)]
    # Every square is reachable, and no single square held by a piece cuts the entrance or the coffin
    # off from any part of the maze (no choke point, next to the doors or anywhere else).
    squares = {c for c in range(maze.size) if maze.enterable[c]}
    for door in (en, cf):
        assert reachable(maze, door) - {door} == squares
        for held in squares:
            assert reachable(maze, door, blocked=held) - {door} == squares - {held}, (door, held)
    # At least two loops through each quadrant: open edges inside it beyond a spanning tree.
    for r0, c0 in ((0, 0), (0, 6), (6, 0), (6, 6)):
        cells = {(r, c) for r in range(r0, r0 + 5) for c in range(c0, c0 + 5)}
        edges = sum(
            1
            for r, c in cells
            for d, (dr, dc) in ((E, (0, 1)), (S, (1, 0)))
            if (r + dr, c + dc) in cells and maze.nbr[sq(r, c)][d] >= 0
        )
        assert edges - len(cells) + 1 >= 2, (r0, c0)


def test_k7_the_classic_map_facts():
    """The first map of gangsi.md 3.3, kept as ``maze="classic"``: one square out of each door."""
    assert MAZE.lines == CLASSIC_MAP == MAPS["classic"]
    assert (MAZE.rows, MAZE.cols) == (11, 11)
    assert MAZE.walls == 67
    assert (EN, CF) == (sq(10, 5), sq(10, 6))
    # Entrance and coffin open only north, and a wall separates them.
    assert MAZE.nbr[EN] == (sq(9, 5), -1, -1, -1)
    assert MAZE.nbr[CF] == (sq(9, 6), -1, -1, -1)
    reach = MAZE.dist[EN]
    assert all(reach[c] >= 0 for c in range(121) if c != CF)
    assert max(reach) == 16
    # Loops exist: more open edges than a tree on 121 squares would have.
    edges = sum(1 for c in range(121) for d in (E, S) if MAZE.nbr[c][d] >= 0)
    assert edges > 120


def test_k7_maze_option_takes_a_name_or_a_drawing_and_rejects_bad_ones():
    assert GangsiState(GangsiOptions(maze="classic")).maze.entrance == EN
    assert GangsiState(GangsiOptions(maze=CLASSIC_MAP)).maze.entrance == EN
    rows, cols, walls, labels = parse_maze(CLASSIC_MAP)
    assert (rows, cols, labels["EN"], labels["CF"]) == (11, 11, EN, CF)
    moved = list(CLASSIC_MAP)
    moved[1] = moved[1].replace("| A1 ", "| .  ").replace(" 0 |  .   .   .", " 0 | A1   .   .")
    s = GangsiState(GangsiOptions(maze=tuple(moved)))
    assert s.maze.treasure_cell[t("A1")] == sq(0, 0)
    broken = list(CLASSIC_MAP)
    broken[1] = broken[1].replace("A1", " .")
    with pytest.raises(ValueError, match="A1"):
        GangsiOptions(maze=tuple(broken))
    with pytest.raises(ValueError, match="unknown map name 'labyrinth'.*classic.*crypt"):
        GangsiOptions(maze="labyrinth")
    with pytest.raises(board.MazeError):
        parse_maze(["nonsense"])


# -- K10, K11, K12: hunter movement --------------------------------------------------------------------------
def test_k10_numbers_move_in_a_straight_line_by_default():
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9)), 0)
    roll(s, ONE, TWO, TWO, FOUR, FOUR)
    assert legal(s) == {REROLL, FACE + ONE, FACE + TWO, FACE + FOUR}
    play(s, FACE + TWO)
    # Two north hits the wall above (4,0); east and south are open for two squares.
    assert s.phase == PH_DIR and legal(s) == dirs(E, S)
    play(s, DIR + E)
    assert s.pos[0] == sq(5, 2)
    assert s.phase == PH_ROLL and s.acting == 1
    assert s.last_face[0] == TWO


def test_k10_hunter_turns_option_allows_turns_without_revisiting():
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9), hunter_turns=True), 0)
    roll(s, TWO, TWO, TWO, TWO, TWO)
    play(s, FACE + TWO)
    # (4,0) is a dead end (walled north and east; south is the start square), so north is not offered.
    assert legal(s) == dirs(E, S)
    play(s, DIR + E)
    assert s.cur == sq(5, 1) and s.steps == 1 and s.pos[0] == sq(5, 0)
    assert legal(s) == dirs(E, S)  # (5,1): north walled, west is the start square (K30)
    play(s, DIR + S)  # a turn: east then south
    assert s.pos[0] == sq(6, 1) and s.phase == PH_ROLL and s.acting == 1
    assert s.visited == 0 and s.cur == -1
    # Straight-line rule (default): the same roll cannot turn.
    s2 = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9)), 0)
    roll(s2, TWO, TWO, TWO, TWO, TWO)
    play(s2, FACE + TWO, DIR + E)
    assert s2.pos[0] == sq(5, 2)


def test_k30_a_step_is_offered_only_if_the_move_can_be_completed():
    # (4,0) is a dead end after one step north from (5,0): with turns, a 2 may not go north first.
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9), hunter_turns=True), 0)
    roll(s, TWO, KY, KY, KY, KY)
    play(s, FACE + TWO)
    assert DIR + N not in legal(s)
    # Without turns the straight two-step moves are east and south only, as before.
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9)), 0)
    roll(s, TWO, KY, KY, KY, KY)
    play(s, FACE + TWO)
    assert legal(s) == dirs(E, S)


def test_k11_moves_are_exact():
    # From (5,0) a 4 north is impossible (wall after one square) and so is every shorter stop.
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9)), 0)
    roll(s, FOUR, FOUR, FOUR, FOUR, FOUR)
    play(s, FACE + FOUR)
    # North has one open square only: a 4 may not stop short there (K11). East and south are open.
    assert legal(s) == dirs(E, S)
    assert s.straight_dest(0, sq(5, 0), 4, S) == sq(9, 0)
    assert s.straight_dest(0, sq(5, 0), 1, N) == sq(4, 0)
    assert all(s.straight_dest(0, sq(5, 0), k, N) == -1 for k in (2, 3, 4))
    play(s, DIR + E)
    assert s.pos[0] == sq(5, 4)


def test_k12_numbers_jump_other_hunters_but_do_not_land_on_them():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 2)], ky=sq(9, 9)), 0)
    roll(s, TWO, FOUR, ONE, KY, KY)
    assert legal(s) == {REROLL, FACE + ONE, FACE + TWO, FACE + FOUR}
    play(s, FACE + TWO)
    assert legal(s) == dirs(S)  # east would land on hunter_1 at (5,2)
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 2)], ky=sq(9, 9)), 0)
    roll(s, FOUR, KY, KY, KY, KY)
    play(s, FACE + FOUR)
    play(s, DIR + E)  # over hunter_1, counting its square
    assert s.pos == [sq(5, 4), sq(5, 2)]


def test_k12_the_arrow_stops_before_the_nearest_obstacle():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 6)], ky=sq(9, 9)), 0)
    roll(s, ARROW, KY, KY, KY, KY)
    play(s, ARROW_ACTION)
    assert legal(s) == dirs(N, E, S)
    assert s.arrow_dest(0, sq(5, 0), E) == sq(5, 5)  # stopped by hunter_1 at (5,6)
    assert s.arrow_dest(0, sq(5, 0), N) == sq(4, 0)  # wall
    play(s, DIR + E)
    assert s.pos[0] == sq(5, 5)
    # Without the other hunter the arrow slides to the east wall of row 5.
    s = table(2, pos=[sq(5, 0), EN], ky=sq(9, 9))
    assert s.arrow_dest(0, sq(5, 0), E) == sq(5, 10)


def test_k12_the_kyonshi_blocks_numbers_and_arrows():
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(5, 3)), 0)
    roll(s, TWO, THREE, FOUR, ARROW, KY)
    # 3 and 4 east would enter or cross the Kyonshi: only south remains for them (4 south is walled).
    assert s.straight_dest(0, sq(5, 0), 3, E) == -1
    assert s.straight_dest(0, sq(5, 0), 4, E) == -1
    assert s.straight_dest(0, sq(5, 0), 2, E) == sq(5, 2)
    assert s.arrow_dest(0, sq(5, 0), E) == sq(5, 2)
    assert legal(s) == {REROLL, FACE + TWO, FACE + THREE, FACE + FOUR, FACE + ARROW}
    play(s, FACE + THREE)
    assert legal(s) == dirs(S)


def test_k12_entrance_and_coffin_cannot_be_entered():
    # From (9,5) one step south is the entrance; from (9,6) the coffin.
    s = table(2, pos=[sq(9, 5), sq(9, 6)], ky=sq(0, 0))
    assert s.straight_dest(0, sq(9, 5), 1, S) == -1
    assert s.straight_dest(1, sq(9, 6), 1, S) == -1
    assert s.arrow_dest(0, sq(9, 5), W) == sq(9, 4)  # (9,4) is walled on the west
    s.pos = [sq(9, 4), EN]
    # Past the entrance's door and the coffin's, to the wall east of (9,8).
    assert s.arrow_dest(0, sq(9, 4), E) == sq(9, 8)
    s.pos = [sq(9, 4), sq(8, 0)]
    s.ky = sq(9, 7)
    assert s.arrow_dest(0, sq(9, 4), E) == sq(9, 6)  # the Kyonshi on (9,7) stops the slide


def test_k12_pieces_on_the_entrance_share_it_and_leave_north_only():
    s = hunter_turn(table(3, pos=[EN, EN, EN], ky=sq(0, 0)), 0)
    roll(s, ONE, TWO, THREE, FOUR, ARROW)
    # Only north: 1 reaches (9,5); 2+ north hits the wall above (9,5); the arrow slides one square.
    assert legal(s) == {REROLL, FACE + ONE, FACE + ARROW}
    play(s, FACE + ONE)
    assert legal(s) == dirs(N)
    play(s, DIR + N)
    assert s.pos == [sq(9, 5), EN, EN]


# -- K13, K27: forced re-roll and the pass -------------------------------------------------------------------
def test_k13_k27_forced_reroll_then_pass_when_the_dice_run_out():
    # The Kyonshi on (9,5) blocks the entrance's only door: no face can move.
    s = hunter_turn(table(2, pos=[EN, sq(0, 0)], ky=sq(9, 5)), 0)
    roll(s, ONE, TWO, THREE, FOUR, ARROW)
    assert s.phase == PH_ROLL and s.to_roll == 5 and s.rerolls == 1  # forced, no decision
    roll(s, KY, KY, ONE, ONE, ONE)
    assert s.phase == PH_ROLL and s.to_roll == 3 and s.rerolls == 2 and s.aside == 2
    roll(s, KY, KY, KY)
    # No die left: the turn ends without a decision (K27) and the next hunter must reset (K16).
    assert s.last_face[0] == PASSED
    assert s.acting == 1 and s.aside == 5
    assert s.phase == PH_KY_MOVE and s.interrupt and s.ky_steps == 5


def test_k13_no_forced_reroll_when_one_face_can_move():
    s = hunter_turn(table(2, pos=[EN, sq(0, 0)], ky=sq(0, 10)), 0)
    roll(s, TWO, THREE, FOUR, FOUR, ONE)
    assert s.phase == PH_CHOOSE and legal(s) == {REROLL, FACE + ONE}


# -- K14: re-rolls -------------------------------------------------------------------------------------------
def test_k14_reroll_throws_every_free_die_any_number_of_times():
    s = hunter_turn(table(2, pos=[sq(5, 0), EN], ky=sq(9, 9)), 0)
    roll(s, ONE, ONE, KY, ONE, ONE)
    for k in range(1, 4):
        play(s, REROLL)
        assert s.phase == PH_ROLL and s.to_roll == 4 and s.rerolls == k
        assert s.faces == [0, 0, 0, 0, 0]
        roll(s, TWO, TWO, TWO, TWO)
    play(s, REROLL)
    roll(s, KY, KY, ONE, ONE)
    assert s.aside == 3 and s.rerolls == 4 and s.faces == [2, 0, 0, 0, 0]
    assert REROLL in legal(s)


# -- K15: the shared dice ------------------------------------------------------------------------------------
def test_k15_dice_set_aside_are_shared_and_feed_the_kyonshi():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5)), 0)
    roll(s, KY, KY, ONE, ONE, ONE)
    play(s, FACE + ONE, DIR + E)
    # hunter_1 starts with the two dice still aside: it may reset or roll three.
    assert s.acting == 1 and s.phase == PH_RESET and s.aside == 2
    play(s, KEEP)
    assert s.phase == PH_ROLL and s.to_roll == 3
    roll(s, KY, ONE, ONE)
    play(s, FACE + ONE, DIR + S)
    # The Kyonshi's normal move: die face 3 (index 4) plus the 3 dice aside.
    assert s.phase == PH_KY_ROLL and s.current_player() == CHANCE
    s.apply_action(4)
    assert s.ky_steps == 6 and not s.interrupt
    play(s, STOP)
    # The dice stay aside after the normal turn.
    assert s.aside == 3 and s.round == 1
    assert s.acting == 0 and s.phase == PH_RESET


# -- K16, K31: resets and the interrupt ----------------------------------------------------------------------
def test_k16_reset_is_a_choice_with_one_to_four_dice_aside():
    for aside in (1, 2, 3, 4):
        s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), aside=aside), 0)
        assert s.phase == PH_RESET and s.current_player() == 1
        assert s.legal_actions() == [KEEP, RESET]
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), aside=0), 0)
    assert s.phase == PH_ROLL and s.to_roll == 5  # nothing to reset


def test_k16_k31_reset_gives_the_kyonshi_an_interrupt_then_all_five_dice():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), aside=3), 1)
    play(s, RESET)
    assert s.phase == PH_KY_MOVE and s.current_player() == KYONSHI
    assert s.interrupt and s.ky_steps == 3 and s.aside == 3  # K31: aside until the interrupt ends
    play(s, STEP + N)
    assert s.ky == sq(6, 5) and s.ky_steps == 2
    play(s, STOP)
    assert not s.interrupt and s.aside == 0
    assert s.phase == PH_ROLL and s.to_roll == 5 and s.acting == 1
    assert s.round == 0  # K34: an interrupt is not a round


def test_k16_reset_is_forced_with_no_free_die():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), aside=5), 0)
    assert s.phase == PH_KY_MOVE and s.interrupt and s.ky_steps == 5
    assert s.acting == 0


def test_k31_the_interrupt_ends_by_itself_after_its_last_step():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), aside=1), 0)
    play(s, RESET, STEP + N)
    assert s.phase == PH_ROLL and s.to_roll == 5 and s.aside == 0 and s.ky == sq(6, 5)


# -- K17, K19: the Kyonshi's move ----------------------------------------------------------------------------
def test_k17_kyonshi_moves_up_to_n_steps_and_may_turn_and_revisit():
    s = table(2, pos=[sq(0, 0), sq(0, 10)], ky=sq(5, 3))
    kyonshi_turn(s, 5)  # face 3
    assert s.ky_steps == 3
    assert legal(s) == {STEP + N, STEP + E, STEP + W, STOP}  # (5,3) is walled on the south
    play(s, STEP + E)
    play(s, STEP + W)  # back again: revisiting is allowed
    assert s.ky == sq(5, 3) and s.ky_steps == 1
    play(s, STEP + N)
    assert s.ky == sq(4, 3)
    # Its move ended after the third step: the hunters' next round begins.
    assert s.phase == PH_ROLL and s.acting == 0 and s.round == 1


def test_k17_k19_kyonshi_never_enters_entrance_or_coffin():
    s = table(2, pos=[sq(0, 0), sq(0, 10)], ky=CF)
    kyonshi_turn(s, 5)
    assert legal(s) == {STEP + N, STOP}  # leaving the coffin: north only
    play(s, STEP + N)
    assert legal(s) == {STEP + E, STEP + W, STOP}  # back into the coffin is not offered
    play(s, STEP + W)
    assert legal(s) == {STEP + E, STEP + W, STOP}  # (9,5): the entrance below is not offered
    with pytest.raises(IllegalActionError):
        s.apply_action(STEP + S)


def test_k17_a_catch_ends_the_kyonshis_move_at_once():
    s = table(3, pos=[sq(5, 4), sq(5, 6), sq(0, 0)], ky=sq(5, 2))
    kyonshi_turn(s, 5)
    s.ky_steps = 6
    play(s, STEP + E, STEP + E)
    assert s.ky == sq(5, 4)
    # Caught with four steps left: the move is over and the next round starts.
    assert s.ky_steps == 0 and s.pos[0] == CF and s.lives[0] == 2 and s.tokens == 1
    assert s.pos[1] == sq(5, 6)  # only one catch per move
    assert s.phase == PH_ROLL and s.acting == 0 and s.round == 1


# -- K18: captured hunters -----------------------------------------------------------------------------------
def test_k18_caught_hunters_share_the_coffin_and_leave_it_north():
    s = table(2, pos=[sq(9, 7), CF], ky=sq(8, 7))
    s.lives = [3, 2]
    s.tokens = 1
    kyonshi_turn(s, 3)  # face 2
    play(s, STEP + S)
    assert s.pos == [CF, CF] and s.lives == [2, 2] and s.tokens == 2
    assert s.ky == sq(9, 7)  # the Kyonshi stays where it made the catch
    # hunter_0 moves out of the coffin: the only door is north to (9,6).
    assert s.acting == 0 and s.phase == PH_ROLL
    roll(s, ONE, ONE, ONE, ONE, ONE)
    play(s, FACE + ONE)
    assert legal(s) == dirs(N)
    play(s, DIR + N)
    assert s.pos == [sq(9, 6), CF]


def test_k18_a_caught_hunter_cannot_leave_while_the_kyonshi_blocks_the_door():
    s = hunter_turn(table(2, pos=[CF, sq(0, 0)], ky=sq(9, 6)), 0)
    roll(s, ONE, TWO, THREE, FOUR, ARROW)
    assert s.phase == PH_ROLL and s.rerolls == 1  # forced re-roll (K13)


# -- K20: the hunters' win -----------------------------------------------------------------------------------
def test_k20_fifth_reveal_wins_alone_and_pays_others_minus_one():
    s = hunter_turn(table(3, pos=[sq(5, 4), sq(0, 0), sq(0, 10)], ky=sq(9, 9)), 0)
    s.hand[0] = hand("A1", "P1", "O1", "Y1", "G3")
    s.revealed[0] = hand("A1", "P1", "O1", "Y1")
    roll(s, ONE, KY, KY, KY, KY)
    play(s, FACE + ONE, DIR + E)  # (5,5) is the gourd, G3
    assert s.phase == PH_OVER and s.current_player() == TERMINAL and s.winner == 1
    assert s.returns() == [-1.0, 1.0, -1.0, -1.0]
    assert not s.is_truncated()


def test_k20_others_zero_variant():
    s = hunter_turn(
        table(3, pos=[sq(0, 0), sq(5, 4), sq(0, 10)], ky=sq(9, 9), hunter_win_rewards="others_zero"), 1
    )
    s.hand[1] = hand("A2", "P2", "O2", "Y2", "G3")
    s.revealed[1] = hand("A2", "P2", "O2", "Y2")
    roll(s, ONE, KY, KY, KY, KY)
    play(s, FACE + ONE, DIR + E)
    assert s.winner == 2
    assert s.returns() == [-1.0, 0.0, 1.0, 0.0]


def test_k20_kyonshi_win_pays_every_hunter_minus_one():
    s = table(2, pos=[sq(5, 4), sq(0, 0)], ky=sq(5, 3))
    s.tokens = 3
    s.lives = [2, 2]
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.tokens == 4 == TOKENS_TO_WIN[2]
    assert s.winner == KYONSHI and s.is_terminal()
    assert s.returns() == [1.0, -1.0, -1.0]


@pytest.mark.parametrize("rewards", ["others_minus_one", "others_zero"])
def test_k20_rewards_follow_the_revised_text(rewards):
    """K20 (revised): the winner +1, every other agent -1 (``others_zero``: the other hunters 0, the
    Kyonshi -1); a Kyonshi win pays the Kyonshi +1 and all hunters -1. An eliminated piece (K25) is
    one of the other hunters; the one-controller game (K21) pays its single hunter agent."""
    others = -1.0 if rewards == "others_minus_one" else 0.0
    # A hunter's fifth reveal, with piece 0 already eliminated.
    s = table(4, pos=[-1, sq(5, 4), sq(0, 0), sq(0, 10)], ky=sq(9, 9), hunter_win_rewards=rewards)
    s.tokens = 3
    s.hand[1] = hand("A2", "P2", "O2", "Y2", "G3")
    s.revealed[1] = hand("A2", "P2", "O2", "Y2")
    hunter_turn(s, 1)
    roll(s, ONE, KY, KY, KY, KY)
    play(s, FACE + ONE, DIR + E)  # (5,5) is the gourd, G3
    assert s.winner == 2 and s.returns() == [-1.0, others, 1.0, others, others]
    # The Kyonshi's seventh token: every hunter -1, whatever the option.
    s = table(4, pos=[-1, sq(5, 4), sq(0, 0), sq(0, 10)], ky=sq(5, 3), hunter_win_rewards=rewards)
    s.tokens = 6
    s.lives = [0, 3, 3, 3]
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.winner == KYONSHI and s.returns() == [1.0, -1.0, -1.0, -1.0, -1.0]
    # One controller, two pieces: the agent wins with either piece and loses with both.
    s = table(2, pos=[sq(0, 0), sq(5, 4)], ky=sq(9, 9), num_players=2, hunter_win_rewards=rewards)
    s.hand[1] = hand("A2", "P2", "O2", "Y2", "G3")
    s.revealed[1] = hand("A2", "P2", "O2", "Y2")
    hunter_turn(s, 1)
    roll(s, ONE, KY, KY, KY, KY)
    play(s, FACE + ONE, DIR + E)
    assert s.winner == 1 and s.returns() == [-1.0, 1.0]
    s = table(2, pos=[sq(0, 0), sq(5, 4)], ky=sq(5, 3), num_players=2, hunter_win_rewards=rewards)
    s.tokens = 3
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.winner == KYONSHI and s.returns() == [1.0, -1.0]


# -- K21: player counts and the one-controller game ----------------------------------------------------------
@pytest.mark.parametrize(
    "given,expected",
    [
        ({}, (4, 5, False)),
        ({"num_hunters": 2}, (2, 3, False)),
        ({"num_hunters": 3}, (3, 4, False)),
        ({"num_players": 5}, (4, 5, False)),
        ({"num_players": 3}, (2, 3, False)),
        ({"num_players": 2}, (2, 2, True)),
        ({"one_controller": True, "num_hunters": 2}, (2, 2, True)),
        ({"one_controller": True}, None),
        ({"num_players": 6}, None),
        ({"num_players": 1}, None),
        ({"num_hunters": 5}, None),
        ({"num_hunters": 1}, None),
        ({"num_hunters": 3, "num_players": 3}, None),
        ({"num_players": 2, "one_controller": False}, None),
    ],
)
def test_k21_player_counts(given, expected):
    if expected is None:
        with pytest.raises(ValueError):
            GangsiOptions(**given)
        with pytest.raises(OptionError, match="^gangsi_v0: "):  # named after the game, as in every game
            make_game("gangsi_v0", **given)
        return
    o = GangsiOptions(**given)
    assert (o.num_hunters, o.num_players, o.one_controller) == expected


def test_k21_one_controller_moves_both_pieces_and_wins_with_either():
    s = hunter_turn(table(2, pos=[sq(0, 0), sq(5, 4)], ky=sq(9, 9), one_controller=True), 0)
    assert s.pieces_of(1) == [0, 1] and s.player_of(0) == s.player_of(1) == 1
    roll(s, ONE, ONE, ONE, ONE, ONE)
    assert s.current_player() == 1
    play(s, FACE + ONE, DIR + E)
    assert s.acting == 1 and s.player_of(1) == 1  # the same agent moves the second piece
    s.hand[1] = hand("A2", "P2", "O2", "Y2", "G3")
    s.revealed[1] = hand("A2", "P2", "O2", "Y2")
    roll(s, ONE, KY, KY, KY, KY)
    play(s, FACE + ONE, DIR + E)
    assert s.winner == 1 and s.returns() == [-1.0, 1.0]
    assert s.threshold == 4  # the "2 hunters" row


@pytest.mark.parametrize("n,needed", [(2, 4), (3, 6), (4, 7)])
def test_k21_token_thresholds(n, needed):
    assert TOKENS_TO_WIN[n] == needed
    s = table(n, pos=[sq(5, 4)] + [sq(0, c) for c in range(n - 1)], ky=sq(5, 3))
    s.tokens = needed - 2
    s.lives[0] = 3
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.tokens == needed - 1 and s.winner == -1 and not s.is_terminal()
    s.pos[0] = sq(5, 4)
    s.ky = sq(5, 3)
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.tokens == needed and s.winner == KYONSHI


# -- K22: turn order -----------------------------------------------------------------------------------------
def test_k22_hunters_in_seat_order_then_the_kyonshi_skipping_eliminated_pieces():
    s = table(4, pos=[sq(5, 0), -1, sq(5, 10), sq(0, 0)], ky=sq(7, 5))
    s._start_round()
    seen = []
    rng = np.random.default_rng(0)
    while s.phase != PH_KY_ROLL:
        if s.current_player() == CHANCE:
            s.apply_action(ONE)
            continue
        seen.append(s.current_player())
        acts = s.legal_actions()
        s.apply_action(acts[-1] if s.phase != PH_CHOOSE else acts[1 + int(rng.integers(len(acts) - 1))])
    assert [p for i, p in enumerate(seen) if i == 0 or seen[i - 1] != p] == [1, 3, 4]


# -- K23: reveals --------------------------------------------------------------------------------------------
def test_k23_stopping_on_a_treasure_in_hand_reveals_it():
    s = hunter_turn(table(2, pos=[sq(5, 6), sq(0, 0)], ky=sq(9, 9)), 0)
    s.hand[0] = hand("A1", "P1", "O1", "Y1", "G4")
    roll(s, TWO, KY, KY, KY, KY)
    play(s, FACE + TWO, DIR + E)  # (5,8) is the abacus, G4
    assert s.revealed[0] == hand("G4")
    assert s.maybe[0] == 1 << sq(5, 8)  # the Kyonshi now knows where hunter_0 is (K9)
    assert s.since[0] == 0


def test_k23_passing_over_a_treasure_does_not_reveal_it():
    s = hunter_turn(table(2, pos=[sq(5, 6), sq(0, 0)], ky=sq(9, 9)), 0)
    s.hand[0] = hand("A1", "P1", "O1", "Y1", "G4")
    roll(s, FOUR, KY, KY, KY, KY)
    play(s, FACE + FOUR, DIR + E)  # over (5,8) to (5,10)
    assert s.pos[0] == sq(5, 10) and s.revealed[0] == 0


def test_k33_stopping_on_a_treasure_not_in_hand_marks_it_excluded():
    s = hunter_turn(table(2, pos=[sq(5, 6), sq(0, 0)], ky=sq(9, 9)), 0)
    roll(s, TWO, KY, KY, KY, KY)
    play(s, FACE + TWO, DIR + E)
    assert s.revealed[0] == 0 and s.excluded[0] == hand("G4")


# -- K24: the arrow ------------------------------------------------------------------------------------------
def test_k24_arrow_of_zero_squares_is_illegal_and_may_leave_the_arrow_unusable():
    # (1,1) A2 is walled east and west; north (0,1) and south (2,1) are open.
    s = hunter_turn(table(3, pos=[sq(1, 1), sq(0, 1), sq(2, 1)], ky=sq(9, 9)), 0)
    roll(s, ARROW, ONE, KY, KY, KY)
    # Both open neighbours hold hunters: the arrow cannot move at all, a 1 cannot land there either.
    assert s.phase == PH_ROLL and s.rerolls == 1  # forced re-roll (K13)
    s = hunter_turn(table(3, pos=[sq(1, 1), sq(0, 1), sq(5, 5)], ky=sq(9, 9)), 0)
    roll(s, ARROW, KY, KY, KY, KY)
    play(s, ARROW_ACTION)
    assert legal(s) == dirs(S)


# -- K25: elimination ----------------------------------------------------------------------------------------
def test_k25_last_token_removes_the_piece_and_its_return_is_final():
    s = table(3, pos=[sq(5, 4), sq(0, 0), sq(0, 10)], ky=sq(5, 3))
    s.lives = [1, 3, 3]
    s.tokens = 2
    kyonshi_turn(s, 0)
    play(s, STEP + E)
    assert s.pos[0] == -1 and s.lives[0] == 0 and s.maybe[0] == 0
    assert s.is_out(1) and not s.is_out(2) and not s.is_out(KYONSHI)
    assert s.returns() == [0.0, -1.0, 0.0, 0.0]
    assert s.threshold == 6 and s.winner == -1
    assert s.acting == 1  # its turn is skipped (K22)
    # With others_zero the eliminated hunter's return is not final yet: not out.
    s2 = table(3, pos=[-1, sq(0, 0), sq(0, 10)], ky=sq(5, 3), hunter_win_rewards="others_zero")
    assert not s2.is_out(1) and s2.returns() == [0.0, 0.0, 0.0, 0.0]


# -- K26, K34: the round cap ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cap", ["kyonshi_wins", "truncate"])
def test_k26_k34_round_cap(cap):
    s = table(2, pos=[sq(5, 0), sq(5, 10)], ky=sq(7, 5), max_rounds=3, round_cap=cap)
    s.round = 2
    kyonshi_turn(s, 0)
    play(s, STOP)
    assert s.round == 3 and s.is_terminal()
    if cap == "kyonshi_wins":
        assert s.winner == KYONSHI and s.returns() == [1.0, -1.0, -1.0] and not s.is_truncated()
    else:
        assert s.is_truncated() and s.returns() == [0.0, 0.0, 0.0]
    assert GangsiOptions().max_rounds == 80 and GangsiOptions().round_cap == "kyonshi_wins"


# -- K28: an interrupt that catches the resetting piece ------------------------------------------------------
def test_k28_interrupt_catch_of_the_resetting_piece():
    s = hunter_turn(table(2, pos=[sq(5, 4), sq(0, 0)], ky=sq(5, 3), aside=2), 0)
    play(s, RESET, STEP + E)
    assert s.pos[0] == CF and s.lives[0] == 2
    assert s.phase == PH_ROLL and s.acting == 0 and s.to_roll == 5 and s.aside == 0
    s = hunter_turn(table(2, pos=[sq(5, 4), sq(0, 0)], ky=sq(5, 3), aside=2), 0)
    s.lives[0] = 1
    play(s, RESET, STEP + E)
    assert s.pos[0] == -1
    assert s.acting == 1 and s.phase == PH_ROLL and s.aside == 0


# -- K29: declaring a face -----------------------------------------------------------------------------------
def test_k29_only_faces_that_can_move_are_offered():
    # (2,3) A4: walled east and west; north (1,3) and south (3,3) open; the Kyonshi on (3,3).
    s = hunter_turn(table(2, pos=[sq(2, 3), sq(9, 0)], ky=sq(3, 3)), 0)
    roll(s, ONE, TWO, THREE, FOUR, ARROW)
    # North: (1,3) then the wall above (1,3)? (0,3)-(1,3) is open, then the border.
    assert legal(s) == {REROLL, FACE + ONE, FACE + TWO, FACE + ARROW}
    play(s, FACE + TWO)
    assert legal(s) == dirs(N)
    play(s, DIR + N)
    assert s.pos[0] == sq(0, 3)
    # A1 is in hand_0 by default: revealed.
    assert s.revealed[0] == hand("A1")


# -- K32: the Kyonshi's public knowledge ---------------------------------------------------------------------
def test_k32_possibility_sets_follow_declared_faces_and_kyonshi_steps():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(0, 0)], ky=sq(9, 9)), 0)
    roll(s, TWO, KY, KY, KY, KY)
    play(s, FACE + TWO, DIR + E)
    # A 2 from (5,0): east (5,2) or south (7,0); the Kyonshi does not know which.
    assert s.maybe[0] == (1 << sq(5, 2)) | (1 << sq(7, 0))
    assert s.since[0] == 1 and s.last_face[0] == TWO
    s.phase = PH_OVER
    kyonshi_turn(s, 0)
    s.ky = sq(8, 0)
    s.ky_steps = 2
    s._legal = None
    play(s, STEP + N)  # onto (7,0): no catch, so nobody was there
    assert s.maybe[0] == 1 << sq(5, 2)
    arrow = table(2, pos=[sq(5, 0), sq(0, 0)], ky=sq(5, 7))
    arrow.face = ARROW
    spread = arrow._spread(1 << sq(5, 0), ARROW)
    # The arrow may stop anywhere along each line (unseen hunters), never on or past the Kyonshi.
    east = {sq(5, c) for c in range(1, 7)}
    south = {sq(r, 0) for r in range(6, 11)}
    assert {c for c in range(121) if spread >> c & 1} == east | {sq(4, 0)} | south


def test_k32_turn_mode_possibility_set_uses_self_avoiding_walks():
    s = table(2, pos=[sq(5, 0), sq(0, 0)], ky=sq(9, 9), hunter_turns=True)
    spread = s._spread(1 << sq(5, 0), TWO)
    cells = {c for c in range(121) if spread >> c & 1}
    # Two steps without revisiting: (5,0) itself and dead ends excluded.
    assert sq(5, 0) not in cells
    assert cells == {sq(5, 2), sq(6, 1), sq(7, 0)}


# -- actions and errors --------------------------------------------------------------------------------------
def test_illegal_actions_raise_and_leave_the_state_unchanged():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(0, 0)], ky=sq(9, 9)), 0)
    roll(s, TWO, KY, KY, KY, KY)
    before = s.to_dict()
    for bad in (KEEP, RESET, FACE + ONE, DIR + N, 99, -1):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
        assert s.to_dict() == before
    s.phase = PH_OVER
    with pytest.raises(IllegalActionError):
        s.apply_action(REROLL)
    s = table(2)
    s.phase = PH_ROLL
    s.to_roll = 1
    with pytest.raises(IllegalActionError):
        s.apply_action(6)
    s.phase = PH_KY_ROLL
    with pytest.raises(IllegalActionError):
        s.apply_action(6)


def test_action_strings():
    s = hunter_turn(table(2, pos=[sq(5, 0), sq(0, 0)], ky=sq(9, 9)), 0)
    assert s.action_to_string(ONE) == "die shows 1"
    roll(s, TWO, KY, KY, KY, ARROW)
    assert s.action_to_string(REROLL) == "re-roll"
    assert s.action_to_string(ARROW_ACTION) == "declare arrow"
    play(s, FACE + TWO)
    assert s.action_to_string(DIR + E) == "move east"
    kyonshi_turn(s, 0)
    assert s.action_to_string(STOP) == "kyonshi stop"
    assert s.action_to_string(STEP + W) == "kyonshi west"
