"""Checks of the outside libraries that docs/compatibility.md describes (the ``test`` extra installs them).

The workarounds the page names (``KeepEliminated``, ``PadSpaces``) live in ``boardenvs.wrappers``; the
fixtures hand them to the tests of each client.
"""

from __future__ import annotations

import pytest

from boardenvs.wrappers import KeepEliminated, PadSpaces

try:
    import supersuit  # noqa: F401
    import tianshou  # noqa: F401
    import torchrl  # noqa: F401
except ImportError as err:  # a clear failure, not a silent skip
    raise ImportError(
        f"tests/compat needs the libraries of the test extra ({err.name} is missing): "
        "pip install -e '.[train,render,test]'"
    ) from err


@pytest.fixture(scope="session")
def keep_eliminated() -> type:
    """:class:`boardenvs.wrappers.KeepEliminated`."""
    return KeepEliminated


@pytest.fixture(scope="session")
def pad_spaces() -> type:
    """:class:`boardenvs.wrappers.PadSpaces`."""
    return PadSpaces
