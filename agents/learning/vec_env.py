"""A vector env of the single-agent view whose network opponents move in batches, in one process or several.

In :class:`~boardenvs.wrappers.SingleAgentEnv` every opponent moves inside ``step()``: an opponent that
is a neural network (a self-play snapshot, a shipped or given model:
:class:`~boardenvs_agents.learning.models.LearnedPolicy`) costs a forward pass of batch one per move.
:class:`BatchedVecEnv` is a Stable-Baselines3 ``VecEnv`` (what MaskablePPO and masked DQN train on,
so it drops in where ``DummyVecEnv`` was; Gymnasium's ``VectorEnv`` would need an adapter for SB3)
that instead advances every env to its learner's next decision together:

1. each env runs :meth:`~boardenvs.wrappers.SingleAgentEnv.step_moves` (a coroutine of ``step()``) until
   the learner must decide again, the game ends, or an opponent with a ``batch_key`` (a network) must
   move; random, heuristic and search opponents act inside, as in ``step()``;
2. a decision without a choice is played at once (``forced``: the only legal action); the others are
   encoded (``encode``: observation and mask), grouped by ``batch_key`` (one group per network), and
   each group is scored in one call (``network.scores``,
   :class:`~boardenvs_agents.learning.network.FrozenNetwork`);
3. each opponent picks its action from its row (``choose``: the best, or a draw from its own
   generator) and its env goes on; repeat until no env waits.

:class:`~boardenvs_agents.learning.models.LearnedPolicy` has these five members (``batch_key``,
``network``, ``forced``, ``encode``, ``choose``), and its ``act()`` is the same steps for one decision.

Envs whose episode ends are reset (SB3's auto-reset, ``info["terminal_observation"]``) in the same
rounds. Each env keeps SB3 ``Monitor``'s bookkeeping (``info["episode"]``), and
``env_method("state_dict")`` gives the same snapshot as the ``DummyVecEnv`` of ``TimedEnv(Monitor(env))``
that training used before, so checkpoints move between the two.

**Same games as one at a time.** An env's opponents and generators are its own, and a network scores
each row of a batch with its own matrix-vector products
(:class:`~boardenvs_agents.learning.network.NumpyMLP`), so a row's scores do not depend on the batch
and every opponent draws from its own generator in its env's order: a seeded run plays exactly the
games ``DummyVecEnv`` plays, bit for bit (``tests/agents/test_vec_env.py``), whatever the number of
envs per batch or of worker processes. (A network that ``NumpyMLP`` cannot copy is scored with torch,
batched, equal up to float rounding.) One opponent object seated in several envs (a policy passed to
every env by hand) draws from one generator in another order than one env after the other: the same
distribution, other draws; training's envs each build their own.

**Worker processes** (``workers=N``): the envs are split into N contiguous groups, one per process.
Workers step their envs and send the pending decisions' observations and masks (and each network
once); the main process, which runs the learner, scores them in batches across all workers and sends
the rows back; workers choose and go on. So the encoding of observations and the games run in
parallel while the forward passes stay batched. Results do not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import time
import traceback
from collections.abc import Callable, Generator, Sequence
from copy import deepcopy
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)
from stable_baselines3.common.vec_env.util import dict_to_obs, obs_space_info

from boardenvs.wrappers.single_agent import SingleAgentEnv

#: Vec steps a network may go unused before the main process forgets it (workers send it again if needed).
FORGET_AFTER = 1000


def batched(policy: Any) -> bool:
    """Whether ``policy``'s decisions are handed to the vector env (it names a network to batch on)."""
    return getattr(policy, "batch_key", None) is not None


class EnvSlot:
    """One env of a :class:`BatchedVecEnv` with SB3 ``Monitor``'s bookkeeping of its episode.

    ``get_attr`` and ``env_method`` reach the slot's own methods first, then the env's.
    """

    def __init__(self, env: SingleAgentEnv) -> None:
        self.env = env
        self.rewards: list[float] = []
        self.needs_reset = True
        self.total_steps = 0
        self.t_start = time.time()

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask."""
        return self.env.action_masks()

    def update_opponents(self, method: str, *args: Any) -> Any:
        """Forwarded to :meth:`SingleAgentEnv.update_opponents` (e.g. a self-play pool's ``add_snapshot``)."""
        return self.env.update_opponents(method, *args)

    def state_dict(self) -> dict[str, Any]:
        """:meth:`SingleAgentEnv.state_dict` and the episode in progress (``Monitor``'s fields)."""
        return {
            "env": self.env.state_dict(),
            "monitor": {
                "rewards": list(self.rewards),
                "needs_reset": self.needs_reset,
                "total_steps": self.total_steps,
            },
        }

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`: the env continues its episode without a reset."""
        self.env.load_state_dict(data["env"])
        self.rewards = [float(r) for r in data["monitor"]["rewards"]]
        self.needs_reset = bool(data["monitor"]["needs_reset"])
        self.total_steps = int(data["monitor"]["total_steps"])

    def started(self) -> None:
        """A new episode begins (``Monitor.reset``)."""
        self.rewards = []
        self.needs_reset = False

    def stepped(self, reward: float, done: bool, info: dict[str, Any]) -> None:
        """Record a step (``Monitor.step``): ``info["episode"]`` at the end of an episode."""
        self.rewards.append(float(reward))
        if done:
            self.needs_reset = True
            total = sum(self.rewards)
            info["episode"] = {
                "r": round(total, 6), "l": len(self.rewards), "t": round(time.time() - self.t_start, 6)
            }  # fmt: skip
        self.total_steps += 1

    def target(self, name: str) -> Any:
        """The slot's attribute ``name``, else the env's."""
        return getattr(self, name) if hasattr(type(self), name) else getattr(self.env, name)


#: A decision handed to the main process: network key, observation, mask, and the network when the
#: process has not sent it yet (``None`` after that).
Request = tuple[str, Any, np.ndarray, Any]


class EnvGroup:
    """The envs of one process and the coroutines of the reset or step under way.

    Commands (:meth:`handle`): ``reset``/``step`` start one on every env and return ``("pending",
    requests)`` or ``("done", results)``; ``answer`` sends one scores row per request and goes on the
    same way. The rest reach the envs (``env_method``, ``get_attr``, ``has_attr``, ``set_attr``).
    """

    def __init__(self, envs: Sequence[Any]) -> None:
        for env in envs:
            if not isinstance(env, SingleAgentEnv):
                raise TypeError(
                    "BatchedVecEnv drives SingleAgentEnv.step_moves, so its env functions must return a bare "
                    f"SingleAgentEnv (wrappers would be bypassed), got {type(env).__name__}"
                )
        self.slots = [EnvSlot(env) for env in envs]
        self.moves: list[Generator[Any, Any, Any] | None] = [None] * len(envs)
        self.phase = ["reset"] * len(envs)
        self.waiting: list[tuple[int, Any, np.ndarray]] = []
        self.sent: set[str] = set()
        self.obs: list[Any] = [None] * len(envs)
        self.rewards = [0.0] * len(envs)
        self.dones = [False] * len(envs)
        self.infos: list[dict[str, Any]] = [{} for _ in envs]
        self.reset_infos: list[dict[str, Any]] = [{} for _ in envs]

    def handle(self, command: str, data: Any) -> Any:
        """Run one command (see the class docstring)."""
        if command == "reset":
            seeds, options = data
            for i in range(len(self.slots)):
                self._start_reset(i, seeds[i], options[i])
            return self._advance(list(range(len(self.slots))), [None] * len(self.slots))
        if command == "step":
            actions, forget = data
            self.sent -= set(forget)
            for i, slot in enumerate(self.slots):
                if slot.needs_reset:
                    raise RuntimeError("Tried to step environment that needs reset")
                self.phase[i] = "step"
                self.moves[i] = slot.env.step_moves(actions[i], defer=batched)
                self.infos[i] = {}
            return self._advance(list(range(len(self.slots))), [None] * len(self.slots))
        if command == "answer":
            actions = [
                policy.choose(row, mask) for (_, policy, mask), row in zip(self.waiting, data, strict=True)
            ]
            return self._advance([i for i, _, _ in self.waiting], actions)
        if command == "env_method":
            name, args, kwargs, indices = data
            return [self.slots[i].target(name)(*args, **kwargs) for i in indices]
        if command == "get_attr":
            name, indices = data
            return [self.slots[i].target(name) for i in indices]
        if command == "has_attr":
            return all(hasattr(slot, data) or hasattr(slot.env, data) for slot in self.slots)
        if command == "set_attr":
            name, value, indices = data
            for i in indices:
                setattr(self.slots[i].env, name, value)
            return None
        if command == "spaces":
            env = self.slots[0].env
            return env.observation_space, env.action_space
        raise ValueError(f"unknown command {command!r}")

    def _start_reset(self, i: int, seed: int | None, options: dict[str, Any] | None) -> None:
        self.slots[i].started()
        self.phase[i] = "reset"
        self.moves[i] = self.slots[i].env.reset_moves(seed=seed, options=options or None, defer=batched)

    def _advance(self, indices: list[int], sends: list[Any]) -> tuple[str, Any]:
        """Drive the coroutines of ``indices`` (sending ``sends``) until each waits or is done."""
        requests: list[Request] = []
        self.waiting = []
        for i, value in zip(indices, sends, strict=True):
            moves = self.moves[i]
            while moves is not None:
                try:
                    _seat, policy = moves.send(value)
                except StopIteration as stop:
                    value = None
                    moves = self._finished(i, stop.value)
                    continue
                state = self.slots[i].env.state
                value = policy.forced(state)
                if value is not None:  # no choice: answered at once, as act() does
                    continue
                obs, mask = policy.encode(state)
                key = policy.batch_key
                requests.append((key, obs, mask, None if key in self.sent else policy.network))
                self.sent.add(key)
                self.waiting.append((i, policy, mask))
                break
        if requests:
            return "pending", requests
        masks = [slot.env.action_masks() for slot in self.slots]
        return "done", (self.obs, self.rewards, self.dones, self.infos, self.reset_infos, masks)

    def _finished(self, i: int, result: Any) -> Generator[Any, Any, Any] | None:
        """Store what env ``i``'s coroutine returned; the next coroutine (an auto-reset) or ``None``."""
        self.moves[i] = None
        if self.phase[i] == "reset":
            self.obs[i], self.reset_infos[i] = result
            return None
        obs, reward, terminated, truncated, info = result
        done = terminated or truncated
        self.slots[i].stepped(reward, done, info)
        info["TimeLimit.truncated"] = truncated and not terminated
        self.rewards[i], self.dones[i], self.infos[i] = reward, done, info
        if not done:
            self.obs[i] = obs
            return None
        info["terminal_observation"] = obs
        self._start_reset(i, None, None)
        return self.moves[i]


class _Local:
    """An :class:`EnvGroup` in this process, behind the same send/receive calls as a worker."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]]) -> None:
        self.group = EnvGroup([fn() for fn in env_fns])
        self.reply: Any = None

    def send(self, command: str, data: Any) -> None:
        self.reply = self.group.handle(command, data)

    def receive(self) -> Any:
        return self.reply

    def close(self) -> None:
        for slot in self.group.slots:
            slot.env.close()


def _worker(remote: Any, parent: Any, env_fns: CloudpickleWrapper) -> None:
    """A worker process: builds its envs, then runs commands until ``close`` (Ctrl-C is the main's)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent.close()
    try:
        group = EnvGroup([fn() for fn in env_fns.var])
        remote.send(("ok", None))
    except Exception:  # noqa: BLE001 - reported to the main process, which raises it
        remote.send(("error", traceback.format_exc()))
        return
    while True:
        try:
            command, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        if command == "close":
            for slot in group.slots:
                slot.env.close()
            remote.close()
            break
        try:
            remote.send(("ok", group.handle(command, data)))
        except Exception:  # noqa: BLE001 - reported to the main process, which raises it
            remote.send(("error", traceback.format_exc()))


class _Remote:
    """An :class:`EnvGroup` in a worker process."""

    def __init__(self, ctx: Any, env_fns: Sequence[Callable[[], Any]], index: int) -> None:
        self.index = index
        self.remote, work_remote = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker, args=(work_remote, self.remote, CloudpickleWrapper(list(env_fns))), daemon=True
        )
        self.process.start()
        work_remote.close()
        self.receive()

    def send(self, command: str, data: Any) -> None:
        self.remote.send((command, data))

    def receive(self) -> Any:
        try:
            status, reply = self.remote.recv()
        except EOFError:
            raise RuntimeError(f"env worker {self.index} died (exit code {self.process.exitcode})") from None
        if status == "error":
            raise RuntimeError(f"env worker {self.index} failed:\n{reply}")
        return reply

    def close(self) -> None:
        try:
            self.remote.send(("close", None))
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.terminate()


class BatchedVecEnv(VecEnv):
    """SB3 ``VecEnv`` of :class:`~boardenvs.wrappers.SingleAgentEnv` s whose network opponents move in
    batches (see the module docstring).

    Args:
        env_fns: functions returning a bare ``SingleAgentEnv`` each (no wrappers).
        workers: 0 (the default): the envs live in this process; N >= 1: in N worker processes (at
            most one per env), their networks' forward passes still batched here.
        start_method: multiprocessing start method for workers (default: ``forkserver`` where
            available, else ``spawn``, as SB3's ``SubprocVecEnv``).

    Attributes:
        env_seconds: wall-clock seconds spent in ``reset`` and ``step_wait`` (envs, opponents and
            their forward passes: what the learner waits for).
        forward_calls: batched forward passes made, and ``decisions`` the opponent decisions answered.
    """

    def __init__(
        self, env_fns: Sequence[Callable[[], Any]], workers: int = 0, start_method: str | None = None
    ) -> None:
        n = len(env_fns)
        if n < 1:
            raise ValueError("BatchedVecEnv needs at least one env function")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers must be an integer >= 0 (0: envs in this process), got {workers!r}")
        self.workers = min(workers, n)
        self.groups: list[Any] = []
        try:
            if self.workers == 0:
                self.groups = [_Local(env_fns)]
                self.bounds = [(0, n)]
            else:
                if start_method is None:
                    start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
                ctx = mp.get_context(start_method)
                if start_method == "forkserver":  # workers fork with the libraries imported, once
                    ctx.set_forkserver_preload(["boardenvs_agents.learning.training"])
                cuts = np.linspace(0, n, self.workers + 1).round().astype(int)
                self.bounds = [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
                for index, (a, b) in enumerate(self.bounds):
                    self.groups.append(_Remote(ctx, env_fns[a:b], index))
            self.groups[0].send("spaces", None)
            observation_space, action_space = self.groups[0].receive()
        except BaseException:
            self.close()
            raise
        self.networks: dict[str, Any] = {}
        self.last_used: dict[str, int] = {}
        self.forget: list[str] = []
        self.vec_steps = 0
        self.env_seconds = 0.0
        self.forward_calls = 0
        self.decisions = 0
        self.masks: list[np.ndarray] | None = None
        self.actions: np.ndarray | None = None
        self.closed = False
        super().__init__(n, observation_space, action_space)
        self.keys, shapes, dtypes = obs_space_info(observation_space)
        self.buf_obs = {k: np.zeros((n, *tuple(shapes[k])), dtype=dtypes[k]) for k in self.keys}
        self.buf_dones = np.zeros((n,), dtype=bool)
        self.buf_rews = np.zeros((n,), dtype=np.float32)
        self.buf_infos: list[dict[str, Any]] = [{} for _ in range(n)]

    @property
    def envs(self) -> list[SingleAgentEnv]:
        """The envs, when they live in this process (as ``DummyVecEnv.envs``)."""
        if self.workers:
            raise AttributeError(f"the envs live in {self.workers} worker processes; use env_method/get_attr")
        return [slot.env for slot in self.groups[0].group.slots]

    # -- stepping ---------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        """Reset every env (with the seeds and options set by ``seed()`` / ``set_options()``, once)."""
        start = time.perf_counter()
        data = [(self._seeds[a:b], self._options[a:b]) for a, b in self.bounds]
        replies = self._run("reset", data)
        for (a, _b), (obs, _r, _d, _i, reset_infos, _masks) in zip(self.bounds, replies, strict=True):
            for j, o in enumerate(obs):
                self._save_obs(a + j, o)
                self.reset_infos[a + j] = reset_infos[j]
        self.masks = [m for reply in replies for m in reply[5]]
        self._reset_seeds()
        self._reset_options()
        self.env_seconds += time.perf_counter() - start
        return self._obs_from_buf()

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the learner's actions (the work is done in :meth:`step_wait`)."""
        self.actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env to its learner's next decision, answering network opponents in batches."""
        if self.actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        start = time.perf_counter()
        forget, self.forget = self.forget, []
        data = [(self.actions[a:b], forget) for a, b in self.bounds]
        self.actions = None
        replies = self._run("step", data)
        for (a, _b), (obs, rewards, dones, infos, reset_infos, _masks) in zip(
            self.bounds, replies, strict=True
        ):
            for j, o in enumerate(obs):
                self._save_obs(a + j, o)
                self.buf_rews[a + j] = rewards[j]
                self.buf_dones[a + j] = dones[j]
                self.buf_infos[a + j] = infos[j]
                if dones[j]:
                    self.reset_infos[a + j] = reset_infos[j]
        self.masks = [m for reply in replies for m in reply[5]]
        self.vec_steps += 1
        if self.vec_steps % FORGET_AFTER == 0:
            self._forget_unused()
        self.env_seconds += time.perf_counter() - start
        return self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones), deepcopy(self.buf_infos)

    def _run(self, command: str, data: list[Any]) -> list[Any]:
        """Send ``command`` to every group, answer their requests in batches until all are done."""
        for group, item in zip(self.groups, data, strict=True):
            group.send(command, item)
        replies = [group.receive() for group in self.groups]
        while any(status == "pending" for status, _ in replies):
            rows = self._score([payload if status == "pending" else [] for status, payload in replies])
            waiting = [g for g, (status, _) in enumerate(replies) if status == "pending"]
            for g in waiting:
                self.groups[g].send("answer", rows[g])
            for g in waiting:
                replies[g] = self.groups[g].receive()
        return [payload for _, payload in replies]

    def _score(self, requests: list[list[Request]]) -> list[list[np.ndarray]]:
        """One batched forward pass per network over every group's requests; rows back per group."""
        batches: dict[str, tuple[list[Any], list[np.ndarray], list[tuple[int, int]]]] = {}
        for g, group_requests in enumerate(requests):
            for j, (key, obs, mask, network) in enumerate(group_requests):
                if network is not None:
                    self.networks[key] = network
                batch = batches.get(key)
                if batch is None:
                    batches[key] = batch = ([], [], [])
                batch[0].append(obs)
                batch[1].append(mask)
                batch[2].append((g, j))
        rows: list[list[Any]] = [[None] * len(r) for r in requests]
        for key, (observations, masks, where) in batches.items():
            network = self.networks.get(key)
            if network is None:
                raise RuntimeError(f"no network for opponent key {key!r} (a worker did not send it)")
            for (g, j), row in zip(where, network.scores(observations, np.array(masks)), strict=True):
                rows[g][j] = row
            self.last_used[key] = self.vec_steps
            self.forward_calls += 1
            self.decisions += len(where)
        return rows

    def _forget_unused(self) -> None:
        """Drop networks unused for :data:`FORGET_AFTER` vec steps; workers send them again if needed."""
        stale = [k for k, step in self.last_used.items() if self.vec_steps - step >= FORGET_AFTER]
        for key in stale:
            del self.last_used[key]
            self.networks.pop(key, None)
        self.forget = stale

    def _save_obs(self, index: int, obs: Any) -> None:
        for key in self.keys:
            self.buf_obs[key][index] = obs if key is None else obs[key]

    def _obs_from_buf(self) -> VecEnvObs:
        return dict_to_obs(self.observation_space, deepcopy(self.buf_obs))

    # -- the envs ---------------------------------------------------------------------------------
    def _by_group(self, indices: VecEnvIndices) -> list[tuple[int, list[int], list[int]]]:
        """``(group, global indices, local indices)`` for every group holding some of ``indices``."""
        wanted = list(self._get_indices(indices))
        out = []
        for g, (a, b) in enumerate(self.bounds):
            mine = [i for i in wanted if a <= i < b]
            if mine:
                out.append((g, mine, [i - a for i in mine]))
        return out

    def _gather(self, indices: VecEnvIndices, make: Callable[[list[int]], tuple[str, Any]]) -> list[Any]:
        parts = self._by_group(indices)
        for g, _mine, local in parts:
            self.groups[g].send(*make(local))
        found: dict[int, Any] = {}
        for g, mine, _local in parts:
            found.update(zip(mine, self.groups[g].receive(), strict=True))
        return [found[i] for i in self._get_indices(indices)]

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method of every env (``action_masks`` comes from the last step, without a round trip)."""
        if method_name == "action_masks" and self.masks is not None:
            return [self.masks[i] for i in self._get_indices(indices)]
        self.masks = None  # the call may change the envs (load_state_dict, update_opponents, ...)
        return self._gather(
            indices, lambda local: ("env_method", (method_name, method_args, method_kwargs, local))
        )

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of every env (the slot's first: see :class:`EnvSlot`)."""
        return self._gather(indices, lambda local: ("get_attr", (attr_name, local)))

    def has_attr(self, attr_name: str) -> bool:
        """Whether every env has the attribute."""
        for group in self.groups:
            group.send("has_attr", attr_name)
        return all([group.receive() for group in self.groups])

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of every env."""
        self.masks = None
        for g, _mine, local in self._by_group(indices):
            self.groups[g].send("set_attr", (attr_name, value, local))
            self.groups[g].receive()

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """Envs are not wrapped, but each keeps ``Monitor``'s bookkeeping: true for ``Monitor`` only."""
        return [wrapper_class is Monitor for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Every env's picture (``render_mode="rgb_array"``)."""
        return self.env_method("render")

    def close(self) -> None:
        """Stop the workers (and close the envs)."""
        if getattr(self, "closed", False):
            return
        self.closed = True
        for group in self.groups:
            group.close()
