"""Golden playthroughs: seeded games of a registered env written out as reviewable text.

After OpenSpiel's ``integration_tests/playthroughs``: for every env of :func:`boardenvs.env_names`, a
few seeded games are played through the PettingZoo AEC env (``boardenvs.make``: the wrapper stack, the
adapter, the observation encoding and the rules) and written as text, one file per game
(``tests/playthroughs/<env name>.txt``). The files are checked in; regenerating them and comparing
shows a change of rules, encoding or seeding as a diff to review, instead of a changed hash.

Each game's actions are drawn uniformly among the legal ids with its own seeded numpy generator, so
a file depends on nothing but the env. Per step the file shows the agent to act, its legal action ids,
the action taken (with the rules' name for it), the rewards, terminations and truncations as they
change, and the acting agent's own observation (so a hidden-information game shows each seat's view,
never more). Observations are written compactly: in full (the nonzero entries: ``index`` for a 1,
``first-last`` for a run of 1s, ``index=value`` otherwise) the first time an agent acts, then as the
entries that changed since that agent last acted. The position is rendered as text at the start and at
the end, and each game ends with every agent's final observation in full and total reward.

Regenerate with ``python scripts/playthrough.py --write``; check with ``--check`` (or the test
``tests/test_playthroughs.py``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import boardenvs

#: Largest player count probed by :func:`player_counts`.
MAX_PROBED_PLAYERS = 12


@dataclass(frozen=True)
class PlaythroughGame:
    """One seeded game of a playthrough file: the env's options and the seed of env and chooser."""

    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def title(self) -> str:
        """A one-line heading naming the options and the seed."""
        shown = ", ".join(f"{k}={v!r}" for k, v in sorted(self.options.items())) or "default options"
        return f"{shown}; seed {self.seed}"


def player_counts(name: str) -> list[int]:
    """The player counts env ``name`` accepts through a ``num_players`` option (probed by making the
    env with 1 to :data:`MAX_PROBED_PLAYERS` players); empty when the game has no such option."""
    counts = []
    for n in range(1, MAX_PROBED_PLAYERS + 1):
        try:
            boardenvs.make(name, raw=True, num_players=n)
        except ValueError:
            continue
        counts.append(n)
    return counts


def default_games(name: str) -> list[PlaythroughGame]:
    """The games of ``name``'s playthrough: seed 0 with the default options, and seed 1 with another
    player count (the smallest other than the default's) if the env has a ``num_players`` option, else
    seed 1 with the default options again. Two games keep the longest file (Gangsi's) under 400 KB."""
    default = len(boardenvs.make(name, raw=True).possible_agents)
    others = [n for n in player_counts(name) if n != default]
    return [PlaythroughGame({}, 0), PlaythroughGame({"num_players": others[0]} if others else {}, 1)]


def _entries(values: np.ndarray, indices: np.ndarray) -> str:
    """``index`` for a 1 and ``index=value`` otherwise; a run of consecutive 1s as ``first-last``."""
    out: list[str] = []
    run: list[int] = []  # consecutive indices holding 1

    def close_run() -> None:
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
            run.clear()

    for i in (int(i) for i in indices):
        v = values[i]
        if v == 1:
            if run and run[-1] != i - 1:
                close_run()
            run.append(i)
        else:
            close_run()
            out.append(f"{i}={np.format_float_positional(v, trim='-')}")
    close_run()
    return " ".join(out) if out else "-"


def full_observation(obs: np.ndarray) -> str:
    """An observation as its nonzero entries."""
    flat = obs.reshape(-1)
    return _entries(flat, np.flatnonzero(flat))


def observation_change(before: np.ndarray, after: np.ndarray) -> str:
    """The entries of ``after`` that differ from ``before`` (``index=0`` for one that went to zero)."""
    a, b = before.reshape(-1), after.reshape(-1)
    return _entries(b, np.flatnonzero(a != b))


def _flags(table: dict[str, bool]) -> str:
    return ", ".join(agent for agent, flag in table.items() if flag) or "-"


def play_text(name: str, game: PlaythroughGame) -> list[str]:
    """The lines of one seeded game of env ``name`` played through ``boardenvs.make`` (wrapped)."""
    env = boardenvs.make(name, render_mode="ansi", **game.options)
    env.reset(seed=game.seed)
    rng = np.random.default_rng(game.seed)
    raw = env.unwrapped
    lines = [f"## {name}: {game.title()}", f"agents: {' '.join(env.possible_agents)}"]
    for agent in env.possible_agents:
        obs_space = env.observation_space(agent)["observation"]
        lines.append(f"spaces {agent}: observation {obs_space.shape}, actions {env.action_space(agent).n}")
    lines += ["", "### start", *env.render().splitlines(), ""]
    previous: dict[str, np.ndarray] = {}
    totals = dict.fromkeys(env.possible_agents, 0.0)
    shown_flags = ("-", "-")
    step = 0
    while env.agents:
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += float(reward)
        seen = obs["observation"]
        if agent not in previous:
            lines.append(f"# {step} {agent} obs: {full_observation(seen)}")
        elif np.array_equal(previous[agent], seen):
            lines.append(f"# {step} {agent} obs unchanged")
        else:
            lines.append(f"# {step} {agent} obs changed: {observation_change(previous[agent], seen)}")
        previous[agent] = seen.copy()
        if any(raw.rewards.values()):
            rewards = " ".join(f"{a}={r:g}" for a, r in raw.rewards.items() if r)
            lines.append(f"rewards: {rewards}")
        flags = (_flags(env.terminations), _flags(env.truncations))
        if flags != shown_flags:
            lines.append(f"terminated: {flags[0]}; truncated: {flags[1]}")
            shown_flags = flags
        if term or trunc:
            lines.append(f"dead step, reward {float(reward):g}")
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[int(rng.integers(len(legal)))])
            label = raw.game_state.action_to_string(action)
            lines.append(f"legal {' '.join(map(str, legal))} -> {action} ({label})")
            env.step(action)
        step += 1
    lines += ["", "### end", *env.render().splitlines(), ""]
    for agent in env.possible_agents:
        lines.append(f"final obs {agent}: {full_observation(env.observe(agent)['observation'])}")
    lines.append(f"steps: {step}")
    lines.append("returns: " + " ".join(f"{a}={r:g}" for a, r in totals.items()))
    lines.append("")
    env.close()
    return lines


def playthrough_text(name: str, games: list[PlaythroughGame] | None = None) -> str:
    """The whole playthrough file of env ``name`` (its :func:`default_games` unless ``games`` given)."""
    games = default_games(name) if games is None else games
    lines = [
        f"# Golden playthrough of {name}: seeded random games through boardenvs.make (PettingZoo AEC).",
        "# Generated by scripts/playthrough.py; regenerate with `python scripts/playthrough.py --write`",
        "# and review the diff. '# <step> <agent> obs': the acting agent's own observation, as its nonzero",
        "# entries (index, first-last for a run of 1s, index=value) the first time it acts, then the",
        "# entries changed since it last acted. 'legal <ids> -> <action>': uniform over the legal ids,",
        "# numpy generator seeded with the game's seed (which seeds env.reset too).",
        "",
    ]
    for game in games:
        lines += play_text(name, game)
    return "\n".join(lines)


def playthrough_path(directory: Path, name: str) -> Path:
    """Where env ``name``'s playthrough lives in ``directory``."""
    return Path(directory) / f"{name}.txt"


def write_playthroughs(directory: Path, names: Iterable[str]) -> list[Path]:
    """Write the playthrough of every env in ``names`` into ``directory``; returns the paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        path = playthrough_path(directory, name)
        path.write_text(playthrough_text(name), encoding="utf-8")
        paths.append(path)
    return paths


def playthrough_diff(directory: Path, name: str, context: int = 3, max_lines: int = 80) -> str:
    """A unified diff (its first ``max_lines`` lines) between env ``name``'s checked-in playthrough
    and a fresh one; empty when they agree. A missing file is reported as such."""
    path = playthrough_path(directory, name)
    fresh = playthrough_text(name)
    if not path.exists():
        return f"{path}: no playthrough file (write it with `python scripts/playthrough.py --write`)\n"
    golden = path.read_text(encoding="utf-8")
    if golden == fresh:
        return ""
    diff = list(
        difflib.unified_diff(
            golden.splitlines(),
            fresh.splitlines(),
            str(path),
            f"{name} (regenerated)",
            n=context,
            lineterm="",
        )
    )
    cut = len(diff) > max_lines
    diff = diff[:max_lines] + ([f"... ({len(diff) - max_lines} more diff lines)"] if cut else [])
    return "\n".join(diff) + "\n"
