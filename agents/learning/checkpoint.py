"""Checkpoints of a training run: complete or absent, the last two kept, checked when read.

A checkpoint is a folder ``checkpoint/step_<N>/`` of the run directory holding

* ``model.zip``: SB3's save (weights, optimizer state, step and update counters, the last
  observations and episode starts);
* ``replay_buffer.pkl``: DQN's replay buffer;
* ``state.json``: everything else the next rollout depends on (see :mod:`boardenvs_agents.learning.run`),
  and the size and SHA-256 of every other file.

It is written in a hidden folder (``.step_<N>.tmp<pid>``) and renamed into place only when
complete, so a folder named ``step_<N>`` is never half written, whenever the process is killed.
The newest :data:`KEEP` are kept. :func:`read_state` refuses a checkpoint whose ``state.json`` does not
parse or whose files differ from what it recorded (a truncated ``model.zip``), so that the run falls
back to the older one. :func:`remove_leftovers` deletes what killed writes leave behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: Checkpoints kept (the newest ones).
KEEP = 2
#: Version of the checkpoint layout.
FORMAT = 1
STATE = "state.json"
_STEP = re.compile(r"step_(\d+)")
_LEFTOVER = re.compile(r"\..+\.(tmp|old)\d+(\.zip|\.pkl)?")


class CheckpointError(Exception):
    """A checkpoint that cannot be read (missing, truncated or corrupt files)."""


def checkpoint_dirs(root: Path) -> list[Path]:
    """The checkpoint folders under ``root`` (``run/checkpoint``), newest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in root.iterdir() if p.is_dir() and (m := _STEP.fullmatch(p.name))]
    return [p for _, p in sorted(found, reverse=True)]


def write_file(path: Path, write: Callable[[Path], Any]) -> dict[str, Any]:
    """Write one file of a checkpoint with ``write(path)``, flush it to disk; its size and SHA-256."""
    write(path)
    with open(path, "rb") as f:
        os.fsync(f.fileno())
    return {"size": path.stat().st_size, "sha256": sha256(path)}


def publish(tmp: Path, final: Path) -> None:
    """Rename the complete folder ``tmp`` to ``final`` (replacing an older folder of that name)."""
    if final.exists():
        old = final.with_name(f".{final.name}.old{os.getpid()}")
        os.rename(final, old)
        os.rename(tmp, final)
        shutil.rmtree(old)
    else:
        os.rename(tmp, final)
    _fsync_dir(final.parent)


def write_checkpoint(
    root: Path, step: int, files: dict[str, Callable[[Path], Any]], state: dict[str, Any], keep: int = KEEP
) -> Path:
    """Write ``files`` (name -> writer) and ``state`` as checkpoint ``step`` under ``root``, keep the
    newest ``keep``; returns its folder."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step_{step:012d}"
    tmp = root / f".{final.name}.tmp{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    records = {name: write_file(tmp / name, write) for name, write in files.items()}
    data = {"format": FORMAT, "step": step, "files": records, **state}
    write_file(tmp / STATE, lambda path: path.write_text(json.dumps(data)))
    _fsync_dir(tmp)
    publish(tmp, final)
    for old in checkpoint_dirs(root)[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def read_state(folder: Path) -> dict[str, Any]:
    """The ``state.json`` of a checkpoint folder, after checking its files against it.

    Raises:
        CheckpointError: saying what is wrong (unreadable state, a missing, truncated or changed file).
    """
    folder = Path(folder)
    try:
        data = json.loads((folder / STATE).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"{STATE} unreadable ({type(err).__name__}: {err})") from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
        raise CheckpointError(f"{STATE} is not a checkpoint state of format {FORMAT}")
    for name, record in data["files"].items():
        path = folder / name
        if not path.is_file():
            raise CheckpointError(f"{name} is missing")
        if path.stat().st_size != record.get("size") or sha256(path) != record.get("sha256"):
            raise CheckpointError(f"{name} differs from what was written (truncated or changed)")
    return data


def remove_leftovers(folders: Iterable[Path]) -> list[Path]:
    """Delete the hidden temporary files and folders of killed writes (``.name.tmp<pid>``,
    ``.name.old<pid>``) in ``folders``; returns what was deleted."""
    removed = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if _LEFTOVER.fullmatch(path.name):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename) to disk, where the platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
