"""HumanPolicy (agents/human.py) with injected streams: choices by number or words, re-asking on bad input."""

from __future__ import annotations

import io

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.state import CHANCE
from boardenvs.gangsi.rules import KYONSHI
from boardenvs_agents.human import HumanPolicy, HumanQuit
from boardenvs_agents.registry import make_policy


def decision_state(name: str, seed: int, min_moves: int = 2, **options):
    """A state of ``name`` where the player to move has at least ``min_moves`` legal moves."""
    game = make_game(name, **options)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while True:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if len(legal) >= min_moves:
            return game, state
        state.apply_action(legal[int(rng.integers(len(legal)))])


def advance(state, until, seed: int, pick=-1):
    """Play chance with a seeded generator and decisions by ``legal[pick]`` until ``until(state)``."""
    rng = np.random.default_rng(seed)
    for _ in range(10_000):
        if state.current_player() != CHANCE and until(state):
            return state
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(state.legal_actions()[pick])
    raise AssertionError("the position was not reached")


def human(answers: str, **kwargs) -> tuple[HumanPolicy, io.StringIO]:
    out = io.StringIO()
    return HumanPolicy(input_stream=io.StringIO(answers), output_stream=out, **kwargs), out


def test_bad_numbers_and_garbage_are_explained_and_asked_again():
    game, state = decision_state("sorry_v0", seed=0, num_players=2)
    n = len(state.legal_actions())
    policy, out = human(f"\nbanana\n0\n{n + 1}\n-2\n2\n", agent_names=game.agents)
    assert policy.act(state) == state.legal_actions()[1]
    text = out.getvalue()
    assert "Please type the number of a move" in text
    assert "'banana' is not a move here" in text
    assert f"There is no move 0: choose a number from 1 to {n}." in text
    assert f"There is no move {n + 1}: choose a number from 1 to {n}." in text
    assert "There is no move -2" in text
    assert text.count("Choose 1-") == 6
    assert "Your move, player_0" in text


def test_legal_moves_are_listed_in_words_numbered_from_one():
    game, state = decision_state("sorry_v0", seed=0, num_players=2)
    policy, out = human("1\n")
    policy.act(state)
    for i, action in enumerate(state.legal_actions(), 1):
        assert f"{i}. {state.action_to_string(action)}" in out.getvalue()
    assert state.render_text() in out.getvalue()  # the position before the moves


def test_a_unique_start_of_a_description_chooses_that_move():
    game, state = decision_state("gangsi_v0", seed=1, num_players=3)
    advance(state, lambda s: s.current_player() == KYONSHI and len(s.legal_actions()) >= 2, seed=0)
    stop = next(a for a in state.legal_actions() if state.action_to_string(a) == "kyonshi stop")
    policy, out = human("KYONSHI   St\n")
    assert policy.act(state) == stop


def test_an_ambiguous_start_lists_the_matches_and_asks_again():
    game, state = decision_state("sorry_v0", seed=3, min_moves=3, num_players=2)
    moves = [state.action_to_string(a) for a in state.legal_actions()]
    prefix = moves[0].split()[0]  # the colour: every move starts with it
    assert sum(m.startswith(prefix) for m in moves) >= 2
    policy, out = human(f"{prefix}\n{moves[-1]}\n")
    assert policy.act(state) == state.legal_actions()[-1]  # the whole description also works
    assert f"{prefix!r} matches " in out.getvalue() and "type more of it, or the number" in out.getvalue()


def test_help_board_and_moves_commands_do_not_play():
    game, state = decision_state("sorry_v0", seed=0, num_players=2)
    policy, out = human("?\nboard\nmoves\nhelp\n1\n", show_board=False)
    assert policy.act(state) == state.legal_actions()[0]
    text = out.getvalue()
    assert text.count("Type one of:") == 2
    assert text.count(state.render_text()) == 1  # only on request: show_board is off
    first = state.action_to_string(state.legal_actions()[0])
    assert text.count(f"1. {first}") == 2


def test_the_end_of_the_input_and_quit_raise_human_quit():
    game, state = decision_state("sorry_v0", seed=0, num_players=2)
    policy, _ = human("nonsense\n")
    with pytest.raises(HumanQuit, match="the input ended before the game did"):
        policy.act(state)
    policy, _ = human("quit\n")
    with pytest.raises(HumanQuit, match="you quit"):
        policy.act(state)


def test_a_single_legal_move_is_played_without_asking_unless_asked_to():
    game, state = decision_state("sorry_v0", seed=0, min_moves=1, num_players=2)
    advance(state, lambda s: len(s.legal_actions()) == 1, seed=1, pick=0)
    policy, out = human("")  # no input at all: it is never read
    assert policy.act(state) == state.legal_actions()[0]
    assert "your only legal move is played for you" in out.getvalue()
    policy, _ = human("", auto_single=False)
    with pytest.raises(HumanQuit):
        policy.act(state)


def test_moves_described_alike_are_told_apart_by_action_id():
    class Alike:
        def current_player(self):
            return 0

        def legal_actions(self):
            return [3, 5]

        def action_to_string(self, action, view=None):
            return "same"

    policy, _ = human("")
    assert policy.moves(Alike()) == [(3, "same (action 3)"), (5, "same (action 5)")]


def test_the_kyonshi_sees_its_own_view_only():
    game, state = decision_state("gangsi_v0", seed=2, min_moves=1, num_players=3)
    advance(state, lambda s: s.current_player() == KYONSHI, seed=2, pick=0)
    policy, out = human("1\n", agent_names=game.agents)
    policy.act(state)
    assert state.render_text(view=KYONSHI) in out.getvalue()
    assert "Your move, kyonshi" in out.getvalue()
    assert "cards +5 hidden" in out.getvalue()


def test_human_is_registered_and_checks_its_options():
    policy = make_policy("human:board=false", "sorry_v0")
    assert isinstance(policy, HumanPolicy) and policy.name == "human" and not policy.show_board
    with pytest.raises(ValueError, match="the human policy takes the options 'board' and 'auto'"):
        make_policy("human:colour=red", "sorry_v0")
