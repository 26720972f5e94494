"""What the command lines (``scripts/``, the ``boardenvs-*`` commands) share: the command wrapper
(:func:`command`: exit status, a closed output pipe, a missing extra), one-line errors, checks that an
extra is installed, game options typed as ``KEY=VALUE``, labelled agent specs, the command as it was
typed, and the progress bar of long work (games played, imitation's teacher games).

Library functions raise ``ValueError`` (or ``OptionError``) with a message that names the bad value;
the scripts turn those into :func:`fail`: the message on one line, exit code 2, as argparse does for
usage errors, and no traceback. ``KEY=VALUE`` values are read by the one grammar of
:mod:`boardenvs_agents.keyvalue`. A script imports the modules of an extra only once its arguments are
parsed, so ``--help`` works in an install without extras (numpy, gymnasium, pettingzoo).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from boardenvs_agents.keyvalue import parse_items

#: The extra of ``pyproject.toml`` that installs each optional module the commands import (by import
#: name); a command that meets one of them missing stops with :func:`extra_message`.
EXTRA_OF_MODULE = {
    "yaml": "train",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tqdm": "train",
    "openskill": "train",
    "matplotlib": "train",
    "PIL": "render",
    "pygame": "test",
    "ray": "rllib",
    "rliable": "bench",
    "starlette": "web",
    "uvicorn": "web",
}
#: The exit status after the reader of standard output went away (``... | head``): 128 + SIGPIPE, the
#: status a shell reports for a Unix tool stopped by that signal.
BROKEN_PIPE_STATUS = 141


def prog() -> str:
    """The name the command was started by, as argparse shows it (``play.py``, ``boardenvs-play``)."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "boardenvs"


def sibling(script: str) -> str:
    """How to run another of the commands the way this one was started: ``boardenvs-replay`` from a
    console command (``boardenvs-play``), else ``python scripts/replay.py`` (``script``: ``replay``)."""
    if prog().startswith("boardenvs-"):
        return "boardenvs-" + script.replace("_", "-")
    return f"python scripts/{script}.py"


def fail(message: str) -> NoReturn:
    """Stop with ``<command>: error: <message>`` on standard error and exit code 2 (the command's name
    as :func:`prog` gives it, ``boardenvs-train`` or ``train.py``)."""
    print(f"{prog()}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def extra_message(extra: str, module: str) -> str:
    """The message of a missing module of an extra: ``this needs the train extra: pip install
    "boardenvs[train]" (missing module: yaml)``."""
    return f'this needs the {extra} extra: pip install "boardenvs[{extra}]" (missing module: {module})'


def check_extra(extra: str, *modules: str) -> None:
    """Check that the modules a command needs are installed, before it does any work.

    Raises:
        ImportError: naming the missing module and the extra of ``pyproject.toml`` that installs it
            (:func:`extra_message`).
    """
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise ImportError(extra_message(extra, module))


def command(main: Callable[[list[str] | None], int | None]) -> Callable[[list[str] | None], int]:
    """A script's ``main`` as a command: what the console scripts (``sys.exit(main())``) and
    ``python scripts/<name>.py`` run.

    The wrapped function returns the exit status (``None`` is 0) and stops:

    - quietly, with status :data:`BROKEN_PIPE_STATUS`, when the reader of standard output goes away
      (``boardenvs-replay game.json | head``), as Unix tools do;
    - with one line (:func:`extra_message`) and status 2 when a module of an extra
      (:data:`EXTRA_OF_MODULE`) is missing.
    """

    @functools.wraps(main)
    def run(argv: list[str] | None = None) -> int:
        try:
            try:
                status = main(argv)
            except SystemExit:  # argparse's --help, or a one-line error: the output is still buffered
                sys.stdout.flush()
                raise
            sys.stdout.flush()  # what is still buffered meets a closed pipe here, not at exit
        except BrokenPipeError:
            if not _stdout_broken():
                raise
            # Python flushes standard output once more at exit: let that go nowhere.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return BROKEN_PIPE_STATUS
        except ModuleNotFoundError as err:
            module = (err.name or "").partition(".")[0]
            if module not in EXTRA_OF_MODULE:
                raise
            fail(extra_message(EXTRA_OF_MODULE[module], module))
        return status or 0

    return run


def _stdout_broken() -> bool:
    """Whether standard output is a file descriptor whose reader has gone: ``poll`` reports an error
    on it (without ``poll``, on Windows, assumed: the broken pipe is most likely standard output)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file descriptor
        return False
    import select

    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def parse_game_options(items: Sequence[str]) -> dict[str, Any]:
    """``["max_turns=200", "colors=[0, 2]", "slide_rule=classic"]`` (``--option`` items) as game options,
    each value read by the one ``key=value`` grammar (:mod:`boardenvs_agents.keyvalue`: numbers,
    true/false, lists, else text).

    Raises:
        ValueError: for an item without ``=`` or without a key, or a value that cannot be read, naming it.
    """
    return parse_items(items, "--option")


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
