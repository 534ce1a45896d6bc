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

# Separators typed between the parts of one number: spaces of every width, every dash or hyphen
# (Unicode category Pd), and the few punctuation marks documents are written with.
SEPARATOR_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Pd"})
SEPARATORS = frozenset("./_\u2212")  # U+2212 MINUS SIGN is a mathematical symbol that reads as a hyphen
# Characters that show nothing: format characters (Cf: zero-width space and joiners, the
# soft hyphen, direction marks, the byte-order mark), control characters (Cc: tabs, line
# breaks), and the few invisible ones of other categories (variation selectors, the combining
# grapheme joiner, the Hangul fillers, the Mongolian free variation selectors).
INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc"})
INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


def _dropped(char: str) -> bool:
    category = unicodedata.category(char)
    return (
        category in SEPARATOR_CATEGORIES
        or category in INVISIBLE_CATEGORIES
        or char in SEPARATORS
        or char in INVISIBLE
        or char.isspace()
    )


def document_key(text: str) -> str:
    """The identity document ``text`` as a comparison key: two documents with one key are one.

    Unicode NFKC (full-width and other compatibility forms become their plain letters and
    digits), then every invisible character (category Cf and Cc, variation selectors), every
    space (Zs, Zl, Zp and whitespace), every dash or hyphen (Pd, and the minus sign) and the
    separators ``.``, ``/`` and ``_`` are dropped, then the case is folded and the key written in
    capitals. Letters and digits are kept as they are: a letter O is never a digit 0, an I never
    a 1 (different numbers must stay different), and accents are kept. ``""`` when ``text`` holds
    no letter, digit or other mark (a blank document).

    >>> document_key("DUPDOC-777")
    'DUPDOC777'
    >>> document_key("dupdoc 777") == document_key("ＤＵＰＤＯＣ-７７７") == document_key("DUPDOC\\u2011777")
    True
    >>> document_key("DUPDOC-777\\u200b")
    'DUPDOC777'
    >>> document_key("passport 12.ab/345_67")
    'PASSPORT12AB34567'
    >>> document_key("Straße 1")
    'STRASSE1'
    >>> document_key("O0") == document_key("00")
    False
    >>> document_key(" - \\u200b ")
    ''
    """
    kept = "".join(char for char in unicodedata.normalize("NFKC", text) if not _dropped(char))
    # Case folding and capitals can each leave a string that is no longer in NFKC ("İ"): the last
    # normalization makes the key its own key.
    return unicodedata.normalize("NFKC", kept.casefold().upper())


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
