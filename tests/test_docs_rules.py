"""The rules live in the repository (issue 27): ``docs/rules/`` is the specification the project owns.

No tracked file outside ``docs/rules/`` may cite the old rules folder or the rulebooks' files outside
the project (a rulebook is cited by its title), and every rule id a test of ``tests/<game>/test_rules.py``
is named after is defined: a row of the game's tables in ``docs/rules/<game>.md`` or a reading added in
the env module's docstring (``* **T41** ...``). The specification's drawings and tables of the retuned
defaults (the Gangsi maps, the Neighborhood Wild Spaces and decks) are those the code ships.
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
        if p.is_file()
        and not any(part in UNTRACKED or part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)
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


# -- the specification describes the defaults as shipped ---------------------------------------------
def code_block_after(text: str, heading: str) -> list[str]:
    """The lines of the first fenced block after ``heading``, without the column-number header line."""
    rest = text[text.index(heading) :]
    block = rest.split("```\n", 2)[1]
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("0   1")]


def test_gangsi_k7_the_maps_drawn_in_the_spec_are_the_shipped_maps():
    from boardenvs.gangsi.board import CLASSIC_MAP, CRYPT_MAP, DEFAULT_MAZE

    spec = (RULES / "gangsi.md").read_text()
    assert DEFAULT_MAZE == "crypt"
    assert code_block_after(spec, "**The default map: the crypt") == [line.rstrip() for line in CRYPT_MAP]
    assert code_block_after(spec, "**The first map") == [line.rstrip() for line in CLASSIC_MAP]


def test_neighborhood_1_3_1_4_the_spec_gives_the_shipped_board_and_decks():
    from boardenvs.neighborhood import board, cards

    spec = (RULES / "neighborhood.md").read_text()
    # 1.3: the default 9x9 Wild Spaces, location by location.
    listed = dict(
        re.findall(r"^  - (Mountains|Village|City|Forest): ((?:\(\d+,\d+\) ?)+)$", spec, re.MULTILINE)
    )
    for name, spaces in zip(board.LOCATION_NAMES, board.default_wild_spaces(9), strict=True):
        assert [tuple(map(int, sq)) for sq in re.findall(r"\((\d+),(\d+)\)", listed[name])] == list(spaces)
    # 1.4: the Killer deck's counts, now and (in brackets) in the first design.
    rows = re.findall(r"^\| (\d+) \((\d+)\) \| ([^|]+?) \|", spec, re.MULTILINE)
    assert [(name, int(now), int(was)) for now, was, name in rows] == [
        (card.name, card.count, first)
        for card, first in zip(cards.KILLER_CARDS, cards.FIRST_KILLER_COUNTS, strict=True)
    ]
    # 1.4: the Wild decks' counts ("8 (2) x *Shortcut*": now, and the first design's where it changed).
    wild = {name: (int(now), int(was or now)) for now, was, name in re.findall(
        r"^- (\d+)(?: \((\d+)\))? × \*([^*]+)\*", spec, re.MULTILINE)}  # fmt: skip
    for deck, first in zip(cards.WILD_CARDS, cards.FIRST_WILD_COUNTS, strict=True):
        for card, was in zip(deck, first, strict=True):
            assert wild[card.name] == (card.count, was), card.name


def test_lost_city_4_3_the_spec_gives_the_shipped_spawns():
    from boardenvs.lost_city import board

    spec = (RULES / "lost_city.md").read_text()
    rows = re.findall(r"^  \| (\d) \| ((?:\(\d+,\d+\) ?)+) \|$", spec, re.MULTILINE)
    squares = r"\((\d+),(\d+)\)"
    listed = {int(n): tuple((int(r), int(c)) for r, c in re.findall(squares, sq)) for n, sq in rows}
    assert listed == board.SPAWNS
