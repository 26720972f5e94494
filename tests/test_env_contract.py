"""The env contract (``tests/env_contract.py``) on every registered env, in every configuration.

Every check of :data:`env_contract.CHECKS` runs on every option set of
:func:`env_contract.contract_configs` (the default options, every other player count the env accepts,
and the variants of ``EXTRA_OPTIONS``) of every env in ``boardenvs.env_names()``: a newly registered
game gets the whole suite with no edit here.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_contract import CHECKS, config_id, contract_configs, other_options, run_contract

import boardenvs

CASES = [(name, options) for name in boardenvs.env_names() for options in contract_configs(name)]


@pytest.mark.parametrize("check", CHECKS, ids=str)
@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{config_id(o)}" for n, o in CASES])
def test_contract(name, options, check):
    CHECKS[check](name, options)


def test_every_env_is_checked_with_several_player_counts():
    for name in boardenvs.env_names():
        counts = {len(boardenvs.make(name, raw=True, **o).possible_agents) for o in contract_configs(name)}
        assert len(counts) > 1, name


def test_other_options_make_another_game():
    for name in boardenvs.env_names():
        other = other_options(name, {})
        assert other is not None
        assert (
            boardenvs.make(name, raw=True, **other).game.options
            != boardenvs.make(name, raw=True).game.options
        )


def test_unknown_env_name_raises():
    with pytest.raises(ValueError, match="nosuchgame_v7"):
        boardenvs.make("nosuchgame_v7")
    with pytest.raises(ValueError, match="nosuchgame_v7"):
        boardenvs.make_game("nosuchgame_v7")


def test_the_checks_catch_a_broken_env(monkeypatch):
    # A mask that offers every action (illegal ones too) breaks the contract, and the report names
    # the env, the options and the check.
    from boardenvs.core.aec import BoardGameEnv

    observe = BoardGameEnv.observe

    def leaky_observe(self, agent):
        obs = observe(self, agent)
        return {**obs, "action_mask": np.ones_like(obs["action_mask"])}

    monkeypatch.setattr(BoardGameEnv, "observe", leaky_observe)
    with pytest.raises(AssertionError, match="sorry_v0 default: masks_and_observations"):
        run_contract("sorry_v0", [{}], checks=["masks_and_observations"])
