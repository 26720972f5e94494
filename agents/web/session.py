"""The web app's games: set up from the home page's choices, rebuilt from the store, moved on by the
person or by the agents, and shown as one seat may see them.

:func:`new_game` checks a request's choices (the game, its options, the person's seat or none, an agent
spec for every other seat; :class:`WebError` naming the bad one) and stores the game.
:class:`Table` rebuilds a stored game by replaying its steps, applies the person's move
(:meth:`Table.move`) or the next agent's (:meth:`Table.step`), resolves chance at once with the game's
own generator, and :meth:`Table.view` says what the page may show: everything derived from the
person's seat only (``observe``'s information: ``draw(state, view=seat)``, the moves and the log in the
words of that seat, ``action_to_string(action, view=seat)``). The seed, the generator of chance and
the rules state never leave the server while the game runs; the replay (seed included) is offered
once it is over.

Chance and the agents follow the one game loop's seeding (:mod:`boardenvs.core.loop`): chance drawn
with ``chance_generator(seed)``, seat ``p``'s agent reset with its seat seed, so a game here is the
game :func:`boardenvs.core.loop.play_game` plays with the same seed and the same person's choices, and
its replay verifies (``seeding: "loop/1"``).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

import numpy as np

from boardenvs import make_game
from boardenvs.core import loop
from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, IllegalActionError, State
from boardenvs.registry import env_names
from boardenvs.replay import Replay, ReplayError, result_text
from boardenvs_agents.base import Policy
from boardenvs_agents.cli import split_specs
from boardenvs_agents.human import HumanPolicy
from boardenvs_agents.keyvalue import KeyValueError, parse_item
from boardenvs_agents.play import parse_seat, verdict
from boardenvs_agents.registry import algorithm_names, make_policy, policy_names
from boardenvs_agents.web.store import StaleError, Store, StoredGame

#: The parameters of ``/new`` that are not game options (``delay``: the agents' pace on the game page,
#: in ms, passed on to it).
SETUP_KEYS = ("game", "num_players", "seat", "opponents", "seed", "delay")
#: Values of ``seat`` that mean "no person: agents in every seat" (watch mode).
WATCH = ("", "none", "watch")
#: Agent specs offered on the home page beside the learned models of the game (any spec may be typed).
SUGGESTED_AGENTS = ("heuristic", "random", "mcts:sims=100,depth=10,leaf=eval", "champion")
#: Registered agents not offered: the person, and ``clairvoyant`` (a reference that reads the game's
#: future chance outcomes, handed to it by the arena's game loop; it cannot sit at a table).
NOT_OFFERED = ("human", "clairvoyant")
#: The largest replay file accepted for upload (bytes).
MAX_REPLAY_BYTES = 8 * 1024 * 1024
#: Agents' moves are computed one at a time (the policies are shared between games, see ``_policy``).
_AGENT_LOCK = threading.Lock()


class WebError(Exception):
    """A request that cannot be served: ``status`` (a 4xx) and a one-line ``message``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(" ".join(str(message).split()))
        self.status = status
        self.message = " ".join(str(message).split())


# -- what can be played -------------------------------------------------------------------------------
def game_names() -> list[str]:
    """Every registered game."""
    return sorted(env_names())


@cache
def player_counts(game_name: str) -> tuple[int, ...]:
    """The player counts ``game_name`` can be made with (tried from 1 to 8)."""
    counts = []
    for n in range(1, 9):
        try:
            make_game(game_name, num_players=n)
        except (ValueError, TypeError):
            continue
        counts.append(n)
    return tuple(counts)


@cache
def default_options(game_name: str) -> tuple[tuple[str, str], ...]:
    """``(option, default as typed)`` of every option of ``game_name`` but ``num_players``."""
    options = options_to_dict(make_game(game_name).options)
    return tuple(
        (k, json.dumps(v) if not isinstance(v, str) else v) for k, v in options.items() if k != "num_players"
    )


@cache
def agent_suggestions(game_name: str) -> tuple[str, ...]:
    """Agent specs to offer for ``game_name``: :data:`SUGGESTED_AGENTS`, every other registered agent
    that plays it without options (``mcts``, ``rollouts`` ...; not ``rllib``, which names a checkpoint,
    nor those of :data:`NOT_OFFERED`) and each shipped learned model."""
    out = list(SUGGESTED_AGENTS)
    for name in policy_names():
        if name in NOT_OFFERED or name in algorithm_names() or name in out:
            continue
        try:
            make_policy(name, game_name)
        except (ValueError, TypeError, FileNotFoundError, ImportError):
            continue
        out.append(name)
    try:
        from boardenvs_agents.learning.models import shipped_models
    except ImportError:  # the train extra's modules are missing: no learned agents
        return tuple(out)
    out += [f"{algo}:{game_name}" for algo in algorithm_names() if shipped_models(algo, game_name)]
    return tuple(out)


# -- a new game ---------------------------------------------------------------------------------------
def new_game(store: Store, params: Mapping[str, str]) -> StoredGame:
    """Check the choices of ``/new`` and store the game (chance before the first decision resolved).

    ``params``: ``game``, ``num_players``, ``seat`` (a number, an agent name, ``random``, or ``none``
    to watch), ``opponents`` (agent specs, comma-separated: one for every agent seat or one per agent
    seat in seat order), ``seed`` (optional), and any other key a game option (``max_turns=200``).

    Raises:
        WebError: naming the bad choice (400).
    """
    name = params.get("game", "")
    if name not in env_names():
        raise WebError(f"unknown game {name!r}; games: {game_names()}")
    options: dict[str, Any] = {}
    for key, value in params.items():
        if key in SETUP_KEYS or value.strip() == "":  # an option left empty keeps its default
            continue
        try:
            options.update([parse_item(f"{key}={value}", "option")])
        except KeyValueError as err:
            raise WebError(f"bad option {key}: {err}") from None
    if params.get("num_players", "") != "":
        try:
            options["num_players"] = int(params["num_players"])
        except ValueError:
            raise WebError(f"num_players must be a number, got {params['num_players']!r}") from None
    try:
        game = make_game(name, **options)
    except (ValueError, TypeError) as err:
        raise WebError(str(err)) from None
    seed = _seed(params.get("seed", ""))
    n = game.num_players
    seat_text = params.get("seat", "0").strip()
    try:
        seat = (
            None
            if seat_text.lower() in WATCH
            else parse_seat(seat_text, game, loop.derive_seeds(seed, n + 2)[n + 1])
        )
    except ValueError as err:
        raise WebError(str(err)) from None
    specs = split_specs([params.get("opponents", "") or "random"])
    agent_seats = [p for p in range(n) if p != seat]
    if len(specs) == 1:
        specs = specs * len(agent_seats)
    if len(specs) != len(agent_seats):
        raise WebError(
            "give one agent spec for every agent seat, or one per agent seat "
            f"({len(agent_seats)}), not {len(specs)}"
        )
    players = ["human"] * n
    for p, spec in zip(agent_seats, specs, strict=True):
        if spec == "human":
            raise WebError("only one person plays here: give agent specs for the other seats")
        players[p] = spec
    record = StoredGame(id="", kind="play", game=name, options=options, seed=seed, seat=seat, players=players)
    table = Table(record)
    for p in agent_seats:
        try:
            with _AGENT_LOCK:  # the policies are shared: never reset one another request is using
                table.policy(p)
        except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
            raise WebError(f"bad agent spec {players[p]!r}: {err}") from None
    table.resolve_chance()
    stored = store.create(
        kind="play", game=name, options=options, seed=seed, seat=seat, players=players,
        steps=table.steps, chance=table.chance_state(), agents=table.agent_states(),
    )  # fmt: skip
    return stored


def _seed(text: str) -> int:
    if text.strip() == "":
        return int(np.random.SeedSequence().generate_state(1)[0])
    try:
        seed = int(text)
    except ValueError:
        raise WebError(f"seed must be an integer >= 0, got {text!r}") from None
    if seed < 0:
        raise WebError(f"seed must be an integer >= 0, got {seed}")
    return seed


# -- policies -----------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _policy(spec: str, game_name: str, options_json: str, seat: int) -> Policy:
    """The policy of ``spec`` (built once per spec, game, options and seat; a learned model is loaded
    once). Its memory is set from the stored game before every use, under :data:`_AGENT_LOCK`."""
    return make_policy(spec, game_name, seed=None, game_options=json.loads(options_json))


# -- a stored game, rebuilt ---------------------------------------------------------------------------
class Table:
    """A stored game rebuilt from its steps: the position, the generator of chance, the agents.

    Raises:
        WebError: (409) if the stored steps no longer replay (the rules changed since).
    """

    def __init__(self, record: StoredGame) -> None:
        self.record = record
        try:
            self.game: Game = make_game(record.game, **record.options)
        except (ValueError, TypeError) as err:
            raise WebError(f"game {record.id} cannot be rebuilt: {err}", 409) from None
        self.seed = record.seed if record.seed is not None else 0
        self.chance_seed, self.seat_seeds = loop.game_seeds(self.seed, self.game.num_players)
        self.steps: list[tuple[int, int]] = list(record.steps)
        self.state: State = self.game.new_initial_state()
        for index, (player, action) in enumerate(self.steps):
            if self.state.current_player() != player:
                raise WebError(f"game {record.id} does not replay at step {index + 1}", 409)
            try:
                self.state.apply_action(action)
            except IllegalActionError:
                raise WebError(f"game {record.id} does not replay at step {index + 1}", 409) from None
        self.chance = np.random.default_rng(self.chance_seed)
        if record.chance is not None:
            self.chance.bit_generator.state = record.chance
        self._agents: dict[int, Any] = dict((int(k), v) for k, v in record.agents.items())

    # -- who moves ------------------------------------------------------------------------------------
    @property
    def seat(self) -> int | None:
        """The person's seat (``None``: agents only)."""
        return self.record.seat

    @property
    def ply(self) -> int:
        """The number of steps so far: the move number a move or a step must name."""
        return len(self.steps)

    @property
    def to_move(self) -> int:
        """The player to decide, or TERMINAL (chance is always resolved)."""
        return self.state.current_player()

    def agent_to_move(self) -> bool:
        """True when an agent decides next."""
        return self.to_move >= 0 and self.to_move != self.seat

    # -- moving -----------------------------------------------------------------------------------------
    def check_ply(self, ply: Any) -> None:
        """Refuse a request made at another move number (409: a stale page) or without one (400)."""
        if not isinstance(ply, int) or isinstance(ply, bool):
            raise WebError('the request needs "ply", the move number it was made at (an integer)')
        if ply != self.ply:
            raise WebError(f"stale move: the game is at move {self.ply}, not {ply}; reload to see it", 409)

    def move(self, action: Any) -> None:
        """Apply the person's ``action``, then any chance.

        Raises:
            WebError: not the person's turn (409), or an action that is not a legal move (400).
        """
        if self.seat is None:
            raise WebError("nobody plays in this game: agents hold every seat", 409)
        if self.state.is_terminal():
            raise WebError("the game is over", 409)
        if self.to_move != self.seat:
            raise WebError(f"it is not your move: {self.game.agents[self.to_move]} is to move", 409)
        if not isinstance(action, int) or isinstance(action, bool):
            raise WebError('the request needs "action", the id of a legal move (an integer)')
        legal = list(self.state.legal_actions())
        if action not in legal:
            raise WebError(f"action {action} is not a legal move here; legal: {legal}")
        self._apply(action)
        self.resolve_chance()

    def step(self) -> None:
        """Let the agent to move decide, then resolve chance.

        Raises:
            WebError: (409) when the game is over or it is the person's move.
        """
        if self.state.is_terminal():
            raise WebError("the game is over", 409)
        if not self.agent_to_move():
            raise WebError("it is your move, not an agent's", 409)
        player = self.to_move
        with _AGENT_LOCK:
            policy = self.policy(player)
            action = int(policy.act(self.state))
            self._agents[player] = policy.state_dict()
        self._apply(action)
        self.resolve_chance()

    def resolve_chance(self) -> None:
        """Draw chance outcomes with the game's generator until a player decides or the game ends."""
        while self.state.current_player() == CHANCE:
            self._apply(self.state.sample_chance(self.chance))

    def _apply(self, action: int) -> None:
        player = self.state.current_player()
        self.state.apply_action(int(action))
        self.steps.append((player, int(action)))

    def policy(self, player: int) -> Policy:
        """The agent of seat ``player``, reset with its seat seed and set to its stored memory."""
        spec = self.record.players[player]
        options_json = json.dumps(self.record.options, sort_keys=True)
        policy = _policy(spec, self.record.game, options_json, player)
        policy.reset(seed=self.seat_seeds[player])
        if player in self._agents:
            policy.load_state_dict(self._agents[player])
        return policy

    def chance_state(self) -> dict[str, Any]:
        """The generator of chance's state, for the store (never for the page)."""
        return self.chance.bit_generator.state

    def agent_states(self) -> dict[str, Any]:
        """Every agent's memory so far, by seat, for the store."""
        return {str(p): data for p, data in self._agents.items()}

    def save(self, store: Store, expected: int) -> None:
        """Write the game back, if nobody changed it since ``expected`` steps.

        Raises:
            WebError: (409) when another tab or request moved first.
        """
        self.record.steps = list(self.steps)
        self.record.chance = self.chance_state()
        self.record.agents = self.agent_states()
        try:
            store.save(self.record, expected)
        except StaleError:
            raise WebError(
                f"stale move: the game moved on since move {expected}; reload to see it", 409
            ) from None

    # -- what the page may see --------------------------------------------------------------------------
    def view_of(self, requested: str | None) -> int | None:
        """The seat whose view is shown: the person's in a game with a person (another is refused, 403);
        in watch mode ``requested`` (``all``, a seat number or an agent name; default ``all``)."""
        if self.seat is not None:
            if requested not in (None, "", str(self.seat), self.game.agents[self.seat]):
                raise WebError("a player's game shows only that player's view", 403)
            return self.seat
        return parse_view(requested, self.game)

    def label(self, player: int) -> str:
        """``player_1 (heuristic)``, ``player_0 (you)``, ``chance``."""
        if player == CHANCE:
            return "chance"
        who = "you" if player == self.seat else self.record.players[player]
        return f"{self.game.agents[player]} ({who})"

    def log(self, view: int | None) -> list[str]:
        """Every step in words as ``view`` may know it (the terminal's words), oldest first."""
        state = self.game.new_initial_state()
        lines = []
        for index, (player, action) in enumerate(self.steps, 1):
            lines.append(f"{index}. {self.label(player)}: {state.action_to_string(action, view=view)}")
            state.apply_action(action)
        return lines

    def status(self) -> str:
        """The status line: whose turn it is, or that the game is over and who won."""
        state = self.state
        if state.is_terminal():
            text = f"Game over: {result_text(self.game, state, self.labels())}."
            return text + (f" {verdict(state, self.seat)}" if self.seat is not None else "")
        player = self.to_move
        if player == self.seat:
            return f"Your move, {self.game.agents[player]} (move {self.ply})."
        out = " You are out; the others play on." if self.seat is not None and state.is_out(self.seat) else ""
        return f"{self.label(player)} to move (move {self.ply}).{out}"

    def labels(self) -> list[str]:
        """A label per seat: the agent spec, or ``human``."""
        return list(self.record.players)

    def moves(self) -> list[dict[str, Any]]:
        """The person's legal moves with the terminal's labels (``HumanPolicy.moves``), when it is their
        turn; else none."""
        if self.seat is None or self.to_move != self.seat:
            return []
        return [{"action": a, "label": text} for a, text in HumanPolicy().moves(self.state)]

    def view(self, view: int | None) -> dict[str, Any]:
        """What the page shows, from ``view`` only: status, board picture and its clickable places,
        the person's moves, the log. Never the seed, the generator or the rules state."""
        over = self.state.is_terminal()
        moves = self.moves()
        return {
            "kind": "play",
            "game": self.record.game,
            "agents": self.game.agents,
            "players": self.labels(),
            "seat": self.seat,
            "view": view,
            "ply": self.ply,
            "over": over,
            "to_move": self.to_move if self.to_move >= 0 else None,
            "your_turn": bool(moves),
            "agent_turn": self.agent_to_move(),
            "status": self.status(),
            "moves": moves,
            "board": board(self.game, self.state, view, [m["action"] for m in moves]),
            "log": self.log(view),
        }

    def replay(self) -> Replay:
        """The finished game as a replay (seed included: offered only once the game is over).

        Raises:
            WebError: (409) before the end.
        """
        if not self.state.is_terminal():
            raise WebError("the replay is offered once the game is over (it holds the seed)", 409)
        return Replay(
            game=self.record.game, options=options_to_dict(self.game.options), steps=list(self.steps),
            seed=self.record.seed, players=self.labels(), returns=[float(r) for r in self.state.returns()],
            final_state=self.state.to_dict(), seeding=loop.SEEDING,
        )  # fmt: skip


def parse_view(requested: str | None, game: Game) -> int | None:
    """``None`` (everything) for ``all`` or nothing, else the seat a number or an agent name names.

    Raises:
        WebError: (400) for anything else.
    """
    if requested in (None, "", "all"):
        return None
    if requested in game.agents:
        return game.agents.index(requested)
    try:
        seat = int(requested)  # type: ignore[arg-type]
    except ValueError:
        seat = -1
    if not 0 <= seat < game.num_players:
        raise WebError(
            f"view must be 'all', a seat 0-{game.num_players - 1} or an agent name, got {requested!r}"
        )
    return seat


def board(game: Game, state: State, view: int | None, actions: list[int]) -> dict[str, Any]:
    """The picture of ``state`` from ``view`` (a PNG, base64) and, for ``actions``, the places on it
    that choose them (``game.action_places``): ``[{"x", "y", "w", "h", "actions"}]``."""
    try:
        image = game.draw(state, view)
    except NotImplementedError:
        return {"png": None, "width": 0, "height": 0, "places": [], "text": state.render_text(view=view)}
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", optimize=False)
    places: dict[tuple[int, int, int, int], list[int]] = {}
    if actions:
        for action, box in game.action_places(state, view).items():
            if action in actions:
                places.setdefault(tuple(round(v) for v in box), []).append(int(action))  # type: ignore[arg-type]
    return {
        "png": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "width": image.width,
        "height": image.height,
        "places": [
            {"x": x0, "y": y0, "w": x1 - x0, "h": y1 - y0, "actions": sorted(acts)}
            for (x0, y0, x1, y1), acts in places.items()
        ],
        "text": None,
    }


# -- replays ------------------------------------------------------------------------------------------
def upload_replay(store: Store, content: bytes) -> StoredGame:
    """Check an uploaded replay file's content (every step replayed, the recorded end) and store it.

    Raises:
        WebError: 413 for a file over :data:`MAX_REPLAY_BYTES`, 400 naming what is wrong with it.
    """
    if len(content) > MAX_REPLAY_BYTES:
        raise WebError(f"a replay file may hold at most {MAX_REPLAY_BYTES} bytes", 413)
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise WebError(f"the upload is not a boardenvs replay (not JSON: {err})") from None
    try:
        replay = Replay.from_dict(data, where="the upload")
        replay.verify()
    except ReplayError as err:
        raise WebError(str(err)) from None
    return store.create(
        kind="replay", game=replay.game, options=replay.options, seed=replay.seed, seat=None,
        players=replay.players or [""] * replay.make_game().num_players, steps=replay.steps,
    )  # fmt: skip


class ReplayView:
    """A stored replay, stepped through: the state after ``index`` steps from any seat's view."""

    def __init__(self, record: StoredGame) -> None:
        self.record = record
        self.replay = Replay(
            game=record.game, options=record.options, steps=list(record.steps), seed=record.seed,
            players=list(record.players),
        )  # fmt: skip
        try:
            self.game = self.replay.make_game()
        except ReplayError as err:
            raise WebError(str(err), 409) from None

    def view(self, index: Any, view: int | None) -> dict[str, Any]:
        """The page's view after ``index`` steps (clamped to the game), as ``view`` may know it."""
        steps = self.record.steps
        try:
            index = max(0, min(len(steps), int(index)))
        except (TypeError, ValueError):
            raise WebError(f"index must be a step number 0-{len(steps)}, got {index!r}") from None
        state = self.game.new_initial_state()
        log = []
        for i, (player, action) in enumerate(steps[:index], 1):
            text = state.action_to_string(action, view=view)
            log.append(f"{i}. {self.replay.seat_label(self.game, player)}: {text}")
            state.apply_action(action)
        if state.is_terminal():
            status = f"Game over: {result_text(self.game, state, self.replay.players)}."
        elif state.current_player() >= 0:
            status = f"{self.replay.seat_label(self.game, state.current_player())} to move (step {index})."
        else:
            status = f"chance to draw (step {index})."
        return {
            "kind": "replay",
            "game": self.record.game,
            "agents": self.game.agents,
            "players": self.replay.players,
            "view": view,
            "index": index,
            "count": len(steps),
            "over": state.is_terminal(),
            "status": f"Step {index} of {len(steps)}. {status}",
            "board": board(self.game, state, view, []),
            "log": log,
        }
