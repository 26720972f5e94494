"""Rules-lawyer tests for the Sorry! rules core (``docs/rules/sorry.md``).

Every test cites the rule id (S1-S24, or the clean-rules section) it checks. Positions are scripted:
a fresh :class:`SorryState`, pawns placed by hand, a card taken out of the deck and put in hand.
Squares are absolute track indices (0..59, colour ``p`` owns side ``15 p .. 15 p + 14``); ``safe(s)``
is the mover's safety square ``s``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError
from boardenvs.sorry import board
from boardenvs.sorry.board import HOME, SAFE_BASE, START
from boardenvs.sorry.cards import CARD_COUNTS, CARD_NAMES, DECK_SIZE
from boardenvs.sorry.rules import (
    BACKWARD_ACTION,
    FORWARD_ACTION,
    PASS,
    SORRY_ACTION,
    SPLIT,
    SPLIT_PAIRS,
    SWITCH,
    SorryOptions,
    SorryState,
)

RED, BLUE, YELLOW, GREEN = 0, 1, 2, 3
KIND = {name: kind for kind, name in enumerate(CARD_NAMES)}
FORWARD_CARDS = ("1", "2", "3", "5", "7", "8", "10", "11", "12", "Sorry!")
CARD_FORWARD = {"1": 1, "2": 2, "3": 3, "5": 5, "7": 7, "8": 8, "10": 10, "11": 11, "12": 12, "Sorry!": 4}


# -- helpers -------------------------------------------------------------------------------------------
def safe(s: int) -> int:
    """Safety square ``s`` (1..5) of the pawn's owner."""
    return SAFE_BASE + s


def position(num_players=4, pawns=None, card="7", to_move=0, **options) -> SorryState:
    """A state with ``pawns`` ({(seat, pawn): square}; the others in Start) and ``card`` in hand."""
    s = SorryState(SorryOptions(num_players=num_players, **options))
    for (seat, pawn), square in (pawns or {}).items():
        s.pos[3 * seat + pawn] = square
    s.deck.take(KIND[card])
    s.card = KIND[card]
    s.to_move = to_move
    s.turn = 1
    s._legal = None
    return s


def fwd(i: int) -> int:
    return FORWARD_ACTION + i


def back(i: int) -> int:
    return BACKWARD_ACTION + i


def split(i: int, j: int, k: int) -> int:
    """Pawn ``i`` forward ``k``, then pawn ``j`` forward ``7 - k``."""
    return SPLIT + 6 * SPLIT_PAIRS.index((i, j)) + k - 1


def switch(i: int, offset: int, m: int) -> int:
    """11: own pawn ``i`` with pawn ``m`` of the seat ``offset`` places to the left."""
    return SWITCH + 9 * i + 3 * (offset - 1) + m


def sorry(offset: int, m: int) -> int:
    """Sorry!: a pawn from Start onto pawn ``m`` of the seat ``offset`` places to the left."""
    return SORRY_ACTION + 3 * (offset - 1) + m


def legal(s: SorryState) -> set[int]:
    return set(s.legal_actions())


def play(s: SorryState, action: int) -> SorryState:
    """A copy of ``s`` after ``action`` (``s`` itself is untouched)."""
    assert action in s.legal_actions(), (
        f"{action} ({s.action_to_string(action)}) not legal; legal: "
        f"{[s.action_to_string(a) for a in s.legal_actions()]}"
    )
    after = s.clone()
    after.apply_action(action)
    return after


def pawns(s: SorryState, seat: int) -> list[int]:
    return s.pos[3 * seat : 3 * seat + 3]


def card_total(s: SorryState) -> list[int]:
    """Cards per kind in draw pile, discard pile and hand: must always equal the deck (S1)."""
    counts = s.deck.draw_pile_counts()
    for kind, c in enumerate(s.deck.discards):
        counts[kind] += c
    if s.card >= 0:
        counts[s.card] += 1
    return counts


# -- S1, S22: the deck -----------------------------------------------------------------------------------
def test_s1_s22_deck_is_45_cards_five_ones_four_of_each_other_kind():
    assert CARD_NAMES == ("1", "2", "3", "4", "5", "7", "8", "10", "11", "12", "Sorry!")
    assert dict(zip(CARD_NAMES, CARD_COUNTS, strict=True)) == {
        "1": 5, "2": 4, "3": 4, "4": 4, "5": 4, "7": 4, "8": 4, "10": 4, "11": 4, "12": 4, "Sorry!": 4,
    }  # fmt: skip
    assert DECK_SIZE == 45
    s = SorryState(SorryOptions())
    assert s.current_player() == CHANCE
    outcomes = dict(s.chance_outcomes())
    assert outcomes == {kind: CARD_COUNTS[kind] / 45 for kind in range(11)}
    assert s.deck.draw_pile_size() == 45


@pytest.mark.parametrize("card", FORWARD_CARDS)
def test_cards_forward_value(card):
    """The cards: each forward card (and the Sorry! forward option) moves a pawn its value."""
    s = position(pawns={(0, 0): 10, (0, 1): HOME, (0, 2): HOME}, card=card)
    assert fwd(0) in legal(s)
    assert pawns(play(s, fwd(0)), 0)[0] == 10 + CARD_FORWARD[card]


@pytest.mark.parametrize(("card", "dest"), [("4", 6), ("10", 9)])
def test_cards_backward_value(card, dest):
    """The cards: 4 moves backward 4; 10 may move backward 1 (its other option is forward 10)."""
    s = position(pawns={(0, 0): 10, (0, 1): HOME, (0, 2): HOME}, card=card)
    expected = {back(0)} | ({fwd(0)} if card == "10" else set())
    assert legal(s) == expected
    assert pawns(play(s, back(0)), 0)[0] == dest


# -- S2, S3, S4: geometry ---------------------------------------------------------------------------------
def test_s2_track_has_60_squares_and_wraps():
    assert board.TRACK_LEN == 60
    # Blue (entry 16) from 55 by 8 wraps round past square 59 to 3.
    s = position(pawns={(1, 0): 55, (1, 1): HOME, (1, 2): HOME}, card="8", to_move=1)
    assert legal(s) == {fwd(0)}
    assert pawns(play(s, fwd(0)), 1)[0] == 3


def test_s2_s4_full_lap_from_start_exit_is_64_steps():
    """S2/S4: start exit -> 58 steps to the entry, 5 safety squares, 1 step Home."""
    for color in range(4):
        exit_ = board.start_exit(color)
        assert board.forward(color, exit_, 58) == board.safety_entry(color)
        assert board.forward(color, exit_, 59) == safe(1)
        assert board.forward(color, exit_, 63) == safe(5)
        assert board.forward(color, exit_, 64) == HOME
        assert board.forward(color, exit_, 65) == -1
    # The same lap played card by card with the rules: 12, 12, 12, 12, 10, 5, 1.
    s = position(pawns={(0, 0): 3, (0, 1): HOME, (0, 2): HOME}, card="12")
    path = []
    for card in ("12", "12", "12", "12", "10", "5", "1"):
        s.card = KIND[card]
        s.to_move = 0
        s._legal = None
        s.pos[0] = play(s, fwd(0)).pos[0]
        path.append(s.pos[0])
    assert path == [15, 27, 39, 51, 1, safe(5), HOME]


def slide_geometry(rule):
    """(triangle, end) of every slide a pawn of each colour slides on, read off the rules."""
    out = {}
    for color in range(4):
        for side in range(4):
            for tri in (0, 8):
                t = 15 * side + tri
                s = position(
                    pawns={(color, 0): (t - 1) % 60, (color, 1): HOME, (color, 2): HOME},
                    card="1",
                    to_move=color,
                    slide_rule=rule,
                )
                out[color, t] = pawns(play(s, fwd(0)), color)[0]
    return out


@pytest.mark.parametrize("rule", ["own_color", "classic"])
def test_s3_s8_which_triangles_slide_and_where_to(rule):
    """S3: short slides b+0 -> b+3, long slides b+8 -> b+12. S8: own_color slides only on the slides
    of the side opposite (they show the mover's colour); classic on every side but the mover's own."""
    landed = slide_geometry(rule)
    for (color, t), at in landed.items():
        side, tri = divmod(t, 15)
        if rule == "own_color":
            slides = side == (color + 2) % 4
        else:
            slides = side != color
        end = t + (3 if tri == 0 else 4)
        assert at == (end if slides else t), (rule, color, t, at)


@pytest.mark.parametrize("side", range(4))
def test_s3_slides_as_written_relative_to_entry_and_start_exit(side):
    """S3 (revised text): on each side the short slide's first square is 1 before the safety entry and
    its last square is the start exit (4 squares); the long slide's triangle is 5 squares after the
    start exit (b + 8, the 2.3 table) and it is 5 squares long."""
    entry, exit_ = board.safety_entry(side), board.start_exit(side)
    b = board.base(side)
    (short_tri, short_end), (long_tri, long_end) = ((b + tri, b + end) for tri, end in board.SLIDE_OFFSETS)
    assert short_tri == entry - 1 and short_end == exit_ and short_end - short_tri + 1 == 4
    assert long_tri == exit_ + 5 == b + 8 and long_end - long_tri + 1 == 5
    for rule in ("own_color", "classic"):
        for color in range(4):
            table = board.SLIDES[rule][color]
            if table[short_tri] is not None:
                assert table[short_tri] == (short_end, tuple(range(short_tri + 1, short_end + 1)))
            if table[long_tri] is not None:
                assert table[long_tri] == (long_end, tuple(range(long_tri + 1, long_end + 1)))


def test_s3_short_slide_bumps_squares_1_to_3_of_it():
    """S3: the short slide is 4 squares (triangle + 3); pawns on the next 3 go to Start, not beyond."""
    s = position(
        pawns={(0, 0): 29, (1, 0): 31, (1, 1): 33, (2, 0): 34, (3, 0): 28},
        card="1",
    )
    after = play(s, fwd(0))
    assert pawns(after, 0)[0] == 33
    assert pawns(after, 1)[:2] == [START, START]
    assert pawns(after, 2)[0] == 34
    assert pawns(after, 3)[0] == 28


def test_s3_long_slide_bumps_squares_1_to_4_of_it():
    """S3: the long slide is 5 squares (triangle + 4)."""
    s = position(
        pawns={(0, 0): 37, (1, 0): 39, (1, 1): 40, (3, 0): 41, (3, 1): 42, (2, 0): 43},
        card="1",
    )
    after = play(s, fwd(0))
    assert pawns(after, 0)[0] == 42
    assert pawns(after, 1)[:2] == [START, START]
    assert pawns(after, 3)[:2] == [START, START]
    assert pawns(after, 2)[0] == 43


@pytest.mark.parametrize("color", range(4))
def test_s4_start_exit_and_safety_entry(color):
    """S4: start exit = b+3 (a 1 out of Start lands there); the pawn turns in at its entry b+1."""
    b = 15 * color
    s = position(card="1", to_move=color)
    assert legal(s) == {fwd(0)}
    assert pawns(play(s, fwd(0)), color)[0] == b + 3
    # From b+0 one step reaches the entry b+1, two steps S1, and from the entry one step is S1.
    s = position(pawns={(color, 0): b, (color, 1): b + 1, (color, 2): HOME}, card="2", to_move=color)
    assert legal(s) == {fwd(0), fwd(1)}
    assert pawns(play(s, fwd(0)), color)[0] == safe(1)
    assert pawns(play(s, fwd(1)), color)[1] == safe(2)
    s = position(pawns={(color, 0): b, (color, 1): HOME, (color, 2): HOME}, card="1", to_move=color)
    assert pawns(play(s, fwd(0)), color)[0] == b + 1


def test_no_forward_move_past_own_entry_must_turn_in():
    """Safety-zone entry space: forward along the track never passes the own entry."""
    s = position(pawns={(0, 0): 59, (0, 1): HOME, (0, 2): HOME}, card="5")
    assert pawns(play(s, fwd(0)), 0)[0] == safe(3)  # 59 -> 0 -> 1 -> S1 -> S2 -> S3, not square 4
    s = position(pawns={(1, 0): 14, (1, 1): HOME, (1, 2): HOME}, card="3", to_move=1)
    assert pawns(play(s, fwd(0)), 1)[0] == safe(1)  # Blue: 14 -> 15 -> 16 (entry) -> S1, not 17


def test_only_the_owner_enters_its_safety_zone():
    """Safety zone: other colours pass a safety entry along the track."""
    # Blue at 0 by 2 passes Red's entry (1) onto 2; Yellow at 15 by 3 passes Blue's entry (16).
    s = position(pawns={(1, 0): 0, (1, 1): HOME, (1, 2): HOME}, card="2", to_move=1)
    assert pawns(play(s, fwd(0)), 1)[0] == 2
    s = position(pawns={(2, 0): 15, (2, 1): HOME, (2, 2): HOME}, card="3", to_move=2)
    assert pawns(play(s, fwd(0)), 2)[0] == 18
    # Red at 0 by 2 turns in.
    s = position(pawns={(0, 0): 0, (0, 1): HOME, (0, 2): HOME}, card="2")
    assert pawns(play(s, fwd(0)), 0)[0] == safe(1)


# -- S5, S6: leaving Start ---------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [1, 0])
@pytest.mark.parametrize("card", FORWARD_CARDS)
def test_s5_start_counting(card, count):
    """S5: start_count_exit_as=1 puts the pawn n-1 past the exit; =0 puts it n past the exit."""
    n = CARD_FORWARD[card]
    for color in range(4):
        s = position(card=card, to_move=color, start_count_exit_as=count)
        assert fwd(0) in legal(s)
        assert pawns(play(s, fwd(0)), color) == [(15 * color + 3 + n - count) % 60, START, START]


@pytest.mark.parametrize(("count", "squares"), [(1, [5, 6, START]), (0, [6, 7, START])])
def test_s5_split_parts_from_start_count_the_same_way(count, squares):
    """S5/S6: each split part leaving Start counts like a whole move (3 and 4 out of Start)."""
    s = position(card="7", start_count_exit_as=count)
    assert pawns(play(s, split(0, 1, 3)), 0) == squares


def test_s5_leaving_start_onto_own_pawn_illegal_onto_opponent_bumps():
    """S5 + Occupied spaces / bumping: the start exit holding an own pawn blocks leaving Start with
    a 1; an opponent there is bumped."""
    s = position(pawns={(0, 0): 3, (0, 2): HOME}, card="1")
    assert legal(s) == {fwd(0)}
    s = position(pawns={(0, 0): HOME, (0, 2): HOME, (2, 1): 3}, card="1")
    after = play(s, fwd(1))
    assert pawns(after, 0) == [HOME, 3, HOME]
    assert pawns(after, 2)[1] == START


def test_s5_s8_leaving_start_onto_a_triangle_slides():
    """S5 with start_count_exit_as=0: a 12 out of Start lands on the next side's triangle (b+15);
    under the classic rule Red slides there, under own_color it does not (that slide shows Green)."""
    s = position(card="12", start_count_exit_as=0, slide_rule="classic")
    assert pawns(play(s, fwd(0)), 0)[0] == 18
    s = position(card="12", start_count_exit_as=0)
    assert pawns(play(s, fwd(0)), 0)[0] == 15


@pytest.mark.parametrize("card", CARD_NAMES)
def test_s6_which_cards_start_a_pawn(card):
    """S6: every forward card starts a pawn (10, 11 and Sorry!'s forward 4 too; the 7 whole or
    split); the 4 never does, and the 10's backward 1 is not offered from Start."""
    s = position(card=card)
    if card == "4":
        expected = {PASS}
    elif card == "7":
        expected = {fwd(0)} | {split(0, 1, k) for k in range(1, 7)}
    else:
        expected = {fwd(0)}
    assert legal(s) == expected


def test_s6_seven_split_can_start_false():
    """S6: with seven_split_can_start=False no split part comes out of Start (the whole 7 still may)."""
    s = position(pawns={(0, 1): 10, (0, 2): 20}, card="7", seven_split_can_start=False)
    expected = {fwd(0), fwd(1), fwd(2)}
    expected |= {split(i, j, k) for i, j in ((1, 2), (2, 1)) for k in range(1, 7)}
    assert legal(s) == expected
    s = position(card="7", seven_split_can_start=False)
    assert legal(s) == {fwd(0)}


def test_s6_seven_split_can_start_true_one_part_from_start():
    """S6 (default): one part of a split may bring a pawn out of Start."""
    s = position(pawns={(0, 1): 10, (0, 2): HOME}, card="7")
    expected = {fwd(0), fwd(1)} | {split(i, j, k) for i, j in ((0, 1), (1, 0)) for k in range(1, 7)}
    assert legal(s) == expected
    after = play(s, split(0, 1, 2))
    assert pawns(after, 0) == [4, 15, HOME]


def test_s6_s14_split_part_cannot_start_a_pawn_bumped_by_the_first_part():
    """S6/S14 with seven_split_can_start=False: if the first part slides over pawn j and sends it to
    Start, the second part would bring j out of Start, which is a split part starting a pawn: the
    pair is illegal (S14: the second half became illegal after the first)."""
    # Red 0 at 29, by 1 onto 30 (side 2 shows Red): slides to 33, bumping Red 1 on 31 to Start.
    s = position(pawns={(0, 0): 29, (0, 1): 31, (0, 2): HOME}, card="7", seven_split_can_start=False)
    assert split(0, 1, 1) not in legal(s)
    # With the default (True) it is legal and Red 1 comes out of Start with 6.
    s = position(pawns={(0, 0): 29, (0, 1): 31, (0, 2): HOME}, card="7")
    assert split(0, 1, 1) in legal(s)
    assert pawns(play(s, split(0, 1, 1)), 0) == [33, 8, HOME]


def test_s6_backward_never_starts_a_pawn():
    """S6: 4 and 10-backward never move a pawn out of Start."""
    s = position(pawns={(0, 0): HOME, (0, 1): HOME}, card="4")
    assert legal(s) == {PASS}
    s = position(pawns={(0, 0): 10, (0, 1): HOME}, card="10")
    assert legal(s) == {fwd(0), back(0), fwd(2)}


# -- S7, S16, turn order -------------------------------------------------------------------------------
def test_s7_two_does_not_draw_again():
    """S7: after a 2 the turn passes to the next seat, which draws."""
    s = position(pawns={(0, 0): 10}, card="2")
    after = play(s, fwd(0))
    assert after.to_move == 1
    assert after.current_player() == CHANCE
    assert after.card == -1


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_turn_passes_clockwise(num_players):
    """On your turn / S21: play passes to the left, seat p -> p+1 mod n, also after a pass."""
    s = position(num_players=num_players, card="4")
    for step in range(1, 2 * num_players + 1):
        s.apply_action(s.legal_actions()[0])
        assert s.current_player() == CHANCE
        assert s.to_move == step % num_players
        s.apply_action(step % 11)
        assert s.current_player() == step % num_players


def test_s16_pass_only_when_nothing_is_legal():
    """S16: no legal use (Home pawns, overshoot, own-occupied landing) -> the only action is PASS."""
    s = position(pawns={(0, 0): HOME, (0, 1): HOME, (0, 2): safe(5)}, card="2")
    assert s.legal_actions() == [PASS]
    after = play(s, PASS)
    assert after.pos == s.pos
    assert after.to_move == 1
    assert after.deck.discards[KIND["2"]] == 1


def test_s16_must_move_even_if_disadvantageous():
    """S16: a legal move exists (4 backward out of the safety zone), so PASS is illegal."""
    s = position(pawns={(0, 0): safe(5), (0, 1): HOME, (0, 2): HOME}, card="4")
    assert legal(s) == {back(0)}
    with pytest.raises(IllegalActionError):
        s.clone().apply_action(PASS)
    assert pawns(play(s, back(0)), 0)[0] == safe(1)


def test_s16_all_options_of_a_card_are_legal_together():
    """S16: the legal set is every use of the card: 10 forward and 10 backward for each pawn."""
    s = position(pawns={(0, 0): 10, (0, 1): 25, (0, 2): 40}, card="10")
    assert legal(s) == {fwd(0), fwd(1), fwd(2), back(0), back(1), back(2)}


def test_own_occupied_landing_is_illegal_but_home_is_shared():
    """Occupied spaces: one own pawn per square (track and safety), except Home."""
    s = position(pawns={(0, 0): 10, (0, 1): 13, (0, 2): HOME}, card="3")
    assert legal(s) == {fwd(1)}
    s = position(pawns={(0, 0): 0, (0, 1): safe(2), (0, 2): HOME}, card="3")
    assert legal(s) == {fwd(1)}  # 0 -> 1 -> S1 -> S2 is own-occupied; S2 + 3 is S5
    s = position(pawns={(0, 0): safe(4), (0, 1): safe(5), (0, 2): HOME}, card="2")
    assert legal(s) == {fwd(0)}
    assert pawns(play(s, fwd(0)), 0) == [HOME, safe(5), HOME]


def test_only_possible_move_onto_own_pawn_forfeits():
    """Occupied spaces: if the only move lands on an own pawn, the turn is forfeited."""
    s = position(pawns={(0, 0): 10, (0, 1): 13, (0, 2): safe(4)}, card="3")
    assert legal(s) == {fwd(1)}
    s = position(pawns={(0, 0): safe(1), (0, 1): safe(4), (0, 2): HOME}, card="3")
    assert legal(s) == {PASS}  # S1 + 3 = S4 is own-occupied; S4 + 3 overshoots Home


# -- bumping, jumping, Home --------------------------------------------------------------------------------
def test_bump_sends_opponent_to_its_own_start():
    """Jumping and bumping: landing on an opponent's pawn sends it to its Start (3 players)."""
    s = position(num_players=3, pawns={(0, 0): 10, (1, 2): 15, (2, 1): 20}, card="5")
    after = play(s, fwd(0))
    assert pawns(after, 0)[0] == 15
    assert pawns(after, 1) == [START, START, START]
    assert pawns(after, 2)[1] == 20


def test_jumping_over_pawns_counts_them():
    """Jumping: pawns in the way (own or not) count as spaces and are not disturbed."""
    s = position(pawns={(0, 0): 5, (0, 1): 6, (1, 0): 7, (2, 0): 9, (0, 2): HOME}, card="5")
    after = play(s, fwd(0))
    assert pawns(after, 0) == [10, 6, HOME]
    assert pawns(after, 1)[0] == 7
    assert pawns(after, 2)[0] == 9


def test_pawn_at_home_never_moves():
    """Home: a pawn at Home is never named by any action (forward, backward, split, switch)."""
    s = position(pawns={(0, 0): HOME, (0, 1): 10, (0, 2): HOME}, card="7")
    assert legal(s) == {fwd(1)}
    s = position(pawns={(0, 0): HOME, (0, 1): 10, (0, 2): HOME, (1, 0): 20}, card="11")
    assert legal(s) == {fwd(1), switch(1, 1, 0)}
    s = position(pawns={(0, 0): HOME, (0, 1): HOME, (0, 2): HOME}, card="4")
    assert legal(s) == {PASS}


# -- S8, S9, S10, S11, S12: slides ------------------------------------------------------------------------
def test_s8_own_color_two_players():
    """S8 own_color in 2 players (Red, Yellow): Yellow slides on side 0 (showing Yellow), Red doesn't;
    Red slides on side 2, Yellow doesn't."""
    s = position(num_players=2, pawns={(0, 0): 7, (1, 0): 7 + 30}, card="1")
    assert pawns(play(s, fwd(0)), 0)[0] == 8
    s.to_move = 1
    s._legal = None
    assert pawns(play(s, fwd(0)), 1)[0] == 38
    s = position(num_players=2, pawns={(0, 0): 36, (1, 0): 6}, card="2")
    assert pawns(play(s, fwd(0)), 0)[0] == 42
    s.to_move = 1
    s._legal = None
    assert pawns(play(s, fwd(0)), 1)[0] == 12


def test_s8_classic_two_players():
    """S8 classic: a pawn slides on every slide of another colour, never on its own side's."""
    s = position(num_players=2, pawns={(0, 0): 7, (1, 0): 22}, card="1", slide_rule="classic")
    assert pawns(play(s, fwd(0)), 0)[0] == 8  # own side
    s.to_move = 1
    s._legal = None
    assert pawns(play(s, fwd(0)), 1)[0] == 27  # 23 is Blue's long slide (Blue absent): Yellow slides
    s = position(num_players=2, pawns={(0, 0): 22, (1, 0): 37}, card="1", slide_rule="classic")
    assert pawns(play(s, fwd(0)), 0)[0] == 27
    s.to_move = 1
    s._legal = None
    assert pawns(play(s, fwd(0)), 1)[0] == 38  # own side


def test_s9_slide_bumps_own_pawns():
    """S9: a slide bumps every pawn on it, the mover's own included (end square too)."""
    s = position(pawns={(0, 0): 28, (0, 1): 31, (0, 2): 33, (1, 0): 32}, card="2")
    after = play(s, fwd(0))
    assert pawns(after, 0) == [33, START, START]
    assert pawns(after, 1)[0] == START


def test_s9_slide_bumps_own_pawns_classic():
    """S9 under the classic rule (Blue slides on Red's side in 3 players)."""
    s = position(
        num_players=3, pawns={(1, 0): 58, (1, 1): 2, (0, 0): 1}, card="2", to_move=1, slide_rule="classic"
    )
    after = play(s, fwd(0))
    assert pawns(after, 1) == [3, START, START]
    assert pawns(after, 0)[0] == START


def test_s9_landing_on_own_occupied_triangle_is_illegal():
    """S9: the triangle itself holding an own pawn makes the landing illegal."""
    s = position(pawns={(0, 0): 28, (0, 1): 30, (0, 2): HOME}, card="2")
    assert legal(s) == {fwd(1)}
    s = position(pawns={(0, 0): 28, (0, 1): 30, (0, 2): safe(5)}, card="2")
    assert legal(s) == {fwd(1)}


@pytest.mark.parametrize(("card", "start"), [("4", 34), ("10", 31)])
def test_s10_backward_landing_on_a_triangle_slides(card, start):
    """S10: a backward move ending on a triangle of the mover's colour slides (Red on 30 -> 33)."""
    s = position(pawns={(0, 0): start, (0, 1): HOME, (0, 2): HOME, (2, 0): 32}, card=card)
    assert back(0) in legal(s)
    after = play(s, back(0))
    assert pawns(after, 0)[0] == 33
    assert pawns(after, 2)[0] == START


def test_s10_backward_onto_triangle_slides_classic():
    """S10 under the classic rule: Yellow backward 4 from 4 onto 0 (Red's side) slides to 3."""
    s = position(pawns={(2, 0): 4, (2, 1): HOME, (2, 2): HOME}, card="4", to_move=2, slide_rule="classic")
    assert pawns(play(s, back(0)), 2)[0] == 3


def test_s10_switch_landing_on_a_triangle_slides():
    """S10/11 note: a switch that puts the mover on its slide triangle slides it (and bumps)."""
    s = position(pawns={(0, 0): 10, (0, 1): HOME, (0, 2): HOME, (1, 0): 30, (3, 0): 32}, card="11")
    after = play(s, switch(0, 1, 0))
    assert pawns(after, 0)[0] == 33
    assert pawns(after, 1)[0] == 10
    assert pawns(after, 3)[0] == START


def test_s10_switch_slide_bumps_the_switched_opponent():
    """S10/S9: the mover's slide bumps everything on it, including the pawn just switched onto it."""
    s = position(pawns={(0, 0): 31, (0, 1): HOME, (0, 2): HOME, (1, 0): 30}, card="11")
    after = play(s, switch(0, 1, 0))
    assert pawns(after, 0)[0] == 33
    assert pawns(after, 1)[0] == START


def test_s11_sorry_placement_onto_a_triangle_slides():
    """S11: a Sorry! onto a triangle showing the mover's colour slides, bumping on the way."""
    s = position(pawns={(0, 1): 31, (0, 2): HOME, (1, 0): 30, (2, 0): 33}, card="Sorry!")
    after = play(s, sorry(1, 0))
    assert pawns(after, 0) == [33, START, HOME]
    assert pawns(after, 1)[0] == START
    assert pawns(after, 2)[0] == START


def test_s11_sorry_placement_classic():
    """S11 under the classic rule (3 players): Blue placed onto 0 (Red's side) slides to 3."""
    s = position(
        num_players=3, pawns={(0, 0): 0, (1, 1): HOME}, card="Sorry!", to_move=1, slide_rule="classic"
    )
    after = play(s, sorry(2, 0))
    assert pawns(after, 1) == [3, HOME, START]
    assert pawns(after, 0)[0] == START


@pytest.mark.parametrize("rule", ["own_color", "classic"])
def test_s12_switched_opponent_does_not_slide(rule):
    """S12: the opponent put on a triangle it would slide from stays on the triangle."""
    # Blue slides on 45 (side 3) under own_color; under classic on 0 (Red's side).
    tri = 45 if rule == "own_color" else 0
    s = position(
        pawns={(0, 0): tri, (0, 1): HOME, (0, 2): HOME, (1, 0): 20, (1, 1): tri + 2},
        card="11",
        slide_rule=rule,
    )
    after = play(s, switch(0, 1, 0))
    assert pawns(after, 0)[0] == 20
    assert pawns(after, 1)[:2] == [tri, tri + 2]


# -- S13: the 11 ---------------------------------------------------------------------------------------------
def test_s13_switch_forced_when_forward_11_exists():
    """S13: with a forward 11 available the set is forward moves + switches, no pass."""
    s = position(pawns={(0, 0): 10, (0, 1): HOME, (0, 2): HOME, (1, 0): 20, (2, 2): 40}, card="11")
    assert legal(s) == {fwd(0), switch(0, 1, 0), switch(0, 2, 2)}
    with pytest.raises(IllegalActionError):
        s.clone().apply_action(PASS)
    after = play(s, switch(0, 2, 2))
    assert pawns(after, 0)[0] == 40
    assert pawns(after, 2)[2] == 10


def test_s13_forfeit_allowed_when_no_forward_11():
    """S13: no forward 11 (58 + 11 overshoots Home) -> switches plus pass."""
    s = position(pawns={(0, 0): 58, (0, 1): HOME, (0, 2): HOME, (1, 0): 20, (3, 1): 50}, card="11")
    assert legal(s) == {switch(0, 1, 0), switch(0, 3, 1), PASS}
    after = play(s, PASS)
    assert after.pos == s.pos
    assert after.to_move == 1
    after = play(s, switch(0, 1, 0))
    assert pawns(after, 0)[0] == 20
    assert pawns(after, 1)[0] == 58


def test_s13_forward_11_blocked_by_own_pawn_allows_forfeit():
    """S13: forward 11 illegal (own pawn on the landing square) -> switches plus pass."""
    # Red 0 at 47 by 11 lands on own 58; Red 1 at 58 by 11 overshoots Home.
    s = position(pawns={(0, 0): 47, (0, 1): 58, (0, 2): HOME, (1, 0): 20}, card="11")
    assert legal(s) == {switch(0, 1, 0), switch(1, 1, 0), PASS}
    # Red 0 at 10 blocked by own 21, but Red 1 at 21 -> 32 is a forward 11: no pass.
    s = position(pawns={(0, 0): 10, (0, 1): 21, (0, 2): HOME, (1, 0): 20}, card="11")
    assert legal(s) == {fwd(1), switch(0, 1, 0), switch(1, 1, 0)}


def test_s13_only_open_track_pawns_switch():
    """11: pawns in Start, Home or a safety zone are never switched (2 players)."""
    s = position(num_players=2, pawns={(0, 1): 10, (0, 2): safe(1), (1, 0): 20, (1, 2): safe(2)}, card="11")
    assert legal(s) == {fwd(0), fwd(1), switch(1, 1, 0)}
    assert pawns(play(s, fwd(0)), 0)[0] == 13


def test_s13_nothing_to_do_with_11_passes():
    s = position(pawns={(0, 0): 58, (0, 1): HOME, (0, 2): HOME}, card="11")
    assert s.legal_actions() == [PASS]


# -- S14: the 7 split --------------------------------------------------------------------------------------
def test_s14_every_ordered_pair_and_split_when_unobstructed():
    """S14: parts (k, 7-k), 1 <= k <= 6, over ordered pairs of distinct pawns, plus the whole 7."""
    s = position(pawns={(0, 0): 10, (0, 1): 20, (0, 2): 40}, card="7")
    expected = {fwd(0), fwd(1), fwd(2)} | {split(i, j, k) for i, j in SPLIT_PAIRS for k in range(1, 7)}
    assert legal(s) == expected
    assert len(expected) == 3 + 36
    assert pawns(play(s, split(0, 1, 2)), 0) == [12, 25, 40]
    assert pawns(play(s, split(1, 0, 2)), 0) == [15, 22, 40]
    assert pawns(play(s, split(2, 1, 6)), 0) == [10, 21, 46]


def test_s14_no_split_with_a_single_movable_pawn():
    """S14: a split needs two distinct pawns; a lone pawn only moves the whole 7."""
    s = position(pawns={(0, 0): HOME, (0, 1): 10, (0, 2): HOME}, card="7")
    assert legal(s) == {fwd(1)}


def test_s14_order_matters_second_half_illegal_after_first():
    """S14: Red 0 at 29, Red 1 at 27. (0 by 1, then 1 by 6): 0 slides 30 -> 33, then 1 lands on own
    33: illegal. (1 by 6, then 0 by 1): 1 to 33, then 0 slides and bumps its own pawn: legal."""
    s = position(pawns={(0, 0): 29, (0, 1): 27, (0, 2): HOME}, card="7")
    assert split(0, 1, 1) not in legal(s)
    assert split(1, 0, 6) in legal(s)
    assert pawns(play(s, split(1, 0, 6)), 0) == [33, START, HOME]


def test_s14_each_half_bumps_and_slides():
    """S14: each half has its own bumps and slides."""
    s = position(pawns={(0, 0): 27, (0, 1): 10, (0, 2): HOME, (1, 0): 31, (2, 0): 14}, card="7")
    after = play(s, split(0, 1, 3))
    assert pawns(after, 0) == [33, 14, HOME]
    assert pawns(after, 1)[0] == START
    assert pawns(after, 2)[0] == START


def test_s14_home_part_requires_the_rest_usable():
    """S14 / 7 card: using part of the 7 to get a pawn Home needs the rest usable by another pawn."""
    s = position(pawns={(0, 0): safe(4), (0, 1): 10, (0, 2): 15}, card="7")
    # Red 0 Home with 2; the 5 for Red 1 lands on own 15 (illegal), for Red 2 on 20 (legal).
    assert split(0, 1, 2) not in legal(s)
    assert split(1, 0, 5) not in legal(s)
    assert split(0, 2, 2) in legal(s)
    assert split(2, 0, 5) in legal(s)
    assert pawns(play(s, split(0, 2, 2)), 0) == [HOME, 10, 20]
    # Nothing can use the rest: no split at all, and the whole 7 overshoots.
    s = position(pawns={(0, 0): safe(4), (0, 1): safe(2), (0, 2): HOME}, card="7")
    assert s.legal_actions() == [PASS]


def test_s14_first_half_bumping_an_opponent_frees_the_second():
    """S14: halves in order: the second half may land where the first half's slide cleared."""
    # Red 0 at 29 by 1 slides to 33 (bumping Blue on 31); Red 1 at 25 by 6 lands on 31 (now empty).
    s = position(pawns={(0, 0): 29, (0, 1): 25, (0, 2): HOME, (1, 0): 31}, card="7")
    after = play(s, split(0, 1, 1))
    assert pawns(after, 0) == [33, 31, HOME]
    assert pawns(after, 1)[0] == START


# -- S15: Sorry! ------------------------------------------------------------------------------------------
def test_s15_sorry_targets_only_open_track_opponents():
    """S15: targets are opponent pawns on the track, not in Start, Home or a safety zone; the
    forward-4 option stays available (here from Start, S6)."""
    s = position(pawns={(0, 2): HOME, (1, 0): safe(2), (1, 1): HOME, (1, 2): 20, (2, 1): 44}, card="Sorry!")
    assert legal(s) == {fwd(0), sorry(1, 2), sorry(2, 1)}
    after = play(s, sorry(1, 2))
    assert pawns(after, 0) == [20, START, HOME]
    assert pawns(after, 1) == [safe(2), HOME, START]


def test_s15_sorry_needs_own_pawn_in_start():
    """S15: no own pawn in Start -> no Sorry! placement; forward 4 only."""
    s = position(pawns={(0, 0): 10, (0, 1): HOME, (0, 2): safe(1), (1, 0): 20}, card="Sorry!")
    assert legal(s) == {fwd(0), fwd(2)}
    assert pawns(play(s, fwd(2)), 0)[2] == safe(5)


def test_s15_sorry_forfeit_when_neither_option():
    """S15: no pawn in Start and no forward 4 -> forfeit."""
    s = position(pawns={(0, 0): safe(3), (0, 1): HOME, (0, 2): HOME, (1, 0): 20}, card="Sorry!")
    assert s.legal_actions() == [PASS]


def test_s15_sorry_three_players_encoding_and_lowest_start_pawn():
    """S15/S24 in 3 players: targets of both opponents, named by seat offset; the pawn used is the
    lowest-numbered one in Start."""
    s = position(
        num_players=3, pawns={(1, 0): 10, (1, 2): 25, (0, 0): 5, (2, 1): 50}, card="Sorry!", to_move=1
    )
    # Seat 1: offset 1 is seat 2, offset 2 is seat 0. Its Start pawn is Blue 1 (forward 4 -> 21).
    assert legal(s) == {fwd(0), fwd(1), fwd(2), sorry(1, 1), sorry(2, 0)}
    after = play(s, sorry(2, 0))
    assert pawns(after, 1) == [10, 5, 25]
    assert pawns(after, 0)[0] == START
    after = play(s, sorry(1, 1))
    assert pawns(after, 1) == [10, 50, 25]
    assert pawns(after, 2)[1] == START


# -- S17, S18, S19: backward and Home ----------------------------------------------------------------------
def test_s17_backward_4_from_start_exit_goes_round():
    """S17: backward 4 from the start exit (3) goes round onto the previous side (59); a 5 then
    turns into the safety zone."""
    s = position(pawns={(0, 0): 3, (0, 1): HOME, (0, 2): HOME}, card="4")
    after = play(s, back(0))
    assert pawns(after, 0)[0] == 59
    s = position(pawns={(0, 0): 59, (0, 1): HOME, (0, 2): HOME}, card="5")
    assert pawns(play(s, fwd(0)), 0)[0] == safe(3)
    # Blue: 18 -> 14.
    s = position(pawns={(1, 0): 18, (1, 1): HOME, (1, 2): HOME}, card="4", to_move=1)
    assert pawns(play(s, back(0)), 1)[0] == 14


@pytest.mark.parametrize(
    ("start", "card", "dest"),
    [(safe(5), "4", safe(1)), (safe(1), "10", 1), (safe(2), "4", 59), (safe(3), "4", 0), (safe(1), "4", 58)],
)
def test_s18_backward_out_of_safety_zone(start, card, dest):
    """S18: from S_s backward k: S_(s-k), then the entry b+1, b+0, b-1, ..."""
    s = position(pawns={(0, 0): start, (0, 1): HOME, (0, 2): HOME}, card=card)
    assert back(0) in legal(s)
    assert pawns(play(s, back(0)), 0)[0] == dest


def test_s18_backward_never_enters_safety_zone():
    """S18: backward moves onto or past the own entry stay on the track."""
    s = position(pawns={(1, 0): 17, (1, 1): HOME, (1, 2): HOME}, card="10", to_move=1)
    assert pawns(play(s, back(0)), 1)[0] == 16
    s = position(pawns={(1, 0): 16, (1, 1): HOME, (1, 2): HOME}, card="4", to_move=1)
    assert pawns(play(s, back(0)), 1)[0] == 12
    s = position(pawns={(0, 0): 2, (0, 1): HOME, (0, 2): HOME}, card="4")
    assert pawns(play(s, back(0)), 0)[0] == 58


def test_s18_backward_out_of_safety_onto_own_pawn_is_illegal():
    """S18: the square reached backward out of the safety zone must not hold an own pawn."""
    s = position(pawns={(0, 0): safe(1), (0, 1): 1, (0, 2): HOME}, card="10")
    # Red 0 at S1 back 1 -> 1 holds Red 1; forward 10 overshoots for both; Red 1 back 1 -> 0.
    assert legal(s) == {back(1)}


@pytest.mark.parametrize(
    ("start", "card", "dest"),
    [
        (safe(3), "3", HOME),
        (safe(5), "1", HOME),
        (1, "12", None),
        (0, "7", HOME),
        (1, "7", None),
        (58, "8", safe(5)),
        (58, "10", None),
        (safe(3), "5", None),
        (safe(3), "Sorry!", None),
    ],
)
def test_s19_home_by_exact_count_only(start, card, dest):
    """S19: reaching Home needs the exact count; a move past Home is illegal."""
    s = position(pawns={(0, 0): start, (0, 1): HOME, (0, 2): HOME}, card=card)
    if dest is None:
        assert fwd(0) not in legal(s)
    else:
        assert fwd(0) in legal(s)
        assert pawns(play(s, fwd(0)), 0)[0] == dest


# -- S20, S21, S23, S24: setup -----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_s20_two_to_four_players(num_players):
    s = SorryState(SorryOptions(num_players=num_players))
    assert s.pos == [START] * (3 * num_players)
    assert s.returns() == [0.0] * num_players


def test_documented_defaults():
    """S5, S6, S8, S20, S21, max_turns: the defaults of every DESIGNED/DECIDED option."""
    o = SorryOptions()
    assert (o.num_players, o.slide_rule, o.start_count_exit_as, o.seven_split_can_start) == (
        4,
        "own_color",
        1,
        True,
    )
    assert (o.max_turns, o.first_player, o.colors) == (1000, "seat0", None)


@pytest.mark.parametrize("num_players", [0, 1, 5])
def test_s20_other_player_counts_rejected(num_players):
    with pytest.raises(ValueError, match="num_players"):
        SorryOptions(num_players=num_players)


def test_s21_first_player_seat0():
    s = SorryState(SorryOptions(num_players=3))
    assert s.current_player() == CHANCE
    assert {k for k, _ in s.chance_outcomes()} == set(range(11))
    s.apply_action(KIND["5"])
    assert s.current_player() == 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_s21_first_player_random_is_a_chance_node(num_players):
    s = SorryState(SorryOptions(num_players=num_players, first_player="random"))
    assert s.current_player() == CHANCE
    assert s.chance_outcomes() == [(p, pytest.approx(1 / num_players)) for p in range(num_players)]
    with pytest.raises(IllegalActionError):
        s.clone().apply_action(num_players)
    s.apply_action(num_players - 1)
    assert s.current_player() == CHANCE
    assert s.deck.draw_pile_size() == 45  # the seat draw takes no card
    s.apply_action(KIND["1"])
    assert s.current_player() == num_players - 1
    s.apply_action(fwd(0))
    assert s.to_move == 0  # then clockwise


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_s21_describing_an_out_of_range_first_player_outcome_is_a_clear_error(num_players):
    """S21: the first-player draw names a seat 0..n-1; describing any other outcome raises an error that
    says so (not an IndexError, nor a made-up "player_-1")."""
    s = SorryState(SorryOptions(num_players=num_players, first_player="random"))
    assert s.action_to_string(num_players - 1).endswith(f"(player_{num_players - 1}) goes first")
    for outcome in (-1, num_players, 4, 99):
        expected = f"outcome {outcome} of the first-player draw .S21. names no seat"
        with pytest.raises(IllegalActionError, match=expected):
            s.action_to_string(outcome)


def test_s1_describing_an_out_of_range_card_outcome_is_a_clear_error():
    """S1: a card draw names one of the 11 kinds; any other outcome is an error, not a string."""
    s = SorryState(SorryOptions(num_players=2))
    assert s.action_to_string(KIND["Sorry!"]) == "Red (player_0) draws Sorry!"
    for outcome in (-1, len(CARD_NAMES)):
        with pytest.raises(IllegalActionError, match="names no card kind"):
            s.action_to_string(outcome)


def test_s21_random_first_player_sampling_covers_every_seat():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        s = SorryState(SorryOptions(num_players=4, first_player="random"))
        s.apply_action(s.sample_chance(rng))
        seen.add(s.to_move)
    assert seen == {0, 1, 2, 3}


@pytest.mark.parametrize(("num_players", "colors"), [(2, (0, 2)), (3, (0, 1, 2)), (4, (0, 1, 2, 3))])
def test_s23_default_seat_colours(num_players, colors):
    s = SorryState(SorryOptions(num_players=num_players))
    assert s.colors == colors
    for seat, color in enumerate(colors):
        t = position(num_players=num_players, card="1", to_move=seat)
        assert pawns(play(t, fwd(0)), seat)[0] == 15 * color + 3


def test_s23_custom_colours_drive_geometry():
    """S23: seats take the geometry (start exit, entry, slides) of their colour."""
    s = position(num_players=2, pawns={(0, 0): 14}, card="3", colors=(1, 3))
    assert pawns(play(s, fwd(0)), 0)[0] == safe(1)  # Blue turns in at 16
    s = position(num_players=2, pawns={(1, 0): 22}, card="1", to_move=1, colors=(1, 3))
    assert pawns(play(s, fwd(0)), 1)[0] == 27  # Green slides on side 1 (shows Green, own_color)
    s = position(num_players=2, card="1", to_move=1, colors=(1, 3))
    assert pawns(play(s, fwd(0)), 1)[0] == 48


@pytest.mark.parametrize("colors", [(0, 0), (0, 4), (0, 1, 2), (-1, 2)])
def test_s23_bad_colours_rejected(colors):
    with pytest.raises(ValueError, match="colors"):
        SorryOptions(num_players=2, colors=colors)


def test_s24_start_pawns_are_interchangeable():
    """S24: a move out of Start names the lowest-numbered pawn in Start."""
    s = position(pawns={(0, 0): 10}, card="1")
    assert legal(s) == {fwd(0), fwd(1)}
    assert pawns(play(s, fwd(1)), 0) == [10, 3, START]
    s = position(pawns={(0, 1): 10}, card="5")
    assert legal(s) == {fwd(0), fwd(1)}


def test_s24_split_from_start_uses_lowest_start_pawns_in_order():
    """S24: a split with both pawns from Start uses the two lowest, in order; a split with one pawn
    from Start uses the lowest one."""
    s = position(pawns={(0, 0): 10}, card="7")
    expected = {fwd(0), fwd(1)}
    expected |= {split(i, j, k) for i, j in ((0, 1), (1, 0), (1, 2)) for k in range(1, 7)}
    assert legal(s) == expected
    assert pawns(play(s, split(1, 2, 3)), 0) == [10, 5, 6]
    assert pawns(play(s, split(1, 2, 4)), 0) == [10, 6, 5]


# -- game end, truncation, deck, illegal actions ----------------------------------------------------------
@pytest.mark.parametrize(("num_players", "seat"), [(2, 1), (3, 2), (4, 0)])
def test_game_ends_when_all_three_pawns_home(num_players, seat):
    """Object: the first player with all three pawns Home wins: +1, every other player -1."""
    s = position(
        num_players=num_players,
        pawns={(seat, 0): HOME, (seat, 1): HOME, (seat, 2): safe(3)},
        card="3",
        to_move=seat,
    )
    assert s.returns() == [0.0] * num_players
    after = play(s, fwd(2))
    assert after.is_terminal()
    assert after.current_player() == TERMINAL
    assert not after.is_truncated()
    assert after.returns() == [1.0 if p == seat else -1.0 for p in range(num_players)]
    assert after.legal_actions() == []
    with pytest.raises(IllegalActionError):
        after.apply_action(PASS)


def test_two_pawns_home_is_not_a_win():
    """Object: all three pawns must be Home; two Home leaves the game running."""
    s = position(pawns={(0, 0): HOME, (0, 1): safe(3), (0, 2): 10}, card="3")
    after = play(s, fwd(1))
    assert not after.is_terminal()
    assert after.returns() == [0.0] * 4


def test_max_turns_truncation():
    """max_turns: after that many card draws without a winner the game is truncated, returns 0."""
    s = SorryState(SorryOptions(num_players=3, max_turns=3))
    for turn in range(3):
        assert not s.is_terminal()
        s.apply_action(KIND["4"])
        s.apply_action(PASS)
        assert s.is_truncated() == (turn == 2)
    assert s.is_terminal()
    assert s.current_player() == TERMINAL
    assert s.returns() == [0.0, 0.0, 0.0]
    with pytest.raises(IllegalActionError):
        s.apply_action(KIND["1"])


def test_deck_reshuffles_when_draw_pile_runs_out():
    """On your turn: the discard pile is reshuffled when the draw pile is empty; 45 cards conserved."""
    s = SorryState(SorryOptions(num_players=2))
    for kind, count in enumerate(CARD_COUNTS):
        for _ in range(count):
            s.deck.take(kind)
            s.deck.discard(kind)
    s.deck.discards[KIND["4"]] -= 1
    s.deck.unseen[KIND["4"]] += 1
    s.deck.unseen_total += 1
    assert s.deck.draw_pile_size() == 1
    assert s.chance_outcomes() == [(KIND["4"], 1.0)]
    s.apply_action(KIND["4"])
    s.apply_action(PASS)
    assert s.deck.draw_pile_size() == 45
    assert s.deck.discard_size() == 0
    assert dict(s.chance_outcomes()) == {kind: CARD_COUNTS[kind] / 45 for kind in range(11)}


@pytest.mark.parametrize(("num_players", "rule"), [(2, "own_color"), (3, "classic"), (4, "own_color")])
def test_random_playouts_conserve_cards_and_keep_rules_invariants(num_players, rule):
    """S1/S16/reshuffle over whole games: 45 cards always; PASS alone unless S13; pawns valid."""
    rng = np.random.default_rng(num_players)
    for _ in range(3):
        s = SorryState(SorryOptions(num_players=num_players, slide_rule=rule))
        reshuffles = 0
        while not s.is_terminal():
            assert card_total(s) == list(CARD_COUNTS)
            if s.is_chance_node():
                before = s.deck.draw_pile_size()
                s.apply_action(s.sample_chance(rng))
                assert s.deck.draw_pile_size() == before - 1
                continue
            acts = s.legal_actions()
            assert acts == sorted(set(acts))
            if PASS in acts and len(acts) > 1:
                assert s.card == KIND["11"]
            if s.deck.draw_pile_size() == 0:
                reshuffles += 1
            s.apply_action(acts[int(rng.integers(len(acts)))])
            for p in range(num_players):
                mine = pawns(s, p)
                on_board = [x for x in mine if x not in (START, HOME)]
                assert len(on_board) == len(set(on_board))
            on_track = [x for x in s.pos if x < 60]
            assert len(on_track) == len(set(on_track))
        assert reshuffles > 0
        assert not s.is_truncated()
        assert sorted(s.returns()) == [-1.0] * (num_players - 1) + [1.0]


@pytest.mark.parametrize(
    "action", [fwd(0), fwd(2), back(0), split(0, 1, 3), switch(1, 1, 0), sorry(1, 0), PASS, 79, -1]
)
def test_illegal_action_raises_and_leaves_state_unchanged(action):
    """An illegal action raises IllegalActionError and changes nothing (12: only Red 1 can move)."""
    s = position(pawns={(0, 0): 58, (0, 1): 20, (0, 2): HOME, (1, 0): 30}, card="12")
    legal_now = legal(s)
    assert legal_now == {fwd(1)}
    assert action not in legal_now
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        s.apply_action(action)
    assert s.to_dict() == before
    assert s.legal_actions() == sorted(legal_now)


def test_illegal_chance_outcome_raises():
    """S1: a draw of a kind with no card left is illegal and changes nothing."""
    s = SorryState(SorryOptions())
    for _ in range(4):
        s.deck.take(KIND["12"])
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        s.apply_action(KIND["12"])
    assert s.to_dict() == before
