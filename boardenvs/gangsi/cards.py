"""The mission cards and the dice of Gangsi as tables (gangsi.md K2, K3, K4, K5, K8 and 3.3).

Every mission card shows one treasure, and each treasure is printed once on the board (K5). The 23
cards come in five colours (K3): grey, pink, orange (5 each), yellow and "colour E", called green
here (4 each); each hunter is dealt one card of every colour (K4), the rest leave the game unseen.
"""

from __future__ import annotations

#: K3 (colour E named green, DESIGNED): the five deck colours, in deal order.
COLOR_NAMES = ("grey", "pink", "orange", "yellow", "green")
NUM_COLORS = len(COLOR_NAMES)

#: 3.3 (DESIGNED names): code and name of every treasure, grouped by colour (the card order).
TREASURES: tuple[tuple[str, str], ...] = (
    ("A1", "bronze mirror"),
    ("A2", "jade seal"),
    ("A3", "incense burner"),
    ("A4", "ancient coins"),
    ("A5", "terracotta soldier"),
    ("P1", "lotus hairpin"),
    ("P2", "folding fan"),
    ("P3", "peach of immortality"),
    ("P4", "temple bell"),
    ("P5", "silk scroll"),
    ("O1", "paper lantern"),
    ("O2", "drum"),
    ("O3", "tiger statue"),
    ("O4", "porcelain vase"),
    ("O5", "opera mask"),
    ("Y1", "golden dragon"),
    ("Y2", "bagua mirror"),
    ("Y3", "paper talisman"),
    ("Y4", "compass"),
    ("G1", "jade cicada"),
    ("G2", "bamboo slips"),
    ("G3", "gourd"),
    ("G4", "abacus"),
)
TREASURE_CODES = tuple(code for code, _ in TREASURES)
NUM_TREASURES = len(TREASURES)  # 23
#: K3: cards per colour (5, 5, 5, 4, 4).
COLOR_COUNTS = (5, 5, 5, 4, 4)
#: Colour of every treasure card.
CARD_COLOR = tuple(i for i, n in enumerate(COLOR_COUNTS) for _ in range(n))
#: Bitmask of the cards of each colour.
COLOR_MASK = tuple(sum(1 << t for t in range(NUM_TREASURES) if CARD_COLOR[t] == c) for c in range(NUM_COLORS))
#: K4: cards in a full hand (one per colour); revealing the last one wins (K20).
HAND_SIZE = NUM_COLORS

#: K2 (PUBLIC): the six faces of a hunter die, as chance outcomes 0..5.
HUNTER_FACES = ("1", "2", "3", "4", "arrow", "kyonshi")
#: Steps of the number faces (outcomes 0..3).
FACE_STEPS = (1, 2, 3, 4)
ARROW = 4
KYONSHI_FACE = 5
#: Hunter faces a piece can move with (the Kyonshi face is set aside).
NUM_MOVE_FACES = 5
#: Hunter dice in the shared pool (K15).
NUM_HUNTER_DICE = 5
#: K8 (DESIGNED): the Kyonshi die.
DEFAULT_KYONSHI_DIE = (1, 1, 2, 2, 3, 3)

#: Life tokens per hunter piece (seed: "ライフトークン ... 各3枚").
LIVES = 3
#: End table of the seed: tokens the Kyonshi needs, by hunter pieces (2 also for the one-controller
#: game, K21).
TOKENS_TO_WIN = {2: 4, 3: 6, 4: 7}
