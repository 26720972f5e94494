"""The checks of docs/compatibility.md that CI does not run: run by hand, output quoted on the page.

    python docs/compat_check.py pettingzoo            # PettingZoo's performance_benchmark, every game
    python docs/compat_check.py rllib                 # RLlib's own PettingZooEnv (needs ray[rllib])
    python docs/compat_check.py rllib --no-train      # without the PPO iteration (no Ray cluster)

``rllib`` needs an environment with the ``rllib`` extra (``pip install -e ".[train,rllib]"``): ray pins
gymnasium 1.2.2, so CI's main environment does not have it. The libraries that install in under a
minute (SuperSuit, torchrl, Tianshou) are checked in CI by ``tests/compat/`` instead.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings
from collections.abc import Sequence

from pettingzoo.utils.env_logger import EnvLogger

import boardenvs


def check_pettingzoo(games: Sequence[str]) -> None:
    """PettingZoo's ``performance_benchmark`` (random legal moves for five seconds) on every game."""
    from pettingzoo.test import performance_benchmark

    for name in games:
        print(f"== {name}: performance_benchmark(boardenvs.make({name!r}))")
        performance_benchmark(boardenvs.make(name))


def play_unmasked(name: str, games: int, seed: int) -> tuple[int, float]:
    """Games through RLlib's ``PettingZooEnv`` with actions drawn from the action space, as a model that
    ignores the mask plays. Returns how many ended by an illegal action and the mean moves per game."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    illegal_endings, moves = 0, 0
    for game in range(games):
        aec = boardenvs.make(name)  # env(): an illegal action ends the game with -1 for the mover
        env = PettingZooEnv(aec)
        obs, _ = env.reset(seed=seed + game)
        for agent in env.possible_agents:
            env.action_space[agent].seed(seed + game)
        while True:
            agent = next(iter(obs))
            obs, _, terminateds, truncateds, _ = env.step({agent: env.action_space[agent].sample()})
            moves += 1
            if terminateds["__all__"] or truncateds["__all__"]:
                break
        illegal_endings += not aec.unwrapped.game_state.is_terminal()
    return illegal_endings, moves / games


def train_ppo_iterations(name: str, iterations: int, seed: int) -> None:
    """PPO on RLlib's own ``PettingZooEnv`` with ``FlattenObservations`` (without it PPO does not build
    for a ``Dict`` observation): prints episodes and their mean length per iteration."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    def make_env(config: dict) -> PettingZooEnv:
        EnvLogger.suppress_output()  # also where Ray builds the env
        return PettingZooEnv(boardenvs.make(name))

    register_env("rllib_own_pettingzoo_env", make_env)
    config = (
        PPOConfig()
        .environment("rllib_own_pettingzoo_env")
        .env_runners(
            num_env_runners=0,
            env_to_module_connector=lambda *args, **kwargs: FlattenObservations(multi_agent=True),
        )
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *args, **kwargs: "shared")
        .training(train_batch_size_per_learner=500, minibatch_size=100, num_epochs=1)
        .debugging(seed=seed)
    )
    ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        algo = config.build_algo()
        for iteration in range(iterations):
            result = algo.train()["env_runners"]
            print(
                f"  PPO iteration {iteration + 1}: {result.get('num_episodes')} episodes, "
                f"mean length {result.get('episode_len_mean', float('nan')):.2f} moves"
            )
        algo.stop()
    finally:
        ray.shutdown()


def check_rllib(games: Sequence[str], num_games: int, seed: int, train_game: str | None) -> None:
    """RLlib's own ``PettingZooEnv``: what a model that ignores the action mask meets."""
    import ray

    print(f"ray {ray.__version__}: RLlib's own PettingZooEnv, actions drawn without the mask")
    for name in games:
        illegal, moves = play_unmasked(name, num_games, seed)
        print(f"  {name}: {illegal}/{num_games} games ended by an illegal action, {moves:.1f} moves a game")
    if train_game is not None:
        start = time.perf_counter()
        print(f"PPO through FlattenObservations on {train_game} (the mask is only more input):")
        train_ppo_iterations(train_game, iterations=2, seed=seed)
        print(f"  ({time.perf_counter() - start:.0f} s)")


def main(argv: list[str] | None = None) -> None:
    """Run the checks named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["pettingzoo", "rllib"], nargs="+")
    parser.add_argument("--games", nargs="+", default=boardenvs.env_names(), choices=boardenvs.env_names())
    parser.add_argument("--num-games", type=int, default=20, help="rllib: games per env (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-train", action="store_true", help="rllib: skip the PPO iterations")
    parser.add_argument(
        "--train-game", default="sorry_v0", choices=boardenvs.env_names(),
        help="rllib: the game of the PPO iterations (one shared module: its agents need one space)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    EnvLogger.suppress_output()  # env()'s "Illegal move made" lines, one a game
    if "pettingzoo" in args.check:
        check_pettingzoo(args.games)
    if "rllib" in args.check:
        check_rllib(args.games, args.num_games, args.seed, None if args.no_train else args.train_game)


if __name__ == "__main__":
    main()
