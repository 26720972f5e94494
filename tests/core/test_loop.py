"""The one game loop (boardenvs/core/loop.py): its seeding scheme, its actors and its observer hook."""

from __future__ import annotations

import numpy as np
import pytest
from core.toy_game import PASS, TAKE, ToyGame

from boardenvs import make_game
from boardenvs.core import loop
from boardenvs.core.state import CHANCE, IllegalActionError


class Seeded:
    """An actor that picks at random with its own generator and remembers every reset."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.resets: list[int | None] = []

    def reset(self, seed: int | None = None) -> None:
        self.resets.append(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, state) -> int:
        legal = state.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


class Log:
    """An observer that logs every step it is told of and checks before/after alternate."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, int]] = []
        self.open = False

    def before(self, state, player, action) -> None:
        assert not self.open and state.current_player() == player
        self.open = True
        self.steps.append((player, action))

    def after(self, state) -> None:
        assert self.open
        self.open = False

    def result(self, state) -> dict:
        assert state.is_terminal()
        return {"steps": len(self.steps)}


def test_the_seeding_scheme():
    """Chance is drawn with the generator of the seed's child 0; seat p's actor is reset with child
    1 + p (children of numpy's SeedSequence, one 32-bit seed each)."""
    children = np.random.SeedSequence(11).spawn(4)
    assert loop.derive_seeds(11, 4) == [int(c.generate_state(1)[0]) for c in children]
    assert loop.derive_seeds(11, 6)[:4] == loop.derive_seeds(11, 4)  # a longer list extends a shorter one
    chance, seats = loop.game_seeds(11, 3)
    assert [chance, *seats] == loop.derive_seeds(11, 4)
    assert loop.chance_generator(11).random() == np.random.default_rng(chance).random()
    assert loop.SEEDING == "loop/1"

    game = make_game("sorry_v0", num_players=3)
    actors = [Seeded() for _ in range(3)]
    log = Log()
    played = loop.play_game(game, actors, 11, observer=log)
    assert [a.resets for a in actors] == [[s] for s in seats]
    rng = loop.chance_generator(11)
    state = game.new_initial_state()
    for player, action in log.steps:  # every chance outcome is the chance generator's next draw
        if player == CHANCE:
            assert state.sample_chance(rng) == action
        state.apply_action(action)
    assert state.to_dict() == played.state.to_dict()


def test_the_same_seed_plays_the_same_game_and_another_seed_another():
    game = make_game("lost_city_v0", num_players=3)

    def steps(seed):
        log = Log()
        loop.play_game(game, [Seeded() for _ in range(3)], seed, observer=log)
        return log.steps

    assert steps(5) == steps(5)
    assert steps(5) != steps(6)


def test_one_actor_in_several_seats_is_reset_once_with_its_first_seats_seed():
    game = make_game("sorry_v0", num_players=3)
    shared, other = Seeded(), Seeded()
    loop.play_game(game, [other, shared, shared], 4)
    _, seats = loop.game_seeds(4, 3)
    assert shared.resets == [seats[1]] and other.resets == [seats[0]]


def test_actors_may_be_plain_functions_and_the_result_sums_the_game_up():
    game = ToyGame(num_players=2, target=4, faces=(2,))
    log = Log()
    played = loop.play_game(game, [lambda s: TAKE, lambda s: PASS], 0, observer=log)
    # Player 0 takes 2, player 1 passes, player 0 takes 2 more: exactly the target, a win.
    assert played.state.is_terminal() and played.returns == [1.0, -1.0]
    assert played.winner == 0 and not played.truncated and played.num_decisions == 3
    assert played.stats == {"steps": len(log.steps)} and played.seed == 0
    assert sum(1 for player, _ in log.steps if player != CHANCE) == 3
    no_winner = loop.play_game(game, [lambda s: PASS, lambda s: PASS], 0)
    assert no_winner.returns == [0.0, 0.0] and no_winner.winner is None and no_winner.stats == {}


def test_bad_seatings_and_illegal_actions_are_refused():
    game = make_game("sorry_v0", num_players=3)
    with pytest.raises(ValueError, match="has 3 seats, got 2"):
        loop.play_game(game, [Seeded(), Seeded()], 0)
    with pytest.raises(IllegalActionError):
        loop.play_game(game, [lambda s: 10_000] * 3, 0)


class Peeker(Seeded):
    """A seeded actor that opts in to the chance stream, records what it is handed and then draws from
    it wildly (a thousand draws): it plays exactly as :class:`Seeded` does."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, dict]] = []
        self.handed: list[np.random.Generator] = []

    def see_chance(self, rng: np.random.Generator) -> None:
        self.handed.append(rng)
        self.seen.append((-1, rng.bit_generator.state))
        rng.random(1000)

    def act(self, state) -> int:
        self.seen[-1] = (state.turn, self.seen[-1][1])
        return super().act(state)


def test_an_actor_with_see_chance_reads_a_copy_of_the_chance_stream_and_changes_nothing():
    """The opt-in hook: before each of its decisions (and only its own) an actor with ``see_chance`` is
    handed a fresh copy of the chance generator in its current state; drawing from the copy leaves the
    game exactly what the seed makes it for every seat."""
    game = make_game("sorry_v0", num_players=3)
    plain_log, peek_log = Log(), Log()
    plain = loop.play_game(game, [Seeded(), Seeded(), Seeded()], 8, observer=plain_log)
    peeker = Peeker()
    peeked = loop.play_game(game, [Seeded(), peeker, Seeded()], 8, observer=peek_log)
    assert peek_log.steps == plain_log.steps  # every chance outcome and every seat's move alike
    assert peeked.state.to_dict() == plain.state.to_dict()
    # One copy per decision of seat 1, each a new generator, none the game's own.
    decisions = [(i, action) for i, (player, action) in enumerate(peek_log.steps) if player == 1]
    assert len(peeker.seen) == len(decisions) > 10
    assert len({id(rng) for rng in peeker.handed}) == len(peeker.handed)
    # Each copy was the chance generator as it stood at that decision: replaying the game's chance
    # draws with the seed's generator reaches the very same generator state there.
    rng = loop.chance_generator(8)
    state = game.new_initial_state()
    handed = iter(peeker.seen)
    for player, action in peek_log.steps:
        if player == CHANCE:
            assert state.sample_chance(rng) == action
        elif player == 1:
            turn, seen_state = next(handed)
            assert turn == state.turn and seen_state == rng.bit_generator.state
        state.apply_action(action)


def test_copy_generator_draws_what_the_original_would_and_is_independent():
    rng = np.random.default_rng(3)
    rng.random(5)
    copy = loop.copy_generator(rng)
    ahead = copy.random(4)
    assert list(rng.random(4)) == list(ahead)  # the original was not advanced by the copy's draws
    assert copy is not rng and copy.bit_generator is not rng.bit_generator
