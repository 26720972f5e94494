"""The research benchmark: run an algorithm on the suite, report, compare against the baselines.

    python scripts/bench.py run --algo ppo --jobs 2                  # 6 tasks x 5 seeds into runs/bench
    python scripts/bench.py run --algo my_algo.yaml --task sorry_v0_4p --seeds 0,1
    python scripts/bench.py report                                   # docs/results/bench -> its report.md
    python scripts/bench.py compare runs/bench                       # new runs against the baselines

``run`` trains and evaluates every (algorithm, task, seed) of the grid by the suite's protocol
(:mod:`boardenvs_agents.bench.protocol`): ``configs/bench/<algo>.yaml`` (or a YAML file of yours) with
the task, seed, budget and evaluation put in; results as CSV and JSON under ``<out>/results/``, the
training runs under ``<out>/train/``, and ``<out>/reference.json`` (the scores' zero: the committed
baselines' when run from a checkout, wherever the current folder is, else measured once, about 20
minutes on two cores).
Run it again after any stop: finished runs are kept, a stopped one resumes from its last checkpoint.
``--backend ray`` runs one Ray task a run on the cluster ``ray.init`` finds (the ``rllib`` extra).
``--budget``, ``--eval-every`` and ``--eval-games`` make a smaller protocol for trials: its results
are not comparable with the published ones, and ``report`` refuses to mix them.

``report`` writes ``report.md`` (tables) and the plots of one or more results folders (default: the
committed baselines, ``docs/results/bench``) into ``--out`` (default: the first folder). ``compare``
reads a new results folder with the baselines and prints the new algorithms' IQM and their
probability of improvement over each baseline, and writes the joint report with ``--out``.

Exit codes: 0 done; 1 runs failed (the others finished); 2 a bad command line or config.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from boardenvs_agents import cli


def _baselines() -> Path:
    """The committed baseline results: the checkout's this script is in (an editable install), else
    those of the current folder."""
    here = Path(__file__).resolve().parents[1] / "docs" / "results" / "bench"
    return here if here.is_dir() else Path("docs/results/bench")


#: The committed baseline results.
BASELINES = _baselines()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: a subcommand and its options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="train and evaluate algorithms on the suite")
    algo_help = "configs/bench/<algo>.yaml by name (ppo, ppo_bc, dqn, exit), or a YAML file; repeatable"
    run.add_argument("--algo", action="append", required=True, help=algo_help)
    run.add_argument("--task", action="append", help="a task of the suite (default: all); repeatable")
    run.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds (default 0,1,2,3,4)")
    run.add_argument("--out", default="runs/bench", help="results folder (default runs/bench)")
    run.add_argument("--jobs", type=int, default=1, help="runs side by side in local processes")
    run.add_argument("--backend", choices=("local", "ray"), default="local", help="processes or Ray tasks")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a key of the algorithm's config (not the protocol's)")  # fmt: skip
    run.add_argument("--reference-games", type=int, default=2000,
                     help="reference games a task, if it is measured (default 2000)")  # fmt: skip
    run.add_argument("--budget", type=int, help="a trial protocol: steps per run")
    run.add_argument("--eval-every", type=int, help="a trial protocol: steps between evaluations")
    run.add_argument("--eval-games", type=int, help="a trial protocol: games per pool and evaluation")
    run.add_argument("--final-games", type=int, help="a trial protocol: final games per pool")
    report = sub.add_parser("report", help="tables and plots of results folders")
    report.add_argument("folders", nargs="*", help=f"results folders (default {BASELINES})")
    report.add_argument("--out", help="where report.md and the plots go (default: the first folder)")
    report.add_argument("--reps", type=int, default=2000, help="bootstrap resamples (default 2000)")
    report.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    compare = sub.add_parser("compare", help="new results against the baselines")
    compare.add_argument("folder", help="the new results folder")
    compare.add_argument("--baselines", default=str(BASELINES), help=f"default {BASELINES}")
    compare.add_argument("--out", help="write the joint report.md and plots here too")
    compare.add_argument("--reps", type=int, default=2000, help="bootstrap resamples (default 2000)")
    compare.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    return parser.parse_args(argv)


def _protocol(args: argparse.Namespace):  # noqa: ANN202 - a Protocol
    from boardenvs_agents.bench.suite import STANDARD, Protocol

    trial = {"budget": args.budget, "eval_every": args.eval_every, "eval_games": args.eval_games}
    changes = {k: v for k, v in trial.items() if v is not None}
    if args.final_games is not None:
        changes["final_games"] = (("random", args.final_games), ("heuristic", args.final_games))
    if not changes:
        return STANDARD
    values = STANDARD.to_dict() | changes
    values["final_games"] = changes.get("final_games", STANDARD.final_games)
    return Protocol(**values)


def run_command(args: argparse.Namespace) -> int:
    """``run``: the grid, then a line per task of what it measured."""
    from boardenvs.core.options import OptionError
    from boardenvs_agents.bench.protocol import RunSpec, grid, measure_reference, run_all
    from boardenvs_agents.bench.suite import TASKS

    if args.reference_games < 1:
        cli.fail("--reference-games must be at least 1")
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
        protocol = _protocol(args)
        specs = [RunSpec(s.algo, s.task, s.seed, tuple(args.set)) for s in grid(args.algo, args.task, seeds)]
    except ValueError as err:
        cli.fail(str(err))
    out = Path(args.out)
    reference = out / "reference.json"
    if not reference.is_file() and (BASELINES / "reference.json").is_file() and args.reference_games == 2000:
        out.mkdir(parents=True, exist_ok=True)  # the committed one: the same games, the same figures
        shutil.copyfile(BASELINES / "reference.json", reference)
        print(f"the reference: {BASELINES / 'reference.json'}")
    if not reference.is_file():
        out.mkdir(parents=True, exist_ok=True)
        games = args.reference_games
        print(f"measuring the reference (a random agent against heuristic players, {games:,} games a task)")
        data = {t.name: measure_reference(t, games) for t in TASKS}
        reference.write_text(json.dumps(data, indent=1), encoding="utf-8")
    try:
        run_all(specs, out, args.jobs, args.backend, lambda line: print(line, flush=True), protocol)
    except OptionError as err:
        cli.fail(str(err))
    except RuntimeError as err:
        print(f"{cli.prog()}: {err}", file=sys.stderr)
        return 1
    print(f"results in {out / 'results'}; report: {cli.sibling('bench')} report {out}")
    return 0


def report_command(args: argparse.Namespace) -> int:
    """``report``: ``report.md`` and the plots."""
    from boardenvs_agents.bench.report import load, write_report

    folders = args.folders or [str(BASELINES)]
    try:
        results = load(folders)
    except (FileNotFoundError, ValueError) as err:
        cli.fail(str(err))
    out = Path(args.out or folders[0])
    command = " ".join(["boardenvs-bench report", *folders] + (["--out", str(out)] if args.out else []))
    path = write_report(results, out, command, args.reps, args.seed)
    print(path.read_text(encoding="utf-8"))
    print(f"written: {path} and its plots")
    return 0


def compare_command(args: argparse.Namespace) -> int:
    """``compare``: the new folder's algorithms against the baselines."""
    from boardenvs_agents.bench.report import comparison, load, write_report

    try:
        results = load([args.baselines, args.folder])
        new = sorted(p.name for p in (Path(args.folder) / "results").iterdir() if p.is_dir())
        text = comparison(results, new, args.reps, args.seed)
    except (FileNotFoundError, ValueError) as err:
        cli.fail(str(err))
    print(text)
    if args.out:
        command = f"boardenvs-bench compare {args.folder} --baselines {args.baselines} --out {args.out}"
        path = write_report(results, args.out, command, args.reps, args.seed)
        print(f"written: {path} and its plots")
    return 0


@cli.command
def main(argv: list[str] | None = None) -> int:
    """The command (``boardenvs-bench``)."""
    args = parse_args(argv)
    try:  # an extra missing: one line, before any work
        cli.check_extra("bench", "rliable")  # the scores' aggregates
        cli.check_extra("train", "yaml", "torch", "stable_baselines3", "sb3_contrib", "matplotlib")
    except ImportError as err:
        cli.fail(str(err))
    return {"run": run_command, "report": report_command, "compare": compare_command}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
