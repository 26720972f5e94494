"""A hand-written Sorry! player for ``sorry_v0``: one-ply lookahead over a readable evaluation.

Rule ids (S1-S24) refer to ``docs/rules/sorry.md`` and :mod:`boardenvs.sorry.rules`.
"""

from __future__ import annotations

from functools import lru_cache

from boardenvs.core.state import State
from boardenvs.sorry import board
from boardenvs.sorry.board import HOME, SAFE_BASE, SLIDES, START, TRACK_LEN
from boardenvs.sorry.cards import BACKWARD, CARD_COUNTS, DECK_SIZE, FORWARD, SEVEN
from boardenvs.sorry.rules import PAWNS, SorryState, all_home
from boardenvs_agents.base import Policy
from boardenvs_agents.games import sorry_figures
from boardenvs_agents.games.record import GameRecord

#: Probability of drawing each card kind from a full deck (S1).
CARD_PROB = tuple(c / DECK_SIZE for c in CARD_COUNTS)
#: Probability that a card of one of the kinds in a bit mask is drawn, for every mask.
MASK_PROB = tuple(
    sum(p for k, p in enumerate(CARD_PROB) if mask >> k & 1) for mask in range(1 << len(CARD_COUNTS))
)


def _hit_squares(color: int, at: int, steps: int, back: bool, slides: tuple, exit_count: int) -> list[int]:
    """Track squares on which a pawn of ``color`` at ``at`` bumps pawns when it moves ``steps``.

    They are the landing square and, if the pawn slides from there, the squares of the slide (S8-S10).
    """
    if at == HOME:
        return []
    if at == START:
        if back:
            return []  # S6: backward moves never start a pawn
        dest = (board.start_exit(color) + steps - exit_count) % TRACK_LEN
    elif back:
        dest = board.backward(color, at, steps)
    else:
        dest = board.forward(color, at, steps)
    if not 0 <= dest < TRACK_LEN:
        return []  # turned into the safety zone, Home, or overshot (S4, S19)
    slide = slides[color][dest]
    return [dest, *slide[1]] if slide is not None else [dest]


class _Tables:
    """Per-rule-variant lookup tables, built once: pawn values and where each pawn can strike."""

    def __init__(self, slide_rule: str, exit_count: int, safe_bonus: float, home_bonus: float) -> None:
        slides = SLIDES[slide_rule]
        #: ``steps[color][pos]``: forward steps from ``pos`` to Home (Start counts from before the exit).
        self.steps: list[list[int]] = []
        #: ``value[color][pos]``: progress (steps made from Start) plus the safety and Home bonuses.
        self.value: list[list[float]] = []
        #: ``progress[color][pos]``: steps made from Start, what a bump takes away.
        self.progress: list[list[int]] = []
        #: ``threat[color][pos][square]``: bit mask of the card kinds with which a pawn of ``color`` at
        #: ``pos`` lands on (or slides over) track ``square`` next turn (a list: indexing beats a dict).
        self.threat: list[list[list[int]]] = []
        for color in range(4):
            entry = board.safety_entry(color)
            steps = [(entry - t) % TRACK_LEN + board.SAFE_LEN + 1 for t in range(TRACK_LEN)]
            steps += [HOME - p for p in range(TRACK_LEN, HOME + 1)]  # safety squares and Home
            steps.append(steps[board.start_exit(color)] + exit_count)  # Start (S5)
            full = steps[START]
            progress = [full - s for s in steps]
            value = [
                float(p)
                + (safe_bonus if SAFE_BASE < at < START else 0.0)
                + (home_bonus if at == HOME else 0.0)
                for at, p in enumerate(progress)
            ]
            threat: list[list[int]] = []
            for at in range(START + 1):
                masks = [0] * TRACK_LEN
                for kind in range(len(CARD_COUNTS)):
                    moves = []
                    if FORWARD[kind]:
                        moves.append((FORWARD[kind], False))
                    if BACKWARD[kind]:
                        moves.append((BACKWARD[kind], True))
                    if kind == SEVEN:  # either half of a 7 split (S14)
                        moves += [(k, False) for k in range(1, 7)]
                    for n, back in moves:
                        for sq in _hit_squares(color, at, n, back, slides, exit_count):
                            masks[sq] |= 1 << kind
                threat.append(masks)
            self.steps.append(steps)
            self.progress.append(progress)
            self.value.append(value)
            self.threat.append(threat)


@lru_cache(maxsize=16)
def _tables(slide_rule: str, exit_count: int, safe_bonus: float, home_bonus: float) -> _Tables:
    return _Tables(slide_rule, exit_count, safe_bonus, home_bonus)


class SorryHeuristic(Policy):
    """Plays every legal use of the card in preview and keeps the best-scored position.

    Each legal action's pawn positions come from ``state.preview(action)`` (the rules' own move, on a
    copy of the positions only; the next card draw is left unresolved) and are scored from the
    mover's point of view::

        score = V(me) - opp_weight * [mean_q V(q) + leader_weight * (max_q V(q) - mean_q V(q))]

        V(p)  = sum over p's pawns of   progress + safe_bonus * [in safety zone or Home]
                                                 + home_bonus * [Home]
        V(me) additionally subtracts    danger_weight * P(bumped before my next turn) * progress

    * **progress** is the number of forward steps a pawn has made from Start towards Home: 0 in Start,
      65 on Home (64 from the start exit, S4, S19, plus one for leaving Start when the exit counts as
      the first space, S5 ``start_count_exit_as=1``; 64 with ``0``). Moves that bring pawns
      Home or into the safety zone, get pawns out of Start (S5, S6), take slides (S8-S10) or use a
      7 split on two pawns (S14) all score by the steps they gain. A 4 backward from just outside
      Start (S17) scores as the big gain it is: the pawn ends two squares before its safety entry.
    * **Bumps** (landing, slides S9, Sorry! S15) send an opponent pawn to Start, so its whole progress
      leaves the opponents' term: bumping the pawn that is furthest along scores most, and with more
      than two players ``leader_weight`` tilts the choice towards setting back the leading opponent.
      An **11 switch** (S12, S13) is compared with the forward 11 or the pass like any other move, so
      it is taken when it gains ground or puts an opponent back, and passing is chosen only when no
      switch scores better.
    * **Danger** is the chance that one of my pawns on the track is bumped before my next turn. For
      every opponent, the card kinds with which one of its pawns could land on, or slide over, my
      pawn's square (forward 1-12 from behind me, the 7 as any part 1-7, the 4 and the 10's backward
      1 from in front, a pawn leaving Start) are combined by their probability in a full deck (S1);
      opponents combine as independent: ``1 - prod_q (1 - P_q)``. The loss is the pawn's progress.
      Pawns in the safety zone and Home are safe. A Sorry! (S15) or an 11 switch can reach any track
      square, so no choice of landing square avoids them; they are left out of the danger term (the
      safety bonus already rewards getting out of their reach).
    * A move that wins outright scores above everything. Ties (within 1e-9) are broken uniformly at
      random with the policy's own generator; a lone legal action is returned without a draw.

    The weights are options of the spec, e.g. ``make_policy("heuristic:danger_weight=1", "sorry_v0")``.

    Args:
        seed: seed of the policy's own generator (``None``: fresh entropy).
        opp_weight: weight of the opponents' term relative to my own value.
        leader_weight: 0 scores the opponents by their mean value, 1 by the leading opponent only.
        danger_weight: weight of the expected progress lost to bumps. The threat model assumes that an
            opponent who can bump will, which overstates the risk; half weight is the default.
        safe_bonus: value of a pawn being in its safety zone or Home (it can no longer be bumped).
        home_bonus: further value of a pawn being Home (it needs no exact count any more).
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        opp_weight: float = 1.0,
        leader_weight: float = 0.5,
        danger_weight: float = 0.5,
        safe_bonus: float = 5.0,
        home_bonus: float = 2.0,
    ) -> None:
        super().__init__(seed)
        self.opp_weight = float(opp_weight)
        self.leader_weight = float(leader_weight)
        self.danger_weight = float(danger_weight)
        self.safe_bonus = float(safe_bonus)
        self.home_bonus = float(home_bonus)

    def act(self, state: State) -> int:
        """The legal action whose resulting position scores best (ties broken with ``self.rng``)."""
        if not isinstance(state, SorryState):
            raise TypeError(f"SorryHeuristic plays sorry_v0 states, got {type(state).__name__}")
        me = state.current_player()
        tables = self._tables_for(state)

        def score(action: int) -> float:
            # The pawns after the move, without copying the state (the rules' own move execution).
            pos, _ = state.preview(action)
            if all_home(pos, me):
                return float("inf")  # Object: all three pawns Home wins outright
            return self._score(pos, me, state.colors, tables)

        return self.best_action(state.legal_actions(), score)

    def evaluate(self, state: SorryState, me: int) -> float:
        """Score of ``state``'s pawn positions for seat ``me`` (see the class docstring)."""
        return self._score(state.pos, me, state.colors, self._tables_for(state))

    def _tables_for(self, state: SorryState) -> _Tables:
        """The lookup tables of ``state``'s rule variant and this heuristic's bonuses."""
        options = state.options
        return _tables(options.slide_rule, options.start_count_exit_as, self.safe_bonus, self.home_bonus)

    def _score(self, pos: list[int], me: int, colors: tuple[int, ...], tables: _Tables) -> float:
        """:meth:`evaluate` on pawn positions ``pos`` (as :attr:`SorryState.pos`)."""
        n = len(colors)
        opp_values = []
        for q in range(n):
            if q != me:
                value = tables.value[colors[q]]
                a, b, c = pos[PAWNS * q : PAWNS * q + PAWNS]
                opp_values.append(value[a] + value[b] + value[c])
        mean = sum(opp_values) / len(opp_values)
        opponents = mean + self.leader_weight * (max(opp_values) - mean)
        return self._own_value(pos, me, colors, tables) - self.opp_weight * opponents

    def _own_value(self, pos: list[int], me: int, colors: tuple[int, ...], tables: _Tables) -> float:
        """V(me): pawn values minus the expected progress lost to bumps before my next turn."""
        color = colors[me]
        value = tables.value[color]
        progress = tables.progress[color]
        n = len(colors)
        total = 0.0
        expected_loss = 0.0
        mine = pos[PAWNS * me : PAWNS * me + PAWNS]
        # Each opponent's pawns' threat masks, looked up once (three pawns each, PAWNS).
        strikes = []
        if min(mine) < TRACK_LEN:
            for q in range(n):
                if q != me:
                    threat = tables.threat[colors[q]]
                    a, b, c = pos[PAWNS * q : PAWNS * q + PAWNS]
                    strikes.append((threat[a], threat[b], threat[c]))
        for at in mine:
            total += value[at]
            if at >= TRACK_LEN:
                continue  # Start, safety zone, Home: cannot be bumped
            survive = 1.0
            for first, second, third in strikes:
                mask = first[at] | second[at] | third[at]
                if mask:
                    survive *= 1.0 - MASK_PROB[mask]
            expected_loss += (1.0 - survive) * progress[at]
        return total - self.danger_weight * expected_loss

    def __repr__(self) -> str:
        return (
            f"SorryHeuristic(opp_weight={self.opp_weight}, leader_weight={self.leader_weight}, "
            f"danger_weight={self.danger_weight}, safe_bonus={self.safe_bonus}, home_bonus={self.home_bonus})"
        )


# -- leaf value for search ------------------------------------------------------------------------
@lru_cache(maxsize=16)
def _sorry_progress(color: int, exit_count: int) -> tuple[float, ...]:
    """Progress fraction of a pawn of ``color`` at every position (track, safety, Home, Start)."""
    from boardenvs.sorry import board
    from boardenvs.sorry.board import HOME, START, TRACK_LEN

    entry = board.safety_entry(color)
    to_home = [(entry - t) % TRACK_LEN + board.SAFE_LEN + 1 for t in range(TRACK_LEN)]
    to_home += [HOME - p for p in range(TRACK_LEN, HOME + 1)]
    to_home.append(to_home[board.start_exit(color)] + exit_count)
    full = to_home[START]
    return tuple((full - s) / full for s in to_home)


def progress(state: State) -> list[float]:
    """Every player's pawn progress from Start to Home, in ``[0, 1]`` (S2-S5), for search leaves."""
    from boardenvs.sorry.rules import PAWNS

    exit_count = state.options.start_count_exit_as
    out = []
    for p, color in enumerate(state.colors):
        table = _sorry_progress(color, exit_count)
        out.append(sum(table[at] for at in state.pos[PAWNS * p : PAWNS * p + PAWNS]) / PAWNS)
    return out


# -- the record -----------------------------------------------------------------------------------
#: Everything the agents know about Sorry!, published under the entry-point group
#: ``boardenvs_agents.games`` (pyproject.toml). The champion, with two players one ply of expectimax
#: over the expert-iteration model, its 8 likeliest moves each weighed over every next card, the
#: opponent's reply played as the heuristic's and the card after it weighed too (docs/learning.md,
#: "Two players: the search that models the reply"; ``exit:sorry_v0__2p`` names that model alone, so
#: that this spec builds for two players only); otherwise paired rollouts on the PPO model, 32 rounds a
#: decision, the other seats played as the heuristic ("The first champion on a count budget"); else
#: the heuristic where no model ships for the options asked.
RECORD = GameRecord(
    game="sorry_v0",
    heuristic=SorryHeuristic,
    progress=progress,
    kind=sorry_figures.decision_kind,
    events=sorry_figures.count_events,
    strategy_events=sorry_figures.STRATEGY_EVENTS,
    balance=sorry_figures.BALANCE,
    champion=(
        "expectimax:evaluator=exit:sorry_v0__2p,top=8,prior_weight=0.01,reply=heuristic",
        "rollouts:policy=ppo:sorry_v0,opponents=heuristic,depth=4,leaf=value,seconds=none,rounds=32",
        "heuristic",
    ),
)
