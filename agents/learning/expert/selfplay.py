"""Expert iteration's self-play data: :func:`generate` plays a config's games with the network and
search, and returns their examples (:mod:`boardenvs_agents.learning.expert` says what they are)."""

from __future__ import annotations

from pathlib import Path

from boardenvs.core.loop import SEEDING
from boardenvs.registry import make_game
from boardenvs_agents.cli import progress_bar
from boardenvs_agents.learning.expert.chunks import ChunkStore, chunk_ranges
from boardenvs_agents.learning.expert.config import SelfPlayConfig
from boardenvs_agents.learning.expert.dataset import Dataset
from boardenvs_agents.learning.expert.games import GamePlayer, NetworkSource, frozen_evaluator, network_key
from boardenvs_agents.learning.expert.workers import play_games


def generate(
    config: SelfPlayConfig, network: NetworkSource, out: str | Path | None = None, progress: bool = False
) -> Dataset:
    """Play the ``config.games`` games of ``config`` and return their examples, game by game in index
    order (within a game, in the order of its decisions).

    Args:
        config: what to play, and where (``backend``, ``workers``).
        network: the policy-value network the searching seats search with: a learned spec
            (``ppo:sorry_v0``), a saved model's path, a
            :class:`~boardenvs_agents.learning.models.LearnedPolicy` or a
            :class:`~boardenvs_agents.learning.evaluator.NetworkEvaluator`. Its numpy weights are
            what the workers get (:func:`~boardenvs_agents.learning.expert.games.frozen_evaluator`).
        out: a folder to write the run to, chunk by chunk (:mod:`~boardenvs_agents.learning.expert.chunks`);
            a run started again with the same folder, config and network reads the chunks there and
            plays only the others, ending with the same examples. ``None``: nothing is written.
        progress: show a progress bar over the games on standard error.

    Raises:
        ValueError: for a config that names a game, seat, search option or opponent wrongly, a network
            of another game or without a numpy policy-value network, or a folder of another run.
        ImportError: for backend ``ray`` without Ray (naming the ``rllib`` extra).
    """
    game = make_game(config.game, **config.game_options)
    evaluator = frozen_evaluator(network, game)
    player = GamePlayer(config, evaluator)  # checks the config here, before any worker starts
    chunks = chunk_ranges(config.games, config.chunk_games)
    store = None
    if out is not None:
        manifest = {"config": config.data_dict(), "network": network_key(evaluator), "seeding": SEEDING}
        store = ChunkStore(out, manifest)
    done = store.done(len(chunks)) if store is not None else {}
    todo = [index for c, games in enumerate(chunks) if c not in done for index in games]
    bar = (
        progress_bar(config.games, f"self-play {config.game}", config.games - len(todo)) if progress else None
    )
    waiting: dict[int, dict[int, Dataset]] = {}  # chunk -> its games played so far
    try:
        for index, examples in play_games(config, player.evaluator, todo, player):
            chunk = index // config.chunk_games
            games = waiting.setdefault(chunk, {})
            games[index] = examples
            if len(games) == len(chunks[chunk]):
                done[chunk] = Dataset.concatenate([games[i] for i in chunks[chunk]])
                del waiting[chunk]
                if store is not None:
                    store.write(chunk, done[chunk])
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return Dataset.concatenate([done[c] for c in range(len(chunks))])
