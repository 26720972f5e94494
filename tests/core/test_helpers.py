"""The rules helpers of boardenvs.core: Deck, dice, Grid and make_options."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pytest

from boardenvs.core import Deck, Die, OptionError, make_options, options_to_dict, roll, uniform_outcomes
from boardenvs.core.grid import COMPASS, ORTHOGONAL, Grid, chebyshev, manhattan

# -- Deck -----------------------------------------------------------------------------------------


def test_deck_sizes_and_chance_outcomes_match_counts():
    deck = Deck([3, 0, 2, 5])
    assert deck.num_kinds == 4
    assert deck.draw_pile_size() == 10 and deck.discard_size() == 0
    assert deck.next_draw_is_chance()
    outcomes = deck.chance_outcomes()
    assert [k for k, _ in outcomes] == [0, 2, 3]  # kinds with no unseen card are not outcomes
    assert dict(outcomes) == pytest.approx({0: 0.3, 2: 0.2, 3: 0.5})
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    deck.take(3)
    assert dict(deck.chance_outcomes()) == pytest.approx({0: 3 / 9, 2: 2 / 9, 3: 4 / 9})


def test_deck_counts_are_conserved_through_draw_discard_bottom_and_reshuffle():
    initial = [4, 1, 3, 2]
    deck = Deck(initial)
    rng = np.random.default_rng(0)
    hand: list[int] = []

    def check():
        pile = deck.draw_pile_counts()
        held = Counter(hand)
        for kind in range(4):
            assert pile[kind] + deck.discards[kind] + held[kind] == initial[kind]
        assert deck.draw_pile_size() == sum(pile)
        assert deck.unseen_total == sum(deck.unseen)
        assert deck.discard_size() == sum(deck.discards)

    for step in range(200):
        if deck.next_draw_is_chance():
            kind = deck.sample(rng)
            deck.take(kind)
            hand.append(kind)
        elif deck.bottom:
            hand.append(deck.draw_known())
        else:
            deck.reshuffle()
            assert deck.discard_size() == 0
        check()
        if hand and step % 3 == 0:
            deck.put_bottom(hand.pop(0))
        elif len(hand) > 2:
            deck.discard(hand.pop())
        check()
    assert deck.draw_pile_size() + deck.discard_size() + len(hand) == sum(initial)


def test_reshuffle_returns_discards_to_the_unseen_multiset():
    deck = Deck([1, 1, 0])
    deck.take(0)
    deck.take(1)
    deck.discard(0)
    deck.discard(1)
    deck.discard(2)
    assert not deck.next_draw_is_chance()
    deck.reshuffle()
    assert deck.unseen == [1, 1, 1] and deck.unseen_total == 3
    assert deck.discards == [0, 0, 0]
    assert dict(deck.chance_outcomes()) == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1 / 3})


def test_deck_sample_only_returns_unseen_kinds_with_the_right_frequencies():
    counts = [5, 0, 1, 0, 10, 4]
    deck = Deck(counts)
    rng = np.random.default_rng(2024)
    n = 40_000
    drawn = Counter(deck.sample(rng) for _ in range(n))
    assert set(drawn) == {0, 2, 4, 5}
    total = sum(counts)
    for kind, c in enumerate(counts):
        assert abs(drawn[kind] / n - c / total) < 0.01
    assert deck.unseen == counts  # sampling does not remove a card


def test_deck_sample_is_reproducible_with_a_seeded_generator():
    deck = Deck([2, 3, 5])
    a = [deck.sample(np.random.default_rng(9)) for _ in range(3)]
    b = [deck.sample(np.random.default_rng(9)) for _ in range(3)]
    assert a == b
    rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
    assert [deck.sample(rng1) for _ in range(50)] == [deck.sample(rng2) for _ in range(50)]


def test_deck_sample_from_an_empty_unseen_part_raises():
    deck = Deck([0, 0], bottom=[1])
    with pytest.raises(RuntimeError):
        deck.sample(np.random.default_rng(0))


def test_deck_bottom_queue_is_drawn_in_order_after_the_unseen_cards():
    deck = Deck([1, 0, 0])
    deck.put_bottom(2)
    deck.put_bottom(0)
    deck.put_bottom(2)
    assert deck.draw_pile_counts() == [2, 0, 2]
    assert deck.draw_pile_size() == 4
    with pytest.raises(RuntimeError, match="unseen"):
        deck.draw_known()
    assert deck.chance_outcomes() == [(0, 1.0)]  # the known bottom cards are not chance outcomes
    deck.take(0)
    assert not deck.next_draw_is_chance()
    assert [deck.draw_known() for _ in range(3)] == [2, 0, 2]
    assert deck.draw_pile_size() == 0
    with pytest.raises(RuntimeError, match="empty"):
        deck.draw_known()


def test_deck_take_and_constructor_errors():
    deck = Deck([1, 0])
    with pytest.raises(ValueError, match="kind 1"):
        deck.take(1)
    with pytest.raises(ValueError):
        deck.take(2)
    with pytest.raises(ValueError):
        deck.take(-1)
    deck.take(0)
    with pytest.raises(ValueError):
        deck.take(0)
    assert deck.unseen == [0, 0] and deck.unseen_total == 0
    with pytest.raises(ValueError, match="non-negative"):
        Deck([1, -1])
    with pytest.raises(ValueError, match="discards"):
        Deck([1, 1], discards=[0])


def test_deck_to_dict_round_trip_and_equality():
    deck = Deck([3, 2, 1], bottom=[1, 0], discards=[0, 1, 0])
    deck.take(2)
    data = json.loads(json.dumps(deck.to_dict()))
    copy = Deck.from_dict(data)
    assert copy == deck
    assert copy.unseen_total == deck.unseen_total == 5
    assert copy.draw_pile_counts() == deck.draw_pile_counts()
    assert copy.chance_outcomes() == deck.chance_outcomes()
    copy.take(0)
    assert copy != deck
    assert deck != "not a deck"
    assert "Deck(" in repr(deck)


def test_deck_clone_is_independent():
    deck = Deck([2, 2], bottom=[0], discards=[1, 0])
    clone = deck.clone()
    assert clone == deck and clone is not deck
    clone.take(1)
    clone.put_bottom(1)
    clone.discard(1)
    clone.reshuffle()
    assert deck.to_dict() == {"unseen": [2, 2], "bottom": [0], "discards": [1, 0]}
    assert deck.unseen_total == 4
    deck.take(0)
    assert clone.unseen == [3, 2]


# -- dice -----------------------------------------------------------------------------------------


def test_uniform_outcomes():
    assert uniform_outcomes(1) == [(0, 1.0)]
    outcomes = uniform_outcomes(6)
    assert [o for o, _ in outcomes] == list(range(6))
    assert all(p == pytest.approx(1 / 6) for _, p in outcomes)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        uniform_outcomes(0)


def test_roll_is_in_range_uniform_and_reproducible():
    rng = np.random.default_rng(7)
    rolls = [roll(rng, 6) for _ in range(30_000)]
    assert all(isinstance(r, int) for r in rolls[:10])
    counts = Counter(rolls)
    assert set(counts) == set(range(6))
    for face in range(6):
        assert abs(counts[face] / 30_000 - 1 / 6) < 0.01
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    assert [roll(r1, 4) for _ in range(20)] == [roll(r2, 4) for _ in range(20)]


def test_die_faces_outcomes_and_sample():
    die = Die((1, 2, 3, 4, 5, "arrow"))
    assert die.outcomes() == uniform_outcomes(6)
    assert die.face(5) == "arrow" and die.face(0) == 1
    rng = np.random.default_rng(1)
    samples = {die.sample(rng) for _ in range(500)}
    assert samples == set(range(6))
    assert Die([4]).sample(rng) == 0
    with pytest.raises(ValueError):
        Die(())


# -- grid -----------------------------------------------------------------------------------------


def test_distances_manhattan_chebyshev():
    assert manhattan((0, 0), (2, 3)) == 5
    assert manhattan((2, 3), (0, 0)) == 5
    assert chebyshev((0, 0), (2, 3)) == 3
    assert chebyshev((1, 1), (0, 2)) == 1
    assert manhattan((4, 4), (4, 4)) == chebyshev((4, 4), (4, 4)) == 0


def test_grid_bounds_cells_and_indices():
    grid = Grid(2, 3)
    assert grid.in_bounds((0, 0)) and grid.in_bounds((1, 2))
    for cell in ((-1, 0), (0, -1), (2, 0), (0, 3)):
        assert not grid.in_bounds(cell)
    cells = list(grid.cells())
    assert cells == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert [grid.index(c) for c in cells] == list(range(6))
    assert [grid.cell(i) for i in range(6)] == cells
    with pytest.raises(ValueError):
        Grid(0, 3)
    with pytest.raises(ValueError):
        Grid(3, 0)
    assert len(ORTHOGONAL) == 4 and len(COMPASS) == 8 and set(ORTHOGONAL) < set(COMPASS)


def test_walls_block_steps_both_ways():
    grid = Grid(3, 3, walls=[((0, 0), (0, 1)), ((1, 1), (2, 1))])
    assert not grid.can_step((0, 0), (0, 1))
    assert not grid.can_step((0, 1), (0, 0))
    assert not grid.can_step((2, 1), (1, 1))
    assert grid.can_step((0, 0), (1, 0))
    assert not grid.can_step((0, 0), (-1, 0))  # the border blocks
    assert set(grid.neighbours((0, 0))) == {(1, 0)}
    assert set(grid.neighbours((1, 1))) == {(0, 1), (1, 0), (1, 2)}
    assert set(grid.neighbours((0, 0), COMPASS)) == {(1, 0), (1, 1)}


def test_ray_stops_at_walls_edges_and_blocked_cells():
    grid = Grid(5, 5, walls=[((2, 3), (2, 4))])
    assert grid.ray((2, 0), (0, 1)) == [(2, 1), (2, 2), (2, 3)]
    assert grid.ray((2, 4), (0, -1)) == []  # the wall blocks the first step back
    assert grid.ray((0, 0), (1, 1)) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert grid.ray((0, 0), (-1, 0)) == []
    blocked = {(2, 2)}
    assert grid.ray((2, 0), (0, 1), blocked=blocked.__contains__) == [(2, 1)]
    assert grid.ray((4, 2), (-1, 0), blocked=blocked.__contains__) == [(3, 2)]


def test_bfs_distances_respect_walls_and_passable():
    # a wall along column 1|2 for rows 0-1: from (0, 1) to (0, 2) one must go round through row 2
    walls = [((0, 1), (0, 2)), ((1, 1), (1, 2))]
    grid = Grid(3, 3, walls=walls)
    dist = grid.distances((0, 1))
    assert dist[(0, 1)] == 0
    assert dist[(0, 0)] == 1
    assert dist[(0, 2)] == 5  # (1,1) (2,1) (2,2) (1,2) (0,2)
    assert len(dist) == 9
    assert grid.distances((0, 0), COMPASS)[(2, 2)] == 2
    walled_in = Grid(2, 2, walls=[((0, 0), (0, 1)), ((0, 0), (1, 0))])
    assert walled_in.distances((0, 0)) == {(0, 0): 0}
    open_grid = Grid(3, 3)
    dist = open_grid.distances((0, 0), passable=lambda c: c != (0, 1) and c != (1, 1))
    assert (0, 1) not in dist and (1, 1) not in dist
    assert dist[(0, 2)] == 6
    assert all(d == manhattan((0, 0), c) for c, d in Grid(4, 4).distances((0, 0)).items())


# -- options --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opts:
    n: int = 2
    rate: float = 0.5
    flag: bool = False
    name: str = "a"
    mode: Literal["x", "y"] = "x"
    level: Literal[0, 1] = 1
    pair: tuple[int, int] = (1, 2)
    seq: tuple[int, ...] = ()
    cells: tuple[tuple[int, int], ...] = ()
    maybe: int | None = None
    anything: Any = None

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be at least 1, got {self.n}")


def test_make_options_defaults_and_valid_values():
    assert make_options(Opts, {}) == Opts()
    opts = make_options(
        Opts,
        {"n": 3, "rate": 2, "flag": True, "name": "b", "mode": "y", "level": 0, "maybe": 4, "anything": [1]},
    )
    assert opts == Opts(n=3, rate=2.0, flag=True, name="b", mode="y", level=0, maybe=4, anything=[1])
    assert isinstance(opts.rate, float)
    assert make_options(Opts, {"maybe": None}).maybe is None


def test_make_options_unknown_key():
    with pytest.raises(OptionError, match="'colour'") as err:
        make_options(Opts, {"colour": 1, "n": 2}, where="game_v0: ")
    assert str(err.value).startswith("game_v0: ")
    assert "valid options are" in str(err.value) and "'name'" in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("n", "2"),
        ("n", 2.0),
        ("n", True),
        ("n", None),
        ("rate", "0.5"),
        ("rate", True),
        ("flag", 1),
        ("flag", "yes"),
        ("name", 3),
        ("mode", "z"),
        ("mode", None),
        ("pair", (1,)),
        ("pair", [1, 2, 3]),
        ("pair", [1, "2"]),
        ("pair", 12),
        ("seq", "12"),
        ("seq", [1, 2.5]),
        ("cells", [[1, 2], [3]]),
        ("maybe", "x"),
        ("maybe", 1.5),
    ],
)
def test_make_options_wrong_type_names_the_key(key, value):
    with pytest.raises(OptionError, match=f"^cfg.yaml: option '{key}'"):
        make_options(Opts, {key: value}, where="cfg.yaml: ")


@pytest.mark.parametrize("value", [True, 1.0, "1"])
def test_make_options_literal_ints_reject_other_types(value):
    # True == 1 and 1.0 == 1 in Python, but neither is the integer option value 0 or 1
    with pytest.raises(OptionError, match="'level'"):
        make_options(Opts, {"level": value})


def test_make_options_lists_become_tuples():
    opts = make_options(Opts, {"pair": [3, 4], "seq": [5, 6, 7], "cells": [[0, 1], [2, 3]]})
    assert opts.pair == (3, 4) and isinstance(opts.pair, tuple)
    assert opts.seq == (5, 6, 7) and isinstance(opts.seq, tuple)
    assert opts.cells == ((0, 1), (2, 3)) and all(isinstance(c, tuple) for c in opts.cells)
    assert make_options(Opts, {"seq": []}).seq == ()
    hash(opts)  # frozen options stay hashable once lists are converted


def test_make_options_wraps_post_init_range_errors():
    with pytest.raises(OptionError, match="^g: n must be at least 1, got 0$") as err:
        make_options(Opts, {"n": 0}, where="g: ")
    assert isinstance(err.value.__cause__, ValueError)


def test_make_options_lets_option_errors_from_post_init_through():
    @dataclass(frozen=True)
    class Strict:
        k: int = 1

        def __post_init__(self) -> None:
            if self.k > 5:
                raise OptionError(f"option 'k' is too big: {self.k}")

    with pytest.raises(OptionError, match="^option 'k' is too big: 6$"):
        make_options(Strict, {"k": 6}, where="w: ")


def test_options_to_dict_is_json_able_and_round_trips():
    opts = make_options(Opts, {"pair": [3, 4], "seq": [5], "cells": [[0, 1], [2, 3]], "maybe": 2})
    data = options_to_dict(opts)
    assert data["pair"] == [3, 4] and data["seq"] == [5]
    # what is stored is what comes back from JSON, so saved states compare equal to their options
    assert json.loads(json.dumps(data)) == data
    assert make_options(Opts, json.loads(json.dumps(data))) == opts
