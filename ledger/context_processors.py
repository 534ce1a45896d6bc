"""What every page of a logged-in person carries from the ledger (``TEMPLATES``' context
processors), so that a pit boss, a cashier and an auditor each see at once that the ledger is
not what the application wrote:

- the events this process found the application did not write (``ledger.disowned``, found by
  the scan before each page, ``ledger.seal_scan``; no query), which no figure counts;
- the latest verification of the whole chain when it found it broken elsewhere (a row edited
  under the triggers by a superuser: the scan, which reads each event once, does not see it;
  the verification beat does, ``ledger.tasks.verify_chain``). One indexed read of one row.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import DatabaseError

from . import disowned, verification_records
from .models import ChainVerification

SHOWN = 5  # positions named on a page; the rest counted


def ledger_alarm(request) -> dict:
    """``{"ledger_alarm": {"count", "positions": [the first SHOWN], "more"}}`` while forged events
    are known, and ``{"ledger_broken": ChainVerification}`` while the latest verification found
    the chain broken at a position that is not one of them; ``{}`` for nobody logged in."""
    if not getattr(getattr(request, "user", None), "is_authenticated", False):
        return {}
    found = sorted(disowned.positions())
    shown: dict = {}
    if found:
        shown["ledger_alarm"] = {"count": len(found), "positions": found[:SHOWN], "more": len(found) - SHOWN}
    broken = _latest_broken()
    if broken is not None and broken.first_bad_position not in found:
        shown["ledger_broken"] = broken
        shown["ledger_balances_differ"] = verification_records.balances_differ(broken)
        # In the casino's zone on every page: the workstations do not activate it as the floor does.
        local = broken.verified_at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
        shown["ledger_broken_at"] = local.strftime("%Y-%m-%d %H:%M %Z")
    return shown


def _latest_broken() -> ChainVerification | None:
    try:
        latest = verification_records.latest()  # an altered record is an alarm of its own
    except DatabaseError:  # the page says the database is out of reach; this adds nothing
        return None
    return latest if latest is not None and not latest.ok else None
