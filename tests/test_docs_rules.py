"""The rules live in the repository (issue 27): ``docs/rules/`` is the specification the project owns.

No tracked file outside ``docs/rules/`` may cite the old rules folder or the rulebooks' files outside
the project (a rulebook is cited by its title), and every rule id a test of ``tests/<game>/test_rules.py``
is named after is defined: a row of the game's tables in ``docs/rules/<game>.md`` or a reading added in
the env module's docstring (``* **T41** ...``).
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
#: The old locations, outside the project, of the specification and of the rulebooks.
OUTSIDE = re.compile(rb"shared/(rules|seeds)")
#: Folders that are never tracked (``.gitignore``), skipped when the checkout has no git metadata.
UNTRACKED = {".git", ".venv", ".venv-rllib", "__pycache__", ".pytest_cache", ".ruff_cache", "runs", "build",
             "dist"}  # fmt: skip
#: The rule-id letter of each game, as the test names and the specification write it.
GAMES = {"sorry": "s", "gangsi": "k", "lost_city": "t", "neighborhood": "l"}


def tracked_files() -> list[Path]:
    """The files git tracks (every file but the never-tracked folders when there is no git checkout)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError):
        out = b""
    if out:
        return [ROOT / name for name in out.decode().split("\0") if name]
    return [
        p
        for p in ROOT.rglob("*")
        if p.is_file() and not UNTRACKED & set(p.relative_to(ROOT).parts) and not p.name.endswith(".egg-info")
    ]


def test_the_specification_is_in_docs_rules():
    names = sorted(p.name for p in RULES.glob("*.md"))
    assert names == ["README.md", "gangsi.md", "lost_city.md", "neighborhood.md", "sorry.md"]


def test_no_file_outside_docs_rules_cites_the_rules_or_rulebooks_outside_the_project():
    files = [p for p in tracked_files() if RULES not in p.parents and p.exists()]
    assert len(files) > 100  # the whole checkout was looked at
    citing = [str(p.relative_to(ROOT)) for p in files if OUTSIDE.search(p.read_bytes())]
    assert citing == []


def test_the_specification_cites_no_rulebook_file():
    # The rulebooks are not in the project: the specification names them by title, not by file.
    for path in RULES.glob("*.md"):
        text = path.read_text()
        assert not OUTSIDE.search(text.encode()), path.name
        assert "seeds/" not in text and not re.search(r"\b[0-9]{3}_[0-9a-f]{16}\.txt", text), path.name


def defined_ids(game: str) -> set[str]:
    """Rule ids the specification's tables define (``| T2 |``) and the env docstring adds (``**T30**``)."""
    letter = GAMES[game].upper()
    spec = (RULES / f"{game}.md").read_text()
    env_doc = importlib.import_module(f"boardenvs.{game}.env").__doc__ or ""
    ids = set(re.findall(rf"^\| ({letter}\d+) \|", spec, re.MULTILINE))
    ids |= set(re.findall(rf"\*\*({letter}\d+)\*\*", env_doc))
    return ids


def cited_ids(game: str) -> set[str]:
    """Rule ids that ``tests/<game>/test_rules.py``'s test names start with (``test_l4_l5_...``)."""
    letter = GAMES[game]
    tree = ast.parse((ROOT / "tests" / game / "test_rules.py").read_text())
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            for part in node.name.split("_")[1:]:
                if not re.fullmatch(rf"{letter}\d+", part):
                    break
                ids.add(part.upper())
    return ids


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_id_in_a_test_name_is_defined_in_the_spec_or_the_env_docstring(game):
    cited = cited_ids(game)
    assert len(cited) >= 10  # the test names do cite ids
    assert sorted(cited - defined_ids(game), key=lambda i: int(i[1:])) == []
