"""Batched opponents: frozen networks score a row the same alone or in any batch, and BatchedVecEnv (in
this process or in worker processes) plays exactly the games DummyVecEnv plays, one opponent move at a
time, for greedy and sampling opponents, PPO and DQN networks, self-play pools and checkpoints."""

import functools
import json

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from boardenvs import make_game
from boardenvs.wrappers import SingleAgentEnv
from boardenvs_agents.learning.config import TrainConfig
from boardenvs_agents.learning.masked_dqn import MaskedDQN
from boardenvs_agents.learning.models import LearnedPolicy, save_model
from boardenvs_agents.learning.network import NumpyMLP, TorchNetwork, frozen_network
from boardenvs_agents.learning.training import final_metadata, learner_view, make_vec_env
from boardenvs_agents.learning.vec_env import BatchedVecEnv

OPTIONS = {"num_players": 4}


def tiny_model(algo, **policy_kwargs):
    game = make_game("sorry_v0", **OPTIONS)
    kwargs = {"net_arch": [32, 32], **policy_kwargs}
    if algo == "ppo":
        return MaskablePPO("MlpPolicy", SingleAgentEnv(game), policy_kwargs=kwargs, seed=0, device="cpu")
    model = MaskedDQN(
        env=SingleAgentEnv(game, mask_in_observation=True), policy_kwargs=kwargs, seed=0, device="cpu",
        buffer_size=100, learning_starts=0,
    )  # fmt: skip
    model.exploration_rate = 0.3  # so that a sampling DQN opponent explores
    return model


@pytest.fixture(scope="module")
def models():
    return {"ppo": tiny_model("ppo"), "dqn": tiny_model("dqn")}


def decision_states(count, seed=0):
    """Decision nodes (several legal moves or not) of seeded random games."""
    game = make_game("sorry_v0", **OPTIONS)
    rng, states, state = np.random.default_rng(seed), [], game.new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.current_player() < 0:
            state.apply_action(state.sample_chance(rng))
        else:
            states.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
    return states


# -- frozen networks -----------------------------------------------------------------------------------
@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_a_row_scores_bit_for_bit_the_same_alone_or_in_any_batch(models, algo):
    model = models[algo]
    policy = LearnedPolicy(model, make_game("sorry_v0", **OPTIONS), mask_in_observation=algo == "dqn")
    assert isinstance(policy.network, NumpyMLP)
    assert policy.network.kind == ("q" if algo == "dqn" else "logits")
    encoded = [policy.encode(state) for state in decision_states(40)]
    observations, masks = [o for o, _ in encoded], np.stack([m for _, m in encoded])
    alone = np.stack([policy.network.scores([o], m[None])[0] for o, m in encoded])
    for size in (2, 7, 40):
        for start in range(0, 40, size):
            batch = policy.network.scores(observations[start : start + size], masks[start : start + size])
            assert np.array_equal(batch, alone[start : start + size])
    assert np.all(np.isneginf(alone[~masks])) and np.all(np.isfinite(alone[masks]))


def test_the_numpy_products_run_on_one_blas_thread_and_score_as_on_several(monkeypatch):
    """A Gangsi-sized network (1,811 features): inside a forward pass numpy's BLAS has one thread, after
    it the threads it had, and the outputs are those of the same products on two threads, bit for bit."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    rng = np.random.default_rng(0)
    w1, b1 = rng.standard_normal((1811, 256)).astype(np.float32), rng.standard_normal(256).astype(np.float32)
    w2 = rng.standard_normal((256, 12)).astype(np.float32)
    network = NumpyMLP("gangsi-sized", "logits", [(w1, b1, "tanh"), (w2, None, None)])
    observations = list(rng.random((5, 1811)).astype(np.float32))
    matmul, seen = np.matmul, []

    def recording(*args, **kwargs):
        seen.append(blas_threads())
        return matmul(*args, **kwargs)

    with threadpool_limits(2, user_api="blas"):
        expected = matmul(np.tanh(matmul(np.stack(observations)[:, None, :], w1) + b1), w2)[:, 0, :]
        monkeypatch.setattr(np, "matmul", recording)
        out = network.forward(observations)
        monkeypatch.undo()
        assert blas_threads() == {2}  # restored
    assert seen == [{1}, {1}]
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_the_numpy_copy_plays_as_the_sb3_model(models, algo):
    """Greedy actions are SB3's predict(); PPO's sampling distribution is SB3's masked distribution."""
    model = models[algo]
    dqn = algo == "dqn"
    policy = LearnedPolicy(model, make_game("sorry_v0", **OPTIONS), mask_in_observation=dqn)
    for state in decision_states(60, seed=1):
        obs, mask = policy.encode(state)
        expected = model.predict(obs, deterministic=True) if dqn else model.predict(
            obs, action_masks=mask, deterministic=True
        )  # fmt: skip
        assert policy.act(state) == int(expected[0])
        if not dqn:
            with torch.no_grad():
                obs_t, _ = model.policy.obs_to_tensor(obs)
                probs = model.policy.get_distribution(obs_t, action_masks=mask[None]).distribution.probs[0]
            scores = policy.network.scores([obs], mask[None])[0]
            ours = np.where(mask, np.exp(scores - scores[mask].max()), 0.0)
            np.testing.assert_allclose(ours / ours.sum(), probs.numpy(), atol=1e-6)


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_sampling_opponents_draw_the_same_actions_from_batched_rows(models, algo):
    """As a vector env does: decisions without a choice are played at once (no draw), the others
    scored in one batch, then each chosen from its row with the policy's generator, in order."""
    game = make_game("sorry_v0", **OPTIONS)
    one_at_a_time = LearnedPolicy(models[algo], game, None, algo == "dqn", deterministic=False, seed=7)
    batched = one_at_a_time.clone(seed=7)
    states = decision_states(60, seed=2)
    expected = [one_at_a_time.act(state) for state in states]
    forced = {i: batched.forced(state) for i, state in enumerate(states)}
    assert 0 < sum(a is not None for a in forced.values()) < len(states)  # both kinds of decision
    chosen = [i for i, a in forced.items() if a is None]
    encoded = [batched.encode(states[i]) for i in chosen]
    rows = batched.network.scores([o for o, _ in encoded], np.stack([m for _, m in encoded]))
    for i, row, (_, mask) in zip(chosen, rows, encoded, strict=True):
        forced[i] = batched.choose(row, mask)
    assert [forced[i] for i in range(len(states))] == expected
    greedy = LearnedPolicy(models[algo], game, None, algo == "dqn")
    assert expected != [greedy.act(state) for state in states]  # it did sample


def test_other_networks_fall_back_on_torch_batched(models):
    model = tiny_model("ppo", activation_fn=torch.nn.ELU)
    policy = LearnedPolicy(model, make_game("sorry_v0", **OPTIONS))
    assert isinstance(policy.network, TorchNetwork)
    for state in decision_states(30, seed=3):
        obs, mask = policy.encode(state)
        assert policy.act(state) == int(model.predict(obs, action_masks=mask, deterministic=True)[0])
    assert isinstance(frozen_network(models["ppo"]), NumpyMLP)


# -- the vector env ------------------------------------------------------------------------------------
def opponent_envs(model, algo, deterministic, n):
    """``n`` env functions: four-player Sorry!, every other seat the model (one network for all envs, as a
    snapshot cache gives; each env its own player with its own generator)."""
    network = frozen_network(model, key=f"tiny-{algo}")

    def make():
        game = make_game("sorry_v0", **OPTIONS)
        opponent = LearnedPolicy(model, game, None, algo == "dqn", deterministic, network=network)
        return SingleAgentEnv(game, opponents=opponent, mask_in_observation=algo == "dqn")

    return [make] * n


def lockstep(vecs, steps, seed=0, compare_states=True):
    """Step the vector envs with the same random legal actions; assert they stay identical; the dones."""
    for vec in vecs:
        vec.seed(5)
    first = [vec.reset() for vec in vecs]
    assert all(_same(o, first[0]) for o in first)
    rng, dones = np.random.default_rng(seed), 0
    for _ in range(steps):
        masks = [np.stack(vec.env_method("action_masks")) for vec in vecs]
        assert all(np.array_equal(m, masks[0]) for m in masks)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks[0]])
        outs = [vec.step(actions) for vec in vecs]
        for obs, rewards, done, infos in outs[1:]:
            assert _same(obs, outs[0][0])
            assert np.array_equal(rewards, outs[0][1]) and np.array_equal(done, outs[0][2])
            assert [i["learner_seat"] for i in infos] == [i["learner_seat"] for i in outs[0][3]]
        dones += int(outs[0][2].sum())
        if compare_states:
            states = [[_env_state(s) for s in vec.env_method("state_dict")] for vec in vecs]
            assert all(s == states[0] for s in states)
    return dones


def _same(a, b):
    """Equal observations (arrays, or dicts of arrays)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return np.array_equal(a, b)


def _env_state(snapshot):
    return snapshot.get("env", snapshot)  # a BatchedVecEnv slot's or a bare env's


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
@pytest.mark.parametrize("deterministic", [True, False], ids=["greedy", "sampling"])
def test_batched_opponents_play_exactly_the_games_of_one_at_a_time(models, algo, deterministic):
    fns = opponent_envs(models[algo], algo, deterministic, 4)
    dummy, batched = DummyVecEnv(fns), BatchedVecEnv(fns)
    try:
        dones = lockstep([dummy, batched], 120)
        assert dones > 0  # auto-resets were played too
        assert batched.decisions > 300 and batched.forward_calls < batched.decisions / 3  # batches of ~4
    finally:
        batched.close()


def pool_config(vec_env, workers=None, n_envs=3):
    return TrainConfig(
        game="sorry_v0", game_options=dict(OPTIONS), n_envs=n_envs, vec_env=vec_env, workers=workers,
        opponents={"random": 0.2, "heuristic": 0.2, "self": 0.6}, seed=3,
    )  # fmt: skip


def with_snapshot(config, tmp_path, model):
    vec = make_vec_env(config, root=tmp_path)
    vec.env_method("update_opponents", "add_snapshot", str(tmp_path / "snapshots" / "step_0.zip"))
    return vec


def test_worker_processes_and_self_play_pools_play_the_same_games(tmp_path):
    config = pool_config("dummy")
    model = MaskablePPO("MlpPolicy", make_vec_env(config), policy_kwargs={"net_arch": [32, 32]}, seed=0)
    save_model(model, tmp_path / "snapshots" / "step_0.zip", final_metadata(config, 0))
    vecs = [with_snapshot(pool_config(kind, workers), tmp_path, model) for kind, workers in
            [("dummy", None), ("batched", None), ("subproc", 2)]]  # fmt: skip
    try:
        assert isinstance(vecs[1], BatchedVecEnv) and vecs[2].workers == 2
        dones = lockstep(vecs, 150)
        assert dones > 0 and vecs[2].decisions > 100
        assert vecs[1].decisions == vecs[2].decisions  # the same decisions went through the main process
        # Each env keeps Monitor's bookkeeping: info["episode"] at the end of an episode.
        vecs[1].seed(0)
        vecs[1].reset()
        rng = np.random.default_rng(1)
        for _ in range(400):
            masks = vecs[1].env_method("action_masks")
            _, _, done, infos = vecs[1].step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            if done.any():
                episode = infos[int(np.flatnonzero(done)[0])]["episode"]
                assert episode["l"] > 0 and episode["r"] in (-1.0, 1.0)
                break
        else:
            pytest.fail("no episode ended")
        assert vecs[1].env_is_wrapped(Monitor) == [True] * 3
    finally:
        for vec in vecs:
            vec.close()


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_a_snapshot_taken_in_memory_scores_as_its_file(tmp_path, algo):
    """LearnedPolicy.snapshot (what training hands the self-play pools) is a copy of the weights: the
    scores of the model saved at that moment and loaded from its file, bit for bit, whatever the model
    does next."""
    model = tiny_model(algo)
    dqn = algo == "dqn"
    game = make_game("sorry_v0", **OPTIONS)
    path = save_model(model, tmp_path / "snapshot.zip", final_metadata(TrainConfig(algo=algo), 0))
    player = LearnedPolicy.snapshot(model, game, None, dqn)
    with torch.no_grad():  # the model trains on after the snapshot
        for parameter in model.policy.parameters():
            parameter.mul_(-1.5)
    encoded = [player.encode(state) for state in decision_states(40, seed=4)]
    observations, masks = [o for o, _ in encoded], np.stack([m for _, m in encoded])
    from_file = LearnedPolicy.from_file(path, game).network.scores(observations, masks)
    assert np.array_equal(player.network.scores(observations, masks), from_file)
    assert not np.array_equal(frozen_network(model).scores(observations, masks), from_file)
    assert player.model is None and player.deterministic and player.clone().network is player.network
    with pytest.raises(ValueError, match="no value head"):
        player.value(decision_states(1)[0])


def test_a_snapshot_added_in_memory_plays_the_games_of_its_file(tmp_path):
    """Pools given the snapshot in memory (in this process and in worker processes, which get it
    pickled) play exactly the games of pools that load it from its file: same opponent moves, same
    positions, and the same names in their checkpoints."""
    config = pool_config("dummy")
    model = MaskablePPO("MlpPolicy", make_vec_env(config), policy_kwargs={"net_arch": [32, 32]}, seed=0)
    path = save_model(model, tmp_path / "snapshots" / "step_0.zip", final_metadata(config, 0))
    game, view = learner_view(config)
    player = LearnedPolicy.snapshot(model, game, view.learner_seat, view.mask_in_observation)
    vecs = [with_snapshot(pool_config("batched"), tmp_path, model)]
    for kind, workers in [("batched", None), ("subproc", 2)]:
        vec = make_vec_env(pool_config(kind, workers), root=tmp_path)
        vec.env_method("update_opponents", "add_snapshot", str(path), player)
        vecs.append(vec)
    try:
        assert lockstep(vecs, 150) > 0
        assert vecs[0].decisions == vecs[1].decisions == vecs[2].decisions > 100
        pools = [vec.env_method("state_dict")[0]["env"]["sampler"] for vec in vecs]
        assert pools[0] == pools[1] == pools[2] == {"baselines": ["random", "heuristic"],
                                                    "snapshots": ["snapshots/step_0.zip"]}  # fmt: skip
    finally:
        for vec in vecs:
            vec.close()


def test_checkpoints_move_between_vec_envs(tmp_path):
    config = pool_config("dummy")
    model = MaskablePPO("MlpPolicy", make_vec_env(config), policy_kwargs={"net_arch": [32, 32]}, seed=0)
    save_model(model, tmp_path / "snapshots" / "step_0.zip", final_metadata(config, 0))
    source = with_snapshot(pool_config("subproc", 2), tmp_path, model)
    try:
        source.seed(1)
        source.reset()
        rng = np.random.default_rng(2)
        for _ in range(40):
            masks = source.env_method("action_masks")
            source.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        snapshot = json.loads(json.dumps(source.env_method("state_dict")))
        targets = [with_snapshot(pool_config(kind), tmp_path, model) for kind in ("dummy", "batched")]
        for vec in [source, *targets]:
            for index, env_state in enumerate(snapshot):
                vec.env_method("load_state_dict", env_state, indices=[index])
        rng = np.random.default_rng(3)
        for _ in range(60):
            masks = [np.stack(vec.env_method("action_masks")) for vec in [source, *targets]]
            assert all(np.array_equal(m, masks[0]) for m in masks)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks[0]])
            outs = [vec.step(actions) for vec in [source, *targets]]
            assert all(np.array_equal(o[0], outs[0][0]) and np.array_equal(o[1], outs[0][1]) for o in outs)
        states = [vec.env_method("state_dict") for vec in [source, *targets]]
        assert states[0] == states[1] == states[2]  # Monitor's fields included
    finally:
        source.close()


# -- bad input ---------------------------------------------------------------------------------------
# A factory the worker process can unpickle (a function of this test module cannot be imported there).
broken_env = functools.partial(SingleAgentEnv, "no_such_board")


def test_bad_envs_and_workers_are_refused_clearly():
    from stable_baselines3.common.monitor import Monitor as SB3Monitor

    with pytest.raises(TypeError, match="bare SingleAgentEnv"):
        BatchedVecEnv([lambda: SB3Monitor(SingleAgentEnv("sorry_v0", num_players=2))])
    with pytest.raises(ValueError, match="workers must be an integer >= 0"):
        BatchedVecEnv([lambda: SingleAgentEnv("sorry_v0", num_players=2)], workers=-1)
    with pytest.raises(RuntimeError, match=r"env worker 0 failed:(.|\n)*unknown environment 'no_such_board'"):
        BatchedVecEnv([broken_env], workers=1)
    vec = BatchedVecEnv([lambda: SingleAgentEnv("sorry_v0", num_players=2)])
    with pytest.raises(RuntimeError, match="needs reset"):
        vec.step(np.array([0]))
    with pytest.raises(ValueError, match="workers must be at least 1"):
        TrainConfig(vec_env="subproc", workers=0)
