"""One module per game (``games.catalog``) says what the rest of the house asks of a game: every
game a table can play is declared there, each declaration is whole (its rule set parses its own
defaults, its limit options are options of that rule set), and nothing else keeps a list of
the games' names, limits or rule sets of its own."""

import ast
from pathlib import Path

import pytest

from games.catalog import GAMES, UnknownGame, spec
from games.models import Table
from games.names import game_name
from games.services.table_limits import approved_range

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_a_table_plays_is_declared_once():
    assert [code for code, _ in Table._meta.get_field("game").choices] == list(GAMES)
    assert all(code == game.code for code, game in GAMES.items())
    assert len({game.name for game in GAMES.values()}) == len(GAMES)


@pytest.mark.parametrize("code", sorted(GAMES))
def test_each_declaration_is_whole(code, settings):
    game = spec(code)
    defaults = game.rules.from_dict({}).to_dict()
    assert game.rules.from_dict(defaults).to_dict() == defaults  # its rule set reads what it writes
    for option in (*game.minima, *game.maxima):
        assert isinstance(defaults.get(option), int), f"{code}: {option} is no limit of its rule set"
    assert set(game.minima_in_colour_chips) <= set(game.minima)
    assert game.maxima or game.most_in_a_round is not None  # a maximum bounds every game
    labelled = {option for option, _ in game.limit_labels}
    assert labelled and labelled >= set(game.minima) - {"standing_min_cents"}
    assert game_name(code) == game.name
    assert approved_range(code)[0] > 0  # the house approved a range for it


def test_classic_stud_bounds_the_most_in_a_round_by_its_base_stake_and_largest_cap():
    most = spec("classic_stud").most_in_a_round
    assert most({"base_stake_cents": 1_000, "caps": [1, 2, 4, 8]}) == 8_000
    assert most({"base_stake_cents": 1_000, "caps": []}) == 0


def test_an_unknown_game_is_named_as_such():
    with pytest.raises(UnknownGame):
        spec("pai_gow")
    with pytest.raises(UnknownGame):
        spec(None)


# The modules that once kept their own per-game lists: they read the catalog now.
READERS = [
    "games/names.py",
    "games/services/table_limits.py",
    "games/services/tables.py",
    "games/services/card_table.py",
    "dashboard/shift_selectors.py",
]


@pytest.mark.parametrize("path", READERS)
def test_no_reader_keeps_a_dict_keyed_by_game_of_its_own(path):
    tree = ast.parse((ROOT / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keyed = [k for k in node.keys if isinstance(k, ast.Attribute) and isinstance(k.value, ast.Attribute)]
            assert not any(k.value.attr == "Game" for k in keyed), f"{path}:{node.lineno} keys a dict by game"
