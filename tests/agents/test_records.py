"""The agents' records (agents/games/record.py): one per built-in game, found through the entry point
group boardenvs_agents.games; a game without one is refused by the tools that need one, naming what is
missing. Plug-in records and broken entry points: tests/test_plugin_game.py."""

import pytest

from boardenvs import make_game
from boardenvs_agents import plugins
from boardenvs_agents.base import Policy
from boardenvs_agents.games import (
    RECORDS_GROUP,
    MissingRecordError,
    find_record,
    heuristic_class,
    leaf_values,
    progress_function,
    record_names,
)
from boardenvs_agents.games.record import BalanceRecord, GameRecord

GAMES = ["gangsi_v0", "lost_city_v0", "neighborhood_v0", "sorry_v0"]


def test_every_built_in_game_has_a_full_record_of_its_own():
    assert record_names() == GAMES
    for name in GAMES:
        (entry,) = plugins.entry_points_of(RECORDS_GROUP)[name]
        assert entry.group == RECORDS_GROUP and entry.value.endswith(":RECORD")
        record = find_record(name)
        assert isinstance(record, GameRecord) and record.game == name
        assert issubclass(record.heuristic, Policy) and heuristic_class(name) is record.heuristic
        assert progress_function(name) is record.progress
        assert record.kind is not None and record.events is not None and record.balance is not None
        assert record.champion[-1] == "heuristic"
        state = make_game(name).new_initial_state()
        assert len(record.progress(state)) == len(leaf_values(state))


def test_a_game_without_a_record_is_refused_by_what_needs_one():
    assert find_record("toy_v0") is None
    for call, part in ((heuristic_class, "heuristic"), (progress_function, "progress")):
        with pytest.raises(MissingRecordError, match=f"record of 'toy_v0' \\(its {part}\\)") as err:
            call("toy_v0")
        assert RECORDS_GROUP in str(err.value) and isinstance(err.value, ValueError)


def test_a_record_naming_events_needs_a_counter():
    with pytest.raises(ValueError, match=r"names events \['bumps'\] but has no counter"):
        GameRecord(game="x_v0", strategy_events={"bumps": "bumps"})
    with pytest.raises(ValueError, match=r"names events \['hits'\]"):
        GameRecord(
            game="x_v0",
            balance=BalanceRecord((2,), figures={"damage": "..."}, figure_events={"damage": "hits"}),
        )
    assert GameRecord(game="x_v0", balance=BalanceRecord((2,))).balance.event_of("a") == "a"
