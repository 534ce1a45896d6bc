"""The demo's regular patrons: identified, registered once and found again by their identity
document on a later run of the same database."""

from __future__ import annotations

from patrons.selectors import patron_by_document
from patrons.services.patrons import patron_register

from .day import CASHIER
from .names import guest


def demo_players(prefix: str, count: int) -> list[str]:
    """The codes of ``count`` regulars of the ``prefix`` game ("black jack": seats 1..count; the
    guest's name and document from ``demo.names.guest``), registered at the cage by the demo's
    cashier when new."""
    return [regular(f"{prefix} {i + 1}") for i in range(count)]


def regular(seat: str) -> str:
    """The code of the demo's regular at ``seat``, registered with his name and document when new."""
    name, document = guest(seat)
    known = patron_by_document(document)
    return (
        known.code
        if known
        else patron_register(kind="identified", name=name, document=document, actor=CASHIER)["patron"]
    )
