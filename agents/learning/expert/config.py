"""What a self-play run of expert iteration plays: :class:`SelfPlayConfig` (a section of a YAML config,
checked with :func:`~boardenvs.core.options.make_options`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from boardenvs.core.options import make_options, options_to_dict

#: Where the games are played: this process, a pool of local processes, or Ray actors.
BACKENDS = ("local", "process", "ray")

#: The opponent kind that is the searching network itself (its seat's decisions are examples).
SELF = "self"

#: The searches a searching seat may play: ``mcts`` (an
#: :class:`~boardenvs_agents.search.mcts.MCTSPolicy` with the network as its evaluator) or ``rollouts``
#: (a :class:`~boardenvs_agents.search.rollouts.RolloutPolicy` with the network as its base policy).
SEARCHERS = ("mcts", "rollouts")

#: Search options that are not the config's to set, per searcher: the network is the evaluator (the
#: base policy), and a budget in seconds would make the data depend on the machine's load.
FORBIDDEN_SEARCH_OPTIONS = {
    "mcts": ("evaluator", "rollout", "depth", "leaf", "seconds"),
    "rollouts": ("policy", "seconds"),
}

#: The option that sets each searcher's budget, a count (required for ``rollouts``, whose own default
#: budget is in seconds).
BUDGET_OPTION = {"mcts": "sims", "rollouts": "rounds"}


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play games of a network with search, the data of one iteration of expert iteration.

    Every key but ``game`` has a default. Which seats search: every seat of ``search_seats`` (``None``:
    one seat per game, drawn uniformly), and every other seat that draws ``"self"`` from
    ``opponents``; the others play the fixed agent they draw (any agent spec: ``heuristic``,
    ``random``, ``ppo:runs/x/iter_3.zip`` for a past network, ...). Draws are made per game from its
    seed (:mod:`boardenvs_agents.learning.expert`), so a game's seating does not depend on the workers.
    """

    #: Registered env name.
    game: str = ""
    #: The game's options (``num_players`` and any other).
    game_options: dict[str, Any] = field(default_factory=dict)
    #: Games to play.
    games: int = 100
    #: The run's seed: game ``g`` is played with ``derive_seeds(seed, games)[g]``.
    seed: int = 0
    #: Options of the search: for ``mcts``, :class:`~boardenvs_agents.search.mcts.MCTSPolicy`'s
    #: (``sims``, ``c``, ``selection``, ...), its evaluator being the network; for ``rollouts``,
    #: :func:`~boardenvs_agents.search.rollouts.rollouts_over`'s (``rounds``, ``opponents``, ``depth``,
    #: ``leaf``, ``top``, ``z``, ``first``, ...), its base policy being the network. A budget in
    #: simulations or rounds, never seconds.
    search: dict[str, Any] = field(default_factory=lambda: {"sims": 16})
    #: The search of the searching seats (:data:`SEARCHERS`). An MCTS's target is its visit
    #: distribution (or Gumbel's improved policy); the rollouts' is the move they choose.
    searcher: Literal["mcts", "rollouts"] = "mcts"
    #: Seats that always search (``None``: one per game, drawn from the game's seed).
    search_seats: tuple[int, ...] | None = None
    #: Weights of what every other seat plays: ``"self"`` (it searches too) or an agent spec.
    opponents: dict[str, float] = field(default_factory=lambda: {SELF: 1.0})
    #: A searching seat's first ``temperature_moves`` decisions (with a choice) are drawn from the
    #: root visit counts raised to ``1 / temperature`` (AlphaZero's exploration); later ones, and
    #: all of them with 0, are the search's own choice (its most visited action).
    temperature_moves: int = 0
    #: See ``temperature_moves``.
    temperature: float = 1.0
    #: Record decisions with a single legal action too (no search is run for them: their target is
    #: that action); by default they are not examples.
    record_forced: bool = False
    #: Games per chunk file of a run written to disk (a killed run loses at most the unfinished chunks).
    chunk_games: int = 16
    #: Processes or actors that play the games (``local``: 1).
    workers: int = 1
    #: ``local`` (this process), ``process`` (a pool of local processes) or ``ray`` (Ray actors).
    backend: Literal["local", "process", "ray"] = "local"

    def __post_init__(self) -> None:
        if not self.game:
            raise ValueError("'game' is required")
        for name in ("games", "chunk_games", "workers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.backend == "local" and self.workers != 1:
            raise ValueError(
                f"backend 'local' plays in this process: workers must be 1, got {self.workers} "
                "(use backend 'process' or 'ray')"
            )
        weights = self.opponents
        if not weights or any(not isinstance(w, (int, float)) or w < 0 for w in weights.values()):
            raise ValueError(f"opponents must map kinds to non-negative weights, got {dict(weights)}")
        if sum(weights.values()) <= 0:
            raise ValueError(f"opponent weights must have a positive sum, got {dict(weights)}")
        if self.searcher not in SEARCHERS:
            raise ValueError(f"searcher must be one of {SEARCHERS}, got {self.searcher!r}")
        budget = BUDGET_OPTION[self.searcher]
        bad = sorted(set(self.search) & set(FORBIDDEN_SEARCH_OPTIONS[self.searcher]))
        if bad:
            raise ValueError(
                f"search option {bad[0]!r} is not for self-play: the network is the search's evaluator "
                f"(its base policy), and the budget is a number ({budget}), so that the data do not "
                "depend on the machine"
            )
        if self.searcher == "rollouts" and budget not in self.search:
            raise ValueError(f"searcher 'rollouts' needs search.{budget}, its budget (rounds per candidate)")
        if self.searcher == "rollouts" and self.temperature_moves:
            raise ValueError(
                "temperature_moves draws from an MCTS's visit counts: the rollouts have none (set it to 0)"
            )
        seats = self.search_seats
        if seats is not None and (not seats or len(set(seats)) != len(seats) or min(seats) < 0):
            raise ValueError(f"search_seats must be distinct seats >= 0 (or null), got {seats!r}")
        if isinstance(self.temperature_moves, bool) or self.temperature_moves < 0:
            raise ValueError(
                f"temperature_moves must be a non-negative integer, got {self.temperature_moves!r}"
            )
        if not self.temperature > 0:
            raise ValueError(f"temperature must be positive, got {self.temperature!r}")

    @classmethod
    def from_dict(cls, raw: dict[str, Any], where: str = "") -> SelfPlayConfig:
        """The config of a mapping (a YAML section), keys and types checked.

        Raises:
            boardenvs.core.options.OptionError: naming the key.
        """
        return make_options(cls, raw, where=where)

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML-able dict."""
        return options_to_dict(self)

    def data_dict(self) -> dict[str, Any]:
        """What the examples depend on: :meth:`to_dict` without ``workers`` and ``backend`` (which change
        where the games are played, not what they are)."""
        return {k: v for k, v in self.to_dict().items() if k not in ("workers", "backend")}
