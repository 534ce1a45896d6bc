"""Suspicion cases: the compliance officer's follow-up of an AML flag, step by step.

A case is opened from an AML flag (an AML decision on the ledger, ``patrons.services.aml``) or
by hand for a patron; the officer attaches the patron's cash transactions, writes findings,
decides to file or not (with the reason), and records the filing with its reference. Each step
is one event on stream ``suspicion/<case>`` (``CASE_EVENTS``) whose data are the case's reference
and a keyed digest of what the step says; the words are a ``CaseRecord`` (``compliance.models``
says why the ledger must not hold them).

Deadline: a SAR-C is filed within 30 calendar days of the initial detection of the facts
(31 CFR 1021.320(b)(3)): ``COMPLIANCE_SAR_C_DAYS``. A TRACFIN déclaration de soupçon is owed
"without delay" (CMF L561-15 and L561-16 set no day count): ``COMPLIANCE_TRACFIN_DAYS`` is the
casino's own target. Which one a case owes follows ``AML_JURISDICTION`` (``US``: SAR-C, else
TRACFIN).

Every step takes an ``idempotency_key``: a retry with the same key appends nothing and returns
the first answer (``ledger.commands``). Steps run in order: ``open`` → (attach, findings)* →
``decide`` (file / no file) → with "file", ``record filing``. Out of order is ``StateConflict``
(409); bad input ``InvalidInput`` (400, naming the field); anyone without the compliance role
``RoleRequired`` (403); an unknown case ``NotFound`` (404). Who did each step is the event's
actor; the decider may be the opener (neither DESIGN.md nor SHIFTS.md asks for a second officer).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from ledger.commands import Command, ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import NewEvent, stream_version
from patrons.selectors import patron_get
from patrons.services.aml import DECISION_EVENTS
from patrons.structuring import FLAG_TYPE, structuring_flags
from patrons.visits import CASH_EVENTS
from staff.roles import Role, require_role

from .models import CaseRecord
from .selectors import case_json, suspicion_case
from .steps import ATTACHED, DECIDED, FILED, FINDINGS, OPENED, STREAM_PREFIX, content_digest

FILING_KINDS = {"SAR-C": "SAR-C (FinCEN, casino)", "TRACFIN": "TRACFIN déclaration de soupçon"}
DECISIONS = {"file": "file a report", "no_file": "no report"}
MAX_TEXT = 5000
MAX_ATTACH = 50


def filing_kind_owed() -> tuple[str, int]:
    """``(kind, days)``: the report this casino's jurisdiction owes and the days allowed."""
    if settings.AML_JURISDICTION == "US":
        return "SAR-C", settings.COMPLIANCE_SAR_C_DAYS
    return "TRACFIN", settings.COMPLIANCE_TRACFIN_DAYS


def _text(value: object, *, field: str, what: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        raise InvalidInput(f"{what} is required", field=field)
    if len(value) > limit:
        raise InvalidInput(f"{what} is at most {limit} characters", field=field)
    return value.strip()


def _step(cmd: Command, *, case: str, event_type: str, content: dict, expected_version: int) -> Event:
    """Append one step's event (reference and digest only) and keep its words beside it."""
    (event,) = cmd.append(
        stream=STREAM_PREFIX + case,
        expected_version=expected_version,
        events=[NewEvent(event_type, {"case": case, "content_digest": content_digest(case, event_type, content)})],
    )
    CaseRecord.objects.create(event=event.position, case=case, content=content)
    return event


def _state(case: str) -> dict:
    return suspicion_case(case)


def _cash_transaction(position: object, patron: str) -> Event:
    """The cash transaction of ``patron`` at ledger ``position``; ``InvalidInput`` (400,
    ``positions``) when it is none."""
    if type(position) is not int or position < 1:
        raise InvalidInput("each transaction is a ledger position (a positive whole number)", field="positions")
    event = Event.objects.filter(position=position).first()
    if event is None or event.type not in CASH_EVENTS:
        raise InvalidInput(f"ledger position {position} is no cash transaction", field="positions")
    if event.data.get("patron") != patron:
        raise InvalidInput(
            f"the cash transaction at ledger position {position} is not patron {patron}'s", field="positions"
        )
    return event


# What a case keeps of the structuring flag it was opened from (``patrons.structuring``).
STRUCTURING_KEPT = ("direction", "basis", "threshold_cents", "floor_percent", "window_days", "amount_cents")


def _structuring_completed_by(event: Event) -> dict | None:
    """The structuring flag (``patrons.structuring.structuring_flags``) the cash transaction
    ``event`` completed on its gaming day, or None."""
    return next((f for f in structuring_flags(event.gaming_day) if f["position"] == event.position), None)


def suspicion_case_open(
    *, reason: str, actor: str, flag: int | None = None, patron: str | None = None, idempotency_key: str | None = None
) -> dict:
    """Open a case from the AML flag at ledger position ``flag`` (an event of
    ``patrons.services.aml.DECISION_EVENTS``, or the cash transaction that completed a
    structuring flag, ``patrons.structuring``) or by hand for ``patron`` (a code), never both.

    Appends ``SuspicionCaseOpened`` (content: ``patron``, ``source`` "flag"/"hand", ``flag``
    {"position", "type"} or None, ``reason``, ``opened_at`` and ``deadline`` (UTC ISO),
    ``filing_kind``, ``deadline_days``); opened from a flag on a transaction, that transaction is
    attached at once (``TransactionsAttached``). Returns the case (``compliance.selectors``).
    Raises ``InvalidInput`` (400: ``reason``, ``flag``, ``patron``), ``StateConflict`` (409: a case
    was already opened from that flag), ``RoleRequired`` (403).
    """
    require_role(actor, Role.COMPLIANCE, step="opening a suspicion case")
    reason = _text(reason, field="reason", what="the reason for opening the case")
    if (flag is None) == (patron is None or patron == ""):
        raise InvalidInput("open a case from an AML flag or for a patron, one of the two", field="flag")
    if flag is not None and (type(flag) is not int or flag < 1):
        raise InvalidInput("the flag is a ledger position (a positive whole number)", field="flag")
    request = {"op": "suspicion_case_open", "flag": flag, "patron": patron, "reason": reason}
    with ledger_command(actor=actor, idempotency_key=idempotency_key, request=request) as cmd:
        if cmd.replayed:
            return cmd.result
        flagged, transaction = None, None
        if flag is not None:
            event = Event.objects.filter(position=flag).first()
            structuring = _structuring_completed_by(event) if event is not None and event.type in CASH_EVENTS else None
            if event is None or (event.type not in DECISION_EVENTS and structuring is None):
                raise InvalidInput(f"ledger position {flag} is no AML flag", field="flag")
            taken = CaseRecord.objects.filter(content__source="flag", content__flag__position=flag).first()
            if taken is not None:
                raise StateConflict(f"case {taken.case} was already opened from this AML flag", field="flag")
            if structuring is not None:
                # A structuring flag is read from the ledger, never appended (``patrons.structuring``):
                # the case keeps what it said, and the exchange that completed it is attached.
                patron, transaction = structuring["patron"], event
                flagged = {"position": flag, "type": FLAG_TYPE} | {k: structuring[k] for k in STRUCTURING_KEPT}
                flagged["units"] = len(structuring["units"])
            else:
                patron = event.data["patron"]
                flagged = {"position": flag, "type": event.type}
                if event.causation_id.isdigit():
                    transaction = Event.objects.filter(
                        position=int(event.causation_id), type__in=list(CASH_EVENTS)
                    ).first()
        else:
            patron = patron_get(patron).code
        number = Event.objects.filter(type=OPENED).count() + 1
        case = f"SC{number:05d}"
        kind, days = filing_kind_owed()
        now = timezone.now()
        content = {
            "patron": patron,
            "source": "flag" if flagged else "hand",
            "flag": flagged,
            "reason": reason,
            "opened_at": now.isoformat(),
            "deadline": (now + timedelta(days=days)).isoformat(),
            "filing_kind": kind,
            "deadline_days": days,
        }
        _step(cmd, case=case, event_type=OPENED, content=content, expected_version=stream_version(STREAM_PREFIX + case))
        if transaction is not None:
            _step(
                cmd,
                case=case,
                event_type=ATTACHED,
                content={"positions": [transaction.position]},
                expected_version=stream_version(STREAM_PREFIX + case),
            )
        return cmd.finish(_json(_state(case)))


def _open_case(case: str, *, step: str) -> dict:
    """The case, which must still wait for its decision (409 otherwise)."""
    state = _state(case)
    if state["decision"] is not None:
        raise StateConflict(f"case {case} is decided already: {step} comes before the decision", field="case")
    return state


def case_transactions_attach(*, case: str, positions: list, actor: str, idempotency_key: str | None = None) -> dict:
    """Attach the patron's cash transactions at ledger ``positions`` (1 to 50) to ``case``.

    Appends ``TransactionsAttached`` (content ``{"positions": [...]}``). Returns the case.
    Raises ``InvalidInput`` (400 ``positions``: not the patron's cash transaction, repeated),
    ``StateConflict`` (409: decided already, or a transaction attached already), ``NotFound``,
    ``RoleRequired`` (403).
    """
    require_role(actor, Role.COMPLIANCE, step="attaching transactions to a suspicion case")
    if not isinstance(positions, list) or not 1 <= len(positions) <= MAX_ATTACH:
        raise InvalidInput(f"name 1 to {MAX_ATTACH} transactions", field="positions")
    if len(set(map(repr, positions))) != len(positions):
        raise InvalidInput("a transaction is named twice", field="positions")
    request = {"op": "case_attach", "case": case, "positions": positions}
    with ledger_command(actor=actor, idempotency_key=idempotency_key, request=request) as cmd:
        if cmd.replayed:
            return cmd.result
        state = _open_case(case, step="attaching transactions")
        for position in positions:
            _cash_transaction(position, state["patron"])
        attached = {t["position"] for t in state["transactions"]}
        again = sorted(set(positions) & attached)
        if again:
            raise StateConflict(f"the transaction at ledger position {again[0]} is attached already", field="positions")
        _step(cmd, case=case, event_type=ATTACHED, content={"positions": positions}, expected_version=state["version"])
        return cmd.finish(_json(_state(case)))


def case_findings_write(*, case: str, text: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Write findings on ``case`` (several may be written before the decision).

    Appends ``FindingsWritten`` (content ``{"text"}``). Returns the case. Raises ``InvalidInput``
    (400 ``text``), ``StateConflict`` (409: decided already), ``NotFound``, ``RoleRequired`` (403).
    """
    require_role(actor, Role.COMPLIANCE, step="writing findings on a suspicion case")
    text = _text(text, field="text", what="the findings")
    request = {"op": "case_findings", "case": case, "text": text}
    with ledger_command(actor=actor, idempotency_key=idempotency_key, request=request) as cmd:
        if cmd.replayed:
            return cmd.result
        state = _open_case(case, step="writing findings")
        _step(cmd, case=case, event_type=FINDINGS, content={"text": text}, expected_version=state["version"])
        return cmd.finish(_json(_state(case)))


def case_decide(*, case: str, decision: str, reason: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Decide ``case``: ``decision`` "file" (a report is owed) or "no_file", with its ``reason``.

    Appends ``CaseDecided`` (content ``{"decision", "reason"}``). Returns the case. Raises
    ``InvalidInput`` (400 ``decision``, ``reason``), ``StateConflict`` (409: decided already, or
    no findings written yet), ``NotFound``, ``RoleRequired`` (403).
    """
    require_role(actor, Role.COMPLIANCE, step="deciding a suspicion case")
    if decision not in DECISIONS:
        raise InvalidInput("the decision is file or no_file", field="decision")
    reason = _text(reason, field="reason", what="the reason for the decision")
    request = {"op": "case_decide", "case": case, "decision": decision, "reason": reason}
    with ledger_command(actor=actor, idempotency_key=idempotency_key, request=request) as cmd:
        if cmd.replayed:
            return cmd.result
        state = _open_case(case, step="deciding")
        if not state["findings"]:
            raise StateConflict(f"case {case} has no findings yet: write them before deciding", field="case")
        content = {"decision": decision, "reason": reason}
        _step(cmd, case=case, event_type=DECIDED, content=content, expected_version=state["version"])
        return cmd.finish(_json(_state(case)))


def case_filing_record(
    *, case: str, kind: str, reference: str, filed_at: datetime, actor: str, idempotency_key: str | None = None
) -> dict:
    """Record the report filed for ``case``: ``kind`` (``FILING_KINDS``), the authority's
    ``reference`` and ``filed_at`` (aware; not in the future, not before the minute the case was
    decided "file").

    Appends ``FilingRecorded`` (content ``{"kind", "reference", "filed_at"}``, UTC ISO). Returns
    the case. Raises ``InvalidInput`` (400 ``kind``, ``reference``, ``filed_at``),
    ``StateConflict`` (409: not decided "file", or filed already), ``NotFound``, ``RoleRequired`` (403).
    """
    require_role(actor, Role.COMPLIANCE, step="recording a suspicion report's filing")
    if kind not in FILING_KINDS:
        raise InvalidInput(f"the kind of report is one of {', '.join(FILING_KINDS)}", field="kind")
    reference = _text(reference, field="reference", what="the filing's reference", limit=100)
    if not isinstance(filed_at, datetime) or timezone.is_naive(filed_at):
        raise InvalidInput("when it was filed is a date and time with its zone", field="filed_at")
    if filed_at > timezone.now():
        raise InvalidInput(
            "a filing cannot be recorded before it was made: the time it was filed is in the future",
            field="filed_at",
        )
    request = {
        "op": "case_filing",
        "case": case,
        "kind": kind,
        "reference": reference,
        "filed_at": filed_at.isoformat(),
    }
    with ledger_command(actor=actor, idempotency_key=idempotency_key, request=request) as cmd:
        if cmd.replayed:
            return cmd.result
        state = _state(case)
        if state["filing"] is not None:
            raise StateConflict(f"case {case} has its filing recorded already", field="case")
        if state["decision"] is None or state["decision"]["decision"] != "file":
            raise StateConflict(f"case {case} is not decided “file a report”: no filing to record", field="case")
        # A form may give the minute only: a filing in the minute the case was decided is not before it.
        if filed_at < state["decision"]["at"].replace(second=0, microsecond=0):
            zone = ZoneInfo(settings.CASINO_TIMEZONE)  # as every page shows times, whatever zone is active
            decided = state["decision"]["at"].astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
            raise InvalidInput(
                f"the filing is dated before the decision to file ({decided}): a report is filed once decided",
                field="filed_at",
            )
        content = {"kind": kind, "reference": reference, "filed_at": filed_at.astimezone(UTC).isoformat()}
        _step(cmd, case=case, event_type=FILED, content=content, expected_version=state["version"])
        return cmd.finish(_json(_state(case)))


def _json(state: dict) -> dict:
    """The case as the API returns it (``compliance.selectors.case_json``)."""
    return case_json(state)
