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

# What a document number is read as: its letters and digits. Everything else is dropped, not
# only the separators and invisible characters one can think of (spaces, dashes, zero-width
# and format characters): a braille blank, a hyphen bullet, a modifier minus, a middle dot, a
# comma each read as a separator to a person, and a list of them is never complete. Modifier
# letters (Lm: the katakana prolonged sound mark, which looks like a dash) and combining marks
# go too; a precomposed accented letter (É) stays a letter of its own.
KEPT_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lo", "Nd", "Nl", "No"})


def document_key(text: str) -> str:
    """The identity document ``text`` as a comparison key: two documents with one key are one.

    Unicode NFKC (full-width and other compatibility forms become their plain letters and
    digits), then only letters and digits are kept (``KEPT_CATEGORIES``): every space, dash,
    punctuation mark, symbol, invisible or modifier character is dropped; then the case is
    folded and the key written in capitals. Letters and digits are kept as they are: a letter O
    is never a digit 0, an I never a 1 (different numbers must stay different), and accented
    letters are kept. ``""`` when ``text`` holds no letter or digit (a blank document).

    >>> document_key("DUPDOC-777")
    'DUPDOC777'
    >>> document_key("dupdoc 777") == document_key("ＤＵＰＤＯＣ-７７７") == document_key("DUPDOC\\u2011777")
    True
    >>> document_key("DUPDOC-777\\u200b")
    'DUPDOC777'
    >>> document_key("DUPDOC\\u2800777") == document_key("DUPDOC\\u30fc777") == document_key("DUP,DOC·777")
    True
    >>> document_key("passport 12.ab/345_67")
    'PASSPORT12AB34567'
    >>> document_key("Straße 1")
    'STRASSE1'
    >>> document_key("O0") == document_key("00")
    False
    >>> document_key(" - \\u200b ")
    ''
    """
    # Case folding and capitals can each leave a string that is no longer in NFKC ("İ"), or a
    # modifier letter ("ŉ" folds to "ʼn"): normalized and filtered last, the key is its own key.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold().upper())
    return "".join(char for char in folded if unicodedata.category(char) in KEPT_CATEGORIES)


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
