"""gangsi_v0 as a PettingZoo AEC env, what only Gangsi has: agents and spaces by role, hidden
information and determinization, the observation layout and the hunters' perspective, copies of its
state's containers, option errors, eliminations and rewards, and the rendered text. The contract every
env keeps (API, seeding, pickling, copies and snapshots, masks, dead steps, illegal actions, render
modes) is tests/test_env_contract.py.

Rule ids (K1-K34) refer to ``docs/rules/gangsi.md`` and ``boardenvs/gangsi/env.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from env_helpers import fixed_rule, json_copy, masked_random, play_out, random_game

import boardenvs
from boardenvs import gangsi_v0
from boardenvs.core.state import CHANCE
from boardenvs.gangsi.cards import COLOR_MASK, NUM_TREASURES
from boardenvs.gangsi.rules import (
    DIR,
    FACE,
    KYONSHI,
    NUM_HUNTER_ACTIONS,
    NUM_KYONSHI_ACTIONS,
    PH_CHOOSE,
    PH_DEAL,
    PH_DIR,
    PH_ROLL,
    GangsiOptions,
    GangsiState,
    bits,
)

CONFIGS = [
    {"num_hunters": 2},
    {"num_hunters": 3},
    {"num_hunters": 4},
    {"num_players": 2},
    {"num_hunters": 3, "hunter_turns": True},
    {"num_hunters": 3, "action_features": True},
]
IDS = ["2h", "3h", "4h", "1ctl", "3h-turns", "3h-features"]
K_SIZE, H_SIZE = 1499, 1807


# -- helpers ----------------------------------------------------------------------------------------
def random_rules_game(seed: int, **options):
    """Every node of a seeded random game on the rules state, with the action taken from it."""
    return random_game(GangsiState(GangsiOptions(**options)), seed)


def decision_states(seed: int, every: int = 1, **options) -> list[GangsiState]:
    """Clones of the decision nodes of a random game (every ``every``-th)."""
    out = []
    for k, (state, _) in enumerate(random_rules_game(seed, **options)):
        if state.current_player() >= 0 and k % every == 0:
            out.append(state.clone())
    return out


# -- PettingZoo conformance -------------------------------------------------------------------------
def test_agents_and_spaces_by_role():
    env = gangsi_v0.env(num_hunters=4)
    assert env.possible_agents == ["kyonshi", "hunter_0", "hunter_1", "hunter_2", "hunter_3"]
    assert env.action_space("kyonshi").n == NUM_KYONSHI_ACTIONS == 5
    assert env.action_space("hunter_2").n == NUM_HUNTER_ACTIONS == 12
    assert env.observation_space("kyonshi")["observation"].shape == (K_SIZE,)
    assert env.observation_space("hunter_0")["observation"].shape == (H_SIZE,)
    assert env.observation_space("kyonshi")["action_mask"].shape == (5,)
    one = gangsi_v0.env(num_players=2)
    assert one.possible_agents == ["kyonshi", "hunter_0"]
    three = gangsi_v0.env(num_players=3)
    assert three.possible_agents == ["kyonshi", "hunter_0", "hunter_1"]


# -- clones and dict round trips ----------------------------------------------------------------------
def test_mutating_a_copy_leaves_the_original_alone():
    side = np.random.default_rng(99)
    for step, (state, _action) in enumerate(random_rules_game(4, num_hunters=3, max_rounds=15)):
        if step % 23:
            continue
        before = json.dumps(state.to_dict(), sort_keys=True)
        legal_before = list(state.legal_actions())
        for copy in (state.clone(), json_copy(state)):
            play_out(copy, side)
            copy.pos[0] = 3
            copy.hand[1] = 0
            copy.faces[2] = 4
            copy.maybe[0] = 1
            copy.lives[2] = 0
        assert json.dumps(state.to_dict(), sort_keys=True) == before
        assert list(state.legal_actions()) == legal_before
        data = state.to_dict()
        data["pos"][0] = 5
        data["maybe"][1] = 0
        assert json.dumps(state.to_dict(), sort_keys=True) == before


# -- masks and observations ----------------------------------------------------------------------------
@pytest.mark.parametrize("options", CONFIGS, ids=IDS)
def test_both_decision_phases_are_offered(options):
    # Masks, dtypes, bounds and spaces at every step: tests/test_env_contract.py.
    env = gangsi_v0.raw_env(**options)
    env.reset(seed=10)
    choose = masked_random(1)
    phases = set()
    for step in range(500):
        if not env.agents:
            break
        _, _, term, trunc, _ = env.last()
        if not (term or trunc):
            phases.add(env.game_state.phase)
        env.step(None if (term or trunc) else choose(env.observe(env.agent_selection)["action_mask"], step))
    assert {PH_CHOOSE, PH_DIR} <= phases


def test_observation_layout_of_both_roles():
    game = gangsi_v0.GangsiGame(num_hunters=3)
    s = game.new_initial_state()
    s.hand = [
        sum(1 << t for t in (0, 5, 10, 15, 19)),
        sum(1 << t for t in (1, 6, 11, 16, 20)),
        sum(1 << t for t in (2, 7, 12, 17, 21)),
    ]
    s.deal = 15
    s.pos = [59, 30, 115]  # (5,4), (2,8), (10,5)
    s.maybe = [(1 << 59) | (1 << 48), 1 << 30, 1 << 115]
    s.ky = 80
    s.revealed = [1, 0, 0]
    s.acting = 1
    s.phase = PH_CHOOSE
    s.faces = [1, 0, 2, 0, 1]
    s.aside = 1
    s._legal = None
    h1 = game.observe(s, 2)  # hunter_1 is "me": slot 0 is piece 1, slot 1 piece 2, slot 2 piece 0
    assert h1[7 * 121 + 30] == 1.0 and h1[8 * 121 + 115] == 1.0 and h1[9 * 121 + 59] == 1.0
    assert h1[6 * 121 + 80] == 1.0
    needed = {c for c in range(121) if h1[5 * 121 + c]}
    assert len(needed) == 5
    slot0, slot2 = 1573, 1573 + 100
    assert h1[slot0] == 1.0 and h1[slot0 + 49] == 1.0  # alive, acting
    assert h1[slot0 + 2 + 23 + 1] == 1.0  # my card 1 (A2), unrevealed, in hand
    assert h1[slot2 + 2 + 0] == 1.0  # piece 0 revealed A1
    assert not h1[slot2 + 25 : slot2 + 48].any()  # piece 0's hand is hidden
    assert h1[1774 + PH_CHOOSE] == 1.0
    assert list(h1[1782:1787]) == pytest.approx([0.2, 0.0, 0.4, 0.0, 0.2])
    assert h1[1787 + 1] == 1.0 and h1[1803 + 1] == 1.0
    k = game.observe(s, KYONSHI)
    assert k[6 * 121 + 80] == 1.0
    assert {c for c in range(121) if k[7 * 121 + c]} == {59, 48}
    assert {c for c in range(121) if k[8 * 121 + c]} == {30}
    assert k[1331 + 35 * 1 + 26] == 1.0  # piece 1 acting
    assert k[1331 + 2] == 1.0  # piece 0 revealed A1
    assert k[1331 + 34] == pytest.approx(2 / 121)
    assert k[1472 + PH_CHOOSE] == 1.0 and k[1480 + 1] == 1.0


@pytest.mark.parametrize("face", [2, 4], ids=["three", "arrow"])
def test_k10_steps_left_are_cleared_once_a_straight_line_move_is_made(face):
    """Hunter index 1799 (steps left in a move in progress / 4) reads the declared number while the
    direction is to be chosen and 0 once the straight-line move (K10) is made: during the next
    hunter's choice nothing is in progress (it used to keep reading 0.75 after a 3)."""
    game = gangsi_v0.GangsiGame(num_hunters=3)
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    while s.phase == PH_DEAL:
        s.apply_action(s.sample_chance(rng))
    for _ in range(5):
        s.apply_action(face)  # hunter_0 rolls five 3s (or five arrows) on the entrance
    s.apply_action(FACE + face)
    assert s.phase == PH_DIR
    in_progress = 0.75 if face == 2 else 0.0  # the arrow has no number of steps
    assert [game.observe(s, p)[1799] for p in (1, 2, 3)] == [in_progress] * 3
    s.apply_action(min(a for a in s.legal_actions() if a >= DIR))
    assert s.phase == PH_ROLL and s.acting == 1
    for _ in range(5):
        s.apply_action(0)  # hunter_1 rolls five 1s
    assert s.phase == PH_CHOOSE and s.acting == 1
    for p in (1, 2, 3):
        obs = game.observe(s, p)
        assert obs[1799] == 0.0 and not obs[1331:1573].any()  # no move in progress: planes 11-12 empty


def test_k6_the_map_is_public_to_every_role():
    """K6: walls, entrance and coffin (planes 0-4) are the same in every agent's observation."""
    game = gangsi_v0.GangsiGame(num_hunters=3)
    s = game.new_initial_state()
    maps = [game.observe(s, p)[: 5 * 121] for p in range(game.num_players)]
    assert all(np.array_equal(m, maps[0]) for m in maps)
    walls = maps[0][: 4 * 121].reshape(4, 11, 11)
    assert walls[0, 0, :].all() and walls[2, 10, :].all()  # the border blocks north and south
    assert walls.sum() > 4 * 11  # and there are walls inside the maze
    assert maps[0][4 * 121 :].sum() == 2  # the entrance and the coffin


# -- hidden information --------------------------------------------------------------------------------------
def hide_variant(state: GangsiState, rng: np.random.Generator, keep_hand_of: set[int]) -> GangsiState:
    """The same public position with hidden parts changed: the unrevealed cards of the pieces not in
    ``keep_hand_of`` redealt at random (other cards of the same colour, possibly undealt ones)."""
    v = state.clone()
    known = 0
    for j in range(v.n):
        known |= v.revealed[j]
        if j in keep_hand_of:
            known |= v.hand[j]
    for cmask in COLOR_MASK:
        needy = [j for j in range(v.n) if j not in keep_hand_of and not v.revealed[j] & cmask]
        pool = bits(cmask & ~known)
        picks = rng.permutation(pool)[: len(needy)]
        for j, card in zip(needy, picks, strict=True):
            v.hand[j] = (v.hand[j] & ~cmask) | 1 << int(card)
    v._legal = None
    return v


def move_hunters(state: GangsiState, rng: np.random.Generator) -> GangsiState:
    """Hunters moved elsewhere (any free squares), a move in progress and the roll changed."""
    v = state.clone()
    free = [c for c in range(121) if v.maze.enterable[c] and c != v.ky]
    spots = rng.permutation(free)
    for j in range(v.n):
        if v.pos[j] >= 0:
            v.pos[j] = int(spots[j])
    v.excluded = [int(rng.integers(1 << NUM_TREASURES)) for _ in range(v.n)]
    if v.phase == PH_DIR and v.cur >= 0:
        v.cur = int(spots[-1])
        v.visited = 1 << v.cur
    v.faces = [int(x) for x in rng.permutation(v.faces)]
    v._legal = None
    return v


@pytest.mark.parametrize(
    "options",
    [
        {"num_hunters": 4},
        {"num_hunters": 2, "hunter_turns": True},
        {"num_hunters": 3, "action_features": True},
        {"num_hunters": 3, "action_features": True, "action_ranks": True},
    ],
    ids=str,
)
def test_kyonshi_observation_ignores_hunter_squares_hands_and_rolls(options):
    game = gangsi_v0.GangsiGame(**options)
    rng = np.random.default_rng(0)
    checked = 0
    for s in decision_states(3, every=3, max_rounds=25, **options):
        for variant in (
            move_hunters(s, rng),
            hide_variant(s, rng, set()),
            hide_variant(move_hunters(s, rng), rng, set()),
        ):
            assert np.array_equal(game.observe(s, KYONSHI), game.observe(variant, KYONSHI))
            checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "options",
    [{"num_hunters": 4}, {"num_hunters": 3}, {"num_hunters": 2}, {"num_hunters": 3, "action_features": True}],
    ids=str,
)
def test_hunter_observation_ignores_other_hands(options):
    game = gangsi_v0.GangsiGame(**options)
    rng = np.random.default_rng(1)
    checked = 0
    for s in decision_states(4, every=3, max_rounds=25, **options):
        for player in range(1, game.num_players):
            mine = set(s.pieces_of(player))
            variant = hide_variant(s, rng, mine)
            assert np.array_equal(game.observe(s, player), game.observe(variant, player))
            checked += 1
    assert checked > 100


def test_what_an_agent_may_know_does_change_its_observation():
    game = gangsi_v0.GangsiGame(num_hunters=3)
    rng = np.random.default_rng(2)
    s = decision_states(5, every=1, max_rounds=25, num_hunters=3)[40]
    base = {p: game.observe(s, p) for p in range(4)}
    # Hunters see every hunter's square: moving them changes every hunter's view.
    moved = move_hunters(s, rng)
    for p in range(1, 4):
        assert not np.array_equal(base[p], game.observe(moved, p))
    # A hunter sees its own hand: a redeal of piece 0's cards changes hunter_0's view only.
    others = hide_variant(s, rng, {1, 2})
    assert others.hand[0] != s.hand[0]
    assert not np.array_equal(base[1], game.observe(others, 1))
    assert np.array_equal(base[2], game.observe(others, 2))
    assert np.array_equal(base[KYONSHI], game.observe(others, KYONSHI))
    # The Kyonshi sees public facts: its square, the possibility sets, reveals, tokens, dice aside.
    for field, value in (
        ("ky", (s.ky + 1) % 121),
        ("maybe", [1] * 3),
        ("revealed", [1, 0, 0]),
        ("aside", (s.aside + 1) % 6),
        ("tokens", s.tokens + 1),
    ):
        v = s.clone()
        setattr(v, field, value)
        assert not np.array_equal(base[KYONSHI], game.observe(v, KYONSHI)), field


def test_env_observations_of_hidden_variants_match():
    env_a, env_b = (
        gangsi_v0.raw_env(num_hunters=3, max_rounds=25),
        gangsi_v0.raw_env(num_hunters=3, max_rounds=25),
    )
    env_a.reset(seed=0)
    env_b.reset(seed=0)
    rng = np.random.default_rng(3)
    s = decision_states(8, every=1, max_rounds=25, num_hunters=3)[60]
    for variant, same in (
        (move_hunters(s, rng), ["kyonshi"]),
        (hide_variant(s, rng, {0}), ["kyonshi", "hunter_0"]),
    ):
        for env, st in ((env_a, s), (env_b, variant)):
            snap = env.state_dict()
            snap["state"] = st.to_dict()
            snap["agent_selection"] = env.possible_agents[st.current_player()]
            env.load_state_dict(snap)
        for agent in same:
            assert np.array_equal(env_a.observe(agent)["observation"], env_b.observe(agent)["observation"])


def test_no_deck_order_is_stored():
    s = GangsiState(GangsiOptions(num_hunters=2))
    assert set(s.to_dict()) == {
        "game", "options", "pos", "lives", "ky", "tokens", "hand", "revealed", "excluded", "deal",
        "aside", "to_roll", "faces", "rerolls", "acting", "phase", "face", "steps", "cur", "visited",
        "ky_steps", "interrupt", "round", "winner", "truncated", "maybe", "since", "last_face",
    }  # fmt: skip
    # Each card is dealt at a chance node, uniformly among the cards of its colour still undealt.
    assert s.chance_outcomes() == [(k, pytest.approx(0.2)) for k in range(5)]


# -- determinize ------------------------------------------------------------------------------------------
def check_hands(state: GangsiState) -> None:
    seen = 0
    for h in state.hand:
        assert [bin(h & m).count("1") for m in COLOR_MASK] == [1] * 5
        assert not seen & h
        seen |= h


@pytest.mark.parametrize("options", [{"num_hunters": 4}, {"num_hunters": 2, "hunter_turns": True}], ids=str)
def test_determinize_depends_only_on_what_the_player_knows(options):
    rng = np.random.default_rng(9)
    game = gangsi_v0.GangsiGame(**options)
    for s in decision_states(6, every=9, max_rounds=25, **options):
        # The Kyonshi: positions from the public sets, all hidden cards redealt.
        variant = hide_variant(move_hunters(s, rng), rng, set())
        variant.maybe = s.maybe[:]
        a = s.determinize(KYONSHI, np.random.default_rng(5))
        b = variant.determinize(KYONSHI, np.random.default_rng(5))
        assert a.to_dict() == b.to_dict()
        assert np.array_equal(game.observe(a, KYONSHI), game.observe(s, KYONSHI))
        check_hands(a)
        m = a.maze
        taken = [p for p in a.pos if p >= 0 and p not in (m.entrance, m.coffin)]
        assert len(taken) == len(set(taken)) and a.ky not in taken
        for j, p in enumerate(a.pos):
            assert (p < 0) == (s.pos[j] < 0)
            if p >= 0:
                assert a.maybe[j] >> p & 1
            assert a.revealed[j] == s.revealed[j] and a.revealed[j] & ~a.hand[j] == 0
        # A hunter: own hand and every square kept; other unrevealed cards redealt.
        for player in range(1, game.num_players):
            mine = set(s.pieces_of(player))
            variant = hide_variant(s, rng, mine)
            a = s.determinize(player, np.random.default_rng(6))
            b = variant.determinize(player, np.random.default_rng(6))
            assert a.to_dict() == b.to_dict()
            assert a.pos == s.pos and [a.hand[j] for j in mine] == [s.hand[j] for j in mine]
            check_hands(a)
            for j in range(a.n):
                assert not a.hand[j] & a.excluded[j] & ~a.revealed[j]
            assert np.array_equal(game.observe(a, player), game.observe(s, player))
            # The sample plays on.
            assert list(a.legal_actions()) == list(s.legal_actions())


def test_determinize_varies_with_the_generator():
    s = next(
        s
        for s in decision_states(2, every=1, max_rounds=25, num_hunters=4)
        if s.round > 3 and all(bin(m).count("1") > 1 for m in s.maybe if m)
    )
    kyonshi = {json.dumps(s.determinize(KYONSHI, np.random.default_rng(k)).pos) for k in range(20)}
    hands = {tuple(s.determinize(1, np.random.default_rng(k)).hand) for k in range(20)}
    assert len(kyonshi) > 1 and len(hands) > 1


# -- options ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "factory", [gangsi_v0.env, gangsi_v0.raw_env, lambda **kw: boardenvs.make("gangsi_v0", **kw)]
)
def test_bad_options_raise(factory):
    # Unknown keys and render modes: tests/test_env_contract.py.
    for bad, match in (
        ({"num_hunters": 5}, "num_hunters"),
        ({"num_players": 6}, "num_players"),
        ({"hunter_turns": "yes"}, "hunter_turns"),
        ({"kyonshi_die": ()}, "kyonshi_die"),
        ({"kyonshi_die": (1, 2, 99)}, "kyonshi_die"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"round_cap": "draw"}, "round_cap"),
        ({"hunter_win_rewards": "all"}, "hunter_win_rewards"),
        ({"one_controller": True, "num_hunters": 3}, "one_controller"),
        ({"maze": ("+---+",)}, "maze"),
    ):
        with pytest.raises(ValueError, match=match):
            factory(**bad)


# -- rewards and eliminations through the env ----------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"num_hunters": 2},
        {"num_hunters": 4},
        {"num_players": 2},
        {"num_hunters": 3, "hunter_win_rewards": "others_zero"},
    ],
    ids=str,
)
def test_env_rewards_sum_and_eliminated_agents_finish_early(options):
    eliminated_seen = 0
    # Four hunters play the full 80 rounds so that a random Kyonshi eliminates some piece (K25).
    rounds = 80 if options.get("num_hunters") == 4 else 30
    for game in range(12):
        env = gangsi_v0.env(max_rounds=rounds, **options)
        env.reset(seed=300 + game)
        rng = np.random.default_rng(game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term and env.unwrapped.game_state.phase != 7:
                eliminated_seen += 1  # done while the game goes on (K25)
                assert reward == -1.0 or totals[agent] == -1.0
            env.step(None if (term or trunc) else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.unwrapped.game_state
        assert totals == dict(zip(env.possible_agents, state.returns(), strict=True))
        assert sorted(totals.values())[-1] == 1.0
    if options.get("hunter_win_rewards") is None and options.get("num_hunters", 2) == 4:
        assert eliminated_seen > 0


# -- rendering ----------------------------------------------------------------------------------------------
def test_ansi_render():
    env = gangsi_v0.env(num_hunters=3, render_mode="ansi")
    env.reset(seed=1)
    for step in range(30):
        text = env.render()
        assert isinstance(text, str)
        assert "kyonshi at" in text and "hunter_2 at" in text and "EN" in text
        env.step(fixed_rule(env.observe(env.agent_selection)["action_mask"], step))
    assert "round" in env.render()
    assert env.unwrapped.game_state.current_player() != CHANCE


# -- the hunters' perspective -------------------------------------------------------------------------------
def rotate_pieces(state: GangsiState) -> GangsiState:
    """The same position with piece ``j``'s everything moved to piece ``j + 1`` (mod the count)."""
    v = state.clone()
    n = v.n
    for name in ("pos", "lives", "hand", "revealed", "excluded", "maybe", "since", "last_face"):
        values = getattr(state, name)
        setattr(v, name, [values[(j - 1) % n] for j in range(n)])
    if state.acting >= 0:
        v.acting = (state.acting + 1) % n
    v._legal = None
    return v


@pytest.mark.parametrize("n", [2, 3, 4])
def test_hunter_observations_are_relative_to_the_observer(n):
    game = gangsi_v0.GangsiGame(num_hunters=n)
    checked = 0
    states = [s for seed in range(3) for s in decision_states(seed, every=2, max_rounds=20, num_hunters=n)]
    for s in states[:60]:
        turned = rotate_pieces(s)
        for j in range(n):
            a = game.observe(s, 1 + j)
            b = game.observe(turned, 1 + (j + 1) % n)
            assert np.array_equal(a, b)
        # Not trivially equal: the same seat sees another picture after the rotation.
        assert not np.array_equal(game.observe(s, 1), game.observe(turned, 1))
        checked += 1
    assert checked > 25
