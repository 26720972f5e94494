"""The benchmark's fixed, versioned suite: its tasks, budget, evaluation points and opponent pools.

A task is one env version with fixed options (``sorry_v0`` with four players, ...), the learner's
seat drawn per episode, the other seats played by the suite's opponents. :data:`SUITE_VERSION` names
the suite; results carry it, and results of two versions are never compared.

**The versioning rule** (PettingZoo's): a change that alters play or what an agent observes (a rules
fix, an observation feature, a new default) bumps the env's ``_vN``, and with it the suite version.
:data:`PLAYTHROUGH_SHA256` holds the digests of the golden playthroughs (``tests/playthroughs/``) of
the envs this version was measured on; ``tests/bench/test_suite.py`` fails when one changes, so a
change of play cannot slip under the published results unnoticed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: The suite's name and version; bumped with any env version, task, budget or protocol change.
SUITE_VERSION = "boardenvs-bench-v1"

#: Environment steps of the learner per run (its own decisions; opponents' moves and the imitation
#: warm start's demonstration games are not counted). Why 100,000: the grid of one algorithm (6 tasks
#: x 5 seeds) runs in about an hour on a two-core laptop, so a new algorithm is compared in an
#: afternoon; it is where the baselines separate (PPO with the warm start against PPO from scratch)
#: and far from the 2,000,000 steps of the shipped models, which is the point: a sample-efficiency
#: benchmark, not a test of who trains longest.
BUDGET = 100_000

#: Evaluations during training: at the first rollout boundary at or past every multiple of this, and at
#: the end (and at step 0 for an algorithm that starts with a warm start).
EVAL_EVERY = 25_000

#: Games per pool at each evaluation during training (rounded up to a multiple of the seats).
EVAL_GAMES = 100

#: The final evaluation's games per pool (the scores use the heuristic pool's).
FINAL_GAMES = {"heuristic": 400, "random": 100}

#: First seed of the evaluation games: every run of every algorithm meets the same games.
EVAL_SEED = 7_000_000
#: First seed of the final evaluation's games (other games than during training).
FINAL_SEED = 8_000_000

#: The opponent pools: every other seat played by this agent.
POOLS = ("random", "heuristic")

#: Seeds of a grid by default.
SEEDS = (0, 1, 2, 3, 4)

#: The env digests this suite version was measured on: SHA-256 of ``tests/playthroughs/<env>.txt``.
PLAYTHROUGH_SHA256 = {
    "sorry_v0": "29733574dbad2ea4b15986aca7ec454e6babf62be629dadf5f80e43e3df05df8",
    "gangsi_v0": "195cea1b1c4303192891a414b5bc06796feb155e23f2cbe43ef6d7b05c52f352",
    "lost_city_v0": "534cf1b3cd7960cf3c012996e9c9754a04022f7908cdfca2d73b551f2d766214",
    "neighborhood_v0": "3bd6f1baad804e5bb4685eac0242b532f4830d1c2d19cf8217109312d0960f23",
}


@dataclass(frozen=True)
class Protocol:
    """The budget and evaluation of every run; :data:`STANDARD` is the suite's, the only one whose results
    are comparable with the published ones (a smaller one serves tests and trials)."""

    #: Environment steps of the learner per run.
    budget: int = BUDGET
    #: Steps between evaluations during training.
    eval_every: int = EVAL_EVERY
    #: Games per pool at each evaluation during training.
    eval_games: int = EVAL_GAMES
    #: The final evaluation's games per pool.
    final_games: tuple[tuple[str, int], ...] = tuple(FINAL_GAMES.items())
    #: First seed of the evaluation games during training.
    eval_seed: int = EVAL_SEED
    #: First seed of the final evaluation's games.
    final_seed: int = FINAL_SEED

    def __post_init__(self) -> None:
        if self.budget < 1 or self.eval_every < 0 or self.eval_games < 1:
            raise ValueError("a protocol's budget and eval_games must be at least 1, eval_every at least 0")
        if {pool for pool, _ in self.final_games} != set(POOLS) or min(n for _, n in self.final_games) < 1:
            raise ValueError(f"the final evaluation plays every pool {POOLS} at least once")

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-able dict (the results' record of it)."""
        data = asdict(self)
        data["final_games"] = dict(self.final_games)
        return data


#: The suite's protocol.
STANDARD = Protocol()


@dataclass(frozen=True)
class Task:
    """One task of the suite: an env version, its options, and the role of each seat."""

    #: The task's name in results (``sorry_v0_4p``).
    name: str
    #: The env (with its version).
    game: str
    #: Its options (the env's defaults for the rest).
    options: dict[str, Any] = field(default_factory=dict)
    #: The role of each seat, where the game has roles (Gangsi: seat 0 the Kyonshi); empty: one role.
    seat_roles: tuple[str, ...] = ()

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return int(self.options["num_players"])

    def role_of(self, seat: int) -> str:
        """The role of ``seat`` (``player`` in a game without roles)."""
        return self.seat_roles[seat] if self.seat_roles else "player"

    @property
    def roles(self) -> tuple[str, ...]:
        """The task's roles, in seat order, each once."""
        return tuple(dict.fromkeys(self.role_of(s) for s in range(self.num_players)))

    @property
    def even_share(self) -> float:
        """The win rate of a player as strong as its opponents, seats rotated: 1 / seats."""
        return 1.0 / self.num_players


#: The suite, in report order.
TASKS: tuple[Task, ...] = (
    Task("sorry_v0_4p", "sorry_v0", {"num_players": 4}),
    Task("sorry_v0_2p", "sorry_v0", {"num_players": 2}),
    Task("gangsi_v0_3h", "gangsi_v0", {"num_players": 4}, ("kyonshi", "hunter", "hunter", "hunter")),
    Task("lost_city_v0_4p", "lost_city_v0", {"num_players": 4}),
    Task("lost_city_v0_2p", "lost_city_v0", {"num_players": 2}),
    Task("neighborhood_v0_4p", "neighborhood_v0", {"num_players": 4}),
)


def get_task(name: str) -> Task:
    """The task called ``name``.

    Raises:
        ValueError: naming the suite's tasks, for any other name.
    """
    for task in TASKS:
        if task.name == name:
            return task
    raise ValueError(f"unknown task {name!r}; the suite {SUITE_VERSION} has {[t.name for t in TASKS]}")
