"""Shipping the project's code to a Ray cluster: the packages as they install, for Ray's ``py_modules``.

Ray ships a local directory in ``py_modules`` under the directory's own name, so the checkout's
``agents/`` folder would arrive as ``agents``, not ``boardenvs_agents``, and without ``configs/`` and
``scripts/``, which a checkout maps into it (pyproject's ``package-dir``). :func:`stage_packages` copies
both packages into a staging folder laid out as ``pip install`` lays them out (``boardenvs/``,
``boardenvs_agents/`` with ``configs/``, ``scripts/`` and the shipped models inside), from a checkout
or from an installed copy alike. A built wheel would carry the same layout, but Ray installs a wheel in
``py_modules`` with ``pip install --target``, which also installs its dependencies (numpy, gymnasium,
pettingzoo) beside it on every node, over the versions Ray pins: the folders avoid that.

The games, agents and algorithms are found through entry points (``boardenvs.games``,
``boardenvs_agents.agents``, ...), which live in an installed distribution's metadata, not in its
folders: a worker that has the folders on its path but not the package installed would see no game.
So the staging folder also holds ``boardenvs-<version>.dist-info`` (its ``METADATA`` and this
installation's ``entry_points.txt``), shipped as a third ``py_modules`` entry: Ray puts each entry's
folder on the workers' path, where :mod:`importlib.metadata` finds it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
from pathlib import Path

#: The packages shipped, and the subpackages a checkout keeps outside their parent's folder.
PACKAGES = ("boardenvs", "boardenvs_agents")
MAPPED = ("boardenvs_agents.configs", "boardenvs_agents.scripts")
#: The distribution whose entry points travel with the packages.
DISTRIBUTION = "boardenvs"


def package_dir(name: str) -> Path:
    """The folder the package ``name`` is imported from."""
    module = importlib.import_module(name)
    if module.__file__ is None:
        raise ValueError(f"{name} is a namespace package; ship it installed")
    return Path(module.__file__).resolve().parent


def stage_packages(staging: str | Path) -> list[str]:
    """Copy ``boardenvs`` and ``boardenvs_agents`` into ``staging`` under their import names (no
    ``__pycache__``), write the distribution's entry points beside them (:func:`stage_entry_points`),
    and return the three folders for Ray's ``runtime_env["py_modules"]``.

    Raises:
        FileExistsError: when ``staging`` already holds one of them.
    """
    staging = Path(staging)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    folders = []
    for name in PACKAGES:
        target = staging / name
        shutil.copytree(package_dir(name), target, ignore=ignore)
        folders.append(str(target))
    for name in MAPPED:
        target = staging.joinpath(*name.split("."))
        if not target.exists():  # a checkout: configs/ and scripts/ live beside agents/
            shutil.copytree(package_dir(name), target, ignore=ignore)
    folders.append(str(stage_entry_points(staging)))
    return folders


def stage_entry_points(staging: str | Path) -> Path:
    """Write ``boardenvs-<version>.dist-info`` (``METADATA`` and ``entry_points.txt`` of the installed
    distribution) into ``staging`` and return it: on a worker's path it registers the games, agents and
    algorithms as the installed package does.

    Raises:
        importlib.metadata.PackageNotFoundError: when boardenvs is not installed (there is nothing to
            ship: ``pip install -e .`` first).
    """
    dist = importlib.metadata.distribution(DISTRIBUTION)
    target = Path(staging) / f"{DISTRIBUTION}-{dist.version}.dist-info"
    target.mkdir()
    (target / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {dist.version}\n"
    )
    (target / "entry_points.txt").write_text(dist.read_text("entry_points.txt") or "")
    return target
