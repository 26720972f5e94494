"""Imitation warm start: the teacher's decisions recorded as the learner sees them, the policy fitted
to them, and a training run that starts with it."""

import json

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs.wrappers.single_agent import LearnerView, SingleAgentEnv
from boardenvs_agents.learning.config import load_config
from boardenvs_agents.learning.imitation import clone_policy, collect_demonstrations, merge_demonstrations
from boardenvs_agents.learning.models import algorithm_class, resolve_model_path


@pytest.fixture(scope="module")
def sorry_demos():
    game = make_game("sorry_v0")
    return game, collect_demonstrations(
        game, LearnerView(game, None, False), "heuristic", 6, seed=3, gamma=0.9
    )


def test_demonstrations_are_the_teachers_legal_decisions_with_discounted_returns(sorry_demos):
    game, demos = sorry_demos
    assert demos.observations.shape == (len(demos), game.observation_shape(0)[0])
    assert demos.masks[np.arange(len(demos)), demos.actions].all(), "every recorded action is legal"
    assert sorted(set(demos.games.tolist())) == list(range(6))
    for g in range(6):
        last = {}
        for p in range(game.num_players):
            rows = np.flatnonzero((demos.games == g) & (demos.seats == p))
            returns = demos.returns[rows]
            # Sorry! returns +1 for the winner and -1 for the others: a seat's last decision carries
            # its return undiscounted, the k-th before it gamma**k times it.
            last[p] = returns[-1]
            expected = returns[-1] * 0.9 ** np.arange(len(rows) - 1, -1, -1)
            assert np.allclose(returns, expected, rtol=1e-5)
        assert sorted(last.values()) == [-1.0] * (game.num_players - 1) + [1.0]


def test_demonstrations_replay_exactly_the_teachers_games():
    """The recorded decisions are the ones a seeded teacher makes: the same seed, the same data; a
    fixed learner seat records only that seat's decisions."""
    game = make_game("sorry_v0", num_players=2)
    a = collect_demonstrations(game, LearnerView(game, None, False), "heuristic", 3, seed=5)
    b = collect_demonstrations(game, LearnerView(game, None, False), "heuristic", 3, seed=5)
    assert np.array_equal(a.observations, b.observations) and np.array_equal(a.actions, b.actions)
    seat1 = collect_demonstrations(game, LearnerView(game, 1, False), "heuristic", 3, seed=5)
    assert set(a.seats.tolist()) == {0, 1} and set(seat1.seats.tolist()) == {1}
    assert np.array_equal(seat1.actions, a.actions[a.seats == 1])
    assert np.array_equal(seat1.observations, a.observations[a.seats == 1])
    assert np.array_equal(seat1.returns, a.returns[a.seats == 1])


def test_demonstrations_against_opponents_record_only_the_teachers_rotated_seat():
    """With ``opponents`` the teacher holds seat ``g % n`` of game ``g`` (or the learner's fixed seat)
    and the others play the opponents' spec: only the teacher's decisions are recorded, and they are
    the teacher's own choices in those games."""
    game = make_game("sorry_v0", num_players=2)
    view = LearnerView(game, None, False)
    demos = collect_demonstrations(game, view, "heuristic", 4, seed=2, opponents="random")
    for g in range(4):
        assert set(demos.seats[demos.games == g].tolist()) == {g % 2}
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    fixed = collect_demonstrations(
        game, LearnerView(game, 1, False), "heuristic", 3, seed=2, opponents="random"
    )
    assert set(fixed.seats.tolist()) == {1}
    # Each game's last recorded decision carries the teacher seat's own final return, undiscounted.
    lasts = [demos.returns[np.flatnonzero(demos.games == g)[-1]] for g in range(4)]
    assert set(lasts) <= {-1.0, 1.0}
    self_play = collect_demonstrations(game, view, "heuristic", 4, seed=2)
    assert not np.array_equal(self_play.seats, demos.seats)
    with pytest.raises(ValueError, match="wizard"):
        collect_demonstrations(game, view, "heuristic", 2, seed=2, opponents="wizard")


def test_gangsi_demonstrations_cover_both_roles():
    game = make_game("gangsi_v0")
    view = LearnerView(game, None, False)
    demos = collect_demonstrations(game, view, "heuristic", 2, seed=1)
    assert set(demos.seats.tolist()) == set(range(game.num_players))
    # The padded view ends with a one-hot of the seat: the roles are told apart in the input.
    one_hot = demos.observations[:, view.box.shape[0] - game.num_players :]
    assert np.array_equal(one_hot.argmax(1), demos.seats) and np.all(one_hot.sum(1) == 1)


def tiny_model(game, arch=(32,)):
    env = SingleAgentEnv(game)
    return algorithm_class("ppo")(
        "MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": list(arch)}
    )


def test_cloning_makes_the_policy_choose_like_the_teacher():
    """After fitting, the policy's most likely action is the teacher's on most of the decisions it was
    fitted to (far above a uniform pick among the legal actions), and the report covers every epoch."""
    import torch

    game = make_game("sorry_v0", num_players=2)
    demos = collect_demonstrations(game, LearnerView(game, None, False), "heuristic", 40, seed=0, gamma=0.99)
    model = tiny_model(game, (64,))
    choice = demos.masks.sum(1) > 1
    chance = float(np.mean(1.0 / demos.masks.sum(1)[choice]))

    def agreement():
        with torch.no_grad():
            dist = model.policy.get_distribution(
                torch.as_tensor(demos.observations), action_masks=demos.masks
            )
        return float((dist.distribution.logits.argmax(1).numpy() == demos.actions)[choice].mean())

    before = agreement()
    reports = clone_policy(model, demos, epochs=6, batch_size=64, learning_rate=3e-3, seed=0)
    assert [r["epoch"] for r in reports] == list(range(1, 7))
    assert all(0 <= r["heldout_accuracy"] <= 1 and r["heldout_value_mse"] >= 0 for r in reports)
    after = agreement()
    assert after > chance + 0.3 and after > before + 0.3, (chance, before, after)


def test_cloning_refuses_demonstrations_of_another_game():
    sorry = make_game("sorry_v0")
    demos = collect_demonstrations(sorry, LearnerView(sorry, None, False), "heuristic", 2, seed=0)
    with pytest.raises(ValueError, match="do not fit"):
        clone_policy(tiny_model(make_game("lost_city_v0")), demos, epochs=1)
    with pytest.raises(ValueError, match="at least 2"):
        collect_demonstrations(sorry, LearnerView(sorry, None, False), "heuristic", 1, seed=0)


def test_imitation_config_is_checked():
    with pytest.raises(OptionError, match="imitation"):
        load_config("sorry_v0/dqn", ["imitation.teacher=heuristic"])
    with pytest.raises(OptionError, match="wizard"):
        load_config("sorry_v0/ppo", ["imitation.teacher=wizard"])
    with pytest.raises(OptionError, match="imitation.games"):
        load_config("sorry_v0/ppo", ["imitation.teacher=heuristic", "imitation.games=1"])
    with pytest.raises(OptionError, match="imitation.opponents"):
        load_config("sorry_v0/ppo", ["imitation.teacher=heuristic", "imitation.opponents=wizard"])


def test_a_run_with_imitation_starts_from_the_teacher(tmp_path):
    """A run with ``imitation`` writes imitation.json, evaluates at step 0, and its model chooses like
    the teacher on the teacher's games far more often than the same run without the warm start."""
    import torch

    from boardenvs_agents.learning.run import start_run

    settings = [
        "game_options.num_players=2", "total_timesteps=128", "n_envs=1", "hyperparameters.n_steps=128",
        "hyperparameters.batch_size=64", "eval.every=128", "eval.games=2", "policy_kwargs.net_arch=[64]",
        "opponents={random: 1.0}",
    ]  # fmt: skip
    imitate = ["imitation.teacher=heuristic", "imitation.games=30", "imitation.epochs=8",
               "imitation.learning_rate=0.003"]  # fmt: skip
    warm = start_run(load_config("sorry_v0/ppo", settings + imitate), tmp_path, "warm", progress=False)
    cold = start_run(load_config("sorry_v0/ppo", settings), tmp_path, "cold", progress=False)
    report = json.loads((warm.run_dir / "imitation.json").read_text())
    assert report["teacher"] == "heuristic" and report["games"] == 30 and report["decisions"] > 100
    assert [e["epoch"] for e in report["epochs"]] == list(range(1, 9))
    assert not (cold.run_dir / "imitation.json").exists()
    # The warm start's own level is on the learning curve: an evaluation at step 0.
    steps = {run: {int(line.split(",")[0]) for line in (run / "eval.csv").read_text().splitlines()[1:]}
             for run in (warm.run_dir, cold.run_dir)}  # fmt: skip
    assert 0 in steps[warm.run_dir] and 0 not in steps[cold.run_dir]

    game = make_game("sorry_v0", num_players=2)
    demos = collect_demonstrations(game, LearnerView(game, None, False), "heuristic", 30, seed=0)
    choice = demos.masks.sum(1) > 1

    def agreement(run_dir):
        model = algorithm_class("ppo").load(run_dir / "final_model.zip", device="cpu")
        with torch.no_grad():
            dist = model.policy.get_distribution(
                torch.as_tensor(demos.observations), action_masks=demos.masks
            )
        return float((dist.distribution.logits.argmax(1).numpy() == demos.actions)[choice].mean())

    warm_agreement, cold_agreement = agreement(warm.run_dir), agreement(cold.run_dir)
    assert warm_agreement > cold_agreement + 0.2, (warm_agreement, cold_agreement)


def test_a_checkpoint_from_before_the_imitation_section_still_resumes(tmp_path):
    """Checkpoints record their config; one written before ``imitation`` existed counts it as off, and
    a run that has it on is still another run."""
    from boardenvs_agents.learning.run import RunError, _check_same_run

    config = load_config("sorry_v0/ppo")
    saved = json.loads(json.dumps(config.to_dict()))
    del saved["imitation"]
    _check_same_run(saved, config, tmp_path)  # no error: the missing section is the default
    with pytest.raises(RunError, match="imitation"):
        _check_same_run(saved, load_config("sorry_v0/ppo", ["imitation.teacher=heuristic"]), tmp_path)


def test_demonstrations_of_chosen_seats_only():
    """``record`` keeps one role's decisions (Gangsi's Kyonshi, seat 0) of games played in full."""
    game = make_game("gangsi_v0")
    view = LearnerView(game, None, False)
    every = collect_demonstrations(game, view, "heuristic", 2, seed=1)
    kyonshi = collect_demonstrations(game, view, "heuristic", 2, seed=1, record=[0])
    assert set(kyonshi.seats.tolist()) == {0}
    assert np.array_equal(kyonshi.actions, every.actions[every.seats == 0])
    assert np.array_equal(kyonshi.returns, every.returns[every.seats == 0])


def test_a_run_can_start_from_a_saved_models_weights(tmp_path):
    """``init_model``: the run's network starts as the saved one (a step size of 1e-9 leaves it there),
    and a model of another game or rules, or a missing file, is refused when the config is read."""
    import torch

    from boardenvs_agents.learning.run import start_run

    settings = [
        "game_options.num_players=2", "total_timesteps=128", "n_envs=1", "hyperparameters.n_steps=128",
        "hyperparameters.batch_size=64", "eval.every=0", "policy_kwargs.net_arch=[32]",
        "opponents={random: 1.0}",
    ]  # fmt: skip
    first = start_run(load_config("sorry_v0/ppo", settings), tmp_path, "first", progress=False)
    saved = first.run_dir / "final_model.zip"
    still = ["hyperparameters.learning_rate=0.000000001", "seed=7"]
    tuned = start_run(
        load_config("sorry_v0/ppo", [*settings, *still, f"init_model={saved}"]),
        tmp_path,
        "tuned",
        progress=False,
    )
    fresh = start_run(load_config("sorry_v0/ppo", [*settings, *still]), tmp_path, "fresh", progress=False)

    def weights(run_dir):
        model = algorithm_class("ppo").load(run_dir / "final_model.zip", device="cpu")
        return torch.cat([p.detach().flatten() for p in model.policy.parameters()])

    start = weights(first.run_dir)
    assert torch.allclose(weights(tuned.run_dir), start, atol=1e-5)
    assert not torch.allclose(weights(fresh.run_dir), start, atol=1e-2)
    with pytest.raises(OptionError, match="init_model: no file"):
        load_config("sorry_v0/ppo", [*settings, f"init_model={tmp_path / 'nothing.zip'}"])
    with pytest.raises(OptionError, match="not ppo of lost_city_v0"):
        load_config("lost_city_v0/ppo", [f"init_model={saved}"])
    with pytest.raises(OptionError, match="other rules"):
        load_config("sorry_v0/ppo", ["game_options.num_players=2", "game_options.max_turns=50",
                                     f"init_model={saved}"])  # fmt: skip
    with pytest.raises(OptionError, match="imitation.seats"):
        load_config("gangsi_v0/ppo", ["imitation.teacher=heuristic", "imitation.seats=[7]"])
    # The shipped Gangsi model plays either role (a padded view); a run for the Kyonshi's seat alone
    # sees the Kyonshi's shorter observation, so those weights do not fit.
    both_roles = resolve_model_path("gangsi_v0", "ppo")
    with pytest.raises(OptionError, match="takes observations of shape"):
        load_config("gangsi_v0/ppo", ["game_options.num_players=4", "learner_seat=0",
                                      f"init_model={both_roles}"])  # fmt: skip


def test_seat_teachers_give_a_seat_a_teacher_of_its_own():
    """``seat_teachers``: seat 1 played by random, seat 0 by the heuristic teacher: the heuristic seat
    wins those games (0.89 of two-player games against random), and an unknown spec is refused."""
    game = make_game("sorry_v0", num_players=2)
    view = LearnerView(game, None, False)
    demos = collect_demonstrations(game, view, "heuristic", 10, seed=4, seat_teachers={1: "random"})
    final = {
        (g, p): demos.returns[np.flatnonzero((demos.games == g) & (demos.seats == p))[-1]]
        for g in range(10)
        for p in (0, 1)
    }
    heuristic_wins = sum(final[g, 0] > 0 for g in range(10))
    assert heuristic_wins >= 8
    with pytest.raises(OptionError, match="imitation.seat_teachers"):
        load_config("sorry_v0/ppo", ["imitation.teacher=heuristic", "imitation.seat_teachers={1: wizard}"])
    with pytest.raises(OptionError, match="imitation.seat_teachers"):
        load_config("sorry_v0/ppo", ["imitation.teacher=heuristic", "imitation.seat_teachers={5: random}"])


# -- DAgger -----------------------------------------------------------------------------------------
def test_dagger_actor_plays_the_recorded_seats_and_the_teacher_labels_them():
    """With an ``actor`` the games are the actor's: replaying them with the actor's actions alone (the
    same chance draws) meets exactly the recorded positions, while the recorded actions are the
    teacher's choices there (legal, and often not the actor's)."""
    from boardenvs.core import loop
    from boardenvs.core.state import CHANCE
    from boardenvs_agents.base import Policy

    game = make_game("sorry_v0", num_players=2)
    view = LearnerView(game, None, False)
    seen = []

    class Lowest(Policy):
        name = "lowest"

        def act(self, state):
            seen.append(view.observe(state, state.current_player()))
            return min(state.legal_actions())

    demos = collect_demonstrations(game, view, "heuristic", 3, seed=8, actor=Lowest(0))
    assert len(seen) == len(demos) and np.array_equal(np.asarray(seen), demos.observations)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    played = np.asarray([np.flatnonzero(m)[0] for m in demos.masks])
    assert (demos.actions != played).mean() > 0.1  # the heuristic often prefers another move

    replayed = []
    for game_seed in loop.derive_seeds(8, 3):  # game g: the game loop's game of the g-th seed
        chance_rng = loop.chance_generator(game_seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(chance_rng))
                continue
            player = state.current_player()
            replayed.append(view.observe(state, player))
            state.apply_action(int(np.flatnonzero(view.mask(state, player))[0]))
    assert np.array_equal(np.asarray(replayed), demos.observations)


def test_merged_demonstrations_keep_games_whole_and_apart():
    game = make_game("sorry_v0", num_players=2)
    view = LearnerView(game, None, False)
    a = collect_demonstrations(game, view, "heuristic", 3, seed=1)
    b = collect_demonstrations(game, view, "heuristic", 2, seed=2)
    merged = merge_demonstrations([a, b])
    assert len(merged) == len(a) + len(b)
    assert sorted(set(merged.games.tolist())) == list(range(5))
    assert np.array_equal(merged.observations[len(a) :], b.observations)
    assert np.array_equal(merged.games[len(a) :], b.games + 3)


def test_a_run_with_dagger_rounds_labels_the_policys_own_games(tmp_path):
    from boardenvs_agents.learning.run import _check_same_run, start_run

    settings = [
        "game_options.num_players=2", "total_timesteps=64", "n_envs=1", "hyperparameters.n_steps=64",
        "hyperparameters.batch_size=64", "eval.every=64", "eval.games=2", "policy_kwargs.net_arch=[32]",
        "opponents={random: 1.0}", "imitation.teacher=heuristic", "imitation.games=6", "imitation.epochs=2",
        "imitation.dagger_rounds=2", "imitation.dagger_games=3",
    ]  # fmt: skip
    run = start_run(load_config("sorry_v0/ppo", settings), tmp_path, "dagger", progress=False)
    report = json.loads((run.run_dir / "imitation.json").read_text())
    assert [r["round"] for r in report["dagger"]] == [1, 2]
    assert all(r["games"] == 3 and r["decisions"] > 0 and len(r["epochs"]) == 2 for r in report["dagger"])
    first = collect_demonstrations(
        make_game("sorry_v0", num_players=2), LearnerView(make_game("sorry_v0", num_players=2), None, False),
        "heuristic", 6, seed=0,
    )  # fmt: skip
    assert report["decisions"] == len(first) + sum(r["decisions"] for r in report["dagger"])
    with pytest.raises(OptionError, match="dagger"):
        load_config("sorry_v0/ppo", ["imitation.teacher=heuristic", "imitation.dagger_rounds=-1"])
    # A checkpoint written before the DAgger keys existed counts them as off.
    config = load_config("sorry_v0/ppo")
    saved = json.loads(json.dumps(config.to_dict()))
    del saved["imitation"]["dagger_rounds"], saved["imitation"]["dagger_games"]
    _check_same_run(saved, config, tmp_path)


def test_an_imitation_network_without_a_teacher_is_refused_before_anything_is_written(tmp_path):
    from boardenvs_agents.learning.run import imitation_model

    config = load_config(None, ["game=sorry_v0"])
    assert config.imitation.teacher is None
    with pytest.raises(OptionError, match="imitation needs imitation.teacher"):
        imitation_model(config, tmp_path / "start")
    assert not (tmp_path / "start").exists()
