"""The demo's regular patrons: identified, registered once and found again by name on a later
run of the same database."""

from __future__ import annotations

from patrons.models import Patron
from patrons.services.patrons import patron_register

from .day import CASHIER


def demo_players(prefix: str, count: int) -> list[str]:
    """The codes of ``count`` patrons named "Demo <prefix> player N" (registered at the cage by
    the demo's cashier when new)."""
    codes = []
    for i in range(count):
        name = f"Demo {prefix} player {i + 1}"
        known = Patron.objects.filter(name=name).values_list("code", flat=True).first()
        codes.append(
            known or patron_register(kind="identified", name=name, document=f"DEMO-{name}", actor=CASHIER)["patron"]
        )
    return codes
