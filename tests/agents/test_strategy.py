"""Strategy figures: every decision with a choice classified, events agreeing with the balance tool's
counts, and the per-agent table of the league."""

import numpy as np
import pytest

from boardenvs import make_game
from boardenvs.core.state import CHANCE
from boardenvs_agents.arena.balance.observer import BalanceObserver
from boardenvs_agents.arena.match import GameResult, play_game
from boardenvs_agents.arena.strategy import StrategyObserver, agent_strategy, strategy_table
from boardenvs_agents.games import find_record, record_names
from boardenvs_agents.registry import make_policy

GAMES = record_names()


class Both:
    """Runs the strategy and the balance observers side by side on one game."""

    def __init__(self, game):
        self.strategy, self.balance = StrategyObserver(game), BalanceObserver(game)
        self.choices = [0] * game.num_players

    def before(self, state, player, action):
        if player >= 0 and len(state.legal_actions()) > 1:
            self.choices[player] += 1
        self.strategy.before(state, player, action)
        self.balance.before(state, player, action)

    def after(self, state):
        self.strategy.after(state)
        self.balance.after(state)

    def result(self, state):
        return {**self.strategy.result(state), "balance": self.balance.result(state), "choices": self.choices}


@pytest.mark.parametrize("name", GAMES)
def test_every_choice_is_classified_and_events_match_the_balance_counts(name):
    for seed in range(3):
        game = make_game(name)
        stats = play_game(
            game, [make_policy("heuristic", name, seed=p) for p in range(game.num_players)], seed, Both(game)
        ).stats
        seats = stats["strategy"]
        for p, seat in enumerate(seats):
            assert seat["choices"] == stats["choices"][p] == sum(seat["kinds"].values())
        figures = stats["balance"]["figures"]
        if name == "sorry_v0":  # every bump is suffered by someone; own pawns on a slide are not "made"
            assert sum(s["events"]["bumps_suffered"] for s in seats) == figures["bumps"]
            assert sum(s["events"]["bumps_made"] for s in seats) <= figures["bumps"]
        if name == "gangsi_v0":
            assert sum(s["events"]["reveals"] for s in seats) == figures["reveals"]
            assert sum(s["events"]["catches"] for s in seats) == figures["catches"]
            assert set(seats[0]["kinds"]) <= {"Kyonshi: step", "Kyonshi: stop"}  # seat 0 is the Kyonshi
            assert all(not k.startswith("Kyonshi") for s in seats[1:] for k in s["kinds"])


def decisions(name, seed, count=400):
    """(state, player, legal) of the decisions with a choice of a seeded random game."""
    game = make_game(name)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    out = []
    while not state.is_terminal() and len(out) < count:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1:
            out.append((state.clone(), player, list(legal)))
        state.apply_action(legal[int(rng.random() * len(legal))])
    return out


def test_sorry_kinds_follow_the_action_table():
    """S12-S17: the action ids of the env's table map to their kinds; a pawn leaving Start is told
    apart from a forward move on the track."""
    kind = find_record("sorry_v0").kind
    seen = set()
    for seed in range(6):
        for state, player, legal in decisions("sorry_v0", seed):
            for action in legal:
                k = kind(state, player, action)
                seen.add(k)
                expected = (
                    "7 split" if 6 <= action <= 41 else "11 switch" if 42 <= action <= 68
                    else "Sorry! card" if 69 <= action <= 77 else "pass" if action == 78
                    else "backward" if 3 <= action <= 5 else None
                )  # fmt: skip
                if expected is not None:
                    assert k == expected
                else:
                    assert k in ("forward", "out of Start")
    assert {"forward", "out of Start", "7 split", "11 switch", "Sorry! card", "backward"} <= seen


def test_lost_city_moves_are_advances_or_retreats_by_the_nearest_opponent():
    kind = find_record("lost_city_v0").kind
    counted = {"advance": 0, "retreat": 0}
    for seed in range(4):
        for state, player, legal in decisions("lost_city_v0", seed):
            for action in legal:
                if action > 24 or action == 12:
                    continue
                me = state.acting()
                others = [q for q in range(state.n) if q != me and state.hp[q] > 0]
                after = state.clone()
                after.apply_action(action)
                d0 = min(state.distance(me, q) for q in others)
                d1 = min(after.distance(me, q) for q in others)
                k = kind(state, player, action)
                assert k == ("advance" if d1 < d0 else "retreat" if d1 > d0 else "move, same distance")
                counted[k] = counted.get(k, 0) + 1
    assert counted["advance"] and counted["retreat"]


def test_neighborhood_tells_a_killer_or_wild_choice_from_a_vote():
    from boardenvs.neighborhood.rules import D_KILLER_OR_WILD, D_VOTE, KILLER, WILD

    kind = find_record("neighborhood_v0").kind
    found = set()
    for seed in range(30):
        for state, player, legal in decisions("neighborhood_v0", seed):
            if KILLER in legal:
                decision = state.decision_kind()
                assert decision in (D_KILLER_OR_WILD, D_VOTE)
                word = "vote" if decision == D_VOTE else "choose"
                assert (
                    kind(state, player, KILLER) == f"{word} Killer"
                    and kind(state, player, WILD) == f"{word} Wild"
                )
                found.add(word)
        if found == {"vote", "choose"}:
            break
    assert "choose" in found


def test_per_agent_figures_sum_the_agents_seats_and_make_a_table():
    game = make_game("sorry_v0", num_players=2)
    results = []
    for seed, seating in enumerate([("a", "b"), ("b", "a"), ("a", "b")]):
        policies = [
            make_policy("heuristic" if s == "a" else "random", "sorry_v0", seed=seed) for s in seating
        ]
        result = play_game(game, policies, seed, StrategyObserver(game))
        results.append(GameResult(**{**result.__dict__, "seating": seating}))
    a = agent_strategy(results, "a")
    assert a["games"] == 3
    assert a["choices"] == sum(r.stats["strategy"][r.seating.index("a")]["choices"] for r in results)
    assert agent_strategy(results, "nobody") is None
    assert agent_strategy([GameResult(0, [1.0, -1.0], 0, 5, False, ("a", "b"))], "a") is None  # no figures
    table = strategy_table("sorry_v0", {"a": a, "b": agent_strategy(results, "b")})
    lines = table.splitlines()
    assert lines[0].startswith("| agent | seat-games | choices per game |")
    assert "bumps made per game" in lines[0]
    assert len(lines) == 4 and lines[2].startswith("| `a` | 3 |")
    shares = [float(c.strip(" %")) for c in lines[2].split("|")[4:-3] if c.strip() != "-"]
    assert abs(sum(shares) - 100.0) < 0.5  # the kinds' shares of a's choices add up to all of them


def test_a_game_without_a_record_gets_the_generic_figures():
    """The core's toy game (tests/core/toy_game.py, no record): decisions with a choice only."""
    from core.toy_game import ToyGame

    game = ToyGame(num_players=2)
    assert find_record(game.name) is None
    results = []
    for seed, seating in enumerate([("a", "b"), ("b", "a")]):
        policies = [make_policy("random", game.name, seed=seed * 2 + p) for p in range(2)]
        result = play_game(game, policies, seed, StrategyObserver(game))
        assert [s["kinds"] for s in result.stats["strategy"]] == [{}, {}]
        assert all(s["events"] == {} for s in result.stats["strategy"])
        results.append(GameResult(**{**result.__dict__, "seating": seating}))
    a = agent_strategy(results, "a")
    assert a["games"] == 2 and a["choices"] > 0
    lines = strategy_table(game.name, {"a": a}).splitlines()
    assert lines[0] == "| agent | seat-games | choices per game |"
    assert lines[2] == f"| `a` | 2 | {a['choices'] / 2:.1f} |"
