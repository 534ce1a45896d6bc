"""What the count room page reads: each table's drop box of a gaming day, the master game
report's signatures, the tip boxes counted, and the approvals waiting for the person.

Reads only (no write): the ledger's drop streams (``drop/<table>/<day>``), the tips streams
(``tips/<box>/<day>``), ``cashier.custody_reports.master_game_report`` and the pending
``approvals.Approval`` rows. Amounts stay integer cents (the template formats them); times
are aware datetimes (the template shows them in the casino's zone).

The recount is blind (``cashier.services.drop_custody``): a box's counted amount is shown
only once its recount is recorded, so a verifier reading the page never sees the figure he
is to find."""

from __future__ import annotations

from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from approvals.models import Approval
from cashier.custody_reports import master_game_report
from cashier.services.count_room import drop_stream
from core.denominations import cash_denominations, chip_denominations
from games.models import Table
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role, roles_of

# The acts of the count room a person signs on this page.
KINDS = ("drop_box_remove", "drop_count", "tips_count")
RECOUNTS = ("DropCountVerified", "DropRecountVariance")
# Role values (plain strings: an enum member's hash is not its value's, so sets of them differ).
REMOVERS = (Role.PIT_BOSS.value, Role.COUNT_TEAM.value, Role.DROP_TEAM.value)
COUNT_TEAM = Role.COUNT_TEAM.value


def days_in_reach() -> list[date]:
    """The gaming days a removal or a count may name (``count_room.gaming_day_in_reach``):
    the current one first, then those of the lookback."""
    today = current_gaming_day()
    back = max(0, int(getattr(settings, "CASINO_GAMING_DAY_LOOKBACK_DAYS", 1)))
    return [today - timedelta(days=n) for n in range(back + 1)]


def _cents(count: object) -> int:
    """The total of a count ``{"<cents>": pieces}`` (0 for anything else: a request the
    service refused never became an approval)."""
    if not isinstance(count, dict):
        return 0
    total = 0
    for denomination, pieces in count.items():
        if str(denomination).isdigit() and isinstance(pieces, int):
            total += int(denomination) * pieces
    return total


def _box_state(table: str, day: date) -> dict:
    """One table's drop box of ``day``: ``{"table", "state", "removed_by", "removed_at",
    "counters", "counted_at", "verifier", "recount", "recounted_at", "counted_cents"
    (None until recounted: the recount is blind), "expected_cents" (idem), "variance_cents"}``."""
    box = {
        "table": table,
        "state": "on the table",
        "removed_by": [],
        "removed_at": None,
        "counters": [],
        "counted_at": None,
        "verifier": None,
        "recount": None,
        "recounted_at": None,
        "counted_cents": None,
        "expected_cents": None,
        "variance_cents": None,
        "recount_difference_cents": None,
    }
    count = None
    for event in Event.objects.filter(stream=drop_stream(table, day)).order_by("position"):
        data = event.data
        if event.type == "DropBoxRemoved":
            box.update(state="removed", removed_by=data.get("removers") or [event.actor], removed_at=event.recorded_at)
        elif event.type == "DropCounted":
            count = data
            box.update(state="counted", counters=data["counters"], counted_at=event.recorded_at)
            box.update(verifier=None, recount=None, recounted_at=None)
        elif event.type == "DropCountReversed":
            count = None
            box.update(state="removed", counters=[], counted_at=None)
        elif event.type in RECOUNTS:
            agrees = event.type == "DropCountVerified"
            box.update(
                state="recounted",
                verifier=data["verifier"],
                recount="agrees" if agrees else "variance",
                recounted_at=event.recorded_at,
                recount_difference_cents=data["difference_cents"],
            )
    if box["recount"] and count is not None:
        box.update(
            counted_cents=count["counted_cents"],
            expected_cents=count["expected_cents"],
            variance_cents=count["variance_cents"],
        )
    return box


def _tips(day: date) -> list[dict]:
    """The tip boxes counted on ``day``: ``[{"box", "total_cents", "chips_cents",
    "cash_cents", "counters", "manager", "at"}]`` (box in words: "table R1", "dealer dealer7")."""
    rows = []
    for event in Event.objects.filter(type="TipsCounted", data__gaming_day=day.isoformat()).order_by("position"):
        data = event.data
        ((kind, code),) = data["box"].items()
        rows.append(
            {
                "box": f"{kind} {code}",
                "total_cents": data["total_cents"],
                "chips_cents": data["chips_cents"],
                "cash_cents": data["cash_cents"],
                "counters": data["counters"],
                "manager": data["manager"],
                "at": event.recorded_at,
            }
        )
    return rows


def _box_words(box: object) -> str:
    if isinstance(box, dict) and len(box) == 1:
        ((kind, code),) = box.items()
        return f"{kind} {code}"
    return "a tip box"


def _approval_row(approval: Approval, me: str) -> dict:
    """What an approval asks, for the person reading it: ``{"approval" (its id, for the
    form's URL only), "kind", "what", "table", "gaming_day", "amount_cents", "maker",
    "people", "waiting_for", "asked_at", "mine", "sign_words" (the confirm button's)}``."""
    p = approval.payload if isinstance(approval.payload, dict) else {}
    row = {
        "approval": str(approval.id),
        "kind": approval.kind,
        "maker": approval.maker,
        "asked_at": approval.requested_at,
        "expires_at": approval.expires_at,
        "gaming_day": p.get("gaming_day"),
        "table": p.get("table"),
        "amount_cents": None,
        "mine": approval.maker == me,
        "waiting_for": [s["user"] or " or ".join(s["roles"]) for s in approval.waiting_for()],
    }
    if approval.kind == "drop_box_remove":
        row.update(what="Drop box removed", people="by " + " and ".join(p.get("removers") or []))
        row["sign_words"] = f"Confirm: I removed it with {approval.maker}"
    elif approval.kind == "drop_count":
        row.update(
            what="Drop box counted",
            amount_cents=_cents(p.get("cash")),
            people="by " + " and ".join(p.get("counters") or []),
        )
        row["sign_words"] = f"Confirm: I counted it with {approval.maker}"
    else:
        row.update(
            what=f"Tip box of {_box_words(p.get('box'))} counted",
            table=None,
            amount_cents=_cents(p.get("chips")) + _cents(p.get("cash")),
            people=f"by {', '.join(p.get('counters') or [])}, manager {p.get('manager')}",
        )
        watched = p.get("manager") == me
        row["sign_words"] = "Confirm: I watched this count" if watched else "Confirm: I counted it"
    return row


def _waits_for(approval: Approval, me: str, held: frozenset[str]) -> bool:
    """Whether ``me`` signs one of the approval's missing slots: one naming him, or one naming
    nobody whose role he holds (never his own request)."""
    if approval.maker == me:
        return False
    for slot in approval.waiting_for():
        if slot["user"] == me or (slot["user"] is None and held & set(slot["roles"])):
            return True
    return False


def approvals_for(me: str) -> dict:
    """``{"to_sign": [...], "asked": [...]}``: the pending, unexpired count-room approvals
    waiting for ``me``'s signature, and those ``me`` asked that still wait for someone else
    (``_approval_row``), oldest first."""
    pending = Approval.objects.filter(
        kind__in=KINDS, state=Approval.State.PENDING, expires_at__gt=timezone.now()
    ).order_by("requested_at")
    held = roles_of(me)
    to_sign, asked = [], []
    for approval in pending:
        if approval.maker == me:
            asked.append(_approval_row(approval, me))
        elif _waits_for(approval, me, held):
            to_sign.append(_approval_row(approval, me))
    return {"to_sign": to_sign, "asked": asked}


def _waiting_by_table(day: date) -> dict[str, str]:
    """Table → what its box waits for (``"removal waiting for drop2's signature"``): the
    pending removal or count of ``day`` that a second person has not confirmed yet."""
    words = {"drop_box_remove": "removal", "drop_count": "count"}
    pending = Approval.objects.filter(
        kind__in=tuple(words), state=Approval.State.PENDING, expires_at__gt=timezone.now()
    ).order_by("requested_at")
    waiting: dict[str, str] = {}
    for approval in pending:
        p = approval.payload if isinstance(approval.payload, dict) else {}
        if p.get("gaming_day") != day.isoformat() or not isinstance(p.get("table"), str):
            continue
        names = " and ".join(s["user"] or "a signer" for s in approval.waiting_for())
        waiting[p["table"]] = f"{words[approval.kind]} waiting for {names}'s signature"
    return waiting


def _people(*roles: str, but: str = "") -> list[str]:
    """Active usernames holding one of ``roles`` (the forms' suggestions), ``but`` left out."""
    users = get_user_model().objects.filter(is_active=True, groups__name__in=roles).exclude(username=but)
    return sorted(set(users.values_list("username", flat=True)))


def count_room(me: str, day: date) -> dict:
    """The page for ``me`` on gaming day ``day``: ``{"day", "days", "today", "boxes",
    "removable", "countable", "recountable", "report" {"rows", "signatures",
    "signed_by_count_team", "signed_by_me", "all_recounted"}, "tips", "approvals",
    "removers", "counters", "managers", "dealers", "tables", "cash_denominations",
    "chip_denominations", "roles"}``."""
    tables = list(Table.objects.order_by("code").values_list("code", flat=True))
    boxes = [_box_state(code, day) for code in tables]
    waiting = _waiting_by_table(day)
    for b in boxes:
        b["waiting"] = waiting.get(b["table"])
    report = master_game_report(day)
    current = [s for s in report["signatures"] if s["current"]]
    held = roles_of(me)
    return {
        "day": day,
        "days": days_in_reach(),
        "today": current_gaming_day(),
        "boxes": boxes,
        "removable": [b["table"] for b in boxes if b["state"] == "on the table"],
        "countable": [b["table"] for b in boxes if b["state"] == "removed"],
        "recountable": [b["table"] for b in boxes if b["state"] == "counted"],
        "report": {
            "tables": len(report["rows"]),
            "signatures": report["signatures"],
            "current_signers": [s["signer"] for s in current],
            "signed_by_count_team": report["signed_by_count_team"],
            "signed_by_me": any(s["signer"] == me for s in current),
            "all_recounted": bool(report["rows"]) and all(r["recount"] for r in report["rows"]),
        },
        "tips": _tips(day),
        "approvals": approvals_for(me),
        "removers": _people(*REMOVERS, but=me),
        "counters": _people(COUNT_TEAM, but=me),
        "tip_counters": _people(*(r.value for r in Role if r not in (Role.ADMIN, Role.AUDITOR))),
        "managers": _people(Role.PIT_BOSS.value, Role.CAGE_SUPERVISOR.value),
        "dealers": _people(Role.DEALER.value),
        "tables": tables,
        "cash_denominations": cash_denominations(),
        "chip_denominations": chip_denominations(),
        "can_remove": bool(held & set(REMOVERS)),
        "can_count": COUNT_TEAM in held,
        "can_count_tips": bool(held & {COUNT_TEAM, Role.PIT_BOSS.value}),
    }
