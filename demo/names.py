"""Guest names for the demo's patrons: a person's name and an identity document that read like
a real guest's on the cashier's and the pit boss's pages, the same on every run for the same
seat (the demo finds its regulars again by document), never one document for two people."""

from __future__ import annotations

import hashlib

FIRST_NAMES = (
    "Jeanne", "Louis", "Camille", "Hugo", "Léa", "Marc", "Chloé", "Antoine", "Inès", "Paul",
    "Sofia", "Julien", "Manon", "Karim", "Élise", "Thomas", "Nadia", "Pierre", "Giulia", "Lucas",
    "Amélie", "Youssef", "Clara", "Matthieu", "Hélène", "Diego", "Sarah", "Olivier", "Anna", "Victor",
    "Margot", "Samuel", "Yasmine", "Arthur", "Laura", "Hans", "Émilie", "Nicolas", "Ingrid", "Rafael",
)  # fmt: skip
LAST_NAMES = (
    "Martin", "Bernard", "Dubois", "Laurent", "Moreau", "Lefèvre", "Garnier", "Rossi", "Fontaine",
    "Chevalier", "Benali", "Girard", "Bonnet", "Mercier", "Lambert", "Faure", "Rousseau", "Blanc",
    "Guerin", "Müller", "Perrin", "Morel", "Ferrari", "Gauthier", "Roux", "Nicolas", "Durand",
    "Marchand", "Da Silva", "Lemoine", "Renard", "Vidal", "Schmitt", "Colin", "Barbier", "Arnaud",
    "Haddad", "Picard", "Navarro", "Caron", "Brun",
)  # fmt: skip


def guest(seat: str) -> tuple[str, str]:
    """``(name, document)`` of the demo's guest at ``seat`` (any stable words: "black jack 3").

    The name comes from a digest of the seat (two seats may share a name, as people do); the
    document is the seat's: "passport " + two letters and seven digits from the same digest (about
    6.8 billion of them: two of the demo's few hundred seats sharing one is not to be expected,
    and the cage would refuse the second)."""
    digest = hashlib.sha256(seat.encode()).digest()
    first = FIRST_NAMES[digest[0] % len(FIRST_NAMES)]
    last = LAST_NAMES[digest[1] % len(LAST_NAMES)]
    letters = "".join(chr(ord("A") + b % 26) for b in digest[2:4])
    number = int.from_bytes(digest[4:12], "big") % 10_000_000
    return f"{first} {last}", f"passport {letters}{number:07d}"
