"""The patron's self-limit: his own maximum bet (responsible gaming, RULES.md §Baccarat).

Sheet 002 ("Limites des paris"): "Pour réduire votre limite maximale, saisissez la nouvelle
limite [...] puis validez la modification en entrant votre code PIN [...] vous ne pouvez modifier
votre limite de mise qu'une fois par semaine (Réinitialisation chaque vendredi à minuit heure de
l'Est, soit GMT-5). La modification [...] s'étend automatiquement à tous les jeux".

Choices made here, where the sheet leaves room:
- **The week** runs from Friday 00:00 GMT-5 to the next Friday 00:00 GMT-5: the sheet's fixed
  offset, so 05:00 UTC all year (no daylight saving time), 168 hours every week.
- **Once a week** means at most one ``SelfLimitSet`` per patron in each week. The first setting
  counts as that week's change.
- **Reduce at once, raise at the reset**: the sheet's procedure is for reducing the limit. A
  reduction (and the first setting, which reduces "no limit") is in force at once; a raise is
  recorded as pending and is in force only from the next weekly reset (``pending_max_bet_cents``
  from ``pending_from``), so that a patron cannot lift his own limit on impulse.
- **Confirmed by the patron's PIN**: every change carries the patron's PIN, checked against the
  salted hash the cage stored (``patron_pin_set``: set at the cage with the patron's identity
  document shown; Django's password hashers; the PIN is never stored, logged, fingerprinted or
  put in an event). A wrong PIN is a 400 on ``pin``; the ``MAX_PIN_ATTEMPTS``-th wrong PIN in a
  row locks the PIN for ``PIN_LOCK`` (every change refused, even with the right PIN).
- The anonymous patron (``anon``, shared by all unrated play) cannot set one: a limit there
  would bind every anonymous player.
- The limit caps the **total** a patron stakes in one bet placement (one request), whatever
  the game; each game's placement calls ``check_self_limit`` with that total.

The events name the patron by code only (DESIGN.md §The ledger: no personal data in events).
"""

import re
from datetime import UTC, date, datetime, time, timedelta, timezone

from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction

from basis.money import format_cents
from ledger.accounts import ANONYMOUS_PATRON
from ledger.commands import ledger_command
from ledger.errors import BetRefused, Conflict, InvalidInput, NotFound, StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.identity import digest, digest_matches
from ledger.models import Event
from ledger.replay import Difference, compare
from ledger.store import MAX_CENTS, NewEvent, stream_version
from staff.roles import Role, require_role, require_second_signature

from ..documents import document_key
from ..models import Patron, PatronPin, SelfLimit

# "heure de l'Est, soit GMT-5": the sheet's own fixed offset, not America/New_York.
EASTERN = timezone(timedelta(hours=-5), "GMT-5")
FRIDAY = 4  # date.weekday()
WEEK = timedelta(days=7)
EVENT_TYPE = "SelfLimitSet"
PIN_EVENT_TYPE = "PatronPinSet"
PIN_PATTERN = re.compile(r"[0-9]{4,8}")
MAX_PIN_ATTEMPTS = 5  # wrong PINs in a row that lock it, until the cage resets it (two logins)
PIN_LOCKED_EVENT, PIN_RESET_EVENT = "PatronPinLocked", "PatronPinReset"
# Each wrong PIN, and the right one after wrong ones, are events too: the count of wrong PINs in
# a row is the ledger's, so a row's counter set back with raw SQL reopens no guessing.
PIN_REFUSED_EVENT, PIN_ACCEPTED_EVENT = "PatronPinRefused", "PatronPinAccepted"


def now() -> datetime:
    """The service's clock (aware, UTC). Module-level so that tests can move time with monkeypatch."""
    return datetime.now(UTC)


def _moment(value: datetime | None) -> datetime:
    # ``now()`` is looked up at call time (the parameter named ``now`` of the services shadows it).
    moment = now() if value is None else value
    if not isinstance(moment, datetime) or moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    return moment.astimezone(UTC)


def _eastern_midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=EASTERN).astimezone(UTC)


def week_start_of(moment: datetime) -> datetime:
    """The start (UTC) of the self-limit week holding ``moment``: the last Friday 00:00 GMT-5 at or before it."""
    local = moment.astimezone(EASTERN)
    return _eastern_midnight(local.date() - timedelta(days=(local.weekday() - FRIDAY) % 7))


def next_reset_after(week_start: datetime) -> datetime:
    """The next Friday 00:00 GMT-5 (UTC) after the week starting at ``week_start``: 168 hours on."""
    return week_start.astimezone(UTC) + WEEK


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds")


def _eur(cents: int) -> str:
    return format_cents(cents)  # with CASINO_CURRENCY


def _when(moment: datetime) -> str:
    """``2025-03-14 05:00 UTC (2025-03-14 00:00 GMT-5)``."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC ({moment.astimezone(EASTERN):%Y-%m-%d %H:%M} GMT-5)"


def in_force(
    max_bet_cents: int | None, pending_max_bet_cents: int | None, pending_from: datetime | None, moment: datetime
) -> int | None:
    """The limit in force at ``moment``: the pending raise once its reset has come, else the limit."""
    if pending_max_bet_cents is not None and pending_from is not None and moment >= pending_from:
        return pending_max_bet_cents
    return max_bet_cents


def stricter(*limits: int | None) -> int | None:
    """The lowest of ``limits`` (cents) that are set, None when none is."""
    held = [limit for limit in limits if limit is not None]
    return min(held) if held else None


def _limit_events(code: str):
    return Event.objects.filter(stream=f"patron/{code}", type=EVENT_TYPE)


def _replay_one(limit: SelfLimit, data: dict, occurred_at: datetime) -> None:
    """One sealed ``SelfLimitSet`` on ``limit`` (as ``_apply`` made it)."""
    if "effective_from" not in data:  # written before raises waited for the reset: in force at once
        limit.max_bet_cents, limit.pending_max_bet_cents, limit.pending_from = data["max_bet_cents"], None, None
        limit.week_start = datetime.fromisoformat(data["week_start"])
        limit.set_at = occurred_at.astimezone(UTC)
        return
    _apply(
        limit,
        max_bet_cents=data["max_bet_cents"],
        week_start=datetime.fromisoformat(data["week_start"]),
        moment=occurred_at.astimezone(UTC),
    )


def sealed_self_limit(code: str) -> SelfLimit | None:
    """The patron's limit (an unsaved ``SelfLimit``) as his sealed ``SelfLimitSet`` events say
    it, None when they set none. One query over his own stream (at most one change a week)."""
    limit = None
    rows = _limit_events(code).order_by("version").values_list(*SEAL_FIELDS, "data", "occurred_at")
    for data, occurred_at in sealed_rows(rows):
        limit = limit or SelfLimit(patron_id=code)
        _replay_one(limit, data, occurred_at)
    return limit


# (position, hash, seal) of a SelfLimitSet -> its data, once its seal and hash were checked
# (None: they did not hold). A bet placement reads the three with its one statement and checks the
# event only the first time it sees it: what is served is the data that was checked, so a row
# changed later under the same position, hash and seal serves nothing of its own.
_checked: dict[tuple, dict | None] = {}
_CHECKED_MAX = 20_000


def _latest_data(code: str, latest: tuple | None) -> dict | None:
    """The data of the patron's latest ``SelfLimitSet`` (``latest``: its position, hash and seal,
    or None to look it up) when it is the application's, else None."""
    events = _limit_events(code)
    if latest is None:
        rows = events.order_by("-version").values_list(*SEAL_FIELDS, "data")[:1]
        return next((data for (data,) in sealed_rows(rows)), None)
    key = tuple(latest)
    if key in _checked:
        return _checked[key]
    position, hash_, seal_ = key
    rows = events.filter(position=position, hash=hash_, seal=seal_).values_list(*SEAL_FIELDS, "data")
    data = next((data for (data,) in sealed_rows(rows)), None)
    if len(_checked) >= _CHECKED_MAX:
        _checked.clear()
    _checked[key] = data
    return data


def sealed_in_force(code: str, moment: datetime, *, latest: tuple | None = None) -> int | None:
    """The limit (cents) the patron's sealed ``SelfLimitSet`` events put in force at ``moment``,
    None when they set none. ``latest``: the position, hash and seal of his latest one, when the
    caller read them already (the bet placement's statement).

    The hot path of a bet placement: his latest event alone when it is sealed and says what is
    in force until its ``effective_from`` (``in_force_cents``, or no pending raise); his whole
    replay otherwise (an older event, or a latest one written around the application)."""
    data = _latest_data(code, latest)
    if data is not None:
        effective = datetime.fromisoformat(data["effective_from"]) if "effective_from" in data else None
        if effective is None or moment >= effective:
            return data["max_bet_cents"]
        if "in_force_cents" in data:
            return data["in_force_cents"]
    limit = sealed_self_limit(code)
    if limit is None:
        return None
    return in_force(limit.max_bet_cents, limit.pending_max_bet_cents, limit.pending_from, moment)


def limit_with_ledger(code: str, row_limit: int | None, latest: tuple | None, moment: datetime) -> int | None:
    """The limit (cents) a bet placement enforces: the stricter of the row's ``row_limit`` (in
    force at ``moment``) and the one his sealed events put in force. ``latest``: the position,
    hash and seal of his latest ``SelfLimitSet`` (None when he has none: the row alone, and no
    query at all).

    Why the stricter, not the sealed one alone: the row and the events are written in one
    transaction, so they differ only when someone changed the row around the application. A row
    raised (or deleted) that way must grant nothing, so the events cap it; a row lowered that way
    only refuses bets the patron himself could have refused, and a patron must never be allowed
    more than either says he asked for (``ledger replay-check`` names the difference). A row
    with no event at all (a limit older than the ledger's events) still binds him."""
    if latest is None:
        return row_limit
    return stricter(row_limit, sealed_in_force(code, moment, latest=latest))


def limit_in_force(code: object, *, now: datetime | None = None) -> int | None:
    """The patron's limit in force at ``now`` (default: the module clock) in cents, None when he has none.

    The stricter of his row's and his sealed events' (``limit_with_ledger``): one primary-key
    lookup (``SelfLimit`` is keyed by the patron's code) and one over his own stream."""
    if not isinstance(code, str):
        return None
    moment = _moment(now)
    fields = ("max_bet_cents", "pending_max_bet_cents", "pending_from")
    row = SelfLimit.objects.filter(pk=code).values_list(*fields).first()
    return stricter(None if row is None else in_force(*row, moment), sealed_in_force(code, moment))


def _shape(limit: SelfLimit, moment: datetime) -> dict:
    limit_now = in_force(limit.max_bet_cents, limit.pending_max_bet_cents, limit.pending_from, moment)
    pending = limit.pending_max_bet_cents is not None and limit_now != limit.pending_max_bet_cents
    return {
        "patron": limit.patron_id,
        "max_bet_cents": limit_now,
        "pending_max_bet_cents": limit.pending_max_bet_cents if pending else None,
        "pending_from": _iso(limit.pending_from) if pending else None,
        "week_start": _iso(limit.week_start),
        "next_change_from": _iso(next_reset_after(limit.week_start)),
    }


def _patron(code: object) -> Patron:
    # A NUL is no character of a code, and PostgreSQL refuses it in a query's text.
    readable = isinstance(code, str) and "\x00" not in code
    patron = Patron.objects.filter(code=code).first() if readable else None
    if patron is None:
        raise NotFound(f"no patron {code!r}", field="patron")
    return patron


def _not_anonymous(patron: Patron, what: str) -> None:
    if patron.code == ANONYMOUS_PATRON:
        raise InvalidInput(
            f"the anonymous patron (unrated play) cannot {what}; register the patron first", field="patron"
        )


def _valid_pin(pin: object) -> str:
    if not isinstance(pin, str) or not PIN_PATTERN.fullmatch(pin):
        raise InvalidInput("the PIN must be 4 to 8 digits", field="pin")
    return pin


def patron_pin_set(
    *, patron: str, pin: str, document: str, actor: str, now: datetime | None = None, idempotency_key: str | None = None
) -> dict:
    """Set the patron's PIN at the cage, his identity document shown; he types it himself.

    ``document``: the number the cashier reads off the document the patron shows; it must be
    the document on file (compared as ``patrons.documents.document_key``). ``pin``: 4 to 8
    digits, stored only as a salted hash (``make_password``). A patron who has one gets another
    only after a reset (``patron_pin_reset``: two logins).
    Returns ``{"patron", "pin_set_at"}`` and appends ``PatronPinSet {patron, pin_digest}`` on
    ``patron/<code>`` (neither the PIN nor its hash nor the document: ``pin_digest`` is the
    keyed digest of the stored hash, ``pin_hash_digest``, so that a hash planted in the row with
    raw SQL is no PIN: ``pin_as_recorded``).

    Raises ``InvalidInput`` (400: field ``pin``, not 4 to 8 digits; field ``document``, not
    the document on file, or none on file; field ``patron``, the anonymous patron),
    ``NotFound`` (404, field ``patron``), ``StateConflict`` (409, field ``patron``: he has a PIN).
    """
    _valid_pin(pin)
    moment = _moment(now)
    # Neither the PIN nor the document goes into the request: its fingerprint is a plain digest,
    # and a 4-digit PIN is found from its digest in 10,000 tries.
    request = {"op": "patron_pin_set", "patron": patron}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _patron(patron)
        _not_anonymous(who, "have a PIN")
        if not who.document:
            raise InvalidInput(
                f"patron {who.code} has no identity document on file: the cage records it first",
                field="document",
            )
        if not isinstance(document, str) or document_key(document.strip()) != who.document_key:
            raise InvalidInput(f"this is not the identity document on file for patron {who.code}", field="document")
        if PatronPin.objects.filter(pk=who.code).exists():
            # One person who reads the document off a screen could otherwise replace it and use it.
            raise StateConflict(
                f"patron {who.code} has a PIN already: to choose another, the cage asks for a PIN reset, "
                "which a cage supervisor confirms from his own login",
                field="patron",
            )
        stream = f"patron/{who.code}"
        pin_hash = make_password(pin)
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[
                NewEvent(
                    PIN_EVENT_TYPE,
                    {"patron": who.code, "pin_digest": pin_hash_digest(who.code, pin_hash)},
                    occurred_at=moment,
                )
            ],
        )
        PatronPin.objects.update_or_create(
            patron=who,
            defaults={"pin_hash": pin_hash, "set_at": moment, "failed_attempts": 0, "locked_until": None},
        )
        return cmd.finish({"patron": who.code, "pin_set_at": _iso(moment)})


def pin_hash_digest(code: str, pin_hash: str) -> str:
    """The keyed digest (``ledger.identity.digest``) of patron ``code``'s stored PIN hash that
    ``PatronPinSet`` records: it tells a planted hash, and gives no way to test a PIN."""
    return digest("patron pin", code, pin_hash)


def pin_as_recorded(code: str, pin_hash: str) -> bool:
    """Whether ``pin_hash`` (the row's) is the hash patron ``code``'s sealed PIN events say the
    cage stored: his latest sealed ``PatronPinSet`` / ``PatronPinReset`` is a set whose
    ``pin_digest`` matches. False when no sealed event set a PIN, or a reset came after it (a row
    inserted, or revived, with raw SQL). A set older than the digests (none recorded) is taken
    as recorded, as ``staff.identity.login_refusal`` does: a ledger older than them locks nobody
    out. One query over his own stream."""
    rows = (
        Event.objects.filter(stream=f"patron/{code}", type__in=(PIN_EVENT_TYPE, PIN_RESET_EVENT))
        .order_by("-version")
        .values_list(*SEAL_FIELDS, "type", "data")
    )
    for type_, data in sealed_rows(rows, chunk=4):
        if type_ != PIN_EVENT_TYPE:
            return False
        recorded = data.get("pin_digest")
        return recorded is None or digest_matches(recorded, "patron pin", code, pin_hash or "")
    return False


def sealed_wrong_pins(code: str) -> tuple[int, bool]:
    """``(wrong PINs in a row, locked)`` as patron ``code``'s sealed events say: the
    ``PatronPinRefused`` since his last PIN set, reset or ``PatronPinAccepted``, and whether a
    ``PatronPinLocked`` came since. One query over his own stream."""
    rows = (
        Event.objects.filter(
            stream=f"patron/{code}",
            type__in=(PIN_EVENT_TYPE, PIN_RESET_EVENT, PIN_LOCKED_EVENT, PIN_REFUSED_EVENT, PIN_ACCEPTED_EVENT),
        )
        .order_by("-version")
        .values_list(*SEAL_FIELDS, "type", "data")
    )
    wrong, locked = 0, False
    for type_, _ in sealed_rows(rows, chunk=8):
        if type_ in (PIN_EVENT_TYPE, PIN_RESET_EVENT, PIN_ACCEPTED_EVENT):
            break
        if type_ == PIN_LOCKED_EVENT:
            locked = True
        elif type_ == PIN_REFUSED_EVENT:
            wrong += 1
    return wrong, locked


def _check_pin(code: str, pin: object, moment: datetime, actor: str) -> None:
    """Raise ``InvalidInput`` (field ``pin``) unless ``pin`` is the patron's PIN and it is not locked.

    In a transaction of its own that commits before the refusal is raised: the count of wrong
    PINs must survive the refusal (inside the change's command it would be rolled back with it).
    The ``MAX_PIN_ATTEMPTS``-th wrong PIN in a row locks it until the cage resets it with a
    cage supervisor (``patron_pin_reset``), and ``PatronPinLocked`` goes to the ledger (the
    exception log lists it): a timed lock let a 4-digit PIN be found in days, unseen."""
    refusal, locked_now, noted = None, False, None
    with transaction.atomic(durable=True):
        row = PatronPin.objects.select_for_update().filter(pk=code).first()
        wrong_sealed, locked_sealed = sealed_wrong_pins(code)
        if row is not None:
            row.failed_attempts = max(row.failed_attempts, wrong_sealed)
        if row is None:
            refusal = f"patron {code} has no PIN: the cage sets it, his identity document shown"
        elif (
            locked_sealed
            or row.failed_attempts >= MAX_PIN_ATTEMPTS
            or (row.locked_until is not None and moment < row.locked_until)
        ):
            refusal = (
                f"patron {code}'s PIN is locked after {MAX_PIN_ATTEMPTS} wrong PINs in a row: the cage resets it, "
                "a cage supervisor confirming"
            )
        elif not pin_as_recorded(code, row.pin_hash):
            # Changed around the application: no PIN opens it, and no wrong PIN is counted
            # (the patron did nothing wrong).
            refusal = (
                f"patron {code}'s PIN on file is not the one the cage set (it differs from the ledger): "
                "the cage resets it, a cage supervisor confirming"
            )
        elif not isinstance(pin, str) or not check_password(pin, row.pin_hash):
            row.failed_attempts += 1
            noted = NewEvent(PIN_REFUSED_EVENT, {"patron": code, "wrong_in_a_row": row.failed_attempts})
            left = MAX_PIN_ATTEMPTS - row.failed_attempts
            refusal = f"wrong PIN ({left} more wrong and it locks)" if left else ""
            if not left:
                locked_now = True
                refusal = (
                    f"wrong PIN, {MAX_PIN_ATTEMPTS} in a row: the PIN is locked until the cage resets it, "
                    "a cage supervisor confirming"
                )
            row.save(update_fields=["failed_attempts"])
        elif row.failed_attempts or row.locked_until is not None:
            if row.failed_attempts:
                noted = NewEvent(PIN_ACCEPTED_EVENT, {"patron": code, "after_wrong": row.failed_attempts})
            row.failed_attempts, row.locked_until = 0, None
            row.save(update_fields=["failed_attempts", "locked_until"])
    events = [noted] if noted is not None else []
    if locked_now:
        events.append(NewEvent(PIN_LOCKED_EVENT, {"patron": code, "wrong_in_a_row": MAX_PIN_ATTEMPTS}))
    if events:
        with ledger_command(actor=actor, request={"op": "patron_pin_checked", "patron": code}) as cmd:
            stream = f"patron/{code}"
            cmd.append(stream=stream, expected_version=stream_version(stream), events=events)
    if refusal is not None:
        raise InvalidInput(refusal, field="pin")


def patron_pin_reset(*, patron: str, approver: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Clear the patron's PIN (forgotten, or locked after wrong PINs), asked at the cage and
    confirmed by a cage supervisor other than the one who asked, from his own login
    (``approvals`` act ``patron_pin_reset``); the patron then chooses a new one
    (``patron_pin_set``, his document shown). No PIN passes through the request. Returns
    ``{"patron", "reset"}`` and appends ``PatronPinReset {patron, approved_by}``.

    Raises ``RoleRequired`` (403: not a cashier or cage supervisor; no second signature),
    ``NotFound`` (404), ``StateConflict`` (409: he has no PIN)."""
    require_role(actor, Role.CASHIER, Role.CAGE_SUPERVISOR, step="resetting a patron's PIN")
    require_second_signature("resetting a patron's PIN", approver, actor, Role.CAGE_SUPERVISOR)
    request = {"op": "patron_pin_reset", "patron": patron}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _patron(patron)
        deleted, _ = PatronPin.objects.filter(pk=who.code).delete()
        if not deleted:
            raise StateConflict(f"patron {who.code} has no PIN to reset", field="patron")
        stream = f"patron/{who.code}"
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[NewEvent(PIN_RESET_EVENT, {"patron": who.code, "approved_by": approver})],
        )
        return cmd.finish({"patron": who.code, "reset": True})


def self_limit_set(
    *,
    patron: str,
    max_bet_cents: int,
    pin: str,
    actor: str,
    now: datetime | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Change the patron's own maximum bet to ``max_bet_cents`` (integer cents, > 0) at ``now``
    (default: the module clock ``now()``), confirmed by his ``pin``.

    A reduction (or the first setting) is in force at once; a raise only from the next weekly
    reset. Returns ``self_limit_get``'s shape at ``now`` without ``may_change_now``:
    ``{"patron", "max_bet_cents" (in force now), "pending_max_bet_cents", "pending_from" (null
    unless a raise waits), "week_start", "next_change_from"}`` (times ISO 8601 UTC). Appends
    ``SelfLimitSet {patron, max_bet_cents, week_start, effective_from}`` on ``patron/<code>``.

    Raises ``InvalidInput`` (field ``max_bet_cents``: not a positive whole number of cents;
    field ``pin``: no PIN, a wrong PIN, or a locked one; field ``patron``: the anonymous patron),
    ``NotFound`` (404, field ``patron``), ``Conflict`` (409: he already changed it this week;
    the message says when he may next).
    """
    if type(max_bet_cents) is not int or not 0 < max_bet_cents <= MAX_CENTS:
        raise InvalidInput(
            f"the self-limit must be a positive whole number of cents, at most {MAX_CENTS}", field="max_bet_cents"
        )
    moment = _moment(now)
    who = _patron(patron)
    _not_anonymous(who, "set a self-limit")
    _check_pin(who.code, pin, moment, actor)
    request = {"op": "self_limit_set", "patron": who.code, "max_bet_cents": max_bet_cents}  # never the PIN
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        week_start = week_start_of(moment)
        # Read under the ledger writer lock (taken by ledger_command): two changes racing each
        # other are serialised, so only one of them can be this week's change.
        # The change starts from what his sealed events say, not from the row: a row raised with
        # raw SQL would make a raise look like a reduction (in force at once), and a row whose
        # week was moved back would let him change it twice in a week. A row no sealed event
        # vouches for (a limit older than the events) is measured from as before.
        row = SelfLimit.objects.filter(pk=who.code).first()
        current = sealed_self_limit(who.code) or row
        if current is not None and current.week_start >= week_start:
            raise Conflict(
                f"patron {who.code} already changed his self-limit this week; it may be changed once a week, "
                f"and next from {_when(next_reset_after(current.week_start))}"
            )
        limit = row or SelfLimit(patron=who)
        if current is not None and current is not row:
            for name in ("max_bet_cents", "pending_max_bet_cents", "pending_from", "week_start", "set_at"):
                setattr(limit, name, getattr(current, name))
        _apply(limit, max_bet_cents=max_bet_cents, week_start=week_start, moment=moment)
        stream = f"patron/{who.code}"
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[
                NewEvent(
                    EVENT_TYPE,
                    {
                        "patron": who.code,
                        "max_bet_cents": max_bet_cents,
                        "week_start": _iso(week_start),
                        "effective_from": _iso(limit.pending_from or moment),
                        # What is in force until effective_from: a bet placement reads this one
                        # event instead of replaying his changes (``sealed_in_force``).
                        "in_force_cents": limit.max_bet_cents,
                    },
                    # The instant that decided the week, so an auditor can recompute week_start.
                    occurred_at=moment,
                )
            ],
        )
        limit.save()
        return cmd.finish(_shape(limit, moment))


def _apply(limit: SelfLimit, *, max_bet_cents: int, week_start: datetime, moment: datetime) -> None:
    """One change on ``limit`` (unsaved for a first setting): the live service and the replay both."""
    limit_now = (
        None
        if limit.max_bet_cents is None
        else in_force(limit.max_bet_cents, limit.pending_max_bet_cents, limit.pending_from, moment)
    )
    if limit_now is not None and max_bet_cents > limit_now:
        # A raise: the limit in force stays until the next Friday 00:00 GMT-5.
        limit.max_bet_cents = limit_now
        limit.pending_max_bet_cents, limit.pending_from = max_bet_cents, next_reset_after(week_start)
    else:
        limit.max_bet_cents, limit.pending_max_bet_cents, limit.pending_from = max_bet_cents, None, None
    limit.week_start, limit.set_at = week_start, moment


def self_limit_get(patron: str, *, now: datetime | None = None) -> dict | None:
    """The patron's self-limit at ``now`` (default: the module clock), or None when he has set none.

    ``self_limit_set``'s shape plus ``may_change_now``: ``max_bet_cents`` is the limit in force
    now, ``pending_max_bet_cents`` / ``pending_from`` a raise that waits for its reset (null when
    none), ``next_change_from`` the reset from which he may change it again (possibly past).
    Raises ``NotFound`` (field ``patron``) for an unknown patron.
    """
    row = SelfLimit.objects.filter(pk=patron).first() if isinstance(patron, str) else None
    sealed = sealed_self_limit(patron) if isinstance(patron, str) and "\x00" not in patron else None
    limit = sealed or row
    if limit is None:
        _patron(patron)  # an unknown patron is a 404 of its own, not "no limit"
        return None
    moment = _moment(now)
    result = _shape(limit, moment)
    if row is not None and sealed is not None and _state(row) != _state(sealed):
        # The row was changed around the application: what is shown is what his sealed events
        # say, or the row's limit when it is the stricter (it binds him too: ``limit_with_ledger``).
        result["max_bet_cents"] = stricter(
            result["max_bet_cents"], in_force(row.max_bet_cents, row.pending_max_bet_cents, row.pending_from, moment)
        )
    result["may_change_now"] = moment >= next_reset_after(limit.week_start)
    return result


_READ = object()  # check_self_limit's default: look the limit up


def check_self_limit(
    patron_code: str,
    stake_cents: int,
    *,
    table: str | None = None,
    round_id: object = None,
    field: str = "stake_cents",
    limit_cents: int | None | object = _READ,
) -> None:
    """Refuse a bet placement whose total stake ``stake_cents`` is over the patron's own limit.

    A pure read: one primary-key lookup (``limit_in_force`` at the module clock: a pending raise
    counts from its reset). A stake equal to the limit is accepted; a patron with no limit (and
    the anonymous patron) is not limited. Raises ``BetRefused`` (an ``InvalidInput``, 400 on
    ``field``, kind ``self_limit``) naming the limit in EUR and carrying ``table`` (code) and
    ``round_id`` when the caller gives them, so that the floor can record the refusal
    (``games.services.refusals``). ``limit_cents``: the limit in force when the caller read it
    already in the same transaction (None: he has none), as roulette's ``bet_placement_reads`` does.
    """
    limit = limit_cents
    if limit is _READ:
        limit = limit_in_force(patron_code)
    if limit is not None and stake_cents > limit:
        raise BetRefused(
            f"a bet of {_eur(stake_cents)} is over patron {patron_code}'s own limit of {_eur(limit)} "
            "(responsible gaming self-limit)",
            kind="self_limit",
            stake_cents=stake_cents,
            field=field,
            table=table,
            round_id=round_id,
            patron=patron_code,
        )


def _state(limit: SelfLimit) -> dict:
    return {
        "max_bet_cents": limit.max_bet_cents,
        "week_start": _iso(limit.week_start),
        "pending_max_bet_cents": limit.pending_max_bet_cents,
        "pending_from": _iso(limit.pending_from),
    }


def check_self_limits() -> list[Difference]:
    """``ledger replay-check``: each patron's limit, pending raise and week, replayed from the
    application's sealed ``SelfLimitSet`` events (an event someone inserted around the
    application carries no valid seal and is left out, so it cannot vouch for a raised limit)."""
    replayed: dict[str, SelfLimit] = {}
    rows = Event.objects.filter(type=EVENT_TYPE).order_by("position").values_list(*SEAL_FIELDS, "data", "occurred_at")
    for data, occurred_at in sealed_rows(rows.iterator(chunk_size=2000)):
        _replay_one(replayed.setdefault(data["patron"], SelfLimit(patron_id=data["patron"])), data, occurred_at)
    live = {s.patron_id: _state(s) for s in SelfLimit.objects.all()}
    return list(compare("self_limit", live, {code: _state(limit) for code, limit in replayed.items()}))
