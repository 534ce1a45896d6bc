"""Comps: what the house gives a rated patron back from his theoretical win.

A patron earns comps at the reinvestment rate (``CASINO_COMP_REINVESTMENT_BASIS_POINTS``,
2500 = 25.00 %) of his theoretical win, summed over his rated days (the ratings projection,
``ledger.models.PatronDayRating``: Σ stake × the exact house edge of each bet, and of his
ratings by hand):

    earned = floor(Σ theoretical win × rate / 10,000)      (cents, rounded down: the house's
                                                            side of a fraction of a cent)
    given = the balance of ``comps:<P>`` (every comp given him, from the ledger)
    available = earned − given

A comp (``CompGiven``, stream ``comps/<patron>``) is a meal, a room, a show or another
courtesy, valued at the house's cost. It posts ``comps:<P> +X`` (the house's marketing
expense, per patron) against ``comps:owed −X`` (what the house owes the outlet that serves
it); no chip or cash moves, so no table's win changes. The event records the rate, the earned
and given figures it was given against, so an auditor recomputes each one. A comp given in error
is reversed (``CompReversed``, the same legs the other way, with a reason), never edited.

The earned figure reads the ratings projection: ``manage.py ledger replay-check`` rebuilds it
from the events and names a row changed by hand, and a projection catching up (a second or so
behind the floor) only makes the figure smaller.
"""

from __future__ import annotations

from fractions import Fraction

from django.conf import settings

from basis.money import format_cents
from ledger import accounts, store
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.models import Event, PatronDayRating
from ledger.store import Leg, NewEvent
from staff.roles import Role, require_role

from ..models import Patron
from ..selectors import patron_get

GIVEN, REVERSED = "CompGiven", "CompReversed"
KINDS = {"meal": "Meal", "room": "Room", "show": "Show", "travel": "Travel", "other": "Other"}
GIVERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR)
MAX_COMP_CENTS = 10_000_000  # 100,000.00: above is a typing error, not a courtesy
MAX_NOTE = 200


def reinvestment_basis_points() -> int:
    """The rate in force, basis points (0 to 10,000)."""
    rate = settings.CASINO_COMP_REINVESTMENT_BASIS_POINTS
    if type(rate) is not int or not 0 <= rate <= 10_000:
        raise ValueError("CASINO_COMP_REINVESTMENT_BASIS_POINTS must be a whole number from 0 to 10000")
    return rate


def theoretical_win(patron: str) -> Fraction:
    """The patron's theoretical win over every rated day, exact (a fraction of cents)."""
    rows = PatronDayRating.objects.filter(patron=patron).values_list("theoretical_win", flat=True)
    return sum((Fraction(value) for value in rows), Fraction(0))


def comp_balance(patron: str) -> dict:
    """``{"patron", "rate_basis_points", "theoretical_win_cents", "earned_cents",
    "given_cents", "available_cents"}`` (cents; the theoretical win rounded down, the earned
    figure as the module docstring says). ``available_cents`` is never below 0 (a reversal of a
    comp, or a rate lowered, may leave more given than earned)."""
    rate = reinvestment_basis_points()
    theory = theoretical_win(patron)
    earned = max(0, int(theory * rate // 10_000))
    given = store.balance(accounts.patron_comps(patron))
    return {
        "patron": patron,
        "rate_basis_points": rate,
        "theoretical_win_cents": int(theory // 1),
        "earned_cents": earned,
        "given_cents": given,
        "available_cents": max(0, earned - given),
    }


def comps_given(patron: str, *, limit: int = 50) -> list[dict]:
    """The patron's comps, newest first: ``{"position", "occurred_at" (UTC), "kind",
    "kind_label", "amount_cents", "note", "by", "reversed" (the reversal's reason or None)}``."""
    events = list(
        Event.objects.filter(stream=f"comps/{patron}", type__in=(GIVEN, REVERSED))
        .order_by("-position")
        .values("position", "type", "data", "actor", "occurred_at")[: limit * 2]
    )
    reversed_reasons = {e["data"].get("reverses"): e["data"].get("reason") for e in events if e["type"] == REVERSED}
    return [
        {
            "position": e["position"],
            "occurred_at": e["occurred_at"],
            "kind": e["data"]["kind"],
            "kind_label": KINDS.get(e["data"]["kind"], e["data"]["kind"]),
            "amount_cents": e["data"]["amount_cents"],
            "note": e["data"].get("note", ""),
            "by": e["actor"],
            "reversed": reversed_reasons.get(e["position"]),
        }
        for e in events
        if e["type"] == GIVEN
    ][:limit]


def _rated_patron(code: str) -> Patron:
    patron = patron_get(code)
    if patron.code == accounts.ANONYMOUS_PATRON or patron.kind == Patron.Kind.ANONYMOUS:
        raise InvalidInput("comps go to a rated patron, not to anonymous play", field="patron")
    return patron


def _text(value: object, field: str, *, required: bool) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if value is not None and not isinstance(value, str):
        raise InvalidInput("must be text", field=field)
    if required and not text:
        raise InvalidInput("say why", field=field)
    if len(text) > MAX_NOTE or "\x00" in text or any("\ud800" <= c <= "\udfff" for c in text):
        raise InvalidInput(f"at most {MAX_NOTE} characters of plain text", field=field)
    return text


def comp_give(
    *, patron: str, kind: str, amount_cents: int, actor: str, note: str = "", idempotency_key: str | None = None
) -> dict:
    """Give ``patron`` a comp of ``kind`` (one of ``KINDS``) worth ``amount_cents`` at the
    house's cost, within what he has earned.

    Returns ``{"patron", "kind", "amount_cents", "available_cents" (after), "event"}``. Raises
    ``RoleRequired`` (403) unless ``actor`` is a pit boss or a cage supervisor,
    ``InvalidInput`` (400) naming ``patron`` (unknown or anonymous), ``kind``, ``amount_cents``
    (not a positive whole number of cents, or more than he has available) or ``note``."""
    require_role(actor, *GIVERS, step="giving a comp")
    if kind not in KINDS:
        raise InvalidInput(f"one of {', '.join(KINDS)}", field="kind")
    if type(amount_cents) is not int or not 1 <= amount_cents <= MAX_COMP_CENTS:
        raise InvalidInput(f"a positive whole number of cents, at most {MAX_COMP_CENTS}", field="amount_cents")
    note = _text(note, "note", required=False)
    request = {"op": "comp_give", "patron": patron, "kind": kind, "amount_cents": amount_cents, "note": note}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _rated_patron(patron)
        balance = comp_balance(who.code)
        if amount_cents > balance["available_cents"]:
            raise InvalidInput(
                f"{who.code} has {format_cents(balance['available_cents'])} of comps available "
                f"(earned {format_cents(balance['earned_cents'])}, given {format_cents(balance['given_cents'])})",
                field="amount_cents",
            )
        stream = f"comps/{who.code}"
        data = {
            "patron": who.code,
            "kind": kind,
            "amount_cents": amount_cents,
            "note": note,
            "rate_basis_points": balance["rate_basis_points"],
            "earned_cents": balance["earned_cents"],
            "given_before_cents": balance["given_cents"],
        }
        legs = [Leg(accounts.patron_comps(who.code), amount_cents), Leg(accounts.COMPS_OWED, -amount_cents)]
        (event,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            events=[NewEvent(GIVEN, data, legs)],
        )
        return cmd.finish(
            {
                "patron": who.code,
                "kind": kind,
                "amount_cents": amount_cents,
                "available_cents": balance["available_cents"] - amount_cents,
                "event": event.position,
            }
        )


def comp_reverse(*, patron: str, event: int, reason: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Reverse the comp recorded at ledger position ``event`` (given in error): the same legs
    the other way, with ``reason``. Returns ``{"patron", "reverses", "amount_cents", "event"}``.
    Raises ``RoleRequired`` (403), ``InvalidInput`` (400: ``reason`` empty), ``NotFound`` (404:
    no comp of this patron there), ``StateConflict`` (409: already reversed)."""
    require_role(actor, *GIVERS, step="reversing a comp")
    why = _text(reason, "reason", required=True)
    if type(event) is not int or event < 1:
        raise InvalidInput("a ledger position", field="event")
    request = {"op": "comp_reverse", "patron": patron, "event": event, "reason": why}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _rated_patron(patron)
        stream = f"comps/{who.code}"
        original = Event.objects.filter(position=event, stream=stream, type=GIVEN).first()
        if original is None:
            raise NotFound(f"no comp of {who.code} at position {event}", field="event")
        if Event.objects.filter(stream=stream, type=REVERSED, data__reverses=event).exists():
            raise StateConflict("this comp is already reversed", field="event")
        amount = original.data["amount_cents"]
        legs = [Leg(accounts.patron_comps(who.code), -amount), Leg(accounts.COMPS_OWED, amount)]
        data = {"patron": who.code, "reverses": event, "amount_cents": amount, "reason": why}
        (saved,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            events=[NewEvent(REVERSED, data, legs)],
            causation_id=str(original.position),
        )
        return cmd.finish({"patron": who.code, "reverses": event, "amount_cents": amount, "event": saved.position})
