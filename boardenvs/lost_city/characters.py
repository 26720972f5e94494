"""The seven characters as a table (4.1, SEED): type, HP, movement, attack range and ability.

Character ``k`` owns ability ``k``: Rob's Seduction is ability 0, Aaron's Critical ability 1, and so on.
"""

from __future__ import annotations

#: Character ids in the order of the spec's table.
ROB, AARON, SAFINA, JACK, JAMIE, JOSH, CHRIS = range(7)
NAMES = ("Rob", "Aaron", "Safina", "Jack", "Jamie", "Josh", "Chris")
NUM_CHARACTERS = len(NAMES)
#: Abilities (T17-T25), numbered like their owners.
SEDUCTION, CRITICAL, HEALTH_STEAL, FIRE, COPYCAT, DOUBLE_HIT, TRAP = range(7)
ABILITY_NAMES = ("Seduction", "Critical", "Health Steal", "Fire", "Copycat", "Double Hit", "Trap")

#: 4.1 / T29: melee (Safina, "Melee/Healer", is melee) or ranged.
RANGED = (False, False, False, True, True, True, False)
#: 4.1: starting HP, which is also the HP cap (T16; Safina's 260 is stated, T25).
MAX_HP = (250, 250, 260, 200, 200, 200, 250)
#: Movement allowance: melee 2 blocks, ranged 1 (4.1 Movement).
MOVE = tuple(1 if r else 2 for r in RANGED)
#: Basic attack range: melee 1, ranged 3 (4.1 Range, T4 Chebyshev).
RANGE = tuple(3 if r else 1 for r in RANGED)
#: Range of each ability used on a target (T20-T25); Critical (T17) and Copycat (T22) have no target
#: of their own (Copycat's 3 is the distance to the character whose ability is copied).
ABILITY_RANGE = (1, 0, 2, 1, 3, 1, 1)
#: Abilities that Copycat can resolve in the action step (T22): the targeted ones. Critical is copied
#: after the damage roll instead (T37).
COPYABLE_TARGETED = (SEDUCTION, HEALTH_STEAL, FIRE, DOUBLE_HIT, TRAP)

#: T25: Health Steal drains 50. T21: Fire burns 20 per turn for 3 turns. T23: Double Hit 25 / 40.
#: T24: Trap deals 40.
STEAL = 50
FIRE_DAMAGE = 20
FIRE_TURNS = 3
DOUBLE_HIT_EACH = 25
DOUBLE_HIT_SINGLE = 40
TRAP_DAMAGE = 40
#: T20: Seduction lasts the target's next 2 turns (and Rob's own next 2 turns for his restriction).
SEDUCTION_TURNS = 2
#: Highest starting HP: observations scale HP by it.
HP_SCALE = max(MAX_HP)
