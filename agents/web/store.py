"""Games and replays of the web app kept in SQLite (the standard library's :mod:`sqlite3`).

A game is stored as what rebuilds it exactly: the game's name and options, its seed, the person's seat
(or none: agents only), the agent spec of every seat, every step applied to the rules state (``[player,
action]`` pairs, chance outcomes included), the state of the generator of chance and each agent's
:meth:`~boardenvs_agents.base.Policy.state_dict`. Replaying the steps on a fresh initial state gives
the position; the generator and the agents' states continue the game as it would have gone on. So a
reload, a second tab or a restart of the server continues a game where it was.

Every change is checked against the number of steps it was computed from (:meth:`Store.save` with
``expected``): two tabs that move at once cannot both apply a move; the second is told it is stale.
A replay uploaded to be watched is stored the same way, with kind ``"replay"`` and no seat.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER,
    seat INTEGER,
    players TEXT NOT NULL,
    steps TEXT NOT NULL,
    num_steps INTEGER NOT NULL,
    chance TEXT,
    agents TEXT NOT NULL,
    created REAL NOT NULL
)
"""


class StaleError(Exception):
    """A change computed from a number of steps that is no longer the stored one."""


@dataclass
class StoredGame:
    """One stored game or replay (see the module docstring).

    Attributes:
        id: the game's id in URLs (random, unguessable).
        kind: ``"play"`` (a game being played or watched) or ``"replay"`` (an uploaded replay).
        game: registered env name.
        options: the game's options (JSON-able).
        seed: the game's seed (never sent to the page before the game ends).
        seat: the person's seat, or ``None`` when agents hold every seat.
        players: a label per seat: the agent spec, or ``"human"``.
        steps: every ``(player, action)`` applied so far, chance outcomes included.
        chance: the state of the generator of chance (``bit_generator.state``), ``None`` for a replay.
        agents: each agent seat's policy state, by seat (as a string key, JSON's).
    """

    id: str
    kind: str
    game: str
    options: dict[str, Any]
    seed: int | None
    seat: int | None
    players: list[str]
    steps: list[tuple[int, int]] = field(default_factory=list)
    chance: dict[str, Any] | None = None
    agents: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0


class Store:
    """The SQLite file of the web app's games (created with its table when missing).

    Args:
        path: the database file; ``":memory:"`` is refused (each call opens its own connection).
    """

    def __init__(self, path: str | Path) -> None:
        if str(path) == ":memory:":
            raise ValueError("the store needs a file: every request opens its own connection")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:  # a transaction: committed at the end, rolled back on an error
                yield db
        finally:
            db.close()

    def create(
        self,
        *,
        kind: str,
        game: str,
        options: dict[str, Any],
        seed: int | None,
        seat: int | None,
        players: list[str],
        steps: list[tuple[int, int]] | None = None,
        chance: dict[str, Any] | None = None,
        agents: dict[str, Any] | None = None,
    ) -> StoredGame:
        """Store a new game and return it with its fresh id."""
        record = StoredGame(
            id=secrets.token_urlsafe(9), kind=kind, game=game, options=dict(options), seed=seed, seat=seat,
            players=list(players), steps=list(steps or []), chance=chance, agents=dict(agents or {}),
            created=time.time(),
        )  # fmt: skip
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id, record.kind, record.game, json.dumps(record.options), record.seed,
                    record.seat, json.dumps(record.players), _steps_json(record.steps), len(record.steps),
                    json.dumps(record.chance), json.dumps(record.agents), record.created,
                ),
            )  # fmt: skip
        return record

    def get(self, game_id: str) -> StoredGame | None:
        """The stored game with this id, or ``None``."""
        with self._connect() as db:
            row = db.execute(
                "SELECT id, kind, game, options, seed, seat, players, steps, chance, agents, created "
                "FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
        if row is None:
            return None
        return StoredGame(
            id=row[0], kind=row[1], game=row[2], options=json.loads(row[3]), seed=row[4], seat=row[5],
            players=json.loads(row[6]), steps=[(int(p), int(a)) for p, a in json.loads(row[7])],
            chance=json.loads(row[8]), agents=json.loads(row[9]), created=row[10],
        )  # fmt: skip

    def save(self, record: StoredGame, expected: int) -> None:
        """Write the record's steps, generator and agents, if the stored game still has ``expected`` steps.

        Raises:
            StaleError: when another request changed the game since ``expected`` steps (nothing written).
        """
        with self._lock, self._connect() as db:
            cursor = db.execute(
                "UPDATE games SET steps = ?, num_steps = ?, chance = ?, agents = ? "
                "WHERE id = ? AND num_steps = ?",
                (
                    _steps_json(record.steps), len(record.steps), json.dumps(record.chance),
                    json.dumps(record.agents), record.id, expected,
                ),
            )  # fmt: skip
            if cursor.rowcount != 1:
                raise StaleError(f"game {record.id} changed since step {expected}")

    def recent(self, limit: int = 20) -> list[tuple[str, str, str, int]]:
        """``(id, kind, game, number of steps)`` of the newest games, newest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, kind, game, num_steps FROM games ORDER BY created DESC LIMIT ?", (limit,)
            ).fetchall()
        return [(r[0], r[1], r[2], int(r[3])) for r in rows]


def _steps_json(steps: list[tuple[int, int]]) -> str:
    return json.dumps([[int(p), int(a)] for p, a in steps], separators=(",", ":"))
