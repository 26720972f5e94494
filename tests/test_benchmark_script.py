"""Smoke test of scripts/benchmark.py: it runs end to end and prints one row per layer."""

import subprocess
import sys
from pathlib import Path

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
