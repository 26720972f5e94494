"""Where self-play games are played: this process, a pool of local processes, or Ray actors.

Every backend holds one :class:`~boardenvs_agents.learning.expert.games.GamePlayer` per worker, built
once from the config and the network's numpy weights, and asks it for games by index; a game is a
function of its index alone (its seed, its seating, its seats' seeds), so the examples are the same
whatever the backend and the number of workers. :func:`play_games` yields them as they finish (in
any order; the caller puts them in order).

* ``local``: the games one after the other in this process.
* ``process``: a :class:`~concurrent.futures.ProcessPoolExecutor`, as the arena runs its workers
  (:mod:`boardenvs_agents.arena.runner`: forked on Linux, started clean once torch is loaded; one math
  thread each; a few games per worker in flight; the workers stopped at once on Ctrl-C or an error,
  and exiting if this process dies).
* ``ray``: ``workers`` Ray actors (``ray.remote``, one CPU each), the network put once in Ray's object
  store. Ray is imported only here (the ``rllib`` extra: ``pip install -e ".[rllib]"``). A Ray already
  started or joined in this process (``ray.init(address=...)``, with ``runtime_env={"py_modules":
  stage_packages(...)}`` from :mod:`boardenvs_agents.rllib.cluster` for a cluster whose nodes do not
  have the packages installed) is used as it is and left running; otherwise a local Ray of
  ``workers`` CPUs is started for the call and shut down after it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from typing import Any

from boardenvs_agents.arena.runner import prepare_worker, run_in_workers
from boardenvs_agents.cli import extra_message
from boardenvs_agents.learning.evaluator import NetworkEvaluator
from boardenvs_agents.learning.expert.config import SelfPlayConfig
from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.expert.games import GamePlayer

#: Games kept in flight per worker (a killed run loses at most these).
IN_FLIGHT = 2


def play_games(
    config: SelfPlayConfig,
    evaluator: NetworkEvaluator,
    indices: Sequence[int],
    player: GamePlayer | None = None,
) -> Iterator[tuple[int, Dataset]]:
    """Play the games ``indices`` of ``config`` on its backend; ``(index, examples)`` as each finishes.

    ``evaluator`` is the network (:func:`~boardenvs_agents.learning.expert.games.frozen_evaluator`);
    ``player``, a :class:`GamePlayer` of the same config and network already built in this process,
    plays the ``local`` backend's games.

    Raises:
        ImportError: for backend ``ray`` without Ray installed (one line naming the ``rllib`` extra).
    """
    if not indices:
        return
    if config.backend == "local":
        player = player if player is not None else GamePlayer(config, evaluator)
        for index in indices:
            yield index, player.play(index)
    elif config.backend == "process":
        yield from _process_games(config, evaluator, indices)
    else:
        yield from _ray_games(config, evaluator, indices)


# -- local processes --------------------------------------------------------------------------------
_WORKER: dict[str, GamePlayer] = {}


def _init_worker(config: SelfPlayConfig, evaluator: NetworkEvaluator, parent: int) -> None:
    """Build the worker's game player once (after the arena's :func:`prepare_worker`)."""
    prepare_worker(parent)
    _WORKER["player"] = GamePlayer(config, evaluator)


def _play_in_worker(index: int) -> tuple[int, Dataset]:
    return index, _WORKER["player"].play(index)


def _process_games(
    config: SelfPlayConfig, evaluator: NetworkEvaluator, indices: Sequence[int]
) -> Iterator[tuple[int, Dataset]]:
    initargs = (config, evaluator, os.getpid())
    yield from run_in_workers(_play_in_worker, indices, config.workers, _init_worker, initargs, IN_FLIGHT)


# -- Ray actors -------------------------------------------------------------------------------------
def _import_ray() -> Any:
    """The ``ray`` module, or one line naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"self-play backend 'ray': {extra_message('rllib', 'ray')}") from None
    return ray


def _ray_games(
    config: SelfPlayConfig, evaluator: NetworkEvaluator, indices: Sequence[int]
) -> Iterator[tuple[int, Dataset]]:
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=config.workers, include_dashboard=False, log_to_driver=False)
    actors: list[Any] = []
    try:
        worker_class = ray.remote(num_cpus=1)(GamePlayer)
        network = ray.put(evaluator)
        actors = [worker_class.remote(config, network) for _ in range(min(config.workers, len(indices)))]
        queue = iter(indices)
        pending: dict[Any, tuple[Any, int]] = {}  # object ref -> (actor, game index)

        def submit(actor: Any) -> None:
            for index in itertools.islice(queue, 1):
                pending[actor.play.remote(index)] = (actor, index)

        for actor in actors:
            for _ in range(IN_FLIGHT):
                submit(actor)
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            actor, index = pending.pop(ready[0])
            yield index, ray.get(ready[0])
            submit(actor)
    finally:
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()
