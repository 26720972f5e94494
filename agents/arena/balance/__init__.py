"""The balance tool: are a game's DESIGNED values (board, decks, dice, caps) a real game?

For each player count it plays (a) one agent spec in every seat (the heuristic by default), (b) the
heuristic in one seat, rotated, against random players, and for games of asymmetric sides (c) random
players in every seat, all through the arena (paired seeds; a game depends only on its seed and
seating, so ``workers`` changes no figure). It reports how games ended (a win or a draw by the rules,
a cap, truncation), the draw share, game lengths in rounds and decisions (median, p10, p90), win
rates per seat and per role with 95% Wilson intervals, the heuristic's margin over its even share, and
each game's own figures; and it checks the rules README's "Balance targets" and the game's own
(Gangsi K7, Neighborhood 1.1b, Lost City T9 and T28).

>>> from boardenvs_agents.arena.balance import measure
>>> setting = measure("sorry_v0", 2, games=4)
>>> setting.same.games, [t.rule for t in setting.targets][:1]
(4, ['README'])

A game without a record (or without the record's balance part) is measured too, with its generic
figures: pass ``agent="random"`` and ``with_versus=False`` (``--agents random --no-versus``), as the
heuristic comes from the record.

``scripts/balance.py`` (``boardenvs-balance``) is the command line; ``docs/balance.md`` the guide.
What the tool knows of each game is the balance part of its record (``agents/games/<game>_figures.py``
for this project's games, :func:`balance_of`); the observer: :mod:`.observer`; figures and targets:
:mod:`.stats`.
"""

from boardenvs_agents.arena.balance.observer import BalanceObserver, balance_of
from boardenvs_agents.arena.balance.run import BalanceConfig, measure, run_balance
from boardenvs_agents.arena.balance.stats import (
    RunSummary,
    SettingReport,
    Target,
    format_setting,
    format_targets,
    missed,
)

__all__ = [
    "BalanceConfig", "BalanceObserver", "RunSummary", "SettingReport", "Target",
    "balance_of", "format_setting", "format_targets", "measure", "missed", "run_balance",
]  # fmt: skip
