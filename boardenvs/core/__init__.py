"""What every game shares: the State protocol, options, decks and dice, grids and the AEC adapter.

Everything here but :mod:`boardenvs.core.aec` depends on numpy and the standard library only.
"""

from boardenvs.core.deck import Deck
from boardenvs.core.dice import Die, roll, uniform_outcomes
from boardenvs.core.game import Game
from boardenvs.core.options import OptionError, make_options, options_to_dict
from boardenvs.core.state import CHANCE, TERMINAL, IllegalActionError, State, play_chance

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Deck",
    "Die",
    "Game",
    "IllegalActionError",
    "OptionError",
    "State",
    "make_options",
    "options_to_dict",
    "play_chance",
    "roll",
    "uniform_outcomes",
]
