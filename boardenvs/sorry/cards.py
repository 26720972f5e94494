"""The Sorry! deck as a table (S1): 45 cards, eleven kinds; no Fire & Ice power-ups (S22)."""

from __future__ import annotations

#: Card kinds in deck order of the table below; ``SORRY`` is the Sorry! card.
CARD_NAMES = ("1", "2", "3", "4", "5", "7", "8", "10", "11", "12", "Sorry!")
SORRY = CARD_NAMES.index("Sorry!")
SEVEN = CARD_NAMES.index("7")
ELEVEN = CARD_NAMES.index("11")
#: S1: five 1s and four of every other kind.
CARD_COUNTS = (5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4)
DECK_SIZE = sum(CARD_COUNTS)  # 45

#: Forward steps a card allows (0: none). The 11 also switches, the Sorry! forward 4 is its option.
FORWARD = (1, 2, 3, 0, 5, 7, 8, 10, 11, 12, 4)
#: Backward steps a card allows (0: none): the 4 and the 10's "backward 1".
BACKWARD = (0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0)
