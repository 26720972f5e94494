"""Many searches in lockstep, so that one evaluator call (one forward pass of a network) serves the
leaves of all of them: how expert iteration's self-play searches many games at once.

:func:`search_many` runs one :class:`~boardenvs_agents.search.mcts.MCTSPolicy` search per state, each
policy on its own state with its own generator, as the coroutines of
:meth:`~boardenvs_agents.search.mcts.MCTSPolicy.search`. In every round each unfinished search runs on
to its next leaf that needs the evaluator (simulations ending in a terminal state need none); then the
pending leaves are evaluated, one call per distinct evaluator for all the searches that share it, and
every search takes its leaf's evaluation and runs on.

The moves and ``last_search`` of every policy are those of ``policy.act(state)`` run alone, draw for
draw: a search draws only from its own policy's generator, in its own order, whatever the others do,
and an evaluation is the same alone or in a batch (the evaluator contract,
:mod:`boardenvs_agents.search.evaluators`). Only an evaluator that draws no random numbers
(``draws_random`` false, e.g. a learned network) is handed several searches' leaves in one call; one
that draws (the rollouts) is called once per search with that search's generator, which keeps the
results exact but batches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from boardenvs.core.state import State
from boardenvs_agents.search.evaluators import Evaluation
from boardenvs_agents.search.mcts import MCTSPolicy, Search


def search_many(policies: Sequence[MCTSPolicy], states: Sequence[State]) -> list[int]:
    """``[policy.act(state) for policy, state in zip(policies, states)]``, searched in lockstep with
    batched evaluations (see the module docstring); every policy's ``last_search`` is set.

    Args:
        policies: one MCTS policy per search, each with its own generator (policies may share an
            evaluator: that is what batches), with a budget of ``sims`` (not ``seconds``).
        states: the decision nodes to search, one per policy (read as ``act`` reads them: the mover,
            its legal actions, and determinizations for the mover).

    Raises:
        ValueError: for lengths that differ, a policy given twice (two searches would share its
            generator), a policy that is not MCTS or has a time budget, or a state that is not a
            decision node.
    """
    if isinstance(policies, MCTSPolicy):
        raise ValueError(
            "search_many: give one policy per state (each search draws from its own policy's generator, "
            "so one policy searching several states at once could not repeat its searches alone)"
        )
    if len(policies) != len(states):
        raise ValueError(f"search_many: {len(policies)} policies for {len(states)} states (one each)")
    for i, policy in enumerate(policies):
        if not isinstance(policy, MCTSPolicy):
            raise ValueError(f"search_many: policy {i} is not an MCTS policy: {policy!r}")
        if policy.seconds is not None:
            raise ValueError(
                f"search_many: policy {i} has a time budget (seconds={policy.seconds}); searches in "
                "lockstep run a number of simulations (sims), so that their moves do not depend on the clock"
            )
    if len({id(policy) for policy in policies}) != len(policies):
        raise ValueError(
            "search_many: a policy given twice; each search draws from its own policy's generator"
        )
    actions: list[int | None] = [None] * len(policies)
    searches: dict[int, Search] = {}
    pending: dict[int, State] = {}
    for i, (policy, state) in enumerate(zip(policies, states, strict=True)):
        search = policy.search(state)
        searches[i] = search
        _advance(i, search, None, pending, actions)
    while pending:
        groups: dict[int, list[int]] = {}
        for i in pending:
            groups.setdefault(id(policies[i].evaluator), []).append(i)
        answers: dict[int, Evaluation] = {}
        for members in groups.values():
            evaluator = policies[members[0]].evaluator
            if evaluator.draws_random:
                for i in members:
                    answers[i] = evaluator.evaluate([pending[i]], policies[i].rng)[0]
            else:
                leaves = [pending[i] for i in members]
                evaluations = evaluator.evaluate(leaves, policies[members[0]].rng)
                if len(evaluations) != len(leaves):
                    raise ValueError(
                        f"{evaluator!r} gave {len(evaluations)} evaluations for {len(leaves)} states"
                    )
                answers.update(zip(members, evaluations, strict=True))
        pending.clear()
        for i, evaluation in answers.items():
            _advance(i, searches[i], evaluation, pending, actions)
    assert all(action is not None for action in actions)
    return [action for action in actions if action is not None]


def _advance(
    i: int,
    search: Search,
    evaluation: Evaluation | None,
    pending: dict[int, State],
    actions: list[int | None],
) -> None:
    """Run search ``i`` on (sending ``evaluation``, or starting it) to its next leaf, kept in
    ``pending``, or to its end, its action kept in ``actions``."""
    try:
        pending[i] = next(search) if evaluation is None else search.send(evaluation)
    except StopIteration as stop:
        actions[i] = stop.value
