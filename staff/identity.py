"""The accounts and dealer assignments as their events say they should be, against the rows.

Replays ``staff/roles`` and the device tokens' events into, per username, the active, staff
and superuser flags, the groups, and the digests of the password hash, the names and the
e-mail; and ``staff/assignments`` (with the leavers' ``StaffLeft``) into the dealer
assignments there should be: a dealer signs only for the table he is assigned to, so a row
planted, revived or moved to another table with raw SQL would let him sign for another.
``ledger.identity`` runs both (``manage.py ledger verify``, ``/metrics``). A value the events
never stated (a ledger older than the digests, the assignments' ids and times) is not compared.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.dateparse import parse_datetime

from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.identity import Mismatch, Unchecked, digest_matches
from ledger.models import Event

from .models import DealerAssignment
from .services import ASSIGNMENTS_STREAM, DEVICES_STREAM, PROFILE_FIELDS, ROLES_STREAM

KIND = "staff account"
FLAGS = ("is_active", "is_staff", "is_superuser")
EVENT_TYPES = (
    "StaffUserChanged",
    "StaffRolesChanged",
    "StaffLeft",
    "StaffPasswordReset",
    "StaffPasswordChanged",
    "StaffPasswordSet",
    "StaffPasswordRehashed",
    "StaffProfileChanged",
    "DeviceTokenIssued",
)


def _apply(accounts: dict[str, dict], type_: str, data: dict) -> None:
    if type_ == "DeviceTokenIssued":
        # A device's account is made by device_token_issue: active, no flag, no role, no password.
        username = data.get("user") or f"device:{data['device']}"
        accounts[username] = {"is_active": True, "is_staff": False, "is_superuser": False, "groups": []}
        if "password_digest" in data:
            accounts[username]["password"] = data["password_digest"]
        return
    username = data.get("user")
    if not isinstance(username, str):
        return
    account = accounts.setdefault(username, {"created": False})
    if type_ == "StaffUserChanged":
        after = data.get("after") or {}
        account.update({flag: after[flag] for flag in FLAGS if flag in after})
        if data.get("before") is None:
            account["created"] = True
            if "roles" in data:
                account["groups"] = sorted(data["roles"])
    elif type_ == "StaffRolesChanged":
        account["groups"] = sorted(data.get("after") or [])
    elif type_ == "StaffLeft":
        account["is_active"] = False
    if type_ == "StaffPasswordRehashed":
        # Only a re-hash of the hash the ledger knew: a planted hash stays a mismatch.
        if account.get("password") == data.get("replaced_digest"):
            account["password"] = data["password_digest"]
    elif "password_digest" in data:
        account["password"] = data["password_digest"]
    for name, recorded in (data.get("profile_digests") or {}).items():
        account[name] = recorded


def _account_events():
    return Event.objects.filter(stream__in=(ROLES_STREAM, DEVICES_STREAM), type__in=EVENT_TYPES).order_by("position")


def replayed_accounts() -> dict[str, dict]:
    """``{username: {field: value}}`` from the identity events, in ledger order."""
    accounts: dict[str, dict] = {}
    rows = _account_events().values_list(*SEAL_FIELDS, "type", "data").iterator(chunk_size=2000)
    for type_, data in sealed_rows(rows):
        _apply(accounts, type_, data)
    return accounts


def login_refusal(username: str, password_hash: str, *, require_recorded: bool) -> str | None:
    """Why ``username`` may not log in with the stored ``password_hash``, or None: "password"
    when it is not the hash his identity events recorded (None when they never stated one: a
    ledger older than the digests locks nobody out); with ``require_recorded``, "unrecorded"
    when no identity event created the account (a row inserted with raw SQL; an upgraded
    database records its older accounts once with ``manage.py staff_baseline``). One query,
    over his own events only: the login backend asks it at every login."""
    accounts: dict[str, dict] = {}
    rows = _account_events().filter(data__user=username).values_list(*SEAL_FIELDS, "type", "data")
    for type_, data in sealed_rows(rows):
        _apply(accounts, type_, data)
    account = accounts.get(username)
    if require_recorded and (account is None or account.get("created") is False):
        return "unrecorded"
    recorded = (account or {}).get("password")
    if recorded is not None and not _hash_matches(recorded, username, password_hash):
        return "password"
    return None


def password_as_recorded(username: str, password_hash: str) -> bool:
    """Whether ``password_hash`` is the hash ``username``'s identity events say he holds (True
    when they never stated one)."""
    return login_refusal(username, password_hash, require_recorded=False) is None


def _hash_matches(recorded: str, username: str, password_hash: str) -> bool:
    # The parts of ``staff.services.hash_digest``.
    return digest_matches(recorded, "password", username, password_hash or "")


DEVICE_EVENTS = ("DeviceTokenIssued", "DeviceTokenRevoked")


def device_as_recorded(name: str, username: str, stored_digest: str) -> dict | None:
    """Device ``name`` as its sealed events left it, if they let it act: ``{"kind", "table"}``
    (the table it acts at is the one its ``DeviceTokenIssued`` named, whatever its row says now);
    None when no sealed ``DeviceTokenIssued`` names it (a row INSERTed with raw SQL), when a
    ``DeviceTokenRevoked`` followed (a row revived by setting ``revoked_at`` back to NULL), when
    its account is not ``username`` (the row pointed at another user), or when the token digest
    ``stored_digest`` (the row's SHA-256) is not the one the event recorded (a digest of a token
    its writer knows, written over the row's).

    A token issued before the events recorded its digest (no ``token_digest``) is taken on its
    row's digest: its table, kind and revocation still come from the events, but a digest written
    over such a row cannot be told; re-issuing those devices (a new name, the old one revoked)
    closes that. One query, over the device's own events: the device authentication asks it at
    every request."""
    recorded = None
    events = Event.objects.filter(stream=DEVICES_STREAM, type__in=DEVICE_EVENTS, data__device=name)
    for type_, data in sealed_rows(events.order_by("position").values_list(*SEAL_FIELDS, "type", "data")):
        if type_ == "DeviceTokenIssued":
            recorded = {"kind": data.get("kind"), "table": data.get("table"), "revoked": False}
            recorded |= {"user": data.get("user") or f"device:{name}", "token_digest": data.get("token_digest")}
        elif recorded is not None:
            recorded["revoked"] = True
    if recorded is None or recorded["revoked"] or recorded["user"] != username:
        return None
    token = recorded["token_digest"]
    # The parts of ``staff.services.recorded_token_digest``, under the current key or a former one.
    if token is not None and not digest_matches(token, "device-token", name, stored_digest):
        return None
    return {"kind": recorded["kind"], "table": recorded["table"]}


def _may_read_passwords(model) -> bool:
    # The auditor's role reads auth_user without its password column (deploy/postgres_roles.sql):
    # ask first, since a refused SELECT would abort the transaction.
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT has_column_privilege(%s, 'password', 'SELECT')", [model._meta.db_table])
        return cursor.fetchone()[0]


def _differences(user, account: dict, groups: list[str], *, passwords: bool) -> Iterator[str]:
    """The fields of ``user``'s row that differ from what ``account`` (replayed) states."""
    username = user.get_username()
    for flag in FLAGS:
        if flag in account and getattr(user, flag) != account[flag]:
            yield flag
    if "groups" in account and sorted(groups) != account["groups"]:
        yield "groups"
    recorded = account.get("password") if passwords else None
    if recorded is not None and not _hash_matches(recorded, username, user.password):
        yield "password"
    for name in PROFILE_FIELDS:
        if name in account and not digest_matches(account[name], name, username, str(getattr(user, name) or "")):
            yield name


def unrecorded_accounts() -> tuple[list, dict[str, list[str]]]:
    """The accounts no event created, split in two: those whose row agrees with whatever the
    events did state of them (users, in username order: ``staff_accounts_baseline`` may record
    them as they stand) and ``{username: [fields]}`` of those whose row contradicts an event
    (a baseline would bless a change made behind the ledger's back: refused)."""
    accounts = replayed_accounts()
    User = get_user_model()
    may_record, contradicted = [], {}
    for user in User.objects.order_by("username").prefetch_related("groups"):
        account = accounts.get(user.get_username())
        if account is not None and account.get("created") is not False:
            continue
        held = [group.name for group in user.groups.all()]
        differing = list(_differences(user, account or {}, held, passwords=True))
        if differing:
            contradicted[user.get_username()] = differing
        else:
            may_record.append(user)
    return may_record, contradicted


def account_mismatches() -> Iterator[Mismatch | Unchecked]:
    """Every account whose row differs from its replayed events, field by field (never a value);
    ``Unchecked`` for the passwords when this database role may not read them."""
    accounts = replayed_accounts()
    User = get_user_model()
    passwords = _may_read_passwords(User)
    if not passwords:
        yield Unchecked(KIND, "password", "this database role may not read password hashes")
    groups = {}
    for user_id, name in User.groups.through.objects.values_list("user_id", "group__name"):
        groups.setdefault(user_id, []).append(name)
    columns = ["id", "username", *FLAGS, *PROFILE_FIELDS, *(["password"] if passwords else [])]
    live = User.objects.order_by("username").only(*columns)
    seen = set()
    for user in live.iterator(chunk_size=2000):
        username = user.get_username()
        seen.add(username)
        account = accounts.get(username)
        if account is None or account.get("created") is False:
            yield Mismatch(KIND, username, "(no event)")
            continue
        for name in _differences(user, account, groups.get(user.pk, []), passwords=passwords):
            yield Mismatch(KIND, username, name)
    for username in sorted(set(accounts) - seen):
        if accounts[username].get("created") is not False:
            yield Mismatch(KIND, username, "(no row)")


ASSIGNMENT_KIND = "dealer assignment"
ASSIGNMENT_EVENTS = ("DealerAssigned", "DealerReleased", "StaffLeft")


def _moment(value: object) -> datetime | None:
    return parse_datetime(value) if isinstance(value, str) else None


def replayed_assignments() -> list[dict]:
    """Every assignment the events made, in ledger order: ``{"dealer", "table_code",
    "assigned_by", "ended", "ended_by"}``, with ``"id"``, ``"started_at"`` and ``"ended_at"``
    when the events state them."""
    assignments: list[dict] = []
    open_: dict[str, dict] = {}  # dealer -> his open assignment

    def end(dealer: str, at: object, actor: str) -> None:
        if (assignment := open_.pop(dealer, None)) is not None:
            assignment.update(ended=True, ended_at=_moment(at), ended_by=actor)

    events = (
        Event.objects.filter(type__in=ASSIGNMENT_EVENTS, stream__in=(ASSIGNMENTS_STREAM, ROLES_STREAM))
        .order_by("position")
        .values_list(*SEAL_FIELDS, "type", "data", "actor")
    )
    for type_, data, actor in sealed_rows(events.iterator(chunk_size=2000)):
        if type_ == "StaffLeft":
            end(data.get("user"), data.get("left_at"), actor)
            continue
        dealer = data.get("dealer")
        end(dealer, data.get("ended_at"), actor)
        if type_ == "DealerAssigned":
            assignment = {"dealer": dealer, "table_code": data.get("table"), "assigned_by": actor, "ended": False}
            assignment.update(id=data.get("assignment"), started_at=_moment(data.get("started_at")), ended_by="")
            assignments.append(assignment)
            open_[dealer] = assignment
    return assignments


_dealing: tuple[str | None, dict[str, str]] = (None, {})


def dealers_at_tables() -> dict[str, str]:
    """``{table code: dealer}`` of the assignments the sealed events hold open now, the latest
    per table: what the pages show, whatever the rows say (a row planted or moved with raw SQL
    deals nowhere). The replay is kept per process until the next assignment event."""
    global _dealing
    head = (
        Event.chain.filter(type__in=ASSIGNMENT_EVENTS).order_by("-position").values_list("hash", flat=True).first()
        or ""
    )
    if _dealing[0] != head:
        dealing = {}
        for assignment in replayed_assignments():
            if not assignment["ended"] and isinstance(assignment["table_code"], str):
                dealing[assignment["table_code"]] = assignment["dealer"]
        _dealing = (head, dealing)
    return dict(_dealing[1])


def _assignment_differences(row: dict, made: dict) -> Iterator[str]:
    for name in ("dealer", "table_code", "assigned_by", "ended_by"):
        if row[name] != made[name]:
            yield name
    if made["started_at"] is not None and row["started_at"] != made["started_at"]:
        yield "started_at"
    if (row["ended_at"] is not None) != made["ended"] or (
        made.get("ended_at") is not None and row["ended_at"] != made["ended_at"]
    ):
        yield "ended_at"


def _assignment_name(assignment: dict, pk: object = None) -> str:
    name = f"{assignment['dealer']} at {assignment['table_code']}"
    return f"{name} (#{pk})" if pk is not None else name


def _paired_assignments() -> Iterator[tuple[dict | None, dict | None]]:
    """Each assignment the events made with its row (None: the row is gone), then each row no
    event made (``(row, None)``); rows as ``{"id", "dealer", "table_code", "started_at",
    "assigned_by", "ended_at", "ended_by"}``."""
    made = replayed_assignments()
    columns = ("id", "dealer__username", "table_code", "started_at", "assigned_by", "ended_at", "ended_by")
    rows = {
        values[0]: dict(zip(("id", "dealer", *columns[2:]), values, strict=True))
        for values in DealerAssignment.objects.order_by("id").values_list(*columns).iterator(chunk_size=2000)
    }
    matched: list[tuple[dict | None, dict]] = []
    # Events since the row ids were recorded name their row; older ones are paired with the
    # rows no event names, per dealer, in the order both were made.
    unnamed_rows = defaultdict(list)
    named = {assignment["id"] for assignment in made if assignment["id"] is not None}
    for pk, row in rows.items():
        if pk not in named:
            unnamed_rows[row["dealer"]].append(row)
    for assignment in made:
        if assignment["id"] is not None:
            matched.append((rows.get(assignment["id"]), assignment))
        else:
            left = unnamed_rows[assignment["dealer"]]
            matched.append((left.pop(0) if left else None, assignment))
    yield from matched
    for left in unnamed_rows.values():
        for row in left:
            yield row, None


def assignment_mismatches() -> Iterator[Mismatch]:
    """Every dealer assignment whose row differs from the events, field by field: the dealer,
    the table, who assigned and ended it, when it started and whether (and when) it ended; a
    row no event made, an assignment whose row is gone."""
    for row, assignment in _paired_assignments():
        if assignment is None:
            yield Mismatch(ASSIGNMENT_KIND, _assignment_name(row, row["id"]), "(no event)")
        elif row is None:
            yield Mismatch(ASSIGNMENT_KIND, _assignment_name(assignment, assignment["id"]), "(no row)")
        else:
            for field in _assignment_differences(row, assignment):
                yield Mismatch(ASSIGNMENT_KIND, _assignment_name(assignment, row["id"]), field)


def assignment_row_differences() -> dict[int, list[str]]:
    """``{row id: [field, …]}`` of each dealer assignment row that differs from its sealed
    events (``"(no event)"``: no event made it, a row planted with raw SQL); rows that match
    are not named. For the reads that list the rows (``/api/staff/assignments/``)."""
    differences: dict[int, list[str]] = {}
    for row, assignment in _paired_assignments():
        if row is None:
            continue
        fields = ["(no event)"] if assignment is None else list(_assignment_differences(row, assignment))
        if fields:
            differences[row["id"]] = fields
    return differences
