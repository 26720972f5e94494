"""The balance tool (agents/arena/balance/, scripts/balance.py): the same figures with any number of
workers, --check naming a missed target, each game's counters on scripted positions, the end kinds and
shared targets on rigged results, and clear errors for bad arguments."""

from __future__ import annotations

import json
import sys

import pytest

from boardenvs import make_game
from boardenvs.gangsi.rules import KYONSHI, PH_OVER
from boardenvs.lost_city import cards as lc_cards
from boardenvs.lost_city.rules import ABILITY, PLAY_HEALTH, STAY
from boardenvs.neighborhood.cards import KILLER_DECK
from boardenvs.neighborhood.rules import F_DRAW
from boardenvs.sorry.board import START
from boardenvs.sorry.cards import CARD_NAMES
from boardenvs.sorry.rules import FORWARD_ACTION, PASS, SorryOptions, SorryState
from boardenvs_agents.arena.balance import BalanceObserver, balance_of, measure
from boardenvs_agents.arena.balance.stats import END_KINDS, end_kind, shared_targets, summarize
from boardenvs_agents.arena.balance.stats import SettingReport as Setting
from boardenvs_agents.arena.match import GameResult, play_game
from boardenvs_agents.registry import make_policy
from boardenvs_agents.scripts import balance as script


def observe(observer, state, player, action):
    observer.before(state, player, action)
    state.apply_action(action)
    observer.after(state)


# -- the command line ---------------------------------------------------------------------------------
def run_json(tmp_path, name, *argv):
    out = tmp_path / name
    script.main([*argv, "--json", str(out), "--no-progress"])
    return json.loads(out.read_text())


def test_workers_change_no_figure(tmp_path, capsys):
    argv = ("--game", "sorry_v0", "--num-players", "2", "3", "--games", "6", "--seed", "3")
    one = run_json(tmp_path, "one.json", *argv, "--workers", "1")
    two = run_json(tmp_path, "two.json", *argv, "--workers", "2")
    assert one["settings"] == two["settings"]
    assert [s["num_players"] for s in one["settings"]] == [2, 3]
    first = one["settings"][0]
    assert first["same"]["games"] == 6 and first["versus_random"]["overall"]["games"] == 6
    # another seed plays other games
    other = run_json(tmp_path, "other.json", *argv[:-1], "4")
    assert other["settings"] != one["settings"]


def test_workers_change_no_figure_of_an_asymmetric_game():
    one = measure("gangsi_v0", 3, {"max_rounds": 3}, games=4, workers=1)
    two = measure("gangsi_v0", 3, {"max_rounds": 3}, games=4, workers=2)
    assert one.to_dict() == two.to_dict()
    assert one.baseline is not None and one.baseline.lineup == "random in every seat"


def test_check_exits_1_naming_the_missed_target(capsys):
    status = script.main(
        ["--game", "sorry_v0", "--num-players", "2", "--option", "max_turns=10", "--games", "4",
         "--check", "--no-progress"]
    )  # fmt: skip
    assert status == 1
    out, err = capsys.readouterr()
    assert "MISSED" in out
    assert "README: ended by a cap (round cap or truncation) at most 5.0% (measured 100.0%)" in err
    assert "ends by the rules (a win or a rules draw) at least 95.0% (measured 0.0%)" in err
    assert "truncated 4" in out


def test_check_passes_quietly_when_every_target_is_met(capsys):
    argv = ["--game", "sorry_v0", "--num-players", "2", "--games", "30", "--check", "--no-progress"]
    assert script.main(argv) == 0
    out, err = capsys.readouterr()
    assert "MISSED" not in out and "every target met" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "chess_v0"], "unknown environment 'chess_v0'; available: ["),
        (["--game", "sorry_v0", "--games", "0"], "games must be at least 1, got 0"),
        (["--game", "sorry_v0", "--workers", "0"], "workers must be at least 1, got 0"),
        (["--game", "sorry_v0", "--option", "max_turns"], "--option takes key=value, got 'max_turns'"),
        (["--game", "sorry_v0", "--option", "num_players=3"], "with --num-players"),
        (["--game", "sorry_v0", "--option", "max_turns=0"], "max_turns must be at least 1, got 0"),
        (["--game", "sorry_v0", "--option", "board=3"], "board"),
        (["--game", "sorry_v0", "--num-players", "5"], "num_players must be 2, 3 or 4, got 5"),
        (["--game", "sorry_v0", "--agents", "wizard"], "wizard"),
        (["--num-players", "2"], "--game"),
        (["--game", "sorry_v0", "--options", "/no/such/options.yaml"], "cannot read it"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["boardenvs-balance"])  # the command's name names the errors
    with pytest.raises(SystemExit) as exit_info:
        script.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("boardenvs-balance: error: ")


def test_options_file_and_option_flags_make_the_variant(tmp_path):
    variant = tmp_path / "variant.yaml"
    variant.write_text("slide_rule: classic\nmax_turns: 7\ncolors: [1, 3]\n")
    data = run_json(tmp_path, "v.json", "--game", "sorry_v0", "--num-players", "2", "--games", "2",
                    "--options", str(variant), "--option", "max_turns=9", "--no-versus")  # fmt: skip
    (setting,) = data["settings"]
    assert setting["options"] == {"slide_rule": "classic", "max_turns": 9, "colors": [1, 3]}
    assert setting["versus_random"] is None
    assert setting["same"]["ends"]["truncated"] == 2  # nobody gets three pawns Home in 9 draws
    bad = tmp_path / "bad.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(SystemExit) as exit_info:
        script.main(["--game", "sorry_v0", "--options", str(bad)])
    assert exit_info.value.code == 2


# -- end kinds and shared targets on rigged results ---------------------------------------------------
def result(seed, winner, capped=False, truncated=False, roles=None, rounds=10, n=2):
    returns = [1.0 if p == winner else -1.0 for p in range(n)] if winner is not None else [0.0] * n
    stats = {"capped": capped, "rounds": rounds, "roles": roles, "figures": {"x": seed}}
    return GameResult(seed, returns, winner, 2 * rounds, truncated, ("a",) * n, "m", stats)


def test_end_kinds_rules_share_and_cap_that_is_a_rule():
    games = [result(0, 0), result(1, None), result(2, 1, capped=True), result(3, None, truncated=True)]
    assert [end_kind(g) for g in games] == ["win", "draw", "cap_win", "truncated"]
    plain = summarize(games, "a in every seat", ["x"])
    assert plain.ends == dict(zip(END_KINDS, [1, 1, 1, 0, 1], strict=True))
    assert plain.rules_share == 0.5 and plain.capped_share == 0.5 and plain.draw_share == 0.25
    assert plain.figures["x"].mean == 1.5 and plain.rounds.median == 10
    assert [s.wins for s in plain.seats] == [1, 1]
    # Gangsi's K26 cap is a rule: the capped game counts as ended by the rules (and still as capped)
    gangsi = summarize(games, "a in every seat", ["x"], balance_of("gangsi_v0"))
    assert gangsi.rules_share == 0.75 and gangsi.capped_share == 0.5


def test_role_win_rates_count_a_side_once_per_game():
    roles = ["Kyonshi", "hunters", "hunters"]
    games = [result(0, 0, roles=roles, n=3), result(1, 1, roles=roles, n=3), result(2, 2, roles=roles, n=3)]
    run = summarize(games, "h in every seat", ["x"])
    assert run.roles["Kyonshi"].wins == 1 and run.roles["hunters"].wins == 2
    assert run.roles["hunters"].games == 3
    setting = Setting("gangsi_v0", 3, {}, "2 hunters", run)
    missed = [t.text for t in shared_targets(setting, asymmetric=True) if not t.ok]
    assert missed == [
        "Kyonshi win rate, h in every seat in 0.35-0.65",
        "hunters win rate, h in every seat in 0.35-0.65",
    ]


def test_seat_fairness_bounds_every_seat_by_its_even_share():
    """README "Balance targets", seat fairness: in a symmetric game every seat's win rate lies within
    0.7x-1.4x of its even share, one seat's share of the games with a winner (draws excluded)."""
    # 3 seats, 20 games: 2 drawn, 18 won -> even share 0.3, band 0.21-0.42
    winners = [0] * 8 + [1] * 6 + [2] * 4 + [None] * 2
    run = summarize([result(i, w, n=3) for i, w in enumerate(winners)], "h in every seat", ["x"])
    setting = Setting("sorry_v0", 3, {}, "3 players", run)
    seat_targets = [t for t in shared_targets(setting, asymmetric=False) if t.text.startswith("seat")]
    assert [t.ok for t in seat_targets] == [True, True, False]  # 0.40 in, 0.30 in, 0.20 < 0.21
    assert seat_targets[2].text == (
        "seat 2 win rate, h in every seat, in 0.7x-1.4x its even share 0.300 (0.210-0.420)"
    )
    measured = seat_targets[2].measured
    assert measured.startswith("0.200 [") and measured.endswith("(4/20), 0.67x")
    # one more game for seat 0 pushes it above 1.4x: 9 of 21, even share 0.302 -> 0.429 > 0.422
    run = summarize([result(i, w, n=3) for i, w in enumerate([0, *winners])], "h in every seat", ["x"])
    targets = shared_targets(Setting("sorry_v0", 3, {}, "3 players", run), asymmetric=False)
    assert [t.ok for t in targets if t.text.startswith("seat 0")] == [False]
    # games of asymmetric sides are held to their role range instead
    roles = ["Kyonshi", "hunters", "hunters"]
    run = summarize([result(i, w, roles=roles, n=3) for i, w in enumerate(winners)], "h", ["x"])
    gangsi = shared_targets(Setting("gangsi_v0", 3, {}, "2 hunters", run), asymmetric=True)
    assert not [t for t in gangsi if t.text.startswith("seat")]


# -- each game's counters -----------------------------------------------------------------------------
def test_sorry_counts_bumps_and_slides():
    """S8/S9: Red (seat 0) lands on the triangle at 30 (side 2 shows Red), slides to 33 and sends the
    Blue pawn on 31 and its own pawn on 32 back to Start."""
    state = SorryState(SorryOptions(num_players=4))
    state.pos[0], state.pos[1], state.pos[3] = 27, 32, 31  # Red 0, Red 1, Blue 0
    kind = CARD_NAMES.index("3")
    state.apply_action(kind)  # the draw (seat 0 to play)
    observer = BalanceObserver(make_game("sorry_v0"))
    observe(observer, state, 0, FORWARD_ACTION + 0)
    assert state.pos[0] == 33 and state.pos[1] == START and state.pos[3] == START
    assert observer.counts == {"bumps": 2, "slides": 1}
    state.apply_action(CARD_NAMES.index("4"))  # Blue has only pawns in Start: it must pass
    observe(observer, state, 1, PASS)
    assert observer.counts == {"bumps": 2, "slides": 1}
    assert observer.result(state)["rounds"] == 1  # two card draws, four seats


def test_gangsi_counts_reveals_and_catches_move_by_move_and_reads_the_k26_cap():
    game = make_game("gangsi_v0", num_players=3, max_rounds=2)
    observer = BalanceObserver(game)
    state = game.new_initial_state()
    state.revealed = [0b10011, 0b00100]
    state.tokens = 2
    state.winner, state.phase, state.round = KYONSHI, PH_OVER, 2
    summary = observer.result(state)
    assert summary["figures"] == {"reveals": 0, "catches": 0}  # counted from moves, none observed
    assert summary["capped"] and summary["rounds"] == 2
    assert summary["roles"] == ["Kyonshi", "hunters", "hunters"]
    state.tokens = state.threshold  # the Kyonshi took its tokens: a win by the rules
    assert not observer.result(state)["capped"]
    # Over whole games the moves' counts are the terminal state's treasures revealed and tokens taken.
    seen = {"reveals": 0, "catches": 0}
    for seed in range(4):
        game = make_game("gangsi_v0", num_players=4)
        policies = [make_policy("heuristic", "gangsi_v0", seed=seed * 4 + p) for p in range(4)]
        result = play_game(game, policies, seed, Final(BalanceObserver(game)))
        final = result.stats["final"]
        assert result.stats["figures"] == {
            "reveals": sum(bin(r).count("1") for r in final.revealed), "catches": final.tokens
        }
        seen = {k: seen[k] + v for k, v in result.stats["figures"].items()}
    assert seen["reveals"] and seen["catches"]


class Final:
    """A balance observer that also hands back the terminal state."""

    def __init__(self, observer):
        self.observer = observer
        self.before, self.after = observer.before, observer.after

    def result(self, state):
        return {**self.observer.result(state), "final": state}


def test_neighborhood_charges_hp_to_killer_and_wild_cards():
    game = make_game("neighborhood_v0", num_players=3)
    observer = BalanceObserver(game)
    state = game.new_initial_state()

    def step(change, stack=None):
        if stack is not None:
            state.stack = stack
        observer.before(state, -1, 0)
        change()
        observer.after(state)

    draw = [F_DRAW, -1, KILLER_DECK, 0, -1, -1, 1]
    step(lambda: state.hp.__setitem__(1, 7), [draw])  # a Killer card: 3 HP
    step(lambda: state.hp.__setitem__(2, 8), [[F_DRAW, -1, 2, 0, -1, -1, 1]])  # a Wild card: 2 HP
    state.thug[0] = 1

    def thug():
        state.thug[0] = 0
        state.hp[0] = 9

    step(thug, [])  # Hire a Thug's HP at the start of the turn (a Wild card)

    def knockout():
        state.hp[2], state.alive[2] = 0, False

    step(knockout, [draw])  # the Killer card takes the last 8 HP
    assert observer.counts == {"eliminations": 1, "hp_killer": 11, "hp_wild": 3, "hp_other": 0}
    assert observer.balance.derived({k: float(v) for k, v in observer.counts.items()}, 1) == {
        "Killer cards' share of HP lost": 11 / 14
    }


def test_lost_city_counts_cards_used_and_abilities():
    game = make_game("lost_city_v0", num_players=2, characters=("Jack", "Aaron"), first_player="seat0")
    observer = BalanceObserver(game)
    state = game.new_initial_state()
    state.round = 2  # T7: no ability in round 1
    state.hp[0] -= 30
    state.held[0] = lc_cards.HEALTH_10
    state.pos[1] = state.pos[0] + 1
    state._legal = None
    observe(observer, state, 0, PLAY_HEALTH)  # a +Health card played (T11)
    assert observer.counts == {"cards_drawn": 0, "cards_used": 1, "abilities": 0}
    state.held[0] = lc_cards.SPECIAL
    state._legal = None
    observe(observer, state, 0, STAY)
    observe(observer, state, 0, ABILITY)  # Jack's Fire on the seat next to him
    assert observer.counts == {"cards_drawn": 0, "cards_used": 2, "abilities": 1}
    summary = observer.result(state)
    assert summary["roles"] == ["Jack", "Aaron"] and summary["rounds"] == 2 and not summary["capped"]


def test_lost_city_round_robin_plays_every_ordered_pair_of_characters():
    balance = balance_of("lost_city_v0")
    assert len(balance.round_robin(2, {})) == 42
    assert balance.round_robin(3, {}) == [] and balance.round_robin(2, {"characters": ("Rob", "Jack")}) == []
    setting = measure("lost_city_v0", 2, {"max_rounds": 3}, games=42, with_versus=False)
    assert setting.round_robin_games == 42
    assert {name: r.games for name, r in setting.round_robin.items()} == dict.fromkeys(
        ("Aaron", "Chris", "Jack", "Jamie", "Josh", "Rob", "Safina"), 12
    )
    assert any(t.rule == "T9" and "round-robin" in t.text for t in setting.targets)
