"""Matches between agents: one game (:mod:`.match`), the arena of seat permutations on paired seeds
(:mod:`.runner`), and reports with intervals, ratings and plots (:mod:`.report`); what the command lines
run: evaluations (:mod:`.evaluation`), the leagues and their pages (:mod:`.league`), speed measurements
(:mod:`.speed`)."""

from boardenvs_agents.arena.match import GameResult, play_game, wilson_interval
from boardenvs_agents.arena.runner import Arena, ArenaConfig, Matchup, load_config, seatings

__all__ = [
    "Arena",
    "ArenaConfig",
    "GameResult",
    "Matchup",
    "load_config",
    "play_game",
    "seatings",
    "wilson_interval",
]
