"""The single-agent Gymnasium view with opponents from the agents package, as training builds it.

:func:`make_single_agent_env` turns agent specs (``"heuristic"``, ``"mcts:sims=50"``,
``"ppo:sorry_v0"``, anything :func:`~boardenvs_agents.registry.make_policy` knows) into policies for
the game's options, then hands them to :class:`boardenvs.wrappers.SingleAgentEnv`, which takes policies
and samplers only and never imports this package. Needs nothing beyond the agents' own dependencies
unless a learned agent is named (then the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.registry import make_game
from boardenvs.wrappers.single_agent import SingleAgentEnv
from boardenvs_agents.registry import make_policy


def make_single_agent_env(
    game: str | Game,
    opponents: Any = "heuristic",
    *,
    learner_seat: int | None = None,
    mask_in_observation: bool = False,
    illegal_action: str = "lose",
    render_mode: str | None = None,
    seed: int | None = None,
    **game_options: Any,
) -> SingleAgentEnv:
    """The game from one learner seat, every other seat played by ``opponents``.

    Args:
        game: an env name (``"sorry_v0"``, its options as keywords) or a :class:`Game`.
        opponents: an agent spec for every other seat, a policy, a list of specs or policies (one per
            other seat, the learner's skipped), or an opponent sampler ``sampler(rng, seats)`` (e.g. a
            :class:`~boardenvs_agents.learning.selfplay.OpponentPool`), passed on as it is.
        learner_seat: fix the learner's seat (``None``: drawn by the env's generator every reset).
        mask_in_observation: observations become ``{"observation", "action_mask"}`` dicts.
        illegal_action: ``"lose"`` (the episode ends with -1, ``info["illegal_action"] = True``) or
            ``"raise"`` (for training whose masks must never let an illegal action through).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``.
        seed: seed of the opponents' generators until the env's first reset reseeds them.
        **game_options: the game's options when ``game`` is a name.

    Raises:
        ValueError: for an unknown spec or options a policy or the game does not take.
        ImportError: for a learned agent without the ``train`` extra (it says what to install).
    """
    if isinstance(game, str):
        game = make_game(game, **game_options)
    elif game_options:
        raise ValueError("give game options either to the Game or as keywords with a game name, not both")
    options = options_to_dict(game.options)

    def resolve(spec: Any) -> Any:
        if isinstance(spec, str):
            return make_policy(spec, game.name, seed=seed, game_options=options)
        return spec

    if isinstance(opponents, str):
        opponents = resolve(opponents)
    elif isinstance(opponents, Sequence):
        opponents = [resolve(spec) for spec in opponents]
    return SingleAgentEnv(
        game,
        opponents=opponents,
        learner_seat=learner_seat,
        mask_in_observation=mask_in_observation,
        illegal_action=illegal_action,
        render_mode=render_mode,
    )
