"""Foreign-currency exchange at the cage: the rate of the day, and a patron's foreign banknotes
bought at a cashier window for house value chips or house cash.

Rates. A cage supervisor records the cage's buying rate of each foreign currency
(``CASINO_FOREIGN_CURRENCIES``) for the gaming day: ``ExchangeRateSet`` on ``fxrate/<CUR>``
with the rate as an exact decimal string (``"0.921437"``: house units for one foreign unit, six
decimals at most) and the same in parts per million (``rate_ppm``: 921437), never a float; the
event's actor and time say who set it and when. The latest rate recorded in the current gaming
day is the rate of the day; without one, an exchange in that currency is refused (409).

Exchange. ``foreign_cents`` hundredths of the currency at ``rate_ppm``: the house amount is
``foreign_cents × rate_ppm / 1,000,000`` cents rounded down (toward the house), the remainder
(``rounding_remainder_cents``, the cent's fraction the patron is not paid, an exact decimal
string) kept on the ``ForeignCurrencyExchanged`` event with the rate it was made at. The
postings are ``ledger.posting_rules.foreign_exchange``: each currency balances through the
exchange position ``cage:fx_position``; the notes lie in the window's drawer
``cage:window:<n>:foreign:<CUR>`` until its close counts them into the main bank
(``cage:foreign:<CUR>``, ``cashier.services.cage_shifts``). The house amount is screened for
AML as a cash chip sale is (channel ``foreign_exchange``, cash in).
"""

from __future__ import annotations

import uuid
from decimal import Decimal, InvalidOperation

from django.conf import settings

from basis.money import format_cents
from core.ceilings import check_ceiling
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services import aml
from staff.roles import Role, require_role

from .cage import _open_cage, _positive_cents
from .cage_shifts import CAGE_ROLES, foreign_currencies, window_book

PPM = 1_000_000
PAID_IN = ("chips", "cash")
# A buying rate above this (house units for one foreign unit) is a typing error, not a rate.
MAX_RATE_PPM = 10_000 * PPM


def rate_stream(currency: str) -> str:
    return f"fxrate/{currency}"


def format_rate(ppm: int) -> str:
    """Parts per million → the exact decimal: ``921437`` → ``"0.921437"``."""
    return f"{ppm // PPM}.{ppm % PPM:06d}"


def format_foreign(cents: int, currency: str) -> str:
    """Hundredths of a foreign currency as people read them: ``10000, "USD"`` → ``"100.00 USD"``."""
    return format_cents(cents, currency)


def _currency(value: object) -> str:
    accepted = foreign_currencies()
    if not isinstance(value, str) or value not in accepted:
        raise InvalidInput(
            f"the cage buys {', '.join(accepted) or 'no foreign currency'}, not {str(value)[:10]!r}", field="currency"
        )
    return value


def _rate_ppm(rate: object) -> int:
    """An exact decimal (a string such as ``"0.921437"``, or a ``Decimal``) → parts per million.
    ``InvalidInput`` (field ``rate``) for a float, more than six decimals, zero or less, too large."""
    if isinstance(rate, bool) or not isinstance(rate, (str, Decimal)):
        raise InvalidInput("a rate is an exact decimal written as text, e.g. 0.921437", field="rate")
    try:
        value = Decimal(rate.strip().replace(",", ".") if isinstance(rate, str) else rate)
    except InvalidOperation:
        raise InvalidInput(f"{str(rate)[:20]!r} is not a rate: write it as 0.921437", field="rate") from None
    if not value.is_finite() or value <= 0 or value.as_tuple().exponent < -6:
        raise InvalidInput("a rate is above zero with six decimals at most, e.g. 0.921437", field="rate")
    ppm = int(value * PPM)
    if ppm > MAX_RATE_PPM:
        raise InvalidInput(f"a rate above {format_rate(MAX_RATE_PPM)} is not a buying rate", field="rate")
    return ppm


def exchange_rate_set(*, currency: str, rate: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Record the cage's buying rate of ``currency`` for the gaming day: house units paid for one
    unit of it, an exact decimal string (six decimals at most; a float is refused).

    Returns ``{"currency", "rate", "rate_ppm", "gaming_day", "event"}``. Raises ``InvalidInput``
    (a currency the cage does not buy: field ``currency``; a bad rate: field ``rate``),
    ``RoleRequired`` (403: a cage supervisor sets the rate).
    """
    require_role(actor, Role.CAGE_SUPERVISOR, step="recording an exchange rate")
    code = _currency(currency)
    ppm = _rate_ppm(rate)
    request = {"op": "exchange_rate_set", "currency": code, "rate_ppm": ppm}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        stream = rate_stream(code)
        data = {"currency": code, "rate": format_rate(ppm), "rate_ppm": ppm, "house_currency": settings.CASINO_CURRENCY}
        (event,) = cmd.append(
            stream=stream, expected_version=store.stream_version(stream), events=[NewEvent("ExchangeRateSet", data)]
        )
        return cmd.finish(data | {"gaming_day": event.gaming_day.isoformat(), "event": event.position})


def rate_of_the_day(currency: str) -> Event | None:
    """The latest ``ExchangeRateSet`` of ``currency`` recorded in the current gaming day, or None."""
    return (
        Event.objects.filter(stream=rate_stream(currency), type="ExchangeRateSet", gaming_day=current_gaming_day())
        .order_by("-version")
        .first()
    )


def rates_of_the_day() -> dict[str, Event | None]:
    """``{currency: its rate event of the day or None}`` for each currency the cage buys."""
    return {code: rate_of_the_day(code) for code in foreign_currencies()}


def house_value(foreign_cents: int, rate_ppm: int) -> tuple[int, str]:
    """``(house cents rounded down, the remainder in cents as an exact decimal string)``:
    ``10000, 921437`` → ``(9214, "0.37")`` (100.00 × 0.921437 = 92.1437)."""
    whole, rest = divmod(foreign_cents * rate_ppm, PPM)
    return whole, str((Decimal(rest) / PPM).normalize()) if rest else "0"


def cage_foreign_book() -> dict[str, int]:
    """``{currency: hundredths}``: the foreign banknotes of the whole cage (main bank and open
    windows' drawers), each currency the cage buys. Every posting in a foreign currency is the
    notes', the position's or that currency's over/short, and they sum to zero: the notes are
    minus the other two."""
    return {
        code: -store.balance(accounts.FX_POSITION, code) - store.balance(accounts.foreign_over_short(code), code)
        for code in foreign_currencies()
    }


@aml.records_refusals
def foreign_exchange(
    *,
    currency: str,
    foreign_cents: int,
    paid_in: str,
    actor: str,
    patron: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Buy a patron's ``foreign_cents`` hundredths of ``currency`` in banknotes at the actor's
    window, at the rate of the day, paying the house value in value chips or cash (``paid_in``
    ``"chips"`` / ``"cash"``); ``patron``: his code (default: the shared anonymous patron).

    Returns ``{"transaction", "event", "patron", "currency", "foreign_cents", "rate",
    "rate_ppm", "house_cents", "rounding_remainder_cents", "paid_in", "window", "aml"}``
    (house_cents: cents of the house currency, rounded down; the remainder an exact decimal
    string of cents). Raises ``InvalidInput`` (currency not bought: field ``currency``; bad
    amount: ``foreign_cents``; ``paid_in``; an amount worth less than a cent), ``RoleRequired``
    (403: cashier or cage supervisor), ``StateConflict`` (409: no rate of the day for the
    currency, field ``currency``; cage closed or no window of the actor's open, field
    ``shift``), ``InsufficientChips`` (the window's drawer holds less than the house amount),
    ``aml.IdentityRequired`` (409, the AML identity threshold on the house amount).
    """
    require_role(actor, *CAGE_ROLES, step="exchanging foreign currency")
    code = _currency(currency)
    amount = _positive_cents(foreign_cents, "foreign_cents")
    check_ceiling("chips_purchase", amount, field="foreign_cents")
    if paid_in not in PAID_IN:
        raise InvalidInput("the house value is paid in chips or cash", field="paid_in")
    patron_code = patron or accounts.ANONYMOUS_PATRON
    request = {"op": "foreign_exchange", "currency": code, "foreign_cents": amount, "paid_in": paid_in}
    request["patron"] = patron_code
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = patron_get(patron_code)
        rate = rate_of_the_day(code)
        if rate is None:
            raise StateConflict(
                f"no buying rate of {code} is recorded for gaming day {current_gaming_day().isoformat()}: "
                f"a cage supervisor records the rate of the day before {code} is exchanged",
                field="currency",
            )
        cage, window = _open_cage(actor=actor)
        if window is None:
            raise StateConflict("foreign banknotes are bought at a cashier's own window", field="shift")
        ppm = rate.data["rate_ppm"]
        house, remainder = house_value(amount, ppm)
        if house <= 0:
            raise InvalidInput(
                f"{format_foreign(amount, code)} at {format_rate(ppm)} is worth less than a cent", field="foreign_cents"
            )
        check_ceiling("chips_purchase", house, field="foreign_cents")
        side = "chips_cents" if paid_in == "chips" else "cash_cents"
        held = window_book(window)[side]
        if held < house:
            what = "chips" if paid_in == "chips" else "cash"
            raise InsufficientChips(
                f"window {window} holds {format_cents(held)} of {what}, not enough to pay {format_cents(house)}",
                field="foreign_cents",
            )
        txn = str(uuid.uuid4())
        data = {
            "transaction": txn,
            "patron": who.code,
            "window": window,
            "currency": code,
            "foreign_cents": amount,
            "rate": format_rate(ppm),
            "rate_ppm": ppm,
            "rate_event": rate.position,
            "amount_cents": house,
            "rounding_remainder_cents": remainder,
            "paid_in": paid_in,
        }
        legs = posting_rules.foreign_exchange(
            window=window, currency=code, foreign=amount, house=house, patron_account=who.chips_account, paid_in=paid_in
        )
        (event,) = cmd.append(
            stream=cage.stream,
            expected_version=cage.version,
            correlation_id=txn,
            events=[NewEvent("ForeignCurrencyExchanged", data, legs)],
        )
        decisions = aml.screen_cash(cmd, patron=who, event=event)
        cage.version = event.version
        cage.save()
        result = {k: v for k, v in data.items() if k not in ("amount_cents", "rate_event")}
        return cmd.finish(
            result | {"event": event.position, "house_cents": house, "aml": aml.decisions_result(decisions)}
        )
