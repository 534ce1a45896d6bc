"""What the tronc page reads: the pool, the tip boxes counted into it, the share-outs, and
who shares the next one with how many points (``cashier.services.tronc``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from cashier.services.tronc import SHARES_STREAM, points_by_role
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role, roles_of

# The roles that may share the tronc (the scheme's roles); an auditor, an admin or the compliance
# officer is no employee of the gaming floor.
_NOT_SHARING = {Role.ADMIN, Role.AUDITOR, Role.COMPLIANCE}


def _box_words(box: object) -> str:
    if isinstance(box, dict) and box.get("table"):
        return f"table {box['table']}"
    if isinstance(box, dict) and box.get("dealer"):
        return f"{box['dealer']}'s toke box"
    return "a tip box"


def tronc_page() -> dict:
    """``{"pool_cents", "gaming_day", "counted": [{"box", "total_cents", "chips_cents",
    "cash_cents", "counters", "manager", "occurred_at" (UTC)}] (today's tip boxes),
    "shares": [{"occurred_at", "by", "pool_cents", "shared_cents", "carried_cents",
    "lines": [{"username", "points", "share_cents"}]}] (the last ten share-outs, newest first),
    "staff": [{"username", "roles", "points"}] (every active employee who may share, with the
    scheme's points for the highest-scoring role he holds)}``."""
    day = current_gaming_day()
    counted = [
        {
            "box": _box_words(e.data.get("box")),
            "total_cents": e.data.get("total_cents", 0),
            "chips_cents": e.data.get("chips_cents", 0),
            "cash_cents": e.data.get("cash_cents", 0),
            "counters": ", ".join(e.data.get("counters") or []),
            "manager": e.data.get("manager", ""),
            "occurred_at": e.occurred_at,
        }
        for e in Event.objects.filter(type="TipsCounted", gaming_day=day).order_by("position")
    ]
    shares = [
        {
            "occurred_at": e.occurred_at,
            "by": e.actor,
            "pool_cents": e.data["pool_cents"],
            "shared_cents": e.data["shared_cents"],
            "carried_cents": e.data["carried_cents"],
            "lines": e.data["shares"],
        }
        for e in Event.objects.filter(stream=SHARES_STREAM, type="TroncShared").order_by("-position")[:10]
    ]
    scheme = points_by_role()
    staff = []
    for user in get_user_model().objects.filter(is_active=True).order_by("username"):
        held = set(roles_of(user.username)) - _NOT_SHARING
        if not held:
            continue
        staff.append(
            {
                "username": user.username,
                "roles": ", ".join(sorted(str(role).replace("_", " ") for role in held)),
                "points": max(scheme.get(role, 0) for role in held),
            }
        )
    return {
        "pool_cents": store.balance(accounts.TRONC),
        "gaming_day": day,
        "counted": counted,
        "shares": shares,
        "staff": staff,
    }
