"""One identity document has one key however it is typed (``patrons.documents.document_key``):
its letters and digits alone, in capitals (full-width and other compatible forms as their plain
letters); every space, dash, punctuation, symbol, invisible or modifier character aside;
different letters or digits (O and 0 included) stay different documents."""

import doctest
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patrons import documents
from patrons.documents import colliding_documents, document_key, foreign_characters

ORIGINAL = "DUPDOC-777"
LOOK_ALIKES = [
    "DUPDOC 777",  # a space for the hyphen
    "ＤＵＰＤＯＣ-７７７",  # full-width letters and digits
    "ＤＵＰＤＯＣ－７７７",  # full-width hyphen too
    "DUPDOC\u2011777",  # non-breaking hyphen
    "DUPDOC-777\u200b",  # trailing zero-width space
    "dupdoc-777",
    "DupDoc777",
    " DUPDOC - 777 ",
    "DUPDOC\u00a0777",  # no-break space
    "DUPDOC\u2003777",  # em space
    "DUPDOC\u3000777",  # ideographic space
    "DUPDOC\t777\n",
    "DUPDOC\u2010777",  # hyphen
    "DUPDOC\u2013777",  # en dash
    "DUPDOC\u2014777",  # em dash
    "DUPDOC\u2212777",  # minus sign
    "DUPDOC\ufe63777",  # small hyphen-minus
    "DUPDOC\u00ad777",  # soft hyphen
    "\ufeffDUPDOC-777",  # byte-order mark
    "DUP\u200dDOC-7\u200c77",  # zero-width joiner and non-joiner
    "\u202eDUPDOC-777\u202c",  # right-to-left override and pop
    "DUPDOC\u2060777",  # word joiner
    "DUPDOC-777\ufe0f",  # variation selector
    "DUPDOC.777",
    "DUPDOC/777",
    "DUPDOC_777",
    "D.U.P.D.O.C.-7.7.7",
    "𝐃𝐔𝐏𝐃𝐎𝐂-𝟕𝟕𝟕",  # mathematical bold
    "ⅮUPⅮOC-777",  # roman numeral five hundred (Ⅾ) for D
    "DUPDOC\u2800777",  # braille blank
    "DUPDOC\u2043777",  # hyphen bullet
    "DUPDOC\u02d7777",  # modifier letter minus sign
    "DUPDOC\u30fc777",  # katakana prolonged sound mark (a modifier letter that looks like a dash)
    "DUPDOC\u00b7777",  # middle dot
    "DUPDOC,777",
]


@pytest.mark.parametrize("typed", LOOK_ALIKES)
def test_a_look_alike_of_a_document_has_its_key(typed):
    assert document_key(typed) == document_key(ORIGINAL) == "DUPDOC777"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("AB123", "AB124"),
        ("O0", "00"),  # a letter O is not a digit 0
        ("O0", "OO"),
        ("I1", "11"),  # nor an I a 1
        ("l1", "11"),
        ("S5", "55"),
        ("B8", "88"),
        ("AB123", "AB1234"),
        ("AB123", "BA123"),  # order counts
    ],
)
def test_documents_differing_in_a_letter_or_digit_keep_different_keys(one, other):
    assert document_key(one) != document_key(other)


@pytest.mark.parametrize(
    ("one", "other"), [("AB12+3", "AB123"), ("AB12,3", "AB123"), ("N°123", "N123"), ("É123", "E123")]
)
def test_punctuation_symbols_and_accents_are_not_part_of_a_document_number(one, other):
    assert document_key(one) == document_key(other)
    assert foreign_characters(one) == []


@pytest.mark.parametrize(
    ("typed", "foreign"),
    [
        ("Α123", "Α"),  # Greek capital alpha, not the Latin A
        ("С123", "С"),  # Cyrillic Es, not the Latin C
        ("ХA-4242", "Х"),  # Cyrillic Kha, not the Latin X
        ("HX\u115f4242", "\u115f"),  # an invisible Hangul filler (a letter by category)
        ("HX\u4e004242", "\u4e00"),  # CJK "one", a dash to the eye
        ("HX\u31614242", "\u3161"),  # Hangul "eu", a dash to the eye
        ("HX\u318d4242", "\u318d"),  # Hangul araea, a dot to the eye
        ("HX\u4e284242", "\u4e28"),  # CJK stroke, a bar to the eye
        ("HX\u2f004242", "\u2f00"),  # Kangxi radical one (NFKC's CJK "one")
        ("HX\u30074242", "\u3007"),  # ideographic zero
    ],
)
def test_a_letter_of_another_script_is_named_not_keyed(typed, foreign):
    assert foreign_characters(typed) == [foreign]


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("passport 12AB34567", "PASSPORT12AB34567"),
        ("Straße 5", "STRASSE5"),  # case folding: ß is ss
        ("ﬁ-42", "FI42"),  # a ligature is its letters
        ("№ 42", "NO42"),  # the numero sign is N and o (NFKC)
        ("x²", "X2"),  # a superscript is its digit (NFKC)
        ("", ""),
        ("   ", ""),
        (" - / . _ \u200b\u2060\ufeff", ""),
    ],
)
def test_the_key_is_the_documents_letters_and_digits_in_capitals(typed, key):
    assert document_key(typed) == key


@given(st.text(max_size=40))
def test_a_key_is_its_own_key(text):
    assert document_key(document_key(text)) == document_key(text)


@given(st.text(max_size=40))
def test_a_key_holds_letters_and_digits_only(text):
    key = document_key(text)
    assert all(char in documents.KEPT for char in key)
    assert key == key.upper()


def test_the_examples_in_the_docstring_hold():
    assert doctest.testmod(sys.modules[documents.__name__]).failed == 0


def test_patrons_sharing_one_key_are_listed_together_and_blank_documents_share_nothing():
    rows = [
        ("P00001", "DUPDOC-777"),
        ("P00002", "AB123"),
        ("P00003", "dupdoc 777"),
        ("P00004", ""),
        ("P00005", " \u200b"),
        ("P00006", "ab-123"),
        ("P00007", "ＤＵＰＤＯＣ-７７７"),
        ("P00008", "AB124"),
    ]
    assert colliding_documents(rows) == [["P00001", "P00003", "P00007"], ["P00002", "P00006"]]
    assert colliding_documents([("P00001", "AB123"), ("P00002", "AB124"), ("P00003", "")]) == []
