"""The one key=value grammar (agents/keyvalue.py): its rule, its errors, and that --option, --set, the
balance command's --option and agent specs all read values by it."""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import pytest
import yaml

from boardenvs.core.options import OptionError
from boardenvs_agents import keyvalue
from boardenvs_agents.cli import parse_game_options
from boardenvs_agents.config import parse_override, read_config
from boardenvs_agents.keyvalue import KeyValueError, parse_item, parse_items, parse_value
from boardenvs_agents.registry import parse_spec

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "text,value",
    [
        ("200", 200),
        (" -3 ", -3),
        ("1_000", 1000),
        ("0.5", 0.5),
        ("1e-4", 1e-4),
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("null", None),
        ("classic", "classic"),
        ("ppo:sorry_v0", "ppo:sorry_v0"),
        ("heuristic:charge=false", "heuristic:charge=false"),
        ("runs/a b.zip", "runs/a b.zip"),
        ("yes", "yes"),
        ("~", "~"),
        ("", ""),
        ('"007"', "007"),
        ("'true'", "true"),
        ("'it''s'", "it's"),
        ('"a, \\"b\\""', 'a, "b"'),
        ("[0, 2]", [0, 2]),
        ("[]", []),
        ("{}", {}),
        ("[nobody]", ["nobody"]),
        ("[a b, 'c, d', 1.5]", ["a b", "c, d", 1.5]),
        ("{random: 0.4, heuristic: 0.3, self: 0.3}", {"random": 0.4, "heuristic": 0.3, "self": 0.3}),
        ("{1: ppo:runs/m.zip, 2: random}", {1: "ppo:runs/m.zip", 2: "random"}),
        ('{"a":1, "b": [true, null]}', {"a": 1, "b": [True, None]}),
        ("{a: [1, {b: c}]}", {"a": [1, {"b": "c"}]}),
    ],
)
def test_the_rule(text, value):
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_floats_python_reads_are_floats():
    assert math.isinf(parse_value("inf")) and math.isnan(parse_value("NaN"))


@pytest.mark.parametrize(
    "text",
    ["200", "-1.5", "true", "false", "null", "[0, 2]", '{"a": [1, 2.5, "x"]}', '"text"', "[]", "[[1], [2]]"],
)
def test_json_values_read_as_json(text):
    assert parse_value(text) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "{random: 1.0}",
        "{random: 0.4, heuristic: 0.3, self: 0.3}",
        "{1: ppo:runs/m.zip, 2: ppo:runs/m.zip, 3: ppo:runs/m.zip}",
        "[512, 512]",
        "[nobody]",
        "{}",
        "0.00015",
        "heuristic:charge=false",
        "vs_fixed",
        "07",
    ],
)
def test_yaml_flow_values_of_the_configs_read_as_yaml(text):
    """The values --set took as YAML before the one grammar (README, docs, tests) mean the same."""
    assert parse_value(text) == yaml.safe_load(text)


@pytest.mark.parametrize(
    "text,why",
    [
        ("[0, 2", "the text ends inside a '.' or '.' that is not closed"),
        ("{a: 1", "the text ends inside"),
        ("[[1]", "a '.' that is not closed"),
        ('["a"', "a '.' that is not closed"),
        ("{a:1}", "a key without ': value'"),
        ("[a, , b]", "an empty item"),
        ('"abc', "bad double-quoted text"),
        ("'abc", "a single quote that is not closed"),
        ("[1] x", "unexpected 'x' after the value"),
        ("[a[0]]", "inside unquoted text"),
        ("[1 2] ]", "unexpected"),
        ("{[1]: 2}", "a key that is a list or mapping"),
    ],
)
def test_a_value_that_cannot_be_read_is_an_error_that_names_it(text, why):
    with pytest.raises(KeyValueError, match=why):
        parse_value(text)
    with pytest.raises(KeyValueError, match="^--option colors: cannot read " + re.escape(repr(text))):
        parse_item(f"colors={text}", "--option")


def test_an_item_names_itself_in_errors():
    with pytest.raises(KeyValueError, match="^--set takes key=value, got 'eval.games'$"):
        parse_item("eval.games", "--set")
    with pytest.raises(KeyValueError, match="^--set takes key=value, got '=3'$"):
        parse_item("=3", "--set")
    assert parse_item(" eval.games = 50 ", "--set") == ("eval.games", 50)
    assert parse_item("maze=a=b") == ("maze", "a=b")  # the key ends at the first '='
    assert parse_items(["a=1", "b=x", "a=2"]) == {"a": 2, "b": "x"}


def test_every_key_value_reader_uses_the_one_grammar():
    """--option (evaluate, play), --set (configs), the balance command's --option and agent spec
    options read the same text as the same value."""
    from boardenvs_agents.scripts.balance import parse_options

    for text in ("200", "0.25", "true", "classic", "[0, 2]", "null", '"7"'):
        value = parse_value(text)
        assert parse_game_options([f"x={text}"]) == {"x": value}
        assert parse_override(f"x={text}") == ("x", value)
        assert parse_options([f"x={text}"]) == {"x": tuple(value) if isinstance(value, list) else value}
        if "," not in text:  # commas separate a spec's options
            assert parse_spec(f"mcts:x={text}") == ("mcts", {"x": value})
    assert parse_spec("ppo:sorry_v0,deterministic=false") == (
        "ppo",
        {"model": "sorry_v0", "deterministic": False},
    )
    assert parse_spec("mcts:sims=100,leaf=progress,c=1.5") == (
        "mcts",
        {"sims": 100, "leaf": "progress", "c": 1.5},
    )


def test_each_reader_names_the_bad_item():
    from boardenvs_agents.scripts.balance import parse_options

    with pytest.raises(ValueError, match="^--option colors: cannot read '\\[0, 2'"):
        parse_game_options(["colors=[0, 2"])
    with pytest.raises(ValueError, match="^--option takes key=value, got 'nonsense'$"):
        parse_game_options(["nonsense"])
    with pytest.raises(OptionError, match="^--set net_arch: cannot read '\\[64'"):
        parse_override("net_arch=[64")
    with pytest.raises(OptionError, match="^--set takes key=value"):
        read_config(None, ["eval"])
    with pytest.raises(ValueError, match="bad agent spec 'mcts:leaf=\\[x': option leaf: cannot read"):
        parse_spec("mcts:leaf=[x")
    with pytest.raises(ValueError, match="'mcts:sims=1,deep': option takes key=value, got 'deep'"):
        parse_spec("mcts:sims=1,deep")
    with pytest.raises(SystemExit):
        parse_options(["colors=[0, 2"])


def test_a_set_override_reaches_into_sections():
    raw, _ = read_config(None, ["eval.games=50", "opponents={random: 0.5, self: 0.5}", "imitation.seats=[0]"])
    assert raw == {
        "eval": {"games": 50},
        "opponents": {"random": 0.5, "self": 0.5},
        "imitation": {"seats": [0]},
    }


def test_the_grammar_is_the_bottom_of_the_agents_package():
    """keyvalue imports nothing of boardenvs_agents (and no extra): every layer may use it."""
    tree = ast.parse(Path(keyvalue.__file__).read_text())
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported <= {"__future__", "json", "collections.abc", "typing"}, imported
