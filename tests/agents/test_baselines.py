"""Baseline agents (random, heuristic), the match runner and the evaluation script."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import agent_helpers
import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.sorry.board import HOME, START
from boardenvs.sorry.cards import CARD_NAMES, ELEVEN, SEVEN, SORRY
from boardenvs.sorry.rules import BACKWARD_ACTION, FORWARD_ACTION, PASS, SORRY_ACTION, SWITCH
from boardenvs_agents.arena.match import play_game, wilson_interval
from boardenvs_agents.arena.report import agent_stats
from boardenvs_agents.arena.runner import Arena, Matchup, seatings
from boardenvs_agents.base import RandomPolicy
from boardenvs_agents.games.sorry import SorryHeuristic
from boardenvs_agents.registry import make_policy

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "evaluate.py"


def play_logged(num_players: int, specs: list[str], seed: int, perturb: int | None = None):
    game = make_game("sorry_v0", num_players=num_players)
    return agent_helpers.play_logged(game, specs, seed, perturb, note=lambda s: (s.card,))


def position(num_players: int, pawns: dict[int, list[int]], card: int, to_move: int = 0):
    """A decision node: pawn positions by seat (others in Start), ``to_move`` holding ``card``."""
    state = make_game("sorry_v0", num_players=num_players).new_initial_state()
    for seat, where in pawns.items():
        state.pos[3 * seat : 3 * seat + 3] = where
    state.to_move = to_move
    state.apply_action(card)  # the chance draw of that card kind
    assert state.current_player() == to_move
    return state


def heuristic_choice(state, seed: int = 0) -> tuple[int, list[int]]:
    action = SorryHeuristic(seed=seed).act(state)
    child = state.clone()
    child.apply_action(action)
    return action, child.pos


# -- legality, reproducibility, no global RNGs ------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_and_heuristic_play_only_legal_actions(num_players):
    lineups = [["heuristic"] * num_players, ["random"] * num_players]
    lineups += seatings(["heuristic"] + ["random"] * (num_players - 1))
    decisions = 0
    for seed, specs in enumerate(lineups * 2):
        result, log = play_logged(num_players, list(specs), seed)
        assert result.num_decisions == len(log) > 0
        assert not result.truncated
        assert result.winner is not None and result.returns[result.winner] == 1.0
        assert sorted(result.returns) == [-1.0] * (num_players - 1) + [1.0]
        decisions += len(log)
    assert decisions > 200 * num_players


@pytest.mark.parametrize("num_players", [2, 4])
def test_same_seed_same_game(num_players):
    specs = seatings(["heuristic"] + ["random"] * (num_players - 1))[1]
    first, log1 = play_logged(num_players, list(specs), seed=7)
    second, log2 = play_logged(num_players, list(specs), seed=7)
    assert log1 == log2
    assert first == second
    other, log3 = play_logged(num_players, list(specs), seed=8)
    assert log3 != log1


@pytest.mark.parametrize("num_players", [2, 4])
def test_global_rngs_do_not_matter(num_players):
    specs = ["heuristic"] + ["random"] * (num_players - 1)
    plain, log = play_logged(num_players, specs, seed=3)
    for offset in (1000, 98765):
        perturbed, perturbed_log = play_logged(num_players, specs, seed=3, perturb=offset)
        assert perturbed_log == log
        assert perturbed == plain


@pytest.mark.parametrize("num_players", [2, 4])
def test_heuristic_scores_each_move_as_the_position_it_leads_to(num_players):
    # act() scores every legal move on the rules' preview of the pawns, not on a played-out clone: it
    # must choose what the one-ply lookahead on clones chooses (evaluate() of the state each move
    # leads to, an outright win above all), ties broken alike by the same seed. Over every decision of
    # several random games.
    fast, slow = SorryHeuristic(seed=0), SorryHeuristic(seed=0)
    rng = np.random.default_rng(num_players)
    checked = wins = 0
    for _ in range(6):
        state = make_game("sorry_v0", num_players=num_players).new_initial_state()
        while not state.is_terminal():
            if state.current_player() < 0:
                state.apply_action(state.sample_chance(rng))
                continue
            me = state.current_player()
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                assert state.preview(action)[0] == child.pos
                wins += child.winner == me
            reference = slow.best_successor(
                state, lambda child, me=me: float("inf") if child.winner == me else slow.evaluate(child, me)
            )
            assert fast.act(state) == reference
            checked += 1
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 500 and wins > 0


def test_heuristic_ties_use_its_own_generator():
    # All pawns in Start, a 7: every use of it (forward 7, or any split bringing two pawns out) makes
    # seven steps in all and leaves no pawn in reach of the Yellow Start pawns, so all scores tie. The
    # choice then comes from the policy's own generator: fixed by its seed, varied across seeds.
    state = position(2, {}, SEVEN)
    for seed in range(5):
        first = SorryHeuristic(seed=seed).act(state.clone())
        assert all(SorryHeuristic(seed=seed).act(state.clone()) == first for _ in range(3))
    assert len({SorryHeuristic(seed=seed).act(state) for seed in range(20)}) > 1
    policy = SorryHeuristic(seed=1)
    random.seed(0)
    np.random.seed(0)
    a = [policy.act(state) for _ in range(20)]
    policy.reset(seed=1)
    random.seed(123)
    np.random.seed(123)
    b = [policy.act(state) for _ in range(20)]
    assert a == b


def test_paired_seeds_deal_the_same_cards_to_every_seating():
    game = make_game("sorry_v0", num_players=2)
    logs = []
    for specs in seatings(["heuristic", "random"]):
        log: list[tuple[int, int, int]] = []
        play_game(
            game,
            [
                agent_helpers.Recorder(make_policy(s, "sorry_v0"), log, note=lambda st: (st.card,))
                for s in specs
            ],
            seed=11,
        )
        logs.append([card for _, card, _ in log])
    shortest = min(len(cards) for cards in logs)
    assert shortest > 40
    assert logs[0][:shortest] == logs[1][:shortest]


# -- scripted positions (2 players: seat 0 is Red, colour 0; seat 1 is Yellow, colour 2) --------------
def test_heuristic_brings_a_pawn_home():
    # Red: safety 3 (3 from Home), square 20, Start; a 3 takes the first one Home.
    state = position(2, {0: [62, 20, START]}, CARD_NAMES.index("3"))
    assert set(state.legal_actions()) == {FORWARD_ACTION + 0, FORWARD_ACTION + 1, FORWARD_ACTION + 2}
    for seed in range(3):
        action, pos = heuristic_choice(state, seed)
        assert action == FORWARD_ACTION + 0
        assert pos[0] == HOME


def test_heuristic_splits_a_seven_to_bring_a_pawn_home():
    # Red: safety 4 (2 from Home), squares 10 and 20: a 2 + 5 split takes a pawn Home (S14).
    state = position(2, {0: [63, 10, 20]}, SEVEN)
    action, pos = heuristic_choice(state)
    assert pos[0] == HOME
    assert sum(pos[1:3]) == 10 + 20 + 5


def test_heuristic_sorry_bumps_the_leading_opponent_pawn():
    # Yellow (entry 31) has a pawn on 25, six squares from its safety entry, and one just out on 35.
    state = position(2, {1: [25, 35, START]}, SORRY)
    assert SORRY_ACTION + 0 in state.legal_actions() and SORRY_ACTION + 1 in state.legal_actions()
    action, pos = heuristic_choice(state)
    assert action == SORRY_ACTION + 0
    assert pos[3] == START and pos[4] == 35
    assert 25 in pos[0:3]


def test_heuristic_sorry_picks_the_leader_among_several_opponents():
    # Four players: Blue's pawn on 14 is two squares from Blue's safety entry (16); Yellow's is just
    # out of Start on 36. Red's Sorry! sends the Blue pawn back.
    state = position(4, {1: [14, START, START], 2: [36, START, START]}, SORRY)
    action, pos = heuristic_choice(state)
    assert action == SORRY_ACTION + 3 * 0 + 0  # seat offset 1 (Blue), pawn 0
    assert pos[3] == START and pos[6] == 36


def test_heuristic_takes_a_slide_that_bumps():
    # Red on 35 with a 3 lands on the triangle at 38 (side 2 shows Red, S8) and slides to 42, bumping
    # the Yellow pawn on 40 (S9). The other choices only advance 3 squares.
    state = position(2, {0: [35, 50, START], 1: [40, START, START]}, CARD_NAMES.index("3"))
    action, pos = heuristic_choice(state)
    assert action == FORWARD_ACTION + 0
    assert pos[0] == 42 and pos[3] == START


def test_heuristic_goes_backward_four_from_the_start_exit():
    # S17: Red on its start exit (3) goes back 4 to 59, two squares before its safety entry.
    state = position(2, {0: [3, 20, START]}, CARD_NAMES.index("4"))
    action, pos = heuristic_choice(state)
    assert action == BACKWARD_ACTION + 0
    assert pos[0] == 59


def test_heuristic_switches_on_an_eleven_instead_of_passing():
    # Red on 47 and 58 cannot go forward 11 (47 + 11 is its own pawn, 58 would overshoot Home), so
    # it may pass (S13); switching the pawn on 47 with Yellow's on 57 gains ten squares for Red and
    # puts Yellow ten back.
    state = position(2, {0: [47, 58, HOME], 1: [57, START, START]}, ELEVEN)
    assert PASS in state.legal_actions()
    action, pos = heuristic_choice(state)
    assert action == SWITCH + 0
    assert pos[0] == 57 and pos[3] == 47


def test_heuristic_passes_on_an_eleven_when_every_switch_hurts():
    # The only Yellow pawn on the track has just left Start (35): a switch would move a Red pawn back
    # and carry the Yellow pawn forward.
    state = position(2, {0: [47, 58, HOME], 1: [35, START, START]}, ELEVEN)
    assert set(state.legal_actions()) == {SWITCH + 0, SWITCH + 9, PASS}
    action, _ = heuristic_choice(state)
    assert action == PASS


# -- strength ---------------------------------------------------------------------------------------
def test_heuristic_beats_random():
    game = make_game("sorry_v0", num_players=2)
    results = Arena(game, ["heuristic", "random"]).run([Matchup.of("h", ["heuristic", "random"], 100)])
    summary = agent_stats(results, "heuristic")
    assert summary.games == 100
    assert summary.per_seat == ((50, summary.per_seat[0][1]), (50, summary.per_seat[1][1]))
    # Measured: 86 of 100 (43 of 50 from each seat), Wilson interval (0.779, 0.915). Random against
    # random wins 50 of 100 on these seeds.
    assert summary.win_rate >= 0.75
    assert summary.interval()[0] > 0.6
    assert min(w / g for g, w in summary.per_seat) >= 0.65


# -- match helpers ----------------------------------------------------------------------------------
def test_wilson_interval_known_values():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3)
    assert high == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(1 - high)
    assert wilson_interval(0, 20)[0] == 0.0
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_play_game_checks_the_number_of_policies():
    game = make_game("sorry_v0", num_players=3)
    with pytest.raises(ValueError, match="3 seats"):
        play_game(game, [RandomPolicy(), RandomPolicy()], seed=0)


# -- the evaluation script --------------------------------------------------------------------------
def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_evaluate_script_prints_the_table(tmp_path):
    out = tmp_path / "games.json"
    proc = run_script(
        "--games", "6", "--num-players", "3", "--seed", "5", "--no-progress", "--json", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = "| agent | games | wins | win rate [95% CI] | even share | seat 0 | seat 1 | seat 2 |"
    assert any(line.startswith(header) for line in lines)
    heuristic_row = next(line for line in lines if line.startswith("| heuristic |"))
    assert heuristic_row.split("|")[2].strip() == "6"
    assert any(line.startswith("| random (x2) |") for line in lines)
    data = json.loads(out.read_text())
    assert len(data["games"]) == 6
    assert sorted({g["seed"] for g in data["games"]}) == [5, 6]
    assert all(g["seating"].count("heuristic") == 1 for g in data["games"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["--opponent", "heuristic:bogus=1"], "bad agent spec 'heuristic:bogus=1'"),
        (["--game", "nosuchgame"], "unknown environment 'nosuchgame'"),
        (["--agent", "ppo:no/such/model.zip"], "no model file 'no/such/model.zip'"),
        (["--agent", "ppo:sorry_v0", "--game", "lost_city_v0"], "trained for sorry_v0, not lost_city_v0"),
        (["--agent", "ppo:sorry_v0", "--num-players", "3"], "trained for sorry_v0 with other options"),
        (["--agents", "a=random", "b=random", "c=random", "--num-players", "2"], "3 agents do not fit in 2"),
        (["--agents", *(f"{x}=random" for x in "abcde")], "5 agents do not fit in 4 seats"),  # sorry: 4
        (["--agents", "x=random", "x=heuristic"], "label 'x' names two specs"),
        (["--option", "slide_rule=sideways"], "slide_rule"),
        (["--config", "no/such.yaml"], "config file no/such.yaml not found"),
        (["--option", "nonsense"], "--option takes key=value, got 'nonsense'"),
        (["--agent", "dqn:no_such_game"], "bad agent spec 'dqn:no_such_game': no model file 'no_such_game'"),
    ],
)
def test_evaluate_script_rejects_bad_input(args, message):
    proc = run_script(*args, "--games", "2", "--no-progress")
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


# -- a learned agent brings its game and options (issue 14) -------------------------------------------------
def test_evaluate_takes_the_game_options_from_the_model_unless_given(tmp_path):
    # The shipped ppo:sorry_v0's default model was trained for four players: with no --num-players /
    # --option it is played with four (the default two would be the two-player model's game).
    out = tmp_path / "games.json"
    proc = run_script("--agent", "ppo:sorry_v0", "--games", "4", "--no-progress", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "sorry_v0 is played with the options ppo:sorry_v0 was trained with" in proc.stderr
    assert proc.stdout.startswith("sorry_v0, 4 players, 4 games in 1 matchup(s)")
    assert any(line.startswith("| random (x3) | 4 |") for line in proc.stdout.splitlines())
    games = json.loads(out.read_text())["games"]
    assert len(games) == 4 and all(len(g["seating"]) == 4 for g in games)


def test_lineup_config_reads_game_and_options_from_the_first_model():
    from boardenvs_agents.arena.evaluation import lineup_config
    from boardenvs_agents.learning.models import read_metadata, resolve_model_path

    trained = read_metadata(resolve_model_path("sorry_v0", "ppo"))
    # No game and no options: both are the model's, wherever the model sits in the lineup.
    config, note = lineup_config(["heuristic"], ["ppo:sorry_v0"])
    assert config.game == "sorry_v0" and config.game_options == trained["options"]
    assert note is not None and "ppo:sorry_v0" in note
    assert config.matchups[0].lineup == ("heuristic",) + ("ppo:sorry_v0",) * (
        trained["options"]["num_players"] - 1
    )
    # Options given: they are kept (the model is refused later if they differ from its own).
    config, note = lineup_config(["ppo:sorry_v0"], game_options={"num_players": 2})
    assert config.game == "sorry_v0" and config.game_options == {"num_players": 2} and note is not None
    # Another game given: the model's options are not borrowed; the game's own player count applies.
    config, note = lineup_config(["ppo:sorry_v0"], game="lost_city_v0")
    assert config.game == "lost_city_v0" and config.game_options == {"num_players": 4} and note is None
    # No learned agent: the defaults, the game's own player count (sorry_v0.env() seats four).
    config, note = lineup_config(["heuristic"])
    assert (config.game, config.game_options, note) == ("sorry_v0", {"num_players": 4}, None)
    assert len(config.matchups[0].lineup) == 4
    # Options that set the player count themselves are asked: Gangsi with two hunter pieces seats three.
    config, _ = lineup_config(["heuristic"], game="gangsi_v0", game_options={"num_hunters": 2})
    assert config.game_options == {"num_hunters": 2, "num_players": 3}
