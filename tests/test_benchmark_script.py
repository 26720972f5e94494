"""Smoke test of scripts/benchmark.py: it runs end to end and prints one row per layer, the search table
and the training-throughput table (structure only: timings are the machine's)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_prints_every_layer_and_the_reference():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.2", "--envs", "sorry_v0",
         "--train-steps", "0"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    tables = out.split("\n\n")
    rows = [line for line in tables[1].splitlines() if line.startswith("| ") and "---" not in line][1:]
    layers = [(row.split("|")[1].strip(), row.split("|")[2].strip()) for row in rows]
    assert layers == [
        ("connect_four_v3 (PettingZoo)", "env()"),
        ("sorry_v0", "env()"),
        ("sorry_v0", "raw_env()"),
        ("sorry_v0", "core"),
    ]
    for row in rows:
        moves_per_second = float(row.split("|")[3].replace(",", ""))
        assert moves_per_second > 0
    assert rows[0].split("|")[6].strip() == "1.00x"
    assert rows[2].split("|")[7].strip().endswith("%")  # the adapter's share is reported
    # The search agent's speed follows: simulations per second with both rollout settings.
    search = [line for line in tables[3].splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [(row.split("|")[1].strip(), row.split("|")[2].strip()) for row in search] == [
        ("sorry_v0", "random rollouts to the end"),
        ("sorry_v0", "depth=10,leaf=eval"),
    ]
    assert all(float(row.split("|")[3].replace(",", "")) > 0 for row in search)
    assert len(tables) == 4 and "Training throughput" not in out  # --train-steps 0: no training table


def table_rows(table):
    """The cells of a Markdown table's rows, header left out."""
    lines = [line for line in table.splitlines() if line.startswith("| ")][1:]
    return [[cell.strip() for cell in line.split("|")[1:-1]] for line in lines]


def test_benchmark_training_table_with_a_tiny_budget():
    """Random, heuristic and self-play opponents at each number of envs, envs in this process and in two
    worker processes: steps/s, env share, the ratio to random and, for the networks, opponent decisions
    per batched forward pass."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.1", "--repeats", "1",
         "--envs", "sorry_v0", "--no-mcts", "--train-steps", "64", "--train-rollout", "64",
         "--train-envs", "2", "3", "--train-rounds", "1", "--train-vec-env", "batched", "subproc:2"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    tables = proc.stdout.split("\n\n")
    assert tables[2].startswith("Training throughput") and "rollouts of 64 steps" in tables[2]
    rows = table_rows(tables[3])
    kinds = ("random", "heuristic", "self-play")
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (k, envs, where) for where in ("batched", "subproc:2") for envs in ("2", "3") for k in kinds
    ]
    for opponents, _envs, _kind, steps, share, ratio, per_call in rows:
        assert float(steps.replace(",", "")) > 0
        assert share.endswith("%") and 0 < int(share[:-1]) < 100
        assert ratio.endswith("x") and (opponents != "random" or ratio == "1.00x")
        # Snapshots are networks, batched across the envs; random and heuristic players are not.
        assert (float(per_call) >= 1) if opponents == "self-play" else per_call == ""
    assert "training: round 1/1: self-play, 3 envs, subproc:2" in proc.stderr  # progress on stderr


def test_benchmark_rejects_bad_training_sizes():
    for args, message in [
        (["--train-envs", "0"], "--train-envs >= 1"),
        (["--train-vec-env", "subproc:0"], "a vec env is batched, dummy, subproc or subproc:N"),
        (["--train-game", "nope_v0"], "unknown --train-game 'nope_v0'"),
        (["--option", "nope"], "--option takes key=value, got 'nope'"),
        (["--envs", "sorry_v0", "--agents", "heuristic", "--option", "foo=1"], "unknown option 'foo'"),
    ]:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.1", *args],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_benchmark_times_the_agents_in_games_of_the_options_given():
    """``--option num_players=2``: the agents table's games are two-player games (the same decisions,
    counted, as :func:`decision_times` on a two-player game with the same seed)."""
    from boardenvs import make_game
    from boardenvs_agents.arena.speed import decision_times

    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.1", "--repeats", "1",
         "--envs", "sorry_v0", "--no-mcts", "--train-steps", "0", "--agents", "heuristic",
         "--agent-games", "2", "--option", "num_players=2"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    caption, table = out.split("\n\n")[-2:]
    assert caption.startswith("Time per decision") and caption.endswith("one process, num_players=2):")
    [row] = table_rows(table)
    two = decision_times(make_game("sorry_v0", num_players=2), "heuristic", games=2, seed=0)
    four = decision_times(make_game("sorry_v0"), "heuristic", games=2, seed=0)
    assert int(row[2]) == len(two.seconds) != len(four.seconds)


def test_benchmark_rejects_an_unknown_env():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.1", "--envs", "nope_v0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "unknown environment 'nope_v0'" in proc.stderr


def test_the_measuring_library_gives_the_rows_and_refuses_bad_input():
    from boardenvs_agents.arena.speed import REFERENCE, env_speed, envs_table, measure_envs

    rows = measure_envs(["gangsi_v0"], seconds=0.12, repeats=2, seed=1)
    assert [(r.env, r.layer) for r in rows] == [
        (REFERENCE, "env()"), ("gangsi_v0", "env()"), ("gangsi_v0", "raw_env()"), ("gangsi_v0", "core")
    ]  # fmt: skip
    assert all(r.speed.moves > 0 and r.speed.seconds > 0 for r in rows)
    table = envs_table(rows).splitlines()
    assert len(table) == 2 + len(rows) and table[2].split("|")[6].strip() == "1.00x"
    speed = env_speed("sorry_v0", {"num_players": 3}, seconds=0.09)
    assert set(speed) == {"moves_per_second", "games_per_second", "us_per_move", "seconds"}
    assert speed["moves_per_second"] > 0 and speed["seconds"] == 0.09
    with pytest.raises(ValueError, match="unknown environment 'nope_v0'"):
        measure_envs(["nope_v0"], seconds=1)
    with pytest.raises(ValueError, match="repeats at least 1"):
        measure_envs(["sorry_v0"], seconds=1, repeats=0)


def test_decision_times_time_every_decision_with_a_choice_of_the_agent_and_nothing_else():
    """The agent's seat rotates over the games, and exactly its decisions with more than one legal
    action are timed (counted independently by replaying the same games with a counting agent)."""
    from boardenvs import make_game
    from boardenvs_agents.arena.match import play_game
    from boardenvs_agents.arena.speed import decision_table, decision_times
    from boardenvs_agents.registry import make_policy

    game = make_game("sorry_v0", num_players=2)
    measured = decision_times(game, "heuristic", opponent="random", games=2, seed=5)

    class Counting:
        """The heuristic, counting its decisions with a choice."""

        def __init__(self):
            self.inner = make_policy("heuristic", "sorry_v0", seed=5, game_options={"num_players": 2})
            self.name, self.choices = "heuristic", 0

        def reset(self, seed=None):
            self.inner.reset(seed)

        def act(self, state):
            self.choices += len(state.legal_actions()) > 1
            return self.inner.act(state)

    counting = Counting()
    two = {"num_players": 2}
    for g in range(2):
        others = [make_policy("random", "sorry_v0", seed=5, game_options=two) for _ in range(2)]
        seats = [counting if p == g % 2 else others[p] for p in range(2)]
        play_game(game, seats, 5 + g)
    assert len(measured.seconds) == counting.choices > 0
    assert all(s >= 0 for s in measured.seconds)
    assert measured.milliseconds(0.5) <= measured.milliseconds(1.0)
    row = decision_table([measured]).splitlines()[2]
    assert row.startswith(f"| sorry_v0 | `heuristic` | {counting.choices} |")
