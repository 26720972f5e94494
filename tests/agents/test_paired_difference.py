"""The paired difference of two agents' win rates on the same games (``boardenvs-evaluate --paired-with``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from boardenvs_agents.arena.match import GameResult
from boardenvs_agents.arena.report import paired_difference


def result(seed: int, seating: list[str], winner: int) -> GameResult:
    returns = [-1.0] * len(seating)
    returns[winner] = 1.0
    return GameResult(seed, returns, winner, 10, False, tuple(seating))


def test_games_pair_by_seed_and_seating_and_the_interval_is_the_paired_one():
    a = [
        result(0, ["A", "h", "h"], 0),  # A wins, B lost the same game: +1
        result(0, ["h", "A", "h"], 1),  # both win: 0
        result(1, ["A", "h", "h"], 2),  # both lose: 0
        result(1, ["h", "h", "A"], 0),  # A loses, B wins: -1
        result(2, ["A", "h", "h"], 0),  # no game of B with this seed: not paired
    ]
    b = [
        result(0, ["B", "h", "h"], 1),
        result(0, ["h", "B", "h"], 1),
        result(1, ["B", "h", "h"], 2),
        result(1, ["h", "h", "B"], 2),
        result(3, ["B", "h", "h"], 0),
    ]
    paired = paired_difference(a, "A", b, "B")
    assert paired.games == 4
    assert (paired.first, paired.second) == (0.5, 0.5)
    assert paired.difference == 0.0
    # diffs +1, 0, 0, -1: sample variance 2/3, standard error sqrt(2/3 / 4)
    assert paired.stderr == pytest.approx((2 / 3 / 4) ** 0.5)
    low, high = paired.interval()
    assert (low, high) == pytest.approx((-1.96 * paired.stderr, 1.96 * paired.stderr))
    assert paired.text().startswith("+0.000 [-0.800, +0.800] (0.500 against 0.500, 4 paired games)")


def test_nothing_to_pair_is_an_error_naming_the_agents():
    with pytest.raises(ValueError, match="no game of 'A' pairs with a game of 'B'"):
        paired_difference([result(0, ["A", "h"], 0)], "A", [result(1, ["B", "h"], 0)], "B")


def test_the_evaluate_command_prints_the_paired_difference(tmp_path):
    def evaluate(agent: str, out: str, *extra: str) -> str:
        command = [
            sys.executable, "-m", "boardenvs_agents.scripts.evaluate", "--agent", agent,
            "--opponent", "heuristic",
            "--game", "sorry_v0", "--num-players", "2", "--games", "8", "--seed", "3", "--no-progress",
            "--json", str(tmp_path / out), *extra,
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    search = "mcts:sims=2,depth=2,leaf=eval"
    evaluate("random", "random.json")
    text = evaluate(search, "search.json", "--paired-with", str(tmp_path / "random.json"))
    games = {
        name: [GameResult.from_dict(g) for g in json.loads((tmp_path / f"{name}.json").read_text())["games"]]
        for name in ("search", "random")
    }
    expected = paired_difference(games["search"], search, games["random"], "random")
    assert expected.games == 8
    assert f"paired difference, {search} less random: {expected.text()}" in text
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    command = [
        sys.executable, "-m", "boardenvs_agents.scripts.evaluate", "--agent", "heuristic",
        "--game", "sorry_v0",
        "--games", "2", "--paired-with", str(bad),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "not the --json file of an --agent run" in done.stderr
