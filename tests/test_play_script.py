"""scripts/play.py driven through standard input: whole games, bad answers, EOF and bad command lines."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_helpers import default_sigint

from boardenvs.replay import Replay
from boardenvs_agents.cli import split_specs
from boardenvs_agents.human import HumanQuit
from boardenvs_agents.play import TerminalGame

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "play.py"


def play(*args, answers: str = "", timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        input=answers, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_a_whole_sorry_game_against_random_with_bad_answers_along_the_way(tmp_path):
    # Garbage, out-of-range numbers, an empty line and a help request before the first real choice;
    # then "1" for every move (more lines than the game needs: the rest is never read).
    answers = "garbage\n0\n999\n\n?\nzzz zzz\n-1\n" + "1\n" * 2000
    proc = play(
        "--game", "sorry_v0", "--num-players", "2", "--seat", "0", "--opponents", "random", "--seed", "4",
        "--save-replay", tmp_path / "game.json", answers=answers,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "sorry_v0, 2 players, seed 4. You are player_0 (seat 0); player_1: random." in out
    assert "'garbage' is not a move here" in out
    assert "There is no move 0: choose a number from 1 to" in out
    assert "There is no move 999: choose a number from 1 to" in out
    assert "Please type the number of a move" in out
    assert "Type one of:" in out
    assert "'zzz zzz' is not a move here" in out
    assert "There is no move -1" in out
    assert "  player_1 (random): " in out  # the opponent's moves in words
    assert "  chance: Red (player_0) draws " in out
    assert "Game over. The final position, everything shown:" in out
    assert "Result after " in out and " wins (" in out
    assert ("You win!" in out) != ("You lose." in out)
    assert "Traceback" not in proc.stderr

    replay = Replay.load(tmp_path / "game.json", game="sorry_v0")
    assert replay.finished and replay.seed == 4 and replay.players == ["human", "random"]
    mine = sum(1 for player, _ in replay.steps if player == 0)
    assert out.count("  player_0 (you): ") == mine  # each of the person's moves was echoed
    assert ("You win!" in out) == (replay.returns[0] == 1.0)


def test_the_same_seed_and_answers_play_the_same_game(tmp_path):
    args = ("--game", "sorry_v0", "--num-players", "2", "--opponents", "heuristic", "--seed", "9")
    first = play(*args, "--save-replay", tmp_path / "a.json", answers="2\n" * 2000)
    second = play(*args, "--save-replay", tmp_path / "b.json", answers="2\n" * 2000)
    assert first.returncode == second.returncode == 0
    assert Replay.load(tmp_path / "a.json").steps == Replay.load(tmp_path / "b.json").steps


def test_the_end_of_the_input_mid_game_exits_1_with_a_clear_message(tmp_path):
    proc = play(
        "--game", "sorry_v0", "--num-players", "2", "--seed", "4", "--save-replay", tmp_path / "part.json",
        answers="1\nnonsense\n1\n",
    )  # fmt: skip
    assert proc.returncode == 1
    assert "play.py: the input ended before the game did; the game was abandoned after" in proc.stderr
    assert "Traceback" not in proc.stderr
    replay = Replay.load(tmp_path / "part.json")  # the moves so far are kept
    assert not replay.finished and replay.num_decisions >= 2


def test_ctrl_c_mid_game_saves_the_game_so_far_and_exits_130(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--game", "sorry_v0", "--num-players", "2", "--seed", "4",
         "--save-replay", str(tmp_path / "part.json")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=default_sigint,
    )  # fmt: skip
    proc.stdin.write("1\n1\n")  # two moves, then the game waits for the third
    proc.stdin.flush()
    moves = 0
    for line in proc.stdout:
        moves += "(you):" in line
        if moves == 2:
            break
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "play.py: interrupted; the game was abandoned after" in err and "Traceback" not in err
    assert f"the unfinished game was saved to {tmp_path / 'part.json'}" in err
    replay = Replay.load(tmp_path / "part.json")  # checked: every step replays to the saved end
    assert not replay.finished and replay.num_decisions >= 2 and replay.seed == 4


def test_an_unwritable_replay_path_stops_before_the_game(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for path, message in [(tmp_path, "is a folder, not a file"), (a_file / "game.json", "cannot be written")]:
        proc = play("--seed", "1", "--save-replay", path, answers="1\n" * 2000)
        assert proc.returncode == 2
        assert f"play.py: error: --save-replay {path} cannot be written" in proc.stderr
        assert message in proc.stderr
        assert "players, seed" not in proc.stdout  # the game never started
        assert "Traceback" not in proc.stderr


def test_the_kyonshi_is_never_told_hunter_squares_or_directions():
    proc = play(
        "--game", "gangsi_v0", "--num-players", "3", "--seat", "kyonshi", "--opponents", "random",
        "--seed", "2", "--option", "max_rounds=6", answers="1\n" * 600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    during, over, end = proc.stdout.partition("Game over")
    assert over and "You are kyonshi (seat 0)" in during
    assert "move (direction hidden)" in during and "deal a card to hunter_0" in during
    assert "hunter_0 at a hidden square" in during
    assert "H0" not in during and "H1" not in during  # no hunter on the map
    assert not re.search(r"move (north|east|south|west)|deal [APOYG]\d|roll (1|2|3|4|arrow)x", during)
    assert "H0" in end or "hunter_0 out" in end  # at the end everything is shown


def test_opponent_specs_per_seat_and_a_random_seat():
    proc = play(
        "--game", "lost_city_v0", "--num-players", "3", "--seat", "random", "--seed", "2",
        "--opponents", "heuristic,random", "--no-board", answers="1\n" * 3000,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.splitlines()[0]
    assert ": heuristic, " in head and ": random." in head


@pytest.mark.parametrize(
    "args,message",
    [
        (("--game", "chess_v0"), "unknown environment 'chess_v0'"),
        (("--opponents", "nobody"), "bad agent spec 'nobody': unknown agent 'nobody'"),
        (("--num-players", "3", "--opponents", "random,random,random"), "one per other seat (2), not 3"),
        (("--seat", "7", "--num-players", "2"), "seat 7 is not a seat of this game: seats are 0-1"),
        (("--seat", "kyonshi", "--num-players", "2"), "seat must be a number 0-1, an agent name"),
        (("--option", "slide_rule=sideways"), "slide_rule"),
        (("--option", "nonsense"), "--option takes key=value, got 'nonsense'"),
        (("--option", "colour=red"), "unknown option 'colour'"),
        (("--seed", "-5"), "argument --seed: must be an integer >= 0, got -5"),
        (("--seed", "many"), "argument --seed: must be an integer >= 0, got 'many'"),
    ],
)
def test_a_bad_command_line_exits_2_with_a_message(args, message):
    proc = play(*args, answers="1\n")
    assert proc.returncode == 2
    assert proc.stderr.startswith("play.py: error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_split_specs_keeps_options_with_their_spec():
    assert split_specs(["ppo:sorry_v0,deterministic=false,heuristic:depth=1,random"]) == [
        "ppo:sorry_v0,deterministic=false",
        "heuristic:depth=1",
        "random",
    ]
    assert split_specs(["random", "mcts:sims=10,c=1.5"]) == [
        "random",
        "mcts:sims=10,c=1.5",
    ]


def test_show_image_writes_the_seats_view_before_each_move(tmp_path):
    from PIL import Image

    from boardenvs import make_game

    picture = tmp_path / "view.png"
    proc = play(
        "--game", "sorry_v0", "--num-players", "2", "--seed", "4", "--show-image", picture, "--no-board",
        answers="1\n1\n",
    )  # fmt: skip
    assert proc.returncode == 1  # the input ran out mid-game
    game = make_game("sorry_v0", num_players=2)
    with Image.open(picture) as image:
        assert image.size == game.draw(game.new_initial_state(), 0).size


# -- the library under the script: boardenvs_agents.play.TerminalGame ----------------------------------
def test_terminal_game_plays_in_process_with_given_streams_and_matches_the_script(tmp_path):
    answers = "2\n" * 2000
    out = io.StringIO()
    table = TerminalGame(
        "sorry_v0", {"num_players": 2}, seat=1, opponents=["heuristic"], seed=9,
        input_stream=io.StringIO(answers), output_stream=out,
    )  # fmt: skip
    assert table.you == "player_1" and table.labels == ["heuristic", "human"]
    state = table.play()
    assert state.is_terminal()
    text = out.getvalue()
    assert text.startswith("sorry_v0, 2 players, seed 9. You are player_1 (seat 1); player_0: heuristic.")
    assert table.verdict() in text and "Game over." in text
    table.save_replay(tmp_path / "lib.json")
    proc = play("--game", "sorry_v0", "--num-players", "2", "--seat", "1", "--opponents", "heuristic",
                "--seed", "9", "--save-replay", tmp_path / "cli.json", answers=answers)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert Replay.load(tmp_path / "lib.json").steps == Replay.load(tmp_path / "cli.json").steps


def test_terminal_game_keeps_the_steps_of_an_abandoned_game():
    table = TerminalGame(
        "sorry_v0", {"num_players": 2}, opponents=["random"], seed=4,
        input_stream=io.StringIO("1\nquit\n"), output_stream=io.StringIO(),
    )  # fmt: skip
    with pytest.raises(HumanQuit, match="you quit the game"):
        table.play()
    assert table.recorder.replay().num_decisions >= 1 and not table.state.is_terminal()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": "nobody"}, "seat must be a number 0-1"),
        ({"opponents": ["random", "random"]}, "one per other seat (1), not 2"),
        ({"opponents": ["mcts:bogus=1"]}, "bad agent spec 'mcts:bogus=1'"),
        ({"options": {"num_players": 9}}, "num_players"),
    ],
)
def test_terminal_game_refuses_a_bad_setup_before_the_game(kwargs, message):
    kwargs = {"options": {"num_players": 2}, **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        TerminalGame("sorry_v0", **kwargs, input_stream=io.StringIO(), output_stream=io.StringIO())
