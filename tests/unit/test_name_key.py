"""A patron's name has one search key whatever its accents, letter case and spaces
(``patrons.names.name_key``); different letters stay different names."""

import doctest
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patrons import names
from patrons.names import name_key


@pytest.mark.parametrize("typed", ["Hélène", "HÉLÈNE", "helene", "He\u0301le\u0300ne", " hélène ", "Ｈéｌèｎｅ"])
def test_helene_has_one_key_however_her_accents_case_and_spaces_are_typed(typed):
    assert name_key(typed) == "helene"


def test_different_letters_stay_different_names():
    assert name_key("Hélène") != name_key("Hélèna")
    assert name_key("Jean Marie") != name_key("Jeanmarie")  # a space is kept, runs of them made one


@given(st.text(max_size=40))
def test_a_key_is_its_own_key(text):
    assert name_key(name_key(text)) == name_key(text)


@given(st.text(max_size=40))
def test_a_key_holds_no_combining_mark_and_no_run_of_spaces(text):
    key = name_key(text)
    assert not any(unicodedata.combining(char) for char in key)
    assert key == " ".join(key.split())


def test_the_examples_in_the_docstring_hold():
    assert doctest.testmod(sys.modules[names.__name__]).failed == 0
