"""One game played to its end on the rules state: the loop every tool shares, its observer hook and its
one seeding scheme.

:func:`play_game` plays ``game`` with ``actors[p]`` in seat ``p``: the arena
(``boardenvs_agents.arena.match``), the replay recorder (:func:`boardenvs.replay.record_game`), a person
at the terminal (``boardenvs_agents.play``) and imitation's teacher games
(``boardenvs_agents.learning.imitation``) all play through it. An *actor* is anything that chooses an
action for the player to move (:class:`Actor`; a ``boardenvs_agents`` ``Policy`` is one, and so is a
plain function of the state); a :class:`GameObserver` watches every move and sums the game up at the
end.

**The seeding scheme** (:data:`SEEDING`, ``"loop/1"``): a game is a function of its seed and its
seating alone. ``numpy.random.SeedSequence(seed)`` spawns children ``0, 1, 2, ...``, each giving one
32-bit seed (:func:`derive_seeds`); child ``0`` seeds the generator of chance
(:func:`chance_generator`: card draws, dice, a random first player), child ``1 + p`` is seat ``p``'s
seed, with which its actor is reset before the game (:func:`game_seeds`; an actor object that sits in
several seats is reset once, with its first seat's seed). Chance depends on the seed alone, so one seed
played once per seating (the arena's *paired seeds*) deals every seating the same chance stream.
Children after ``n`` are free for a caller's own draws (terminal play draws a random seat with child
``n + 1``). A replay file names the scheme that drew its chance outcomes (``"seeding": "loop/1"``), so
a new scheme is a new name, never a silent change.

**Reading ahead the chance stream** (opt-in, for reference agents only): an actor with a method
``see_chance(rng)`` (:class:`ChanceReader`) is handed, before each of its decisions, a *copy* of the
chance generator in its current state (:func:`copy_generator`), so it knows every chance outcome the
game will draw from there on, given the moves (``state.sample_chance(rng)`` at every chance node, in
order). The game's own generator is never handed out: whatever the actor does with its copy, the game
draws the same outcomes, so a seed deals the same chance stream whoever sits at the table. Actors
without the method are played exactly as before. ``boardenvs_agents``' ``clairvoyant`` is the one agent
that uses it (a measure of how much of a game is luck, never a player).

>>> from boardenvs import make_game
>>> game = make_game("sorry_v0", num_players=2)
>>> first = lambda state: state.legal_actions()[0]
>>> played = play_game(game, [first, first], seed=0)
>>> played.state.is_terminal()
True
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State

#: The name (and version) of the seeding scheme of :func:`play_game`, as replay files record it.
SEEDING = "loop/1"


class Actor(Protocol):
    """What :func:`play_game` needs of a seat: ``act`` chooses a legal action for
    ``state.current_player()``. ``reset(seed=...)``, where an actor has it, is called once before every
    game with the seat's seed (``boardenvs_agents.base.Policy`` has both)."""

    def act(self, state: State) -> int:
        """A legal action for the player to move in ``state``."""


class ChanceReader(Protocol):
    """An actor that reads ahead the game's chance stream (the opt-in hook of :func:`play_game`)."""

    def see_chance(self, rng: np.random.Generator) -> None:
        """Called before each of the actor's decisions with a copy of the game's chance generator in
        its current state: its draws, ``state.sample_chance(rng)`` at every chance node in order from
        the state the actor is about to be asked about, are the outcomes the game will draw."""


#: A seat's player: an :class:`Actor`, or a plain function of the state that returns the action.
ActorLike = Actor | Callable[[State], int]


class GameObserver(Protocol):
    """Watches one game that :func:`play_game` plays, move by move, and sums it up at the end.

    :meth:`before` sees the state before every action (chance outcomes included), :meth:`after` the
    same state object once the action is applied, and :meth:`result` the terminal state. An observer
    must not change the state; one is made per game (``boardenvs_agents.arena.balance`` has them, and a
    :class:`boardenvs.replay.Recorder` is one).
    """

    def before(self, state: State, player: int, action: int) -> None:
        """Called before ``player`` (or CHANCE) applies ``action`` to ``state``."""

    def after(self, state: State) -> None:
        """Called once the action is applied."""

    def result(self, state: State) -> dict[str, Any]:
        """The JSON-able figures of the finished game (:attr:`PlayedGame.stats`)."""


def derive_seeds(seed: int | Sequence[int], count: int) -> list[int]:
    """``count`` independent 32-bit seeds derived from ``seed`` (children ``0 .. count - 1`` of
    ``numpy.random.SeedSequence(seed)``); a longer list starts with the shorter one.

    ``seed`` is anything ``SeedSequence`` takes: an int >= 0, or a sequence of them.
    """
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(count)]


def game_seeds(seed: int, num_players: int) -> tuple[int, list[int]]:
    """The seed of chance and the seed of every seat of the game played with ``seed`` (:data:`SEEDING`)."""
    chance, *seats = derive_seeds(seed, 1 + num_players)
    return chance, seats


def chance_generator(seed: int) -> np.random.Generator:
    """The generator that draws the chance outcomes of the game played with ``seed`` (:data:`SEEDING`)."""
    return np.random.default_rng(derive_seeds(seed, 1)[0])


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state as ``rng``: it draws what ``rng`` would draw next,
    and drawing from either leaves the other unchanged."""
    return copy.deepcopy(rng)


@dataclass(frozen=True)
class PlayedGame:
    """A game :func:`play_game` played: its seed, its last state and what its observer made of it."""

    #: The seed the game was played with.
    seed: int
    #: The terminal state.
    state: State
    #: Decisions taken by the actors (chance outcomes not counted).
    num_decisions: int
    #: What the observer's :meth:`GameObserver.result` returned (empty without an observer).
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def returns(self) -> list[float]:
        """Every seat's return, by seat."""
        return [float(r) for r in self.state.returns()]

    @property
    def truncated(self) -> bool:
        """True when a cap (e.g. ``max_turns``) stopped the game rather than its rules."""
        return bool(self.state.is_truncated())

    @property
    def winner(self) -> int | None:
        """The single seat with the best return; ``None`` for a truncated game, a shared best return,
        or a game where every seat has the same return."""
        returns = self.returns
        best = max(returns)
        winners = [p for p, r in enumerate(returns) if r == best]
        if self.truncated or len(winners) != 1 or best <= min(returns):
            return None
        return winners[0]


def play_game(
    game: Game, actors: Sequence[ActorLike], seed: int, *, observer: GameObserver | None = None
) -> PlayedGame:
    """Play one game of ``game`` to its end with ``actors[p]`` in seat ``p``, reproducibly from ``seed``.

    Chance is drawn with :func:`chance_generator` of ``seed``, and every actor with a ``reset`` is reset
    with its seat's seed (:func:`game_seeds`; an object in several seats once, with its first seat's
    seed). An ``observer`` sees every action (:class:`GameObserver`) and fills the result's ``stats``;
    it changes nothing else. An actor with ``see_chance`` (:class:`ChanceReader`) is handed a copy of
    the chance generator before each of its decisions; the game's chance outcomes stay those of ``seed``.

    Raises:
        ValueError: if the number of actors is not the number of players.
        boardenvs.core.state.IllegalActionError: if an actor chooses an illegal action.
    """
    n = game.num_players
    if len(actors) != n:
        raise ValueError(f"{game.name} with these options has {n} seats, got {len(actors)} policies")
    chance_seed, seat_seeds = game_seeds(seed, n)
    chance_rng = np.random.default_rng(chance_seed)
    reset: set[int] = set()
    choose: list[Callable[[State], int]] = []
    peek: list[Callable[[np.random.Generator], None] | None] = []
    for actor, actor_seed in zip(actors, seat_seeds, strict=True):
        if id(actor) not in reset:
            reset.add(id(actor))
            if callable(getattr(actor, "reset", None)):
                actor.reset(seed=actor_seed)  # type: ignore[union-attr]
        act = getattr(actor, "act", None)
        choose.append(act if callable(act) else actor)  # type: ignore[arg-type]
        see = getattr(actor, "see_chance", None)
        peek.append(see if callable(see) else None)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = state.sample_chance(chance_rng)
        else:
            see = peek[player]
            if see is not None:
                see(copy_generator(chance_rng))
            action = choose[player](state)
            decisions += 1
        if observer is None:
            state.apply_action(action)
            continue
        observer.before(state, player, action)
        state.apply_action(action)
        observer.after(state)
    stats = observer.result(state) if observer is not None else {}
    return PlayedGame(seed=seed, state=state, num_decisions=decisions, stats=stats)
