"""Helpers shared by the agent tests: a recording, checking wrapper around any policy; decision states,
scripted Sorry! positions and a state wrapper that catches a search reading what its seat may not."""

from __future__ import annotations

import random
import signal
from collections.abc import Callable

import numpy as np

from boardenvs import make_game
from boardenvs.core.game import Game
from boardenvs.core.state import CHANCE, State
from boardenvs.gangsi.rules import GangsiState
from boardenvs.lost_city import cards as lc_cards
from boardenvs.lost_city.rules import P_ACTION, P_MOVE, STAY, LostCityOptions, LostCityState
from boardenvs.sorry.rules import SorryOptions, SorryState
from boardenvs_agents.arena.match import GameResult, play_game
from boardenvs_agents.base import Policy
from boardenvs_agents.registry import make_policy


class Recorder(Policy):
    """Wraps a policy: checks each action is legal and logs ``(seat, *note(state), action)``.

    With ``perturb`` set, it burns and reseeds the global generators before every decision: a policy
    that used them would then play differently from an unperturbed run.
    """

    def __init__(
        self,
        inner: Policy,
        log: list,
        perturb: int | None = None,
        note: Callable[[State], tuple] = lambda state: (),
    ) -> None:
        super().__init__(seed=0)
        self.inner = inner
        self.name = inner.name
        self.log = log
        self.perturb = perturb
        self.note = note

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, state: State) -> int:
        if self.perturb is not None:
            self.perturb += 1
            random.seed(self.perturb)
            np.random.seed(self.perturb % 2**32)
            random.random()
            np.random.random(3)
        legal = list(state.legal_actions())
        action = self.inner.act(state)
        assert action in legal, f"illegal action {action}; legal {legal}"
        self.log.append((state.current_player(), *self.note(state), action))
        return action


def play_logged(
    game: Game,
    specs: list[str],
    seed: int,
    perturb: int | None = None,
    note: Callable[[State], tuple] = lambda state: (),
) -> tuple[GameResult, list]:
    """One seeded game of ``game`` with the agents of ``specs`` (one per seat), every decision logged."""
    log: list = []
    policies = [Recorder(make_policy(s, game.name), log, perturb, note) for s in specs]
    return play_game(game, policies, seed), log


# -- positions and wrappers shared by the search tests ------------------------------------------------
def decision_states(
    game_name: str, seed: int, every: int, limit: int, *, forced: bool = False, **options
) -> list[State]:
    """Clones of decision nodes with a real choice from one seeded random game (``forced``: those with
    a single legal action instead)."""
    game = make_game(game_name, **options)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    out: list[State] = []
    k = 0
    while not state.is_terminal() and len(out) < limit:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if (len(legal) == 1) if forced else (len(legal) > 1):
            if k % every == 0:
                out.append(state.clone())
            k += 1
        state.apply_action(legal[int(rng.random() * len(legal))])
    return out


def sorry_position(pawns: dict[int, list[int]], card: int, num_players: int = 4) -> SorryState:
    state = SorryState(SorryOptions(num_players=num_players))
    for seat, where in pawns.items():
        state.pos[3 * seat : 3 * seat + 3] = where
    state.turn = 40
    state.apply_action(card)
    assert state.current_player() == 0
    return state


def lost_city_position() -> LostCityState:
    """Chris (seat 0, holding Special Ability) next to Jack (seat 1, 30 HP); seat 2 is already out."""
    state = LostCityState(
        LostCityOptions(num_players=3, characters=("Chris", "Jack", "Rob"), first_player="seat0")
    )
    state.pos = [state.geo.index((10, 1)), state.geo.index((10, 2)), -1]
    state.hp[1] = 30
    state.hp[2] = 0
    state.deck.take(lc_cards.SPECIAL)
    state.held[0] = lc_cards.SPECIAL
    state.round = 5
    state.phase = P_MOVE
    state.to_move = 0
    state._legal = None
    state.apply_action(STAY)
    assert state.phase == P_ACTION and state.current_player() == 0
    assert state.is_out(2)
    return state


def hidden_variant(state: GangsiState, player: int, seed: int) -> GangsiState:
    """Another full state ``player`` cannot tell from ``state``: its hidden parts drawn again."""
    variant = state.determinize(player, np.random.default_rng(seed))
    assert variant.current_player() == state.current_player()
    return variant


def assert_gangsi_search_blind_to_hidden_parts(search: Policy, per_role: int = 3) -> None:
    """K9, K23, K32: a search (with ``last_search``) decides the same, to its statistics, in a Gangsi
    state and in a variant its seat cannot tell from it (the Kyonshi: squares and hands; a hunter: the
    other hands), ``per_role`` times for the Kyonshi and for the hunters, from round 2 on."""
    from boardenvs.gangsi.rules import KYONSHI

    checked = {KYONSHI: 0, "hunter": 0}
    for state in decision_states("gangsi_v0", 5, every=2, limit=300, num_hunters=3):
        player = state.current_player()
        kind = KYONSHI if player == KYONSHI else "hunter"
        if state.round < 2 or checked[kind] == per_role:
            continue
        variant = hidden_variant(state, player, seed=sum(checked.values()) + 300)
        if variant.to_dict() == state.to_dict():
            continue
        search.reset(seed=3)
        first = search.act(state), search.last_search  # type: ignore[attr-defined]
        search.reset(seed=3)
        assert (search.act(variant), search.last_search) == first  # type: ignore[attr-defined]
        checked[kind] += 1
    assert checked == {KYONSHI: per_role, "hunter": per_role}


class OnlyWhatTheSeatMayRead:
    """Wraps a state; the search may ask for the mover, its legal actions (its mask) and determinizations
    for the mover. Any other attribute raises, so the hidden fields of the true state cannot be read."""

    def __init__(self, state: State) -> None:
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_mover", state.current_player())
        object.__setattr__(self, "calls", 0)

    def current_player(self) -> int:
        return self._state.current_player()

    def legal_actions(self):
        return self._state.legal_actions()

    def determinize(self, player: int, rng: np.random.Generator) -> State:
        assert player == self._mover, f"determinized for seat {player}, the mover is {self._mover}"
        object.__setattr__(self, "calls", self.calls + 1)
        sample = self._state.determinize(player, rng)
        assert sample is not self._state
        return sample

    def __getattr__(self, name: str):
        raise AssertionError(f"the search read {name!r} of the true state")

    def __setattr__(self, name: str, value) -> None:
        raise AssertionError(f"the search wrote {name!r} on the true state")


def default_sigint() -> None:
    """``preexec_fn`` of a child that must see Ctrl-C: a process launched in the background with
    ``nohup ... &`` ignores SIGINT, children inherit that, and Python then installs no handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
