"""Rules-lawyer tests for the Star of the Lost City rules core (``docs/rules/lost_city.md``).

Every test cites the rule id (T1-T29 of the spec, T30-T41 added in ``boardenvs/lost_city/env.py``) it
checks. Positions are scripted: a fresh :class:`LostCityState` with given characters, characters put on
chosen squares, HP, cards and statuses set by hand; chance outcomes (dice faces 1-6, colour die face
0-5 with faces below ``black_faces`` black, card kinds) are applied explicitly.
"""

from __future__ import annotations

import numpy as np
import pytest
from lost_city_positions import ALL, cell, mv, position

from boardenvs.core.options import OptionError
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError
from boardenvs.lost_city import cards
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.board import FIRST_SPAWNS, RUINS, SPAWNS
from boardenvs.lost_city.cards import (
    DAMAGE_10,
    DAMAGE_20,
    HEALTH_10,
    HEALTH_20,
    JOKER,
    NULL,
    SKIP_TURN,
    SPECIAL,
)
from boardenvs.lost_city.env import LostCityGame
from boardenvs.lost_city.rules import (
    ABILITY,
    ATTACK,
    COPY,
    CRITICAL,
    END,
    P_ACTION,
    P_CHARS,
    P_COLOUR,
    P_COPY,
    P_DAMAGE,
    P_DRAW,
    P_FIRST,
    P_HIT,
    P_MOVE,
    P_OVER,
    P_PICK,
    P_POSTROLL,
    PAIR,
    PAIR_INDEX,
    PICK,
    PLAY_DAMAGE,
    PLAY_HEALTH,
    STAY,
    LostCityOptions,
    LostCityState,
)

BLACK, WHITE = 0, 5  # colour die faces with the default black_faces=2 (faces 0 and 1 are black)


# -- helpers ------------------------------------------------------------------------------------------
def play(s: LostCityState, *actions: int) -> LostCityState:
    """Apply ``actions`` (decisions checked legal, or chance outcomes) in turn, in place."""
    for action in actions:
        if s.current_player() >= 0:
            assert action in s.legal_actions(), (
                f"{action} ({s.action_to_string(action)}) not legal; legal: "
                f"{[s.action_to_string(a) for a in s.legal_actions()]}"
            )
        s.apply_action(action)
    return s


def atk(s: LostCityState, seat: int) -> int:
    return ATTACK + s.offset(seat) - 1


def abil(s: LostCityState, seat: int) -> int:
    return ABILITY + s.offset(seat) - 1


def pair(s: LostCityState, a: int, b: int) -> int:
    o = sorted((s.offset(a), s.offset(b)))
    return PAIR + PAIR_INDEX[tuple(o)]


def card_total(s: LostCityState) -> list[int]:
    counts = s.deck.draw_pile_counts()
    for kind, c in enumerate(s.deck.discards):
        counts[kind] += c
    for kind in s.held:
        if kind >= 0:
            counts[kind] += 1
    return counts


# -- 4.1 tables -----------------------------------------------------------------------------------
def test_characters_table_matches_the_seed():
    assert ch.NAMES == ALL
    assert ch.MAX_HP == (250, 250, 260, 200, 200, 200, 250)
    assert ch.MOVE == (2, 2, 2, 1, 1, 1, 2)
    assert ch.RANGE == (1, 1, 1, 3, 3, 3, 1)


def test_battle_deck_is_28_cards():
    assert dict(zip(cards.CARD_NAMES, cards.CARD_COUNTS, strict=True)) == {
        "+10 Health": 4, "+10 Damage": 4, "+20 Health": 2, "+20 Damage": 2, "Skip Turn": 2, "Null": 4,
        "Joker": 2, "Special Ability": 8,
    }  # fmt: skip
    assert cards.DECK_SIZE == 28


# -- T1, T3, T31: board, spawns, characters ---------------------------------------------------------
def test_t1_board_is_12x12_with_12_ruins_that_block_moves():
    s = position(["Rob", "Jack"], [(4, 4), (0, 11)])
    assert s.geo.size == 12 and sum(s.geo.ruin) == 12
    assert {divmod(i, 12) for i, r in enumerate(s.geo.ruin) if r} == set(RUINS)
    # Rob at (4,4): the ruin (3,3) is not a destination and cannot be passed; (5,5) neither.
    legal = set(s.legal_actions())
    assert mv(-1, -1) not in legal and mv(1, 1) not in legal
    # (2,2) is two steps away only through the ruin (3,3): unreachable. (2,3) goes through (3,4).
    assert mv(-2, -2) not in legal and mv(-2, -1) in legal


def test_t1_board_size_and_ruins_are_options():
    s = position(
        ["Rob", "Jack"], [(1, 1), (5, 5)], board_size=6, ruins=((0, 0), (2, 2)), spawns=((1, 1), (5, 5))
    )
    assert s.geo.size == 6 and sum(s.geo.ruin) == 2
    legal = set(s.legal_actions())
    # (0,0) and (2,2) are ruins; every other square within 2 king steps is open.
    assert mv(-1, -1) not in legal and mv(1, 1) not in legal
    assert mv(1, 0) in legal and mv(2, 1) in legal  # (3,2) through (2,1)
    assert mv(2, 2) not in legal  # (3,3) only through the ruin (2,2)
    assert len(legal) == 13
    game = LostCityGame(board_size=6, ruins=((0, 0),), spawns=((5, 5), (0, 5)), num_players=2)
    assert game.observation_shape(0) == (8 * 36 + 263,)


@pytest.mark.parametrize("n", [2, 7])
def test_t3_t31_spawns_in_order_and_characters_by_seat(n):
    opts = LostCityOptions(num_players=n, characters=ALL[:n], first_player="seat0")
    s = LostCityState(opts)
    assert [s.geo.cell(p) for p in s.pos] == list(SPAWNS[n])
    assert s.char == list(range(n))
    assert s.hp == [ch.MAX_HP[k] for k in range(n)]
    assert s.phase == P_MOVE and s.current_player() == 0 and s.round == 1


def test_t3_default_spawns_by_player_count():
    """T3 (issue 27): every count has its own spawns on the perimeter, distinct and off the ruins; 2 and 4
    players keep the first design's (the shipped models' games), 3 players stand 11 apart pairwise."""
    assert set(SPAWNS) == set(range(2, 8))
    for n, spawns in SPAWNS.items():
        assert len(spawns) == len(set(spawns)) == n
        assert all(r in (0, 11) or c in (0, 11) for r, c in spawns)
        assert not set(spawns) & set(RUINS)
        assert LostCityOptions(num_players=n).spawns == spawns
    assert SPAWNS[2] == FIRST_SPAWNS[:2] and SPAWNS[4] == FIRST_SPAWNS[:4]
    three = SPAWNS[3]
    assert {max(abs(a[0] - b[0]), abs(a[1] - b[1])) for a in three for b in three if a != b} == {11}


def test_t3_spawns_beyond_the_player_count_are_dropped():
    """Options given the seven first-design spawns (as saved models and results files of the first
    design hold them) are the options of the count's first squares; with 4 players the default ones."""
    four = LostCityOptions(num_players=4, spawns=FIRST_SPAWNS)
    assert four.spawns == FIRST_SPAWNS[:4] and four == LostCityOptions(num_players=4)
    three = LostCityOptions(num_players=3, spawns=FIRST_SPAWNS)
    assert three.spawns == FIRST_SPAWNS[:3] != LostCityOptions(num_players=3).spawns
    s = LostCityState(LostCityOptions(num_players=3, spawns=FIRST_SPAWNS, characters=ALL[:3]))
    assert [s.geo.cell(p) for p in s.pos] == [(0, 0), (11, 11), (0, 11)]
    with pytest.raises(ValueError, match="default spawns are for 12x12"):
        LostCityOptions(num_players=2, board_size=6, ruins=())
    # a state saved with the seven spawns written out loads into the default 4-player game
    game = LostCityGame(num_players=4)
    data = game.new_initial_state().to_dict()
    data["options"]["spawns"] = [list(sq) for sq in FIRST_SPAWNS]
    assert game.state_from_dict(data) == game.new_initial_state()


def test_t3_custom_spawns_option():
    opts = LostCityOptions(
        num_players=2, characters=("Jack", "Rob"), spawns=((2, 2), (9, 9)), first_player="seat0"
    )
    s = LostCityState(opts)
    assert s.pos == [cell(2, 2), cell(9, 9)]


@pytest.mark.parametrize("n", [2, 7])
def test_t2_t31_random_characters_drawn_by_chance_without_replacement(n):
    s = LostCityState(LostCityOptions(num_players=n, characters="random"))
    assert s.current_player() == CHANCE and s.phase == P_CHARS
    assert s.chance_outcomes() == [(k, 1 / 7) for k in range(7)]
    s.apply_action(3)
    assert s.char == [3] + [-1] * (n - 1) and s.hp[0] == 200
    assert [k for k, _ in s.chance_outcomes()] == [0, 1, 2, 4, 5, 6]
    with pytest.raises(IllegalActionError):
        s.apply_action(3)  # taken
    for k in (0, 1, 2, 4, 5, 6)[: n - 1]:
        s.apply_action(k)
    assert s.char == [3, 0, 1, 2, 4, 5, 6][:n] and s.seated() == n
    assert s.phase == P_FIRST  # the characters come first, then the initiative roll (T30)


# -- T2: the draft -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 7])
def test_t2_draft_by_default_in_turn_order_from_the_first_player(n):
    s = LostCityState(LostCityOptions(num_players=n))
    assert s.options.characters == "pick"
    # The initiative roll comes first (T30): the draft follows the turn order.
    assert s.phase == P_FIRST and s.current_player() == CHANCE
    first = n - 1
    s.apply_action(first)
    taken = []
    for i in range(min(n, 6)):  # with 7 players the last character is assigned, not picked (T2)
        seat = (first + i) % n
        assert s.phase == P_PICK and s.current_player() == seat and s.chance_outcomes() == []
        assert s.legal_actions() == [PICK + k for k in range(7) if k not in taken]
        assert not any(s.is_out(p) for p in range(n)) and s.returns() == [0.0] * n
        k = 6 - i  # Chris first, then Josh, ...
        assert s.action_to_string(PICK + k) == f"player_{seat} picks {ch.NAMES[k]}"
        s.apply_action(PICK + k)
        taken.append(k)
        assert s.char[seat] == k and s.hp[seat] == ch.MAX_HP[k]  # public at once
        left = [c for c in range(7) if c not in taken]
        assert s.characters_left() == (left if len(left) > 1 else [])  # T2: a last one is assigned
    # Round 1 starts with the first player, every seat on its spawn (T3, T31).
    assert s.phase == P_MOVE and s.round == 1 and s.to_move == first and s.first == first
    assert sorted(s.char) == list(range(7 - n, 7))
    assert [s.geo.cell(p) for p in s.pos] == list(SPAWNS[n])
    if n == 7:
        assert s.char[(first + 6) % n] == ch.ROB  # the one character nobody picked


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("first_player", ["roll", "seat0"])
def test_t2_every_pick_presented_is_a_choice_the_last_of_seven_is_assigned(n, first_player):
    # README: a step that needs no decision is never presented as a choice. With 2-6 players every
    # pick has at least two characters free; with 7 the seventh seat gets the last one by the rules.
    for seed in range(3):
        rng = np.random.default_rng(seed)
        s = LostCityState(LostCityOptions(num_players=n, first_player=first_player))
        picks = []
        while s.phase in (P_FIRST, P_PICK):
            if s.phase == P_FIRST:
                s.apply_action(s.sample_chance(rng))
                continue
            legal = s.legal_actions()
            assert len(legal) >= 2 and s.current_player() == s.to_move
            picks.append(s.to_move)
            s.apply_action(int(rng.choice(legal)))
        assert len(picks) == min(n, 6) == len(set(picks))
        assert picks == [(s.first + i) % n for i in range(len(picks))]  # in turn order (T2)
        assert s.phase == P_MOVE and s.to_move == s.first and s.seated() == n
        assert sorted(s.char) == sorted(set(s.char)) and -1 not in s.char


def test_t2_seven_player_draft_assigns_the_seventh_character_and_round_trips():
    s = LostCityState(LostCityOptions(num_players=7))
    s.apply_action(2)  # seat 2 starts (T30)
    play(s, *(PICK + k for k in (ch.SAFINA, ch.ROB, ch.JACK, ch.AARON, ch.CHRIS)))
    assert s.phase == P_PICK and s.current_player() == 0 and s.characters_left() == [ch.JAMIE, ch.JOSH]
    copy = LostCityState.from_dict(s.to_dict())
    assert copy == s and copy.legal_actions() == [PICK + ch.JAMIE, PICK + ch.JOSH]
    for state in (s, copy):
        state.apply_action(PICK + ch.JOSH)  # the sixth pick; seat 1 is given Jamie, the last one
        assert state.char == [ch.JOSH, ch.JAMIE, ch.SAFINA, ch.ROB, ch.JACK, ch.AARON, ch.CHRIS]
        assert state.hp[1] == ch.MAX_HP[ch.JAMIE] and state.characters_left() == []
        assert state.phase == P_MOVE and state.round == 1 and state.to_move == 2
    assert LostCityState.from_dict(s.to_dict()) == s == copy


def test_t2_draft_with_seat0_starts_at_once_and_a_taken_character_is_illegal():
    s = LostCityState(LostCityOptions(num_players=3, first_player="seat0"))
    assert s.phase == P_PICK and s.current_player() == 0
    play(s, PICK + ch.SAFINA)
    assert s.current_player() == 1
    with pytest.raises(IllegalActionError, match="draft"):
        s.apply_action(PICK + ch.SAFINA)
    for bad in (STAY, END, ATTACK, PICK - 1, PICK + 7):
        assert bad not in s.legal_actions()
        with pytest.raises(IllegalActionError):
            s.clone().apply_action(bad)
    play(s, PICK + ch.JACK, PICK + ch.ROB)
    assert s.char == [ch.SAFINA, ch.JACK, ch.ROB]
    assert s.phase == P_MOVE and s.to_move == 0 and s.round == 1


def test_t2_draft_round_trips_and_renders():
    s = LostCityState(LostCityOptions(num_players=3))
    s.apply_action(1)
    play(s, PICK + ch.AARON)
    copy = LostCityState.from_dict(s.to_dict())
    assert copy == s and copy.legal_actions() == s.legal_actions() and copy.current_player() == 2
    text = s.render_text()
    assert "player_1: Aaron" in text and "player_0: (no character yet)" in text
    assert "draft, player_2 to pick" in text and "Aaron" not in text.splitlines()[-1]


@pytest.mark.parametrize("value", ["draft", "Rob", None, ("Rob", 3)])
def test_t2_bad_characters_option_names_the_choices(value):
    with pytest.raises(OptionError, match="characters"):
        LostCityGame(num_players=2, characters=value)


# -- T2: player counts and option checks -------------------------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [
        {"num_players": 1},
        {"num_players": 8},
        {"num_players": 2, "characters": ("Rob",)},
        {"num_players": 2, "characters": ("Rob", "Rob")},
        {"num_players": 2, "characters": ("Rob", "Bob")},
        {"black_faces": 7},
        {"max_rounds": 0},
        {"card_counts": (1, 2)},
        {"card_counts": (0,) * 8},
        {"spawns": ((0, 0), (0, 0), (1, 1), (2, 2))},
        {"spawns": ((3, 3), (0, 0), (1, 1), (2, 2))},
        {"ruins": ((12, 0),)},
        {"board_size": 2},
        {"first_player": "dice"},
        {"colour": 1},
    ],
)
def test_t2_bad_options_raise(bad):
    with pytest.raises(OptionError):
        LostCityGame(**bad)


@pytest.mark.parametrize("n", range(2, 8))
def test_t2_two_to_seven_players(n):
    game = LostCityGame(num_players=n)
    assert game.num_players == n and len(game.agents) == n


# -- T4: distance ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t4_ranged_attacks_within_chebyshev_3_through_ruins(n):
    # Jack at (1,1); Rob at (4,4): dx = dy = 3 -> distance 3 (Chebyshev), with the ruin (3,3) between.
    s = position(["Jack", "Rob"], [(1, 1), (4, 4)], extra=n - 2)
    play(s, STAY)
    assert s.legal_actions() == [atk(s, 1), END]
    s = position(["Jack", "Rob"], [(1, 1), (4, 5)], extra=n - 2)  # distance 4
    play(s, STAY)
    assert s.phase == P_MOVE and s.to_move == 1  # nothing to do: the turn passed (T34)


@pytest.mark.parametrize("n", [2, 7])
def test_t4_melee_reaches_the_8_surrounding_squares_only(n):
    for target, ok in (((6, 1), True), ((6, 2), True), ((4, 0), True), ((7, 1), False), ((5, 3), False)):
        s = position(["Aaron", "Jack"], [(5, 1), target], extra=n - 2)
        play(s, STAY)
        if ok:
            assert s.legal_actions() == [atk(s, 1), END]
        else:
            assert s.to_move == 1 and s.phase == P_MOVE


# -- T5: movement ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t5_melee_moves_up_to_2_king_steps(n):
    s = position(["Chris", "Jack"], [(0, 0), (11, 11)], extra=n - 2)
    if n == 7:
        s.pos = [cell(0, 0)] + [cell(11, 11 - i) for i in range(6)]
    expected = {STAY, mv(0, 1), mv(1, 0), mv(1, 1), mv(0, 2), mv(1, 2), mv(2, 0), mv(2, 1), mv(2, 2)}
    assert set(s.legal_actions()) == expected
    play(s, mv(2, 1))
    assert s.pos[0] == cell(2, 1)


def test_t5_ranged_moves_one_king_step_not_onto_ruins():
    s = position(["Jack", "Rob"], [(4, 4), (11, 11)])
    assert s.legal_actions() == sorted([STAY, mv(-1, 0), mv(-1, 1), mv(0, -1), mv(0, 1), mv(1, -1), mv(1, 0)])


def test_t5_no_moving_through_or_onto_occupied_squares():
    # Rob in the corner, boxed in by three characters: he cannot move at all (staying is the pass).
    s = position(["Rob", "Jack", "Josh", "Jamie"], [(0, 0), (0, 1), (1, 0), (1, 1)])
    assert s.legal_actions() == [STAY]
    # One neighbour free: Rob can step there and on through it, but never onto the others.
    s = position(["Rob", "Jack", "Josh"], [(0, 0), (0, 1), (1, 0)])
    assert set(s.legal_actions()) == {STAY, mv(1, 1), mv(0, 2), mv(1, 2), mv(2, 0), mv(2, 1), mv(2, 2)}
    # (2,0) is reached through (1,1) only.
    s = position(["Rob", "Jack", "Josh", "Jamie"], [(0, 0), (0, 1), (1, 0), (3, 3)])
    s.pos[3] = cell(1, 1)
    s.pos[2] = cell(2, 2)
    s._legal = None
    assert set(s.legal_actions()) == {STAY, mv(1, 0), mv(2, 0), mv(2, 1)}


def test_t29_safina_is_melee_moving_2_range_1():
    s = position(["Safina", "Jack"], [(10, 1), (10, 4)])
    assert mv(0, 2) in s.legal_actions()
    play(s, mv(0, 2))
    assert s.legal_actions() == [atk(s, 1), END]
    s = position(["Safina", "Jack"], [(10, 1), (10, 3)])
    play(s, STAY)
    assert s.to_move == 1  # range 1: Jack at distance 2 is out of reach


# -- T6, T7: turn order and round 1 ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t7_round_one_is_move_only(n):
    s = position(["Aaron", "Rob"], [(10, 1), (10, 2)], rnd=1, extra=n - 2)
    play(s, STAY)
    assert s.to_move == 1 and s.phase == P_MOVE  # no attack offered in round 1: turn over (T34)
    s = position(["Aaron", "Rob"], [(10, 1), (10, 2)], rnd=2, extra=n - 2)
    play(s, STAY)
    assert s.legal_actions() == [atk(s, 1), END]


def test_t6_card_play_then_move_then_attack():
    s = position(["Aaron", "Rob"], [(10, 1), (10, 3)], hp={0: 200}, held={0: HEALTH_20})
    assert PLAY_HEALTH in s.legal_actions()
    play(s, PLAY_HEALTH)
    assert s.hp[0] == 220 and s.held[0] == -1 and s.phase == P_MOVE
    assert PLAY_HEALTH not in s.legal_actions()
    play(s, mv(0, 1))
    assert s.phase == P_ACTION and s.legal_actions() == [atk(s, 1), END]
    play(s, END)
    assert s.to_move == 1


# -- T8, T10: attack rolls --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
@pytest.mark.parametrize("hit", [1, 2, 3, 4, 5, 6])
def test_t8_hit_on_1_to_3_damage_is_10_times_the_roll(n, hit):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], extra=n - 2)
    play(s, STAY, atk(s, 1))
    assert s.current_player() == CHANCE and s.phase == P_HIT
    assert s.chance_outcomes() == [(f, 1 / 6) for f in range(1, 7)]
    play(s, hit)
    if hit >= 4:  # a miss ends the turn; no damage roll, no colour die (T10)
        assert s.to_move == 1 and s.phase == P_MOVE and s.hp[1] == 200
        return
    assert s.phase == P_DAMAGE
    play(s, 4)
    assert s.phase == P_COLOUR
    play(s, WHITE)  # nothing to choose after the roll: damage applied at once (T34)
    assert s.hp[1] == 160 and s.to_move == 1 and s.phase == P_MOVE


@pytest.mark.parametrize("roll", [1, 6])
def test_t8_damage_roll_table(roll):
    s = position(["Jack", "Aaron"], [(1, 1), (3, 4)])
    play(s, STAY, atk(s, 1), 2, roll, WHITE)
    assert s.hp[1] == 250 - 10 * roll


def test_t10_t18_abilities_roll_nothing():
    s = position(["Chris", "Jack"], [(10, 1), (10, 2)], held={0: SPECIAL})
    play(s, STAY, abil(s, 1))
    assert s.hp[1] == 160 and s.skip[1] == 0  # resolved at once; Jack's turn was skipped (T24)
    assert s.current_player() == 0 and s.round == 3


# -- T9: the colour die and draws ---------------------------------------------------------------------
@pytest.mark.parametrize("black_faces", [0, 1, 3, 6])
def test_t9_black_faces_of_the_colour_die_draw_a_card(black_faces):
    for face in range(6):
        s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], black_faces=black_faces)
        play(s, STAY, atk(s, 1), 1, 2)
        assert s.chance_outcomes() == [(f, 1 / 6) for f in range(6)]
        play(s, face)
        if face < black_faces:
            assert s.phase == P_DRAW and s.current_player() == CHANCE
            assert s.chance_outcomes() == [(k, c / 28) for k, c in enumerate(cards.CARD_COUNTS)]
            play(s, SPECIAL)
            assert s.held[0] == SPECIAL
        else:
            assert s.held[0] == -1
        assert s.hp[1] == 180 and s.to_move == 1


def test_t9_two_black_faces_by_default():
    assert LostCityOptions().black_faces == 2
    drawn = []
    for face in range(6):
        s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
        play(s, STAY, atk(s, 1), 1, 2, face)
        drawn.append(s.phase == P_DRAW)
    assert drawn == [True, True, False, False, False, False]  # P(card) = 1/3 per hit


def test_t10_colour_die_only_after_a_hit():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    play(s, STAY, atk(s, 1), 6)
    assert s.phase == P_MOVE and s.to_move == 1  # no colour die on a miss


# -- T11: card timing --------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,bonus", [(DAMAGE_10, 10), (DAMAGE_20, 20)])
def test_t11_damage_card_after_seeing_the_roll(kind, bonus):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: kind})
    assert PLAY_DAMAGE not in s.legal_actions()  # not before moving
    play(s, STAY)
    assert PLAY_DAMAGE not in s.legal_actions()  # not before the attack
    play(s, atk(s, 1), 1, 3, WHITE)
    assert s.phase == P_POSTROLL and s.roll == 3
    assert s.legal_actions() == [PLAY_DAMAGE, END]
    play(s, PLAY_DAMAGE)
    assert s.hp[1] == 200 - 30 - bonus and s.held[0] == -1 and s.to_move == 1
    assert s.deck.discards[kind] == 1


def test_t11_damage_card_may_be_kept():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: DAMAGE_10})
    play(s, STAY, atk(s, 1), 1, 3, WHITE, END)
    assert s.hp[1] == 170 and s.held[0] == DAMAGE_10


def test_t11_t40_health_card_in_move_action_and_post_roll_steps():
    for when in ("move", "action", "postroll"):
        s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], hp={0: 100}, held={0: HEALTH_10})
        if when == "move":
            assert s.legal_actions()[-1] == PLAY_HEALTH
            play(s, PLAY_HEALTH)
        elif when == "action":
            play(s, STAY)
            assert s.legal_actions() == [atk(s, 1), PLAY_HEALTH, END]
            play(s, PLAY_HEALTH)
        else:
            play(s, STAY, atk(s, 1), 1, 1, BLACK)
            assert s.legal_actions() == [PLAY_HEALTH, END]
            play(s, PLAY_HEALTH)
        assert s.hp[0] == 110 and s.held[0] == -1


def test_t40_health_card_at_full_hp_is_legal_and_wasted():
    s = position(["Aaron", "Jack"], [(10, 1), (11, 11)], held={0: HEALTH_20})
    play(s, PLAY_HEALTH)
    assert s.hp[0] == 250 and s.held[0] == -1 and s.deck.discards[HEALTH_20] == 1


# -- T12, T13, T14, T15: drawing ------------------------------------------------------------------------
def draw(s: LostCityState, kind: int) -> LostCityState:
    """Seat 0 (Aaron) hits Jack for 10 on black and draws ``kind``."""
    play(s, STAY, atk(s, 1), 1, 1, BLACK)
    if s.phase == P_POSTROLL:
        play(s, END)
    assert s.phase == P_DRAW
    return play(s, kind)


@pytest.mark.parametrize("discards", [True, False])
@pytest.mark.parametrize("new", range(8))
def test_t12_t13_any_new_draw_replaces_the_held_card(discards, new):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: DAMAGE_10}, bad_draw_discards_held=discards)
    draw(s, new)
    good = new in (HEALTH_10, DAMAGE_10, HEALTH_20, DAMAGE_20, SPECIAL)
    if good:
        assert s.held[0] == new  # T12: the good new card is held, the old one discarded
        assert s.deck.discards[DAMAGE_10] == 1 + (new == DAMAGE_10) * 0
    elif discards:
        assert s.held[0] == -1  # T12 (option on): even a bad or Null draw discards the held card
        assert s.deck.discards[DAMAGE_10] == 1 and s.deck.discards[new] == 1
    else:
        assert s.held[0] == DAMAGE_10  # option off: only good draws replace
        assert s.deck.discards[new] == 1
    assert card_total(s) == list(cards.CARD_COUNTS)


def test_t13_null_does_nothing_else():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    draw(s, NULL)
    assert s.hp[0] == 250 and s.skip[0] == 0 and s.held[0] == -1 and s.to_move == 1


@pytest.mark.parametrize("hp,after", [(250, 125), (101, 51), (1, 1), (2, 1)])
def test_t14_joker_loses_half_rounded_down(hp, after):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], hp={0: hp})
    draw(s, JOKER)
    assert s.hp[0] == after and s.held[0] == -1


def test_t15_skip_turn_card_skips_the_drawers_next_turn():
    s = position(["Aaron", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)])
    draw(s, SKIP_TURN)
    assert s.skip[0] == 1 and s.to_move == 1
    play(s, STAY, END)  # Jack has Aaron in range but ends
    assert s.to_move == 2
    play(s, STAY)
    # Rob's turn ends; Aaron's turn is skipped; Jack acts again in round 3.
    assert s.to_move == 1 and s.round == 3 and s.skip[0] == 0


# -- T16: HP caps --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_t16_hp_capped_at_starting_hp(name):
    cap = ch.MAX_HP[ALL.index(name)]
    s = position(
        [name, "Jack" if name != "Jack" else "Rob"], [(10, 1), (0, 11)], hp={0: cap - 5}, held={0: HEALTH_20}
    )
    play(s, PLAY_HEALTH)
    assert s.hp[0] == cap


# -- T17, T19: Critical ---------------------------------------------------------------------------------
def test_t17_critical_is_not_an_action_step_ability():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: SPECIAL})
    play(s, STAY)
    assert s.legal_actions() == [atk(s, 1), END]


@pytest.mark.parametrize("roll", [1, 6])
def test_t17_t19_critical_doubles_the_die_damage(roll):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: SPECIAL})
    play(s, STAY, atk(s, 1), 1, roll, WHITE)
    assert s.legal_actions() == [CRITICAL, END]
    play(s, CRITICAL)
    assert s.hp[1] == 200 - 20 * roll and s.held[0] == -1 and s.to_move == 1


def test_t19_critical_and_card_bonus_formula():
    # Only one card is ever held, so both never meet in play; the formula is (roll x 10) x 2 + bonus.
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    s.hp[1] = 200
    play(s, STAY, atk(s, 1), 1, 6, WHITE)
    s2 = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    s2.phase, s2.target, s2.roll, s2.crit, s2.bonus = P_POSTROLL, 1, 6, True, 20
    s2._resolve_attack()
    assert s2.hp[1] == 200 - (60 * 2 + 20)


def test_t17_one_offensive_action_per_turn():
    s = position(["Chris", "Jack", "Rob"], [(10, 1), (10, 2), (9, 1)], held={0: SPECIAL})
    play(s, STAY)
    assert s.legal_actions() == sorted([atk(s, 1), atk(s, 2), abil(s, 1), abil(s, 2), END])
    play(s, abil(s, 2))
    assert s.to_move == 1  # the ability was the turn's action


# -- T20: Seduction ------------------------------------------------------------------------------------
def seduced_position(n: int = 3) -> LostCityState:
    """Rob (seat 0) seduces Aaron (seat 1, next to Jack, seat 2) in round 2."""
    s = position(
        ["Rob", "Aaron", "Jack"], [(10, 1), (10, 2), (10, 3)], held={0: SPECIAL, 1: HEALTH_10}, extra=n - 3
    )
    play(s, STAY)
    assert abil(s, 1) in s.legal_actions()
    play(s, abil(s, 1))
    return s


@pytest.mark.parametrize("n", [3, 7])
def test_t20_rob_decides_for_the_seduced_character_for_two_turns(n):
    s = seduced_position(n)
    assert s.ctrl[1] == 0 and s.shield_by[1] == 0 and s.held[0] == -1
    for turn in range(2):
        assert s.to_move == 1 and s.current_player() == 0  # Rob's agent acts for Aaron
        assert s.ctrl_turns[1] == 1 - turn  # controlled turns left after this one
        legal = s.legal_actions()
        assert PLAY_HEALTH not in legal  # the seduced character cannot use its card
        play(s, STAY)
        # Aaron may attack Jack (offset from Rob's seat) but never Rob.
        assert s.legal_actions() == [ATTACK + s.offset(2) - 1, END]
        play(s, END)
        # Jack's turn, extras, then Rob's own turn: Rob may not attack Aaron (adjacent).
        while s.to_move != 0:
            play(s, STAY)
            if s.phase == P_ACTION:
                play(s, END)
        play(s, STAY)
        # Rob is next to Aaron but may not attack him: nothing to do, the turn passed (T34).
        assert s.to_move == 1
    # Two controlled turns are over: Aaron decides for himself again; on Rob's next turn he may attack.
    assert s.to_move == 1 and s.current_player() == 1 and s.ctrl[1] == -1
    assert PLAY_HEALTH in s.legal_actions()
    play(s, STAY, END)
    while s.to_move != 0:
        play(s, STAY)
        if s.phase == P_ACTION:
            play(s, END)
    play(s, STAY)
    assert atk(s, 1) in s.legal_actions() and s.shield_by[1] == -1


def test_t20_seduced_hit_draws_for_the_seduced_character():
    s = seduced_position(3)
    play(s, STAY, ATTACK + s.offset(2) - 1, 1, 2, BLACK)
    assert s.phase == P_DRAW  # no post-roll choices for a seduced character: damage applied
    assert s.hp[2] == 180
    play(s, SPECIAL)
    assert s.held[1] == SPECIAL  # Aaron's own card replaced (T12, T33)


def test_t20_seduction_ends_early_when_rob_dies():
    s = seduced_position(3)
    s.hp[0] = 10
    # Aaron's controlled turn: make him walk; then Jack shoots Rob dead.
    play(s, STAY, END)
    play(s, STAY, atk(s, 0), 1, 1, WHITE)
    assert s.hp[0] == 0 and s.is_out(0)
    assert s.ctrl[1] == -1 and s.shield_by[1] == -1
    assert s.to_move == 1 and s.current_player() == 1


# -- T21: Fire ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t21_fire_ticks_20_at_the_targets_next_three_turns(n):
    s = position(["Jack", "Rob"], [(10, 1), (10, 2)], held={0: SPECIAL}, extra=n - 2)
    play(s, STAY, abil(s, 1))
    hps = []
    for _ in range(4):
        while s.to_move != 1:
            play(s, STAY)
            if s.phase == P_ACTION:
                play(s, END)
        hps.append((s.hp[1], s.burn[1]))
        play(s, STAY, END)  # a burning character still acts
    assert hps == [(230, 2), (210, 1), (190, 0), (190, 0)]


def test_t21_refire_refreshes_and_a_tick_can_eliminate():
    s = position(["Jack", "Rob", "Aaron"], [(10, 1), (10, 2), (0, 11)], held={0: SPECIAL}, hp={1: 100})
    s.burn[1] = 1
    play(s, STAY, abil(s, 1))
    assert s.burn[1] == 2 and s.hp[1] == 80  # refreshed to 3, then one tick at Rob's turn start
    s = position(["Jack", "Rob", "Aaron"], [(10, 1), (10, 2), (0, 11)], held={0: SPECIAL}, hp={1: 15})
    play(s, STAY, abil(s, 1))
    # Rob's turn starts with a tick: 15 - 20 -> eliminated; Aaron is next.
    assert s.hp[1] == 0 and s.to_move == 2 and s.is_out(1)
    assert s.returns() == [0.0, -1.0, 0.0]


def test_t21_last_opponent_burned_to_death_ends_the_game():
    s = position(["Jack", "Rob"], [(10, 1), (10, 5)], hp={1: 20})
    s.burn[1] = 2
    play(s, STAY)
    assert s.current_player() == TERMINAL and s.outcome == [0]
    assert s.returns() == [1.0, -1.0]


# -- T22, T37: Copycat ---------------------------------------------------------------------------------
def test_t22_copy_needs_the_owner_within_3_and_resolves_from_jamies_square():
    # Jamie (3,... ) Chris at distance 3, Rob adjacent to Jamie: Jamie copies Trap onto Rob.
    s = position(["Jamie", "Chris", "Rob"], [(10, 1), (10, 4), (10, 2)], held={0: SPECIAL})
    play(s, STAY)
    # Copyable: Chris's Trap (target Rob within 1 of Jamie) and Rob's Seduction (Rob within 1).
    assert s.legal_actions() == sorted([atk(s, 1), atk(s, 2), COPY + ch.ROB, COPY + ch.CHRIS, END])
    play(s, COPY + ch.CHRIS)
    assert s.phase == P_COPY and s.legal_actions() == [abil(s, 2)]  # Chris is at 3: out of Trap range
    play(s, abil(s, 2))
    assert s.hp[2] == 210 and s.skip[2] == 1 and s.held[0] == -1 and s.to_move == 1


def test_t22_no_copy_from_beyond_3_or_of_abilities_without_targets():
    s = position(["Jamie", "Chris", "Rob"], [(10, 1), (10, 5), (10, 2)], held={0: SPECIAL})
    play(s, STAY)
    assert COPY + ch.CHRIS not in s.legal_actions()  # Chris at 4
    s = position(["Jamie", "Safina", "Jack"], [(10, 1), (10, 4), (0, 11)], held={0: SPECIAL})
    play(s, STAY)
    # Safina is within 3 but nobody is within Health Steal's 2 of Jamie except... Safina at 3: no.
    assert s.legal_actions() == [atk(s, 1), END]


def test_t22_copied_health_steal_caps_at_jamies_200():
    s = position(["Jamie", "Safina"], [(10, 1), (10, 3)], held={0: SPECIAL}, hp={0: 180})
    play(s, STAY, COPY + ch.SAFINA)
    assert s.legal_actions() == [abil(s, 1)]
    play(s, abil(s, 1))
    assert s.hp == [200, 210]


def test_t37_jamie_copies_critical_after_his_hit_with_aaron_within_3():
    for aaron_at, ok in (((10, 4), True), ((10, 5), False)):
        s = position(["Jamie", "Aaron", "Jack"], [(10, 1), aaron_at, (8, 1)], held={0: SPECIAL})
        play(s, STAY)
        assert COPY + ch.AARON not in s.legal_actions()
        play(s, atk(s, 2), 1, 5, WHITE)
        if ok:
            assert s.legal_actions() == [CRITICAL, END]
            play(s, CRITICAL)
            assert s.hp[2] == 100
        else:
            assert s.hp[2] == 150  # no choice: damage applied at once


# -- T23: Double Hit -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 7])
def test_t23_double_hit_two_targets_25_each(n):
    s = position(["Josh", "Rob", "Aaron"], [(10, 1), (10, 2), (9, 1)], held={0: SPECIAL}, extra=n - 3)
    play(s, STAY)
    assert s.legal_actions() == sorted([atk(s, 1), atk(s, 2), pair(s, 1, 2), END])
    play(s, pair(s, 1, 2))
    assert s.hp[1:3] == [225, 225] and s.to_move == 1


def test_t23_double_hit_single_target_40_and_three_in_range_choose_a_pair():
    s = position(["Josh", "Rob", "Aaron"], [(10, 1), (10, 2), (7, 1)], held={0: SPECIAL})
    play(s, STAY)
    assert s.legal_actions() == sorted([atk(s, 1), atk(s, 2), abil(s, 1), END])
    play(s, abil(s, 1))
    assert s.hp[1] == 210
    s = position(["Josh", "Rob", "Aaron", "Chris"], [(10, 1), (10, 2), (9, 1), (11, 0)], held={0: SPECIAL})
    play(s, STAY)
    pairs = [x for x in s.legal_actions() if x >= PAIR and x < COPY]
    assert pairs == sorted([pair(s, 1, 2), pair(s, 1, 3), pair(s, 2, 3)])
    assert not [x for x in s.legal_actions() if ABILITY <= x < PAIR]


def test_t23_double_hit_needs_someone_in_range():
    s = position(["Josh", "Rob"], [(10, 1), (10, 3)], held={0: SPECIAL})
    play(s, STAY)
    assert s.legal_actions() == [atk(s, 1), END]


# -- T24: Trap -----------------------------------------------------------------------------------------
def test_t24_trap_40_damage_and_a_missed_turn():
    s = position(["Chris", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)], held={0: SPECIAL})
    play(s, STAY, abil(s, 1))
    assert s.hp[1] == 160
    assert s.to_move == 2 and s.skip[1] == 0  # Jack's next turn (the very next one) was skipped


# -- T25: Health Steal ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "own,target_hp,after", [(200, 250, (250, 200)), (240, 250, (260, 200)), (100, 30, (130, 0))]
)
def test_t25_health_steal_drains_50_capped_at_260(own, target_hp, after):
    s = position(
        ["Safina", "Rob", "Jack"], [(10, 1), (10, 3), (0, 11)], held={0: SPECIAL}, hp={0: own, 1: target_hp}
    )
    play(s, STAY)
    assert abil(s, 1) in s.legal_actions() and atk(s, 1) not in s.legal_actions()  # range 2 vs 1
    play(s, abil(s, 1))
    assert (s.hp[0], s.hp[1]) == after


# -- T26, T38: elimination ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t26_last_character_standing_wins(n):
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], hp={1: 30}, extra=n - 2)
    for p in range(2, n):
        s.hp[p] = 0
        s.pos[p] = -1
    play(s, STAY, atk(s, 1), 1, 3, WHITE)
    assert s.current_player() == TERMINAL and s.outcome == [0] and s.winner() == 0
    assert s.returns() == [1.0] + [-1.0] * (n - 1)
    assert not s.is_truncated()


def test_t38_eliminated_character_leaves_board_and_discards_its_card():
    s = position(["Aaron", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)], hp={1: 30}, held={1: SPECIAL})
    play(s, STAY, atk(s, 1), 1, 3, WHITE)
    assert s.hp[1] == 0 and s.pos[1] == -1 and s.held[1] == -1 and s.deck.discards[SPECIAL] == 1
    assert s.is_out(1) and s.returns() == [0.0, -1.0, 0.0]
    assert s.to_move == 2  # the eliminated seat is passed over
    # Aaron can now move onto the freed square.
    play(s, STAY)  # Rob
    assert s.to_move == 0 and mv(0, 1) in s.legal_actions()


def test_t26_simultaneous_last_deaths_are_a_draw():
    # No action of the rules damages two characters when only two are left and one of them acts, so
    # the case is reached by resolving a scripted double loss directly.
    s = position(["Josh", "Rob", "Aaron"], [(10, 1), (10, 2), (9, 1)], hp={1: 20, 2: 20})
    s.hp[0] = 0
    s._hurt(1, 25, -1)
    s._hurt(2, 25, -1)
    s._check_over([1, 2])
    assert s.phase == P_OVER and s.outcome == [1, 2]
    assert s.returns() == [-1.0, 0.0, 0.0]


def test_t23_t26_double_hit_kills_two_and_wins():
    s = position(["Josh", "Rob", "Aaron"], [(10, 1), (10, 2), (9, 1)], held={0: SPECIAL}, hp={1: 20, 2: 25})
    play(s, STAY, pair(s, 1, 2))
    assert s.outcome == [0] and s.returns() == [1.0, -1.0, -1.0]


# -- T27, T36: deck exhaustion -----------------------------------------------------------------------
def test_t27_empty_pile_is_reshuffled_from_the_discards():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    s.deck.unseen = [0] * 8
    s.deck.unseen_total = 0
    s.deck.discards = list(cards.CARD_COUNTS)
    play(s, STAY, atk(s, 1), 1, 1, BLACK)
    assert s.phase == P_DRAW and s.deck.discards == [0] * 8
    assert s.chance_outcomes() == [(k, c / 28) for k, c in enumerate(cards.CARD_COUNTS)]


def test_t36_no_card_anywhere_draws_nothing():
    s = position(
        ["Aaron", "Jack"], [(10, 1), (10, 2)], card_counts=(1, 0, 0, 0, 0, 0, 0, 0), held={1: HEALTH_10}
    )
    assert s.deck.draw_pile_size() == 0 and s.deck.discard_size() == 0
    play(s, STAY, atk(s, 1), 1, 1, BLACK)
    assert s.to_move == 1 and s.held[0] == -1 and s.phase == P_MOVE


# -- T28, T39: round cap -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t28_round_cap_hp_tiebreak_highest_hp_wins(n):
    s = position(
        ["Aaron", "Jack"],
        [(10, 1), (0, 11)],
        rnd=3,
        max_rounds=3,
        hp={0: 100},
        extra=n - 2,
        cap_tiebreak="hp",
    )
    for _ in range(n):
        play(s, STAY)
        if s.phase == P_ACTION:
            play(s, END)
    assert s.current_player() == TERMINAL and not s.is_truncated()
    best = max(s.hp)
    assert s.outcome == [p for p in range(n) if s.hp[p] == best]
    if n == 2:
        assert s.outcome == [1] and s.returns() == [-1.0, 1.0]


def test_t28_tie_at_the_cap_is_a_draw():
    s = position(["Rob", "Aaron", "Jack"], [(10, 1), (0, 11), (11, 11)], rnd=150, hp={2: 100})
    for _ in range(3):
        play(s, STAY)
    assert s.outcome == [0, 1] and s.returns() == [0.0, 0.0, -1.0]


def cap_position(dealt, hp, **options) -> LostCityState:
    """Rob, Aaron and Jack in the last round with ``dealt`` damage and ``hp``; everyone then stays put."""
    s = position(["Rob", "Aaron", "Jack"], [(10, 1), (0, 11), (11, 11)], rnd=150, hp=hp, **options)
    s.dealt = list(dealt)
    for _ in range(3):
        play(s, STAY)
    assert s.phase == P_OVER and s.round == 151
    return s


def test_t28_most_damage_dealt_wins_at_the_cap_by_default():
    # Aaron has the least HP but has dealt the most damage: the designed tie-break rewards fighting.
    s = cap_position([30, 80, 0], {1: 100})
    assert s.options.cap_tiebreak == "damage"
    assert s.outcome == [1] and s.returns() == [-1.0, 1.0, -1.0]
    # The same position under the other tie-breaks: the highest HP; the highest share of starting HP.
    assert cap_position([30, 80, 0], {1: 100}, cap_tiebreak="hp").outcome == [0]
    assert cap_position([30, 80, 0], {1: 100}, cap_tiebreak="hp_share").outcome == [0, 2]  # 250/250, 200/200


def test_t28_equal_damage_falls_back_to_the_share_of_starting_hp():
    s = cap_position([40, 40, 10], {0: 200, 1: 250})
    assert s.outcome == [1]  # 250/250 beats 200/250
    s = cap_position([40, 40, 10], {0: 200, 1: 200})
    assert s.outcome == [0, 1] and s.returns() == [0.0, 0.0, -1.0]


def test_t28_a_character_out_of_the_game_cannot_win_at_the_cap():
    s = position(["Rob", "Aaron", "Jack"], [(10, 1), (0, 11), (11, 11)], rnd=150)
    s.dealt = [0, 0, 500]
    s.hp[2] = 0
    s.pos[2] = -1
    play(s, STAY, STAY)
    assert s.outcome == [0, 1]


def test_t28_damage_dealt_is_the_hp_taken_by_each_seats_decisions():
    # A basic attack (T19: Critical and the card bonus included); no more than the HP the target had.
    s = position(["Aaron", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)], held={0: DAMAGE_10})
    play(s, STAY, atk(s, 1), 1, 2, WHITE, PLAY_DAMAGE)
    assert s.dealt == [30, 0, 0]
    s = position(["Aaron", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)], hp={1: 15})
    play(s, STAY, atk(s, 1), 1, 6, WHITE)
    assert s.hp[1] == 0 and s.dealt == [15, 0, 0]
    # Health Steal (T25) and Trap (T24).
    s = position(["Safina", "Rob", "Jack"], [(10, 1), (10, 3), (0, 11)], held={0: SPECIAL})
    play(s, STAY, abil(s, 1))
    assert s.dealt == [50, 0, 0]
    # Fire (T21): each tick counts for the seat that lit it.
    s = position(["Jack", "Rob", "Aaron"], [(10, 1), (10, 2), (0, 11)], held={0: SPECIAL})
    play(s, STAY, abil(s, 1))  # Rob's turn starts with the first tick
    assert s.burn_by[1] == 0 and s.hp[1] == 230 and s.dealt == [20, 0, 0]
    play(s, STAY, END, STAY, STAY, END)  # Rob, Aaron (nothing in range), Jack; Rob's turn: the second tick
    assert s.to_move == 1 and s.hp[1] == 210 and s.dealt == [40, 0, 0]
    # A Joker (T14) is nobody's damage.
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    draw(s, JOKER)  # after Aaron's 10 on Jack
    assert s.hp[0] == 125 and s.dealt == [10, 0]


def test_t20_t28_a_seduced_characters_attack_counts_for_the_seducer():
    s = seduced_position(3)
    play(s, STAY, ATTACK + s.offset(2) - 1, 1, 2, WHITE)
    assert s.hp[2] == 180 and s.dealt == [20, 0, 0]


def test_t39_rounds_count_at_the_first_players_seat_even_when_it_is_out():
    s = position(["Aaron", "Jack", "Rob"], [(10, 1), (0, 11), (11, 11)], to_move=1, rnd=5)
    s.first = 1
    s.hp[1] = 0
    s.pos[1] = -1
    s.to_move = 2
    s._legal = None
    play(s, STAY)  # Rob -> Aaron: still round 5
    assert s.to_move == 0 and s.round == 5
    play(s, STAY)  # Aaron -> (Jack, out: round 6 starts) -> Rob
    assert s.to_move == 2 and s.round == 6


# -- T30: first player ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 7])
def test_t30_roll_off_is_a_uniform_chance_node(n):
    s = LostCityState(LostCityOptions(num_players=n, characters=ALL[:n]))
    assert s.phase == P_FIRST and s.chance_outcomes() == [(p, 1 / n) for p in range(n)]
    s.apply_action(n - 1)
    assert s.to_move == n - 1 and s.first == n - 1 and s.round == 1
    for _ in range(n):
        play(s, STAY)
    assert s.to_move == n - 1 and s.round == 2
    seat0 = LostCityState(LostCityOptions(num_players=n, characters=ALL[:n], first_player="seat0"))
    assert seat0.current_player() == 0


# -- T32, T33: statuses --------------------------------------------------------------------------------
def test_t32_skips_add_up():
    s = position(["Chris", "Jack", "Rob"], [(10, 1), (10, 2), (0, 11)], held={0: SPECIAL})
    s.skip[1] = 1
    play(s, STAY, abil(s, 1))
    assert s.to_move == 2 and s.skip[1] == 1
    play(s, STAY)  # Rob
    play(s, STAY)  # Chris: Jack in range, no card
    play(s, END)
    assert s.to_move == 2 and s.skip[1] == 0  # Jack skipped again


def test_t32_a_skipped_turn_counts_as_a_seduced_turn():
    s = seduced_position(3)
    s.skip[1] = 1
    assert s.to_move == 1  # Aaron's first controlled turn has begun; the skip hits the second
    play(s, STAY, END)  # controlled turn 1
    play(s, STAY, END)  # Jack
    play(s, STAY)  # Rob: ends (Aaron shielded, Jack out of range)
    # Aaron's second controlled turn is skipped; the seduction is over.
    assert s.ctrl[1] == -1 and s.to_move == 2


def test_t33_no_seduction_of_a_seduced_character():
    # Rob seduces Aaron; on Jamie's turn Seduction can be copied (Rob within 3) but only onto Rob.
    s = position(["Rob", "Aaron", "Jamie"], [(10, 1), (10, 2), (9, 2)], held={0: SPECIAL, 2: SPECIAL})
    play(s, STAY, abil(s, 1))
    assert s.current_player() == 0 and s.to_move == 1
    play(s, STAY, END)
    assert s.to_move == 2
    play(s, STAY)
    assert COPY + ch.ROB in s.legal_actions()
    play(s, COPY + ch.ROB)
    assert s.legal_actions() == [abil(s, 0)]


def test_t33_a_seduced_character_cannot_use_its_ability():
    s = position(["Rob", "Chris", "Jack"], [(10, 1), (10, 2), (10, 3)], held={0: SPECIAL, 1: SPECIAL})
    play(s, STAY, abil(s, 1))
    assert s.current_player() == 0 and s.to_move == 1
    play(s, STAY)
    assert s.legal_actions() == [ATTACK + s.offset(2) - 1, END]


# -- T34, T35: automatic steps and target naming -------------------------------------------------------
def test_t34_nothing_to_do_after_moving_ends_the_turn():
    s = position(["Aaron", "Jack"], [(10, 1), (0, 11)])
    play(s, STAY)
    assert s.to_move == 1 and s.phase == P_MOVE


@pytest.mark.parametrize("n", [2, 7])
def test_t35_targets_are_named_by_offset_from_the_deciding_seat(n):
    s = position(["Aaron", "Jack"], [(10, 1), (0, 11)], to_move=1, extra=n - 2)
    s.pos[1] = cell(10, 2)
    s._legal = None
    play(s, STAY)
    # Jack (seat 1) attacks Aaron (seat 0): offset n - 1.
    assert s.legal_actions() == [ATTACK + n - 2, END]
    assert s.seat_at_offset(n - 1) == 0


def test_clone_is_independent():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)], held={0: SPECIAL})
    c = s.clone()
    play(c, STAY, atk(c, 1), 1, 6, WHITE, END)
    assert s.hp[1] == 200 and s.phase == P_MOVE and s.held[0] == SPECIAL
    assert c.hp[1] == 140


def test_illegal_actions_raise_and_leave_the_state():
    s = position(["Aaron", "Jack"], [(10, 1), (10, 2)])
    before = s.to_dict()
    for bad in (atk(s, 1), END, -1, 63, PLAY_HEALTH):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    assert s.to_dict() == before
    play(s, STAY, atk(s, 1))
    with pytest.raises(IllegalActionError):
        s.apply_action(7)  # no die face 7
    with pytest.raises(IllegalActionError):
        s.apply_action(0)
