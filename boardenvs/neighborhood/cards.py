"""The Killer deck and the four Wild decks as data (neighborhood.md 1.4; L10, L11, all DESIGNED).

Every card is a row of a table: its name, its count, the black text as a *program* (a tuple of small
effects) and, where the card has one, a colour line (the colours it is for, the program that replaces
the black text for them, and whose colour decides, L28). An effect is a tuple ``(op, args...)``; the
rules interpret each op once (:mod:`boardenvs.neighborhood.rules`), so a deck is a list of card
definitions and not a page of special cases.

Roles an effect names: ``ME`` the player who follows the card (the Wild card's drawer; the Killer for
a Killer card), ``K`` the Killer, ``V`` the Victim, ``T`` the player chosen by the last
``choose_player`` of the card (-1 if there was nobody to choose: effects on ``T`` then do nothing).

Effects:

================================================ ==========================================================
``("hp", ((role, delta), ...))``                  HP changes, all at once (heal capped at 10, L20/L21)
``("steal", thief, victim, x)``                    L20 steal (also "give K x HP")
``("area_hp", location, delta, include_me)``        every character in a location (others only, or all)
``("near_hp", radius, delta)``                      every character within ``radius`` king-steps of ME
``("steal_area", location, x)``                     steal ``x`` from each opponent in a location
``("choose_player", decider, filter, param)``      a decision: who is T (filters below)
``("branch", decider, program_a, program_b)``       a decision between two programs
``("line", mover, decider, n, up_to, mode, may)``  straight move: exactly ``n`` (truncated) or up to
                                                   ``n``; direction ``any``, ``toward_opponent``,
                                                   ``toward_T`` (L31) or ``spin``; ``may``: may decline
``("curve", mover, n, up_to)``                      L24 curved path of ``n`` king-steps, one step a decision
``("teleport", location)``                          Subway: to a Wild Space outside ``location`` (L35)
``("gossip",)``                                     everyone else moves 1 square, at once (L16)
``("trap", location)``                              set the location's trap on a chosen square (L33)
``("showdown", tie)``                               K and V roll; ties to ``"K"`` or to ``"silver"``
``("curfew", role)`` / ``("thug", role)``           skip the next turn / lose 1 HP at its start
================================================ ==========================================================

``choose_player`` filters: ``opponent`` (any other living character than ME), ``other_than_kv``,
``any`` (ME included), ``within`` (opponents within ``param`` king-steps of ME), ``in_location``
(opponents in location ``param``), ``nearest`` (the opponents nearest to ME).
"""

from __future__ import annotations

from typing import NamedTuple

from boardenvs.neighborhood.board import BLUE, CITY, FOREST, MOUNTAINS, PURPLE, SILVER, VILLAGE, YELLOW

#: Roles (register indices of a card frame in the rules state).
ME, K, V, T = 4, 5, 6, 7


class Card(NamedTuple):
    """One card kind of a deck: see the module docstring for the program format."""

    name: str
    count: int
    program: tuple
    colours: frozenset[int] = frozenset()
    colour_program: tuple = ()
    #: L28: whose colour selects the colour line: ``"me"``, ``"V"`` or ``"either"`` (K or V).
    colour_role: str = "me"


def _hp(*pairs: tuple[int, int]) -> tuple:
    return ("hp", tuple(pairs))


#: L10: the Killer deck, 25 cards (retuned, 1.1b; the first design's 24: ``FIRST_KILLER_COUNTS``).
KILLER_CARDS: tuple[Card, ...] = (
    Card("Ambush", 4, (_hp((V, -2)),)),
    Card("Knife in the Dark", 3, (_hp((V, -2)),), frozenset((PURPLE,)), (_hp((V, -3)),), "me"),
    Card("Mug", 1, (("steal", K, V, 2),)),
    Card("Your Money or Your Life", 2, (("branch", V, (_hp((V, -3)),), (("steal", K, V, 2),)),)),
    Card("Mercy", 1, (("branch", K, (_hp((V, -2)),), (_hp((K, 2)),)),)),
    Card("Showdown", 3, (("showdown", "K"),), frozenset((SILVER,)), (("showdown", "silver"),), "either"),
    Card("Chase", 3, (_hp((V, -1)), ("line", K, K, 4, True, "toward_opponent", True))),
    Card(
        "Flee",
        1,
        (_hp((V, -1)), ("line", V, V, 3, False, "any", False)),
        BLUE,
        (_hp((V, -1)), ("curve", V, 5, True)),
        "V",
    ),  # fmt: skip
    Card("Self-Defence", 1, (_hp((K, -2)),), frozenset((YELLOW,)), (_hp((K, -3)),), "V"),
    Card("Hostage", 2, (("choose_player", K, "other_than_kv", 0), _hp((T, -1), (V, -1)))),
    Card("Double-Cross", 1, (("choose_player", V, "other_than_kv", 0), _hp((T, -2)))),
    Card("Frenzy", 3, (_hp((V, -3), (K, -1)),)),
)

#: L11: the common core of every Wild deck (11 cards; 5 in the first design).
_COMMON: tuple[Card, ...] = (
    Card("Shortcut", 8, (("curve", ME, 4, True),)),
    Card("First Aid", 1, (_hp((ME, 2)),)),
    Card("Bad Luck", 1, (_hp((ME, -1)),)),
    Card("Crossroads", 1, (("branch", ME, (_hp((ME, 1)),), (("line", ME, ME, 3, False, "any", False),)),)),
)

#: L11: the four Wild decks, by location: 20, 17, 21 and 18 cards (12 each in the first design).
WILD_CARDS: tuple[tuple[Card, ...], ...] = (
    _COMMON
    + (
        Card(
            "Avalanche",
            3,
            (("area_hp", MOUNTAINS, -1, False),),
            frozenset((SILVER,)),
            (("area_hp", MOUNTAINS, -2, False),),
        ),  # fmt: skip
        Card(
            "Eagle's Eye",
            3,
            (("choose_player", ME, "within", 6), ("line", ME, ME, 3, True, "toward_T", False)),
        ),
        Card("Cliff Edge", 1, (_hp((ME, -2)),), frozenset((SILVER,)), (_hp((ME, 2)),)),
        Card("Rockslide Trap", 1, (("trap", MOUNTAINS),)),
        Card("Summit Signal", 1, (("choose_player", ME, "any", 0), ("line", T, ME, 2, False, "any", False))),
    ),
    _COMMON
    + (
        Card("Healer's Hut", 1, (_hp((ME, 2)),), BLUE, (_hp((ME, 3)),)),
        Card(
            "Market Deal",
            1,
            (
                ("choose_player", ME, "opponent", 0),
                ("branch", ME, (_hp((ME, 1), (T, 1)),), (("steal", ME, T, 1),)),
            ),
        ),  # fmt: skip
        Card("Town Gossip", 1, (("gossip",),)),
        Card("Curfew", 1, (("choose_player", ME, "opponent", 0), ("curfew", T))),
        Card("Well", 2, (_hp((ME, -1)),), BLUE, (("steal_area", VILLAGE, 1),)),
    ),
    _COMMON
    + (
        Card("Subway", 1, (("teleport", CITY),)),
        Card(
            "Alley Fight",
            4,
            (("choose_player", ME, "within", 3), _hp((T, -2))),
            frozenset((PURPLE,)),
            (("choose_player", ME, "within", 3), _hp((T, -3))),
        ),  # fmt: skip
        Card(
            "Police Siren",
            2,
            (("area_hp", CITY, -1, True),),
            frozenset((PURPLE,)),
            (("area_hp", CITY, -1, False),),
        ),
        Card("Hire a Thug", 2, (("choose_player", ME, "opponent", 0), _hp((T, -1)), ("thug", T))),
        Card("Pickpocket", 1, (("choose_player", ME, "nearest", 0), ("steal", ME, T, 1))),
    ),
    _COMMON
    + (
        Card("Berries", 1, (("branch", ME, (_hp((ME, 2)),), (_hp((ME, 1)), ("curve", ME, 2, False))),)),
        Card(
            "Wolf",
            3,
            (_hp((ME, -2)),),
            frozenset((YELLOW,)),
            (("choose_player", ME, "in_location", FOREST), _hp((T, -2))),
        ),  # fmt: skip
        Card("Hunting Trap", 1, (("trap", FOREST),)),
        Card(
            "Lost",
            1,
            (("line", ME, ME, 4, False, "spin", False),),
            frozenset((YELLOW,)),
            (("line", ME, ME, 4, False, "any", False),),
        ),  # fmt: skip
        Card("Campfire", 1, (("near_hp", 2, 1),)),
    ),
)

#: Deck ids: 0 the Killer deck, ``1 + location`` the Wild deck of that location.
KILLER_DECK = 0
NUM_DECKS = 5
DECKS: tuple[tuple[Card, ...], ...] = (KILLER_CARDS, *WILD_CARDS)
DECK_NAMES = ("Killer", "Mountains Wild", "Village Wild", "City Wild", "Forest Wild")
#: Default counts per card kind of each deck (the ``killer_counts`` / ``wild_counts`` options).
DEFAULT_COUNTS: tuple[tuple[int, ...], ...] = tuple(tuple(c.count for c in deck) for deck in DECKS)
#: The first design's counts (neighborhood.md 1.4 before the 1.1b retuning: a 24-card Killer deck and
#: four 12-card Wild decks), kept as an example: ``killer_counts=FIRST_KILLER_COUNTS,
#: wild_counts=FIRST_WILD_COUNTS`` plays them.
FIRST_KILLER_COUNTS: tuple[int, ...] = (3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1)
FIRST_WILD_COUNTS: tuple[tuple[int, ...], ...] = (
    (2, 1, 1, 1, 2, 2, 1, 1, 1),
    (2, 1, 1, 1, 2, 2, 1, 1, 1),
    (2, 1, 1, 1, 2, 2, 1, 1, 1),
    (2, 1, 1, 1, 2, 2, 1, 1, 1),
)
#: Offset of each deck's kinds in a flat numbering of every card kind (48 in all).
KIND_OFFSET: tuple[int, ...] = tuple(sum(len(d) for d in DECKS[:i]) for i in range(NUM_DECKS))
NUM_KINDS_TOTAL = sum(len(d) for d in DECKS)


def _compile() -> tuple[list[tuple], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Give every program (nested branch programs included) an id; branch ops then name ids."""
    programs: list[tuple] = []

    def add(program: tuple) -> int:
        ops = []
        for op in program:
            if op[0] == "branch":
                op = ("branch", op[1], add(op[2]), add(op[3]))
            ops.append(op)
        programs.append(tuple(ops))
        return len(programs) - 1

    black = tuple(tuple(add(c.program) for c in deck) for deck in DECKS)
    colour = tuple(tuple(add(c.colour_program) if c.colours else -1 for c in deck) for deck in DECKS)
    return programs, black, colour


#: Every program by id; ``BLACK[deck][kind]`` and ``COLOUR[deck][kind]`` (-1: no colour line) name them.
PROGRAMS, BLACK, COLOUR = _compile()
