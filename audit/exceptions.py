"""The exception log of a gaming day (25 CFR 543.16(c)(3)(vii)): one list of every
parameter change, correction, override, void, reversal, refused bet, AML flag, role or account
change and variance over its threshold (an opener off the last closer at any amount: each is
explained in writing), with who, when, before and after.

A read-side selector: nothing here is recorded anew. The entries come from what the system
already keeps — the ledger's events (by type, below), the refused bets (``games.BetRefusal``,
which the ledger never gets), the variance list (``cashier.reports.variance_report``, at
``CASINO_VARIANCE_THRESHOLD_CENTS``) and the structuring flags (``patrons.structuring``, read
from the ledger's cash exchanges).

An entry (``exception_log(...)["rows"]``)::

    {"kind", "label", "type", "at" (aware UTC datetime), "gaming_day" (date), "table" (code or
     None), "person" (who acted: user, device or "system"), "approver" (second signer, verifier
     or None), "subject" (what it is about, in words), "subject_person" (the staff user or
     patron code it concerns, or None), "what" (one line in words), "before", "after" (JSON
     objects or None; roles by their labels, ``{"roles": ["Cage supervisor"]}``), "amount_cents"
     (int or None), "event" (ledger position or None), "source" ("ledger", "bet_refusals",
     "variance_list", "aml_structuring", "game_protection", "coups": a coup left in play)}

Oldest first (then by ledger position). Amounts are integer cents of ``CASINO_CURRENCY``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from django.utils import timezone

from approvals.models import Approval
from basis.errors import refusal_line
from basis.money import format_cents
from cashier.reports import variance_report, variance_threshold_cents
from games.models import BetRefusal, Round
from games.protection import day_fluctuations
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from patrons.services.aml import DECISION_EVENTS
from patrons.structuring import FLAG_TYPE, structuring_flags
from staff.roles import Role

# Acts that go through a second signature because they pass a limit (a large opener, a large
# fill): the signature is the supervisor's override. The other acts' approvals (reversals, voids,
# counts, carrying a slip) are dual custody, and the act itself is listed under its own kind.
OVERRIDE_ACTS = ("table_open", "table_open_counted", "table_rules_change", "slip_request")
# The signature slots that pass a limit; a counted opener's dealer and pit boss sign its count
# (dual custody), its ``approver`` a large opener, its ``edge_approver`` a rule set without edge.
OVERRIDE_SLOTS = ("approver", "edge_approver")

# kind → (label, the ledger event types that make one).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "parameter_change": ("parameter changes", ("TableRulesChanged", "SelfLimitSet", "CreditLineApproved")),
    "correction": ("corrections", ("RoundReversed", "DropCountReversed")),
    "override": ("supervisor overrides", ("ApprovalSigned", "ApprovalConfirmed", "ApprovalRejected")),
    "void": ("voids", ("RoundVoided", "FillVoided", "CreditVoided")),
    "reversal": ("reversals", ("FillReversed", "CreditReversed", "ChipsPurchaseReversed", "ChipsRedemptionReversed")),
    "refused_bet": ("refused bets", ()),
    "aml_flag": ("AML flags", (*DECISION_EVENTS, FLAG_TYPE)),
    "role_change": (
        "role and account changes",
        (
            "StaffRolesChanged",
            "StaffUserChanged",
            "StaffLeft",
            "StaffPasswordReset",
            "StaffPasswordSet",
            "StaffProfileChanged",
        ),
    ),
    "variance": ("variances over the threshold", ("DropRecountVariance",)),
    # A patron's PIN locked by wrong PINs in a row (someone may be trying his PIN), and cleared.
    "patron_pin": ("patron PIN locks and resets", ("PatronPinLocked", "PatronPinReset")),
    # A table's or a patron's day beyond the house's confidence (``games.protection``, read
    # from its bets) and its investigation opened, noted and closed
    # (``games.services.investigations``).
    "fluctuation": (
        "game protection investigations",
        ("FluctuationInvestigationOpened", "FluctuationInvestigationNoted", "FluctuationInvestigationClosed"),
    ),
    # A coup still in play long after it opened (read from the coups, not from an event).
    "stale_coup": ("coups left in play", ()),
}
# A coup is played in minutes. One in play longer than this waits to be voided or settled; its
# face-down cards are withheld from the auditor's database role only so long after they were
# dealt (casino_guard.ledger_withheld_from in deploy/postgres_roles.sql: 12 hours).
STALE_COUP = timedelta(hours=12)
COLUMNS = [
    "at",
    "gaming_day",
    "kind",
    "type",
    "table",
    "person",
    "approver",
    "subject",
    "what",
    "before",
    "after",
    "amount_cents",
    "event",
    "source",
]

AML_WORDS = {
    "AmlIdentityChecked": "identity checked",
    "AmlTransactionLogged": "cash transaction logged",
    "AmlAggregateFlagged": "cash total over the reporting threshold",
    "AmlTransactionRefused": "transaction refused: no identity on file",
}
NOUNS = {
    "Round": "coup",
    "Fill": "fill",
    "Credit": "credit",
    "DropCount": "drop count",
    "ChipsPurchase": "chip sale",
    "ChipsRedemption": "chip redemption",
}
# The state a reversing event takes its subject from.
STATE_BEFORE = {
    "RoundReversed": "settled",
    "DropCountReversed": "counted",
    "FillReversed": "delivered",
    "CreditReversed": "delivered",
    "ChipsPurchaseReversed": "recorded",
    "ChipsRedemptionReversed": "recorded",
}
BOOK = ("expected_", "book_")
COUNT = ("counted_", "opener_", "closer_")


def exception_log(day: date, *, kind: str | None = None, table: str | None = None, person: str | None = None) -> dict:
    """The exceptions of gaming ``day``: ``{"gaming_day", "threshold_cents", "columns", "rows"}``.

    ``kind`` one of ``KINDS`` (None: all); ``table`` a table code; ``person`` a username or
    patron code, matched against who acted, who signed second and whom it concerns. The caller
    checks ``kind`` (``KINDS``); an unknown table or person simply matches nothing.
    """
    wanted = [kind] if kind else list(KINDS)
    rows: list[dict] = []
    types = {t: k for k in wanted for t in KINDS[k][1] if t != FLAG_TYPE}
    if types:
        for event in Event.objects.filter(gaming_day=day, type__in=list(types)).order_by("position"):
            entry = _from_event(event, types[event.type])
            if entry is not None:
                rows.append(entry)
    if "refused_bet" in wanted:
        rows += _refused_bets(day)
    if "variance" in wanted:
        rows += _variances(day)
    if "aml_flag" in wanted:
        rows += _structuring(day)
    if "fluctuation" in wanted:
        rows += _fluctuations(day)
    if "stale_coup" in wanted:
        rows += _stale_coups(day)
    if table:
        rows = [r for r in rows if r["table"] == table]
    if person:
        rows = [r for r in rows if person in (r["person"], r["approver"], r["subject_person"])]
    rows.sort(key=lambda r: (r["at"], r["event"] or 0))
    return {"gaming_day": day, "threshold_cents": variance_threshold_cents(), "columns": COLUMNS, "rows": rows}


def _entry(kind: str, event: Event | None = None, /, **fields) -> dict:
    """An entry of ``kind`` from ``event`` (its envelope), ``fields`` overriding (an entry
    read from elsewhere names its own ``event`` position, ``at``, ``person``...)."""
    base = {
        "kind": kind,
        "label": KINDS[kind][0],
        "type": event.type if event else "",
        "at": event.occurred_at if event else None,
        "gaming_day": event.gaming_day if event else None,
        "table": None,
        "person": event.actor if event else "",
        "approver": None,
        "subject": "",
        "subject_person": None,
        "what": "",
        "before": None,
        "after": None,
        "amount_cents": None,
        "event": event.position if event else None,
        "source": "ledger",
    }
    return base | fields


def _table_of(event: Event) -> str | None:
    table = event.data.get("table")
    return table if isinstance(table, str) and table else None


def _parameter(event: Event, kind: str) -> dict:
    data = event.data
    if event.type == "TableRulesChanged":
        changed = data.get("changed") or []
        before = {k: data["before"].get(k) for k in changed}
        after = {k: data["after"].get(k) for k in changed}
        return _entry(
            kind,
            event,
            table=data["table"],
            subject=f"table {data['table']}",
            what=f"table {data['table']}: rules changed ({', '.join(_words(k) for k in changed)})",
            before=before,
            after=after,
        )
    if event.type == "CreditLineApproved":
        return _entry(
            kind,
            event,
            subject=f"patron {data['patron']}",
            subject_person=data["patron"],
            what=f"patron {data['patron']}: credit line set to {format_cents(data['after'])}",
            before={"credit_line_cents": data["before"]} if data.get("before") is not None else None,
            after={"credit_line_cents": data["after"]},
            amount_cents=data["after"],
        )
    previous = (
        Event.objects.filter(stream=event.stream, type=event.type, position__lt=event.position)
        .order_by("-position")
        .values_list("data__max_bet_cents", flat=True)
        .first()
    )
    return _entry(
        kind,
        event,
        subject=f"patron {data['patron']}",
        subject_person=data["patron"],
        what=f"patron {data['patron']}: self-limit set",
        before={"max_bet_cents": previous} if previous is not None else None,
        after={"max_bet_cents": data["max_bet_cents"]},
        amount_cents=data["max_bet_cents"],
    )


def _storno(event: Event, kind: str) -> dict:
    """A void, a reversal or a correction (a coup or a count taken back by a reversing event)."""
    data = event.data
    verb = "voided" if event.type.endswith("Voided") else "reversed"
    noun = NOUNS.get(event.type.removesuffix("Voided").removesuffix("Reversed"), event.type)
    patron = None
    if noun in ("fill", "credit"):
        subject = f"{noun} {data.get('slip', '')}"
    elif noun in ("chip sale", "chip redemption"):  # a cashier's line, reversed with a supervisor's approval
        patron = data.get("patron") or None
        window = data.get("window")
        subject = f"{noun}, patron {patron}" + (f", window {window}" if window else "")
    elif noun == "coup":
        number = data.get("number") or Round.objects.filter(pk=data["round"]).values_list("number", flat=True).first()
        subject = f"coup {number} at {data['table']}" if number else f"coup at {data['table']}"
    else:
        subject = f"drop count of {data['table']} for {data.get('gaming_day', event.gaming_day)}"
    before = {"state": STATE_BEFORE[event.type]} if event.type in STATE_BEFORE else None
    if before is not None and "reverses" in data:
        before["events"] = data["reverses"] if isinstance(data["reverses"], list) else [data["reverses"]]
    reason = data.get("reason")
    return _entry(
        kind,
        event,
        table=_table_of(event),
        approver=data.get("approved_by") or None,
        subject=subject,
        subject_person=patron,
        what=f"{subject} {verb}" + (f": {reason}" if reason else ""),
        before=before,
        after={"state": verb},
        amount_cents=data.get("amount_cents"),
    )


def _override(event: Event, kind: str) -> dict | None:
    data = event.data
    if data.get("kind") not in OVERRIDE_ACTS:
        return None
    confirmed = event.type != "ApprovalRejected"
    if confirmed and data.get("slot") not in OVERRIDE_SLOTS:
        return None  # a count signed by those who count it is no override
    if not confirmed and data["kind"] == "table_open_counted":
        return None  # refused by whom, in which slot, the event does not say: listed under its approval
    what = {
        "table_open": "a table opening (a large opener, or a rule set without a house edge)",
        "table_open_counted": "a table opening with "
        + ("a rule set without a house edge" if data.get("slot") == "edge_approver" else "a large opener"),
        "table_rules_change": "a rules change to a rule set without a house edge",
        "slip_request": "a large fill",
    }[data["kind"]]
    reason = data.get("reason")
    maker = Approval.objects.filter(id=data.get("approval")).values_list("maker", flat=True).first()
    return _entry(
        kind,
        event,
        table=_table_of(event),
        person=maker or event.actor,
        approver=data.get("by"),
        subject=f"approval {data.get('approval', '')}",
        what=f"{data.get('by')} {'signed' if confirmed else 'refused'} {what}" + (f": {reason}" if reason else ""),
        before={"state": "pending"},
        after={"state": "confirmed" if confirmed else "rejected"},
    )


def _aml(event: Event, kind: str) -> dict:
    data = event.data
    total = data.get("visit_total_cents", data.get("day_total_cents"))
    span = "visit" if data.get("basis") == "visit" else "day"
    what = f"patron {data.get('patron')}, {AML_WORDS[event.type]}, cash {data.get('direction', '')}"
    if isinstance(data.get("amount_cents"), int):
        what += f" {format_cents(data['amount_cents'])}"
    if total is not None:
        what += f" ({span}'s total {format_cents(total)})"
    return _entry(
        kind,
        event,
        table=_table_of(event),
        subject=f"patron {data.get('patron')}",
        subject_person=data.get("patron"),
        what=what,
        after={k: data[k] for k in ("threshold_cents", "day_total_cents", "visit_total_cents") if k in data} or None,
        amount_cents=data.get("amount_cents"),
    )


PROFILE_WORDS = {"first_name": "first name", "last_name": "last name", "email": "e-mail"}


def _profile_words(fields: list[str]) -> str:
    return ", ".join(PROFILE_WORDS.get(name, name) for name in fields) or "nothing"


def _role(event: Event, kind: str) -> dict:
    data = event.data
    user = data.get("user")
    if event.type == "StaffLeft":
        what = f"{user} left: account deactivated" + (f" ({data['reason']})" if data.get("reason") else "")
    elif event.type == "StaffRolesChanged":
        what = f"roles of {user}: {_roles(data['before'])} → {_roles(data['after'])}"
    elif event.type == "StaffPasswordReset":
        what = f"password of {user} reset: he chooses a new one at his next login"
    elif event.type == "StaffPasswordSet":
        what = f"password of {user} set at the console"
    elif event.type == "StaffProfileChanged":
        what = f"{_profile_words(data.get('changed') or [])} of {user} changed"
    else:
        what = f"account {user} " + ("created" if data.get("before") is None else "changed")
    before, after = data.get("before"), data.get("after")
    if event.type == "StaffRolesChanged":
        # In words, as "what" says them: ``{"roles": ["Cage supervisor"]}``, not the codes
        # (the event, at its position, keeps those).
        before, after = {"roles": _role_labels(before)}, {"roles": _role_labels(after)}
    return _entry(
        kind,
        event,
        approver=data.get("approver"),  # the second admin who signed (staff.accounts)
        subject=f"user {user}",
        subject_person=user,
        what=what,
        before=before,
        after=after,
    )


def _recount(event: Event, kind: str) -> dict:
    data = event.data
    return _entry(
        kind,
        event,
        table=data["table"],
        approver=data.get("verifier"),
        subject=f"drop box of {data['table']}",
        what=f"drop recount of {data['table']} differs from the count",
        before={"counted_cents": data["first_counted_cents"]},
        after={"recounted_cents": data["recounted_cents"]},
        amount_cents=data["difference_cents"],
    )


def _role_labels(codes: object) -> list[str]:
    """Role codes → their labels (``cage_supervisor`` → ``Cage supervisor``); a code no role
    has any more as it is."""
    if not isinstance(codes, list):
        return [] if codes is None else [str(codes)]
    return [Role(code).label if code in Role.values else str(code) for code in codes]


def _roles(codes: list[str]) -> str:
    return ", ".join(_role_labels(codes)) or "none"


def _words(key: str) -> str:
    """A rule's key in words: ``max_bet_cents`` → ``max bet``."""
    return key.removesuffix("_cents").replace("_", " ")


def _patron_pin(event: Event, kind: str) -> dict:
    patron = event.data.get("patron")
    if event.type == "PatronPinLocked":
        what = (
            f"PIN of patron {patron} locked after {event.data.get('wrong_in_a_row')} wrong PINs in a row: "
            "someone may be trying it; the cage resets it, a cage supervisor confirming"
        )
    else:
        what = f"PIN of patron {patron} reset: he chooses a new one, his identity document shown"
    return _entry(kind, event, approver=event.data.get("approved_by"), subject=f"patron {patron}", what=what)


def _investigation(event: Event, kind: str) -> dict:
    """An investigation of a fluctuation: opened (with its z), noted, closed. The subject is
    read from the opening event, the notes and the close carrying only their text."""
    data = event.data
    opened = data if event.type.endswith("Opened") else _opening(event.stream)
    subject = opened.get("subject", "table")
    code = opened.get(subject, "")
    day = opened.get("gaming_day", "")
    about = f"{subject} {code}, gaming day {day}"
    figures = opened.get("figures") or {}
    if event.type.endswith("Opened"):
        by = "the house's alarm" if data.get("automatic") else event.actor
        z = f", {figures['z']} standard deviations from theory" if figures.get("z") else ""
        what = f"investigation opened of {about} by {by}{z}: {data.get('reason', '')}"
        after = {"state": "open"}
    elif event.type.endswith("Noted"):
        what = f"investigation of {about}: {event.actor} looked: {data.get('note', '')}"
        after = None
    else:
        what = f"investigation of {about} closed by {event.actor}: {data.get('finding', '')}"
        after = {"state": "closed"}
    return _entry(
        kind,
        event,
        table=opened.get("table"),
        approver=event.actor if event.type.endswith("Closed") else None,
        subject=about,
        subject_person=opened.get("patron"),
        what=what,
        after=after,
        amount_cents=figures.get("win_cents") if event.type.endswith("Opened") else None,
    )


def _opening(stream: str) -> dict:
    data = Event.objects.filter(stream=stream, version=1).values_list("data", flat=True).first()
    return data if isinstance(data, dict) else {}


BUILDERS: dict[str, Callable[[Event, str], dict | None]] = {
    "parameter_change": _parameter,
    "correction": _storno,
    "void": _storno,
    "reversal": _storno,
    "override": _override,
    "aml_flag": _aml,
    "role_change": _role,
    "variance": _recount,
    "patron_pin": _patron_pin,
    "fluctuation": _investigation,
}


def _from_event(event: Event, kind: str) -> dict | None:
    return BUILDERS[kind](event, kind)


def _fluctuations(day: date) -> list[dict]:
    """Each table and patron of ``day`` beyond the house's confidence (``games.protection``), as
    of its last bet decided, whether or not its investigation is open yet."""
    figures = day_fluctuations(day)
    rows = []
    for row in figures["tables"] + figures["patrons"]:
        if not row["alarm"]:
            continue
        subject = "table" if "table" in row else "patron"
        code = row[subject]
        rows.append(
            _entry(
                "fluctuation",
                type="FluctuationAlarm",
                at=row["last_at"],
                gaming_day=day,
                table=code if subject == "table" else (row["tables"][0] if len(row["tables"]) == 1 else None),
                person="system",
                subject=f"{subject} {code}",
                subject_person=code if subject == "patron" else None,
                what=(
                    f"{subject} {code}: house win {format_cents(row['win_cents'])} against "
                    f"{format_cents(round(row['theoretical_win']))} in theory over {row['bets']} bets, "
                    f"{row['z']:.2f} standard deviations, beyond ±{float(figures['z_limit']):g}"
                ),
                amount_cents=row["win_cents"],
                source="game_protection",
            )
        )
    return rows


def _stale_coups(day: date) -> list[dict]:
    """Each coup opened on ``day`` and still in play ``STALE_COUP`` after it opened, at its
    opening event."""
    old = Round.objects.filter(state__in=Round.IN_PLAY, opened_at__lte=timezone.now() - STALE_COUP)
    coups = {f"round/{r.id}": r for r in old.select_related("table")}
    rows = []
    for event in Event.objects.filter(stream__in=list(coups), type="RoundOpened", gaming_day=day).order_by("position"):
        coup = coups[event.stream]
        rows.append(
            _entry(
                "stale_coup",
                event,
                type="CoupLeftInPlay",
                table=coup.table.code,
                person="system",
                subject=f"table {coup.table.code}, coup {coup.number}",
                what=(
                    f"table {coup.table.code}, coup {coup.number}: opened by {event.actor} and still in play more than "
                    f"{STALE_COUP.total_seconds() / 3600:g} hours later: settle it or void it (two signatures); its "
                    "face-down cards are no longer withheld from the auditor's database role"
                ),
                after={"state": coup.state},
                source="coups",
            )
        )
    return rows


def _refused_bets(day: date) -> list[dict]:
    # A gaming day spans two calendar dates (it starts at GAMING_DAY_START, local time); the
    # row keeps its own gaming day.
    rows = []
    for refusal in BetRefusal.objects.filter(gaming_day=day).order_by("created_at", "id"):
        rows.append(
            _entry(
                "refused_bet",
                type="BetRefused",
                at=refusal.created_at,
                gaming_day=refusal.gaming_day,
                table=refusal.table_code,
                person=refusal.actor,
                subject=f"patron {refusal.patron_code}" if refusal.patron_code else f"table {refusal.table_code}",
                subject_person=refusal.patron_code or None,
                what=f"table {refusal.table_code}, {refusal_line(refusal.get_kind_display(), refusal.message)}",
                after={"refused": refusal.get_kind_display()},
                amount_cents=refusal.stake_cents,
                source="bet_refusals",
            )
        )
    return rows


def _variances(day: date) -> list[dict]:
    rows = []
    for row in variance_report(day, variance_threshold_cents())["rows"]:
        # Every opener off the last closer is explained in writing when the table opens
        # (SHIFTS.md: reported at once), so each one is listed, under the threshold too.
        if not row["investigate"] and row["kind"] != "opener":
            continue
        event = Event.objects.get(position=row["event"])
        data = event.data
        # The book (what was expected) against the count, as each counting event names them.
        before = {k: v for k, v in data.items() if k.startswith(BOOK) and k.endswith("_cents")} or None
        after = {k: v for k, v in data.items() if k.startswith(COUNT) and k.endswith("_cents")} or None
        if data.get("variance_reason"):
            after = {**(after or {}), "variance_reason": data["variance_reason"]}
        words = row["kind"].replace("_", " ")
        rows.append(
            _entry(
                "variance",
                event,
                table=_table_of(event),
                subject=f"{words} of {row['subject']}",
                what=f"{words} of {row['subject']}: variance {format_cents(row['variance_cents'])}"
                + (
                    f" (“{data['variance_reason']}”)" if row["kind"] == "opener" and data.get("variance_reason") else ""
                ),
                before=before,
                after=after,
                amount_cents=row["variance_cents"],
                source="variance_list",
            )
        )
    return rows


def _structuring(day: date) -> list[dict]:
    rows = []
    for flag in structuring_flags(day):
        count = len(flag["units"])
        unit = "visits" if flag["basis"] == "visit" else "gaming days"
        rows.append(
            _entry(
                "aml_flag",
                type=FLAG_TYPE,
                at=flag["at"],
                gaming_day=day,
                person="system",
                subject=f"patron {flag['patron']}",
                subject_person=flag["patron"],
                what=(
                    f"patron {flag['patron']}, suspected structuring: {count} {unit} in {flag['window_days']} days "
                    f"each between {flag['floor_percent']} % and 100 % of the identity threshold "
                    f"({format_cents(flag['threshold_cents'])}), cash {flag['direction']}"
                ),
                after={"units": flag["units"], "threshold_cents": flag["threshold_cents"]},
                amount_cents=flag["amount_cents"],
                event=flag["position"],
                source="aml_structuring",
            )
        )
    return rows


def default_day() -> date:
    """The current gaming day (the log's default)."""
    return current_gaming_day()
