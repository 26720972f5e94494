"""boardenvs: four real board games as PettingZoo AEC environments with action masks.

>>> from boardenvs import sorry_v0
>>> env = sorry_v0.env(num_players=2)
>>> env = boardenvs.make("sorry_v0", num_players=2)  # the same, by name
"""

from boardenvs.registry import env_names, make, make_game

__version__ = "0.1.0"
__all__ = ["env_names", "make", "make_game"]
