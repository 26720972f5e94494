"""``champion``: the strongest agent the project ships for a game, at most 100 ms a decision.

The champion of a game is the first spec of its recipe, the ``champion`` of the game's record
(:class:`~boardenvs_agents.games.record.GameRecord`, ``agents/games/<game>.py``), that can be built
for the options asked (a learned base needs a shipped model trained for them; otherwise the next spec
is taken). Each recipe was chosen by the measurements in ``docs/learning.md`` ("The champion on a
simulation budget", "One ply of expectimax on the value", "The first champion on a count budget"),
with the commands there: four-player Sorry!'s paired rollouts on the shipped network, two-player
Sorry!'s one ply of expectimax over the expert-iteration network with the opponent's reply played as
the heuristic's, the others their shipped network alone or the heuristic, where no search measured
beat it. A search's budget is a count (simulations, rollouts, moves and chance outcomes), never
seconds, so the champion's moves follow from its seed alone, whatever the machine's load. Options
given to ``champion`` (``champion:top=4``, ``champion:samples=2``) are passed to the spec's search (an
``mcts:``, ``rollouts:`` or ``expectimax:`` spec; a spec without search takes none).
"""

from __future__ import annotations

from typing import Any

from boardenvs_agents.base import Policy
from boardenvs_agents.games import require
from boardenvs_agents.registry import make_policy

#: The spec prefixes of the searches a champion's options go to.
SEARCHES = ("mcts:", "rollouts:", "expectimax:")


def make_champion(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **options: Any
) -> Policy:
    """The factory of ``champion`` (any game; entry point ``boardenvs_agents.agents``): the first spec
    of the game's recipe (its record's ``champion``) that builds for ``game_options``, named
    ``champion``; ``options`` go to its search (``sims``, ``seconds``, ``top``, ...). Its spec is kept
    in ``policy.spec``.

    Raises:
        ValueError: for a game without a champion (``MissingRecordError``), or when no spec builds.
    """
    recipe = require(game_name, "champion", "the champion")
    errors = []
    for recipe_spec in recipe:
        try:
            policy = make_policy(recipe_spec, game_name, seed=seed, game_options=game_options)
        except (ValueError, FileNotFoundError) as err:
            errors.append(f"{recipe_spec}: {err}")  # no model for these options: the next spec
            continue
        spec = recipe_spec
        if options:  # the spec that applies, with the caller's options (a bad one is the caller's)
            if not recipe_spec.startswith(SEARCHES):
                raise ValueError(
                    f"the champion of {game_name} with {game_options} is {recipe_spec!r}, which takes no "
                    f"search options (got {sorted(options)})"
                )
            spec = with_options(recipe_spec, options)
            policy = make_policy(spec, game_name, seed=seed, game_options=game_options)
        policy.name = "champion"
        policy.spec = spec
        return policy
    raise ValueError(f"no champion builds for {game_name} with {game_options}: " + "; ".join(errors))


def with_options(spec: str, options: dict[str, Any]) -> str:
    """``spec`` with ``options`` set: each replaces the spec's own option of that key, or is added
    (``with_options("mcts:sims=16,c=1", {"sims": 32})`` is ``"mcts:c=1,sims=32"``)."""
    if not options:
        return spec
    name, _, rest = spec.partition(":")
    items = [item for item in rest.split(",") if item and item.partition("=")[0].strip() not in options]
    items += [f"{key}={value}" for key, value in options.items()]
    return f"{name}:{','.join(items)}"
