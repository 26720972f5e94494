"""Scripted positions for every rule of neighborhood.md (L1-L26) and the rules added here (L27-L40),
and for every card of every deck, colour lines and both blues included.

Four players by default: seat 0 Silver, 1 Light Blue, 2 Purple, 3 Yellow (L27). Directions: N 0,
NE 1, E 2, SE 3, S 4, SW 5, W 6, NW 7.
"""

from __future__ import annotations

import collections
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from boardenvs.core.options import OptionError
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError
from boardenvs.neighborhood import board
from boardenvs.neighborhood.board import CITY, FOREST, MOUNTAINS, VILLAGE
from boardenvs.neighborhood.cards import (
    DECKS,
    DEFAULT_COUNTS,
    FIRST_KILLER_COUNTS,
    FIRST_WILD_COUNTS,
    KILLER_DECK,
)
from boardenvs.neighborhood.env import NeighborhoodGame
from boardenvs.neighborhood.rules import (
    CELL,
    CH_DECK,
    CH_DIE,
    CH_MOVE,
    CH_SEAT,
    CH_SPIN,
    D_BRANCH,
    D_DIRECTION,
    D_DISTANCE,
    D_KILLER_OR_WILD,
    D_PATH,
    D_PLAYER,
    D_SQUARE,
    D_VICTIM,
    D_VOTE,
    DIR,
    DIST,
    F_TURN,
    KILLER,
    OPTION_A,
    OPTION_B,
    PLAYER,
    STOP,
    WILD,
    NeighborhoodOptions,
    NeighborhoodState,
    seatings,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neighborhood_helpers import (  # noqa: E402
    CITY_DECK,
    FOREST_DECK,
    MOUNTAINS_DECK,
    NE,
    NW,
    SE,
    SW,
    VILLAGE_DECK,
    E,
    N,
    S,
    W,
    cell,
    draw_card,
    kind_of,
    move,
    position,
)


def killer(s: NeighborhoodState, name: str, k: int, v: int, **kw) -> NeighborhoodState:
    return draw_card(s, KILLER_DECK, name, me=k, k=k, v=v, **kw)


def at_next_turn(s: NeighborhoodState, player: int) -> bool:
    """The card is done: ``player`` is about to roll and spin."""
    return (
        s.current_player() == CHANCE and s._chance[0] == CH_MOVE and s.to_move == player and len(s.stack) == 1
    )


def decide(s: NeighborhoodState, kind: int, player: int, legal: list[int] | set[int], action: int):
    assert s.current_player() == player
    assert s.decision_kind() == kind
    assert list(s.legal_actions()) == sorted(legal)
    s.apply_action(action)
    return s


def die(s: NeighborhoodState, value: int) -> NeighborhoodState:
    assert s.current_player() == CHANCE and s._chance == (CH_DIE, 6)
    s.apply_action(value - 1)
    return s


# -- L1-L7: board, colours, start, die, spinner ----------------------------------------------------
@pytest.mark.parametrize("size", [9, 11, 13, 15])
def test_l1_l2_board_of_every_size_is_quadrants_with_roads(size):
    geo = board.geometry(size)
    m, last = size // 2, size - 1
    assert geo.mid == m and len(geo.cells) == size * size
    assert board.location_of(0, 0, size) == MOUNTAINS and board.location_of(0, last, size) == VILLAGE
    assert board.location_of(last, last, size) == CITY and board.location_of(last, 0, size) == FOREST
    assert (
        board.location_of(m, 1, size) == board.location_of(1, m, size) == board.location_of(m, m, size) == -1
    )
    assert [len(geo.cells_in[L]) for L in range(4)] == [m * m] * 4
    # cells are 15 row + col whatever the size; off the board there are no steps and no room
    assert geo.ray[cell(0, 0)][E][-1] == cell(0, last)
    assert geo.step[cell(last, last)][SE] == -1
    if size < 15:
        assert geo.location[cell(0, size)] == -1 and all(not r for r in geo.ray[cell(0, size)])


def test_l1_default_board_is_9x9_and_the_size_is_an_option():
    assert NeighborhoodOptions().board_size == 9
    s = NeighborhoodState(NeighborhoodOptions())
    assert s._geo.size == 9
    for size in (11, 15):
        assert NeighborhoodState(NeighborhoodOptions(board_size=size))._geo.size == size


def test_l8_moves_are_truncated_at_the_edge_of_a_small_board():
    s = position(pos={0: (4, 3)}, board_size=9, wild_spaces=None)
    assert {o % 8 for o in dict(s.chance_outcomes())} == set(range(8))
    move(s, 6, E)  # five squares only, over the star: column 8 is the east edge of the 9x9 board
    assert s.pos[0] == cell(4, 8) and at_next_turn(s, 1)
    s = position(pos={0: (0, 8)}, board_size=9, wild_spaces=None)
    assert {o % 8 for o in dict(s.chance_outcomes())} == {S, SW, W}


@pytest.mark.parametrize("size,count", [(9, 12), (11, 16), (13, 20), (15, 24)])
def test_l3_wild_spaces_ring_each_location_mirror_symmetric(size, count):
    spaces = board.default_wild_spaces(size)
    last, m = size - 1, size // 2
    for L, cells in enumerate(spaces):
        assert len(cells) == count and len(set(cells)) == count
        assert all(board.location_of(r, c, size) == L for r, c in cells)
        # on the board's edge or beside a road; the location's middle is plain
        assert all(r in (0, last, m - 1, m + 1) or c in (0, last, m - 1, m + 1) for r, c in cells)
    mountains = set(spaces[MOUNTAINS])
    assert {(r, last - c) for r, c in mountains} == set(spaces[VILLAGE])
    assert {(last - r, last - c) for r, c in mountains} == set(spaces[CITY])
    assert {(last - r, c) for r, c in mountains} == set(spaces[FOREST])
    wild = NeighborhoodState(NeighborhoodOptions(board_size=size))._wild_loc
    assert sum(1 for c in wild if c >= 0) == 4 * count


def test_l3_first_design_board_is_an_example_of_the_option():
    for L, spaces in enumerate(board.FIRST_WILD_SPACES):
        assert len(spaces) == 6 and all(board.location_of(r, c) == L for r, c in spaces)
    mountains = set(board.FIRST_WILD_SPACES[MOUNTAINS])
    assert {(r, 14 - c) for r, c in mountains} == set(board.FIRST_WILD_SPACES[VILLAGE])
    assert {(14 - r, 14 - c) for r, c in mountains} == set(board.FIRST_WILD_SPACES[CITY])
    assert {(14 - r, c) for r, c in mountains} == set(board.FIRST_WILD_SPACES[FOREST])
    s = NeighborhoodState(NeighborhoodOptions(board_size=15, wild_spaces=board.FIRST_WILD_SPACES))
    assert sum(1 for c in s._wild_loc if c >= 0) == 24


@pytest.mark.parametrize("n,colors", [(3, (0, 1, 3)), (4, (0, 1, 3, 4)), (5, (0, 1, 2, 3, 4))])
@pytest.mark.parametrize("size", [9, 15])
def test_l4_l5_l26_l27_colours_by_count_and_start_squares(n, colors, size):
    s = NeighborhoodState(NeighborhoodOptions(num_players=n, board_size=size))
    assert s.colors == colors
    m = size // 2  # beside the star (m, m), on the side of the colour's location
    starts = {0: (m - 1, m - 1), 1: (m - 1, m + 1), 2: (m, m + 1), 3: (m + 1, m + 1), 4: (m + 1, m - 1)}
    assert s.pos == [cell(*starts[c]) for c in colors]
    assert s.hp == [10] * n
    custom = NeighborhoodState(NeighborhoodOptions(num_players=3, colors=(4, 2, 0), board_size=size))
    assert custom.pos == [cell(*starts[4]), cell(*starts[2]), cell(*starts[0])]


#: The default board (9x9, the retuned Wild Spaces of 1.1b), where four Start squares are Wild Spaces.
DEFAULT_BOARD = {"board_size": 9, "wild_spaces": None}


@pytest.mark.parametrize("seed", range(5))
def test_l5_starting_on_a_wild_space_at_setup_draws_nothing(seed):
    s = NeighborhoodState(NeighborhoodOptions())  # 4 players: Silver, Light Blue, Purple, Yellow
    starts = board.default_start_squares(9)
    wild = {cell(r, c) for spaces in board.default_wild_spaces(9) for r, c in spaces}
    # Every Start square but Dark Blue's (4, 5) is a Wild Space, so every default seat starts on one.
    assert [cell(*sq) in wild for sq in starts] == [True, True, False, True, True]
    assert all(p in wild for p in s.pos)
    unseen = [deck.draw_pile_size() for deck in s.decks]
    rng = np.random.default_rng(seed)
    while not (s.current_player() == CHANCE and s._chance[0] == CH_MOVE):  # setup: seats, roll-offs
        assert s.current_player() == CHANCE and s._chance[0] in (CH_SEAT, CH_DIE)
        s.apply_action(s.sample_chance(rng))
    # The first turn is a plain roll: no Wild card drawn, none pending, every pawn still on its Start.
    assert s.started and s.to_move == s.first and s.stack == [[F_TURN, -1, 0, 0]]
    assert s.pending == [-1] * 4 and s.hp == [10] * 4
    assert [deck.draw_pile_size() for deck in s.decks] == unseen
    assert s.pos == [cell(*starts[c]) for c in s.colors]


def test_l5_landing_on_a_start_square_that_is_a_wild_space_draws_its_wild_card():
    # Light Blue lands on Silver's Start square (3, 3), a Mountains Wild Space; Silver is elsewhere.
    s = position(pos={1: (0, 3)}, to_move=1, **DEFAULT_BOARD)
    move(s, 3, S)
    assert s.pos[1] == cell(3, 3) and s._chance == (CH_DECK, MOUNTAINS_DECK)
    s.apply_action(kind_of(MOUNTAINS_DECK, "Bad Luck"))
    assert s.hp[1] == 9 and at_next_turn(s, 2)
    # Back on its own Start square later, Silver draws there too.
    s = position(pos={0: (3, 0)}, **DEFAULT_BOARD)
    move(s, 3, E)
    assert s.pos[0] == cell(3, 3) and s._chance == (CH_DECK, MOUNTAINS_DECK)


def test_l5_l14_a_character_still_on_its_start_wild_space_is_met_like_on_any_wild_space():
    # Silver has not moved since setup; Light Blue lands on it: Killer card or Wild card (L14).
    s = position(pos={0: (3, 3), 1: (0, 3)}, to_move=1, **DEFAULT_BOARD)
    move(s, 3, S)
    decide(s, D_KILLER_OR_WILD, 1, [KILLER, WILD], WILD)
    assert s._chance == (CH_DECK, MOUNTAINS_DECK)


def test_l5_l12_moved_onto_a_start_wild_space_outside_your_turn_plays_it_next_turn():
    s = position(pos={0: (0, 0), 1: (3, 1)}, **DEFAULT_BOARD)
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 1)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)  # Light Blue 2 east onto (3, 3)
    assert s.pos[1] == cell(3, 3)
    assert s.to_move == 1 and s._chance == (CH_DECK, MOUNTAINS_DECK)  # its next turn is that card (L12)


def test_l6_l7_die_and_eight_point_spinner_are_one_chance_node():
    s = position(pos={0: (7, 3)})
    outcomes = dict(s.chance_outcomes())
    assert set(outcomes) == {8 * i + d for i in range(6) for d in range(8)}
    assert all(p == pytest.approx(1 / 48) for p in outcomes.values())


def test_l7_four_point_spinner_option():
    s = position(pos={0: (7, 3)}, spinner=4)
    assert set(dict(s.chance_outcomes())) == {8 * i + d for i in range(6) for d in (N, E, S, W)}


# -- L8: the move -----------------------------------------------------------------------------------
def test_l8_respin_only_directions_that_allow_movement():
    s = position(pos={0: (0, 0)})
    outcomes = dict(s.chance_outcomes())
    assert {o % 8 for o in outcomes} == {E, SE, S}
    assert all(p == pytest.approx(1 / 18) for p in outcomes.values())
    with pytest.raises(IllegalActionError):
        s.apply_action(8 * 2 + N)  # north of the top row: not an outcome


def test_l8_move_truncated_at_the_edge_and_passes_through_characters():
    s = position(pos={0: (7, 10), 1: (7, 12)})
    move(s, 6, E)
    assert s.pos[0] == cell(7, 14)  # 4 squares only, through Light Blue on (7, 12)
    assert at_next_turn(s, 1) and s.hp == [10] * 4


def test_l8_passing_a_wild_space_triggers_nothing():
    s = position(pos={0: (1, 0)})
    move(s, 3, E)  # through the Wild Space (1, 1) onto (1, 3)
    assert s.pos[0] == cell(1, 3) and at_next_turn(s, 1)


# -- L9: turn order --------------------------------------------------------------------------------
def seat(s: NeighborhoodState, table: tuple[int, ...]) -> NeighborhoodState:
    """Answer the setup's seating chance node (L9) with the cyclic order ``table`` (clockwise)."""
    assert s.current_player() == CHANCE and s._chance == (CH_SEAT, s.n)
    s.apply_action(seatings(s.n).index(table))
    assert s.table == list(table)
    return s


@pytest.mark.parametrize("n", [3, 4, 5])
def test_l9_seating_is_a_chance_event_over_every_cyclic_order(n):
    s = NeighborhoodState(NeighborhoodOptions(num_players=n))
    assert s.current_player() == CHANCE and s._chance == (CH_SEAT, n)
    outcomes = s.chance_outcomes()
    orders = seatings(n)
    assert len(outcomes) == len(orders) == math.factorial(n - 1)
    assert all(p == pytest.approx(1 / len(orders)) for _, p in outcomes)
    # every cyclic order once: read from seat 0, each is a different arrangement of the other seats
    assert len(set(orders)) == len(orders) and all(o[0] == 0 and sorted(o) == list(range(n)) for o in orders)
    assert s.action_to_string(orders.index((0, *range(n - 1, 0, -1)))).endswith("player_1")
    with pytest.raises(IllegalActionError):
        s.apply_action(len(orders))


def test_l9_who_plays_after_whom_is_random():
    # Four players: today's fix. Seat 2 must be able to play right after seat 0, and every play order
    # (read from seat 0) comes up equally often: the seating and the direction are both chance.
    rng = np.random.default_rng(2024)
    after_zero: collections.Counter[int] = collections.Counter()
    orders: collections.Counter[tuple[int, ...]] = collections.Counter()
    games = 2400
    for _ in range(games):
        s = NeighborhoodState(NeighborhoodOptions(num_players=4))
        while s.to_move < 0:
            s.apply_action(s.sample_chance(rng))
        after_zero[s.seat_after(0, s.direction)] += 1
        orders[tuple(s.seat_after(0, i * s.direction) for i in range(4))] += 1
    assert set(after_zero) == {1, 2, 3}
    assert all(abs(after_zero[p] / games - 1 / 3) < 0.05 for p in (1, 2, 3)), after_zero
    assert len(orders) == 6 and all(abs(c / games - 1 / 6) < 0.04 for c in orders.values()), orders


def test_l9_highest_roll_first_ties_reroll_neighbours_set_direction():
    s = seat(NeighborhoodState(NeighborhoodOptions(num_players=4)), (0, 1, 2, 3))
    for value in (3, 6, 2, 6):  # seats 1 and 3 tie for highest
        die(s, value)
    die(s, 6)  # roll-off: seat 1
    die(s, 1)  # seat 3
    # Seat 1's neighbours rolled 3 (seat 0) and 2 (seat 2): play goes towards seat 0.
    assert (s.first, s.direction, s.to_move) == (1, -1, 1)
    assert s._chance[0] == CH_MOVE and s.round == 1
    assert [s._play_order([0, 1, 2, 3])] == [[1, 0, 3, 2]]


def test_l9_neighbours_are_neighbours_around_the_table():
    # Table clockwise 0, 2, 1, 3: seat 1 sits between seats 2 and 3.
    s = seat(NeighborhoodState(NeighborhoodOptions(num_players=4)), (0, 2, 1, 3))
    for value in (5, 6, 2, 4):  # seat 1 is Player 1; its neighbours rolled 2 (seat 2) and 4 (seat 3)
        die(s, value)
    assert (s.first, s.direction, s.to_move) == (1, 1, 1)  # towards seat 3: clockwise
    assert s._play_order([0, 1, 2, 3]) == [1, 3, 0, 2]
    s = position(pos={0: (0, 0), 1: (0, 14), 2: (14, 14), 3: (14, 0)}, to_move=1)
    s._set_table([0, 2, 1, 3])
    s.first = 1
    seen = []
    for d in (S, N, S, N, S):
        seen.append(s.to_move)
        move(s, 1, d)
    assert seen == [1, 3, 0, 2, 1] and s.round == 2


def test_l9_player_actions_count_places_around_the_table():
    # Hostage: the Killer (seat 0) names a player by places after it, clockwise around the table.
    s = position()
    s._set_table([0, 3, 1, 2])
    killer(s, "Hostage", k=0, v=1)  # seat 2 and seat 3 may be chosen: 3 places and 1 place after seat 0
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 3], PLAYER + 1)
    assert s.hp == [10, 9, 10, 9]


def test_l9_neighbours_tie_rerolls_between_them():
    s = seat(NeighborhoodState(NeighborhoodOptions(num_players=3)), (0, 1, 2))
    for value in (4, 6, 4):
        die(s, value)
    die(s, 5)  # neighbours of seat 1 (seats 0 and 2) tied on 4: seat 0 re-rolls 5
    die(s, 5)  # seat 2 too: again
    die(s, 2)
    die(s, 3)  # seat 2 is higher: play goes to seat 2 next
    assert (s.first, s.direction, s.to_move) == (1, 1, 1)


def test_l9_play_order_skips_nobody_and_turns_pass_in_direction():
    s = position(pos={0: (0, 0), 1: (0, 14), 2: (14, 14), 3: (14, 0)})
    s.direction = -1
    move(s, 1, S)  # seat 0: quiet
    assert s.to_move == 3 and s.round == 1  # play goes to the previous seat
    for d, nxt in ((N, 2), (N, 1), (S, 0)):
        move(s, 1, d)
        assert s.to_move == nxt
    assert s.round == 2  # back to the first player: a new round


# -- L10, L11: the decks ----------------------------------------------------------------------------
def test_l10_l11_deck_tables():
    # 1.1b retuning: a 25-card Killer deck heavy on damage, Wild decks of 17-21 cards with 8 Shortcuts
    # each (the Wild cards that lead to encounters) and one copy of each heal.
    assert [sum(c.count for c in d) for d in DECKS] == [25, 20, 17, 21, 18]
    assert DEFAULT_COUNTS[0] == (4, 3, 1, 2, 1, 3, 3, 1, 1, 2, 1, 3)
    assert DEFAULT_COUNTS[1:] == (
        (8, 1, 1, 1, 3, 3, 1, 1, 1),
        (8, 1, 1, 1, 1, 1, 1, 1, 2),
        (8, 1, 1, 1, 1, 4, 2, 2, 1),
        (8, 1, 1, 1, 1, 3, 1, 1, 1),
    )
    assert all(c >= 1 for counts in DEFAULT_COUNTS for c in counts)  # every card kind is still there
    common = ["Shortcut", "First Aid", "Bad Luck", "Crossroads"]
    for deck in DECKS[1:]:
        assert [c.name for c in deck[:4]] == common and [c.count for c in deck[:4]] == [8, 1, 1, 1]
    s = NeighborhoodState(NeighborhoodOptions())
    assert [d.draw_pile_size() for d in s.decks] == [25, 20, 17, 21, 18]


def test_l10_l11_first_design_decks_are_an_example_of_the_options():
    assert sum(FIRST_KILLER_COUNTS) == 24 and [sum(c) for c in FIRST_WILD_COUNTS] == [12] * 4
    s = NeighborhoodState(
        NeighborhoodOptions(killer_counts=FIRST_KILLER_COUNTS, wild_counts=FIRST_WILD_COUNTS)
    )
    assert [d.draw_pile_size() for d in s.decks] == [24, 12, 12, 12, 12]


def test_killer_deck_option_changes_the_deck():
    counts = (1,) + (0,) * 11
    s = position(pos={0: (7, 3), 1: (7, 4)}, killer_counts=counts)
    move(s, 1, E)
    assert s.chance_outcomes() == [(0, 1.0)]  # only Ambush in the deck


# -- L12, L13: Wild cards -------------------------------------------------------------------------
def test_l13_own_turn_wild_space_draws_at_once():
    s = position(pos={0: (1, 3)}, hp={0: 5})
    move(s, 1, E)  # onto the Mountains Wild Space (1, 4)
    assert s._chance == (CH_DECK, MOUNTAINS_DECK)
    s.apply_action(kind_of(MOUNTAINS_DECK, "First Aid"))
    assert s.hp[0] == 7 and at_next_turn(s, 1)


def test_l12_wild_space_outside_your_turn_is_played_next_turn_instead_of_rolling():
    s = position(pos={0: (7, 0), 1: (1, 2)})
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 1)  # any character, me too
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)  # Light Blue 2 east onto (1, 4)
    # Seat 1's pending Mountains card (L12) is its next turn, which comes at once: no roll.
    assert s.pos[1] == cell(1, 4) and s.pending[1] == -1
    assert s.to_move == 1 and s._chance == (CH_DECK, MOUNTAINS_DECK)
    s.apply_action(kind_of(MOUNTAINS_DECK, "Bad Luck"))
    assert s.hp[1] == 9 and s.pending[1] == -1 and s.pos[1] == cell(1, 4)
    assert at_next_turn(s, 2)


def test_l29_only_one_pending_wild_card():
    s = position(pos={0: (7, 0), 1: (1, 2)})
    s.pending[1] = CITY
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 1)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)
    assert s.pos[1] == cell(1, 4) and s.to_move == 1 and s._chance == (CH_DECK, CITY_DECK)


# -- L14, L15: encounters ---------------------------------------------------------------------------
def test_l14_killer_or_wild_on_an_occupied_wild_space():
    for choice, expected in ((KILLER, KILLER_DECK), (WILD, MOUNTAINS_DECK)):
        s = position(pos={0: (1, 3), 1: (1, 4)})
        move(s, 1, E)
        decide(s, D_KILLER_OR_WILD, 0, [KILLER, WILD], choice)
        assert s._chance == (CH_DECK, expected)
        s.apply_action(0)  # Ambush / Shortcut
        if choice == KILLER:
            assert s.hp == [10, 8, 10, 10]
        else:
            assert s.current_player() == 0 and s.decision_kind() == D_PATH  # the Shortcut, not a Killer card


def test_l14_wild_choice_outside_your_turn_is_pending():
    s = position(pos={0: (7, 0), 1: (1, 4), 2: (1, 2)})
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 2)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)
    decide(s, D_KILLER_OR_WILD, 2, [KILLER, WILD], WILD)  # the moved character chooses (L14, L19)
    assert s.pending[2] == MOUNTAINS and s.hp == [10] * 4 and at_next_turn(s, 1)


def test_l15_arriving_player_picks_one_of_two_occupants():
    s = position(pos={0: (7, 0), 1: (7, 3), 2: (7, 3)})
    move(s, 3, E)
    decide(s, D_VICTIM, 0, [PLAYER + 1, PLAYER + 2], PLAYER + 2)
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 10, 8, 10] and at_next_turn(s, 1)


def test_second_arrival_is_the_killer_single_occupant_needs_no_choice():
    s = position(pos={0: (7, 0), 1: (7, 3)})
    move(s, 3, E)
    assert s._chance == (CH_DECK, KILLER_DECK)
    s.apply_action(kind_of(KILLER_DECK, "Self-Defence"))
    assert s.hp == [8, 10, 10, 10]  # K (the arrival) loses 2


# -- L16-L18, L36-L38: simultaneous arrivals --------------------------------------------------------
def gossip(pos, direction, **kw):
    s = position(pos=pos, **kw)
    draw_card(s, VILLAGE_DECK, "Town Gossip", me=0)
    points = (0, 2, 4, 6) if kw.get("spinner") == 4 else range(8)
    decide(s, D_DIRECTION, 0, [DIR + d for d in points], DIR + direction)
    return s


def test_l16_l17_two_arrivals_roll_off_higher_is_killer():
    s = gossip({1: (7, 3), 2: (7, 3)}, E)
    assert s.pos[1] == s.pos[2] == cell(7, 4) and s.pos[3] == cell(14, 1)
    die(s, 5)  # seat 1
    die(s, 2)  # seat 2
    assert s._chance == (CH_DECK, KILLER_DECK)
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 10, 8, 10]


def test_l17_rolloff_tie_rerolls():
    s = gossip({1: (7, 3), 2: (7, 3)}, E)
    die(s, 4)
    die(s, 4)
    die(s, 1)
    die(s, 6)  # seat 2 now the Killer
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 8, 10, 10]


@pytest.mark.parametrize("option,victim", [("lower", 1), ("higher", 2)])
def test_l18_two_arrive_on_an_occupied_square(option, victim):
    s = gossip({1: (3, 13), 2: (3, 13), 3: (3, 14)}, E, triple_arrival_killer=option)
    assert s.pos[1] == s.pos[2] == s.pos[3] == cell(3, 14)  # seat 3 cannot move east
    die(s, 5)  # seat 1 rolls higher
    die(s, 2)
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    expected = [10] * 4
    expected[victim] = 8
    assert s.hp == expected  # the occupant (seat 3) is not involved


def test_l17_l37_vote_on_a_wild_space_all_wild_means_pending_cards():
    s = gossip({1: (3, 11), 2: (3, 11)}, E)
    assert s.pos[1] == cell(3, 12)
    decide(s, D_VOTE, 1, [KILLER, WILD], WILD)
    decide(s, D_VOTE, 2, [KILLER, WILD], WILD)
    # Both hold a Village card; seat 1's turn is next, so it plays it at once instead of rolling.
    assert s.pending == [-1, -1, VILLAGE, -1] and s.hp == [10] * 4
    assert s.to_move == 1 and s._chance == (CH_DECK, VILLAGE_DECK)


@pytest.mark.parametrize("votes", [(KILLER,), (WILD, KILLER)])
def test_l17_l37_any_killer_vote_means_killer_card(votes):
    s = gossip({1: (3, 11), 2: (3, 11)}, E)
    for voter, vote in zip((1, 2), votes, strict=False):
        decide(s, D_VOTE, voter, [KILLER, WILD], vote)
    assert s._chance == (CH_DIE, 6)  # the first Killer vote settles it: the roll-off follows
    die(s, 1)
    die(s, 3)
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 8, 10, 10] and s.pending == [-1] * 4


def test_l36_three_arrivals_killer_chooses_victim():
    s = gossip({1: (7, 3), 2: (7, 3), 3: (7, 3)}, E)
    die(s, 2)
    die(s, 6)
    die(s, 4)  # seat 2 is the Killer
    decide(s, D_VICTIM, 2, [PLAYER + 1, PLAYER + 3], PLAYER + 1)  # seat 3 is one after seat 2
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 10, 10, 8]


def test_l16_single_arrival_of_a_group_move_on_an_occupant_is_an_encounter():
    s = gossip({1: (7, 3), 2: (7, 14), 3: (14, 0)}, E)
    # Seat 2 cannot move east; nobody arrives on it. Seat 1 goes to (7, 4): quiet.
    assert at_next_turn(s, 1)
    s = gossip({1: (7, 13), 2: (7, 14)}, E)
    assert s.pos[1] == s.pos[2] and s._chance == (CH_DECK, KILLER_DECK)  # L19: seat 1 is the Killer
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 10, 8, 10]


def chase_onto(s: NeighborhoodState, victims: list[int] | None = None) -> NeighborhoodState:
    """Seat 1 has landed on seat 0 on (7, 3) (a Town Gossip square resolved first): its Killer card is
    Chase, 1 HP from seat 0, then seat 1 runs 3 squares east onto (7, 6)."""
    assert s._chance == (CH_DECK, KILLER_DECK)
    s.apply_action(kind_of(KILLER_DECK, "Chase"))
    assert s.hp[0] == 9
    decide(s, D_DIRECTION, 1, [DIR + NE, DIR + E, DIR + SE, STOP], DIR + E)  # L31: within 45 degrees
    decide(s, D_DISTANCE, 1, [DIST + k for k in range(4)], DIST + 2)
    assert s.pos[1] == cell(7, 6)
    return s


def test_l16_snapshot_an_arrival_is_not_the_killer_of_a_later_card_move():
    # Town Gossip east: seat 1 lands on seat 0 (who played the card and stays); seat 3 lands on the
    # empty (7, 6). Seat 1's Chase then brings it onto seat 3: seat 1 is the Killer (L19). Seat 3's own
    # square is then decided from the snapshot at the move: nobody was there, so nothing happens (it
    # is not the Killer of the newcomer, and no second Killer card is drawn).
    s = gossip({0: (7, 3), 1: (7, 2), 3: (7, 5)}, E)  # seat 2 is on the east edge: it does not move
    assert s.pos[1] == cell(7, 3) and s.pos[3] == cell(7, 6) and s.pos[2] == cell(14, 14)
    chase_onto(s)
    assert s._chance == (CH_DECK, KILLER_DECK)  # seat 1 (the newcomer) against seat 3
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [9, 10, 10, 8]
    assert at_next_turn(s, 1)  # no second Killer card
    assert sorted(s.decks[KILLER_DECK].bottom) == sorted([kind_of(0, "Chase"), kind_of(0, "Ambush")])


def test_l16_l17_snapshot_a_pair_arriving_together_keeps_its_rolloff():
    # Seats 2 and 3 arrive together on the empty (7, 6); before their square resolves, seat 1's Chase
    # lands there (seat 1 picks seat 2 as its Victim, L15). The pair's square was empty in the
    # snapshot, so it is L17 (the higher roller is the Killer), not L18 (the lower one).
    s = gossip({0: (7, 3), 1: (7, 2), 2: (7, 5), 3: (7, 5)}, E)
    assert s.pos[2] == s.pos[3] == cell(7, 6)
    chase_onto(s)
    decide(s, D_VICTIM, 1, [PLAYER + 1, PLAYER + 2], PLAYER + 1)  # seat 2
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [9, 10, 8, 10]
    die(s, 5)  # seat 2
    die(s, 2)  # seat 3: the lower roller is the Victim
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [9, 10, 8, 8] and s.pos[1] == cell(7, 6)
    assert at_next_turn(s, 1)


def test_l16_l18_snapshot_occupant_who_left_does_not_make_a_triple():
    # Seat 3 stands on the east edge at (7, 14) and cannot move; seats 1 and 2 arrive there together:
    # L18 (the lower roller is the Killer, SEED). The occupant is taken from the snapshot.
    s = gossip({1: (7, 13), 2: (7, 13), 3: (7, 14)}, E)
    die(s, 5)  # seat 1
    die(s, 2)  # seat 2: the lower roller is the Killer
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 8, 10, 10]


def test_l38_trap_under_simultaneous_arrivals_hits_the_first_in_play_order():
    s = position(pos={1: (9, 4), 2: (9, 4)})
    s.trap_cell[FOREST] = cell(10, 4)
    s.trap_owner[FOREST] = 0
    draw_card(s, VILLAGE_DECK, "Town Gossip", me=0)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + S)
    assert s.hp[1] == 8 and s.hp[2] == 10 and s.trap_cell[FOREST] == -1


# -- L19, L39: card-driven moves and the depth limit ------------------------------------------------
def summit_onto(depth: int, **options):
    s = position(pos={0: (7, 0), 1: (7, 3), 2: (7, 5)}, **options)
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0, depth=depth)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 1)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)
    return s


def test_l19_moved_character_is_the_killer_even_outside_their_turn():
    s = summit_onto(depth=1)
    assert s.pos[1] == s.pos[2] and s._chance == (CH_DECK, KILLER_DECK)
    s.apply_action(kind_of(KILLER_DECK, "Mercy"))
    decide(s, D_BRANCH, 1, [OPTION_A, OPTION_B], OPTION_A)  # the Killer (seat 1) chooses
    assert s.hp == [10, 10, 8, 10]


def test_l19_l39_depth_limit():
    s = summit_onto(depth=3)  # the landing is depth 4 > chain_depth 3: no card
    assert s.pos[1] == s.pos[2] and at_next_turn(s, 1) and s.hp == [10] * 4
    s = summit_onto(depth=3, chain_depth=4)
    assert s._chance == (CH_DECK, KILLER_DECK)


def test_l19_chain_resolves_depth_first():
    # Chase: V loses 1, then K runs 4 east onto Purple: a second Killer card, K again the arrival.
    s = position(pos={0: (7, 3), 1: (7, 3), 2: (7, 7), 3: (14, 0)})
    killer(s, "Chase", k=0, v=1)
    assert s.hp[1] == 9
    decide(s, D_DIRECTION, 0, [DIR + d for d in (NE, E, SE, S, SW)] + [STOP], DIR + E)
    decide(s, D_DISTANCE, 0, [DIST + k for k in range(4)], DIST + 3)
    assert s.pos[0] == cell(7, 7) and s._chance == (CH_DECK, KILLER_DECK)
    s.apply_action(kind_of(KILLER_DECK, "Ambush"))
    assert s.hp == [10, 9, 8, 10] and at_next_turn(s, 1)
    assert sorted(s.decks[0].bottom) == sorted([kind_of(0, "Ambush"), kind_of(0, "Chase")])


# -- L20-L23: HP, eliminations, the end -------------------------------------------------------------
def test_l20_steal_takes_what_the_victim_has():
    s = position(hp={0: 5, 1: 1})
    killer(s, "Mug", k=0, v=1)
    assert s.hp[:2] == [6, 0] and not s.alive[1]


def test_l20_steal_gives_back_the_excess_over_ten():
    s = position(hp={0: 9, 1: 5})
    killer(s, "Mug", k=0, v=1)
    assert s.hp[:2] == [10, 4]


def test_l21_elimination_removes_the_pawn_and_cancels_pending_effects():
    s = position(hp={1: 2})
    s.pending[1], s.thug[1], s.skip[1] = CITY, 1, True
    killer(s, "Ambush", k=0, v=1)
    assert not s.alive[1] and s.is_out(1) and s.pos[1] == -1 and s.hp[1] == 0
    assert (s.pending[1], s.thug[1], s.skip[1]) == (-1, 0, False)
    assert s.returns() == [0.0, -1.0, 0.0, 0.0]
    assert at_next_turn(s, 2)  # seat 1 is skipped in the turn order


def test_l21_last_survivor_wins():
    s = position(n=3, hp={1: 2})
    s.alive[2], s.hp[2], s.pos[2] = False, 0, -1
    killer(s, "Ambush", k=0, v=1)
    assert s.current_player() == TERMINAL and s.winner == 0
    assert s.returns() == [1.0, -1.0, -1.0]


def test_l22_simultaneous_last_elimination_is_a_draw():
    s = position(n=3, hp={0: 1, 1: 3})
    s.alive[2], s.hp[2], s.pos[2] = False, 0, -1
    killer(s, "Frenzy", k=0, v=1)
    assert s.current_player() == TERMINAL and s.winner == -1 and s.draw == [0, 1]
    assert s.returns() == [0.0, 0.0, -1.0]


@pytest.mark.parametrize("hp,returns", [([8, 9, 7, 5], [-1, 1, -1, -1]), ([8, 9, 9, 5], [-1, 0, 0, -1])])
def test_l23_round_cap_highest_hp_wins_ties_draw(hp, returns):
    s = position(pos={0: (0, 0), 1: (0, 14), 2: (14, 14), 3: (14, 0)}, max_rounds=1)
    s.hp = hp[:]
    for d in (S, S, N, N):
        move(s, 1, d)
    assert s.current_player() == TERMINAL and not s.is_truncated()
    assert s.returns() == [float(r) for r in returns]


# -- L24: curved paths ------------------------------------------------------------------------------
def test_l24_curved_path_up_to_never_revisits_and_may_stop():
    s = position(pos={0: (7, 0)})
    draw_card(s, VILLAGE_DECK, "Shortcut", me=0)
    decide(s, D_PATH, 0, [DIR + d for d in (N, NE, E, SE, S)], DIR + E)
    decide(s, D_PATH, 0, [DIR + d for d in range(8) if d != W] + [STOP], DIR + N)
    # From (6, 1): (7, 0) and (7, 1) are visited.
    decide(s, D_PATH, 0, [DIR + d for d in (N, NE, E, SE, W, NW)] + [STOP], STOP)
    assert s.pos[0] == cell(6, 1) and at_next_turn(s, 1)


def test_l24_curved_path_of_exactly_k_steps_and_landing_counts_at_the_end():
    s = position(pos={0: (7, 0), 1: (7, 1), 2: (6, 2)}, hp={0: 5})
    draw_card(s, FOREST_DECK, "Berries", me=0)
    decide(s, D_BRANCH, 0, [OPTION_A, OPTION_B], OPTION_B)
    assert s.hp[0] == 6
    decide(s, D_PATH, 0, [DIR + d for d in (N, NE, E, SE, S)], DIR + E)  # over Light Blue: nothing
    decide(s, D_PATH, 0, [DIR + d for d in range(8) if d != W], DIR + NE)  # exactly 2: no STOP
    assert s.pos[0] == cell(6, 2) and s._chance == (CH_DECK, KILLER_DECK)


# -- L25: decks -------------------------------------------------------------------------------------
def test_l25_used_cards_go_to_the_bottom_and_are_drawn_in_known_order():
    s = position(pos={0: (7, 0), 1: (7, 3)})
    s.decks[0].unseen = [0] * 12
    s.decks[0].unseen_total = 0
    s.decks[0].bottom = [kind_of(0, "Frenzy"), kind_of(0, "Ambush")]
    move(s, 3, E)  # no chance node: the next card is known
    assert s.hp == [9, 7, 10, 10] and at_next_turn(s, 1)
    assert s.decks[0].bottom == [kind_of(0, "Ambush"), kind_of(0, "Frenzy")]


def test_l25_drawn_card_leaves_the_unseen_pile():
    s = position(pos={0: (7, 0), 1: (7, 3)})
    move(s, 3, E)
    s.apply_action(kind_of(0, "Ambush"))
    ambush = kind_of(0, "Ambush")
    assert s.decks[0].unseen[ambush] == DEFAULT_COUNTS[0][ambush] - 1 and s.decks[0].bottom == [ambush]


def test_l40_empty_draw_pile_draws_nothing():
    s = position(pos={0: (7, 0), 1: (7, 3)})
    s.decks[0].unseen = [0] * 12
    s.decks[0].unseen_total = 0
    move(s, 3, E)
    assert at_next_turn(s, 1) and s.hp == [10] * 4


# -- statistics and helpers for agents --------------------------------------------------------------
def test_hp_lost_is_charged_to_killer_and_wild_cards():
    s = killer(position(hp={0: 5, 1: 1}), "Mug", k=0, v=1)  # a steal counts the Victim's loss (L20)
    assert s.hp_lost == [1, 0]
    s = draw_card(position(), VILLAGE_DECK, "Well", me=0)
    assert s.hp_lost == [0, 1]
    # A Killer card inside a Wild card (Shortcut onto a character) is the Killer card's.
    s = draw_card(position(pos={0: (7, 3), 1: (7, 4)}), VILLAGE_DECK, "Shortcut", me=0)
    decide(s, D_PATH, 0, s.legal_actions(), DIR + E)
    decide(s, D_PATH, 0, s.legal_actions(), STOP)
    s.apply_action(kind_of(KILLER_DECK, "Frenzy"))
    assert s.hp_lost == [4, 0]
    # Traps and Hire a Thug are Wild cards'.
    s = position(pos={0: (3, 0)})
    s.trap_cell[MOUNTAINS], s.trap_owner[MOUNTAINS] = cell(3, 3), 2
    s.thug[1] = 1
    move(s, 3, E)
    assert s.hp[0] == 8 and s.hp[1] == 9 and s.hp_lost == [0, 3]
    assert s.clone().hp_lost == [0, 3] and NeighborhoodState.from_dict(s.to_dict()).hp_lost == [0, 3]


def test_curve_status_wild_location_and_chance_kind():
    s = draw_card(position(pos={0: (7, 1)}), FOREST_DECK, "Berries", me=0)
    assert s.curve_status() is None and s.chance_kind() == -1
    decide(s, D_BRANCH, 0, [OPTION_A, OPTION_B], OPTION_B)
    assert s.curve_status() == (2, False, (cell(7, 1),))  # exactly 2 steps
    s.apply_action(DIR + E)
    assert s.curve_status() == (1, False, (cell(7, 1), cell(7, 2)))
    s = draw_card(position(pos={0: (7, 1)}), FOREST_DECK, "Shortcut", me=0)
    assert s.curve_status() == (4, True, (cell(7, 1),))  # up to 4
    assert s.wild_location(cell(1, 1)) == MOUNTAINS and s.wild_location(cell(7, 1)) == -1
    assert position().chance_kind() == CH_MOVE


# -- L33, L34: traps, start of turn -----------------------------------------------------------------
def test_l33_trap_set_springs_on_the_next_other_character_only():
    s = position(pos={0: (7, 0), 1: (3, 0)})
    draw_card(s, MOUNTAINS_DECK, "Rockslide Trap", me=0)
    decide(s, D_SQUARE, 0, [CELL + c for c in board.geometry(15).cells_in[MOUNTAINS]], CELL + cell(3, 3))
    assert s.trap_cell[MOUNTAINS] == cell(3, 3) and s.trap_owner[MOUNTAINS] == 0
    move(s, 3, E)  # seat 1 lands on it
    assert s.hp[1] == 8 and s.trap_cell[MOUNTAINS] == -1 and at_next_turn(s, 2)


def test_l33_owner_does_not_spring_own_trap_and_second_card_moves_it():
    s = position(pos={0: (3, 0)})
    s.trap_cell[FOREST], s.trap_owner[FOREST] = cell(3, 3), 0
    move(s, 3, E)
    assert s.hp[0] == 10 and s.trap_cell[FOREST] == cell(3, 3)
    s = position(pos={3: (12, 0)}, to_move=3)
    s.trap_cell[FOREST], s.trap_owner[FOREST] = cell(13, 0), 0
    draw_card(s, FOREST_DECK, "Hunting Trap", me=3)
    decide(s, D_SQUARE, 3, [CELL + c for c in board.geometry(15).cells_in[FOREST]], CELL + cell(10, 2))
    assert s.trap_cell[FOREST] == cell(10, 2) and s.trap_owner[FOREST] == 3


def test_l34_thug_then_curfew_then_pending():
    s = position(pos={0: (0, 0), 1: (0, 14)})
    s.thug[1], s.skip[1], s.pending[1] = 1, True, CITY
    move(s, 1, S)
    assert s.hp[1] == 9 and s.skip[1] is False and s.pending[1] == CITY and s.to_move == 2
    assert s._chance[0] == CH_MOVE


# -- every card of the Killer deck ------------------------------------------------------------------
def test_card_ambush():
    assert killer(position(), "Ambush", 0, 1).hp == [10, 8, 10, 10]


@pytest.mark.parametrize("k,expected", [(0, 8), (2, 7)])
def test_card_knife_in_the_dark_purple_line(k, expected):
    s = killer(position(), "Knife in the Dark", k, 1)
    assert s.hp[1] == expected  # purple Killer (seat 2): 3


def test_card_mug():
    assert killer(position(hp={0: 7}), "Mug", 0, 1).hp == [9, 8, 10, 10]


@pytest.mark.parametrize("choice,hp", [(OPTION_A, [5, 7, 10, 10]), (OPTION_B, [7, 8, 10, 10])])
def test_card_your_money_or_your_life_victim_chooses(choice, hp):
    s = killer(position(hp={0: 5}), "Your Money or Your Life", 0, 1)
    decide(s, D_BRANCH, 1, [OPTION_A, OPTION_B], choice)
    assert s.hp == hp


@pytest.mark.parametrize("choice,hp", [(OPTION_A, [6, 8, 10, 10]), (OPTION_B, [8, 10, 10, 10])])
def test_card_mercy_killer_chooses(choice, hp):
    s = killer(position(hp={0: 6}), "Mercy", 0, 1)
    decide(s, D_BRANCH, 0, [OPTION_A, OPTION_B], choice)
    assert s.hp == hp


@pytest.mark.parametrize(
    "k,v,rolls,loser",
    [
        (1, 2, (5, 3), 2),
        (1, 2, (2, 4), 1),
        (1, 2, (3, 3), 2),  # black: the Killer wins ties
        (1, 0, (3, 3), 1),  # silver line: the Silver Victim wins the tie
        (0, 1, (3, 3), 1),  # silver Killer wins ties too
        (0, 1, (1, 2), 0),
    ],
)
def test_card_showdown_and_silver_line(k, v, rolls, loser):
    s = killer(position(), "Showdown", k, v)
    die(s, rolls[0])
    die(s, rolls[1])
    assert s.hp == [7 if p == loser else 10 for p in range(4)]


def test_card_chase_may_decline():
    s = killer(position(pos={0: (7, 3), 1: (7, 3), 2: (7, 10)}), "Chase", 0, 1)
    decide(s, D_DIRECTION, 0, [DIR + d for d in (NE, E, SE, S, SW)] + [STOP], STOP)
    assert s.pos[0] == cell(7, 3) and s.hp[1] == 9 and at_next_turn(s, 1)


def test_card_flee_black_text():
    s = killer(position(pos={1: (7, 3), 2: (7, 3)}), "Flee", 1, 2)
    assert s.hp[2] == 9
    decide(s, D_DIRECTION, 2, [DIR + d for d in range(8)], DIR + W)
    assert s.pos[2] == cell(7, 0)


@pytest.mark.parametrize("n,v", [(4, 1), (5, 1), (5, 2)])
def test_card_flee_blue_line_for_both_blues(n, v):
    s = killer(position(n=n, pos={0: (7, 3), v: (7, 3)}), "Flee", 0, v)
    assert s.hp[v] == 9
    assert s.decision_kind() == D_PATH and s.current_player() == v
    for _ in range(5):
        decide(s, D_PATH, v, s.legal_actions(), DIR + E)
    assert s.pos[v] == cell(7, 8)  # five steps along a path, the most it may take


@pytest.mark.parametrize("v,expected", [(1, 8), (3, 7)])
def test_card_self_defence_yellow_line(v, expected):
    assert killer(position(), "Self-Defence", 0, v).hp[0] == expected


def test_card_hostage():
    s = killer(position(), "Hostage", 0, 1)
    decide(s, D_PLAYER, 0, [PLAYER + 2, PLAYER + 3], PLAYER + 3)
    assert s.hp == [10, 9, 10, 9]
    s = killer(position(n=3), "Hostage", 0, 1)  # only seat 2 is left to choose: automatic (L35)
    assert s.hp == [10, 9, 9]
    s = position(n=3)
    s.alive[2], s.hp[2], s.pos[2] = False, 0, -1
    assert killer(s, "Hostage", 0, 1).hp == [10, 9, 0]  # nobody else: only V loses 1 (L35)


def test_card_double_cross_victim_passes_it_on():
    s = killer(position(), "Double-Cross", 0, 1)
    decide(s, D_PLAYER, 1, [PLAYER + 1, PLAYER + 2], PLAYER + 2)  # seat 3 is two after seat 1
    assert s.hp == [10, 10, 10, 8]


def test_card_frenzy():
    assert killer(position(), "Frenzy", 0, 1).hp == [9, 7, 10, 10]


# -- the Wild decks: common core in every deck ------------------------------------------------------
@pytest.mark.parametrize("deck", [1, 2, 3, 4])
def test_common_cards_in_every_wild_deck(deck):
    assert draw_card(position(hp={1: 5}, to_move=1), deck, "First Aid", me=1).hp[1] == 7
    assert draw_card(position(hp={1: 9}, to_move=1), deck, "First Aid", me=1).hp[1] == 10  # cap
    assert draw_card(position(to_move=1), deck, "Bad Luck", me=1).hp[1] == 9
    s = draw_card(position(hp={1: 5}, pos={1: (7, 3)}, to_move=1), deck, "Crossroads", me=1)
    decide(s, D_BRANCH, 1, [OPTION_A, OPTION_B], OPTION_A)
    assert s.hp[1] == 6 and s.pos[1] == cell(7, 3)
    s = draw_card(position(pos={1: (7, 1)}, to_move=1), deck, "Crossroads", me=1)
    decide(s, D_BRANCH, 1, [OPTION_A, OPTION_B], OPTION_B)
    decide(s, D_DIRECTION, 1, [DIR + d for d in range(8)], DIR + W)
    assert s.pos[1] == cell(7, 0)  # exactly 3, truncated at the edge
    s = draw_card(position(pos={1: (7, 3)}, to_move=1), deck, "Shortcut", me=1)
    assert s.decision_kind() == D_PATH and STOP not in s.legal_actions()


def test_l30_card_move_onto_a_wild_space_on_your_own_turn_draws_at_once():
    s = draw_card(position(pos={0: (1, 3)}), VILLAGE_DECK, "Shortcut", me=0)
    decide(s, D_PATH, 0, s.legal_actions(), DIR + E)
    decide(s, D_PATH, 0, s.legal_actions(), STOP)
    assert s.pos[0] == cell(1, 4) and s._chance == (CH_DECK, MOUNTAINS_DECK)


# -- Mountains ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("me,loss", [(1, 1), (0, 2)])
def test_card_avalanche_silver_line(me, loss):
    pos = {0: (2, 2), 1: (1, 5), 2: (3, 3), 3: (12, 2)}
    s = draw_card(position(pos=pos, to_move=me), MOUNTAINS_DECK, "Avalanche", me=me)
    assert s.hp == [10 if p in (me, 3) else 10 - loss for p in range(4)]


def test_card_eagles_eye():
    s = position(pos={1: (7, 3), 0: (3, 3), 2: (7, 8)}, to_move=1)
    draw_card(s, MOUNTAINS_DECK, "Eagle's Eye", me=1)
    decide(s, D_PLAYER, 1, [PLAYER + 1, PLAYER + 3], PLAYER + 1)  # seat 2 (dist 5); seat 0 (dist 4)
    decide(s, D_DIRECTION, 1, [DIR + d for d in (NE, E, SE)], DIR + E)  # L31: within 45 degrees
    decide(s, D_DISTANCE, 1, [DIST, DIST + 1, DIST + 2], DIST + 2)
    assert s.pos[1] == cell(7, 6)
    s = position(pos={1: (7, 3)}, to_move=1)  # nobody within 6: no effect (L35)
    assert at_next_turn(draw_card(s, MOUNTAINS_DECK, "Eagle's Eye", me=1), 2)


@pytest.mark.parametrize("me,expected", [(1, 8), (0, 10)])
def test_card_cliff_edge_silver_line(me, expected):
    s = draw_card(position(hp={0: 8, 1: 10}, to_move=me), MOUNTAINS_DECK, "Cliff Edge", me=me)
    assert s.hp[me] == expected


def test_card_summit_signal_can_move_yourself():
    s = position(pos={0: (7, 3)})
    draw_card(s, MOUNTAINS_DECK, "Summit Signal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + o for o in range(4)], PLAYER + 0)
    decide(s, D_DIRECTION, 0, [DIR + d for d in range(8)], DIR + E)
    assert s.pos[0] == cell(7, 5)


# -- Village -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,me,expected", [(4, 0, 7), (4, 1, 8), (5, 2, 8), (5, 3, 7)])
def test_card_healers_hut_blue_line_for_both_blues(n, me, expected):
    s = draw_card(position(n=n, hp={me: 5}, to_move=me), VILLAGE_DECK, "Healer's Hut", me=me)
    assert s.hp[me] == expected


@pytest.mark.parametrize("choice,hp", [(OPTION_A, [8, 10, 6, 10]), (OPTION_B, [8, 10, 4, 10])])
def test_card_market_deal(choice, hp):
    s = draw_card(position(hp={0: 7, 2: 5}), VILLAGE_DECK, "Market Deal", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 2, PLAYER + 3], PLAYER + 2)
    decide(s, D_BRANCH, 0, [OPTION_A, OPTION_B], choice)
    assert s.hp == hp


def test_card_curfew_skips_the_next_turn():
    s = draw_card(position(), VILLAGE_DECK, "Curfew", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 2, PLAYER + 3], PLAYER + 1)
    assert at_next_turn(s, 2) and s.skip[1] is False and s.turns == 3


@pytest.mark.parametrize("n,me", [(4, 1), (5, 2)])
def test_card_well_blue_line_steals_from_everyone_in_the_village(n, me):
    others = [p for p in range(n) if p != me]
    pos = {me: (2, 12), others[0]: (2, 10), others[1]: (4, 12), others[2]: (12, 12)}
    s = draw_card(position(n=n, pos=pos, hp={me: 8, others[1]: 1}, to_move=me), VILLAGE_DECK, "Well", me=me)
    assert s.hp[me] == 10 and s.hp[others[0]] == 9 and s.hp[others[1]] == 0 and not s.alive[others[1]]
    assert s.hp[others[2]] == 10


def test_card_well_black_text():
    assert draw_card(position(), VILLAGE_DECK, "Well", me=0).hp[0] == 9


# -- City --------------------------------------------------------------------------------------------
def test_card_subway_teleports_without_drawing_there():
    s = draw_card(position(pos={0: (11, 12)}), CITY_DECK, "Subway", me=0)
    spaces = [c for L in (MOUNTAINS, VILLAGE, FOREST) for c in s._wild_cells[L]]
    decide(s, D_SQUARE, 0, [CELL + c for c in spaces], CELL + cell(1, 1))
    assert s.pos[0] == cell(1, 1) and at_next_turn(s, 1) and s.pending[0] == -1


def test_card_subway_onto_a_character_is_a_killer_card():
    s = draw_card(position(pos={0: (11, 12), 2: (1, 1)}), CITY_DECK, "Subway", me=0)
    s.apply_action(CELL + cell(1, 1))
    assert s._chance == (CH_DECK, KILLER_DECK)  # not the Killer-or-Wild choice: no Wild card here


@pytest.mark.parametrize("me,loss", [(0, 2), (2, 3)])
def test_card_alley_fight_purple_line(me, loss):
    target = 1
    pos = {me: (10, 10), target: (12, 12)}
    s = draw_card(position(pos=pos, to_move=me), CITY_DECK, "Alley Fight", me=me)
    assert s.hp[target] == 10 - loss  # the only opponent within 3: chosen automatically


@pytest.mark.parametrize("me,hp", [(0, [9, 9, 10, 10]), (2, [9, 9, 10, 10])])
def test_card_police_siren_purple_line(me, hp):
    pos = {0: (10, 10), 1: (12, 12), 2: (9, 9), 3: (2, 2)}
    s = draw_card(position(pos=pos, to_move=me), CITY_DECK, "Police Siren", me=me)
    expected = [9, 9, 9, 10] if me == 0 else [9, 9, 10, 10]
    assert s.hp == expected


def test_card_hire_a_thug():
    s = draw_card(position(pos={0: (0, 0), 1: (0, 14)}), CITY_DECK, "Hire a Thug", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 2, PLAYER + 3], PLAYER + 1)
    # 1 HP now; the next turn is seat 1's, and the second HP is lost at its start (L34).
    assert s.to_move == 1 and s.hp[1] == 8 and s.thug[1] == 0 and s._chance[0] == CH_MOVE
    s = draw_card(position(pos={0: (0, 0), 1: (0, 14)}), CITY_DECK, "Hire a Thug", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 2, PLAYER + 3], PLAYER + 2)
    assert s.hp[2] == 9 and s.thug[2] == 1 and s.to_move == 1


def test_card_pickpocket_nearest_and_ties():
    s = draw_card(position(pos={0: (7, 3), 1: (7, 5), 2: (7, 9)}, hp={0: 5}), CITY_DECK, "Pickpocket", me=0)
    assert s.hp[:3] == [6, 9, 10]
    s = draw_card(position(pos={0: (7, 3), 1: (7, 5), 2: (5, 3)}, hp={0: 5}), CITY_DECK, "Pickpocket", me=0)
    decide(s, D_PLAYER, 0, [PLAYER + 1, PLAYER + 2], PLAYER + 2)
    assert s.hp[:3] == [6, 10, 9]


# -- Forest ------------------------------------------------------------------------------------------
def test_card_berries_heal_two():
    s = draw_card(position(hp={0: 5}), FOREST_DECK, "Berries", me=0)
    decide(s, D_BRANCH, 0, [OPTION_A, OPTION_B], OPTION_A)
    assert s.hp[0] == 7


@pytest.mark.parametrize("me", [0, 3])
def test_card_wolf_yellow_line(me):
    pos = {0: (10, 2), 1: (12, 3), 2: (2, 2), 3: (11, 5)}
    s = draw_card(position(pos=pos, to_move=me), FOREST_DECK, "Wolf", me=me)
    if me == 0:
        assert s.hp == [8, 10, 10, 10]
    else:
        decide(s, D_PLAYER, 3, [PLAYER + 1, PLAYER + 2], PLAYER + 2)  # seat 1, two after seat 3
        assert s.hp == [10, 8, 10, 10]


def test_card_lost_spins_and_yellow_chooses():
    s = draw_card(position(pos={0: (0, 0)}), FOREST_DECK, "Lost", me=0)
    assert s._chance == (CH_SPIN, (E, SE, S))  # L32: re-spin over directions that allow movement
    s.apply_action(SE)
    assert s.pos[0] == cell(4, 4)
    s = draw_card(position(pos={3: (12, 3)}, to_move=3), FOREST_DECK, "Lost", me=3)
    decide(s, D_DIRECTION, 3, [DIR + d for d in range(8)], DIR + N)
    assert s.pos[3] == cell(8, 3)


def test_card_campfire():
    pos = {0: (7, 3), 1: (9, 5), 2: (7, 6), 3: (5, 1)}
    s = draw_card(position(pos=pos, hp={0: 5, 1: 5, 2: 5, 3: 10}), FOREST_DECK, "Campfire", me=0)
    assert s.hp == [6, 6, 5, 10]


# -- options -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 6},
        {"colors": (0, 0, 1, 2)},
        {"colors": (0, 1, 5, 2)},
        {"colors": (0, 1, 2)},
        {"die_faces": 0},
        {"max_rounds": 0},
        {"chain_depth": 0},
        {"killer_counts": (1, 2)},
        {"killer_counts": (0,) * 12},
        {"wild_counts": ((1,) * 9,) * 3},
        {"wild_spaces": (((1, 1),), ((1, 1),), (), ())},
        {"wild_spaces": (((7, 1),), (), (), ())},
        {"start_squares": ((0, 0),) * 5},
        {"start_squares": ((0, 0), (0, 1), (0, 2), (0, 3), (0, 9))},  # off the 9x9 board
        {"wild_spaces": (((1, 1),), ((1, 8),), ((8, 9),), ((8, 1),))},  # (8, 9) is off the 9x9 board
        {"board_size": 10},
        {"board_size": 7},
        {"board_size": 17},
        {"board_size": "9"},
        {"board_size": True},
        {"spinner": 6},
        {"triple_arrival_killer": "middle"},
    ],
)
def test_bad_options_raise(options):
    with pytest.raises(OptionError):
        NeighborhoodGame(**options)


def test_wild_spaces_option_moves_the_wild_spaces():
    spaces = (((0, 1),), ((0, 13),), ((14, 13),), ((14, 1),))
    s = position(pos={0: (0, 0)}, wild_spaces=spaces)
    move(s, 1, E)
    assert s._chance == (CH_DECK, MOUNTAINS_DECK)
    s = position(pos={0: (0, 0)}, start_squares=((0, 0), (0, 1), (0, 2), (0, 3), (0, 4)))
    assert NeighborhoodState(s.options).pos == [cell(0, 0), cell(0, 1), cell(0, 3), cell(0, 4)]
