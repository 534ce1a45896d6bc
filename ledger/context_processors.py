"""What every page of a logged-in person carries from the ledger (``TEMPLATES``' context
processors): the events this process found the application did not write (``ledger.disowned``,
found by the scan before each page, ``ledger.seal_scan``). No query: a pit boss, a cashier and
an auditor each see at once that the ledger was written around, and that no figure counts it."""

from __future__ import annotations

from . import disowned

SHOWN = 5  # positions named on a page; the rest counted


def ledger_alarm(request) -> dict:
    """``{"ledger_alarm": {"count", "positions": [the first SHOWN], "more"}}`` while forged events
    are known, else ``{}``."""
    found = sorted(disowned.positions())
    if not found or not getattr(getattr(request, "user", None), "is_authenticated", False):
        return {}
    return {"ledger_alarm": {"count": len(found), "positions": found[:SHOWN], "more": len(found) - SHOWN}}
