"""Golden playthroughs: write or check the seeded games of every env, as text under tests/playthroughs/.

    python scripts/playthrough.py --write              # regenerate every env's file (then review git diff)
    python scripts/playthrough.py --check              # compare; print a unified diff of the first changes
    python scripts/playthrough.py --check --envs sorry_v0
    python scripts/playthrough.py --show sorry_v0      # print one env's playthrough

A playthrough is a few seeded games played through ``boardenvs.make`` (the PettingZoo AEC env) with
actions drawn uniformly among the legal ids by a seeded numpy generator: per step the acting agent's own
observation (compactly), its legal ids, the action, rewards and ends, and the final returns. The files
are checked in; a change of rules, observation encoding or seeding shows as a diff, to be reviewed and
committed with ``--write``. The format and the games are those of :mod:`boardenvs.core.playthrough`;
``tests/test_playthroughs.py`` runs the check in the test suite.

Exit codes: 0 written, or every file matches; 1 some file differs or is missing; 2 a bad command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import boardenvs
from boardenvs.core.playthrough import playthrough_diff, playthrough_text, write_playthroughs

#: Where the checked-in playthroughs live (this script runs from a checkout of the repository).
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate the files")
    mode.add_argument("--check", action="store_true", help="compare the files with fresh playthroughs")
    mode.add_argument("--show", metavar="ENV", help="print one env's playthrough")
    parser.add_argument("--envs", nargs="+", default=None, help="env names (default: every registered env)")
    parser.add_argument(
        "--dir", type=Path, default=DEFAULT_DIR, help="the files' folder (default: tests/playthroughs)"
    )
    args = parser.parse_args(argv)
    known = boardenvs.env_names()
    for name in (args.envs or []) + ([args.show] if args.show else []):
        if name not in known:
            parser.error(f"unknown env {name!r}; available: {known}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Write, check or show playthroughs; returns the exit code."""
    args = parse_args(argv)
    if args.show:
        sys.stdout.write(playthrough_text(args.show))
        return 0
    names = args.envs or boardenvs.env_names()
    if args.write:
        for path in write_playthroughs(args.dir, names):
            print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
        return 0
    failed = 0
    for name in names:
        diff = playthrough_diff(args.dir, name)
        if diff:
            failed += 1
            print(diff, end="")
        else:
            print(f"{name}: same")
    if failed:
        print(f"{failed} playthrough(s) differ: review, then `python scripts/playthrough.py --write`")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
