"""The key a patron's name is searched by: what a cashier types for the name she hears, whatever
the accents, the letter case and the spaces ("helene dupont" finds "Hélène  Dupont").

Pure (the standard library only): the patron registry stores it (``Patron.name_key``), the
services that set a name keep it, the migration that introduced it fills it with this same
function, and the cage's patron search matches on it.
"""

from __future__ import annotations

import unicodedata


def _unmarked(text: str) -> str:
    """``text`` in Unicode NFKD with its combining marks (categories Mn, Mc, Me) dropped."""
    return "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))


def name_key(text: str) -> str:
    """The name ``text`` as a search key: Unicode NFKD (compatibility forms become their plain
    letters, accented letters their letter and its accent), the accents and other combining
    marks dropped, the case folded, every run of spaces made one space, none at the ends. ``""``
    for a blank name.

    >>> name_key("Hélène  DUPONT")
    'helene dupont'
    >>> name_key("ＪＯＳÉ\\tMaría") == name_key("jose maria")
    True
    >>> name_key("Straße") == name_key("STRASSE")
    True
    >>> name_key("İlkay") == name_key("ilkay")
    True
    >>> name_key("  ")
    ''
    """
    # Case folding can bring a mark back ("İ" folds to "i" and a combining dot): the marks are
    # dropped again after it, so the key is its own key.
    return " ".join(_unmarked(_unmarked(text).casefold()).split())
