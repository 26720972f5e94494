"""The suite is fixed and versioned: its envs still play as when its results were measured."""

import hashlib
from pathlib import Path

import pytest

import boardenvs
from boardenvs_agents.bench.suite import (
    PLAYTHROUGH_SHA256,
    STANDARD,
    SUITE_VERSION,
    TASKS,
    Protocol,
    get_task,
)

GOLDEN = Path(__file__).resolve().parents[1] / "playthroughs"


@pytest.mark.parametrize("game", sorted(PLAYTHROUGH_SHA256))
def test_the_suites_envs_play_as_when_it_was_measured(game):
    # A change of play or observations changes the golden playthrough (tests/test_playthroughs.py): then
    # the env's _vN and SUITE_VERSION go up, and the published results are measured again.
    digest = hashlib.sha256((GOLDEN / f"{game}.txt").read_bytes()).hexdigest()
    assert digest == PLAYTHROUGH_SHA256[game], (
        f"{game} plays differently from when {SUITE_VERSION} was measured: bump the env's version and the "
        "suite's (agents/bench/suite.py), re-run the baselines (docs/benchmark.md)"
    )


def test_every_task_is_a_registered_env_version_the_digests_cover():
    assert {t.game for t in TASKS} == set(PLAYTHROUGH_SHA256)
    assert set(PLAYTHROUGH_SHA256) <= set(boardenvs.env_names())
    assert len({t.name for t in TASKS}) == len(TASKS) == 6
    for task in TASKS:
        game = boardenvs.make_game(task.game, **task.options)
        assert game.num_players == task.num_players
        assert task.game.rsplit("_", 1)[1].startswith("v")  # the version is in the name


def test_gangsi_has_two_roles_the_others_one():
    gangsi = get_task("gangsi_v0_3h")
    assert gangsi.roles == ("kyonshi", "hunter") and gangsi.role_of(0) == "kyonshi"
    assert get_task("sorry_v0_2p").roles == ("player",) and get_task("sorry_v0_2p").even_share == 0.5


def test_an_unknown_task_names_the_suites():
    with pytest.raises(ValueError, match="unknown task 'chess_4p'.*sorry_v0_4p"):
        get_task("chess_4p")


def test_a_protocol_checks_its_numbers():
    assert STANDARD.to_dict()["final_games"] == {"heuristic": 400, "random": 100}
    with pytest.raises(ValueError, match="budget"):
        Protocol(budget=0)
    with pytest.raises(ValueError, match="every pool"):
        Protocol(final_games=(("heuristic", 10),))
