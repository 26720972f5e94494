"""Run expert iteration (self-play with search, then a fit of the network on the search's targets) from
a YAML config, one folder per iteration.

    python scripts/exit.py --config configs/sorry_v0/exit.yaml --out runs/exit_sorry
    python scripts/exit.py --config configs/sorry_v0/exit.yaml --out runs/exit_sorry --resume

The config is an :class:`~boardenvs_agents.learning.expert.iterate.ExItConfig` (unknown keys are
refused, naming them). Iteration ``i`` writes ``<out>/iter_{i:03d}/`` (``data/``: the self-play
chunks; ``model.zip``: the fitted network, which ``ppo:<out>/iter_{i:03d}/model.zip`` plays and
``mcts:evaluator=ppo:<out>/iter_{i:03d}/model.zip`` searches with; ``report.json``), one progress line
each on standard error. ``--resume`` continues a run that was stopped (even killed) in the same folder
with the same config, ending with the same weights as a run never stopped; raise ``iterations`` in the
config to go on after a finished run. Without ``--resume`` a folder that holds a run is refused.

Exit codes: 0 done; 2 a bad command line or config, a folder of another run, or a start model that
cannot be found or does not fit (a one-line message).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from boardenvs_agents import cli


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="YAML config (configs/<game>/exit.yaml)")
    parser.add_argument("--out", required=True, help="the run's folder (runs/exit_sorry)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar over the games")
    return parser.parse_args(argv)


def run(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Run (or resume) the iterations; returns their reports."""
    args = parse_args(argv)
    import yaml

    from boardenvs.core.options import OptionError
    from boardenvs_agents.learning.expert.iterate import MANIFEST_NAME, ExItConfig, run_iterations

    try:
        raw = yaml.safe_load(Path(args.config).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        cli.fail(f"cannot read the config {args.config}: {err}")
    if not isinstance(raw, dict):
        cli.fail(f"{args.config}: a config is a mapping of keys, got {type(raw).__name__}")
    out = Path(args.out)
    if (out / MANIFEST_NAME).exists() and not args.resume:
        cli.fail(f"{out} holds a run already: continue it with --resume, or choose another --out")
    try:
        config = ExItConfig.from_dict(raw, where=f"{args.config}: ")
        reports = run_iterations(config, out, show_games=not args.no_progress)
    except (OptionError, ValueError, FileNotFoundError) as err:
        cli.fail(str(err))
    last = reports[-1]
    final = last["fit"]["epochs"][-1]
    print(json.dumps({"model": str(out / f"iter_{last['iteration']:03d}" / "model.zip"), **final}, indent=2))
    return reports


@cli.command
def main(argv: list[str] | None = None) -> int:
    """The command: :func:`run`, exit status 0 once the iterations are done."""
    run(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
