"""Golden playthroughs (tests/playthroughs/<env>.txt) still match what the envs play.

A failure prints a unified diff of the first differences. If the change of play is intended (a rules
fix, a new observation feature), review the diff and regenerate the files with
``python scripts/playthrough.py --write``, then commit them with the change. The format is that of
:mod:`boardenvs.core.playthrough`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import boardenvs
from boardenvs.core.playthrough import (
    PlaythroughGame,
    full_observation,
    observation_change,
    play_text,
    playthrough_diff,
    playthrough_path,
)

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "playthroughs"


@pytest.mark.parametrize("name", boardenvs.env_names())
def test_playthrough_matches_the_checked_in_file(name):
    diff = playthrough_diff(GOLDEN, name)
    assert not diff, f"{name} plays differently from its golden playthrough:\n{diff}"


def test_every_checked_in_playthrough_is_of_a_registered_env():
    files = {path.stem for path in GOLDEN.glob("*.txt")}
    assert files == set(boardenvs.env_names())


def test_a_changed_file_is_reported_as_a_diff(tmp_path):
    name = "sorry_v0"
    text = playthrough_path(GOLDEN, name).read_text(encoding="utf-8")
    edited = text.replace("\nlegal ", "\nlegal 99 ", 1)
    assert edited != text
    playthrough_path(tmp_path, name).write_text(edited, encoding="utf-8")
    diff = playthrough_diff(tmp_path, name)
    assert diff.startswith(f"--- {tmp_path / 'sorry_v0.txt'}\n+++ sorry_v0 (regenerated)\n")
    assert "\n-legal 99 " in diff and "\n+legal " in diff
    assert "no playthrough file" in playthrough_diff(tmp_path / "empty", name)


def test_observation_forms():
    obs = np.zeros(12, dtype=np.float32)
    obs[[0, 1, 2, 5, 7, 8]] = 1.0
    obs[10] = 0.25
    assert full_observation(obs) == "0-2 5 7-8 10=0.25"
    after = obs.copy()
    after[1] = 0.0
    after[11] = 1.0
    assert observation_change(obs, after) == "1=0 11"
    assert full_observation(np.zeros(3, dtype=np.float32)) == "-"


def test_same_seed_same_text_and_the_game_is_played_to_the_end():
    game = PlaythroughGame({"num_players": 2}, 5)
    first = play_text("sorry_v0", game)
    assert play_text("sorry_v0", game) == first
    assert first[0] == "## sorry_v0: num_players=2; seed 5"
    returns = [line for line in first if line.startswith("returns: ")]
    assert len(returns) == 1
    assert sorted(float(entry.split("=")[1]) for entry in returns[0].split()[1:]) == [-1.0, 1.0]


def test_the_script_checks_and_writes(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("playthrough_script", ROOT / "scripts" / "playthrough.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--check", "--envs", "sorry_v0", "--dir", str(tmp_path)]) == 1
    assert "no playthrough file" in capsys.readouterr().out
    assert script.main(["--write", "--envs", "sorry_v0", "--dir", str(tmp_path)]) == 0
    assert script.main(["--check", "--envs", "sorry_v0", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith("sorry_v0: same\n")
    with pytest.raises(SystemExit):
        script.main(["--check", "--envs", "nosuchgame_v7"])
