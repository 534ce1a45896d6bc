"""What differs between games is said once, in the registry (``games.catalog``): nothing else
in the house compares a table's game with a game's code (``game == "baccarat"``, ``game in
("blackjack", ...)``), names a game's member of an enum (``Table.Game.BACCARAT``), or keeps a
dict keyed by games' codes. A new such branch fails here; a seventh game then plugs in through
the registry alone (tests/integration/test_a_seventh_game_plugs_in_through_the_registry.py)."""

import ast
from pathlib import Path

import pytest

from games.catalog import GAMES

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [
    "approvals",
    "audit",
    "basis",
    "cashier",
    "casino",
    "core",
    "dashboard",
    "demo",
    "games",
    "ledger",
    "patrons",
    "staff",
    "workstations",
]
REGISTRY = ROOT / "games" / "catalog"
# Where a dict keyed by games' codes stays, and why.
KEPT = {
    # The house's configuration per game (approved range of limits, a rating's pace), each
    # overridable by an environment variable named after the game: data, not a branch.
    "casino/settings.py",
    # The audit line's words for a game's code, in the pure rules package, which cannot see
    # the registry (games.rules imports nothing above it); a code it lacks reads as its words.
    "games/rules/event_words.py",
}
CODES = frozenset(GAMES)


def _codes_in(node: ast.AST) -> list[str]:
    """The game codes ``node`` is or holds (a string, or a tuple, list or set of strings)."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and i.value in CODES]


def branches_on_game(source: str, path: str) -> list[str]:
    """``path:line what`` of each comparison with a game's code, use of a ``Game`` enum member
    and dict keyed by two or more games' codes in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.isupper():
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "Game") or (
                isinstance(owner, ast.Attribute) and owner.attr == "Game"
            ):
                found.append(f"{path}:{node.lineno} names Game.{node.attr}")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = [code for side in sides for code in _codes_in(side)]
            if named and not any(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
                found.append(f"{path}:{node.lineno} compares with the game {named[0]!r}")
        elif isinstance(node, ast.Dict) and path not in KEPT:
            keyed = [code for key in node.keys if key is not None for code in _codes_in(key)]
            if len(keyed) >= 2:
                found.append(f"{path}:{node.lineno} keys a dict by games ({', '.join(keyed)})")
    return found


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if REGISTRY in path.parents or "migrations" in path.parts:
                continue
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def test_nothing_outside_the_registry_branches_on_a_game():
    found = [line for path, source in _sources() for line in branches_on_game(source, path)]
    assert not found, "per-game branches outside games.catalog:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('if table.game == "baccarat":\n    pass\n', "x.py:1 compares with the game 'baccarat'"),
        ('ok = game in ("blackjack", "caribbean_stud")\n', "x.py:1 compares with the game 'blackjack'"),
        ("ok = table.game != Table.Game.ENGLISH_ROULETTE\n", "x.py:1 names Game.ENGLISH_ROULETTE"),
        (
            'PLACERS = {"baccarat": 1, "trente_quarante": 2}\n',
            "x.py:1 keys a dict by games (baccarat, trente_quarante)",
        ),
    ],
)
def test_the_guard_finds_each_kind_of_branch(source, expected):
    assert branches_on_game(source, "x.py") == [expected]


def test_the_guard_lets_a_spec_lookup_and_one_outcome_word_through():
    source = 'if spec(table.game).layout_bets:\n    pass\nWORDS = {"won": "wins", "blackjack": "black jack"}\n'
    assert branches_on_game(source, "x.py") == []
