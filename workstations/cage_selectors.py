"""Reads of the cage workstation (cents, UTC): the user's window and its lines, the other
windows, the cage's book (main bank and windows), the slip queue, reversals waiting for a cage
supervisor, a patron search, and a window's reconciliation. Only reads; the writes are
``cashier.services``, ``patrons.services`` and ``approvals``."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from approvals.models import Approval
from cashier.credit_models import Marker
from cashier.models import Slip
from cashier.services.cage_corrections import REVERSALS, REVERSIBLE
from cashier.services.cage_shifts import (
    handover_waiting,
    main_bank,
    open_windows,
    shift_stream,
    window_book,
    window_foreign_book,
    window_of,
)
from cashier.services.cage_transfers import TRANSFERS
from cashier.services.credit import credit_standing
from cashier.services.foreign_exchange import cage_foreign_book, foreign_currencies, rates_of_the_day
from cashier.services.slips import EVENT_PREFIX
from core.denominations import cash_denominations, chip_denominations
from dashboard.play import event_words
from ledger import accounts, outage_forms, store
from ledger.errors import NotFound
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, Posting
from patrons.models import Patron
from patrons.selectors import patron_chips_cents, patron_search
from patrons.services.self_limit import self_limit_get
from staff.roles import Role, has_role
from staff.selectors import users_with

# How each event type reads on the reconciliation (the cage's movements).
MOVEMENT_NAMES = {
    "CageOpened": "float counted in",
    "ChipsPurchased": "chip sales",
    "ChipsRedeemed": "chip redemptions",
    "FillDelivered": "fills delivered",
    "CreditDelivered": "credits received",
    "FillIssued": "fills issued",
    "FillVoided": "fills voided (chips back)",
    "ChipsPurchaseReversed": "chip sales reversed",
    "ChipsRedemptionReversed": "chip redemptions reversed",
    "ForeignExchangeReversed": "foreign exchanges reversed",
    "CageShiftClosed": "window closing (count back to the main bank)",
    "CageWindowReplenished": "top-ups from the main bank",
    "CageWindowReturned": "returns to the main bank",
    "FillReversed": "fills reversed",
    "CreditReversed": "credits reversed",
    "DropCounted": "drop counts",
    "DropCountReversed": "drop counts reversed",
    "FrontMoneyDeposited": "front money deposited",
    "FrontMoneyWithdrawn": "front money withdrawn",
    "MarkerIssued": "markers issued",
    "MarkerPaid": "markers paid",
    "MarkerVoided": "markers voided (chips back)",
}


def movement_name(event_type: str) -> str:
    """How ``event_type`` reads on the reconciliation: its name above, else its type in words
    (``dashboard.play.event_words``), never the code."""
    return MOVEMENT_NAMES.get(event_type) or event_words(event_type)


def count_lines(count: dict, denominations: tuple[int, ...]) -> list[dict]:
    """A count ``{"<cents>": pieces}`` as rows, largest denomination first, zero lines left out."""
    return [
        {"denomination_cents": d, "pieces": count.get(str(d), 0), "amount_cents": d * count.get(str(d), 0)}
        for d in sorted(denominations, reverse=True)
        if count.get(str(d))
    ]


def counts_compared(opened: dict, closed: dict | None, denominations: tuple[int, ...]) -> list[dict]:
    """Two counts ``{"<cents>": pieces}`` side by side, largest denomination first, a line for
    each denomination either holds: ``{"denomination_cents", "opened_pieces", "opened_cents",
    "closed_pieces", "closed_cents", "change_cents"}`` (``closed_*`` and ``change_cents`` None
    while the window is open)."""
    rows = []
    for d in sorted(denominations, reverse=True):
        was, now = opened.get(str(d), 0), None if closed is None else closed.get(str(d), 0)
        if not was and not now:
            continue
        rows.append(
            {
                "denomination_cents": d,
                "opened_pieces": was,
                "opened_cents": d * was,
                "closed_pieces": now,
                "closed_cents": None if now is None else d * now,
                "change_cents": None if now is None else d * (now - was),
            }
        )
    return rows


def acceptances_waiting() -> dict[tuple[str, str], str]:
    """Fills at their table whose dealer was asked to count and accept them (``approvals`` act
    ``slip_accept``), by ``(kind, serial)``: who the acceptance waits for, in words."""
    pending = Approval.objects.filter(kind="slip_accept", state=Approval.State.PENDING, expires_at__gt=timezone.now())
    return {
        (a.payload.get("kind"), a.payload.get("serial")): "; ".join(
            s["user"] or " or ".join(r.replace("_", " ") for r in s["roles"]) for s in a.waiting_for()
        )
        for a in pending.order_by("requested_at")
    }


# The slip's last step, by state: the event that took it there (its time is the step's).
LAST_STEP = {
    Slip.State.DELIVERED: "Delivered",
    Slip.State.VOIDED: "Voided",
    Slip.State.REVERSED: "Reversed",
}


def slip_progress(slip: Slip, *, at=None, dealer: str | None = None) -> dict:
    """Where slip ``slip`` stands, read from its state (never guessed from what it is not):
    ``{"words", "at"}``, ``at`` the time of the step that brought it there (its last event;
    ``None`` for a slip still requested or issued). ``dealer``: whom the fill's acceptance at
    the table waits for, when the pit asked its dealer."""
    fill = slip.kind == Slip.Kind.FILL
    accepted = (
        f"accepted at table {slip.table.code} by {slip.accepted_by}"
        if fill
        else f"received and counted at the cage by {slip.accepted_by}"
    )
    if slip.state == Slip.State.REQUESTED:
        words = "to prepare"
    elif slip.state == Slip.State.ISSUED and not fill:
        words = f"slip issued by {slip.issued_by}; {slip.runner} brings the chips from the table"
    elif slip.state == Slip.State.ISSUED and dealer:
        words = (
            f"issued by {slip.issued_by}; at table {slip.table.code}, "
            f"waiting for the dealer {dealer} to count and accept it"
        )
    elif slip.state == Slip.State.ISSUED:
        words = f"issued by {slip.issued_by}, with {slip.runner} (chips in transit)"
    elif slip.state == Slip.State.DELIVERED:
        words = accepted
    elif slip.state == Slip.State.VOIDED:
        words = f"voided by {slip.voided_by}, approved by {slip.void_approved_by} ({slip.void_reason})"
    elif slip.state == Slip.State.REVERSED:
        words = f"{accepted}, then reversed by {slip.reversed_by}, approved by {slip.reversal_approved_by}"
    else:
        raise ValueError(f"slip {slip.serial} has an unknown state {slip.state!r}")
    return {"words": words, "at": at}


def issues_waiting() -> dict[tuple[str, str], dict]:
    """Slip issues asked and waiting for the runner's signature (``approvals`` act
    ``slip_issue``), by ``(kind, serial)``: ``{"runner", "asked_by", "asked_at"}``."""
    pending = Approval.objects.filter(kind="slip_issue", state=Approval.State.PENDING, expires_at__gt=timezone.now())
    return {
        (a.payload.get("kind"), a.payload.get("serial")): {
            "runner": a.payload.get("runner"),
            "asked_by": a.maker,
            "asked_at": a.requested_at,
        }
        for a in pending.order_by("requested_at")
    }


def _sides(cash: int, chips: int) -> dict:
    return {"cash_cents": cash, "chips_cents": chips, "total_cents": cash + chips}


def window_summary(opened: Event) -> dict:
    """An open window (its ``CageShiftOpened``): number, cashier, since, imprest and drawer now."""
    window = window_of(opened)
    book = window_book(window) if window else {"cash_cents": 0, "chips_cents": 0}
    return {
        "number": window,
        "by": opened.actor,
        "since": opened.occurred_at,
        "opened_event": opened.position,
        "imprest": _sides(opened.data["counted_cash_cents"], opened.data["counted_chips_cents"]),
        "book": _sides(book["cash_cents"], book["chips_cents"]),
    }


# A window's lines as people read them: what it was, and whether a reversal can be asked.
LINE_WORDS = {
    "ChipsPurchased": "Chip sale",
    "ChipsRedeemed": "Chip redemption",
    "ChipsPurchaseReversed": "Chip sale reversed",
    "ChipsRedemptionReversed": "Chip redemption reversed",
    "FillIssued": "Fill issued",
    "CreditDelivered": "Credit received",
    "CageShiftOpened": "Window opened (imprest counted in)",
    "CageShiftClosed": "Window closed (count back to the main bank)",
    "CageWindowReplenished": "Top-up from the main bank",
    "CageWindowReturned": "Returned to the main bank",
    "ForeignCurrencyExchanged": "Foreign exchange",
    "ForeignExchangeReversed": "Foreign exchange reversed (banknotes given back)",
}
# A transfer between the main bank and a window, by its direction (``cage_window_transfer``).
TRANSFER_WORDS = {"in": "Top-up from the main bank", "out": "Return to the main bank"}


def reversal_requests(user: str | None = None) -> dict[int, dict]:
    """Pending reversal approvals by the position of the line they reverse:
    ``{position: {"id", "maker", "reason", "asked_at"}}``."""
    pending = Approval.objects.filter(
        kind="cage_transaction_reverse", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    )
    return {
        a.payload.get("event"): {
            "id": str(a.id),
            "maker": a.maker,
            "reason": a.payload.get("reason", ""),
            "asked_at": a.requested_at,
        }
        for a in pending.order_by("requested_at")
    }


def window_lines(window: str) -> list[dict]:
    """Every movement of window ``window``'s drawer, oldest first: ``{"event", "what", "at", "by",
    "patron", "slip", "table", "cash_cents", "chips_cents", "reversed_by" (an event's words),
    "asked" (a pending reversal), "reversible"}`` (cents: + into the drawer)."""
    legs = (
        Posting.objects.filter(account__in=[accounts.window_cash(window), accounts.window_chips(window)])
        .order_by("event_id", "id")
        .values_list("event_id", "account", "amount_cents")
    )
    sums: dict[int, dict[str, int]] = defaultdict(lambda: {"cash_cents": 0, "chips_cents": 0})
    for position, account, amount in legs:
        sums[position]["cash_cents" if account.endswith(":cash") else "chips_cents"] += amount
    events = Event.objects.in_bulk(list(sums))
    reversals = {
        e.data.get("reverses"): e
        for e in Event.objects.filter(type__in=REVERSALS, data__window=window).only("data", "actor", "occurred_at")
    }
    asked = reversal_requests()
    codes = {e.data.get("patron") for e in events.values() if e.data.get("patron")}
    names = dict(Patron.objects.filter(code__in=codes).values_list("code", "name"))
    lines = []
    for position in sorted(sums):
        event = events[position]
        data = event.data
        reversal = reversals.get(position)
        lines.append(
            {
                "event": position,
                "what": LINE_WORDS.get(event.type) or event_words(event.type),
                "at": event.occurred_at,
                "by": event.actor,
                "patron": data.get("patron", ""),
                "patron_name": names.get(data.get("patron"), ""),
                "unnamed": data.get("patron") == accounts.ANONYMOUS_PATRON,  # the house's shared unrated patron
                "slip": data.get("slip", ""),
                "table": data.get("table", ""),
                "reason": data.get("reason", ""),
                "approved_by": data.get("approved_by", "") if event.type in (*TRANSFERS, *REVERSALS) else "",
                "foreign": _foreign_line(data) if "foreign_cents" in data else None,
                **sums[position],
                "total_cents": sums[position]["cash_cents"] + sums[position]["chips_cents"],
                "reversed": None
                if reversal is None
                else {"at": reversal.occurred_at, "approved_by": reversal.data.get("approved_by")},
                "asked": asked.get(position),
                "reversible": event.type in REVERSIBLE and reversal is None and position not in asked,
            }
        )
    return lines


def _foreign_line(data: dict) -> dict:
    """A foreign exchange's own figures: ``{"cents", "currency", "rate", "paid_in"}`` (hundredths
    of the foreign currency bought)."""
    return {
        "cents": data["foreign_cents"],
        "currency": data["currency"],
        "rate": data["rate"],
        "paid_in": data["paid_in"],
    }


def _foreign_reconciliation(window: str | None, closed: Event | None) -> list[dict]:
    """The foreign banknotes of a window's shift, per currency: ``{"currency", "book_cents",
    "counted_cents", "variance_cents"}`` (hundredths of it): as its close counted them, or the
    drawer now (counted and variance None) while it is open."""
    if closed is not None:
        return [
            {"currency": code, "book_cents": line["expected_cents"]} | line
            for code, line in (closed.data.get("foreign") or {}).items()
        ]
    held = window_foreign_book(window) if window else {}
    return [
        {"currency": code, "book_cents": cents, "counted_cents": None, "variance_cents": None}
        for code, cents in held.items()
        if cents
    ]


def foreign_desk(window: str | None) -> dict:
    """The foreign-exchange side of the cage page: ``{"currencies", "rates": [{"currency",
    "rate" (exact decimal text, or None: none recorded today), "set_by", "at"}], "window":
    [{"currency", "cents"}] (the notes in ``window``'s drawer, currencies held only), "cage":
    [{"currency", "cents"}] (the whole cage's notes)}``; hundredths of each currency."""
    rates = [
        {
            "currency": code,
            "rate": event.data["rate"] if event else None,
            "set_by": event.actor if event else "",
            "at": event.occurred_at if event else None,
        }
        for code, event in rates_of_the_day().items()
    ]
    held = window_foreign_book(window) if window else {}
    return {
        "currencies": foreign_currencies(),
        "rates": rates,
        "window": [{"currency": code, "cents": cents} for code, cents in held.items() if cents],
        "cage": [{"currency": code, "cents": cents} for code, cents in cage_foreign_book().items()],
    }


def transfer_requests(code: str = "main") -> list[dict]:
    """Transfers between the main bank and a window asked and waiting for a cage supervisor
    (``approvals`` act ``cage_window_transfer``), oldest first: ``{"id", "maker", "asked_at",
    "direction", "what", "window", "cash", "chips", "cash_cents", "chips_cents", "total_cents"}``
    (the counts as ``count_lines`` rows; cents)."""
    pending = Approval.objects.filter(
        kind="cage_window_transfer", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    )
    windows = open_windows(code)
    rows = []
    for a in pending.order_by("requested_at"):
        cash = count_lines(a.payload.get("cash") or {}, cash_denominations())
        chips = count_lines(a.payload.get("chips") or {}, chip_denominations())
        cash_cents = sum(line["amount_cents"] for line in cash)
        chips_cents = sum(line["amount_cents"] for line in chips)
        direction = a.payload.get("direction")
        rows.append(
            {
                "id": str(a.id),
                "maker": a.maker,
                "asked_at": a.requested_at,
                "direction": direction,
                "what": TRANSFER_WORDS.get(direction, "Transfer with the main bank"),
                "window": window_of(windows.get(a.maker)),
                "cash": cash,
                "chips": chips,
                "cash_cents": cash_cents,
                "chips_cents": chips_cents,
                "total_cents": cash_cents + chips_cents,
            }
        )
    return rows


# The cage's paper lines in words (``cashier.services.outage.CAGE_TRANSACTIONS``).
PAPER_TRANSACTIONS = {"purchase": "Chip sale", "redemption": "Chip redemption"}


def _aware(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


def paper_forms_waiting() -> list[dict]:
    """The cage's paper forms of the outages not yet marked entered, oldest outage first:
    ``[{"outage", "form", "started_at", "ended_at" (aware, UTC; None while it lasts), "reason",
    "lines" ([{"line", "what", "patron", "amount_cents", "occurred_at", "entered_by",
    "approved_by"}])}]`` (``ledger.outage_forms``: as their sealed events tell them)."""
    waiting = []
    for found in outage_forms.outages():
        for each in found.forms:
            if each["place"] != "cage" or each["form"] in found.entered:
                continue
            lines = [
                {
                    "line": line["line"],
                    "what": PAPER_TRANSACTIONS.get(line.get("transaction"), ""),
                    "patron": line.get("patron", ""),
                    "amount_cents": line.get("amount_cents"),
                    "occurred_at": _aware(line.get("occurred_at")),
                    "entered_by": line.get("entered_by", ""),
                    "approved_by": line.get("approved_by", ""),
                }
                for line in found.lines.get(each["form"], [])
            ]
            waiting.append(
                {
                    "outage": found.id,
                    "form": each["form"],
                    "started_at": found.started_at,
                    "ended_at": found.ended_at,
                    "reason": found.reason,
                    "lines": lines,
                }
            )
    return waiting


def approvals_waiting(user: str) -> list[dict]:
    """What waits at the cage for a cage supervisor's signature, oldest first by kind: reversals
    asked (``"kind": "reversal"``, ``{"id", "maker", "reason", "asked_at", "line"}``, the line:
    what, patron, amount), then transfers between the main bank and a window (``"kind":
    "transfer"``, ``transfer_requests``' rows), then marker voids (``"kind": "marker_void"``,
    ``{"id", "maker", "reason", "asked_at", "serial", "patron", "amount_cents"}``), then patrons'
    PIN resets (``"kind": "pin_reset"``, ``{"id", "maker", "asked_at", "patron"}``), then lines of an
    outage's cage form asked as later entries (``"kind": "paper_line"``, ``{"id", "maker",
    "asked_at", "form", "what", "patron", "amount_cents", "occurred_at"}``); each with
    ``"mine"`` when ``user`` asked it and ``"signable"`` when he is a cage supervisor who may
    sign it (never its maker)."""
    supervisor = has_role(user, Role.CAGE_SUPERVISOR)
    rows = []
    for position, asked in reversal_requests().items():
        event = Event.objects.filter(position=position).first()
        if event is None:
            continue
        rows.append(
            asked
            | {
                "kind": "reversal",
                "line": {
                    "what": LINE_WORDS.get(event.type) or event_words(event.type),
                    "patron": event.data.get("patron", ""),
                    "amount_cents": event.data.get("amount_cents"),
                    "at": event.occurred_at,
                    "window": event.data.get("window"),
                },
                "mine": asked["maker"] == user,
                "signable": supervisor and asked["maker"] != user,
            }
        )
    for asked in transfer_requests():
        rows.append(
            asked
            | {"kind": "transfer", "mine": asked["maker"] == user, "signable": supervisor and asked["maker"] != user}
        )
    for a in Approval.objects.filter(
        kind="cage_shift_open", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    ).order_by("requested_at"):
        counted = sum(
            int(d) * n
            for side in ("cash", "chips")
            for d, n in (a.payload.get(side) or {}).items()
            if str(d).isdigit() and type(n) is int
        )
        handed = handover_waiting(a.maker)
        handed_cents = (
            None if handed is None else handed.data["counted_cash_cents"] + handed.data["counted_chips_cents"]
        )
        rows.append(
            {
                "id": str(a.id),
                "kind": "opening",
                "maker": a.maker,
                "asked_at": a.requested_at,
                "reason": a.payload.get("variance_reason", ""),
                "counted_cents": counted,
                "handed_cents": handed_cents,
                "handed_by": None if handed is None else handed.data.get("opened_by") or handed.actor,
                "variance_cents": None if handed_cents is None else counted - handed_cents,
                "mine": a.maker == user,
                "signable": supervisor and a.maker != user,
            }
        )
    for serial, asked in void_requests().items():
        marker = Marker.objects.filter(serial=serial).select_related("patron").first()
        if marker is None:
            continue
        rows.append(
            asked
            | {
                "kind": "marker_void",
                "serial": serial,
                "patron": marker.patron.code,
                "amount_cents": marker.amount_cents,
                "mine": asked["maker"] == user,
                "signable": supervisor and asked["maker"] != user,
            }
        )
    paper_lines = Approval.objects.filter(
        kind="paper_cage_enter", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    ).order_by("requested_at")
    for a in paper_lines:
        rows.append(
            {
                "id": str(a.id),
                "kind": "paper_line",
                "maker": a.maker,
                "asked_at": a.requested_at,
                "form": a.payload.get("form", ""),
                "what": PAPER_TRANSACTIONS.get(a.payload.get("transaction"), ""),
                "patron": a.payload.get("patron", ""),
                "amount_cents": a.payload.get("amount_cents"),
                "occurred_at": _aware(a.payload.get("occurred_at")),
                "mine": a.maker == user,
                "signable": supervisor and a.maker != user,
            }
        )
    pin_resets = Approval.objects.filter(
        kind="patron_pin_reset", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    ).order_by("requested_at")
    for a in pin_resets:
        rows.append(
            {
                "id": str(a.id),
                "kind": "pin_reset",
                "maker": a.maker,
                "asked_at": a.requested_at,
                "patron": a.payload.get("patron", ""),
                "mine": a.maker == user,
                "signable": supervisor and a.maker != user,
            }
        )
    return rows


def closes_waiting(user: str) -> dict[str, list[dict]]:
    """Window closes waiting for the incoming cashier's signature, or for a cage supervisor's
    verification of a variance over the threshold (``approvals`` act ``cage_shift_close``):
    ``{"mine": [...asked by ``user`` or closing his window], "to_sign": [...waiting for ``user``
    himself, or, a cage supervisor, for any supervisor's verification]}``, each ``{"id",
    "maker", "cashier", "incoming" (None: no handover), "verify", "asked_at", "counted_cents",
    "book_cents" and "variance_cents" (the drawer's book when she counted; None if unknown),
    "reason"}`` (cents; "mine" rows also say ``asked_by_me`` and ``my_window``)."""
    pending = Approval.objects.filter(
        kind="cage_shift_close", state=Approval.State.PENDING, expires_at__gt=timezone.now()
    )
    found: dict[str, list[dict]] = {"mine": [], "to_sign": []}
    supervisor = has_role(user, Role.CAGE_SUPERVISOR)
    for a in pending.order_by("requested_at"):
        payload = a.payload
        incoming = [s.get("user") for s in a.signatures if s.get("slot") == "incoming" and not s.get("by")]
        # A count over the threshold off the book: a cage supervisor verifies it (``approvals.acts``).
        verify = any(s.get("slot") == "approver" and not s.get("by") for s in a.signatures)
        cash = sum(int(d) * n for d, n in (payload.get("cash") or {}).items())
        chips = sum(int(d) * n for d, n in (payload.get("chips") or {}).items())
        row = {
            "id": str(a.id),
            "maker": a.maker,
            "cashier": payload.get("cashier") or a.maker,
            "incoming": incoming[0] if incoming else None,
            "asked_at": a.requested_at,
            "counted_cents": cash + chips,
            "reason": payload.get("variance_reason") or "",
            "verify": verify,
            # The drawer's book when she counted (``approvals.acts._drawer_when_asked``): what
            # the signer checks the count against.
            "book_cents": _book_when_asked(payload),
        }
        row["variance_cents"] = None if row["book_cents"] is None else row["counted_cents"] - row["book_cents"]
        if user in (a.maker, row["cashier"]):
            found["mine"].append(row | {"asked_by_me": a.maker == user, "my_window": row["cashier"] == user})
        elif row["incoming"] == user or (row["incoming"] is None and verify and supervisor):
            found["to_sign"].append(row)
    return found


def _book_when_asked(payload: dict) -> int | None:
    drawer = payload.get("drawer_as_counted")
    if not isinstance(drawer, dict):
        return None
    cash, chips = drawer.get("cash_cents"), drawer.get("chips_cents")
    return cash + chips if type(cash) is int and type(chips) is int else None


def handover_to_open(user: str, code: str = "main") -> dict | None:
    """The window handed over to ``user`` that his opening is counted against, or None:
    ``{"event", "from", "window", "at", "counted_cents"}``."""
    closed = handover_waiting(user, code)
    if closed is None:
        return None
    return {
        "event": closed.position,
        "from": closed.data.get("opened_by") or closed.actor,
        "window": closed.data.get("window"),
        "at": closed.occurred_at,
        "counted_cents": closed.data["counted_cash_cents"] + closed.data["counted_chips_cents"],
    }


# A marker's state in the cage's words.
MARKER_STATES = {
    Marker.State.AT_TABLE: "in the table's drop",
    Marker.State.AT_CAGE: "at the cage",
    Marker.State.PAID: "paid",
    Marker.State.VOIDED: "voided",
}


def void_requests() -> dict[str, dict]:
    """Pending marker voids (``approvals`` act ``marker_void``) by serial:
    ``{serial: {"id", "maker", "reason", "asked_at"}}``."""
    pending = Approval.objects.filter(kind="marker_void", state=Approval.State.PENDING, expires_at__gt=timezone.now())
    return {
        a.payload.get("serial"): {
            "id": str(a.id),
            "maker": a.maker,
            "reason": a.payload.get("reason", ""),
            "asked_at": a.requested_at,
        }
        for a in pending.order_by("requested_at")
    }


def _void_of(m: Marker) -> dict | None:
    if m.state != Marker.State.VOIDED:
        return None
    return {"reason": m.void_reason, "by": m.voided_by, "approved_by": m.void_approved_by, "at": m.voided_at}


def markers_listed(limit: int = 50) -> list[dict]:
    """The markers still owed (in a table's drop or at the cage) and the last voided ones,
    newest first: ``{"serial", "patron", "patron_name", "amount_cents", "outstanding_cents",
    "where" (the table, or None: the cage), "state" (words), "issued_by", "issued_at",
    "void" (None or {"reason", "by", "approved_by", "at"}), "asked" (a void waiting),
    "voidable", "payable" (owed at the cage: a payment is taken there)}``."""
    asked = void_requests()
    owed = Marker.objects.filter(state__in=[Marker.State.AT_TABLE, Marker.State.AT_CAGE])
    voided = Marker.objects.filter(state=Marker.State.VOIDED).order_by("-voided_at")[:10]
    rows = []
    for m in [*owed.select_related("patron").order_by("-year", "-number")[:limit], *voided.select_related("patron")]:
        rows.append(
            {
                "serial": m.serial,
                "patron": m.patron.code,
                "patron_name": m.patron.name,
                "amount_cents": m.amount_cents,
                "outstanding_cents": m.outstanding_cents,
                "where": m.table_code or None,
                "state": MARKER_STATES.get(m.state, m.state),
                "issued_by": m.issued_by,
                "issued_at": m.issued_at,
                "void": {
                    "reason": m.void_reason,
                    "by": m.voided_by,
                    "approved_by": m.void_approved_by,
                    "at": m.voided_at,
                }
                if m.state == Marker.State.VOIDED
                else None,
                "asked": asked.get(m.serial),
                "voidable": m.state != Marker.State.VOIDED and not m.paid_cents and m.serial not in asked,
                "payable": m.state == Marker.State.AT_CAGE and m.serial not in asked,
            }
        )
    return rows


def cage_desk(user: str, code: str = "main", query: str | None = None) -> dict:
    """Everything the cage's main screen shows ``user``: his window (or the form to open one),
    its running drawer and lines, the other windows open, the cage's book (main bank + windows),
    the slip queue, reversals waiting, a patron search's results, recent window reports."""
    windows = open_windows(code)
    mine = windows.get(user)
    window = window_of(mine)
    queue = list(
        Slip.objects.filter(state__in=[Slip.State.REQUESTED, Slip.State.ISSUED])
        .select_related("table")
        .order_by("created_at", "id")
    )
    # The slips done this gaming day stay listed below, with their last step and its time: the
    # cashier sees a fill accepted at its table or a credit counted in, not a slip that vanished.
    last_steps = {
        e.stream: e.occurred_at
        for e in Event.objects.filter(
            gaming_day=current_gaming_day(),
            type__in=[f"{prefix}{step}" for prefix in EVENT_PREFIX.values() for step in LAST_STEP.values()],
        )
        .order_by("position")  # a slip delivered and reversed: its reversal is its last step
        .only("stream", "occurred_at")
    }
    done = [
        s
        for s in Slip.objects.filter(serial__in=[stream.rsplit("/", 1)[-1] for stream in last_steps])
        .filter(state__in=list(LAST_STEP))
        .select_related("table")
        .order_by("created_at", "id")
        if s.stream in last_steps
    ]
    waiting = issues_waiting()
    counting = acceptances_waiting()
    closes = closes_waiting(user)
    bank = main_bank()
    book = {"cash_cents": store.balance(accounts.CAGE_CASH), "chips_cents": store.balance(accounts.CAGE_CHIPS)}
    return {
        "window": None if mine is None else window_summary(mine),
        "lines": window_lines(window) if window else [],
        "windows": [window_summary(e) for a, e in windows.items() if a != user],
        "supervises": has_role(user, Role.CAGE_SUPERVISOR),
        "book": book | {"total_cents": book["cash_cents"] + book["chips_cents"]},
        "main_bank": bank | {"total_cents": bank["cash_cents"] + bank["chips_cents"]},
        "in_transit_cents": store.balance(accounts.CHIPS_IN_TRANSIT),
        "queue": [
            {
                "kind": s.kind,
                "serial": s.serial,
                "table": s.table.code,
                "state": s.state,
                "amount_cents": s.amount_cents,
                "denominations": count_lines(s.denominations, chip_denominations()),
                "requested_by": s.requested_by,
                "issued_by": s.issued_by,
                "runner": s.runner,
                "requested_at": s.created_at,
                "waiting": waiting.get((s.kind, s.serial)) if s.state == Slip.State.REQUESTED else None,
                "progress": slip_progress(s, at=last_steps.get(s.stream), dealer=counting.get((s.kind, s.serial))),
                "done": s.state in LAST_STEP,
            }
            for s in queue + done
        ],
        "approvals": approvals_waiting(user),
        "paper_forms": paper_forms_waiting(),
        "markers": markers_listed(),
        "closes": closes,
        # Her window's closing waits for a signature: nothing crosses her counter meanwhile
        # (``cage_shifts.require_open_shift``), so the page offers no serving form.
        "counted_out": any(c["my_window"] for c in closes["mine"]),
        # A closing count off the drawer by more than this waits for a cage supervisor's verification.
        "variance_threshold_cents": settings.CASINO_VARIANCE_THRESHOLD_CENTS,
        "handover": None if mine is not None else handover_to_open(user, code),
        # Her opening asked and waiting for a cage supervisor to verify its count.
        "opening_asked": None
        if mine is not None
        else Approval.objects.filter(
            kind="cage_shift_open", maker=user, state=Approval.State.PENDING, expires_at__gt=timezone.now()
        )
        .values("id", "requested_at")
        .first(),
        "query": (query or "").strip(),
        "found": None
        if query is None
        else [
            {
                "code": p.code,
                "name": p.name,
                "document": p.document,
                "chips_cents": patron_chips_cents(p.code),
                "credit": credit_standing(p.code),
                "self_limit": self_limit_get(p.code),
            }
            for p in patron_search(query)
        ],
        "runners": users_with(Role.RUNNER),
        "successors": [u for u in users_with(Role.CASHIER, Role.CAGE_SUPERVISOR) if u != user],
        "cash_denominations": sorted(cash_denominations(), reverse=True),
        "chip_denominations": sorted(chip_denominations(), reverse=True),
        "shifts": recent_shifts(code),
        "fx": foreign_desk(window),
    }


def recent_shifts(code: str = "main", limit: int = 10) -> list[dict]:
    """The last ``limit`` shifts, newest first: ``{"event", "by", "opened_at", "closed_at"}``."""
    events = list(Event.objects.filter(stream=shift_stream(code)).order_by("-position")[: limit * 2])
    closes = {e.data.get("opened_event"): e for e in events if e.type == "CageShiftClosed"}
    return [
        {
            "event": e.position,
            "by": e.actor,
            "opened_at": e.occurred_at,
            "closed_at": closes[e.position].occurred_at if e.position in closes else None,
        }
        for e in events
        if e.type == "CageShiftOpened"
    ][:limit]


def shift_report(opened_event: int, code: str = "main") -> dict:
    """The reconciliation of one cashier window (cents): imprest + movements = closing drawer,
    counted against the drawer, the variance and its reason.

    ``opening_book``: the imprest counted in (a shift of the single-shift cage of old: the
    cage's book when it opened); ``movements``: the postings on the window's drawer
    (``cage:window:<n>:cash`` / ``:chips``; of old ``cage:cash`` and ``cage:chips``) after the
    opening up to the closing (or now, while open), by kind; ``closing_book`` = opening book +
    movements (``book_agrees``: it equals the drawer the closing read, or the drawer now while
    open). Raises ``NotFound`` for an unknown window."""
    opened = Event.objects.filter(stream=shift_stream(code), type="CageShiftOpened", position=opened_event).first()
    if opened is None:
        raise NotFound(f"no cashier shift opened at event {opened_event}", field="shift")
    closed = Event.objects.filter(
        stream=shift_stream(code), type="CageShiftClosed", data__opened_event=opened.position
    ).first()
    window = window_of(opened)
    cash_account, chips_account = (
        (accounts.window_cash(window), accounts.window_chips(window))
        if window
        else (accounts.CAGE_CASH, accounts.CAGE_CHIPS)
    )
    postings = Posting.objects.filter(account__in=[cash_account, chips_account], event__position__gt=opened.position)
    if closed is not None:
        postings = postings.filter(event__position__lt=closed.position)
    by_kind: dict[str, dict[str, int]] = defaultdict(lambda: {"cash_cents": 0, "chips_cents": 0})
    for row in postings.values("event__type", "account").annotate(total=Sum("amount_cents")):
        side = "cash_cents" if row["account"] == cash_account else "chips_cents"
        by_kind[row["event__type"]][side] += row["total"]
    movements = [
        {"kind": movement_name(kind), **sides, "total_cents": sides["cash_cents"] + sides["chips_cents"]}
        for kind, sides in sorted(by_kind.items(), key=lambda item: movement_name(item[0]))
    ]
    open_data = opened.data
    opening = {"cash_cents": open_data["expected_cash_cents"], "chips_cents": open_data["expected_chips_cents"]}
    moved = {side: sum(m[side] for m in movements) for side in ("cash_cents", "chips_cents")}
    closing = {side: opening[side] + moved[side] for side in opening}
    if closed is not None:
        read = {"cash_cents": closed.data["expected_cash_cents"], "chips_cents": closed.data["expected_chips_cents"]}
        counted = {"cash_cents": closed.data["counted_cash_cents"], "chips_cents": closed.data["counted_chips_cents"]}
    else:
        read = {"cash_cents": store.balance(cash_account), "chips_cents": store.balance(chips_account)}
        counted = None
    return {
        "window": window,
        "opened": {
            "event": opened.position,
            "by": opened.actor,
            "at": opened.occurred_at,
            "gaming_day": opened.gaming_day,
            "counted_cents": open_data["counted_cash_cents"] + open_data["counted_chips_cents"],
            "variance_cents": open_data["variance_cents"],
            "handover_variance_cents": open_data.get("handover_variance_cents"),
            "handover_event": open_data.get("handover_event"),
            "handover_from": open_data.get("handover_from"),
            "handover_counted_cents": open_data.get("handover_counted_cents"),
            "reason": open_data.get("variance_reason", ""),
            "cash": count_lines(open_data["cash"], cash_denominations()),
            "chips": count_lines(open_data["chips"], chip_denominations()),
        },
        "closed": None
        if closed is None
        else {
            "event": closed.position,
            "by": closed.actor,
            "at": closed.occurred_at,
            "handover_to": closed.data.get("handover_to"),
            "by_supervisor": bool(closed.data.get("closed_by_supervisor")),
            "reason": closed.data.get("variance_reason", ""),
            "cash": count_lines(closed.data["cash"], cash_denominations()),
            "chips": count_lines(closed.data["chips"], chip_denominations()),
        },
        "opening_book": opening | {"total_cents": sum(opening.values())},
        # SHIFTS.md: opening + in − out = closing, per denomination: the imprest counted in and
        # the closing count, piece by piece (the lines between them move amounts, not pieces).
        "by_denomination": [
            {
                "side": side,
                "rows": counts_compared(open_data[key], None if closed is None else closed.data[key], denominations),
            }
            for side, key, denominations in (
                ("Cash", "cash", cash_denominations()),
                ("Value chips", "chips", chip_denominations()),
            )
        ],
        "movements": movements,
        # The lines behind the movements: each transaction of this window between its opening and its closing.
        "lines": [
            line
            for line in (window_lines(window) if window else [])
            if opened.position < line["event"] and (closed is None or line["event"] < closed.position)
        ],
        "moved": moved | {"total_cents": sum(moved.values())},
        "closing_book": closing | {"total_cents": sum(closing.values())},
        "book_agrees": closing == read,
        "foreign": _foreign_reconciliation(window, closed),
        "counted": None if counted is None else counted | {"total_cents": sum(counted.values())},
        "variance": None
        if counted is None
        else {side: counted[side] - closing[side] for side in closing}
        | {"total_cents": sum(counted.values()) - sum(closing.values())},
    }
