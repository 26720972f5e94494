"""Expert iteration (issue 29), its self-play data: games of a policy-value network with search, whose
decisions become training examples for the network.

``generate(config, network)`` (:func:`.selfplay.generate`) plays ``config.games`` games of
:class:`.config.SelfPlayConfig` through the core loop (:func:`boardenvs.core.loop.play_game`). Seats
that *search* play :class:`~boardenvs_agents.search.mcts.MCTSPolicy` with the network as evaluator
(:class:`~boardenvs_agents.learning.evaluator.NetworkEvaluator`: its policy as prior, its value head
as leaf value, PUCT), with the config's ``search`` options (``sims``, ``c``, ...: a budget in
simulations, never seconds), or with ``searcher: rollouts`` paired rollouts over the network
(:class:`~boardenvs_agents.search.rollouts.RolloutPolicy`: the network proposes and plays the moves,
its value head scores the leaves; ``search`` holds the ``rollouts:`` spec's options, ``rounds`` the
budget); the other seats play fixed agents by spec (the heuristic, a past network, ...), drawn per
game from the config's ``opponents`` weights.

**An example** is one decision of a searching seat (decisions with a single legal action are left
out, unless ``record_forced``): the seat's observation exactly as the network encodes it
(:meth:`LearnedPolicy.encode <boardenvs_agents.learning.models.LearnedPolicy.encode>`: what the
network saw at the root), its legal-action mask, the search's target policy (the root visit counts
normalised, :func:`.games.search_policy`: 0 on illegal actions, summing to 1; for the rollouts, their
move alone), the seat, and once the game is over the seat's final return (the value target) and every
seat's (for a value head with one output per player). :class:`.dataset.Dataset` holds them as numpy
arrays, one row per example, with the game's index; ``save``/``load`` as ``.npz``,
:meth:`~.dataset.Dataset.concatenate`, and its size in memory (3.8 kB an example in four-player Sorry!).

**Moves**: a searching seat plays the search's choice (the most visited root action: it plays exactly
as ``mcts:evaluator=<network>`` would with its seed), except for its first ``temperature_moves``
decisions with a choice, drawn from the visit counts to the power ``1 / temperature`` with the
search's own generator (AlphaZero's exploration; off by default, since chance already varies the
games of these games). The target is the visit distribution either way.

**The network** the workers get is a :class:`NetworkEvaluator` of numpy weights only
(:func:`.games.frozen_evaluator`): the frozen copies of the policy and value heads
(:class:`~boardenvs_agents.learning.network.NumpyMLP`, about 2 MB for the shipped models) and the
learner view that encodes observations, without the Stable-Baselines3 model. Why not the model's
path: a worker would then import torch and Stable-Baselines3 and load the file (seconds, and a file
must exist for every iteration's network, on every node of a cluster), where the weights pickle
small, need numpy only, and score every row on its own (the same priors and values in any process,
alone or in a batch). ``generate`` takes a learned spec, a model file or a policy as well and freezes
it in the caller's process.

**Seeding**: game ``g`` of a run is played with seed ``derive_seeds(config.seed, config.games)[g]``
(:func:`boardenvs.core.loop.derive_seeds`; a longer run starts with the same games), under the core
loop's scheme (``loop/1``: chance from child 0 of the seed, seat ``p``'s policy reset with child
``1 + p``); which seats search and what the others play is drawn with child ``num_players + 1``
(:func:`.games.draw_lineup`). Every worker builds its own seats and resets them per game, so a game is
a function of its index alone: **the same examples, in the same order, whatever the backend and the
number of workers**.

**Backends** (:mod:`.workers`, ``config.backend``): ``local`` (this process), ``process`` (a pool of
``workers`` local processes, as the arena runs its workers), ``ray`` (``workers`` Ray actors,
``ray.remote``; Ray, from the ``rllib`` extra, imported only then; a Ray this process already started
or joined, e.g. a cluster, is used as it is).

**Stopping and resuming** (:mod:`.chunks`): with ``out=<folder>``, the games are written in chunks of
``chunk_games``, each file written atomically once its games are done, beside a manifest of what the
examples depend on (the config less workers and backend, the network's weights digest, the seeding
scheme). A run killed mid-way loses its unfinished chunks; started again with the same folder, config
and network, it reads the finished chunks, plays the others, and returns the same dataset as a run
never stopped. A folder of another run is refused.

**Learning and iterating**: :func:`.fit.fit` trains a MaskablePPO model's policy on the search's
targets (soft cross-entropy) and its value head on the final returns; :func:`.iterate.run_iterations`
runs the iterations of an :class:`.iterate.ExItConfig` (self-play, fit on a replay window, save the
model and a report, one folder per iteration), resumable after any stop.
"""

from boardenvs_agents.learning.expert.config import BACKENDS, SelfPlayConfig
from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.expert.fit import FitConfig, FitReport, fit
from boardenvs_agents.learning.expert.games import GamePlayer, frozen_evaluator, network_key, search_policy
from boardenvs_agents.learning.expert.iterate import ExItConfig, run_iterations
from boardenvs_agents.learning.expert.selfplay import generate

__all__ = [
    "BACKENDS",
    "Dataset",
    "ExItConfig",
    "FitConfig",
    "FitReport",
    "GamePlayer",
    "SelfPlayConfig",
    "fit",
    "frozen_evaluator",
    "generate",
    "network_key",
    "run_iterations",
    "search_policy",
]
