"""boardenvs: four real board games as PettingZoo AEC environments with action masks.

>>> from boardenvs import sorry_v0
>>> env = sorry_v0.env(num_players=2)
>>> env = boardenvs.make("sorry_v0", num_players=2)  # the same, by name

The single-agent Gymnasium view (one learner seat, opponents inside ``step()``) is registered too:

>>> gymnasium.make("boardenvs/Sorry-v0", num_players=2)  # "random" opponents, built in
>>> gymnasium.make("boardenvs/Sorry-v0", opponents="heuristic", num_players=2)
>>> gymnasium.make("boardenvs:boardenvs/Sorry-v0")  # imports boardenvs first (SubprocVecEnv children)

Spec strings other than ``"random"`` come from an installed opponent provider (the agents package that
ships with boardenvs publishes one): see :mod:`boardenvs.wrappers.single_agent`. boardenvs itself never
imports the agents package.

Games are found through the entry-point group ``boardenvs.games`` (:mod:`boardenvs.registry`): the four
above register there like any other installed game (docs/adding-a-game.md), and ``boardenvs.env_names()``
lists them all.
"""

from boardenvs.registry import env_names, make, make_game, register_gymnasium

__version__ = "0.1.0"
__all__ = ["env_names", "make", "make_game"]

register_gymnasium()
