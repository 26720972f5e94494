"""Config files: every YAML config of the project (training, RLlib, arena) is read here.

A config is named by path (``configs/sorry_v0/ppo.yaml``) or by name (``sorry_v0/ppo``): names are
looked up in the ``configs/`` folder shipped with the package, so installed console commands find them
too. ``--set key=value`` overrides reach into sections with dotted keys (``--set eval.games=50``); their
values are read by the one ``key=value`` grammar (:mod:`boardenvs_agents.keyvalue`: numbers, true/false,
``[lists]``, ``{mappings: like this}``, else text).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from boardenvs.core.options import OptionError
from boardenvs_agents.keyvalue import KeyValueError, parse_item


def _set(tree: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``tree["a"]["b"] = value`` for ``dotted == "a.b"``, creating sections as needed."""
    *sections, leaf = dotted.split(".")
    for name in sections:
        node = tree.setdefault(name, {})
        if not isinstance(node, dict):
            raise OptionError(f"--set {dotted}: {name!r} is not a section")
        tree = node
    tree[leaf] = value


def parse_override(text: str) -> tuple[str, Any]:
    """``"eval.games=50"`` -> ``("eval.games", 50)`` (the value read by :mod:`boardenvs_agents.keyvalue`).

    Raises:
        OptionError: for an item without ``=`` or a key, or a value that cannot be read, naming it.
    """
    try:
        return parse_item(text, "--set")
    except KeyValueError as err:
        raise OptionError(str(err)) from None


def configs_dir() -> Path:
    """The folder of the project's configs (the checkout's ``configs/``, or the installed copy)."""
    from importlib import resources

    return Path(str(resources.files("boardenvs_agents.configs")))


def find_config(path_or_name: str | Path) -> Path:
    """A config file by path, or by name relative to :func:`configs_dir` (``"sorry_v0/ppo"``).

    Raises:
        OptionError: when neither a file of that path nor a shipped config of that name exists.
    """
    path = Path(path_or_name)
    if path.is_file():
        return path
    name = str(path_or_name).removeprefix("configs/")
    shipped = configs_dir() / (name if name.endswith(".yaml") else f"{name}.yaml")
    if shipped.is_file():
        return shipped
    root = configs_dir()
    available = sorted(str(p.relative_to(root).with_suffix("")) for p in root.glob("*/*.yaml"))
    raise OptionError(f"config file {path_or_name} not found, nor a shipped config so named ({available})")


def read_config(path: str | Path | None, overrides: Sequence[str] = ()) -> tuple[dict[str, Any], str]:
    """A YAML config file as a dict with ``--set`` overrides applied, and the ``where`` prefix of errors.

    Every config of the project (training, RLlib, arena) is read here; the caller turns the dict into
    its dataclass with :func:`boardenvs.core.options.make_options`, which names unknown keys.

    Raises:
        OptionError: for a missing file, invalid YAML, a file that is not a mapping or a bad override.
    """
    where = f"{path}: " if path else "config: "
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = yaml.safe_load(find_config(path).read_text()) or {}
        except yaml.YAMLError as err:
            raise OptionError(f"{where}not valid YAML: {err}") from err
        if not isinstance(raw, dict):
            raise OptionError(f"{where}a config is a mapping of keys to values")
    for text in overrides:
        key, value = parse_override(text)
        _set(raw, key, value)
    return raw, where
