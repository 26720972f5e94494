"""Smoke test of scripts/benchmark.py: it runs end to end and prints one row per layer."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_prints_every_layer_and_the_reference():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "benchmark.py"), "--seconds", "0.2", "--envs", "sorry_v0"],
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
