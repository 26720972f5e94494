"""A hand-written player for ``neighborhood_v0``: an expectimax through the card being resolved, with a
path planner for curved moves, over a readable evaluation.

Rule ids (L1-L40) refer to ``docs/rules/neighborhood.md`` and :mod:`boardenvs.neighborhood.env`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from boardenvs.core.state import CHANCE, State
from boardenvs.neighborhood.board import SPINNER_POINTS, geometry, path_ends
from boardenvs.neighborhood.rules import CH_MOVE, CH_SEAT, D_PATH, DIR, MAX_HP, STOP, NeighborhoodState
from boardenvs_agents.base import Policy
from boardenvs_agents.games import neighborhood_figures
from boardenvs_agents.games.record import GameRecord


class NeighborhoodHeuristic(Policy):
    """Searches the card being resolved to its end and scores the HP that results.

    Every legal action is applied to a clone and the resulting node is valued by an expectimax:

    * a chance node (a card draw, a Showdown or roll-off die, Lost's spin) is the probability-weighted
      mean of its outcomes (the draw pile's public composition, L25), down to ``depth`` chance nodes;
    * a decision of mine is the best of my actions: searched on (at no cost in depth) to the card's
      next chance node, and rated one ply deep below one (the cost of the search); another player's
      decision is the action that player's own score rates best (one ply);
    * the next turn's die and spinner (a ``CH_MOVE`` node), the depth limit and the end of the game
      are scored directly.

    A curved path (L24: Shortcut, Flee's blue line, Berries) is planned as a whole: every square the
    path can end on is scored once (a quiet square by the score of standing there; a square with a
    character or a trap by searching the landing; an empty Wild Space by searching one landing per
    location), and the path walks to the best one.
    So the player lands on opponents when the Killer card pays, and on Wild Spaces when the deck does.

    The score of a position for me::

        score = HP(me) - opp_weight * mean_q HP(q) - leader_weight * max_q HP(q)
                - low_weight * max(0, low_hp - HP(me))           # heal when low
                - 1 per Hire-a-Thug HP due, - skip_penalty if my next turn is skipped
                + pending_bonus if I hold a pending Wild card (L12)
                - exposure * sum_q P(q's next roll and spin ends on my square)   # (off: 0)

    where, with ``lead_weight`` below 1, my HP above the best opponent's count only ``lead_weight``
    each (off: 1). ``exposure`` and ``lead_weight`` are off by default: they were measured in a sweep
    of variants against the default heuristic, and neither beats it (``docs/learning.md``, "Is there
    room above the Neighborhood heuristic?").

    (out opponents count 0 HP; being out scores -100, winning +100, a draw 0). So card choices hurt
    the leading opponent (a victim with most HP, Hostage, Alley Fight and Curfew on the leader) and
    heal when HP runs low (First Aid, Berries, Crossroads, Mercy). Ties are broken with the policy's
    own generator.

    Cost (the default game, 100 games per count with the heuristic in every seat, CPU time): about 1 ms a
    decision (0.9, 1.0 and 1.2 ms with 3, 4 and 5 players; the slowest decision about 0.13 s), 0.08, 0.12
    and 0.23 s a game. The path planner scores each end square once and walks the plan without
    searching again, so a curved path costs less than 1 ms a step.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        depth: chance nodes searched below each action.
        opp_weight: weight of the opponents' mean HP.
        leader_weight: weight of the leading opponent's HP.
        low_hp: below this HP every missing point costs ``low_weight`` more.
        low_weight: extra weight of HP below ``low_hp``.
        skip_penalty: cost of my next turn being skipped (Curfew).
        pending_bonus: value of holding a pending Wild card.
        exposure: cost of each expected landing of an opponent on my square by its next roll
            (:func:`landing_odds`; the one who arrives is the Killer, I the Victim).
        lead_weight: weight of each HP of mine above the best opponent's.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        depth: int = 2,
        opp_weight: float = 0.5,
        leader_weight: float = 0.5,
        low_hp: int = 4,
        low_weight: float = 1.0,
        skip_penalty: float = 0.5,
        pending_bonus: float = 0.2,
        exposure: float = 0.0,
        lead_weight: float = 1.0,
    ) -> None:
        super().__init__(seed)
        self.depth = int(depth)
        self.opp_weight = float(opp_weight)
        self.leader_weight = float(leader_weight)
        self.low_hp = int(low_hp)
        self.low_weight = float(low_weight)
        self.skip_penalty = float(skip_penalty)
        self.pending_bonus = float(pending_bonus)
        self.exposure = float(exposure)
        self.lead_weight = float(lead_weight)
        self._plan: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())

    def reset(self, seed: int | None = None) -> None:
        """Reseed, and forget a path being walked."""
        super().reset(seed)
        self._plan = ((), ())

    def state_dict(self) -> dict[str, Any]:
        """The generator and the path being walked (the web app stores it between moves)."""
        return {**super().state_dict(), "plan": [list(part) for part in self._plan]}

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`."""
        super().load_state_dict(data)
        cells, actions = data.get("plan", ((), ()))
        self._plan = (tuple(int(c) for c in cells), tuple(int(a) for a in actions))

    def act(self, state: State) -> int:
        """The legal action with the best searched value (ties broken with ``self.rng``)."""
        if not isinstance(state, NeighborhoodState):
            raise TypeError(f"NeighborhoodHeuristic plays neighborhood_v0 states, got {type(state).__name__}")
        me = state.current_player()
        if state.decision_kind() == D_PATH:
            return self._path_step(state, me)
        return self.best_successor(state, lambda child: self._value(child, me, self.depth))

    # -- search -----------------------------------------------------------------------------------
    def _value(self, state: NeighborhoodState, me: int, depth: int, top: bool = True) -> float:
        if state.over:
            return 100.0 * state.returns()[me]
        if not state.alive[me]:
            return -100.0
        player = state.current_player()
        if player == CHANCE:
            kind = state.chance_kind()
            if depth <= 0 or kind in (CH_MOVE, CH_SEAT):
                return self.evaluate(state, me)
            total = 0.0
            for outcome, prob in state.chance_outcomes():
                child = state.clone()
                child.apply_action(outcome)
                total += prob * self._value(child, me, depth - 1, top=False)
            return total
        legal = state.legal_actions()
        if player != me:
            # Another player decides: the action its own score rates best, one ply.
            best_action, best = legal[0], float("-inf")
            for action in legal:
                child = state.clone()
                child.apply_action(action)
                score = self.evaluate(child, player)
                if score > best:
                    best_action, best = action, score
            child = state.clone()
            child.apply_action(best_action)
            return self._value(child, me, depth, top)
        if state.decision_kind() == D_PATH:
            return self._path_value(state, me, depth, top)[0]
        best = float("-inf")
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            # Below a chance node my decisions are rated one ply deep (the cost of the search).
            best = max(best, self._value(child, me, depth) if top else self.evaluate(child, me))
        return best

    # -- curved paths (L24) -----------------------------------------------------------------------
    def _path_step(self, state: NeighborhoodState, me: int) -> int:
        """The next step of the planned path (planned at its first step, and again off the plan)."""
        status = state.curve_status()
        assert status is not None
        visited = status[2]
        cells, actions = self._plan
        k = len(visited)
        if k >= 2 and len(actions) >= k and cells[:k] == visited and actions[k - 1] in state.legal_actions():
            return actions[k - 1]
        _, self._plan = self._path_value(state, me, self.depth, True, choose=True)
        return self._plan[1][k - 1]

    def _path_value(
        self, state: NeighborhoodState, me: int, depth: int, top: bool, choose: bool = False
    ) -> tuple[float, tuple[tuple[int, ...], tuple[int, ...]]]:
        """Best value over the squares the path can end on, and (with ``choose``) the plan that gets
        there: ``(cells, actions)``, the path's squares from its start and the action on each (a
        step, or STOP on the last one of a path that ends early). Below a chance node (not ``top``)
        every end is rated by the score of standing there."""
        left, up_to, visited = state.curve_status()  # type: ignore[misc]
        mover = state.current_player()
        occupied = {state.pos[q] for q in range(state.n) if q != mover and state.alive[q]}
        traps = {c for c, o in zip(state.trap_cell, state.trap_owner, strict=True) if c >= 0 and o != mover}
        step = geometry(state.options.board_size).step
        k = len(visited)
        scratch = state.clone()
        by_location: dict[int, float] = {}  # an empty Wild Space: the value of that location's deck
        scored: list[tuple[float, int]] = []
        plans: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for end, dirs in path_ends(step, visited, left, up_to).items():
            cells = list(visited)
            for d in dirs:
                cells.append(step[cells[-1]][d])
            # A path that ends early needs STOP, unless it has nowhere left to go: the rules end it
            # there themselves (L24; a path the policy itself would not walk, met when it labels others'
            # positions for DAgger).
            stuck = all(c < 0 or c in cells for c in step[end])
            actions = tuple(DIR + d for d in dirs) + ((STOP,) if len(dirs) < left and not stuck else ())
            location = state.wild_location(end)
            if not top or (end not in occupied and location < 0 and end not in traps):
                scratch.pos[mover] = end  # a quiet square: its value is standing there
                value = self.evaluate(scratch, me)
            elif end not in occupied and end not in traps and location in by_location:
                value = by_location[location]
            else:
                child = state.clone()
                for a in actions:
                    child.apply_action(a)
                value = self._value(child, me, depth)
                if end not in occupied and end not in traps:
                    by_location[location] = value
            if choose:
                plans.append((tuple(cells), (0,) * (k - 1) + actions))
            scored.append((value, len(scored)))
        if not choose:
            return max(v for v, _ in scored), ((), ())
        best = self.pick_best(scored)
        return scored[best][0], plans[best]

    # -- the score --------------------------------------------------------------------------------
    def evaluate(self, state: NeighborhoodState, me: int) -> float:
        """Static score of ``state`` for seat ``me`` (see the class docstring)."""
        if state.over:
            return 100.0 * state.returns()[me]
        hp = state.hp
        if not state.alive[me]:
            return -100.0
        opp = [hp[q] for q in range(state.n) if q != me]
        best = max(opp)
        mine = float(hp[me])
        if mine > best and self.lead_weight != 1.0:
            mine = best + self.lead_weight * (mine - best)
        score = mine - self.opp_weight * sum(opp) / len(opp) - self.leader_weight * best
        score -= self.low_weight * max(0, self.low_hp - hp[me])
        score -= state.thug[me] + (self.skip_penalty if state.skip[me] else 0.0)
        if state.pending[me] >= 0:
            score += self.pending_bonus
        if self.exposure:
            odds = landing_odds(state.options.board_size, state.options.spinner, state.options.die_faces)
            cell = state.pos[me]
            score -= self.exposure * sum(
                odds[state.pos[q]].get(cell, 0.0) for q in range(state.n) if q != me and state.alive[q]
            )
        return score

    def __repr__(self) -> str:
        return (
            f"NeighborhoodHeuristic(depth={self.depth}, opp_weight={self.opp_weight}, "
            f"leader_weight={self.leader_weight}, low_hp={self.low_hp}, low_weight={self.low_weight}, "
            f"exposure={self.exposure}, lead_weight={self.lead_weight})"
        )


@lru_cache(maxsize=8)
def landing_odds(size: int, points: int, faces: int) -> tuple[dict[int, float], ...]:
    """``odds[a][b]``: the chance that a character on square ``a`` ends its next roll-and-spin move
    (L6-L8: a die, a spin among the directions with room, truncated at the edge) on square ``b``."""
    ray = geometry(size).ray
    table: list[dict[int, float]] = []
    for rays in ray:
        dirs = [d for d in SPINNER_POINTS[points] if rays[d]]
        odds: dict[int, float] = {}
        for d in dirs:
            line = rays[d]
            for roll in range(1, faces + 1):
                end = line[min(roll, len(line)) - 1]
                odds[end] = odds.get(end, 0.0) + 1.0 / (len(dirs) * faces)
        table.append(odds)
    return tuple(table)


# -- leaf value for search ------------------------------------------------------------------------
def progress(state: State) -> list[float]:
    """Every player's HP over the maximum (10, L21), 0 when out, for search leaves."""
    return [state.hp[p] / MAX_HP if state.alive[p] else 0.0 for p in range(state.n)]


# -- the record -----------------------------------------------------------------------------------
#: Everything the agents know about LEAVE this Neighborhood, published under the entry-point group
#: ``boardenvs_agents.games`` (pyproject.toml). The champion is the heuristic (no learned model ships,
#: and it already searches two plies; docs/learning.md, "The champion").
RECORD = GameRecord(
    game="neighborhood_v0",
    heuristic=NeighborhoodHeuristic,
    progress=progress,
    kind=neighborhood_figures.decision_kind,
    events=neighborhood_figures.count_events,
    balance=neighborhood_figures.BALANCE,
    champion=("heuristic",),
)
