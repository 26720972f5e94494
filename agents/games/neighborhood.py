"""A hand-written player for ``neighborhood_v0``: a shallow expectimax over a readable evaluation.

Rule ids (L1-L40) refer to ``shared/rules/neighborhood.md`` and :mod:`boardenvs.neighborhood.env`.
"""

from __future__ import annotations

from boardenvs.core.state import CHANCE, State
from boardenvs.neighborhood.board import CHEB
from boardenvs.neighborhood.rules import CH_MOVE, NeighborhoodState
from boardenvs_agents.base import Policy


class NeighborhoodHeuristic(Policy):
    """Looks a few nodes ahead through the card being resolved and scores the HP that results.

    Every legal action is applied to a clone; the resulting node is valued by a small expectimax:

    * a chance node with few outcomes (a card draw, a Showdown or roll-off die) is the probability-
      weighted mean of its outcomes' values (the draw pile's public composition, L25);
    * a decision of mine is the best of my actions; anyone else's decision, the next turn's die and
      spinner (a ``CH_MOVE`` node), the end of the search depth or of the game are scored directly.

    The score of a position for me::

        score = HP(me) - opp_weight * mean_q HP(q) - leader_weight * max_q HP(q)
                - low_weight * max(0, low_hp - HP(me))           # heal when low
                - crowd_weight * (opponents within 1 square of me) # avoid crowded squares
                - 1 per Hire-a-Thug HP due, - skip_penalty if my next turn is skipped
                + pending_bonus if I hold a pending Wild card (L12)

    (out opponents count 0 HP; being out scores -100, winning +100, a draw 0). So card choices hurt
    the leading opponent (a victim with most HP, Hostage, Alley Fight and Curfew on the leader), heal
    when HP runs low (First Aid, Berries, Crossroads, Mercy), and moves end away from opponents unless
    landing on one pays (Killer cards favour the Killer). Ties are broken with the policy's own
    generator.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        depth: nodes searched below each action (chance and my own decisions).
        opp_weight: weight of the opponents' mean HP.
        leader_weight: weight of the leading opponent's HP.
        low_hp: below this HP every missing point costs ``low_weight`` more.
        low_weight: extra weight of HP below ``low_hp``.
        crowd_weight: cost of each opponent within one king-step of me.
        skip_penalty: cost of my next turn being skipped (Curfew).
        pending_bonus: value of holding a pending Wild card.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        depth: int = 3,
        opp_weight: float = 0.5,
        leader_weight: float = 0.5,
        low_hp: int = 4,
        low_weight: float = 1.0,
        crowd_weight: float = 0.3,
        skip_penalty: float = 0.5,
        pending_bonus: float = 0.2,
    ) -> None:
        super().__init__(seed)
        self.depth = int(depth)
        self.opp_weight = float(opp_weight)
        self.leader_weight = float(leader_weight)
        self.low_hp = int(low_hp)
        self.low_weight = float(low_weight)
        self.crowd_weight = float(crowd_weight)
        self.skip_penalty = float(skip_penalty)
        self.pending_bonus = float(pending_bonus)

    def act(self, state: State) -> int:
        """The legal action with the best searched value (ties broken with ``self.rng``)."""
        if not isinstance(state, NeighborhoodState):
            raise TypeError(f"NeighborhoodHeuristic plays neighborhood_v0 states, got {type(state).__name__}")
        me = state.current_player()
        return self.best_successor(state, lambda child: self._value(child, me, self.depth))

    def _value(self, state: NeighborhoodState, me: int, depth: int) -> float:
        if state.over:
            return 100.0 * state.returns()[me]
        if not state.alive[me]:
            return -100.0
        player = state.current_player()
        if depth <= 0 or (player == CHANCE and state._chance[0] == CH_MOVE):
            return self.evaluate(state, me)
        if player == CHANCE:
            total = 0.0
            for outcome, prob in state.chance_outcomes():
                child = state.clone()
                child.apply_action(outcome)
                total += prob * self._value(child, me, depth - 1)
            return total
        if player != me:
            return self.evaluate(state, me)
        best = float("-inf")
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            best = max(best, self._value(child, me, depth - 1))
        return best

    def evaluate(self, state: NeighborhoodState, me: int) -> float:
        """Static score of ``state`` for seat ``me`` (see the class docstring)."""
        if state.over:
            return 100.0 * state.returns()[me]
        hp = state.hp
        if not state.alive[me]:
            return -100.0
        opp = [hp[q] for q in range(state.n) if q != me]
        score = hp[me] - self.opp_weight * sum(opp) / len(opp) - self.leader_weight * max(opp)
        score -= self.low_weight * max(0, self.low_hp - hp[me])
        here = CHEB[state.pos[me]]
        crowd = sum(1 for q in range(state.n) if q != me and state.alive[q] and here[state.pos[q]] <= 1)
        score -= self.crowd_weight * crowd
        score -= state.thug[me] + (self.skip_penalty if state.skip[me] else 0.0)
        if state.pending[me] >= 0:
            score += self.pending_bonus
        return score

    def __repr__(self) -> str:
        return (
            f"NeighborhoodHeuristic(depth={self.depth}, opp_weight={self.opp_weight}, "
            f"leader_weight={self.leader_weight}, low_hp={self.low_hp}, low_weight={self.low_weight}, "
            f"crowd_weight={self.crowd_weight})"
        )


# -- leaf value for search ------------------------------------------------------------------------
def progress(state: State) -> list[float]:
    """Every player's HP over 10 (L21), 0 when out, for search leaves."""
    from boardenvs.neighborhood.rules import MAX_HP

    return [state.hp[p] / MAX_HP if state.alive[p] else 0.0 for p in range(state.n)]
