"""Reports and comparisons of results folders, built from small synthetic results files."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardenvs_agents.bench import report, scores
from boardenvs_agents.bench.protocol import write_results
from boardenvs_agents.bench.suite import STANDARD, SUITE_VERSION, TASKS

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ROOT / "docs" / "results" / "bench"


def fake_reference(folder):
    data = {t.name: {"random_vs_heuristic": 0.0 if "gangsi" in t.name else 0.02, "even_share": t.even_share}
            for t in TASKS}  # fmt: skip
    (folder / "reference.json").write_text(json.dumps(data))


def fake_runs(folder, algo, final, seeds=(0, 1, 2), protocol=None, tasks=TASKS):
    """Runs whose win rate against heuristic players climbs to ``final(task, seed)`` at step 100,000."""
    for task in tasks:
        for seed in seeds:
            rate = final(task, seed)
            rows = []
            for i, step in enumerate((25_000, 50_000, 100_000)):
                for pool, r in (("random", 0.9), ("heuristic", rate * (i + 1) / 3)):
                    rows.append({"phase": "curve", "step": step, "wall_seconds": 10.0 * (i + 1), "pool": pool,
                                 "role": "all", "games": 100, "wins": round(100 * r), "win_rate": r,
                                 "ci_low": r, "ci_high": r})  # fmt: skip
            for pool, r in (("random", 0.9), ("heuristic", rate)):
                roles = ["all"] + (["kyonshi", "hunter"] if "gangsi" in task.name else [])
                for role in roles:
                    rows.append({"phase": "final", "step": 100_000, "wall_seconds": 30.0, "pool": pool,
                                 "role": role, "games": 400, "wins": round(400 * r), "win_rate": r,
                                 "ci_low": r, "ci_high": r})  # fmt: skip
            path = folder / "results" / algo / task.name / f"seed_{seed}.csv"
            write_results(path, rows)
            meta = {"suite": SUITE_VERSION, "protocol": protocol or STANDARD.to_dict(), "steps": 100_000,
                    "wall_seconds": 30.0}
            path.with_suffix(".json").write_text(json.dumps(meta))


@pytest.fixture
def folder(tmp_path):
    fake_reference(tmp_path)
    # "strong" plays each task at twice the even share (score about 2), "weak" at the even share (1).
    fake_runs(tmp_path, "strong", lambda t, s: 2 * t.even_share - 0.01 * s)
    fake_runs(tmp_path, "weak", lambda t, s: t.even_share - 0.01 * s)
    return tmp_path


def test_the_scores_of_a_folder_are_its_final_win_rates_normalized(folder):
    results = report.load([folder])
    assert results.algos == ["strong", "weak"] and results.complete() == ["strong", "weak"]
    matrix = results.score_dict()["weak"]
    assert matrix.shape == (3, 6)
    # sorry_v0_4p, seed 0: win rate 0.25 = the even share, score 1; gangsi (random 0): 0.25 / 0.25.
    assert matrix[0, 0] == pytest.approx(1.0) and matrix[0, 2] == pytest.approx(1.0)
    assert matrix[1, 0] == pytest.approx((0.24 - 0.02) / (0.25 - 0.02))


def test_the_report_has_the_tables_and_plots(folder):
    path = report.write_report(report.load([folder]), folder / "out", "boardenvs-bench report X", reps=200)
    text = path.read_text()
    assert "boardenvs-bench report X" in text and SUITE_VERSION in text
    strong = scores.aggregates(report.load([folder]).score_dict(), reps=200)["strong"]["IQM"]
    assert f"| strong | 18 | {strong[0]:.3f} [{strong[1]:.3f}, {strong[2]:.3f}]" in text
    assert "| strong | - | 1.00 [1.00, 1.00] |" in text  # P(strong > weak): every task, every seed
    assert "| gangsi_v0_3h | kyonshi |" in text and "| sorry_v0_4p | 0.020 | 0.250 |" in text
    plots = ("curves_steps", "curves_wall", "aggregate_steps", "aggregate_wall", "aggregates", "profiles")
    for png in (*plots, "improvement"):
        assert (folder / "out" / f"{png}.png").stat().st_size > 1000, png


def test_a_run_scores_at_a_second_what_its_latest_evaluation_scored(folder):
    # fake_runs: evaluations at 10, 20 and 30 training seconds, at a third, two thirds and all of its rate.
    results = report.load([folder])
    at = report.scores_at_seconds(results, "weak", "sorry_v0_4p", np.array([0.0, 9.9, 10.0, 25.0, 500.0]))
    assert at.shape == (3, 5)
    rate = 0.25  # seed 0 of "weak": the even share
    expected = [0.0, 0.0, results.score("sorry_v0_4p", rate / 3), results.score("sorry_v0_4p", 2 * rate / 3),
                results.score("sorry_v0_4p", rate)]  # fmt: skip
    assert at[0] == pytest.approx(expected, abs=1e-3)  # the files keep four decimals


def test_an_algorithm_missing_runs_is_reported_but_not_aggregated(folder):
    fake_runs(folder, "partial", lambda t, s: t.even_share, tasks=TASKS[:2])
    # A run that stopped past the budget (expert iteration stops after the iteration that reaches it).
    meta_file = folder / "results" / "partial" / TASKS[0].name / "seed_1.json"
    meta_file.write_text(json.dumps({**json.loads(meta_file.read_text()), "steps": 102_345}))
    results = report.load([folder])
    assert results.complete() == ["strong", "weak"]
    text = report.tables(results, reps=100)
    assert "Not in the aggregates (runs missing on some task or seed): partial." in text
    assert "| partial | 6 | 100,000-102,345 | 30 (30-30) |" in text and "| strong | 18 | 100,000 |" in text
    with pytest.raises(ValueError, match="partial"):
        report.comparison(results, ["partial"], reps=100)


def test_results_of_another_protocol_are_refused(folder, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    fake_runs(other, "quick", lambda t, s: t.even_share, protocol={**STANDARD.to_dict(), "budget": 500})
    with pytest.raises(ValueError, match="protocol .* not comparable"):
        report.load([folder, other])
    with pytest.raises(FileNotFoundError, match="no results/"):
        report.load([tmp_path_factory.mktemp("empty")])


def bench(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "bench.py"), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def test_compare_prints_the_new_algorithms_against_the_baselines(folder, tmp_path_factory):
    new = tmp_path_factory.mktemp("new")
    fake_runs(new, "mine", lambda t, s: 1.5 * t.even_share)
    proc = bench("compare", new, "--baselines", folder, "--reps", "200", "--out", new / "joint")
    assert proc.returncode == 0, proc.stderr
    assert "| algorithm | IQM | P(> strong) | P(> weak) | P(> mine) |" in proc.stdout
    assert "| mine |" in proc.stdout and (new / "joint" / "report.md").is_file()
    proc = bench("compare", folder / "nowhere")
    assert proc.returncode == 2 and "holds no results/" in proc.stderr


def test_report_rebuilds_the_published_tables_from_the_committed_results(tmp_path):
    # docs/benchmark.md shows the tables `boardenvs-bench report` makes from docs/results/bench.
    proc = bench("report", BASELINES, "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = (ROOT / "docs" / "benchmark.md").read_text()
    begin, end = "<!-- report tables: begin -->\n", "<!-- report tables: end -->"
    published = doc[doc.index(begin) + len(begin) : doc.index(end)]
    # report.md: the command and suite, then the tables, then the plots; its tables are the published ones.
    made = (tmp_path / "report.md").read_text()
    tables = made[made.index("### ") : made.index("![")].rstrip("\n") + "\n"
    assert published.startswith("### ") and tables == published
