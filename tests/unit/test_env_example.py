"""``deploy/casino.env.example`` lists every environment variable that
``casino/settings.py`` reads (the file claims it does, and once missed seven)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV_READERS = {"str", "int", "bool", "float", "list", "db", "json", "url", "path", "dict", "tuple"}


def variables_read_by_the_settings() -> set[str]:
    """Names given to ``env(...)`` / ``env.<type>(...)`` in casino/settings.py, read with ``ast``."""
    tree = ast.parse((ROOT / "casino" / "settings.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        is_env = (isinstance(func, ast.Name) and func.id == "env") or (
            isinstance(func, ast.Attribute)
            and func.attr in ENV_READERS
            and isinstance(func.value, ast.Name)
            and func.value.id == "env"
        )
        first = node.args[0]
        if is_env and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.add(first.value)
    return found


def variables_in_the_example() -> set[str]:
    """``NAME=`` lines, set or commented out (``#NAME=`` / ``# NAME=``: listed with its default)."""
    text = (ROOT / "deploy" / "casino.env.example").read_text()
    return set(re.findall(r"^#? ?([A-Z][A-Z0-9_]*)=", text, re.M))


def test_the_settings_reader_finds_the_variables_it_should():
    read = variables_read_by_the_settings()
    # one of each kind of call, including a call spread over several lines
    assert {"DATABASE_URL", "DJANGO_DEBUG", "CASINO_CHIP_DENOMINATIONS", "AML_IDENTITY_THRESHOLD_CENTS"} <= read
    assert "EUR" not in read and "WARNING" not in read  # defaults are not variables


def test_the_env_example_lists_every_variable_the_settings_read():
    missing = variables_read_by_the_settings() - variables_in_the_example()
    assert missing == set(), f"add to deploy/casino.env.example: {sorted(missing)}"
