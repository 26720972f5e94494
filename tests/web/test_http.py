"""The web app over HTTP (Starlette's TestClient): what the server sends a seat (hidden information
stays on the server), bad input (a 4xx with one line, nothing changed), games kept in SQLite across a
fresh app, replay uploads checked as content, the command's defaults."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image
from starlette.testclient import TestClient

from boardenvs import make_game
from boardenvs.core.state import CHANCE
from boardenvs.gangsi.rules import KYONSHI
from boardenvs_agents.scripts.serve import parse_args
from boardenvs_agents.web.app import create_app
from boardenvs_agents.web.session import MAX_REPLAY_BYTES, Table, board

#: A game of each kind, the person in seat 0 against the heuristic.
GAMES = {
    "sorry_v0": "num_players=2",
    "gangsi_v0": "num_players=2",
    "lost_city_v0": "num_players=2",
    "neighborhood_v0": "num_players=3",
}


@pytest.fixture
def database(tmp_path):
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(database):
    with TestClient(create_app(database)) as c:
        yield c


def start(client: TestClient, query: str) -> str:
    """Start a game by URL; its id (from the redirect to its page)."""
    response = client.get(f"/new?{query}", follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/game/")
    return location.removeprefix("/game/")


def view(client: TestClient, game_id: str, query: str = "") -> dict:
    response = client.get(f"/api/game/{game_id}{query}")
    assert response.status_code == 200, response.text
    return response.json()


def advance(client: TestClient, game_id: str, moves: int, pick=lambda d: d["moves"][0]["action"]) -> dict:
    """Play ``moves`` of the person's moves (the first legal one unless ``pick`` says), the agents
    stepped in between; the last view."""
    d = view(client, game_id)
    done = 0
    while not d["over"] and (d["agent_turn"] or done < moves):
        if d["agent_turn"]:
            r = client.post(f"/api/game/{game_id}/step", json={"ply": d["ply"]})
        else:
            r = client.post(f"/api/game/{game_id}/move", json={"ply": d["ply"], "action": pick(d)})
            done += 1
        assert r.status_code == 200, r.text
        d = r.json()
    return d


def png(data: dict) -> bytes:
    return base64.b64decode(data["board"]["png"])


# -- pages ----------------------------------------------------------------------------------------------
def test_home_offers_every_game_and_the_agents(client):
    page = client.get("/").text
    for name in GAMES:
        assert f"<option>{name}</option>" in page or f"<option selected>{name}</option>" in page
    for spec in ("heuristic", "random", "champion", "mcts:"):
        assert spec in page
    assert client.get("/?game=neighborhood_v0").status_code == 200


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_by_url_leads_to_its_page_with_board_and_status(client, name):
    game_id = start(client, f"game={name}&{GAMES[name]}&seat=0&opponents=heuristic")
    page = client.get(f"/game/{game_id}").text
    assert 'data-testid="board"' in page.replace("data-testid=board", 'data-testid="board"')
    assert "data-testid=status" in page
    d = advance(client, game_id, 1)
    assert d["game"] == name and d["seat"] == 0 and d["players"][0] == "human"
    assert all(p == "heuristic" for p in d["players"][1:])
    if not d["over"]:
        assert d["your_turn"] and d["moves"], d["status"]
        assert d["status"].startswith("Your move")
        Image.open(io.BytesIO(png(d))).verify()


def test_options_and_a_seed_are_taken_from_the_url(client):
    game_id = start(client, "game=sorry_v0&num_players=3&seat=1&opponents=random&seed=7&max_turns=40")
    table = Table(client.app.state.store.get(game_id))
    assert table.game.num_players == 3 and table.game.options.max_turns == 40
    assert table.record.seed == 7 and table.seat == 1
    assert table.record.players == ["random", "human", "random"]
    # The home page's form sends every option, the untouched ones empty: those keep their defaults.
    game_id = start(client, "game=sorry_v0&num_players=2&seat=0&opponents=random&max_turns=&colors=")
    assert Table(client.app.state.store.get(game_id)).game.options.max_turns == 1000


# -- hidden information: on what the server sends -------------------------------------------------------
FORBIDDEN_KEYS = {"seed", "chance", "state", "steps", "rng", "agents_state", "final_state"}


def all_keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | set().union(*(all_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(all_keys(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_page_gets_nothing_of_the_seed_or_the_generator(client, name):
    # Two games with the same steps but another seed and generator (what orders the deck, the dice to
    # come, the agents' choices): what the person's seat is sent is the same, byte for byte.
    store = client.app.state.store
    game_id = start(client, f"game={name}&{GAMES[name]}&seat=0&opponents=heuristic&seed=11")
    d = advance(client, game_id, 3)
    record = store.get(game_id)
    twin = store.create(
        kind="play", game=record.game, options=record.options, seed=999, seat=0, players=record.players,
        steps=record.steps, chance=np.random.default_rng(5).bit_generator.state, agents={},
    )  # fmt: skip
    sent = client.get(f"/api/game/{game_id}")
    assert sent.content == client.get(f"/api/game/{twin.id}").content
    assert not FORBIDDEN_KEYS & all_keys(d)
    # A player's game shows only that player's view.
    assert client.get(f"/api/game/{game_id}?view=all").status_code == 403
    assert client.get(f"/api/game/{game_id}?view=1").status_code == 403
    # The replay (it holds the seed) only once the game is over.
    if not d["over"]:
        r = client.get(f"/game/{game_id}/replay.json")
        assert r.status_code == 409 and "over" in r.text


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_board_sent_is_the_same_for_every_position_the_seat_cannot_tell_apart(client, name):
    # determinize(seat): a full state consistent with what the seat may know, the hidden parts
    # resampled (other hands, the Kyonshi's unknowns: the hunters' squares, K9). The board the server
    # sends is the one drawn for any of them: nothing hidden is in the picture or its places.
    seat = 0
    game_id = start(client, f"game={name}&{GAMES[name]}&seat={seat}&opponents=heuristic&seed=3")
    d = advance(client, game_id, 6)
    table = Table(client.app.state.store.get(game_id))
    actions = [m["action"] for m in d["moves"]]
    differs = 0
    for k in range(4):
        other = table.state.determinize(seat, np.random.default_rng(k))
        differs += other.to_dict() != table.state.to_dict()
        assert board(table.game, other, seat, actions) == d["board"]
    if name == "gangsi_v0":  # the Kyonshi is seat 0: the hunters' squares are hidden from it
        assert differs, "determinize changed nothing: the test would show nothing"


def test_the_kyonshi_is_never_sent_the_hunters_squares(client):
    game_id = start(client, "game=gangsi_v0&num_players=2&seat=kyonshi&opponents=heuristic&seed=5")
    d = advance(client, game_id, 8)
    table = Table(client.app.state.store.get(game_id))
    assert table.seat == KYONSHI
    # The log in the Kyonshi's words: the hunters' moves without their squares.
    state = table.game.new_initial_state()
    hidden_moves = 0
    for (player, action), line in zip(table.steps, d["log"], strict=True):
        assert line.endswith(state.action_to_string(action, view=KYONSHI))
        full = state.action_to_string(action, view=None)
        if player not in (KYONSHI, CHANCE) and full != state.action_to_string(action, view=KYONSHI):
            hidden_moves += 1
            assert f": {full}" not in json.dumps(d)
        state.apply_action(action)
    assert hidden_moves > 0
    # The board is the Kyonshi's drawing, not the full one.
    assert d["board"] == board(table.game, table.state, KYONSHI, [m["action"] for m in d["moves"]])
    assert d["board"]["png"] != board(table.game, table.state, None, [])["png"]


def test_watch_mode_shows_any_view(client):
    game_id = start(client, "game=lost_city_v0&num_players=2&seat=none&opponents=heuristic&seed=2")
    d = view(client, game_id)
    assert d["seat"] is None and d["moves"] == [] and d["agent_turn"]
    for _ in range(5):
        d = client.post(f"/api/game/{game_id}/step?view=1", json={"ply": d["ply"]}).json()
    assert d["view"] == 1
    assert view(client, game_id, "?view=player_0")["view"] == 0
    assert view(client, game_id, "?view=all")["view"] is None
    assert client.get(f"/api/game/{game_id}?view=9").status_code == 400
    r = client.post(f"/api/game/{game_id}/move", json={"ply": d["ply"], "action": 0})
    assert r.status_code == 409 and "agents" in r.text


# -- bad input: a 4xx with one line, nothing changed ----------------------------------------------------
def one_line(response, status: int, words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    text = response.text
    assert text.endswith("\n") and "\n" not in text[:-1] and words in text, text


def test_illegal_stale_and_malformed_moves_are_refused_and_change_nothing(client):
    game_id = start(client, "game=sorry_v0&num_players=2&seat=0&opponents=heuristic&seed=1")
    d = advance(client, game_id, 0)
    assert d["your_turn"]
    before = client.get(f"/api/game/{game_id}").content
    legal = {m["action"] for m in d["moves"]}
    illegal = next(a for a in range(make_game("sorry_v0").num_actions(0)) if a not in legal)
    move = f"/api/game/{game_id}/move"
    one_line(client.post(move, json={"ply": d["ply"], "action": illegal}), 400, "not a legal move")
    one_line(client.post(move, json={"ply": d["ply"], "action": -1}), 400, "not a legal move")
    one_line(client.post(move, json={"ply": d["ply"], "action": "3"}), 400, '"action"')
    one_line(client.post(move, json={"ply": d["ply"], "action": True}), 400, '"action"')
    one_line(client.post(move, json={"ply": d["ply"]}), 400, '"action"')
    one_line(client.post(move, json={"ply": d["ply"] - 1, "action": min(legal)}), 409, "stale")
    one_line(client.post(move, json={"ply": d["ply"] + 5, "action": min(legal)}), 409, "stale")
    one_line(client.post(move, json={"action": min(legal)}), 400, '"ply"')
    one_line(client.post(move, content=b"{not json"), 400, "JSON")
    one_line(client.post(move, content=b"[1, 2]"), 400, "JSON object")
    one_line(client.post(move, content=b"\xff\xfe"), 400, "JSON")
    one_line(client.post(f"/api/game/{game_id}/step", json={"ply": d["ply"]}), 409, "your move")
    one_line(client.get(move), 405, "not allowed")
    one_line(client.post("/api/game/nope/move", json={"ply": 0, "action": 0}), 404, "no game")
    one_line(client.get("/game/nope"), 404, "no game")
    one_line(client.get("/nowhere"), 404, "no page")
    one_line(client.get("/static/../app.py"), 404, "")
    assert client.get(f"/api/game/{game_id}").content == before
    # The same move twice (a second tab, a double click): the second is stale.
    assert client.post(move, json={"ply": d["ply"], "action": min(legal)}).status_code == 200
    one_line(client.post(move, json={"ply": d["ply"], "action": min(legal)}), 409, "stale")


@pytest.mark.parametrize(
    "query, words",
    [
        ("game=nope_v0", "unknown game"),
        ("game=sorry_v0&num_players=9", "num_players"),
        ("game=sorry_v0&num_players=two", "num_players must be a number"),
        ("game=sorry_v0&seat=7", "seat"),
        ("game=sorry_v0&seed=-1", "seed"),
        ("game=sorry_v0&seed=x", "seed"),
        ("game=sorry_v0&opponents=nosuchagent", "nosuchagent"),
        ("game=sorry_v0&num_players=3&opponents=random,random,random", "one agent spec for every"),
        ("game=sorry_v0&opponents=human", "only one person"),
        ("game=sorry_v0&max_turns=lots", "max_turns"),
        ("game=sorry_v0&no_such_option=1", "no_such_option"),
    ],
)
def test_a_bad_new_game_is_one_line_and_stores_nothing(client, query, words):
    one_line(client.get(f"/new?{query}", follow_redirects=False), 400, words)
    assert client.app.state.store.recent() == []


# -- nothing lost: SQLite -------------------------------------------------------------------------------
def test_a_fresh_app_on_the_same_file_continues_every_game(database):
    with TestClient(create_app(database)) as first:
        ids = {name: start(first, f"game={name}&{GAMES[name]}&seat=0&opponents=heuristic&seed=4")
               for name in GAMES}  # fmt: skip
        views = {name: advance(first, game_id, 4) for name, game_id in ids.items()}
    with TestClient(create_app(database)) as second:  # a restarted server
        for name, game_id in ids.items():
            assert view(second, game_id) == views[name]
            assert advance(second, game_id, 2)["ply"] > views[name]["ply"] or views[name]["over"]


def test_a_game_continued_after_a_restart_is_the_game_played_without_one(tmp_path):
    # The agents' memory and the generator of chance are stored: the same moves give the same game.
    def play(restart_every: int | None, path) -> list[str]:
        app = create_app(path)
        client = TestClient(app)
        game_id = start(client, "game=neighborhood_v0&num_players=3&seat=0&opponents=heuristic&seed=8")
        for k in range(12):
            if restart_every and k % restart_every == 0:
                client = TestClient(create_app(path))
            d = advance(client, game_id, 1)
        return d["log"]

    assert play(None, tmp_path / "a.sqlite3") == play(1, tmp_path / "b.sqlite3")


# -- replays: uploaded as content, checked ---------------------------------------------------------------
def finished_replay(client: TestClient) -> bytes:
    game_id = start(client, "game=sorry_v0&num_players=2&seat=none&opponents=random&seed=3&max_turns=30")
    d = view(client, game_id)
    while not d["over"]:
        d = client.post(f"/api/game/{game_id}/step", json={"ply": d["ply"]}).json()
    assert d["status"].startswith("Game over")
    r = client.get(f"/game/{game_id}/replay.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    return r.content


def test_a_finished_games_replay_uploads_and_steps_from_any_view(client):
    content = finished_replay(client)
    r = client.post("/api/replays", content=content)
    assert r.status_code == 201, r.text
    replay_id = r.json()["id"]
    assert client.get(r.json()["url"]).status_code == 200
    data = json.loads(content)
    count = len(data["steps"])
    end = client.get(f"/api/replay/{replay_id}?index={count}").json()
    assert end["over"] and end["count"] == count and "Game over" in end["status"]
    assert client.get(f"/api/replay/{replay_id}?index={count + 50}").json()["index"] == count
    for v in ("all", "0", "1", "player_1"):
        r = client.get(f"/api/replay/{replay_id}?index=3&view={v}")
        assert r.status_code == 200 and r.json()["index"] == 3
    assert client.get(f"/api/replay/{replay_id}?index=x").status_code == 400
    assert client.get(f"/api/replay/{replay_id}?view=5").status_code == 400
    # A replay is not a game to move in, nor a game a replay.
    assert client.get(f"/api/game/{replay_id}").status_code == 404


def test_bad_replay_uploads_are_refused_with_one_line(client):
    content = finished_replay(client)
    data = json.loads(content)
    tampered = dict(data, steps=[list(s) for s in data["steps"]])
    tampered["steps"][5][1] = (tampered["steps"][5][1] + 1) % 300
    one_line(client.post("/api/replays", content=b"not json"), 400, "not a boardenvs replay")
    one_line(client.post("/api/replays", content=json.dumps(tampered).encode()), 400, "")
    one_line(client.post("/api/replays", content=json.dumps({"path": "/etc/passwd"}).encode()), 400, "")
    one_line(client.post("/api/replays", content=json.dumps(dict(data, game="nope_v0")).encode()), 400, "")
    one_line(client.post("/api/replays", content=b" " * (MAX_REPLAY_BYTES + 1)), 413, "at most")
    assert [kind for _, kind, _, _ in client.app.state.store.recent()] == ["play"]


def test_the_server_binds_this_machine_only_unless_told():
    args = parse_args([])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert parse_args(["--host", "0.0.0.0", "--port", "8080"]).host == "0.0.0.0"


def test_every_agent_the_home_page_offers_plays(client):
    from boardenvs_agents.web.session import agent_suggestions

    offered = agent_suggestions("lost_city_v0")
    assert {"heuristic", "random", "champion", "rollouts"} <= set(offered)
    assert any(spec.startswith("mcts") for spec in offered) and any(":lost_city_v0" in s for s in offered)
    for spec in offered:
        game_id = start(client, f"game=lost_city_v0&num_players=4&seat=0&opponents={spec}&seed=1")
        d = advance(client, game_id, 2)
        assert d["ply"] > 2 and d["players"][1] == spec
