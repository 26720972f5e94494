"""Replays (boardenvs/replay.py, scripts/replay.py): exact reproduction, files, views and pictures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import boardenvs
from boardenvs import make_game
from boardenvs.core import loop
from boardenvs.core.state import CHANCE
from boardenvs.gangsi.cards import COLOR_MASK, NUM_TREASURES
from boardenvs.gangsi.rules import DIR, KYONSHI, PH_DIR
from boardenvs.replay import FORMAT, VERSION, Recorder, RecordingEnv, Replay, ReplayError, record_game
from boardenvs_agents.arena.match import play_game
from boardenvs_agents.registry import make_policy

ROOT = Path(__file__).resolve().parents[1]

#: (game, options) covering every game, non-default options included.
GAMES = [
    ("sorry_v0", {"num_players": 3, "first_player": "random"}),
    ("gangsi_v0", {"num_players": 2}),  # one controller, two hunter pieces (K21)
    ("gangsi_v0", {"num_players": 4, "hunter_turns": True}),
    ("lost_city_v0", {"num_players": 3}),
    ("neighborhood_v0", {"num_players": 4}),
]
ALL_GAMES = ["sorry_v0", "gangsi_v0", "lost_city_v0", "neighborhood_v0"]


def play_recorded(name: str, options: dict, seed: int, max_steps: int | None = None):
    """A random game driven through a Recorder; returns (recorder, every state dict in order)."""
    game = make_game(name, **options)
    recorder = Recorder(game, seed=seed, players=["random"] * game.num_players)
    rng = np.random.default_rng(seed)
    dicts = [recorder.state.to_dict()]
    while not recorder.state.is_terminal() and (max_steps is None or len(recorder.steps) < max_steps):
        state = recorder.state
        if state.current_player() == CHANCE:
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        recorder.apply(action)
        dicts.append(recorder.state.to_dict())
    return recorder, dicts


# -- exact reproduction ----------------------------------------------------------------------------
@pytest.mark.parametrize("name,options", GAMES)
def test_a_saved_replay_reproduces_every_state_of_the_game(tmp_path, name, options):
    for seed in (0, 1):
        recorder, dicts = play_recorded(name, options, seed)
        assert recorder.state.is_terminal()
        path = recorder.replay().save(tmp_path / f"{name}_{seed}.json")
        replay = Replay.load(path, game=name)
        assert [s.to_dict() for s in replay.states()] == dicts
        assert replay.returns == [float(r) for r in recorder.state.returns()]
        assert replay.players == ["random"] * len(replay.returns)
        assert replay.seed == seed and replay.finished
        assert len(replay.steps) == len(dicts) - 1


def test_record_game_plays_the_same_game_as_play_game():
    for name, n in (("sorry_v0", 2), ("lost_city_v0", 3)):
        game = make_game(name, num_players=n)
        for seed in (3, 4):
            replay = record_game(game, [make_policy("heuristic", name) for _ in range(n)], seed)
            result = play_game(game, [make_policy("heuristic", name) for _ in range(n)], seed)
            assert replay.returns == result.returns
            assert replay.num_decisions == result.num_decisions
            assert replay.verify().is_truncated() == result.truncated
            assert replay.players == ["heuristic"] * n


@pytest.mark.parametrize("name", ALL_GAMES)
def test_recording_env_records_a_pettingzoo_game_chance_included(name):
    env = RecordingEnv(boardenvs.make(name))
    rng = np.random.default_rng(5)
    for game_seed in (7, None):  # a seeded reset, then one that continues the generator's stream
        env.reset(seed=game_seed)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if termination or truncation else int(rng.choice(legal)))
        replay = env.replay()
        assert replay.seed == game_seed
        assert any(player == CHANCE for player, _ in replay.steps)
        final = replay.verify()
        assert final.to_dict() == env.unwrapped.game_state.to_dict()
        assert replay.returns == [float(r) for r in env.unwrapped.game_state.returns()]


def test_recording_env_skips_an_illegal_move_that_ends_the_game():
    env = RecordingEnv(boardenvs.make("sorry_v0", num_players=2))
    env.reset(seed=1)
    before = env.replay()
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)  # PettingZoo's TerminateIllegalWrapper ends the game, the offender losing
    assert all(env.terminations.values())
    replay = env.replay()
    assert replay.steps == before.steps and replay.returns is None
    assert replay.verify().to_dict() == env.unwrapped.game_state.to_dict()


def test_recording_env_notices_a_state_changed_behind_its_back():
    env = RecordingEnv(boardenvs.make("sorry_v0", num_players=2, raw=True))
    env.reset(seed=1)
    other = boardenvs.make("sorry_v0", num_players=2, raw=True)
    other.reset(seed=2)
    env.load_state_dict(other.state_dict())
    with pytest.raises(RuntimeError, match="lost track"):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


# -- bad files -------------------------------------------------------------------------------------
@pytest.fixture()
def saved(tmp_path):
    recorder, _ = play_recorded("sorry_v0", {"num_players": 2}, seed=3)
    path = recorder.replay().save(tmp_path / "game.json")
    return path, json.loads(path.read_text())


def write(tmp_path, data, name="bad.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def final_after(data, stop):
    """The state dict after the steps of ``data`` up to ``stop``."""
    state = make_game(data["game"], **data["options"]).new_initial_state()
    for _, action in data["steps"][:stop]:
        state.apply_action(action)
    return state.to_dict()


def first_decision(data):
    return next(i for i, (player, _) in enumerate(data["steps"]) if player != CHANCE)


def test_the_file_says_its_format_and_version(saved):
    _, data = saved
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert data["game"] == "sorry_v0" and data["options"]["num_players"] == 2


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: "not json {", "not JSON"),
        (lambda d: {"hello": 1}, "is not a boardenvs replay"),
        (lambda d: [1, 2], "is not a boardenvs replay"),
        (lambda d: {**d, "format": "other"}, "is not a boardenvs replay"),
        (lambda d: {**d, "version": VERSION + 1}, f"format version {VERSION + 1}, written by a newer"),
        (lambda d: {**d, "version": "1"}, "bad format version"),
        (lambda d: {**d, "game": "chess_v9"}, "unknown game 'chess_v9'"),
        (lambda d: {**d, "options": {**d["options"], "num_players": 9}}, "options do not make a game"),
        (lambda d: {**d, "steps": [[0, "x"]]}, "steps must be a list"),
        (lambda d: {**d, "steps": d["steps"][:-4]}, "does not reach the recorded final state"),
        (lambda d: {**d, "steps": d["steps"][:-4], "final_state": final_after(d, -4)}, "is not terminal"),
        (lambda d: {k: v for k, v in d.items() if k != "final_state"}, "no final_state"),
        (lambda d: {**d, "final_state": None}, "no final_state"),
        (lambda d: {**d, "players": ["random"]}, "1 player labels for 2 seats"),
        (lambda d: {**d, "seeding": "os.urandom"}, "seeding must be null or one of"),
        (lambda d: {**d, "version": 1, "chance_rng": "os.urandom"}, "chance_rng must be null or one of"),
        (lambda d: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (lambda d: {**d, "returns": [-1.0, 1.0] if d["returns"][0] > 0 else [1.0, -1.0]}, "recorded returns"),
        (lambda d: {**d, "returns": None}, r"ends after its \d+ steps \(returns .*records no returns"),
        (lambda d: {**d, "steps": d["steps"] + [[0, 0]]}, "the game is already over"),
    ],
)
def test_a_bad_file_is_refused_with_a_message_that_says_why(tmp_path, saved, change, message):
    _, data = saved
    path = write(tmp_path, change(data))
    with pytest.raises(ReplayError, match=message):
        Replay.load(path)


def test_the_replay_names_the_seeding_that_drew_its_chance_and_loading_checks_it(tmp_path):
    game = make_game("sorry_v0", num_players=2)
    replay = record_game(game, [make_policy("random", "sorry_v0") for _ in range(2)], seed=5)
    assert replay.seeding == loop.SEEDING == "loop/1"  # the game loop's, as the arena plays
    assert replay.to_dict()["seeding"] == "loop/1" and "chance_rng" not in replay.to_dict()
    with pytest.raises(ReplayError, match=r"not the one seed 6 draws \(loop/1\)"):
        Replay.load(write(tmp_path, replay.to_dict() | {"seed": 6}))

    env = RecordingEnv(boardenvs.make("sorry_v0", num_players=2))
    env.reset(seed=7)
    while not all(env.terminations.values()) and not all(env.truncations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert env.replay().seeding == "env/1"  # env.reset(seed=7) draws chance with default_rng(7)
    env.replay().verify()
    env.reset(seed=None)  # the generator's stream continued: no seed, no seeding
    assert env.replay().seeding is None

    # Something else drew from the env's generator too: the outcomes no longer follow the seed alone.
    env.reset(seed=7)
    env.unwrapped.np_random.random()
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.replay().seeding is None
    env.replay().verify()

    # A Recorder says what it knows; a claim that does not hold is refused on loading.
    recorder = Recorder(game, seed=3, seeding="env/1")
    chance = np.random.default_rng(3)
    for _ in range(20):
        recorder.play_chance(chance)
        recorder.apply(recorder.state.legal_actions()[0])
    assert Replay.load(recorder.replay().save(tmp_path / "env.json")).seeding == "env/1"
    wrong = Recorder(game, seed=3, seeding="loop/1")
    wrong.play_chance(np.random.default_rng(3))
    with pytest.raises(ReplayError, match="step 1 is not the one seed 3 draws"):
        wrong.replay().verify()
    assert Recorder(game, seed=3).replay().seeding is None  # no claim, no check
    with pytest.raises(ValueError, match="seeding must be None or one of"):
        Recorder(game, seed=3, seeding="default_rng(seed)")


@pytest.mark.parametrize(
    "name,seeding",
    [("sorry_v0_record_game", "loop/1"), ("lost_city_v0_recording_env", "env/1")],
)
def test_a_version_1_file_still_loads_and_replays(tmp_path, name, seeding):
    """Files written before the seeding field (format version 1, tests/replays_v1/, written by the
    code of that time) load, replay to their recorded end, and have their chance checked against the
    seed; saved again, they are version 2 files naming the same seeding."""
    path = ROOT / "tests" / "replays_v1" / f"{name}.json"
    data = json.loads(path.read_text())
    assert data["version"] == 1 and "seeding" not in data and data["chance_rng"] is not None
    replay = Replay.load(path)
    assert replay.seeding == seeding and replay.finished
    assert replay.verify().to_dict() == data["final_state"]
    again = Replay.load(replay.save(tmp_path / "again.json"))
    assert json.loads((tmp_path / "again.json").read_text())["version"] == VERSION == 2
    assert again.seeding == seeding and again.steps == replay.steps
    with pytest.raises(ReplayError, match=f"not the one seed {data['seed'] + 1} draws"):
        Replay.load(write(tmp_path, {**data, "seed": data["seed"] + 1}))


def test_record_game_records_what_the_loop_plays():
    """record_game is the game loop with a Recorder as its observer: the same steps as a loop whose
    observer logs every action, and an observer's figures stay out of the replay."""
    game = make_game("gangsi_v0", num_players=3)

    class Log:
        def __init__(self):
            self.steps = []

        def before(self, state, player, action):
            self.steps.append((player, action))

        def after(self, state):
            pass

        def result(self, state):
            return {"steps": len(self.steps)}

    log = Log()
    played = loop.play_game(game, [make_policy("random", "gangsi_v0") for _ in range(3)], 9, observer=log)
    replay = record_game(game, [make_policy("random", "gangsi_v0") for _ in range(3)], 9)
    assert replay.steps == log.steps and played.stats == {"steps": len(log.steps)}
    assert replay.final().to_dict() == played.state.to_dict()


def test_an_illegal_action_on_replay_names_the_step(tmp_path, saved):
    _, data = saved
    i = first_decision(data)
    game = make_game("sorry_v0", num_players=2)
    state = game.new_initial_state()
    for _, action in data["steps"][:i]:
        state.apply_action(action)
    legal = list(state.legal_actions())
    data["steps"][i][1] = next(a for a in range(79) if a not in legal)
    with pytest.raises(ReplayError, match=rf"step {i + 1}: action \d+ is not legal for player_\d"):
        Replay.load(write(tmp_path, data))


def test_a_step_of_the_wrong_player_or_an_impossible_chance_outcome_is_refused(tmp_path, saved):
    _, data = saved
    i = first_decision(data)
    wrong_player = json.loads(json.dumps(data))
    wrong_player["steps"][i][0] = 1 - wrong_player["steps"][i][0]
    with pytest.raises(ReplayError, match=rf"step {i + 1}: recorded for player_\d, but player_\d is to move"):
        Replay.load(write(tmp_path, wrong_player))
    impossible = json.loads(json.dumps(data))
    impossible["steps"][0][1] = 99  # no card kind 99
    with pytest.raises(ReplayError, match="step 1: chance outcome 99 is not possible"):
        Replay.load(write(tmp_path, impossible))


def test_a_replay_of_another_game_is_refused_when_a_game_is_asked_for(saved):
    path, _ = saved
    with pytest.raises(ReplayError, match="is a replay of sorry_v0, not of gangsi_v0"):
        Replay.load(path, game="gangsi_v0")
    assert Replay.load(path, game="sorry_v0").game == "sorry_v0"


def test_an_unfinished_game_replays_too(tmp_path):
    recorder, dicts = play_recorded("lost_city_v0", {"num_players": 2}, seed=0, max_steps=30)
    replay = Replay.load(recorder.replay().save(tmp_path / "part.json"))
    assert not replay.finished and replay.returns is None
    assert [s.to_dict() for s in replay.states()] == dicts
    assert replay.result_text() == "unfinished after 30 steps"


# -- words and views -------------------------------------------------------------------------------
def test_the_text_has_one_line_per_step_and_the_result(saved):
    path, data = saved
    replay = Replay.load(path)
    lines = replay.describe()
    assert len(lines) == len(data["steps"])
    assert "chance: Red (player_0) draws" in lines[0]
    assert "player_0 (random): " in lines[1]
    text = replay.to_text()
    assert text.splitlines()[-1].startswith("result: player_") and " wins (" in text.splitlines()[-1]
    with pytest.raises(ValueError, match="view must be None or a player id 0..1"):
        replay.to_text(view=2)


def test_sorry_text_is_the_same_from_every_view():  # S1: nothing private but the deck order
    recorder, _ = play_recorded("sorry_v0", {"num_players": 2}, seed=4, max_steps=40)
    replay = recorder.replay()
    assert (
        replay.to_text(view=0, boards=True).splitlines()[2:] == replay.to_text(boards=True).splitlines()[2:]
    )


def hidden_direction_pair(seed: int):
    """A 3-player Gangsi game with random moves up to a hunter's direction decision where two
    directions leave the Kyonshi the same observation (K9), as two replays differing only there."""
    game = make_game("gangsi_v0", num_players=3)
    recorder = Recorder(game, seed=seed)
    rng = np.random.default_rng(seed)
    state = recorder.state
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            recorder.apply(state.sample_chance(rng))
            continue
        legal = list(state.legal_actions())
        if state.phase == PH_DIR and len(legal) >= 2:
            after = {}
            for action in legal:
                child = state.clone()
                child.apply_action(action)
                after.setdefault(game.observe(child, KYONSHI).tobytes(), []).append(action)
            same = next((actions for actions in after.values() if len(actions) >= 2), None)
            if same:
                first = recorder.replay()
                first.steps.append((state.current_player(), same[0]))
                second = recorder.replay()
                second.steps.append((state.current_player(), same[1]))
                first.final_state = second.final_state = None
                return first, second
        recorder.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no hidden direction choice in this game")


def test_k9_kyonshi_view_of_two_games_differing_only_in_hidden_squares_is_identical():
    first, second = hidden_direction_pair(seed=3)
    assert first.final().to_dict()["pos"] != second.final().to_dict()["pos"]
    assert first.to_text(view=KYONSHI, boards=True) == second.to_text(view=KYONSHI, boards=True)
    assert first.to_text(boards=True) != second.to_text(boards=True)  # the full view shows the squares
    assert first.to_text(view=1, boards=True) != second.to_text(view=1, boards=True)  # so do the hunters'
    kyonshi_text = first.final().render_text(view=KYONSHI)
    assert "H0" not in kyonshi_text and "H1" not in kyonshi_text
    assert "move (direction hidden)" in first.describe(view=KYONSHI)[-1]
    assert first.describe(view=1)[-1].split(": ")[-1] in (
        "move north",
        "move east",
        "move south",
        "move west",
    )


def test_k9_kyonshi_pictures_of_two_games_differing_only_in_hidden_squares_are_identical():
    first, second = hidden_direction_pair(seed=3)
    frames_a, frames_b = first.frames(view=KYONSHI), second.frames(view=KYONSHI)
    assert len(frames_a) == len(frames_b)
    for a, b in zip(frames_a, frames_b, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    game = first.make_game()
    full_a = game.render_image(first.final(), view=None)
    full_b = game.render_image(second.final(), view=None)
    assert not np.array_equal(full_a, full_b)


def test_hunters_hands_are_hidden_from_everyone_but_their_owner():
    recorder, _ = play_recorded("gangsi_v0", {"num_players": 3}, seed=2, max_steps=12)  # after the deal
    state = recorder.state
    hand = state.hand[0] & ~state.revealed[0]
    data = state.to_dict()
    dealt = data["hand"][0] | data["hand"][1]
    color_mask = next(m for m in COLOR_MASK if hand & m)
    spare = next(t for t in range(NUM_TREASURES) if color_mask >> t & 1 and not dealt >> t & 1)
    data["hand"][0] = (hand & ~color_mask) | 1 << spare
    other = type(state).from_dict(data)
    assert other.render_text(view=0) == state.render_text(view=0)  # the Kyonshi
    assert other.render_text(view=2) == state.render_text(view=2)  # hunter_1
    assert other.render_text(view=1) != state.render_text(view=1)  # hunter_0 sees its own cards
    assert other.render_text() != state.render_text()
    assert "+5 hidden" in state.render_text(view=2)


def test_deals_are_described_to_the_receiver_only():
    game = make_game("gangsi_v0", num_players=3)
    state = game.new_initial_state()
    outcome = state.chance_outcomes()[0][0]
    assert state.action_to_string(outcome, view=1).startswith("deal ")  # hunter_0 receives it
    assert "a card" not in state.action_to_string(outcome, view=1)
    assert state.action_to_string(outcome, view=0) == "deal a card to hunter_0"
    assert state.action_to_string(outcome, view=2) == "deal a card to hunter_0"
    assert state.action_to_string(DIR, view=None) != "move (direction hidden)"


# -- pictures --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL_GAMES)
def test_gif_and_png_export_have_one_frame_per_pictured_state(tmp_path, name):
    from PIL import Image

    recorder, _ = play_recorded(name, {"num_players": 3}, seed=1, max_steps=60)
    replay = recorder.replay()
    # Keep the test fast: the first few pictured states only.
    replay.steps = replay.steps[: replay.frame_indices()[min(3, len(replay.frame_indices()) - 1)]]
    replay.returns = replay.final_state = None
    wanted = replay.frame_indices()
    game = replay.make_game()
    states = list(replay.states())
    size = game.draw(states[wanted[0]]).size

    count = replay.save_gif(tmp_path / "game.gif", view=0, duration=250)
    assert count == len(wanted)
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == len(wanted)
        assert gif.width == size[0] and gif.height > size[1]  # the caption band is below
        assert gif.info["duration"] == 250

    paths = replay.save_frames(tmp_path / "frames", view=None, caption=False)
    assert [p.name for p in paths] == [f"frame_{i:04d}.png" for i in range(len(wanted))]
    for path, index in zip(paths, wanted, strict=True):
        with Image.open(path) as png:
            assert png.size == size
            assert np.array_equal(np.asarray(png.convert("RGB")), game.render_image(states[index]))


def test_every_state_frames_include_chance_states():
    recorder, _ = play_recorded("sorry_v0", {"num_players": 2}, seed=0, max_steps=6)
    replay = recorder.replay()
    assert replay.frame_indices(chance=True) == list(range(7))
    assert replay.frame_indices() == [1, 3, 5, 6]  # draw, move, draw, move...: the decision states


# -- scripts/replay.py -----------------------------------------------------------------------------
def run_script(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "replay.py"), *map(str, args)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_replay_script_prints_the_game_and_exports_pictures(tmp_path):
    recorder, _ = play_recorded("gangsi_v0", {"num_players": 3}, seed=3, max_steps=40)
    path = recorder.replay().save(tmp_path / "game.json")
    proc = run_script(path, "--view", "kyonshi")
    assert proc.returncode == 0, proc.stderr
    assert "showing what kyonshi may know" in proc.stdout
    assert "deal a card to hunter_0" in proc.stdout and "result: unfinished after 40 steps" in proc.stdout

    proc = run_script(path, "--gif", tmp_path / "out.gif", "--frames", tmp_path / "frames", "--view", "1")
    assert proc.returncode == 0, proc.stderr
    count = len(Replay.load(path).frame_indices())
    assert f"wrote {tmp_path / 'out.gif'}: {count} frames" in proc.stdout
    assert len(list((tmp_path / "frames").glob("frame_*.png"))) == count


def test_replay_script_refuses_bad_input_with_exit_code_2(tmp_path, saved):
    path, _ = saved
    proc = run_script(write(tmp_path, {"format": FORMAT, "version": 99}))
    assert proc.returncode == 2 and "written by a newer boardenvs" in proc.stderr
    proc = run_script(tmp_path / "missing.json")
    assert proc.returncode == 2 and "no such file" in proc.stderr
    proc = run_script(path, "--view", "kyonshi")
    assert proc.returncode == 2 and "--view must be 'all', a seat 0-1 or an agent name" in proc.stderr
    assert "Traceback" not in proc.stderr
    # A finished game whose file records no returns is no unfinished game: one line, exit code 2.
    _, data = saved
    proc = run_script(write(tmp_path, {**data, "returns": None}))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"replay.py: error: {tmp_path / 'bad.json'}: replay of sorry_v0: the game ends after its "
        f"{len(data['steps'])} steps (returns {data['returns']}) but the replay records no returns"
    ]


def test_replay_script_refuses_unwritable_picture_paths_before_drawing(tmp_path, saved):
    path, _ = saved
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for args, message in [
        (("--gif", tmp_path), f"--gif {tmp_path} cannot be written: {tmp_path} is a folder"),
        (("--gif", a_file / "out.gif"), "--gif"),
        (("--frames", a_file), f"--frames {a_file} cannot be written: {a_file} exists and is not a folder"),
    ]:
        proc = run_script(path, *args)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and "Traceback" not in proc.stderr
        assert "wrote" not in proc.stdout
