"""``champion``: the strongest agent the project ships for a game, at most 100 ms a decision.

The champion of a game is the first spec of :data:`CHAMPIONS` that can be built for the options asked
(a learned base needs a shipped model trained for them; otherwise the next spec is taken). Each entry
was chosen by the measurements in ``docs/learning.md`` ("The champion"), with the commands there.
Options given to ``champion`` (``champion:seconds=0.05``) are passed to the spec's search.
"""

from __future__ import annotations

from typing import Any

from boardenvs_agents.base import Policy

#: A learned base improved by paired rollouts scored by its value head four decisions on (measured best
#: of the settings tried, docs/learning.md).
_SEARCH = "rollouts:policy=ppo:{game},opponents=heuristic,depth=4,leaf=value"

#: Per game, the champion's specs in order of preference (see the module docstring). Where no learned
#: model ships for the options asked, the heuristic is the strongest agent there is: rollouts of the
#: heuristic itself did not beat it (0.51 of 100 two-player Lost City games), and Neighborhood's
#: heuristic already searches two plies.
CHAMPIONS: dict[str, tuple[str, ...]] = {
    "sorry_v0": (_SEARCH.format(game="sorry_v0"), "heuristic"),
    "gangsi_v0": (_SEARCH.format(game="gangsi_v0"), "heuristic"),
    "lost_city_v0": (_SEARCH.format(game="lost_city_v0"), "heuristic"),
    "neighborhood_v0": ("heuristic",),
}


def make_champion(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **options: Any
) -> Policy:
    """The registry's factory for ``champion`` (any game): the first spec of :data:`CHAMPIONS` that
    builds for ``game_options``, named ``champion``; ``options`` go to its search (``seconds``,
    ``top``, ...). Its spec is kept in ``policy.spec``.

    Raises:
        ValueError: for a game without a champion, or when no spec builds.
    """
    from boardenvs_agents.registry import make_policy

    if game_name not in CHAMPIONS:
        raise ValueError(f"no champion for {game_name!r}; games with one: {sorted(CHAMPIONS)}")
    extra = "".join(f",{key}={value}" for key, value in options.items())
    errors = []
    for spec in CHAMPIONS[game_name]:
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
