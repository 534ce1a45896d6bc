"""The key that tells whether two identity documents are one: what a person would read as the
same document number, whatever the keyboard, the copy-paste or the scanner put between its
characters.

Pure (the standard library only): the patron registry stores it (``Patron.document_key``, unique),
the registration services compare by it, and the migration that introduced it fills it with
this same function.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable

# What a document number is read as: the Latin letters A-Z and the digits 0-9 its machine-
# readable zone prints (ICAO 9303), nothing else. Everything between them is dropped, not only
# the separators and invisible characters one can think of (spaces, dashes, zero-width and
# format characters): a braille blank, a hyphen bullet, a middle dot, a comma each read as a
# separator to a person, and no list of them is ever complete. A letter of another script is
# not dropped but refused (``foreign_characters``): a Hangul filler is an invisible letter, a
# CJK "one" (一) or a Hangul "eu" (ㅡ) looks like a dash, a Cyrillic Х like an X.
KEPT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _latin(text: str) -> str:
    """``text`` with compatibility forms as their plain letters and digits (NFKC: full-width,
    mathematical bold, roman numerals), accents taken off (NFKD without its combining marks),
    case folded (ß as SS) and in capitals."""
    plain = unicodedata.normalize("NFKC", text)
    bare = "".join(c for c in unicodedata.normalize("NFKD", plain) if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", bare.casefold().upper())


def document_key(text: str) -> str:
    """The identity document ``text`` as a comparison key: two documents with one key are one.

    ``text`` in plain capitals without accents (``_latin``), of which only A-Z and 0-9 are kept:
    every space, dash, punctuation mark, symbol, invisible character and letter of another
    script is dropped (the registration refuses the last: ``foreign_characters``). A letter O
    is never a digit 0, an I never a 1: different numbers stay different. ``""`` when ``text``
    holds no Latin letter or digit.

    >>> document_key("DUPDOC-777")
    'DUPDOC777'
    >>> document_key("dupdoc 777") == document_key("ＤＵＰＤＯＣ-７７７") == document_key("DUPDOC\\u2011777")
    True
    >>> document_key("DUPDOC-777\\u200b")
    'DUPDOC777'
    >>> document_key("DUPDOC\\u2800777") == document_key("DUPDOC\\u30fc777") == document_key("DUP,DOC·777")
    True
    >>> document_key("carte d'identité 12.ab/345_67")
    'CARTEDIDENTITE12AB34567'
    >>> document_key("Straße 1")
    'STRASSE1'
    >>> document_key("O0") == document_key("00")
    False
    >>> document_key(" - \\u200b ")
    ''
    """
    return "".join(char for char in _latin(text) if char in KEPT)


def foreign_characters(text: str) -> list[str]:
    """The characters of ``text``, as typed, that are letters or digits but not Latin letters or
    digits once written plainly (``_latin``), each once, in order of appearance: a document holding one is refused
    rather than keyed without it (an invisible Hangul filler, a CJK 一 posing as a dash, a
    Cyrillic Х posing as an X). Invisible letters count, whatever their category.

    >>> foreign_characters("HX\\u3164 4242-77") == ["\\u3164"], foreign_characters("ＤＵＰＤＯＣ-７７７")
    (True, [])
    >>> foreign_characters("Χ123")
    ['Χ']
    """
    found: dict[str, None] = {}
    for typed in text:  # named as typed (NFKC would show a Hangul jamo as another one)
        if any(char not in KEPT and unicodedata.category(char)[0] in "LN" for char in _latin(typed)):
            found[typed] = None
    return list(found)


def describe(char: str) -> str:
    """``char`` for a person: the character itself, its code point and Unicode name."""
    name = unicodedata.name(char, "unnamed character")
    return f"{char} (U+{ord(char):04X} {name})"


def colliding_documents(patrons: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The patron codes that share one document key, from ``(code, document)`` pairs: one sorted
    list of codes per shared key (blank documents share nothing), the lists in order of their
    first code. ``[]`` when every document is one patron's."""
    holders: dict[str, list[str]] = defaultdict(list)
    for code, document in patrons:
        key = document_key(document)
        if key:
            holders[key].append(code)
    return sorted(sorted(codes) for codes in holders.values() if len(codes) > 1)
