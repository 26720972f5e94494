"""A person at the keyboard as a policy: the position and the legal moves in words, a choice typed in.

:class:`HumanPolicy` (spec ``human``) prints the position as its seat may see it
(``state.render_text(view=seat)``) and the legal moves numbered and described in words
(``state.action_to_string``), then reads a choice: the number of a move, or the start of its
description (``"red 0 f"``) when that names one move only. Anything else (an unknown number,
words that match no move or several, an empty line) gets a message saying what went wrong and the
question is asked again: a typing mistake never loses the game. ``?`` or ``help`` lists the
commands, ``board`` shows the position again, ``moves`` the list of moves, ``quit`` gives up. A
move that is the only legal one (a forced pass) is played without asking, unless ``auto_single`` is off.

Streams are injectable (``input_stream``, ``output_stream``) so tests can type for the person. When
the input ends (EOF) or the person quits, :meth:`HumanPolicy.act` raises :class:`HumanQuit`, which
``scripts/play.py`` reports with exit code 1 and no traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from boardenvs.core.state import State
from boardenvs_agents.base import Policy

HELP = """\
Type one of:
  a number         play the move with that number
  words            play the move whose description starts with them (e.g. the first few words),
                   if only one move does
  board            show the position again
  moves            list the moves again
  ? or help        this help
  quit             give up the game"""


class HumanQuit(Exception):
    """The person gave up: the input ended (EOF) or they typed ``quit``."""


class HumanPolicy(Policy):
    """A person choosing moves through text streams (standard input and output by default).

    Args:
        seed: unused (a person brings their own randomness); accepted like every policy's.
        input_stream: where choices are read from (``sys.stdin`` if ``None``).
        output_stream: where the position, the moves and messages go (``sys.stdout`` if ``None``).
        agent_names: the name of every seat (``game.agents``), used in the prompts.
        show_board: print the position before each list of moves.
        auto_single: play a move without asking when it is the only legal one (a forced pass).
    """

    name = "human"

    def __init__(
        self,
        seed: int | None = None,
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
        agent_names: Sequence[str] | None = None,
        show_board: bool = True,
        auto_single: bool = True,
    ) -> None:
        super().__init__(seed)
        self._input = input_stream
        self._output = output_stream
        self.agent_names = list(agent_names) if agent_names else None
        self.show_board = show_board
        self.auto_single = auto_single

    # -- streams ----------------------------------------------------------------------------------
    @property
    def input(self) -> TextIO:
        """The stream choices are read from."""
        return self._input if self._input is not None else sys.stdin

    @property
    def output(self) -> TextIO:
        """The stream the position and messages are written to."""
        return self._output if self._output is not None else sys.stdout

    def say(self, text: str = "") -> None:
        """Write a line to the person."""
        print(text, file=self.output, flush=True)

    # -- playing ----------------------------------------------------------------------------------
    def seat_name(self, player: int) -> str:
        """The agent name of ``player`` (``player_<i>`` without names)."""
        if self.agent_names and 0 <= player < len(self.agent_names):
            return self.agent_names[player]
        return f"player_{player}"

    def moves(self, state: State) -> list[tuple[int, str]]:
        """The legal moves of the player to move as ``(action, description)``, described as that player
        may know them; descriptions are unique (two moves described alike get their action ids appended)."""
        legal = list(state.legal_actions())
        player = state.current_player()
        texts = [state.action_to_string(a, view=player) for a in legal]
        counts: dict[str, int] = {}
        for text in texts:
            counts[text] = counts.get(text, 0) + 1
        return [
            (a, text if counts[text] == 1 else f"{text} (action {a})")
            for a, text in zip(legal, texts, strict=True)
        ]

    def show_moves(self, moves: list[tuple[int, str]]) -> None:
        """Print the numbered list of moves."""
        width = len(str(len(moves)))
        for i, (_, text) in enumerate(moves, 1):
            self.say(f"  {i:>{width}}. {text}")

    def act(self, state: State) -> int:
        """Show the position and the moves, and read choices until one names a legal move.

        Raises:
            HumanQuit: at the end of the input, or when the person types ``quit``.
        """
        player = state.current_player()
        moves = self.moves(state)
        if self.show_board:
            self.say()
            self.say(state.render_text(view=player))
        self.say()
        if self.auto_single and len(moves) == 1:
            self.say(f"{self.seat_name(player)}, your only legal move is played for you: {moves[0][1]}")
            return moves[0][0]
        self.say(f"Your move, {self.seat_name(player)}. Legal moves:")
        self.show_moves(moves)
        while True:
            reply = self._read(f"Choose 1-{len(moves)} (? for help): ")
            choice = self.parse(reply, moves)
            if isinstance(choice, int):
                return choice
            if choice == "board":
                self.say(state.render_text(view=player))
            elif choice == "moves":
                self.show_moves(moves)
            elif choice == "help":
                self.say(HELP)
            else:
                self.say(choice)

    def parse(self, reply: str, moves: list[tuple[int, str]]) -> int | str:
        """The action ``reply`` names, or a command (``"board"``, ``"moves"``, ``"help"``), or an
        error message to show (any other string).

        Raises:
            HumanQuit: for ``quit``.
        """
        text = " ".join(reply.split())
        low = text.lower()
        if low in ("?", "help"):
            return "help"
        if low == "board":
            return "board"
        if low in ("moves", "list"):
            return "moves"
        if low in ("quit", "exit", "resign"):
            raise HumanQuit("you quit the game")
        if not text:
            return f"Please type the number of a move (1-{len(moves)}), or ? for help."
        number = _as_int(text)
        if number is not None:
            if 1 <= number <= len(moves):
                return moves[number - 1][0]
            return f"There is no move {number}: choose a number from 1 to {len(moves)}."
        descriptions = [(a, d.lower()) for a, d in moves]
        exact = [a for a, d in descriptions if d == low]
        if exact:
            return exact[0]
        matches = [(i, a) for i, (a, d) in enumerate(descriptions, 1) if d.startswith(low)]
        if len(matches) == 1:
            return matches[0][1]
        if matches:
            listed = ", ".join(str(i) for i, _ in matches[:8]) + (" ..." if len(matches) > 8 else "")
            return f"{text!r} matches {len(matches)} moves ({listed}): type more of it, or the number."
        return f"{text!r} is not a move here. Type the number of a move (1-{len(moves)}), or ? for help."

    def _read(self, prompt: str) -> str:
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            self.say()
            raise HumanQuit("the input ended before the game did")
        return line.rstrip("\r\n")


def _as_int(text: str) -> int | None:
    """``text`` as an integer (``"3"``, ``"#3"``, ``"3."``), or ``None``."""
    stripped = text.strip().lstrip("#").rstrip(".")
    if stripped.lstrip("+-").isdigit():
        return int(stripped)
    return None


def make_human(
    game_name: str, seed: int | None, game_options: dict[str, Any] | None, **kwargs: Any
) -> Policy:
    """The ``human`` spec of ``boardenvs_agents.registry``: a :class:`HumanPolicy` on standard input and
    output.

    Options: ``board`` (true/false: print the position before each move) and ``auto`` (true/false:
    play a move without asking when it is the only legal one).
    """
    unknown = sorted(set(kwargs) - {"board", "auto"})
    if unknown:
        raise ValueError(f"the human policy takes the options 'board' and 'auto', got {unknown}")
    return HumanPolicy(
        seed=seed, show_board=bool(kwargs.get("board", True)), auto_single=bool(kwargs.get("auto", True))
    )
