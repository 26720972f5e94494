"""Views of the games for other APIs: the single-agent Gymnasium env used for training, and AEC wrappers
for outside libraries (docs/compatibility.md)."""

from boardenvs.wrappers.compat import KeepEliminated, PadSpaces
from boardenvs.wrappers.single_agent import (
    OPPONENT_PROVIDERS,
    FixedOpponents,
    LearnerView,
    RandomOpponent,
    SingleAgentEnv,
    resolve_opponent,
)

__all__ = [
    "OPPONENT_PROVIDERS",
    "FixedOpponents",
    "KeepEliminated",
    "LearnerView",
    "PadSpaces",
    "RandomOpponent",
    "SingleAgentEnv",
    "resolve_opponent",
]
