"""Replays: a game recorded as its options, seed and every action, saved as JSON and replayed exactly.

A :class:`Replay` holds the game's name and options, the seed it was played with, and every action
applied to the rules state in order, chance outcomes included (each step is ``(player, action)``
with ``player`` a seat or :data:`~boardenvs.core.state.CHANCE`), then the final returns. Replaying
needs no generator: :meth:`Replay.states` re-applies the steps to a fresh initial state, so it
reproduces the original game exactly, state for state.

Three ways to record one:

- :class:`Recorder` while you drive a rules state yourself, or as the observer of the game loop
  (terminal play, ``scripts/play.py``, does);
- :func:`record_game` plays actors against each other with the one game loop,
  :func:`boardenvs.core.loop.play_game` (the arena's: the same seed gives the same game);
- :class:`RecordingEnv` wraps a PettingZoo env (``raw_env()`` or ``env()``) and records every step,
  chance included, without any hook in the adapter.

Files are versioned JSON (:data:`FORMAT`, :data:`VERSION`); :meth:`Replay.load` refuses a file of
another format, a newer version, another game, or one whose actions are not legal on replay, with a
message that says which. A file names the seeding scheme that drew its chance outcomes from its seed
(``"seeding"``, one of :data:`SEEDINGS`: the game loop's ``"loop/1"`` or a PettingZoo env's
``"env/1"``), so loading it checks that they follow from the seed; files of version 1, from before
the field, still load and replay (their ``chance_rng`` field is read as the seeding it stood for).

Pictures (:meth:`Replay.save_gif`, :meth:`Replay.save_frames`) need Pillow
(``pip install "boardenvs[render]"``), imported only when asked for, and the game's ``draw``. Text and
pictures take a *view*: ``None`` shows everything, a player id only what that player may know.

>>> from boardenvs import make_game
>>> from boardenvs.replay import Replay, record_game
>>> replay = record_game(make_game("sorry_v0", num_players=2), [policy_a, policy_b], seed=0)
>>> replay.save("game.json")
>>> Replay.load("game.json").save_gif("game.gif", view=None)
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardenvs.core import loop
from boardenvs.core.game import Game
from boardenvs.core.options import options_to_dict
from boardenvs.core.state import CHANCE, IllegalActionError, State

#: The ``format`` field of every replay file.
FORMAT = "boardenvs-replay"
#: The version of the file layout written by this module (and the newest it reads). Version 2 names the
#: seeding scheme (``seeding``) where version 1 had a ``chance_rng`` field.
VERSION = 2
#: Lines of text under each picture frame (a header and the moves since the last frame).
CAPTION_LINES = 3
#: The seeding of a PettingZoo env of this package: ``env.reset(seed=seed)`` draws chance with
#: ``np.random.default_rng(seed)`` (:class:`RecordingEnv` records it).
ENV_SEEDING = "env/1"
#: How a replay's chance outcomes follow from its seed (its ``seeding`` field): the name of each scheme
#: and the generator of chance it makes from a seed. ``"loop/1"`` is the game loop's
#: (:data:`boardenvs.core.loop.SEEDING`: the arena, :func:`record_game`, terminal play).
SEEDINGS: dict[str, Callable[[int], np.random.Generator]] = {
    loop.SEEDING: loop.chance_generator,
    ENV_SEEDING: np.random.default_rng,
}
#: Reading old files only: the ``chance_rng`` field of a version-1 file and the seeding it stood for
#: (version 1 found it by trying both generators when the replay was made; nothing writes it now).
V1_CHANCE_RNGS = {"default_rng(seed)": ENV_SEEDING, "default_rng(derive_seeds(seed, 1)[0])": loop.SEEDING}


class ReplayError(ValueError):
    """A replay file or record that cannot be read or does not replay."""


@dataclass
class Replay:
    """One recorded game: everything needed to replay it exactly, and its result.

    Attributes:
        game: registered env name, e.g. ``"sorry_v0"``.
        options: the game's full options (as :func:`~boardenvs.core.options.options_to_dict` writes them).
        steps: every action applied to the rules state, in order: ``(player, action)`` where
            ``player`` is the seat that decided or :data:`CHANCE` for a chance outcome.
        seed: the seed the game was played with (``None`` if unknown); informative only, replaying
            never samples.
        players: a label per seat (agent specs such as ``"human"``, ``"random"``), possibly empty.
        returns: each seat's return at the end, or ``None`` for a game that did not finish.
        final_state: :meth:`State.to_dict` of the last state; :meth:`verify` checks the replay reaches
            it exactly (every file has one).
        seeding: the name of the scheme (one of :data:`SEEDINGS`) that drew the chance outcomes from
            ``seed``, as whoever recorded the game knew it, or ``None`` (no seed, or chance drawn some
            other way); with it, :meth:`verify` checks the outcomes follow from the seed, so a changed
            seed is refused.
    """

    game: str
    options: dict[str, Any]
    steps: list[tuple[int, int]]
    seed: int | None = None
    players: list[str] = field(default_factory=list)
    returns: list[float] | None = None
    final_state: dict[str, Any] | None = None
    seeding: str | None = None

    # -- the game ---------------------------------------------------------------------------------
    def make_game(self) -> Game:
        """The :class:`Game` with the recorded options."""
        from boardenvs.registry import env_names, make_game

        if self.game not in env_names():
            raise ReplayError(f"replay of unknown game {self.game!r}; games: {env_names()}")
        try:
            return make_game(self.game, **self.options)
        except (ValueError, TypeError) as err:
            raise ReplayError(f"replay of {self.game}: its options do not make a game: {err}") from err

    @property
    def finished(self) -> bool:
        """True when the recorded game reached its end (ended or truncated)."""
        return self.returns is not None

    @property
    def num_decisions(self) -> int:
        """Steps taken by players (chance outcomes not counted)."""
        return sum(1 for player, _ in self.steps if player != CHANCE)

    # -- replaying --------------------------------------------------------------------------------
    def states(self, game: Game | None = None) -> Iterator[State]:
        """Every state of the game in order: the initial one, then one after each step (copies).

        Raises:
            ReplayError: if a step's player is not the one to move, or its action is not legal there.
        """
        game = game or self.make_game()
        state = game.new_initial_state()
        yield state.clone()
        for index, (player, action) in enumerate(self.steps):
            _apply_step(state, index, player, action, game.agents)
            yield state.clone()

    def final(self, game: Game | None = None) -> State:
        """The last state (the steps replayed without copying every state)."""
        game = game or self.make_game()
        state = game.new_initial_state()
        for index, (player, action) in enumerate(self.steps):
            _apply_step(state, index, player, action, game.agents)
        return state

    def verify(self) -> State:
        """Replay every step and check the recorded end (the final state, and the returns: recorded
        exactly when the game ends, and equal to the replayed ones), the players list (empty or one
        label per seat) and that the chance outcomes follow from the seed.

        Returns the final state. Raises :class:`ReplayError` if anything differs (an illegal step, a
        changed seed, or rules that changed since the game was recorded).
        """
        game = self.make_game()
        if self.players and len(self.players) != game.num_players:
            raise ReplayError(
                f"replay of {self.game}: {len(self.players)} player labels for {game.num_players} seats"
            )
        state = self.final(game)
        if self.seeding is not None:
            if self.seed is None:
                raise ReplayError(f"replay of {self.game}: seeding {self.seeding!r} but no seed")
            mismatch = _chance_mismatch(game, self.steps, self.seed, self.seeding)
            if mismatch is not None:
                raise ReplayError(
                    f"replay of {self.game}: the chance outcome of step {mismatch + 1} is not the one seed "
                    f"{self.seed} draws ({self.seeding}): the seed or the steps were changed"
                )
        if self.final_state is not None and state.to_dict() != self.final_state:
            raise ReplayError(
                f"replay of {self.game} does not reach the recorded final state: the rules or the "
                "options changed since it was recorded"
            )
        if self.returns is None and state.is_terminal():
            raise ReplayError(
                f"replay of {self.game}: the game ends after its {len(self.steps)} steps (returns "
                f"{[float(r) for r in state.returns()]}) but the replay records no returns"
            )
        if self.returns is not None:
            if not state.is_terminal():
                raise ReplayError(f"replay of {self.game} records returns but its last state is not terminal")
            if [float(r) for r in state.returns()] != [float(r) for r in self.returns]:
                raise ReplayError(
                    f"replay of {self.game}: recorded returns {self.returns}, replayed {state.returns()}"
                )
        return state

    # -- words ------------------------------------------------------------------------------------
    def describe(self, view: int | None = None) -> list[str]:
        """One line per step, in words, showing only what ``view`` may know (``None``: everything).

        E.g. ``"  12. player_1 (random): Red 0 forward 5: Start -> square 7"`` or
        ``"  13. chance: Red (player_0) draws 7"``.
        """
        game = self.make_game()
        _check_view(game, view)
        lines = []
        width = len(str(len(self.steps)))
        state = game.new_initial_state()
        for index, (player, action) in enumerate(self.steps):
            text = state.action_to_string(action, view=view)
            lines.append(f"{index + 1:>{width}}. {self.seat_label(game, player)}: {text}")
            _apply_step(state, index, player, action, game.agents)
        return lines

    def seat_label(self, game: Game, player: int) -> str:
        """``"player_1 (random)"``: the agent name and, if recorded, its label; ``"chance"``."""
        if player == CHANCE:
            return "chance"
        name = game.agents[player]
        if player < len(self.players) and self.players[player]:
            return f"{name} ({self.players[player]})"
        return name

    def result_text(self, game: Game | None = None) -> str:
        """The result in words: the winner, a draw, a truncation, or an unfinished game."""
        game = game or self.make_game()
        if self.returns is None:
            return f"unfinished after {len(self.steps)} steps"
        return result_text(game, self.final(game), self.players)

    def to_text(self, view: int | None = None, boards: bool = False) -> str:
        """The whole game as text: a header, every step in words, the result.

        ``boards=True`` also prints the position (``render_text(view)``) before every decision and
        at the end.
        """
        game = self.make_game()
        _check_view(game, view)
        seats = ", ".join(self.seat_label(game, p) for p in range(game.num_players))
        shown = "everything" if view is None else f"what {game.agents[view]} may know"
        out = [
            f"{self.game} replay, seed {self.seed}, {game.num_players} seats: {seats}",
            f"{len(self.steps)} steps ({self.num_decisions} decisions); showing {shown}",
        ]
        moves = self.describe(view)
        if boards:
            state = game.new_initial_state()
            for index, (player, action) in enumerate(self.steps):
                if player != CHANCE:
                    out += ["", state.render_text(view=view)]
                out.append(moves[index])
                _apply_step(state, index, player, action, game.agents)
            out += ["", state.render_text(view=view)]
        else:
            out += moves
        out.append(f"result: {self.result_text(game)}")
        return "\n".join(out)

    # -- pictures ---------------------------------------------------------------------------------
    def frame_indices(self, chance: bool = False) -> list[int]:
        """Indices into :meth:`states` of the pictured states.

        By default the states where a player decides, and the last one (chance resolutions between
        two decisions collapse into one frame); ``chance=True`` pictures every state.
        """
        if chance:
            return list(range(len(self.steps) + 1))
        out = [index + 1 for index in range(len(self.steps) - 1) if self.steps[index + 1][0] != CHANCE]
        if self.steps and self.steps[0][0] != CHANCE:
            out.insert(0, 0)
        out.append(len(self.steps))
        return out

    def frames(self, view: int | None = None, chance: bool = False, caption: bool = True) -> list[Any]:
        """Pictures (``PIL.Image.Image``) of the states of :meth:`frame_indices`, all the same size.

        ``caption=True`` adds a band under each picture: the step number and, in words (as ``view``
        may know them), the moves since the previous frame.

        Raises:
            NotImplementedError: if the game has no pictures yet.
            ImportError: without Pillow.
        """
        from boardenvs.core import render

        game = self.make_game()
        _check_view(game, view)
        wanted = set(self.frame_indices(chance))
        images = []
        # The last decision and the last chance outcome since the previous frame, in words.
        last: dict[bool, str] = {}
        state = game.new_initial_state()
        for index in range(len(self.steps) + 1):
            if index in wanted:
                image = game.draw(state, view).convert("RGB")
                if caption:
                    header = f"{self.game}  step {index}/{len(self.steps)}"
                    if index == len(self.steps) and self.returns is not None:
                        header += f"  {result_text(game, state, self.players)}"
                    notes = [last[k] for k in (False, True) if k in last]
                    image = _with_caption(render, image, [header, *notes][:CAPTION_LINES])
                images.append(image)
                last = {}
            if index < len(self.steps):
                player, action = self.steps[index]
                text = state.action_to_string(action, view=view)
                last[player == CHANCE] = f"{self.seat_label(game, player)}: {text}"
                _apply_step(state, index, player, action, game.agents)
        width = max(image.width for image in images)
        height = max(image.height for image in images)
        out = []
        for image in images:
            if image.size != (width, height):
                padded = render.new_image(width, height)
                padded.paste(image, (0, 0))
                image = padded
            out.append(image)
        return out

    def save_gif(
        self,
        path: str | Path,
        view: int | None = None,
        duration: int = 600,
        chance: bool = False,
        caption: bool = True,
    ) -> int:
        """Write an animated GIF of :meth:`frames`, ``duration`` milliseconds each; returns the count.

        Pillow merges identical consecutive frames of a GIF; with captions (the default) no two frames
        are identical, so the file has exactly one frame per pictured state.
        """
        images = self.frames(view=view, chance=chance, caption=caption)
        write_gif(images, path, duration)
        return len(images)

    def save_frames(
        self, directory: str | Path, view: int | None = None, chance: bool = False, caption: bool = True
    ) -> list[Path]:
        """Write :meth:`frames` as ``frame_0000.png`` ... in ``directory`` (created); returns the paths."""
        return write_pngs(self.frames(view=view, chance=chance, caption=caption), directory)

    # -- files ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON-able file contents (format, version and every field)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "players": list(self.players),
            "steps": [[int(p), int(a)] for p, a in self.steps],
            "returns": None if self.returns is None else [float(r) for r in self.returns],
            "final_state": self.final_state,
            "seeding": self.seeding,
        }

    @classmethod
    def from_dict(cls, data: Any, game: str | None = None, where: str = "replay") -> Replay:
        """Read :meth:`to_dict` output, checking format, version and fields (and the game, if given).

        A file of version 1 names its seeding in a ``chance_rng`` field (:data:`V1_CHANCE_RNGS`).

        Raises:
            ReplayError: naming what is wrong.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError(f'{where} is not a boardenvs replay (no "format": {FORMAT!r} field)')
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ReplayError(f"{where}: bad format version {version!r}")
        if version > VERSION:
            raise ReplayError(
                f"{where} has format version {version}, written by a newer boardenvs; "
                f"this one reads version {VERSION}"
            )
        name = data.get("game")
        if not isinstance(name, str):
            raise ReplayError(f"{where}: no game name")
        if game is not None and name != game:
            raise ReplayError(f"{where} is a replay of {name}, not of {game}")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ReplayError(f"{where}: options must be a mapping, got {options!r}")
        steps = data.get("steps")
        if not isinstance(steps, list) or not all(
            isinstance(s, list) and len(s) == 2 and all(_is_int(v) for v in s) for s in steps
        ):
            raise ReplayError(f"{where}: steps must be a list of [player, action] integer pairs")
        seed = data.get("seed")
        if seed is not None and not _is_int(seed):
            raise ReplayError(f"{where}: seed must be an integer or null, got {seed!r}")
        players = data.get("players", [])
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ReplayError(f"{where}: players must be a list of labels")
        returns = data.get("returns")
        if returns is not None and (
            not isinstance(returns, list) or not all(isinstance(r, (int, float)) for r in returns)
        ):
            raise ReplayError(f"{where}: returns must be a list of numbers or null")
        final_state = data.get("final_state")
        if not isinstance(final_state, dict):
            raise ReplayError(f"{where}: no final_state (the state dict of the last position)")
        if version == 1:  # old files only: the seeding as version 1 named it
            chance_rng = data.get("chance_rng")
            if chance_rng is not None and chance_rng not in V1_CHANCE_RNGS:
                raise ReplayError(
                    f"{where}: chance_rng must be null or one of {list(V1_CHANCE_RNGS)}, got {chance_rng!r}"
                )
            seeding = None if chance_rng is None else V1_CHANCE_RNGS[chance_rng]
        else:
            seeding = data.get("seeding")
            if seeding is not None and seeding not in SEEDINGS:
                raise ReplayError(
                    f"{where}: seeding must be null or one of {list(SEEDINGS)}, got {seeding!r}"
                )
        return cls(
            game=name,
            options=options,
            steps=[(int(p), int(a)) for p, a in steps],
            seed=seed,
            players=list(players),
            returns=None if returns is None else [float(r) for r in returns],
            final_state=final_state,
            seeding=seeding,
        )

    def save(self, path: str | Path) -> Path:
        """Write the replay as JSON (parent folders created); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), separators=(",", ":")) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path, game: str | None = None, verify: bool = True) -> Replay:
        """Read a replay file; with ``verify`` (the default) replay it once to check every step.

        Raises:
            ReplayError: for a file that is not JSON, not a replay, of a newer version, of another
                ``game`` than asked for, or whose steps do not replay (naming the step).
            FileNotFoundError: if there is no such file.
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ReplayError(f"{path} is not a boardenvs replay (not JSON: {err})") from err
        except RecursionError as err:
            raise ReplayError(f"{path} is not a boardenvs replay (nested too deeply to read)") from err
        replay = cls.from_dict(data, game=game, where=str(path))
        if verify:
            try:
                replay.verify()
            except ReplayError as err:
                raise ReplayError(f"{path}: {err}") from err
        return replay


# -- recording ------------------------------------------------------------------------------------
class Recorder:
    """Records a game: drive its rules state with :meth:`apply`, or let the game loop play it with the
    recorder as its observer (:func:`record_game` does; a Recorder is a
    :class:`~boardenvs.core.loop.GameObserver`). Use one way per game.

    ``seeding`` names the scheme that draws the chance outcomes from ``seed`` (one of :data:`SEEDINGS`),
    if they are drawn so; the replay records it and loading checks it.

    >>> recorder = Recorder(game, seed=7, players=["human", "random"], seeding="env/1")
    >>> recorder.play_chance(np.random.default_rng(7))
    >>> recorder.apply(action)  # a decision of recorder.state.current_player()
    >>> recorder.replay().save("game.json")
    """

    def __init__(
        self, game: Game, seed: int | None = None, players: Sequence[str] = (), seeding: str | None = None
    ) -> None:
        if seeding is not None and seeding not in SEEDINGS:
            raise ValueError(f"seeding must be None or one of {list(SEEDINGS)}, got {seeding!r}")
        self.game = game
        self.seed = seed
        self.players = list(players)
        self.seeding = seeding
        #: The live rules state: the recorder's own, changed only through :meth:`apply`, or, as an
        #: observer, the state of the game it watches.
        self.state = game.new_initial_state()
        self.steps: list[tuple[int, int]] = []
        self._pending: tuple[int, int] | None = None

    def apply(self, action: int) -> None:
        """Apply ``action`` (a decision or a chance outcome) to :attr:`state` and record it.

        Raises:
            IllegalActionError: if it is not legal (nothing is recorded).
        """
        player = self.state.current_player()
        self.state.apply_action(int(action))
        self.steps.append((player, int(action)))

    def play_chance(self, rng: np.random.Generator) -> None:
        """Resolve chance nodes with ``rng`` (recording each outcome) until a player decides or the end."""
        while self.state.current_player() == CHANCE:
            self.apply(self.state.sample_chance(rng))

    # -- as the observer of the game loop ---------------------------------------------------------
    def before(self, state: State, player: int, action: int) -> None:
        """The loop is about to apply ``action`` of ``player`` to ``state`` (which becomes :attr:`state`)."""
        self.state = state
        self._pending = (player, int(action))

    def after(self, state: State) -> None:
        """The action announced to :meth:`before` is applied: record it."""
        assert self._pending is not None, "after() without before()"
        self.steps.append(self._pending)
        self._pending = None

    def result(self, state: State) -> dict[str, Any]:
        """A recorder adds no figures to the game's result: ``{}``."""
        return {}

    def replay(self, rebuild: bool = False) -> Replay:
        """The record so far (an unfinished game has ``returns=None``).

        ``rebuild=True`` takes the final state from the recorded steps replayed, not from the live
        state: after an interruption (Ctrl-C) in the middle of a step, the live state may be a step
        ahead of the record, or half changed.
        """
        state = self.state
        if rebuild:
            state = self.game.new_initial_state()
            for index, (player, action) in enumerate(self.steps):
                _apply_step(state, index, player, action, self.game.agents)
        return _make_replay(self.game, state, self.steps, self.seed, self.players, self.seeding)


def record_game(
    game: Game, actors: Sequence[loop.ActorLike], seed: int, labels: Sequence[str] | None = None
) -> Replay:
    """Play one game with the game loop, :func:`boardenvs.core.loop.play_game` (the arena's:
    ``boardenvs_agents.arena.match.play_game(game, policies, seed)`` plays the same game), and record it.

    The replay's seeding is the loop's (:data:`boardenvs.core.loop.SEEDING`). ``labels`` name the seats
    (default: the actors' ``name``, e.g. the policies' names).
    """
    players = list(labels) if labels else [str(getattr(a, "name", "")) for a in actors]
    recorder = Recorder(game, seed=seed, players=players, seeding=loop.SEEDING)
    loop.play_game(game, actors, seed, observer=recorder)
    return recorder.replay()


class RecordingEnv:
    """Wraps a PettingZoo env of this package and records every step, chance outcomes included.

    Use it as the env itself (every attribute is the wrapped env's); :meth:`replay` returns the record
    of the game since the last ``reset``. Chance outcomes are not visible from outside the adapter, so
    each step re-derives them from a copy of the env's generator taken before the step (the adapter
    resolves chance with ``state.sample_chance(env.np_random)``) and checks that the copy reaches the
    env's own state; nothing in the adapter is patched.

    >>> env = RecordingEnv(boardenvs.make("sorry_v0", num_players=2))
    >>> env.reset(seed=3)
    >>> ...  # play as usual
    >>> env.replay().save("game.json")
    """

    def __init__(self, env: Any, players: Sequence[str] = (), check: bool = True) -> None:
        self.env = env
        self.players = list(players)
        self.check = check
        self._shadow: State | None = None
        self._steps: list[tuple[int, int]] = []
        self._seed: int | None = None
        # Whether the env's generator has drawn nothing but chance since a seeded reset (then the
        # replay's seeding is the env's), and its state after the last chance outcome followed.
        self._chance_only = False
        self._rng_state: Any = None

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self.env, name)

    @property
    def _raw(self) -> Any:
        return self.env.unwrapped

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the env and start a new record."""
        from gymnasium.utils import seeding

        raw = self._raw
        rng = seeding.np_random(seed)[0] if seed is not None else copy.deepcopy(raw.np_random)
        self.env.reset(seed=seed, options=options)
        self._seed = seed
        self._steps = []
        self._shadow = raw.game.new_initial_state()
        self._chance_only = seed is not None
        self._follow_chance(rng)

    def step(self, action: int | None) -> None:
        """Step the env, recording the action (if it was a legal move) and the chance that followed."""
        raw = self._raw
        state = raw.game_state
        agent = raw.agent_selection
        live = not (raw.terminations.get(agent, True) or raw.truncations.get(agent, True))
        legal = (
            live
            and isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and int(action) in state.legal_actions()
        )
        player = state.current_player()
        if raw.np_random.bit_generator.state != self._rng_state:
            self._chance_only = False  # something drew from the env's generator between two steps
        rng = copy.deepcopy(raw.np_random)
        self.env.step(action)
        if legal and self._shadow is not None:
            self._shadow.apply_action(int(action))
            self._steps.append((player, int(action)))
            self._follow_chance(rng)
        else:
            self._after_chance(rng)

    def _follow_chance(self, rng: np.random.Generator) -> None:
        shadow = self._shadow
        assert shadow is not None
        while shadow.current_player() == CHANCE:
            outcome = shadow.sample_chance(rng)
            shadow.apply_action(outcome)
            self._steps.append((CHANCE, outcome))
        self._after_chance(rng)
        if self.check and shadow.to_dict() != self._raw.game_state.to_dict():
            raise RuntimeError(
                "RecordingEnv lost track of the game: its state or generator was changed outside "
                "reset() and step() (e.g. load_state_dict); start a new record with reset()"
            )

    def _after_chance(self, rng: np.random.Generator) -> None:
        """Note whether the env's generator drew more than the chance outcomes ``rng`` followed."""
        self._rng_state = self._raw.np_random.bit_generator.state
        if rng.bit_generator.state != self._rng_state:
            self._chance_only = False  # something else drew from the env's generator too

    def replay(self) -> Replay:
        """The record since the last ``reset`` (``returns=None`` until the game ends)."""
        if self._shadow is None:
            raise RuntimeError("RecordingEnv: call reset() before replay()")
        seeding = ENV_SEEDING if self._chance_only else None
        return _make_replay(self._raw.game, self._shadow, self._steps, self._seed, self.players, seeding)


def check_writable(path: str | Path, directory: bool = False) -> Path:
    """Check, before any work, that a file (or with ``directory``, a folder of files) can be written
    at ``path``: missing parent folders are created, a file is created and removed again.

    Raises:
        OSError: saying why not (a folder where a file is wanted, no permission, a read-only disk).
    """
    path = Path(path)
    if directory:
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(f"{path} exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write_check{os.getpid()}"
    else:
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a folder, not a file")
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path
    existed = probe.exists()
    with open(probe, "a"):
        pass
    if not existed:
        probe.unlink()
    return path


# -- pictures and text ----------------------------------------------------------------------------
def write_gif(images: Sequence[Any], path: str | Path, duration: int = 600) -> Path:
    """Write ``images`` (PIL images of one size) as an animated GIF that loops, ``duration`` ms each."""
    if not images:
        raise ValueError("no frames to write")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=list(images[1:]), duration=duration, loop=0)
    return path


def write_pngs(images: Sequence[Any], directory: str | Path) -> list[Path]:
    """Write ``images`` as ``frame_0000.png``, ``frame_0001.png`` ... in ``directory`` (created)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    width = max(4, len(str(len(images) - 1)))
    paths = []
    for i, image in enumerate(images):
        path = directory / f"frame_{i:0{width}d}.png"
        image.save(path)
        paths.append(path)
    return paths


def result_text(game: Game, state: State, players: Sequence[str] = ()) -> str:
    """The result of a finished ``state`` in words, e.g. ``"player_1 (random) wins"``."""
    if not state.is_terminal():
        return "not finished"
    returns = [float(r) for r in state.returns()]

    def label(p: int) -> str:
        return f"{game.agents[p]} ({players[p]})" if p < len(players) and players[p] else game.agents[p]

    scores = ", ".join(f"{game.agents[p]} {r:+g}" for p, r in enumerate(returns))
    if state.is_truncated():
        return f"truncated by the cap, no winner ({scores})"
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    if len(winners) == 1 and best > min(returns):
        return f"{label(winners[0])} wins ({scores})"
    if best > min(returns):
        return f"draw between {', '.join(label(p) for p in winners)} ({scores})"
    return f"no winner ({scores})"


def _make_replay(
    game: Game,
    state: State,
    steps: list[tuple[int, int]],
    seed: int | None,
    players: list[str],
    seeding: str | None,
) -> Replay:
    done = state.is_terminal()
    return Replay(
        game=game.name,
        options=options_to_dict(game.options),
        steps=list(steps),
        seed=seed,
        players=list(players),
        returns=[float(r) for r in state.returns()] if done else None,
        final_state=state.to_dict(),
        seeding=seeding if seed is not None else None,
    )


def _chance_mismatch(game: Game, steps: Sequence[tuple[int, int]], seed: int, seeding: str) -> int | None:
    """The index of the first chance step that the generator of ``seed`` in the scheme ``seeding`` does
    not draw (``None``: they all follow); a step that does not replay counts as a mismatch."""
    rng = SEEDINGS[seeding](seed)
    state = game.new_initial_state()
    for index, (player, action) in enumerate(steps):
        try:
            if player == CHANCE and state.current_player() == CHANCE and state.sample_chance(rng) != action:
                return index
            state.apply_action(action)
        except (IllegalActionError, ValueError, IndexError):
            return index
    return None


def _apply_step(state: State, index: int, player: int, action: int, agents: Sequence[str]) -> None:
    """Apply step ``index`` to ``state``, checking its player and legality (ReplayError otherwise)."""
    mover = state.current_player()

    def who(p: int) -> str:
        return "chance" if p == CHANCE else (agents[p] if 0 <= p < len(agents) else f"player {p}")

    if state.is_terminal():
        raise ReplayError(f"step {index + 1}: the game is already over, yet {who(player)} plays {action}")
    if player != mover:
        raise ReplayError(f"step {index + 1}: recorded for {who(player)}, but {who(mover)} is to move")
    if mover == CHANCE:
        possible = [o for o, p in state.chance_outcomes() if p > 0]
        if action not in possible:
            raise ReplayError(f"step {index + 1}: chance outcome {action} is not possible here; {possible=}")
    elif action not in state.legal_actions():
        raise ReplayError(
            f"step {index + 1}: action {action} is not legal for {who(player)}; "
            f"legal actions: {list(state.legal_actions())}"
        )
    try:
        state.apply_action(action)
    except IllegalActionError as err:
        raise ReplayError(f"step {index + 1}: {err}") from err


def _check_view(game: Game, view: int | None) -> None:
    if view is not None and (isinstance(view, bool) or not 0 <= view < game.num_players):
        last = game.num_players - 1
        raise ValueError(f"{game.name}: view must be None or a player id 0..{last}, got {view!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _with_caption(render: Any, image: Any, lines: list[str]) -> Any:
    """``image`` with a band of ``CAPTION_LINES`` text lines under it."""
    size = 13 if image.width >= 360 else 10
    band = math.ceil(size * 1.4) * CAPTION_LINES + 8
    out = render.new_image(image.width, image.height + band)
    out.paste(image, (0, 0))
    pil = render.require_pillow()
    draw = pil.ImageDraw.Draw(out)
    max_chars = max(10, int(image.width / (size * 0.55)))
    shown = [line if len(line) <= max_chars else line[: max_chars - 3] + "..." for line in lines]
    render.text_lines(draw, (6, image.height + 4), shown, size=size, spacing=1.4)
    return out
