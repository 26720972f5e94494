"""What the command lines (``scripts/``, the ``boardenvs-*`` commands) share: one-line errors, checks
that an extra is installed, game options typed as ``KEY=VALUE``, labelled agent specs, the command as
it was typed, and the progress bar of long work (games played, imitation's teacher games).

Library functions raise ``ValueError`` (or ``OptionError``) with a message that names the bad value;
the scripts turn those into :func:`fail`: the message on one line, exit code 2, as argparse does for
usage errors, and no traceback.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import sys
from collections.abc import Sequence
from typing import Any, NoReturn


def prog() -> str:
    """The name the command was started by, as argparse shows it (``play.py``, ``boardenvs-play``)."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "boardenvs"


def fail(message: str, name: str | None = None) -> NoReturn:
    """Stop with ``<name>: error: <message>`` on standard error and exit code 2 (``name``: the
    command's name, default :func:`prog`)."""
    print(f"{name or prog()}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_extra(extra: str, *modules: str) -> None:
    """Check that the modules a command needs are installed, before it does any work.

    Raises:
        ImportError: naming the missing module and the extra of ``pyproject.toml`` that installs it.
    """
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise ImportError(
                f'this needs the {extra} extra: pip install "boardenvs[{extra}]" (missing module: {module})'
            )


def parse_game_options(items: Sequence[str]) -> dict[str, Any]:
    """``["max_turns=200", "colors=[0, 2]", "slide_rule=classic"]`` as game options: values read as JSON
    where they parse (numbers, true/false, lists), else kept as text.

    Raises:
        ValueError: for an item without ``=`` or without a key.
    """
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--option takes key=value, got {item!r}")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def split_label(text: str) -> tuple[str, str]:
    """``"m=mcts:sims=100"`` -> ``("m", "mcts:sims=100")``; a bare spec is its own label."""
    label, eq, spec = text.partition("=")
    if eq and ":" not in label and label and spec:
        return label, spec
    return text, text


def split_specs(values: Sequence[str]) -> list[str]:
    """Agent specs from comma-separated values: commas separate specs, except that a ``key=value``
    piece (no ``:`` before its ``=``) continues the spec before it, as in
    ``ppo:sorry_v0,deterministic=false``.
    """
    specs: list[str] = []
    for value in values:
        for piece in value.split(","):
            piece = piece.strip()
            if not piece:
                continue
            head, eq, _ = piece.partition("=")
            if eq and ":" not in head and specs:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def command_line(script: str, argv: Sequence[str] | None = None, drop: Sequence[str] = ()) -> str:
    """``python scripts/<script> <arguments>``: the command to write beside results, with the arguments
    given (``sys.argv[1:]`` by default) quoted for a shell and those in ``drop`` left out."""
    args = [a for a in (sys.argv[1:] if argv is None else argv) if a not in drop]
    return " ".join(["python", f"scripts/{script}", *(shlex.quote(a) for a in args)])


def progress_bar(total: int, desc: str, initial: int = 0, unit: str = "game") -> Any:
    """A tqdm progress bar on standard error, or ``None`` without tqdm (the bar is optional)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)
