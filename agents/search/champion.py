"""``champion``: the strongest agent the project ships for a game, at most 100 ms a decision.

The champion of a game is the first spec of its recipe, the ``champion`` of the game's record
(:class:`~boardenvs_agents.games.record.GameRecord`, ``agents/games/<game>.py``), that can be built
for the options asked (a learned base needs a shipped model trained for them; otherwise the next spec
is taken). Each recipe was chosen by the measurements in ``docs/learning.md`` ("The champion"), with
the commands there. Options given to ``champion`` (``champion:seconds=0.05``) are passed to the spec's
search.
"""

from __future__ import annotations

from typing import Any

from boardenvs_agents.base import Policy
from boardenvs_agents.games import require
from boardenvs_agents.registry import make_policy


def make_champion(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **options: Any
) -> Policy:
    """The factory of ``champion`` (any game; entry point ``boardenvs_agents.agents``): the first spec
    of the game's recipe (its record's ``champion``) that builds for ``game_options``, named
    ``champion``; ``options`` go to its search (``seconds``, ``top``, ...). Its spec is kept in
    ``policy.spec``.

    Raises:
        ValueError: for a game without a champion (``MissingRecordError``), or when no spec builds.
    """
    recipe = require(game_name, "champion", "the champion")
    extra = "".join(f",{key}={value}" for key, value in options.items())
    errors = []
    for spec in recipe:
        if extra and not spec.startswith("rollouts:"):
            raise ValueError(
                f"the champion of {game_name} with {game_options} is {spec!r}, which takes no search "
                f"options (got {sorted(options)})"
            )
        try:
            policy = make_policy(spec + extra, game_name, seed=seed, game_options=game_options)
        except (ValueError, FileNotFoundError) as err:
            if extra and str(err).startswith("rollouts:"):
                raise  # a bad option of the caller's, not a missing model
            errors.append(f"{spec}: {err}")
            continue
        policy.name = "champion"
        policy.spec = spec + extra
        return policy
    raise ValueError(f"no champion builds for {game_name} with {game_options}: " + "; ".join(errors))
