"""The evaluation arena: any agents on any game, every seat permutation on paired seeds, in parallel.

An :class:`Arena` holds a game (any player count and options) and its agents by label (``{"h":
"heuristic", "m": "mcts:sims=200", "p": "ppo:sorry_v0"}``, or policy objects). A :class:`Matchup`
names a lineup of labels, one per seat, and is played as

* **every distinct seat permutation** of the lineup (``[h, r, r, r]``: four seatings, ``h`` in each
  seat), or, when there are more than ``max_seatings`` of them, a balanced Latin-square sample
  (:func:`williams_rows`: every lineup position in every seat equally often, and every ordered pair of
  neighbours equally often, so no agent always plays just after another);
* on **paired seeds**: every seating plays the same seeds ``seed .. seed + num_seeds - 1``, and every
  matchup of a run uses the same seeds too. A game is a function of ``(seed, seating)`` alone
  (:func:`boardenvs_agents.arena.match.play_game`: chance comes from the seed, each policy is reset per
  game with a
  seed derived from the game's seed and its seat), so every seating sees the same dice and decks, and
  a parallel run gives exactly the results of a serial one.

Every seat has a policy of its own: a label seated three times plays with three copies built from its
spec, each reset with its seat's seed. Games are spread over worker processes (``workers > 1``: each
builds its policies once and resets them per game; forked on Linux, or started clean once torch is
loaded, when a script that runs them needs the ``if __name__ == "__main__":`` guard) and written,
one JSON line each, to a results file as they arrive (:class:`ResultsFile`); a run started again with
the same file skips the games it already holds, so a killed run loses only the games in flight.
Agents given as policy objects (which cannot be copied: one object plays all its seats) and
interactive ones (a ``human`` spec, or a policy with ``interactive = True``) are played serially in
this process.

>>> from boardenvs import make_game
>>> arena = Arena(make_game("sorry_v0", num_players=3), ["heuristic", "random"])
>>> matchup = Matchup.of("heuristic vs random", ["heuristic", "random", "random"], games=6)
>>> [r.seating.index("heuristic") for r in arena.run([matchup])]
[0, 1, 2, 0, 1, 2]

Statistics, ratings and tables of the results are in :mod:`boardenvs_agents.arena.report`;
``scripts/evaluate.py``
and ``scripts/league.py`` are the command lines.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from boardenvs.core.game import Game
from boardenvs.core.options import OptionError, make_options, options_to_dict, rules_options
from boardenvs.registry import make_game
from boardenvs_agents.arena.match import GameObserver, GameResult, play_game
from boardenvs_agents.base import Policy
from boardenvs_agents.cli import progress_bar
from boardenvs_agents.registry import make_policy, parse_spec

#: At most this many seatings per matchup are played as all permutations; more are sampled.
DEFAULT_MAX_SEATINGS = 24

#: First value of a results file's header line; bumped if the line format changes.
RESULTS_FORMAT = "boardenvs-arena/1"


# -- seatings ---------------------------------------------------------------------------------------
def num_permutations(lineup: Sequence[str]) -> int:
    """Number of distinct seat permutations of ``lineup`` (``n!`` over the repeats' factorials)."""
    count = math.factorial(len(lineup))
    for repeats in Counter(lineup).values():
        count //= math.factorial(repeats)
    return count


def williams_rows(n: int) -> list[tuple[int, ...]]:
    """A Williams Latin square on ``0..n-1``: ``n`` rows (``2n`` when ``n`` is odd).

    Every value appears in every column equally often, and every ordered pair of different values
    appears side by side equally often (once per square)::

        >>> williams_rows(4)
        [(0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1)]
    """
    if n < 1:
        raise ValueError(f"need at least one seat, got {n}")
    first, low, high = [0], 1, n - 1
    for k in range(1, n):
        if k % 2:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    rows = [tuple((x + shift) % n for x in first) for shift in range(n)]
    if n % 2:
        rows += [row[::-1] for row in rows]
    return rows


def seatings(lineup: Sequence[str], max_seatings: int = DEFAULT_MAX_SEATINGS) -> list[tuple[str, ...]]:
    """The seatings a matchup of ``lineup`` plays: every distinct permutation, or a Latin-square sample.

    With at most ``max_seatings`` distinct permutations, all of them, in a fixed order (the
    permutations of the lineup's positions in lexicographic order, repeats dropped)::

        >>> seatings(["h", "r", "r"])
        [('h', 'r', 'r'), ('r', 'h', 'r'), ('r', 'r', 'h')]

    With more, the rows of :func:`williams_rows` applied to the lineup (``n`` or ``2n`` seatings):
    each label then holds each seat as often as it appears in the lineup (exactly, whenever some label
    appears only once; rows that coincide once repeated labels are merged are played once).

    Raises:
        ValueError: for an empty lineup or ``max_seatings < 1``.
    """
    lineup = tuple(lineup)
    if not lineup:
        raise ValueError("a lineup needs at least one agent")
    if max_seatings < 1:
        raise ValueError(f"max_seatings must be at least 1, got {max_seatings}")
    if num_permutations(lineup) <= max_seatings:
        rows: Iterable[tuple[int, ...]] = itertools.permutations(range(len(lineup)))
    else:
        rows = williams_rows(len(lineup))
    return list(dict.fromkeys(tuple(lineup[i] for i in row) for row in rows))


# -- matchups and games -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Matchup:
    """A named set of seatings, each played on the same ``num_seeds`` seeds."""

    #: Name, unique within a run (it keys the games in a results file).
    name: str
    #: The seatings: one agent label per seat.
    seatings: tuple[tuple[str, ...], ...]
    #: Seeds each seating plays (``seed .. seed + num_seeds - 1`` of the run).
    num_seeds: int

    def __post_init__(self) -> None:
        if not self.seatings:
            raise ValueError(f"matchup {self.name!r} has no seatings")
        if len({len(s) for s in self.seatings}) != 1:
            raise ValueError(f"matchup {self.name!r}: seatings of different sizes {self.seatings}")
        if self.num_seeds < 1:
            raise ValueError(f"matchup {self.name!r}: num_seeds must be at least 1, got {self.num_seeds}")

    @classmethod
    def of(
        cls, name: str, lineup: Sequence[str], games: int, max_seatings: int = DEFAULT_MAX_SEATINGS
    ) -> Matchup:
        """The matchup of ``lineup`` (see :func:`seatings`), with at least ``games`` games.

        The games are rounded up to a whole number of seeds (each seed played once per seating).
        """
        if games < 1:
            raise ValueError(f"matchup {name!r}: games must be at least 1, got {games}")
        table = seatings(lineup, max_seatings)
        return cls(name, tuple(table), math.ceil(games / len(table)))

    @property
    def labels(self) -> list[str]:
        """The distinct agent labels, in the order of the first seating."""
        return list(dict.fromkeys(label for seating in self.seatings for label in seating))

    @property
    def num_games(self) -> int:
        """Games the matchup plays."""
        return self.num_seeds * len(self.seatings)


class Task(NamedTuple):
    """One game to play: picklable, and all a worker needs besides its policies."""

    matchup: str
    seed: int
    seating: tuple[str, ...]


def result_key(result: GameResult) -> Task:
    """The task a result answers."""
    return Task(result.matchup, result.seed, tuple(result.seating))


def schedule(matchups: Sequence[Matchup], seed: int = 0) -> list[Task]:
    """Every game of ``matchups``, ordered by seed, then matchup, then seating.

    Matchups share the seeds ``seed, seed + 1, ...``: matchup ``m`` plays the first ``m.num_seeds``.
    Interleaving by seed keeps a partial run balanced, and the order is the fixed order ratings use.
    """
    names = [m.name for m in matchups]
    duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicates:
        raise ValueError(f"matchup names must be unique; repeated: {duplicates}")
    tasks = []
    for game_seed in range(seed, seed + max((m.num_seeds for m in matchups), default=0)):
        for m in matchups:
            if game_seed < seed + m.num_seeds:
                tasks += [Task(m.name, game_seed, seating) for seating in m.seatings]
    return tasks


# -- the results file -------------------------------------------------------------------------------
def _game_rules(header: Mapping[str, Any]) -> dict[str, Any] | None:
    """The rules a results file's header names: its options completed with the defaults of options
    added since, less the encoding options (which change no game); ``None`` for options this version
    does not know."""
    try:
        return rules_options(make_game(header["game"], **header.get("options", {})).options)
    except (KeyError, TypeError, ValueError):
        return None


class ResultsFile:
    """A JSON-lines file of game results that a killed run resumes from.

    The first line is a header (format, game, options, agents by label); each further line is one
    :meth:`GameResult.to_dict`, flushed as it is written, so a killed run keeps every game it finished.
    Opening an existing file reads the games it holds (:attr:`done`) and drops a last line the kill cut
    short. The file must be of the same game and options, and a label it knows must keep its spec;
    new labels are added to its header.

    Raises:
        ValueError: for a file of another game, other options, another spec under a known label, or
            a line that is not a game result.
    """

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.done: dict[Task, GameResult] = {}
        header = {"format": RESULTS_FORMAT, **header}
        if self.path.exists() and self.path.stat().st_size > 0:
            old, records, intact = self._read()
            merged = self._merge(old, header)
            self.done = {result_key(r): r for r in records}
            if merged != old or not intact:
                self._rewrite(merged, records)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._rewrite(header, [])
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  (closed by close())

    def _read(self) -> tuple[dict[str, Any], list[GameResult], bool]:
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        intact = lines[-1] == b""  # a last line without its newline was cut short by a kill
        lines = lines[:-1]
        if not lines:
            raise ValueError(f"{self.path}: no header line; not an arena results file")
        try:
            old = json.loads(lines[0])
        except json.JSONDecodeError as err:
            raise ValueError(f"{self.path}: line 1 is not JSON; not an arena results file") from err
        if not isinstance(old, dict) or old.get("format") != RESULTS_FORMAT:
            raise ValueError(f"{self.path}: not an arena results file (no '{RESULTS_FORMAT}' header)")
        records = []
        for number, line in enumerate(lines[1:], start=2):
            try:
                records.append(GameResult.from_dict(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
                raise ValueError(f"{self.path}, line {number}: not a game result ({err})") from err
        return old, records, intact

    def _merge(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        if old.get("game") != new["game"] or _game_rules(old) != _game_rules(new):
            raise ValueError(
                f"{self.path} holds games of {old.get('game')} with options {old.get('options')}, "
                f"not {new['game']} with {new['options']}; use another output file or delete it"
            )
        agents = dict(old.get("agents", {}))
        for label, spec in new["agents"].items():
            if agents.setdefault(label, spec) != spec:
                raise ValueError(
                    f"{self.path} holds games of agent {label!r} as {agents[label]!r}, not {spec!r}; "
                    "use another label, another output file, or delete it"
                )
        return {**old, "agents": agents}

    def _rewrite(self, header: dict[str, Any], records: list[GameResult]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(header) + "\n")
            for record in records:
                f.write(json.dumps(record.to_dict()) + "\n")
        os.replace(tmp, self.path)

    def append(self, result: GameResult) -> None:
        """Write one result and flush it to the operating system."""
        self._file.write(json.dumps(result.to_dict()) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()


# -- the arena --------------------------------------------------------------------------------------
def _describe(policy: Policy) -> str:
    """How a policy object is named in a results file's header."""
    return f"<{type(policy).__module__}.{type(policy).__name__} {policy.name}>"


def build_policy(label: str, spec: str, game: Game) -> Policy:
    """The policy of ``spec`` for ``game`` and its options.

    Raises:
        ValueError: naming the spec (and the label) for an unknown agent, bad options, a missing model
            file or a model trained for another game or other options.
    """
    try:
        return make_policy(spec, game.name, seed=0, game_options=options_to_dict(game.options))
    except (ValueError, TypeError, FileNotFoundError) as err:
        who = f"bad agent spec {spec!r}" + (f" (agent {label!r})" if label != spec else "")
        raise ValueError(f"{who}: {err}") from err


class Arena:
    """Plays matchups of agents on one game: see the module docstring.

    Args:
        game: the game, with its player count and options.
        agents: agents by label, each a spec (``"heuristic"``, ``"ppo:sorry_v0"``, ...) or a policy
            object; or a list of specs, each its own label. Specs are built at once, so a bad spec, a
            missing model file or a model for another game fails here, before any game is played.
        observer: makes a :class:`~boardenvs_agents.arena.match.GameObserver` for every game
            (``observer(game)``; a class or a module-level function, so that worker processes can get
            it), whose figures each result keeps in its ``stats``.
    """

    def __init__(
        self,
        game: Game,
        agents: Mapping[str, str | Policy] | Sequence[str],
        observer: Callable[[Game], GameObserver] | None = None,
    ) -> None:
        self.game = game
        self.observer = observer
        if not isinstance(agents, Mapping):
            agents = {spec: spec for spec in agents}
        if not agents:
            raise ValueError("an arena needs at least one agent")
        self.specs: dict[str, str] = {}
        #: The policy of every label (a label in several seats plays them with copies built alike).
        self.policies: dict[str, Policy] = {}
        #: Labels that must be played in this process: policy objects and interactive agents.
        self.in_process: set[str] = set()
        for label, agent in agents.items():
            if isinstance(agent, Policy):
                self.specs[label], self.policies[label] = _describe(agent), agent
                self.in_process.add(label)
                continue
            if not isinstance(agent, str):
                raise TypeError(f"agent {label!r} must be a spec or a Policy, got {agent!r}")
            self.specs[label] = agent
            self.policies[label] = build_policy(label, agent, game)
            if parse_spec(agent)[0] == "human":
                self.in_process.add(label)
        self.in_process |= {label for label, p in self.policies.items() if getattr(p, "interactive", False)}
        self._seats = _Seats(game, self.specs, self.policies, self.in_process, observer)

    def header(self) -> dict[str, Any]:
        """What a results file records about this arena."""
        return {"game": self.game.name, "options": options_to_dict(self.game.options), "agents": self.specs}

    def check(self, matchups: Sequence[Matchup]) -> None:
        """Raise ``ValueError`` for a matchup with unknown labels or the wrong number of seats."""
        n = self.game.num_players
        for m in matchups:
            unknown = sorted(set(m.labels) - set(self.policies))
            if unknown:
                raise ValueError(
                    f"matchup {m.name!r} names unknown agents {unknown}; known: {list(self.specs)}"
                )
            if len(m.seatings[0]) != n:
                raise ValueError(
                    f"matchup {m.name!r} seats {len(m.seatings[0])} agents; {self.game.name} with these "
                    f"options has {n} seats"
                )

    def run(
        self,
        matchups: Sequence[Matchup],
        seed: int = 0,
        workers: int = 1,
        out: str | Path | None = None,
        progress: bool = False,
        desc: str | None = None,
    ) -> list[GameResult]:
        """Play every game of ``matchups`` not already in ``out``; all their results, in schedule order.

        Args:
            matchups: what to play (:func:`schedule` orders the games).
            seed: first seed; every matchup plays ``seed, seed + 1, ...``.
            workers: processes to play in (1: this process). Agents that must stay in this process
                (objects, interactive ones) make the run serial.
            out: a results file (JSON lines) written as games finish; games it already holds are not
                played again.
            progress: show a tqdm progress bar on stderr.
            desc: the progress bar's label.
        """
        self.check(matchups)
        tasks = schedule(matchups, seed)
        results_file = ResultsFile(out, self.header()) if out is not None else None
        done = dict(results_file.done) if results_file is not None else {}
        todo = [t for t in tasks if t not in done]
        bar = progress_bar(len(tasks), desc or self.game.name, len(tasks) - len(todo)) if progress else None
        try:
            for result in self._play(todo, workers):
                done[result_key(result)] = result
                if results_file is not None:
                    results_file.append(result)
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
            if results_file is not None:
                results_file.close()
        return [done[t] for t in tasks]

    def play(self, task: Task) -> GameResult:
        """Play one game in this process."""
        return self._seats.play(task)

    def _play(self, tasks: list[Task], workers: int) -> Iterator[GameResult]:
        labels = {label for t in tasks for label in t.seating}
        if workers <= 1 or len(tasks) <= 1 or labels & self.in_process:
            for task in tasks:
                yield self.play(task)
            return
        specs = {label: self.specs[label] for label in sorted(labels)}
        initargs = (self.game, specs, self.observer, os.getpid())
        yield from run_in_workers(_play_in_worker, tasks, workers, _init_worker, initargs)


def run_in_workers(
    function: Callable[[Any], Any],
    tasks: Iterable[Any],
    workers: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    in_flight: int = 4,
) -> Iterator[Any]:
    """``function(task)`` for every task in a pool of ``workers`` processes, each built once by
    ``initializer(*initargs)``; the results as they finish (in no set order). The arena's games and
    expert iteration's self-play run here.

    A few tasks per worker are in flight at a time (``in_flight``), so an interrupted run has little to
    lose; on Ctrl-C, an error, or a caller that stops early, the workers are stopped at once.
    """
    tasks = list(tasks)
    context = multiprocessing.get_context(worker_start_method())
    before = set(multiprocessing.active_children())
    with ProcessPoolExecutor(
        max(1, min(workers, len(tasks))), mp_context=context, initializer=initializer, initargs=initargs
    ) as pool:
        pending: set[Future[Any]] = set()
        queue = iter(tasks)
        try:
            for task in itertools.islice(queue, in_flight * workers):
                pending.add(pool.submit(function, task))
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield future.result()
                    for task in itertools.islice(queue, 1):
                        pending.add(pool.submit(function, task))
        except BaseException:  # Ctrl-C, an error, or the caller stopped early: stop the work at once
            # (No future.cancel() first: Python 3.11's pool then fails on the cancelled futures as it
            # marks them broken, printing a traceback from its thread.)
            for worker in set(multiprocessing.active_children()) - before:
                worker.terminate()
            raise


def prepare_worker(parent: int | None) -> None:
    """What every worker process does first: Ctrl-C is left to the parent (which stops the workers); a
    worker whose parent died (SIGKILL) exits within half a second instead of living on as an orphan;
    one math thread (set before torch, if a task needs it, is first imported: the workers are the
    parallelism, and idle OpenMP threads spinning on a busy machine slow every task down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None:
        threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = "1"


def worker_start_method() -> str:
    """How worker processes start (the arena's and expert iteration's self-play): ``fork`` on Linux
    (workers start at once), ``spawn`` once torch is loaded or elsewhere.

    A forked copy of a process that holds torch's thread pools is not safe, so with a learned agent
    the workers start clean, import torch and load their models themselves (a few seconds); a
    script that runs them then needs the ``if __name__ == "__main__":`` guard.
    """
    if sys.platform == "linux" and "torch" not in sys.modules:
        return "fork"
    return "spawn"


class _Seats:
    """The policies of a process, one per seat: a label seated k times plays with k copies.

    Copies are built from the label's spec the first time a seating needs them, so that every seat
    has its own policy, reset with its own seed (a policy object given to the arena cannot be copied:
    it plays all its seats, reset once per game).
    """

    def __init__(
        self,
        game: Game,
        specs: Mapping[str, str],
        first: Mapping[str, Policy],
        objects: set[str],
        observer: Callable[[Game], GameObserver] | None = None,
    ) -> None:
        self.game, self.specs, self.objects, self.observer = game, specs, objects, observer
        self.copies: dict[str, list[Policy]] = {label: [policy] for label, policy in first.items()}

    def play(self, task: Task) -> GameResult:
        seen: Counter[str] = Counter()
        policies = []
        for label in task.seating:
            copies = self.copies[label]
            k = 0 if label in self.objects else seen[label]
            seen[label] += 1
            if k == len(copies):
                copies.append(build_policy(label, self.specs[label], self.game))
            policies.append(copies[k])
        observer = self.observer(self.game) if self.observer is not None else None
        result = play_game(self.game, policies, task.seed, observer)
        return replace(result, seating=task.seating, matchup=task.matchup)


_WORKER: dict[str, _Seats] = {}


def _init_worker(
    game: Game,
    specs: dict[str, str],
    observer: Callable[[Game], GameObserver] | None = None,
    parent: int | None = None,
) -> None:
    """Build the worker's policies once (every game resets them with its own seeds;
    :func:`prepare_worker` first)."""
    prepare_worker(parent)
    first = {label: build_policy(label, spec, game) for label, spec in specs.items()}
    _WORKER["seats"] = _Seats(game, specs, first, set(), observer)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def exit_with_parent(parent: int) -> None:
    """Run in a daemon thread of a worker process: end the worker at once when its parent is gone (a
    killed arena or self-play run leaves no orphan workers)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _play_in_worker(task: Task) -> GameResult:
    return _WORKER["seats"].play(task)


# -- configs ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchupConfig:
    """One explicit matchup of a config."""

    #: Agent labels, one per seat.
    lineup: tuple[str, ...] = ()
    #: Name (default: the lineup joined with spaces).
    name: str = ""
    #: Games (default: the config's ``games``).
    games: int = 0


@dataclass(frozen=True)
class ArenaConfig:
    """What to play, read from YAML (``configs/<game>/league.yaml``).

    Every key but ``game`` and ``agents`` has a default. The matchups are, for every agent and every
    baseline other than itself, the agent in one seat against the baseline in all the others
    (``"<agent> vs <baseline>"``), then the explicit ``matchups``.
    """

    #: Registered env name.
    game: str = ""
    #: The game's options (``num_players`` and any other).
    game_options: dict[str, Any] = field(default_factory=dict)
    #: First seed of every matchup.
    seed: int = 0
    #: Agents by label: ``label: spec``.
    agents: dict[str, str] = field(default_factory=dict)
    #: Labels every agent is played against (one seat to the agent, the rest to the baseline).
    baselines: tuple[str, ...] = ()
    #: Games per matchup, rounded up to whole seeds (one game per seating).
    games: int = 100
    #: Games per matchup for particular agents (slow searches), by label.
    games_per_agent: dict[str, int] = field(default_factory=dict)
    #: Further matchups.
    matchups: tuple[MatchupConfig, ...] = ()
    #: All permutations up to this many seatings per matchup, a Latin-square sample beyond.
    max_seatings: int = DEFAULT_MAX_SEATINGS
    #: Training logs (``eval.csv``) to draw learning curves from, by agent label.
    learning_curves: dict[str, str] = field(default_factory=dict)
    #: Seconds of random play to measure the env's speed with (league reports).
    benchmark_seconds: float = 2.0
    #: Name of the league's page and results folder (``<out>/<page>.md``; default: the game's name),
    #: so that leagues of other options (``sorry_v0_2p``) sit beside the standard one.
    page: str = ""

    def __post_init__(self) -> None:
        if not self.game:
            raise ValueError("'game' is required")
        if not self.agents:
            raise ValueError("'agents' is required: a mapping of label to agent spec")
        known = set(self.agents)
        for key, labels in [
            ("baselines", self.baselines),
            ("games_per_agent", self.games_per_agent),
            *[(f"matchups[{i}].lineup", m.lineup) for i, m in enumerate(self.matchups)],
        ]:
            unknown = sorted(set(labels) - known)
            if unknown:
                raise ValueError(f"{key} names unknown agents {unknown}; agents are {sorted(known)}")
        if self.games < 1 or min(self.games_per_agent.values(), default=1) < 1:
            raise ValueError("games and games_per_agent must be at least 1")

    def to_dict(self) -> dict[str, Any]:
        """Plain, YAML-able dict."""
        return options_to_dict(self)

    def make_matchups(self, num_players: int, scale: float = 1.0) -> list[Matchup]:
        """The matchups (games multiplied by ``scale``, at least one game per seating)."""
        matchups = []

        def add(name: str, lineup: Sequence[str], games: int) -> None:
            games = max(1, round(games * scale))
            matchups.append(Matchup.of(name, lineup, games, self.max_seatings))

        for label in self.agents:
            for baseline in self.baselines:
                if baseline != label:
                    games = self.games_per_agent.get(label, self.games)
                    add(f"{label} vs {baseline}", [label] + [baseline] * (num_players - 1), games)
        for m in self.matchups:
            if len(m.lineup) != num_players:
                raise ValueError(
                    f"matchup {m.name or m.lineup}: {len(m.lineup)} agents for {num_players} seats"
                )
            add(m.name or " ".join(m.lineup), m.lineup, m.games or self.games)
        return matchups


def load_config(
    path: str | Path,
    overrides: Mapping[str, Any] | None = None,
    game_options: Mapping[str, Any] | None = None,
) -> ArenaConfig:
    """Read and check an arena config; ``overrides`` replace top-level keys, ``game_options`` add options.

    Raises:
        OptionError: naming the file and the key.
    """
    from boardenvs_agents.config import read_config

    raw, where = read_config(path)
    raw.update(overrides or {})
    if game_options:
        if not isinstance(raw.get("game_options", {}), dict):
            raise OptionError(f"{where}game_options must be a mapping")
        raw["game_options"] = {**raw.get("game_options", {}), **game_options}
    return make_options(ArenaConfig, raw, where=where)
