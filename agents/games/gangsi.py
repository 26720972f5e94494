"""A hand-written player for both roles of ``gangsi_v0``.

Rule ids (K1-K34) refer to ``docs/rules/gangsi.md`` and :mod:`boardenvs.gangsi.env`.

* **Hunters** head for their nearest needed treasure, measured in hunter moves (a move is a straight
  line of 1-4 squares or an arrow slide, K10-K12), keep out of the Kyonshi's reach (its largest die
  face, the dice set aside, and the dice the pieces still to move this round are expected to set
  aside, K15, K17), re-roll when the roll brings them no closer and enough dice are left (K14), and
  reset the dice set aside exactly when the interrupt can catch no piece (K16, K31). They read only
  what a hunter may know: the board, every piece, their own hand and the dice.
* **The Kyonshi** reads only the public possibility set of every piece (K32): it spreads each living
  piece's probability evenly over its set, then walks the path (up to five steps ahead) that crosses
  the most probability, plus a pull toward where the probability lies for the squares it cannot reach
  this turn; it stops when standing still is worth more.
"""

from __future__ import annotations

from boardenvs.core.state import State
from boardenvs.gangsi.cards import NUM_HUNTER_DICE
from boardenvs.gangsi.features import (
    hunter_move_distance,
    hunter_probability,
    kyonshi_path_values,
    nearest_catchable,
)
from boardenvs.gangsi.rules import (
    DIR,
    FACE,
    KEEP,
    KYONSHI,
    PH_CHOOSE,
    PH_DIR,
    PH_RESET,
    REROLL,
    RESET,
    STEP,
    STOP,
    GangsiState,
    bits,
)
from boardenvs_agents.base import Policy
from boardenvs_agents.games import gangsi_figures
from boardenvs_agents.games.record import GameRecord

#: Kyonshi faces one hunter turn is expected to set aside (five dice, one face in six; K2, K15).
ASIDE_PER_TURN = NUM_HUNTER_DICE / 6


class GangsiHeuristic(Policy):
    """Plays whichever role is to move: see the module docstring.

    Args:
        seed: seed of the policy's generator (used only to break ties).
        danger: weight of the Kyonshi's reach in a hunter's choice of square.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, danger: float = 6.0) -> None:
        super().__init__(seed)
        self.danger = danger

    def act(self, state: State) -> int:
        """A legal action for the player to move."""
        assert isinstance(state, GangsiState)
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.current_player() == KYONSHI:
            return self._kyonshi(state)
        phase = state.phase
        if phase == PH_RESET:
            return self._reset(state)
        if phase == PH_CHOOSE:
            return self._choose(state)
        if phase == PH_DIR:
            return self._direction(state)
        return legal[int(self.rng.random() * len(legal))]

    # -- hunters ----------------------------------------------------------------------------------
    def _reset(self, state: GangsiState) -> int:
        """K16, K31: reset when the interrupt can catch nobody, else keep the dice aside.

        The interrupt is as long as the dice set aside, and every die left aside also lengthens the
        Kyonshi's normal move of every round until someone resets (K15, K17). A hunter sees every
        piece, so it resets exactly when no living piece off the entrance and the coffin stands within
        that many steps of the Kyonshi; otherwise it keeps rolling the free dice (with none left the
        reset is forced, K16).
        """
        near = nearest_catchable(state)
        return RESET if near > state.aside else KEEP

    def _square_value(self, state: GangsiState, cell: int) -> float:
        """How good it is for the acting piece to end its move on ``cell``."""
        piece = state.acting
        maze = state.maze
        needed = bits(state.hand[piece] & ~state.revealed[piece])
        moves = hunter_move_distance(maze, state.options.hunter_turns)
        value = 0.0
        t_here = maze.treasure_at[cell]
        reveals = t_here >= 0 and t_here in needed
        if reveals:
            if len(needed) == 1:
                return 1e6  # K20: the fifth reveal wins at once
            value += 100.0
            needed = [t for t in needed if t != t_here]
        if needed:
            best = min(moves[cell][maze.treasure_cell[t]] for t in needed)
            steps = min(
                maze.dist[cell][maze.treasure_cell[t]] if maze.dist[cell][maze.treasure_cell[t]] >= 0 else 50
                for t in needed
            )
            value -= 10.0 * best + 0.5 * steps
        # The Kyonshi's reach on its next move: its largest die face, the dice set aside, and the dice
        # the pieces still to move this round are expected to set aside (K15, K17): a turn rolls up to
        # five dice, each showing the Kyonshi face once in six.
        later = sum(1 for j in range(piece + 1, state.n) if state.lives[j] > 0)
        reach = max(state.options.kyonshi_die) + state.aside + ASIDE_PER_TURN * later
        ky_dist = maze.dist[state.ky][cell]
        if ky_dist >= 0 and cell not in (maze.entrance, maze.coffin):
            threat = reach + 1 - ky_dist
            if threat > 0:
                # A reveal tells the Kyonshi exactly where the piece stands (K9).
                value -= self.danger * threat * (3.0 if reveals else 1.0)
        return value

    def _options(self, state: GangsiState) -> list[tuple[float, int, int]]:
        """``(value, face, destination)`` of every declarable move."""
        out = []
        for action in state.legal_actions():
            if FACE <= action < DIR:
                face = action - FACE
                for dest in state.move_destinations(state.acting, face):
                    out.append((self._square_value(state, dest), face, dest))
        return out

    def _choose(self, state: GangsiState) -> int:
        """Declare the face with the best destination, or re-roll if it gains nothing (K14)."""
        options = self._options(state)
        best_value = max(v for v, _, _ in options)
        here = self._square_value(state, state.pos[state.acting])
        free = NUM_HUNTER_DICE - state.aside
        if best_value <= here and free >= 3 and state.rerolls < 2:
            return REROLL
        best = [(face, dest) for v, face, dest in options if v == best_value]
        face, _ = best[int(self.rng.random() * len(best))]
        return FACE + face

    def _direction(self, state: GangsiState) -> int:
        """The direction toward the best square the declared face can still reach."""
        dests = state.pending_destinations()
        scored = [(self._square_value(state, cell), d) for cell, d in dests.items()]
        best_value = max(v for v, _ in scored)
        best = sorted({d for v, d in scored if v == best_value})
        return DIR + best[int(self.rng.random() * len(best))]

    # -- the Kyonshi ------------------------------------------------------------------------------
    def _kyonshi(self, state: GangsiState) -> int:
        """Walk the path that crosses the most public probability of a hunter (K32); a tie with
        standing still stays."""
        values = kyonshi_path_values(state, hunter_probability(state))
        stay = values.pop(STOP)
        best_value = max(values.values(), default=stay)
        if best_value <= stay + 1e-12:
            return STOP
        best_first = sorted(d for d, v in values.items() if v >= best_value - 1e-12)
        return STEP + best_first[int(self.rng.random() * len(best_first))]


__all__ = ["RECORD", "GangsiHeuristic", "progress"]


# -- leaf value for search ------------------------------------------------------------------------
def progress(state: State) -> list[float]:
    """Every seat's progress in ``[0, 1]``: the Kyonshi's tokens and time played (K26), a hunter's
    treasures (K20)."""
    from boardenvs.gangsi.cards import HAND_SIZE
    from boardenvs.gangsi.rules import bits

    num = state.options.num_players
    maze = state.maze
    moves = hunter_move_distance(maze, state.options.hunter_turns)
    time_share = state.round / state.options.max_rounds
    tokens = min(1.0, state.tokens / state.threshold)
    out = [1.0 - (1.0 - tokens) * (1.0 - time_share)]
    for p in range(1, num):
        best = 0.0
        for piece in state.pieces_of(p):
            if state.lives[piece] == 0:
                continue
            revealed = bin(state.revealed[piece]).count("1")
            missing = state.hand[piece] & ~state.revealed[piece]
            near = min(
                (moves[state.pos[piece]][maze.treasure_cell[t]] for t in bits(missing)),
                default=0,
            )
            # Half a treasure for standing next to the next one, less the more hunter moves away (K10-K12).
            best = max(best, (revealed + 0.5 / (1 + near)) / HAND_SIZE)
        out.append(best)
    return out


# -- the record -----------------------------------------------------------------------------------
#: Everything the agents know about Gangsi, published under the entry-point group
#: ``boardenvs_agents.games`` (pyproject.toml). The champion: the shipped PPO model alone, since no
#: search over it measured beat it (Gumbel MCTS at 16 and 64 simulations and expectimax took from it,
#: paired rollouts on 20 rounds were level over 1,600 games; docs/learning.md, "The champion on a
#: simulation budget" and "More games: Gangsi and two-player Sorry! stay with their champions"), else
#: the heuristic where no model ships for the options asked.
RECORD = GameRecord(
    game="gangsi_v0",
    heuristic=GangsiHeuristic,
    progress=progress,
    kind=gangsi_figures.decision_kind,
    events=gangsi_figures.count_events,
    strategy_events=gangsi_figures.STRATEGY_EVENTS,
    balance=gangsi_figures.BALANCE,
    champion=("ppo:gangsi_v0", "heuristic"),
)
