"""The battle deck as a table (4.1 Battle cards, SEED): 28 cards, eight kinds."""

from __future__ import annotations

HEALTH_10, DAMAGE_10, HEALTH_20, DAMAGE_20, SKIP_TURN, NULL, JOKER, SPECIAL = range(8)
CARD_NAMES = (
    "+10 Health", "+10 Damage", "+20 Health", "+20 Damage", "Skip Turn", "Null", "Joker", "Special Ability",
)  # fmt: skip
#: SEED counts: 4, 4, 2, 2, 2, 4, 2, 8 (28 cards).
CARD_COUNTS = (4, 4, 2, 2, 2, 4, 2, 8)
DECK_SIZE = sum(CARD_COUNTS)
NUM_KINDS = len(CARD_COUNTS)

#: T13: good cards are kept (Health, Damage, Special Ability); Skip Turn and Joker are bad and resolve
#: at once; Null is neither (discarded with no effect).
GOOD = (True, True, True, True, False, False, False, True)
BAD = (False, False, False, False, True, False, True, False)
#: HP a +Health card restores (T16: capped at the starting HP).
HEALTH_VALUE = (10, 0, 20, 0, 0, 0, 0, 0)
#: Damage a +Damage card adds to a basic attack (T11, T19).
DAMAGE_VALUE = (0, 10, 0, 20, 0, 0, 0, 0)
