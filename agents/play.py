"""A game in the terminal: a person in one seat (:class:`~boardenvs_agents.human.HumanPolicy`), agents in
the others, every move and chance event told in words from the person's seat.

:class:`TerminalGame` checks everything before the game starts (the game and its options, the seat,
one agent spec per other seat; ``ValueError`` naming the bad value), plays the game with
:meth:`TerminalGame.play` (the person's seat sees only what it may know; the final position is shown
whole) and keeps every step in a :class:`~boardenvs.replay.Recorder`, so a game the person abandons
(:class:`~boardenvs_agents.human.HumanQuit`) can still be saved. The game is played by the one game loop,
:func:`boardenvs.core.loop.play_game`, with its seeding: the same seed, seat and agents give the same
chance and the same agents' moves as the arena's game of that seed. ``scripts/play.py`` is its command
line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from boardenvs import make_game
from boardenvs.core import loop
from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State
from boardenvs.replay import Recorder, result_text
from boardenvs_agents.base import Policy
from boardenvs_agents.human import HumanPolicy
from boardenvs_agents.registry import make_policy


def parse_seat(seat: str | int, game: Game, rng_seed: int) -> int:
    """The person's seat: a number, an agent name (``kyonshi``) or ``random`` (drawn with ``rng_seed``).

    Raises:
        ValueError: for anything else, naming the seats.
    """
    n = game.num_players
    if seat == "random":
        return int(np.random.default_rng(rng_seed).integers(n))
    if seat in game.agents:
        return game.agents.index(str(seat))
    try:
        number = int(seat)
    except ValueError:
        raise ValueError(
            f"seat must be a number 0-{n - 1}, an agent name {game.agents} or 'random', got {seat!r}"
        ) from None
    if not 0 <= number < n:
        raise ValueError(f"seat {number} is not a seat of this game: seats are 0-{n - 1} ({game.agents})")
    return number


def verdict(state: State, seat: int) -> str:
    """The end of a finished game from ``seat``'s side: won, lost, a shared draw, or stopped by the cap."""
    returns = [float(r) for r in state.returns()]
    mine, best = returns[seat], max(returns)
    if state.is_truncated():
        return "The game was stopped by its cap: nobody wins."
    if mine == best and mine > min(returns):
        return "You win!" if returns.count(best) == 1 else "A draw, and you share it."
    return "You lose." if mine < best else "Nobody wins."


def save_picture(game: Game, state: State, view: int | None, path: Path) -> None:
    """Write the picture of ``state`` seen from ``view`` to ``path`` (needs Pillow)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    game.draw(state, view).save(path)


class TerminalGame:
    """One game with a person at the keyboard, set up and checked before it starts.

    Args:
        game_name: registered env name (``sorry_v0``).
        options: the game's options (``num_players`` among them).
        seat: the person's seat: a number, an agent name, or ``"random"``.
        opponents: agent specs of the other seats: one for all, or one per other seat in seat order.
        seed: the game's seed (chance, the agents, a random seat); ``None``: a fresh one.
        show_board: print the position before each of the person's moves.
        ask_forced: ask even when only one move is legal (else it is played for the person).
        show_image: also write a picture of the person's view to this PNG before each of their moves.
        input_stream: where the person's answers come from (standard input by default).
        output_stream: where everything is told (standard output by default).

    Raises:
        ValueError: for an unknown game, bad options, a bad seat, the wrong number of specs, a bad spec
            (``bad agent spec '<spec>': ...``), or pictures the game cannot draw.
        ImportError: for ``show_image`` without Pillow.
    """

    def __init__(
        self,
        game_name: str,
        options: dict[str, Any] | None = None,
        seat: str | int = 0,
        opponents: Sequence[str] = ("random",),
        seed: int | None = None,
        *,
        show_board: bool = True,
        ask_forced: bool = False,
        show_image: Path | None = None,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
    ) -> None:
        self.game_name = game_name
        self.options = dict(options or {})
        try:
            self.game = make_game(game_name, **self.options)
        except TypeError as err:
            raise ValueError(str(err)) from err
        n = self.game.num_players
        self.seed = seed if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        # The loop's seeds (chance, then one per seat), and the next child of the seed for a random seat.
        self.chance_seed, self.seat_seeds = loop.game_seeds(self.seed, n)
        self.seat = parse_seat(seat, self.game, loop.derive_seeds(self.seed, n + 2)[n + 1])
        specs = list(opponents) or ["random"]
        if len(specs) == 1:
            specs = specs * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(
                "give one opponent spec for all other seats, or one per other seat "
                f"({n - 1}), not {len(specs)}"
            )
        self.labels = specs[: self.seat] + ["human"] + specs[self.seat :]
        self.out = output_stream
        self.show_image = show_image
        self.policies: list[Policy] = []
        for p, spec in enumerate(self.labels):
            if p == self.seat:
                human = HumanPolicy(
                    input_stream=input_stream, output_stream=output_stream, agent_names=self.game.agents,
                    show_board=show_board, auto_single=not ask_forced,
                )  # fmt: skip
                self.policies.append(human)
                continue
            try:
                policy = make_policy(spec, game_name, seed=self.seat_seeds[p], game_options=self.options)
            except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
                raise ValueError(f"bad agent spec {spec!r}: {err}") from err
            self.policies.append(policy)
        if show_image is not None:
            try:
                save_picture(self.game, self.game.new_initial_state(), self.seat, show_image)
            except NotImplementedError:
                raise ValueError(f"{game_name} has no pictures to show") from None
        self.recorder = Recorder(self.game, seed=self.seed, players=self.labels, seeding=loop.SEEDING)

    @property
    def you(self) -> str:
        """The person's agent name."""
        return self.game.agents[self.seat]

    @property
    def state(self) -> State:
        """The position now."""
        return self.recorder.state

    def say(self, text: str = "") -> None:
        """Tell the person a line."""
        print(text, file=self.out if self.out is not None else sys.stdout, flush=True)

    def introduction(self) -> str:
        """The first line: the game, the seed, the person's seat and who sits in the others."""
        others = ", ".join(
            f"{self.game.agents[p]}: {self.labels[p]}" for p in range(self.game.num_players) if p != self.seat
        )
        return (
            f"{self.game_name}, {self.game.num_players} players, seed {self.seed}. "
            f"You are {self.you} (seat {self.seat}); {others}."
        )

    def play(self) -> State:
        """Play the game to its end and tell how it ended; returns the final state.

        Raises:
            HumanQuit: when the person's input ends or they quit (:attr:`recorder` keeps the steps).
        """
        self.say(self.introduction())
        self.say("At a prompt, type the number of a move, or ? for help.")
        actors: list[Any] = list(self.policies)
        if self.show_image is not None:
            actors[self.seat] = _Pictured(self.policies[self.seat], self)
        loop.play_game(self.game, actors, self.seed, observer=_Narrator(self))
        state = self.state
        self.say()
        self.say("Game over. The final position, everything shown:")
        self.say(state.render_text())
        if self.show_image is not None:
            save_picture(self.game, state, None, self.show_image)
        self.say()
        self.say(f"Result after {self.recorder.replay().num_decisions} decisions: {self.result()}")
        self.say(self.verdict())
        return state

    def result(self) -> str:
        """The result in words (who won, the returns)."""
        return result_text(self.game, self.state, self.labels)

    def verdict(self) -> str:
        """The end from the person's side: won, lost, a shared draw, or stopped by the cap."""
        return verdict(self.state, self.seat)

    def save_replay(self, path: str | Path, interrupted: bool = False) -> None:
        """Write the game so far (finished or not) as a replay file for ``scripts/replay.py``.

        ``interrupted=True`` (Ctrl-C, which may land inside a step): the final state is rebuilt from
        the recorded steps instead of taken from the live state.
        """
        self.recorder.replay(rebuild=interrupted).save(path)


class _Pictured:
    """The person's seat with ``--show-image``: a picture of their view is written before each move."""

    def __init__(self, policy: Policy, table: TerminalGame) -> None:
        self.policy = policy
        self.table = table

    def reset(self, seed: int | None = None) -> None:
        """Reset the person's policy."""
        self.policy.reset(seed=seed)

    def act(self, state: State) -> int:
        """Write the picture, then ask the person."""
        assert self.table.show_image is not None
        save_picture(self.table.game, state, self.table.seat, self.table.show_image)
        return self.policy.act(state)


class _Narrator:
    """The observer of a terminal game: tells every move in words from the person's seat (chance
    outcomes included) and records it in the table's :class:`~boardenvs.replay.Recorder`."""

    def __init__(self, table: TerminalGame) -> None:
        self.table = table
        self.told_out = False
        self.player = CHANCE

    def before(self, state: State, player: int, action: int) -> None:
        """Tell the move before it is applied (its words depend on the position it is played in)."""
        table = self.table
        self.player = player
        text = state.action_to_string(action, view=table.seat)
        if player == CHANCE:
            table.say(f"  chance: {text}")
        else:
            mover = table.game.agents[player]
            who = f"{table.you} (you)" if player == table.seat else f"{mover} ({table.labels[player]})"
            table.say(f"  {who}: {text}")
        table.recorder.before(state, player, action)

    def after(self, state: State) -> None:
        """Record the move; after a decision, tell the person once when they are out and the others
        play on."""
        table = self.table
        table.recorder.after(state)
        if self.player == CHANCE:
            return
        if not self.told_out and state.is_out(table.seat) and not state.is_terminal():
            self.told_out = True
            table.say(f"You ({table.you}) are out of the game; the others play on to the end.")

    def result(self, state: State) -> dict[str, Any]:
        """No figures: ``{}``."""
        return {}
