"""lost_city_v0 as a PettingZoo AEC env, what only Lost City has: the observation layout, seat rotation,
the draft (T2), seduction (T20), eliminations and the round cap, copies of its state's containers,
option errors and the rendered text. The contract every env keeps (API, seeding, pickling, copies and
snapshots, masks, dead steps, illegal actions, render modes) is tests/test_env_contract.py.

Rule ids (T1-T41) refer to ``docs/rules/lost_city.md`` and ``boardenvs/lost_city/env.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from env_helpers import json_copy, play_out, random_game

from boardenvs import lost_city_v0
from boardenvs.core.state import CHANCE, TERMINAL
from boardenvs.lost_city import characters as ch
from boardenvs.lost_city.cards import CARD_COUNTS, HEALTH_10, SPECIAL
from boardenvs.lost_city.env import SEAT_FEATURES, observation_size
from boardenvs.lost_city.rules import (
    ATTACK,
    END,
    P_MOVE,
    P_PICK,
    PICK,
    STAY,
    LostCityOptions,
    LostCityState,
)

OBS_SIZE = 1415
SEATS = 8 * 144
GLOB = SEATS + 7 * SEAT_FEATURES


# -- helpers ----------------------------------------------------------------------------------------
def random_rules_game(n: int, seed: int, **options):
    """Every node of a seeded random game on the rules state, with the action taken from it."""
    return random_game(LostCityState(LostCityOptions(num_players=n, **options)), seed)


def fixed_rule(mask: np.ndarray, step: int) -> int:
    """Deterministic and generator-free; prefers attacking (lowest non-move ids) to keep games short."""
    legal = np.flatnonzero(mask)
    fights = legal[(legal >= ATTACK) & (legal < END)]
    if len(fights):
        return int(fights[step % len(fights)])
    return int(legal[(7 * step + 3) % len(legal)])


def rotate_dict(data: dict, n: int) -> dict:
    """The same position with every seat's character moved to the next seat (seat references too)."""
    out = json.loads(json.dumps(data))
    for key in ("char", "hp", "pos", "held", "burn", "skip", "ctrl_turns", "shield_turns", "dealt"):
        out[key] = [data[key][(p - 1) % n] for p in range(n)]
    for key in ("ctrl", "shield_by", "burn_by"):
        out[key] = [(data[key][(p - 1) % n] + 1) % n if data[key][(p - 1) % n] >= 0 else -1 for p in range(n)]
    for key in ("to_move", "first"):
        out[key] = (data[key] + 1) % n
    out["target"] = (data["target"] + 1) % n if data["target"] >= 0 else -1
    out["outcome"] = sorted((p + 1) % n for p in data["outcome"])
    return out


# -- clones and dict round trips --------------------------------------------------------------------
def test_mutating_a_copy_leaves_the_original_alone():
    side = np.random.default_rng(99)
    for step, (state, _action) in enumerate(random_rules_game(4, seed=4, max_rounds=40)):
        if step % 23:
            continue
        before = json.dumps(state.to_dict(), sort_keys=True)
        legal_before = list(state.legal_actions())
        for copy in (state.clone(), json_copy(state)):
            play_out(copy, side)
            copy.hp[0] = 7
            copy.pos[1] = 3
            copy.deck.discard(0)
            copy.deck.unseen[1] += 3
        assert json.dumps(state.to_dict(), sort_keys=True) == before
        assert list(state.legal_actions()) == legal_before
        data = state.to_dict()
        data["hp"][0] = 5
        data["deck"]["unseen"][0] = 99
        assert json.dumps(state.to_dict(), sort_keys=True) == before


# -- observations -----------------------------------------------------------------------------------
def test_observation_layout_of_a_constructed_position():
    s = LostCityState(
        LostCityOptions(num_players=3, characters=("Rob", "Aaron", "Jack"), first_player="seat0")
    )
    s.pos = [12 * 10 + 1, 12 * 10 + 2, 12 * 0 + 11]
    s.round = 2
    s.deck.take(SPECIAL)
    s.held[0] = SPECIAL
    s.deck.take(HEALTH_10)
    s.held[2] = HEALTH_10
    s.hp[2] = 150
    s.burn[2] = 2
    s._legal = None
    s.apply_action(STAY)
    s.apply_action(31)  # Seduction on Aaron (offset 1)
    assert s.to_move == 1 and s.current_player() == 0
    game = lost_city_v0.LostCityGame(num_players=3)
    rob = game.observe(s, 0)
    assert rob[SEATS - 1] == 0  # planes: ruins, then relative seats
    ruins = set(np.flatnonzero(rob[:144]))
    assert len(ruins) == 12
    assert rob[144 * 1 + 121] == 1 and rob[144 * 2 + 122] == 1 and rob[144 * 3 + 11] == 1
    me, aaron, jack = (SEATS + SEAT_FEATURES * r for r in range(3))
    assert rob[me + 2 + ch.ROB] == 1 and rob[aaron + 2 + ch.AARON] == 1 and rob[jack + 2 + ch.JACK] == 1
    assert rob[jack + 9] == pytest.approx(150 / 260) and rob[jack + 10] == pytest.approx(150 / 200)
    assert rob[jack + 11 + HEALTH_10] == 1 and rob[jack + 19] == pytest.approx(2 / 3)
    assert rob[aaron + 21] == 1 and rob[aaron + 22] == 1  # seduced, by me
    assert rob[aaron + 24] == 1 and rob[aaron + 25] == 1  # shielded from me
    assert rob[aaron + 27] == 1 and rob[me + 28] == 1  # Aaron acts; I went first
    assert rob[GLOB + 0] == 1 and rob[GLOB + 4] == 1  # move step, acting for another seat (T20)
    assert rob[GLOB + 5] == pytest.approx(2 / 150)
    assert rob[GLOB + 29 + SPECIAL] == pytest.approx(7 / 8)  # draw pile of Specials
    assert rob[GLOB + 37 + SPECIAL] == pytest.approx(1 / 8)  # the spent card
    assert not rob[3 * SEAT_FEATURES + SEATS : GLOB].any()  # seats 3-6 absent
    jack_view = game.observe(s, 2)
    assert jack_view[SEATS + 2 + ch.JACK] == 1  # Jack is relative seat 0 in his own view
    assert jack_view[SEATS + SEAT_FEATURES * 2 + 27] == 1  # Aaron (seat 1) is two seats on
    assert jack_view[SEATS + SEAT_FEATURES * 2 + 22] == 0
    # T20: only the deciding seat (Rob) is acting for another seat's character; Jack and Aaron are not.
    assert jack_view[GLOB + 4] == 0 and game.observe(s, 1)[GLOB + 4] == 0
    assert rob[GLOB + 45 + ch.SAFINA] == 1 and rob[GLOB + 45 + ch.ROB] == 0  # characters not in play
    assert rob[GLOB + 52] == 0 and not rob[me + 29]  # not the draft; no damage dealt yet
    assert observation_size(12) == OBS_SIZE


@pytest.mark.parametrize("n", [2, 4, 7])
def test_rules_and_observations_commute_with_seat_rotation(n):
    game = lost_city_v0.LostCityGame(num_players=n, action_features=True)
    decisions = 0
    for state, _ in random_rules_game(n, seed=30 + n, max_rounds=25):
        if state.current_player() < 0:
            continue
        turned = LostCityState.from_dict(rotate_dict(state.to_dict(), n))
        mover = state.current_player()
        assert turned.current_player() == (mover + 1) % n
        assert np.array_equal(game.observe(state, mover), game.observe(turned, (mover + 1) % n))
        assert list(turned.legal_actions()) == list(state.legal_actions())
        if decisions % 5 == 0:
            for action in state.legal_actions():
                after, turned_after = state.clone(), turned.clone()
                after.apply_action(action)
                turned_after.apply_action(action)
                assert turned_after.to_dict() == rotate_dict(after.to_dict(), n)
        decisions += 1
    assert decisions > 40


def test_t20_acting_for_another_seat_bit_is_set_for_the_deciding_seat_only():
    names = ["Rob", "Aaron", "Jack", "Josh"]
    env = lost_city_v0.raw_env(num_players=4, characters=names, first_player="seat0")
    env.reset(seed=0)
    snap = env.state_dict()
    data = snap["state"]
    data["pos"] = [121, 122, 11, 0]
    data["round"] = 2
    data["held"][0] = SPECIAL
    data["deck"]["unseen"][SPECIAL] -= 1
    env.load_state_dict(snap)
    for agent in env.possible_agents:
        assert env.observe(agent)["observation"][GLOB + 4] == 0  # nobody is seduced yet
    env.step(STAY)
    env.step(31)  # Seduction on Aaron: Rob decides Aaron's turn
    assert env.agent_selection == "player_0" and env.game_state.to_move == 1
    bits = {agent: env.observe(agent)["observation"][GLOB + 4] for agent in env.possible_agents}
    assert bits == {"player_0": 1.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    env.step(STAY)
    assert env.game_state.to_move == 2  # Jack decides for himself: no bit anywhere
    assert not any(env.observe(agent)["observation"][GLOB + 4] for agent in env.possible_agents)


# -- T2: the draft through the env ---------------------------------------------------------------------
def test_t2_draft_actions_masks_and_observations():
    env = lost_city_v0.raw_env(num_players=3)
    env.reset(seed=2)
    state = env.game_state
    first = state.first
    assert state.phase == P_PICK and env.agent_selection == f"player_{first}"
    picks = [ch.CHRIS, ch.JACK, ch.SAFINA]
    for i, k in enumerate(picks):
        seat = (first + i) % 3
        picker = f"player_{seat}"
        assert env.agent_selection == picker
        mask = env.observe(picker)["action_mask"]
        assert list(np.flatnonzero(mask)) == [PICK + c for c in range(7) if c not in picks[:i]]
        for p in range(3):
            view = env.observe(f"player_{p}")
            obs = view["observation"]
            if p != seat:
                assert not view["action_mask"].any()
            assert obs[GLOB + 52] == 1  # the draft
            assert [obs[GLOB + 45 + c] for c in range(7)] == [float(c not in picks[:i]) for c in range(7)]
            me = (seat - p) % 3  # the picker, as p sees it
            assert obs[SEATS + SEAT_FEATURES * me + 27] == 1  # flagged as the seat to act
            assert obs[SEATS + SEAT_FEATURES * ((first - p) % 3) + 28] == 1  # the first player
            for j, taken in enumerate(picks[:i]):  # picks are public
                r = ((first + j) % 3 - p) % 3
                assert obs[SEATS + SEAT_FEATURES * r + 2 + taken] == 1
        env.step(PICK + k)
    state = env.game_state
    assert state.phase == P_MOVE and state.round == 1 and env.agent_selection == f"player_{first}"
    assert [state.char[(first + i) % 3] for i in range(3)] == picks
    obs = env.observe("player_0")["observation"]
    assert obs[GLOB + 52] == 0
    assert [obs[GLOB + 45 + c] for c in range(7)] == [float(c not in picks) for c in range(7)]


def test_t2_seven_player_draft_asks_six_agents_and_assigns_the_seventh_character():
    env = lost_city_v0.raw_env(num_players=7)
    env.reset(seed=3)
    first = env.game_state.first
    asked = []
    while env.game_state.phase == P_PICK:
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        assert mask.sum() >= 2  # never a pick with one character to take (T2)
        asked.append(agent)
        env.step(int(np.flatnonzero(mask)[0]))  # the first free character: Rob, then Aaron, ...
    assert asked == [f"player_{(first + i) % 7}" for i in range(6)]
    state = env.game_state
    assert state.char[(first + 6) % 7] == ch.CHRIS  # nobody picked it: assigned by the rules
    assert state.phase == P_MOVE and env.agent_selection == f"player_{first}"
    obs = env.observe("player_0")["observation"]
    assert obs[GLOB + 52] == 0 and not obs[GLOB + 45 : GLOB + 52].any()  # the draft is over, all taken


def test_t2_random_and_fixed_characters_still_work_through_the_env():
    env = lost_city_v0.raw_env(num_players=3, characters="random")
    env.reset(seed=5)
    assert env.game_state.phase == P_MOVE and -1 not in env.game_state.char  # chance did it all
    env = lost_city_v0.raw_env(num_players=2, characters=["Josh", "Rob"])
    env.reset(seed=5)
    assert env.game_state.char == [ch.JOSH, ch.ROB] and env.game_state.phase == P_MOVE


# -- eliminations and rewards through the AEC env -----------------------------------------------------
@pytest.mark.parametrize("n", [3, 7])
def test_eliminated_agents_leave_with_minus_one_and_play_goes_on(n):
    env = lost_city_v0.env(num_players=n)
    env.reset(seed=0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    eliminated_early = set()
    step = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        assert not trunc
        if term and env.unwrapped.game_state.current_player() != TERMINAL:
            eliminated_early.add(agent)
        env.step(None if term else fixed_rule(obs["action_mask"], step))
        step += 1
    state = env.unwrapped.game_state
    assert state.is_terminal()
    assert eliminated_early
    winners = [a for a, r in totals.items() if r == 1.0]
    if winners:
        assert sorted(totals.values()) == [-1.0] * (n - 1) + [1.0]
    else:
        assert set(totals.values()) <= {0.0, -1.0} and 0.0 in totals.values()
    for a in eliminated_early:
        assert totals[a] == -1.0


def test_round_cap_draw_pays_zero_to_the_tied():
    env = lost_city_v0.env(num_players=2, characters=["Rob", "Aaron"], first_player="seat0", max_rounds=1)
    env.reset(seed=0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if (term or trunc) else STAY)
    assert totals == {"player_0": 0.0, "player_1": 0.0}
    assert env.unwrapped.game_state.outcome == [0, 1]


def test_seduced_turn_is_played_by_the_seducers_agent():
    env = lost_city_v0.raw_env(num_players=3, characters=["Rob", "Aaron", "Jack"], first_player="seat0")
    env.reset(seed=0)
    snap = env.state_dict()
    data = snap["state"]
    data["pos"] = [121, 122, 11]
    data["round"] = 2
    data["held"][0] = SPECIAL
    data["deck"]["unseen"][SPECIAL] -= 1
    env.load_state_dict(snap)
    env.step(STAY)
    env.step(31)  # Seduction on Aaron
    assert env.agent_selection == "player_0"
    assert env.game_state.to_move == 1
    assert env.observe("player_1")["action_mask"].sum() == 0
    env.step(STAY)
    assert env.agent_selection == "player_2"


# -- options and rendering ------------------------------------------------------------------------
@pytest.mark.parametrize("factory", [lost_city_v0.env, lost_city_v0.raw_env])
def test_bad_options_raise(factory):
    # Unknown keys and render modes: tests/test_env_contract.py.
    with pytest.raises(ValueError, match="num_players"):
        factory(num_players=8)
    with pytest.raises(ValueError, match="characters"):
        factory(num_players=2, characters=["Rob"])
    with pytest.raises(ValueError, match="black_faces"):
        factory(black_faces="one")


@pytest.mark.parametrize("n", [2, 7])
def test_ansi_render(n):
    env = lost_city_v0.env(num_players=n, render_mode="ansi")
    env.reset(seed=n)
    for step in range(30):
        text = env.render()
        state = env.unwrapped.game_state
        assert isinstance(text, str) and text.count("\n") >= 12 + n
        for p in range(n):
            if state.char[p] >= 0:
                assert f"player_{p}: {ch.NAMES[state.char[p]]}" in text
            else:  # T2: still to pick
                assert f"player_{p}: (no character yet)" in text and "draft" in text
        assert "#" in text and state.current_player() not in (CHANCE, TERMINAL)
        env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))


def test_initial_state_round_one_move_step():
    state = lost_city_v0.LostCityGame(num_players=2).new_initial_state()
    rng = np.random.default_rng(0)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    assert state.phase == P_PICK  # T2: the draft comes first
    while state.phase == P_PICK:
        state.apply_action(state.legal_actions()[-1])
    assert state.phase == P_MOVE and state.round == 1 and STAY in state.legal_actions()
    assert sum(state.deck.unseen) == sum(CARD_COUNTS)
