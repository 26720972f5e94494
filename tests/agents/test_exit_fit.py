"""Expert iteration's learning step (fit on the search's targets) and its resumable iteration driver."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from boardenvs import make_game
from boardenvs.core.options import OptionError
from boardenvs.wrappers.single_agent import SingleAgentEnv
from boardenvs_agents.arena.report import read_eval_log
from boardenvs_agents.learning.expert import ExItConfig, SelfPlayConfig, fit, generate, run_iterations
from boardenvs_agents.learning.expert import chunks as chunk_files
from boardenvs_agents.learning.expert.iterate import start_model_path
from boardenvs_agents.learning.models import algorithm_class, load_model, read_metadata
from boardenvs_agents.registry import make_policy

OPTIONS = {"num_players": 2}


@pytest.fixture(scope="module")
def searched():
    """Examples of 8 two-player Sorry! games of the shipped network searching (4 simulations)."""
    config = SelfPlayConfig(game="sorry_v0", game_options=OPTIONS, games=8, seed=3, search={"sims": 4})
    return generate(config, "ppo:sorry_v0")


def fresh_model(seed=0):
    """An untrained two-player Sorry! MaskablePPO model (a small network)."""
    env = SingleAgentEnv(make_game("sorry_v0", **OPTIONS))
    return algorithm_class("ppo")("MlpPolicy", env, seed=seed, device="cpu", policy_kwargs={"net_arch": [32]})


def weights(model):
    """The policy's parameters, copied."""
    return [p.detach().clone() for p in model.policy.parameters()]


def test_fit_lowers_the_heldout_loss_on_search_targets(searched):
    """An untrained network fitted to the search's targets comes closer to them on held-out games: the
    held-out cross-entropy and KL fall epoch by epoch, and its argmax agrees with the target's far more
    often than a uniform pick would."""
    model = fresh_model()
    report = fit(model, searched, epochs=6, batch_size=32, learning_rate=3e-3, seed=0, holdout=0.25)
    first, last = report.epochs[0], report.final
    assert [e["epoch"] for e in report.epochs] == list(range(1, 7))
    assert last["heldout_cross_entropy"] < first["heldout_cross_entropy"]
    assert 0 <= last["heldout_kl"] < first["heldout_kl"]
    assert last["train_policy_loss"] < first["train_policy_loss"]
    assert report.heldout_games == 2 and report.games == 8
    assert report.train_examples + report.heldout_examples == len(searched)
    choice = searched.masks.sum(1) > 1
    uniform = float(np.mean(1 / searched.masks[choice].sum(1)))
    assert last["heldout_accuracy"] > uniform + 0.2


def test_fit_is_deterministic_for_a_seed(searched):
    """The same model, data and seed give the same weights bit for bit; another seed other weights."""
    fitted = []
    for seed in (5, 5, 6):
        model = fresh_model()
        fit(model, searched, epochs=1, batch_size=64, seed=seed)
        fitted.append(weights(model))
    assert all(torch.equal(a, b) for a, b in zip(fitted[0], fitted[1], strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(fitted[0], fitted[2], strict=True))


def test_fit_refuses_bad_options_and_data(searched):
    with pytest.raises(ValueError, match="holdout"):
        fit(fresh_model(), searched, holdout=1.0)
    with pytest.raises(ValueError, match="at least 2 games"):
        fit(fresh_model(), searched.select(searched.games == 0))
    cut = replace(searched, observations=np.ascontiguousarray(searched.observations[:, :10]))
    with pytest.raises(ValueError, match="10 features .* do not fit a policy of 843 features"):
        fit(fresh_model(), cut)


TINY = {
    "game": "sorry_v0",
    "game_options": OPTIONS,
    "start": "ppo:sorry_v0",
    "iterations": 2,
    "games": 3,
    "search": {"sims": 4},
    "selfplay": {"chunk_games": 1},
    "fit": {"epochs": 1},
    "window": 2,
    "seed": 7,
    "eval": {"games": 4},
}


def timeless(report):
    """An iteration's report without its times and folder names (what a resumed run must repeat)."""
    kept = {k: v for k, v in report.items() if "second" not in k and k != "network"}
    kept["fit"] = {
        **report["fit"],
        "epochs": [{k: v for k, v in e.items() if k != "seconds"} for e in report["fit"]["epochs"]],
    }
    return kept


def test_a_killed_run_resumes_to_the_same_final_weights(tmp_path, monkeypatch):
    """A run stopped in its second iteration's self-play (one chunk written) and started again skips
    the first iteration, finishes the second from its chunks, and ends with the weights of a run never
    stopped, bit for bit; the models it saves load as learned specs and as a search's evaluator."""
    config = ExItConfig.from_dict(TINY)
    lines = []
    whole = run_iterations(config, tmp_path / "whole", progress=lines.append)
    assert [r["iteration"] for r in whole] == [0, 1] and len(lines) == 2
    assert whole[1]["window_iterations"] == [0, 1]
    assert whole[1]["window_examples"] == whole[0]["examples"] + whole[1]["examples"]

    written = []
    original = chunk_files.ChunkStore.write

    def write_then_die(self, chunk, dataset):
        path = original(self, chunk, dataset)
        written.append(path)
        if len(written) == 4:  # the second iteration's first chunk
            raise KeyboardInterrupt("killed")
        return path

    monkeypatch.setattr(chunk_files.ChunkStore, "write", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        run_iterations(config, tmp_path / "killed", progress=lambda line: None)
    monkeypatch.setattr(chunk_files.ChunkStore, "write", original)
    second = tmp_path / "killed" / "iter_001"
    assert (second / "data" / "chunk_000000.npz").exists() and not (second / "report.json").exists()

    lines = []
    resumed = run_iterations(config, tmp_path / "killed", progress=lines.append)
    assert "skipped" in lines[0] and "skipped" not in lines[1]
    assert [timeless(r) for r in resumed] == [timeless(r) for r in whole]
    game = make_game("sorry_v0", **OPTIONS)
    a, _ = load_model(tmp_path / "whole" / "iter_001" / "model.zip", game)
    b, _ = load_model(second / "model.zip", game)
    start, _ = load_model(tmp_path / "whole" / "iter_000" / "model.zip", game)
    assert all(torch.equal(x, y) for x, y in zip(weights(a), weights(b), strict=True))
    assert not all(torch.equal(x, y) for x, y in zip(weights(a), weights(start), strict=True))

    saved = str(second / "model.zip")
    assert read_metadata(saved)["expert_iteration"]["iteration"] == 1
    assert make_policy(f"ppo:{saved}", "sorry_v0", game_options=OPTIONS).name == f"ppo:{saved}"
    make_policy(f"mcts:evaluator=ppo:{saved},sims=2", "sorry_v0", game_options=OPTIONS)
    report = json.loads((second / "report.json").read_text())
    assert report["fit"]["epochs"][0]["epoch"] == 1

    other = ExItConfig.from_dict({**TINY, "seed": 8})
    with pytest.raises(ValueError, match="another config .*seed"):
        run_iterations(other, tmp_path / "killed")


def test_an_iteration_searching_with_rollouts_learns_their_moves(tmp_path):
    """``searcher: rollouts`` reaches every iteration's self-play: the examples' targets are the moves
    of the rollouts (one action each), the network is fitted to them, and the manifest records it."""
    rollouts = {"rounds": 2, "opponents": "heuristic", "depth": 2, "leaf": "value", "top": 2}
    config = ExItConfig.from_dict(
        {**TINY, "iterations": 1, "games": 2, "searcher": "rollouts", "search": rollouts}
    )
    assert config.selfplay_config(0).searcher == "rollouts"
    (report,) = run_iterations(config, tmp_path / "run", progress=lambda line: None)
    assert report["examples"] > 10 and report["fit"]["epochs"][-1]["heldout_kl"] >= 0
    data = generate(config.selfplay_config(0), "ppo:sorry_v0", out=tmp_path / "run" / "iter_000" / "data")
    assert len(data) == report["examples"] and ((data.policies == 0) | (data.policies == 1)).all()
    manifest = json.loads((tmp_path / "run" / "exit.json").read_text())
    assert manifest["config"]["searcher"] == "rollouts"
    with pytest.raises(OptionError, match="selfplay.searcher"):
        ExItConfig.from_dict({**TINY, "selfplay": {"searcher": "rollouts"}})


def test_the_shipped_configs_load():
    """Every configs/<game>/exit.yaml is a valid expert-iteration config of a game with a start model
    (configs/bench/exit.yaml, which the benchmark's protocol completes, is tests/bench's)."""
    configs = Path(__file__).resolve().parents[2] / "configs"
    shipped = sorted(p for p in configs.glob("*/exit*.yaml") if p.parent.name != "bench")
    assert len(shipped) >= 3
    for path in shipped:
        config = ExItConfig.from_dict(yaml.safe_load(path.read_text()), where=f"{path}: ")
        assert config.game == path.parent.name
        assert start_model_path(config).is_file()


def test_a_bad_config_key_is_refused_naming_it(tmp_path):
    with pytest.raises(OptionError, match="'itertions'"):
        ExItConfig.from_dict({**TINY, "itertions": 3})
    with pytest.raises(OptionError, match="'fit.epoch'"):
        ExItConfig.from_dict({**TINY, "fit": {"epoch": 1}})
    with pytest.raises(OptionError, match="temprature"):
        ExItConfig.from_dict({**TINY, "selfplay": {"temprature": 1.0}})
    with pytest.raises(OptionError, match="selfplay.games"):
        ExItConfig.from_dict({**TINY, "selfplay": {"games": 4}})
    with pytest.raises(OptionError, match="start"):
        ExItConfig.from_dict({k: v for k, v in TINY.items() if k != "start"})
    with pytest.raises(ValueError, match="ppo"):
        run_iterations(ExItConfig.from_dict({**TINY, "start": "dqn:sorry_v0"}), tmp_path / "run")
    with pytest.raises(ValueError, match="'exit'"):
        ExItConfig.from_dict({**TINY, "algo": "ppo"})
    assert not (tmp_path / "run").exists()


def test_boardenvs_train_runs_resumes_and_refuses_expert_iteration_as_it_does_ppo(tmp_path, capsys):
    """``algo: exit`` through ``boardenvs-train``: a bad key stops it with status 2 and one line naming
    the key, nothing written; a run of one iteration resumed with ``iterations`` raised ends with the
    weights and ``eval.csv`` of a run of two never stopped; a resume may change nothing the networks
    depend on, and an existing run is not overwritten; the final model plays as ``exit:<path>``."""
    from boardenvs_agents.scripts.train import run as train_run

    def stopped_with(argv):
        with pytest.raises(SystemExit) as stopped:
            train_run(argv)
        assert stopped.value.code == 2
        return capsys.readouterr().err

    config = tmp_path / "exit.yaml"
    config.write_text(yaml.safe_dump({**TINY, "algo": "exit", "windw": 2}))
    runs = ["--runs", str(tmp_path / "runs"), "--no-progress"]
    assert "'windw'" in stopped_with(["--config", str(config), "--name", "bad", *runs])
    assert not (tmp_path / "runs" / "bad").exists()

    config.write_text(yaml.safe_dump({**TINY, "algo": "exit"}))
    whole = train_run(["--config", str(config), "--name", "whole", *runs])
    assert (whole["algo"], whole["iterations"]) == ("exit", 2)
    assert whole["examples"] == whole["timesteps"] > 0 and whole["final_eval"][0]["games"] == 4
    first = train_run(["--config", str(config), "--name", "part", "--set", "iterations=1", *runs])
    resumed = train_run(["--resume", str(tmp_path / "runs" / "part"), "--set", "iterations=2", *runs])
    assert resumed["final_eval"] == whole["final_eval"] and resumed["examples"] == whole["examples"]
    game = make_game("sorry_v0", **OPTIONS)
    a, meta = load_model(tmp_path / "runs" / "whole" / "final_model.zip", game)
    b, _ = load_model(tmp_path / "runs" / "part" / "final_model.zip", game)
    assert all(torch.equal(x, y) for x, y in zip(weights(a), weights(b), strict=True))
    assert meta["algo"] == "exit" and meta["expert_iteration"]["iteration"] == 1
    csv_rows = (tmp_path / "runs" / "whole" / "eval.csv").read_text().splitlines()
    assert csv_rows == (tmp_path / "runs" / "part" / "eval.csv").read_text().splitlines()
    assert csv_rows[0].startswith("step,iteration,opponent") and len(csv_rows) == 3
    assert [row["step"] for row in read_eval_log(tmp_path / "runs" / "whole")] == [
        first["examples"], whole["examples"]
    ]

    assert "only iterations" in stopped_with(["--resume", str(tmp_path / "runs" / "part"), "--set", "seed=3"])
    assert "--resume" in stopped_with(["--config", str(config), "--name", "whole", *runs])
    final = str(tmp_path / "runs" / "whole" / "final_model.zip")
    assert make_policy(f"exit:{final}", "sorry_v0", game_options=OPTIONS).name == f"exit:{final}"
    make_policy(f"mcts:evaluator=exit:{final},sims=2", "sorry_v0", game_options=OPTIONS)
