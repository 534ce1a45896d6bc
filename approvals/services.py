"""Maker-checker: a second signature is the signer's own authenticated act.

``approval_request`` is the maker's half: it tries the act at once (a trial run in a savepoint,
rolled back, with the signatures still to come held by ``staff.roles.PENDING_SIGNATURE``), so
a request the act would refuse is refused now (400/403/404/409, nothing written); then it
records a pending ``Approval`` and ``ApprovalRequested`` on ``approval/<id>``. When no one
else has to sign (every named signer is the maker, no threshold passed) the act just runs.

``approval_confirm`` is a signer's half, from his own session: he must be a signer the
approval waits for (the named user, or for an open slot anyone with its role) and never the
maker; where the act is a count (``Act.counted``: a dealer accepting a fill) the last signer
gives his own count with his signature. The last signature runs the act through its service
inside the same transaction (``ledger.commands.within``): ``ApprovalConfirmed`` and the act's
events commit together, or nothing does; the pending approvals the act makes pointless
(``Act.ends``: a voided slip's carrying and acceptance) are withdrawn in it too
(``ApprovalWithdrawn``). ``approval_reject`` ends it without the act: the maker withdrawing
(``ApprovalWithdrawn``), or a signer refusing (``ApprovalRejected``). A decided approval
answers 409; so does one whose row differs from its sealed events (``approvals.replay``: a
maker, signer or argument changed with raw SQL signs nothing); so does one past
``expires_at`` (``CASINO_APPROVAL_TTL_MINUTES`` after the request), which is then recorded as
expired.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from core.ids import uuid_of
from ledger.commands import ledger_command, within
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.store import NewEvent
from staff.roles import PENDING_SIGNATURE, RoleRequired, has_role, signatures_deferred, signed_in_person

from .acts import ACTS, Act
from .models import Approval
from .replay import differences
from .selectors import outside_scope


def _act(kind: object) -> Act:
    if kind not in ACTS:
        raise InvalidInput(f"unknown act {kind!r}", field="kind")
    return ACTS[kind]


def _jsonable(payload: dict) -> dict:
    return json.loads(json.dumps(payload, cls=DjangoJSONEncoder))


def summary(approval: Approval) -> dict:
    """``{"id", "kind", "what" (for people), "state", "maker", "waiting_for": [{"slot", "roles", "user"}],
    "signatures": [{"slot", "roles", "user", "by", "at"}], "requested_at", "expires_at",
    "decided_by", "decided_at", "reason", "differs_from_ledger": [field]}`` (times ISO 8601,
    UTC). ``differs_from_ledger`` names the row's fields that its sealed events did not make
    (changed with raw SQL): such an approval waits for nobody, since nobody can sign it."""
    state = approval.state
    if state == Approval.State.PENDING and timezone.now() >= approval.expires_at:
        state = Approval.State.EXPIRED  # lapsed; recorded as such by the next confirm or reject
    differing = differences(approval)
    return {
        "id": str(approval.id),
        "kind": approval.kind,
        "what": ACTS[approval.kind].what,
        "state": state,
        "maker": approval.maker,
        "waiting_for": approval.waiting_for() if state == Approval.State.PENDING and not differing else [],
        "signatures": approval.signatures,
        "requested_at": approval.requested_at.isoformat(),
        "expires_at": approval.expires_at.isoformat(),
        "decided_by": approval.decided_by or None,
        "decided_at": approval.decided_at.isoformat() if approval.decided_at else None,
        "reason": approval.reason or None,
        "differs_from_ledger": differing,
    }


def _subject(payload: dict) -> dict:
    """The table or coup the act is about, at the top of each approval event, so the audit
    trail of that table or coup shows who asked and who signed (``ledger.projections.audit``)."""
    subject = {}
    table = payload.get("table", payload.get("code"))
    if isinstance(table, str):
        subject["table"] = table
    if isinstance(payload.get("round_id"), str):
        subject["round"] = payload["round_id"]
    return subject


def _append(cmd, approval: Approval, event_type: str, data: dict) -> None:
    head = {"approval": str(approval.id), "kind": approval.kind, **_subject(approval.payload)}
    (event,) = cmd.append(
        stream=approval.stream,
        expected_version=approval.version,
        correlation_id=approval.stream,
        events=[NewEvent(event_type, head | data)],
    )
    approval.version = event.version
    approval.save()


def approval_request(*, kind: str, payload: dict, actor: str, idempotency_key: str | None = None) -> dict:
    """The maker asks for act ``kind`` with ``payload`` (its service's arguments, JSON).

    Returns the act's own result when nobody else has to sign; otherwise ``{"approval":
    summary}`` with state ``pending`` (the API answers 202). Raises what the act's service
    raises (its trial run), ``InvalidInput`` for an unknown kind, ``StateConflict`` (409) when
    the same act on the same subject (``Act.subject``: a slip) already waits for signatures.
    """
    act = _act(kind)
    payload = _jsonable(payload)
    if act.addressed is not None:
        payload = act.addressed(payload)
    if act.counted is not None and "count" in payload:
        raise InvalidInput("the signer counts from his own login: the request carries no count", field="count")
    slots = act.slots(payload)
    asked_at = timezone.now().isoformat()
    for each in slots:
        if each["user"] == PENDING_SIGNATURE:  # never a signer: it passes the trial run's checks
            raise InvalidInput("not a user", field=act.field_of(each["slot"]))
        if isinstance(each["user"], str) and not each["user"].strip():
            # A named slot left blank would wait for a signer nobody can be.
            raise InvalidInput("may not be blank: name who signs", field=act.field_of(each["slot"]))
        each |= {"by": actor, "at": asked_at} if each["user"] == actor else {"by": None, "at": None}
    if all(each["by"] for each in slots):
        with signed_in_person([actor]):  # every signer is the maker, asking from his own session
            return act.run(payload, actor, {each["slot"]: actor for each in slots}, idempotency_key)
    request = {"op": "approval_request", "kind": kind, "payload": payload}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        _refuse_second_request(act, payload)
        trial = {each["slot"]: each["user"] or PENDING_SIGNATURE for each in slots}
        tried = payload | {"count": act.counted(payload)} if act.counted is not None else payload
        savepoint = transaction.savepoint()
        try:
            with within(cmd), signatures_deferred():
                act.run(tried, actor, trial)
        finally:
            transaction.savepoint_rollback(savepoint)
        now = timezone.now()
        approval = Approval.objects.create(
            kind=kind,
            payload=payload,
            maker=actor,
            signatures=slots,
            requested_at=now,
            expires_at=now + timedelta(minutes=settings.CASINO_APPROVAL_TTL_MINUTES),
        )
        _append(
            cmd,
            approval,
            "ApprovalRequested",
            {
                "payload": payload,
                "maker": actor,
                "waiting_for": approval.waiting_for(),
                "expires_at": approval.expires_at.isoformat(),
            },
        )
        return cmd.finish({"approval": summary(approval)})


def pending_for(kind: str, subject: dict) -> Approval | None:
    """The pending, unexpired approval of act ``kind`` about ``subject`` (e.g. ``{"kind":
    "fill", "serial": "F-1"}``: the payload holds these values), or None."""
    waiting = Approval.objects.filter(kind=kind, state=Approval.State.PENDING, expires_at__gt=timezone.now())
    for approval in waiting.order_by("requested_at"):
        if all(approval.payload.get(key) == value for key, value in subject.items()):
            return approval
    return None


def _refuse_second_request(act: Act, payload: dict) -> None:
    """``StateConflict`` (409, field ``serial`` or the subject's last key) when the same act on
    the same subject already waits for its signatures (read under the writer lock)."""
    if not act.subject:
        return
    found = pending_for(act.kind, {key: payload.get(key) for key in act.subject})
    if found is not None:
        wanted = "; ".join(each["user"] or " or ".join(each["roles"]) for each in found.waiting_for())
        raise StateConflict(
            f"{act.what} was already asked by {found.maker} and waits for {wanted}", field=act.subject[-1]
        )


def _for_update(approval: object) -> Approval:
    try:
        key = uuid_of(approval) if isinstance(approval, str) else None
    except ValueError:
        key = None
    found = Approval.objects.select_for_update().filter(id=key).first() if key is not None else None
    if found is None:
        raise NotFound(f"no approval {approval!r}", field="approval")
    return found


def _refuse_altered(approval: Approval) -> None:
    """``StateConflict`` (409, field ``approval``) when ``approval``'s row is not what its sealed
    events (``approval/<id>``) made it: its maker, act, arguments, expiry, signatures, state or
    version changed with raw SQL. Nothing is signed, refused or run on such a row: the act
    would otherwise run as another maker, or with signers who never signed."""
    differing = differences(approval)
    if differing:
        raise StateConflict(
            f"this approval's row differs from its ledger events ({', '.join(differing)}): it was"
            " changed outside the application and can be neither signed nor refused",
            field="approval",
        )


def _refuse_decided(approval: Approval) -> None:
    if approval.state != Approval.State.PENDING:
        raise StateConflict(f"this approval is already {approval.state}", field="approval")


def _lapsed(cmd, approval: Approval) -> bool:
    """Record the expiry of a pending approval past its time; True if it lapsed."""
    now = timezone.now()
    if now < approval.expires_at:
        return False
    approval.state, approval.decided_at = Approval.State.EXPIRED, now
    _append(cmd, approval, "ApprovalExpired", {"expired_at": approval.expires_at.isoformat()})
    return True


def _signature_of(approval: Approval, actor: str) -> dict:
    """The slot ``actor`` signs: named for him, else an open one whose role he holds."""
    if actor == approval.maker:
        raise RoleRequired(f"{actor} asked for this act: the second signature must be another user's")
    if any(each["by"] == actor for each in approval.signatures):
        raise RoleRequired(f"{actor} has already signed this approval; it waits for another user")
    pending = [each for each in approval.signatures if not each["by"]]
    named = {each["user"] for each in approval.signatures if each["user"]}
    for each in pending:
        if each["user"] == actor or (each["user"] is None and actor not in named and has_role(actor, *each["roles"])):
            if outside_scope(approval, actor):
                # A dealer vouches only for the tray in front of him: a count or a fill of
                # another table is not his to sign, even when the request names him.
                raise RoleRequired(f"{actor} is a dealer: a dealer signs only at the table he is assigned to")
            return each
    wanted = "; ".join(each["user"] or " or ".join(each["roles"]) for each in pending)
    raise RoleRequired(f"this approval waits for {wanted}")


def approval_confirm(
    *, approval: str, actor: str, count: dict | None = None, idempotency_key: str | None = None
) -> dict:
    """``actor`` signs pending approval ``approval`` (its id). The last signature runs the act.

    ``count`` (``{"<cents>": pieces}``): the last signer's own count where the act is a count
    (``Act.counted``: a fill accepted at the table), checked by the act's service (a count
    that is not the slip's: 400 on ``count``); refused (400) on any other act.

    Returns the act's result with ``"approval": summary`` once it ran, else ``{"approval":
    summary}`` still pending (another signature missing). Raises ``NotFound``,
    ``RoleRequired`` (403: the maker, a user the approval does not wait for, or one without
    the role), ``StateConflict`` (409: already confirmed, rejected, withdrawn or expired), and
    whatever the act's service raises (then nothing is written and the approval stays
    pending). The act's secret keys (``Act.secret``) are in this answer only, not in a retry's.
    """
    lapsed = False
    request = {"op": "approval_confirm", "approval": str(approval), **({"count": count} if count is not None else {})}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _for_update(approval)
        _refuse_altered(found)
        _refuse_decided(found)
        lapsed = _lapsed(cmd, found)
        if not lapsed:
            signature = _signature_of(found, actor)
            if count is not None and ACTS[found.kind].counted is None:
                raise InvalidInput(f"{ACTS[found.kind].what} takes no count", field="count")
            signature["by"], signature["at"] = actor, timezone.now().isoformat()
            if found.waiting_for():
                _append(cmd, found, "ApprovalSigned", {"slot": signature["slot"], "by": actor})
                return cmd.finish({"approval": summary(found)})
            signers = {each["slot"]: each["by"] for each in found.signatures}
            act = ACTS[found.kind]
            payload = found.payload
            if act.counted is not None:
                payload = payload | {"count": {} if count is None else count}
            with within(cmd), signed_in_person(signers.values()):
                result = act.run(payload, found.maker, signers)
                _withdraw_ended(cmd, act, found, actor)
            # A secret of the result (a reset's temporary password) goes to this signer's answer
            # only: never into the approval, the ledger or the idempotency record.
            secret = {key: result[key] for key in act.secret if key in result}
            result = {key: value for key, value in result.items() if key not in secret}
            found.state, found.decided_by, found.decided_at = Approval.State.CONFIRMED, actor, timezone.now()
            found.result = result
            counted = {"count": payload["count"]} if act.counted is not None else {}
            _append(
                cmd, found, "ApprovalConfirmed", {"slot": signature["slot"], "by": actor, "result": result, **counted}
            )
            return {**cmd.finish({**result, "approval": summary(found)}), **secret}
    raise StateConflict("this approval has expired: ask again", field="approval")


def _withdraw_ended(cmd, act: Act, done: Approval, actor: str) -> None:
    """Withdraw the pending approvals ``done``'s act makes pointless (``Act.ends``, about the
    same subject): ``ApprovalWithdrawn`` by ``actor`` (who signed last), naming ``done``."""
    if not act.ends:
        return
    subject = {key: done.payload.get(key) for key in act.subject}
    waiting = Approval.objects.select_for_update().filter(kind__in=act.ends, state=Approval.State.PENDING)
    for other in waiting.exclude(id=done.id).order_by("requested_at"):
        if any(other.payload.get(key) != value for key, value in subject.items()):
            continue
        why = act.ended_because.format_map(done.payload)
        other.state, other.decided_by, other.decided_at = Approval.State.WITHDRAWN, actor, timezone.now()
        other.reason = why
        _append(cmd, other, "ApprovalWithdrawn", {"by": actor, "reason": why, "ended_by": str(done.id)})


def approval_reject(*, approval: str, actor: str, reason: str = "", idempotency_key: str | None = None) -> dict:
    """End pending approval ``approval`` without its act: the maker withdraws it (state
    ``withdrawn``, ``ApprovalWithdrawn``), or a user it waits for refuses (``rejected``,
    ``ApprovalRejected``). Returns ``{"approval": summary}``. Raises ``NotFound``,
    ``RoleRequired`` (403: anyone else), ``StateConflict`` (409: already decided or expired),
    ``InvalidInput``."""
    if not isinstance(reason, str) or len(reason) > 500:
        raise InvalidInput("a reason is at most 500 characters", field="reason")
    lapsed = False
    request = {"op": "approval_reject", "approval": str(approval), "reason": reason}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _for_update(approval)
        _refuse_altered(found)
        _refuse_decided(found)
        lapsed = _lapsed(cmd, found)
        if not lapsed:
            withdrawn = actor == found.maker
            if not withdrawn:
                _signature_of(found, actor)  # 403 unless the approval waits for him
            state = Approval.State.WITHDRAWN if withdrawn else Approval.State.REJECTED
            found.state, found.decided_by, found.decided_at = state, actor, timezone.now()
            found.reason = reason.strip()
            event = "ApprovalWithdrawn" if withdrawn else "ApprovalRejected"
            _append(cmd, found, event, {"by": actor, "reason": found.reason})
            return cmd.finish({"approval": summary(found)})
    raise StateConflict("this approval has expired", field="approval")
