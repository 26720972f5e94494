"""State dicts of every game and env snapshots: read back exactly; a missing, unknown, mistyped or
out-of-range field is refused with one line naming it (boardenvs/core/fields.py), and so is
bookkeeping that does not fit the rules state; clear errors from an env whose game is over."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import boardenvs
from boardenvs import make_game
from boardenvs.core.fields import Fields, StateDictError, flag, integer, integers
from boardenvs.core.state import CHANCE

GAMES = {
    "sorry_v0": {"num_players": 2},
    "gangsi_v0": {"num_players": 3},
    "lost_city_v0": {"num_players": 3},
    "neighborhood_v0": {"num_players": 3},
}
#: Fields the rules give no upper bound (counters and statistics; the observations clamp them).
UNBOUNDED = {
    "gangsi_v0": {"rerolls"},
    "lost_city_v0": {"skip", "dealt"},
    "neighborhood_v0": {"thug", "hp_lost"},
}
#: Fields read as dicts or with a structure of their own, tested one by one below.
NESTED = {"game", "options", "deck", "decks", "stack", "chance"}
TOO_BIG = 2**200  # past every bound, cell and card bit sets included


def random_states(name, seed, limit=400):
    """The states of a random game, in order (at most ``limit``)."""
    game = make_game(name, **GAMES[name])
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    out = [state.clone()]
    while not state.is_terminal() and len(out) < limit:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        out.append(state.clone())
    return game, out


def refused(game, data, message: str) -> str:
    """Load ``data`` (the state class's ``from_dict`` and the game's ``state_from_dict``) and check
    both refuse it with one line that starts as ``message`` says (a regular expression after the
    ``"<game> state: "`` prefix). Returns the message."""
    for load in (type(game.new_initial_state()).from_dict, game.state_from_dict):
        with pytest.raises(StateDictError) as err:
            load(data)
        text = str(err.value)
        assert "\n" not in text
        assert re.match(f"{game.name} state: {message}", text), text
    return text


@pytest.fixture(scope="module", params=GAMES)
def mid_game(request):
    """A game and one of its states some way into a random game (its dict, JSON-clean)."""
    game, states = random_states(request.param, seed=2, limit=30)
    return game, json.loads(json.dumps(states[-1].to_dict()))


def field_paths(data):
    """``(key, path, value, changed dict)`` of every integer or flag of a state dict outside the
    :data:`NESTED` fields, one list item (the first, or a new one in an empty list) standing for
    its list."""
    for key, value in data.items():
        if key in NESTED:
            continue
        if isinstance(value, list):
            yield (
                key,
                f"{key}[0]",
                value[0] if value else None,
                lambda v, k=key: {**data, k: [v, *data[k][1:]]},
            )
        else:
            yield key, key, value, lambda v, k=key: {**data, k: v}


@pytest.mark.parametrize("name", GAMES)
def test_every_state_of_a_game_reads_back_exactly(name):
    game, states = random_states(name, seed=1)
    for state in states:
        data = json.loads(json.dumps(state.to_dict()))
        assert game.state_from_dict(data).to_dict() == data


# -- every field of every game: out of range, of the wrong type, dropped; an unknown key -------------
def test_each_integer_field_below_its_range_is_named(mid_game):
    game, data = mid_game
    checked = 0
    for _, path, value, changed in field_paths(data):
        if isinstance(value, bool):
            continue
        refused(game, changed(-7), rf"{re.escape(path)} = -7 is (outside -?\d+\.\.\d+|below -?\d+)")
        checked += 1
    assert checked >= 5  # Sorry has the fewest: pos, card, to_move, turn, winner


def test_each_integer_field_above_its_range_is_named(mid_game):
    game, data = mid_game
    unbounded = UNBOUNDED.get(game.name, set())
    for key, path, value, changed in field_paths(data):
        if isinstance(value, bool):
            continue
        if key in unbounded:  # the rules set no bound: it loads
            game.state_from_dict(changed(TOO_BIG))
            continue
        refused(game, changed(TOO_BIG), rf"{re.escape(path)} = {TOO_BIG} is outside -?\d+\.\.\d+")


def test_each_field_of_the_wrong_type_is_named(mid_game):
    game, data = mid_game
    for key in data:
        refused(game, {**data, key: "x"}, rf"{key} = 'x' is not ")
    for _key, path, value, changed in field_paths(data):
        wrong = 1 if isinstance(value, bool) else True  # a number is no flag, a flag no integer
        kind = "true or false" if isinstance(value, bool) else "an integer"
        refused(game, changed(wrong), rf"{re.escape(path)} = {wrong} is not {kind}$")
        if value is not None and not isinstance(value, bool):
            refused(
                game, changed(float(value)), rf"{re.escape(f'{path} = {float(value)}')} is not an integer$"
            )


def test_each_dropped_field_is_named(mid_game):
    game, data = mid_game
    for key in data:
        refused(game, {k: v for k, v in data.items() if k != key}, f"missing key '{key}'$")


def test_an_unknown_key_is_named(mid_game):
    game, data = mid_game
    refused(game, {**data, "hp_max": 3}, r"unknown key 'hp_max' \(the keys are .*\)$")
    deck = "decks" if "decks" in data else "deck" if "deck" in data else None
    if deck == "deck":
        refused(game, {**data, "deck": {**data["deck"], "top": [1]}}, r"unknown key 'deck\.top'")
    elif deck == "decks":
        decks = [dict(d) for d in data["decks"]]
        decks[2]["top"] = [1]
        refused(game, {**data, "decks": decks}, r"unknown key 'decks\[2\]\.top'")


def test_a_state_dict_that_is_no_dict_is_refused(mid_game):
    game, _ = mid_game
    for data, kind in ((None, "NoneType"), ([1, 2], "list"), ("state", "str")):
        refused(game, data, f"expected a dict, got {kind}$")


def test_a_state_of_another_game_or_other_options_is_refused(mid_game):
    game, data = mid_game
    refused(game, {**data, "game": "chess_v0"}, f"game = 'chess_v0' is not '{game.name}'$")
    cap = "max_turns" if game.name == "sorry_v0" else "max_rounds"
    other = {**data, "options": {**data["options"], cap: data["options"][cap] + 1}}
    type(game.new_initial_state()).from_dict(other)  # a state of that game, but with other options
    with pytest.raises(StateDictError, match=f"^{game.name} state: made with options .*, this game has"):
        game.state_from_dict(other)
    refused(game, {**data, "options": {**data["options"], cap: 0}}, f"options: .*{cap} must be at least 1")


# -- the audit's cases and the checks across fields, game by game ----------------------------------
def test_lost_city_hp_past_the_starting_hp_is_refused_naming_the_character():
    """The audit: hp=[999]*4 loaded and the observation reached 4.995, outside its [0, 1] space."""
    game = make_game("lost_city_v0", num_players=4, characters=("Aaron", "Safina", "Rob", "Jack"))
    data = game.new_initial_state().to_dict()
    text = refused(game, {**data, "hp": [250, 260, 999, 200]}, "")
    assert text == "lost_city_v0 state: hp[2] = 999 is outside 0..250 (Rob's starting HP)"
    refused(game, {**data, "hp": [999] * 4}, re.escape("hp[0] = 999 is outside 0..250 (Aaron's starting HP)"))
    refused(game, {**data, "hp": [250, 261, 250, 200]}, re.escape("hp[1] = 261 is outside 0..260 (Safina's"))


def test_state_from_dict_of_none_says_what_it_expected():
    for name in GAMES:
        with pytest.raises(StateDictError, match=f"^{name} state: expected a dict, got NoneType$"):
            make_game(name).state_from_dict(None)


def lost_city_position():
    game = make_game("lost_city_v0", num_players=3, characters=("Rob", "Aaron", "Jack"), first_player="seat0")
    return game, game.new_initial_state().to_dict()


def sorry_position():
    game, states = random_states("sorry_v0", seed=2, limit=30)
    return game, states[-1].to_dict()


def gangsi_position():
    game, states = random_states("gangsi_v0", seed=2, limit=30)
    return game, states[-1].to_dict()


def neighborhood_position():
    game, states = random_states("neighborhood_v0", seed=2, limit=30)
    return game, states[-1].to_dict()


def changed_deck(data, key, **counts):
    deck = json.loads(json.dumps(data[key]))
    for pile, (kind, delta) in counts.items():
        deck[pile][kind] += delta
    return {**data, key: deck}


# (position, change, the message after "<game> state: ")
CROSS_FIELD = [
    (
        sorry_position,
        lambda d: {**d, "pos": [33, 33, *d["pos"][2:]]},
        r"pos\[1\] = 33: another pawn stands there",
    ),
    (sorry_position, lambda d: {**d, "winner": 1}, "winner = 1, whose pawns are not all Home"),
    (sorry_position, lambda d: {**d, "choosing_first": True}, "choosing_first = true, but first_player"),
    (
        sorry_position,
        lambda d: changed_deck(d, "deck", unseen=(d["card"], 1)),  # the drawn card is in the deck too
        r"deck holds 4 cards of kind 3 and 1 are elsewhere: the game has 4$",
    ),
    (
        sorry_position,
        lambda d: {**d, "deck": {**d["deck"], "unseen": [1] * 5}},
        "deck.unseen has 5 items, not 11",
    ),
    (lost_city_position, lambda d: {**d, "char": [0, 0, 3]}, r"char = \[0, 0, 3\]"),
    (lost_city_position, lambda d: {**d, "pos": [0, 0, 1]}, r"pos\[1\] = 0: another character stands there"),
    (
        lost_city_position,
        lambda d: {**changed_deck(d, "deck", unseen=(4, -1)), "held": [4, -1, -1]},
        r"held\[0\] = 4: bad cards are not kept",
    ),
    (lost_city_position, lambda d: changed_deck(d, "deck", discards=(7, 1)), "deck holds 9 cards of kind 7"),
    (
        lost_city_position,
        lambda d: {**d, "outcome": [1]},
        r"outcome = \[1\]: the winners once the game is over",
    ),
    (lost_city_position, lambda d: {**d, "round": 152}, r"round = 152 is outside 1\.\.151"),
    (
        lost_city_position,
        lambda d: {**d, "options": {**d["options"], "num_players": 9}},
        "options: num_players",
    ),
    (gangsi_position, lambda d: {**d, "tokens": 2}, "tokens = 2, not the 0 lives lost"),
    (gangsi_position, lambda d: {**d, "pos": [-1, d["pos"][1]]}, r"pos\[0\] = -1 with 3 lives"),
    (
        gangsi_position,
        lambda d: {**d, "revealed": [1 << 22, 0]},
        r"revealed\[0\] holds a card not in the hand",
    ),
    (gangsi_position, lambda d: {**d, "phase": 7}, "phase = over with winner -1"),
    (neighborhood_position, lambda d: {**d, "alive": [True, False, True]}, r"alive\[1\] = False with 10 HP"),
    (neighborhood_position, lambda d: {**d, "direction": 0}, "direction = 0"),
    (neighborhood_position, lambda d: {**d, "legal": [239, 238]}, r"legal = \[239, 238\]"),
    (
        neighborhood_position,
        lambda d: {**d, "chance": [0, 7]},
        r"chance\[1\] = 7 is outside 6\.\.6 \(die_faces\)",
    ),
    (neighborhood_position, lambda d: {**d, "stack": [[99, -1]]}, r"stack\[0\] = \[99, -1\] is not a frame"),
]


@pytest.mark.parametrize("position,change,message", CROSS_FIELD)
def test_fields_that_do_not_make_a_position_together_are_refused(position, change, message):
    game, data = position()
    game.state_from_dict(data)  # the position itself loads
    refused(game, change(json.loads(json.dumps(data))), message)


def test_neighborhood_deck_counts_are_checked_per_deck():
    game, data = neighborhood_position()
    decks = json.loads(json.dumps(data["decks"]))
    decks[1]["unseen"][0] = 99
    refused(
        game,
        {**data, "decks": decks},
        r"decks\[1\]\.unseen\[0\] = 99 is outside 0\.\.\d+ \(cards of that kind",
    )


def test_fields_name_the_key_the_value_and_what_is_allowed():
    f = Fields({"a": 3, "b": True, "c": [1, 2, 3], "d": "x", "e": [5, 6]}, "toy")
    v = f.read({"a": integer(0, 5), "b": flag(), "c": integers(3, 0, 3)})
    assert v == {"a": 3, "b": True, "c": [1, 2, 3]}
    with pytest.raises(StateDictError, match=r"^toy: a = 3 is outside 4\.\.5$"):
        f.value("a", integer(4, 5))
    with pytest.raises(StateDictError, match=r"^toy: a = 3 is outside 4\.\.5 \(the rule\)$"):
        f.value("a", integer(4, 5, "the rule"))
    with pytest.raises(StateDictError, match="^toy: b = True is not an integer$"):
        f.value("b", integer(0, None))
    with pytest.raises(StateDictError, match=r"^toy: c\[2\] = 3 is outside 0\.\.2$"):
        f.value("c", integers(3, 0, 2))
    with pytest.raises(StateDictError, match=r"^toy: e\[1\] = 6 is outside 0\.\.5 \(second\)$"):
        f.value("e", integers(2, 0, [9, 5], ["first", "second"]))  # one bound and note per item
    with pytest.raises(StateDictError, match=r"^toy: c has 3 items, not 2$"):
        f.value("c", integers(2, 0, 3))
    with pytest.raises(StateDictError, match="^toy: d = 'x' is not true or false$"):
        f.value("d", flag())
    with pytest.raises(StateDictError, match="^toy: missing key 'z'$"):
        f.get("z")
    fresh = Fields({"a": 3, "b": True, "c": [1, 2, 3], "d": "x"}, "toy")
    fresh.read({"a": integer(0, 5), "b": flag(), "c": integers(3, 0, 3)})
    with pytest.raises(StateDictError, match=r"^toy: unknown key 'd' \(the keys are a, b, c\)$"):
        fresh.finish()
    with pytest.raises(StateDictError, match=r"^toy: a = -1 is below 0$"):
        Fields({"a": -1}, "toy").value("a", integer(0, None))
    nested = Fields({"deck": {"unseen": "many"}}, "toy").sub("deck")
    with pytest.raises(StateDictError, match="^toy: deck.unseen = 'many' is not a list$"):
        nested.value("unseen", integers(None, 0, None))
    long = Fields({"a": list(range(100))}, "toy")
    with pytest.raises(StateDictError, match=r"^toy: a = \[0, 1, 2, .*\.\.\. is not an integer$"):
        long.value("a", integer(0, None))  # a long value is cut to one short line


def test_a_position_where_the_player_to_move_cannot_move_is_refused():
    from boardenvs.core.fields import check_playable

    class Stuck:
        def current_player(self):
            return 0

        def legal_actions(self):
            return []

    with pytest.raises(StateDictError, match="player 0 is to move and cannot"):
        check_playable(Stuck(), 2, "toy state")


# -- env snapshots and a finished game ---------------------------------------------------------------
def finished_env(name, wrapped):
    env = boardenvs.make(name, raw=not wrapped, **GAMES[name])
    env.reset(seed=1)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return env


@pytest.mark.parametrize("name", GAMES)
def test_step_and_last_after_the_game_say_it_is_over(name):
    raw = finished_env(name, wrapped=False)
    for call in (raw.last, lambda: raw.step(0)):
        with pytest.raises(RuntimeError, match=f"{name}: .* after the game is over .*call reset"):
            call()
    with pytest.raises(RuntimeError, match="after the game is over"):
        finished_env(name, wrapped=True).last()
    fresh = boardenvs.make(name, raw=True, **GAMES[name])
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        fresh.step(0)


@pytest.mark.parametrize("name", GAMES)
def test_the_snapshot_of_a_finished_game_loads(name):
    snap = json.loads(json.dumps(finished_env(name, wrapped=False).state_dict()))
    assert snap["agents"] == [] and snap["stopped_by"] is None
    fresh = boardenvs.make(name, raw=True, **GAMES[name])
    fresh.load_state_dict(snap)
    assert fresh.state_dict() == snap
    with pytest.raises(RuntimeError, match="after the game is over"):
        fresh.step(0)


def sorry_env(seed=4, steps=3):
    env = boardenvs.make("sorry_v0", raw=True, num_players=2)
    env.reset(seed=seed)
    for _ in range(steps):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    return env


def put_back_the_card(data):
    """A Sorry state dict before its card was drawn: a chance node."""
    data = changed_deck(data, "deck", unseen=(data["card"], 1))
    return {**data, "card": -1}


def test_an_env_snapshot_with_bad_values_is_refused_and_leaves_the_env_as_it_was():
    good = sorry_env(4).state_dict()
    other = sorry_env(5)
    before = other.state_dict()
    for change, message in [
        ({"agent_selection": "nobody"}, "agent_selection = 'nobody' is not one of"),
        ({"terminations": {"player_0": "garbage", "player_1": False}}, "terminations = .* does not map"),
        ({"agents": ["player_0", "player_0"]}, "agents = .* are not distinct agents"),
        ({"agents": ["player_1", "player_0"]}, "in that order"),
        ({"rng": 5}, "rng is not a PCG64 generator state"),
        ({"rewards": {"player_0": float("nan"), "player_1": 0.0}}, "rewards = .* does not map"),
        ({"state": {**good["state"], "to_move": -7}}, "sorry_v0 state: to_move = -7 is outside 0..1"),
        ({"stopped_by": "nobody"}, "stopped_by = 'nobody' is not null or an agent"),
        ({"extra": 1}, "unknown key 'extra'"),
        ({"state": put_back_the_card(good["state"])}, "state is at a chance node"),
    ]:
        with pytest.raises(StateDictError, match=message) as err:
            other.load_state_dict({**good, **change})
        assert "\n" not in str(err.value)
        assert other.state_dict() == before
    for key in good:
        with pytest.raises(StateDictError, match=f"missing key '{key}'"):
            other.load_state_dict({k: v for k, v in good.items() if k != key})
    other.load_state_dict(good)
    assert other.state_dict() == good


def test_env_bookkeeping_that_does_not_fit_the_rules_state_is_refused():
    """The audit loaded ``agents == []`` in the middle of a game (not terminal): the env then said the
    game was over while the rules went on. Every table must be what play makes of the rules state."""
    env = sorry_env(4)
    good = env.state_dict()
    mover = good["agent_selection"]
    other = "player_1" if mover == "player_0" else "player_0"
    both = ["player_0", "player_1"]
    zero, no = dict.fromkeys(both, 0.0), dict.fromkeys(both, False)
    for change, message in [
        ({"agents": [], **{k: {} for k in ("rewards", "cumulative_rewards", "terminations", "truncations")}},
         "agents = \\[\\] lacks player_0, who is still in the game"),
        ({"rewards": {**zero, mover: 1.0}}, f"rewards = .*: {mover}'s should be 0.0, not 1.0"),
        ({"cumulative_rewards": {**zero, other: -1.0}}, f"cumulative_rewards = .*: {other}'s should be 0.0"),
        ({"terminations": {**no, other: True}}, f"terminations = .*: {other} is done, but still"),
        ({"truncations": {**no, mover: True}}, f"truncations = .*: {mover} is done, but still"),
        ({"agent_selection": other}, f"agent_selection = {other}, but {mover} is to move"),
        ({"skip_agent_selection": other}, "skip_agent_selection = .* but no dead step is pending"),
        ({"stopped_by": mover}, "terminations = .*: every agent is done once an illegal action stopped"),
    ]:  # fmt: skip
        with pytest.raises(StateDictError, match=f"^sorry_v0 env snapshot: {message}"):
            env.load_state_dict({**good, **change})
    assert env.state_dict() == good


def test_a_game_over_by_the_rules_must_have_every_agent_done():
    env = finished_env("sorry_v0", wrapped=False)
    snap = env.state_dict()
    live = {**snap, "agents": ["player_0"], "agent_selection": "player_0"}
    for key in ("rewards", "cumulative_rewards"):
        live[key] = {"player_0": 0.0}
    live["terminations"] = live["truncations"] = {"player_0": False}
    with pytest.raises(StateDictError, match="player_0 is not done, but the game is over"):
        env.load_state_dict(live)


def test_an_elimination_with_its_dead_step_pending_loads_and_is_checked():
    """Lost City knocks players out mid-game (T26): their snapshots, dead step pending, load; a dead
    step selected out of turn, or a waiting reward lost, is refused."""
    env = boardenvs.make("lost_city_v0", raw=True, num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        while env.agents and not env._skip_agent_selection:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))) if mask.any() else None)
        if env.agents and not env.game_state.is_terminal():
            break
    else:
        pytest.fail("no elimination in 20 games")
    snap = json.loads(json.dumps(env.state_dict()))
    out = snap["agent_selection"]
    assert snap["terminations"][out] and snap["cumulative_rewards"][out] == -1.0
    fresh = boardenvs.make("lost_city_v0", raw=True, num_players=3)
    fresh.load_state_dict(snap)
    assert fresh.state_dict() == snap
    nxt = snap["skip_agent_selection"]
    with pytest.raises(StateDictError, match=f"agent_selection = {nxt}, but {out} takes its dead step"):
        fresh.load_state_dict({**snap, "agent_selection": nxt})
    with pytest.raises(StateDictError, match=f"cumulative_rewards = .*: {out}'s should be -1.0, not 0.0"):
        fresh.load_state_dict({**snap, "cumulative_rewards": {**snap["cumulative_rewards"], out: 0.0}})
    with pytest.raises(StateDictError, match="skip_agent_selection = None, not player_"):
        fresh.load_state_dict({**snap, "skip_agent_selection": None})


@pytest.mark.parametrize("name", GAMES)
def test_a_game_stopped_by_an_illegal_action_snapshots_and_loads_to_the_end(name):
    """env() ends the game on an illegal action (-1 for the offender): every agent is done though the
    rules went on. Its snapshots say so (``stopped_by``) and load, down to ``agents == []``; without the
    mark the same snapshot is refused."""
    env = boardenvs.make(name, **GAMES[name])
    env.reset(seed=3)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))  # illegal
    raw = env.unwrapped
    snaps = []
    while True:
        snaps.append(json.loads(json.dumps(raw.state_dict())))
        if not env.agents:
            break
        env.step(None)
    assert all(s["stopped_by"] == offender for s in snaps) and snaps[-1]["agents"] == []
    for snap in snaps:
        fresh = boardenvs.make(name, raw=True, **GAMES[name])
        fresh.load_state_dict(snap)
        assert fresh.state_dict() == snap
    first = boardenvs.make(name, **GAMES[name])  # the wrapped env takes the dead steps after a load
    first.reset(seed=9)
    first.unwrapped.load_state_dict(snaps[0])
    for agent in first.agent_iter():
        _, reward, term, trunc, _ = first.last()
        assert term and trunc and reward == (-1.0 if agent == offender else 0.0)
        first.step(None)
    with pytest.raises(StateDictError, match="agents = \\[\\] lacks "):
        fresh.load_state_dict({**snaps[-1], "stopped_by": None})
    env.reset(seed=3)
    assert raw.state_dict()["stopped_by"] is None
