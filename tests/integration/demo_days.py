"""The small demo day several tests read: every game played a few coups, counted and closed
(``manage.py demo`` with 2 to 4 coups a table, seed 7: about ten seconds)."""

from __future__ import annotations

import io

from django.core.management import call_command

SMALL_DAY = {
    "spins": 4,
    "patrons": 2,
    "blackjack_coups": 3,
    "stud_coups": 3,
    "classic_stud_coups": 2,
    "baccarat_coups": 3,
    "tq_coups": 3,
    "seed": 7,
}


def play_small_demo_day() -> str:
    """Play the small demo day; returns what the demo printed."""
    out = io.StringIO()
    call_command("demo", **SMALL_DAY, stdout=out)
    return out.getvalue()
