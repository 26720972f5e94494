"""``champion`` (agents/search/champion.py): the first spec of a game's recipe that builds, its search
options, and a budget in simulations that makes its moves depend on the seed alone (issue 29, item 3)."""

from __future__ import annotations

import pytest
from agent_helpers import decision_states

from boardenvs_agents.games import find_record
from boardenvs_agents.registry import make_policy
from boardenvs_agents.search.champion import with_options
from boardenvs_agents.search.expectimax import ExpectimaxPolicy
from boardenvs_agents.search.rollouts import RolloutPolicy


def test_the_sorry_champion_searches_with_the_shipped_network_on_a_count_budget():
    # Two players: the search over the two-player expert-iteration model (named alone,
    # exit:sorry_v0__2p), the opponent's reply played as the heuristic's.
    two = make_policy("champion", "sorry_v0", seed=0, game_options={"num_players": 2})
    assert two.name == "champion" and two.spec == find_record("sorry_v0").champion[0]
    assert isinstance(two, ExpectimaxPolicy)
    assert (two.top, two.prior_weight, two.reply) == (8, 0.01, "heuristic")
    assert two.evaluator.policy.name == "exit:sorry_v0__2p" and two.evaluator.policy.game.num_players == 2
    # Four players: the two-player model does not fit (the four-player exit:sorry_v0 is not the
    # champion's), so paired rollouts on the PPO model, 32 rounds.
    four = make_policy("champion", "sorry_v0", seed=0, game_options={"num_players": 4})
    assert four.spec == find_record("sorry_v0").champion[1] and isinstance(four, RolloutPolicy)
    assert four.base.name == "ppo:sorry_v0" and four.base.game.num_players == 4
    assert four.opponents.name == "heuristic"
    assert (four.rounds, four.seconds, four.depth, four.leaf) == (32, None, 4, "value")


def test_the_champion_is_the_first_spec_that_builds_for_the_options():
    # No three-player Lost City model ships: the champion falls back to the heuristic.
    three = make_policy("champion", "lost_city_v0", seed=0, game_options={"num_players": 3})
    assert three.spec == find_record("lost_city_v0").champion[-1] == "heuristic" and three.name == "champion"
    state = decision_states("lost_city_v0", 0, every=3, limit=1, num_players=3)[0]
    assert three.act(state) in state.legal_actions()
    # The two-player model does ship, with its move features.
    two = make_policy("champion", "lost_city_v0", seed=0, game_options={"num_players": 2})
    assert two.spec == find_record("lost_city_v0").champion[0] == "ppo:lost_city_v0"
    assert two.game.options.action_features is True


def test_the_champion_moves_are_the_seeds_not_the_clocks():
    """A budget in counts: two champions of one seed make the same moves, and the search's
    statistics show the whole budget spent whatever the machine's load."""
    for players, options in ((2, "top=3"), (4, "top=4")):
        states = decision_states("sorry_v0", 5, every=7, limit=4, num_players=players)
        first = make_policy(f"champion:{options}", "sorry_v0", seed=11, game_options={"num_players": players})
        second = make_policy(
            f"champion:{options}", "sorry_v0", seed=11, game_options={"num_players": players}
        )
        assert [first.act(s.clone()) for s in states] == [second.act(s.clone()) for s in states]
    assert first.top == 4 and len(first.last_search["candidates"]) <= 4
    assert first.last_search["rounds"] == first.rounds == 32  # the whole budget, whatever the clock
    for search in (first, second):
        search.last_search.pop("seconds")  # the clock's reading, the one thing that may differ
    assert second.last_search == first.last_search


def test_champion_options_reach_its_search_and_bad_ones_are_refused():
    policy = make_policy("champion:top=4,samples=2", "sorry_v0", seed=0, game_options={"num_players": 2})
    assert policy.top == 4 and policy.samples == 2
    assert policy.spec == (
        "expectimax:evaluator=exit:sorry_v0__2p,prior_weight=0.01,reply=heuristic,top=4,samples=2"
    )
    policy = make_policy("champion:top=3", "sorry_v0", seed=0, game_options={"num_players": 4})
    assert policy.top == 3 and policy.spec == (
        "rollouts:policy=ppo:sorry_v0,opponents=heuristic,depth=4,leaf=value,seconds=none,rounds=32,top=3"
    )
    with pytest.raises(ValueError, match="unknown option 'depht'"):
        make_policy("champion:depht=3", "sorry_v0", seed=0, game_options={"num_players": 2})
    for players in (2, 4):
        with pytest.raises(ValueError, match="unknown option 'sims'"):
            make_policy("champion:sims=8", "sorry_v0", seed=0, game_options={"num_players": players})
    # A champion without search takes no search options.
    with pytest.raises(ValueError, match="takes no search options"):
        make_policy("champion:sims=8", "lost_city_v0", seed=0, game_options={"num_players": 4})
    with pytest.raises(ValueError, match="takes no search options"):
        make_policy("champion:sims=8", "neighborhood_v0", seed=0)
    with pytest.raises(ValueError, match="the champion needs the agents' record of 'toy_v0'"):
        make_policy("champion", "toy_v0", seed=0)


def test_with_options_replaces_the_recipes_own_keys_and_adds_the_others():
    assert with_options("mcts:sims=16,c=1", {"sims": 32}) == "mcts:c=1,sims=32"
    assert with_options("mcts:sims=16", {}) == "mcts:sims=16"
    spec = "rollouts:policy=ppo:sorry_v0"
    assert with_options(spec, {"rounds": 4}) == "rollouts:policy=ppo:sorry_v0,rounds=4"
