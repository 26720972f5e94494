"""Today's ``mcts:`` specs make the moves they made before search took an evaluator (issue 28, item 3).

The rollout leaves became :class:`~boardenvs_agents.search.evaluators.RolloutEvaluator` and selection
gained PUCT for evaluators with a prior; with the rollout evaluator (a uniform prior) the search must
stay plain UCT, drawing from its generator in the same order. The figures below were recorded on the
code before that change (commit cc04c49, its own virtual environment) with::

    /work/main/.venv/bin/python tests/agents/test_mcts_pinned.py

which prints :data:`DECISIONS` and :data:`GAMES`: for each case, every decision as
``action/visits of the action``, one policy searching a series of positions (its generator carried
from one search to the next), and whole games with an MCTS agent in every seat.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script by the recording command: find tests/agent_helpers.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import pytest
from agent_helpers import decision_states

from boardenvs import make_game
from boardenvs.core.state import CHANCE
from boardenvs_agents.registry import make_policy

#: (game, options, spec, policy seed, seed of the random game the positions come from, every, limit).
DECISION_CASES = [
    ("sorry_v0", {"num_players": 4}, "mcts:sims=20,depth=10,leaf=eval", 1, 0, 6, 6),
    ("sorry_v0", {"num_players": 2}, "mcts:sims=12,rollout=heuristic,depth=6", 2, 1, 6, 4),
    ("sorry_v0", {"num_players": 4}, "mcts:sims=8", 3, 2, 9, 3),
    ("gangsi_v0", {"num_hunters": 3}, "mcts:sims=20,depth=10,leaf=eval", 4, 3, 9, 6),
    ("gangsi_v0", {"num_hunters": 3}, "mcts:sims=15,depth=5", 5, 4, 13, 4),
    ("lost_city_v0", {"num_players": 4}, "mcts:sims=25,c=0.5,depth=8,leaf=eval", 6, 5, 5, 6),
    ("lost_city_v0", {"num_players": 3}, "mcts:sims=10,rollout=heuristic,depth=4,leaf=eval", 7, 6, 5, 4),
    ("neighborhood_v0", {"num_players": 4}, "mcts:sims=50", 8, 7, 3, 5),
    ("neighborhood_v0", {"num_players": 3}, "mcts:sims=6,rollout=heuristic:depth=1", 9, 8, 3, 3),
    ("neighborhood_v0", {"num_players": 4}, "mcts:sims=15,depth=0,leaf=eval", 10, 9, 2, 6),
]

#: (game, options, one spec per seat, seed): whole games, chance drawn from ``default_rng(seed)``.
GAME_CASES = [
    ("neighborhood_v0", {"num_players": 3}, ["mcts:sims=20", "mcts:sims=10,depth=4,leaf=eval",
                                            "mcts:sims=6,rollout=heuristic:depth=1,depth=3"], 11),
    ("lost_city_v0", {"num_players": 2}, ["mcts:sims=10,depth=6,leaf=eval", "mcts:sims=8,depth=4"], 12),
]  # fmt: skip

DECISIONS = {
    0: ("29/1 0/10 2/7 0/7 2/8 45/1"),
    1: ("0/2 0/6 0/4 0/4"),
    2: ("0/6 0/6 0/6"),
    3: ("7/5 1/10 4/7 0/7 2/5 2/7"),
    4: ("2/4 1/8 8/5 1/5"),
    5: ("63/4 13/7 4/2 6/2 6/3 17/4"),
    6: ("63/2 12/2 8/2 2/1"),
    7: ("228/25 246/15 226/25 231/11 228/17"),
    8: ("231/2 228/1 230/2"),
    9: ("243/8 225/2 225/3 225/3 227/3 240/5"),
}

GAMES = {
    0: (
        "232 231 231 229 226 232 225 226 242 227 246 232 229 229 246 239 225 227 226 226 229 232 230 225 "
        "229 227 225 227 229 230 225 225 238 238 242 232 231 231 228 226 227 232 230 231 226 225 246 229 "
        "230 225 225 231 229 227 230 232 229 230 228 226 225 231 232 245 227 226 227 227 232 228 226 227 "
        "246 242 244 229 239 231 246 231 229 231 225 228 228 230 227 242 226 226 229 229 78 226 228 227 "
        "227 225 227 228 246 231 225 226 227 228 231 230 225 243 231 228 246 226 228 226 228 225 230 231 "
        "231 226 229 227 229 242 225 246 229 229 246 237 225 226 227 246 229 231 228 226 232 230 227 226 "
        "246 90 229 232 231 246 231 246 230 233 242 227 232 231 246 242 228 225 228 226 225 226 232 227 "
        "230 227 230 246 226 226 246 231 226 231 232 228 228 230 225 243"
    ),
    1: (
        "65 67 22 6 2 6 13 7 11 6 23 18 1 6 24 6 2 17 10 11 22 16 2 6 24 12 5 12 7 18 19 6 6 18 11 6 19 7 "
        "7 11 11 7 12 6 12 13 11 12 12 12 13 17 13 6 13 12 10 16 11 6 19 12 25 7 8 25 12 6 25 21 25 7 25 "
        "11 25 8 25 9 25 11 25 21 12 25 2 25 13 25 60 6 25 18 25 17 7 25 8 62 13 62 19 25 12 25 11 25 11 "
        "25 6 62 13 54 31"
    ),
}


def decide_all(case: int) -> str:
    """One policy of :data:`DECISION_CASES` ``[case]`` searching its positions in turn."""
    game_name, options, spec, seed, positions, every, limit = DECISION_CASES[case]
    policy = make_policy(spec, game_name, seed=seed, game_options=options)
    out = []
    for state in decision_states(game_name, positions, every, limit, **options):
        action = policy.act(state)
        out.append(f"{action}/{policy.last_search['visits'][action]}")
    return " ".join(out)


def play_all(case: int) -> str:
    """Every decision of the game of :data:`GAME_CASES` ``[case]``."""
    game_name, options, specs, seed = GAME_CASES[case]
    policies = [
        make_policy(spec, game_name, seed=seed * 10 + k, game_options=options) for k, spec in enumerate(specs)
    ]
    state = make_game(game_name, **options).new_initial_state()
    rng = np.random.default_rng(seed)
    actions = []
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        action = policies[player].act(state)
        actions.append(str(action))
        state.apply_action(action)
    return " ".join(actions)


@pytest.mark.parametrize("case", range(len(DECISION_CASES)))
def test_todays_specs_search_positions_as_before(case):
    assert decide_all(case) == DECISIONS[case]


@pytest.mark.parametrize("case", range(len(GAME_CASES)))
def test_todays_specs_play_whole_games_as_before(case):
    assert play_all(case) == GAMES[case]


if __name__ == "__main__":
    import textwrap

    for title, cases, run in (("DECISIONS", DECISION_CASES, decide_all), ("GAMES", GAME_CASES, play_all)):
        print(f"{title} = {{")
        for k in range(len(cases)):
            lines = textwrap.wrap(run(k), 96, break_on_hyphens=False) or [""]
            print(f"    {k}: (")
            for i, line in enumerate(lines):
                print(f'        "{line}{" " if i < len(lines) - 1 else ""}"')
            print("    ),", flush=True)
        print("}\n")
