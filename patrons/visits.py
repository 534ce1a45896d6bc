"""A patron's visits (séances) and his chip exchanges in them, read from the ledger.

The French rule counts a patron's chip exchanges per *séance* (CMF R561-16: identity at 2,000
EUR of exchanges in one visit); the US rules count them per gaming day. ``AML_BASIS`` chooses.

The floor records no arrival or departure, so a visit is inferred from the exchanges
themselves: two cash exchanges of one patron belong to the same visit when less than
``AML_VISIT_GAP_HOURS`` (default 4) separate them; a longer pause starts a new visit. A visit
may straddle two gaming days. Lookback is bounded by ``VISIT_LOOKBACK`` (a visit longer than
that is cut).

Amounts are cents of the casino currency; moments are aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db.models import Q

from ledger.accounts import patron_chips, patron_credit, patron_deposit
from ledger.models import Event, Posting

IN, OUT = "in", "out"
# Cash transactions in the ledger: event type → (direction, channel). Every cash crossing of
# the patron counts, whatever it buys (31 CFR 1021.311 lists as cash in chip purchases, front
# money deposits and payments on markers; as cash out redemptions and front money
# withdrawals): a patron who splits his cash between the counter's services stays one total.
CASH_EVENTS = {
    "ChipsPurchased": (IN, "cage_purchase"),
    "CashBuyIn": (IN, "table_buy_in"),
    "FrontMoneyDeposited": (IN, "front_money_deposit"),
    "MarkerPaid": (IN, "marker_payment"),
    "MarkerPaidAtTable": (IN, "marker_payment_at_table"),
    # Foreign banknotes bought at the cage: their house value, paid in chips or cash.
    "ForeignCurrencyExchanged": (IN, "foreign_exchange"),
    "ChipsRedeemed": (OUT, "cage_redemption"),
    "FrontMoneyWithdrawn": (OUT, "front_money_withdrawal"),
}
# Event types that are cash only when paid that way (data ``method``): a marker paid with
# chips or front money moves no cash.
PAID_IN_CASH = {"MarkerPaid": "cash", "MarkerPaidAtTable": "cash"}
BASES = ("gaming_day", "visit")
VISIT_LOOKBACK = timedelta(days=7)


@dataclass(frozen=True)
class Exchange:
    """One cash exchange of a patron: ledger ``position``, ``at`` (UTC), its ``gaming_day``,
    ``direction`` (``in``/``out``) and ``amount_cents`` (positive)."""

    patron: str
    position: int
    at: datetime
    gaming_day: date
    direction: str
    amount_cents: int


@dataclass(frozen=True)
class Visit:
    """Consecutive exchanges of one patron less than the gap apart, oldest first."""

    patron: str
    exchanges: tuple[Exchange, ...]

    @property
    def started_at(self) -> datetime:
        return self.exchanges[0].at

    @property
    def ended_at(self) -> datetime:
        return self.exchanges[-1].at

    @property
    def gaming_day(self) -> date:
        """The gaming day of its last exchange (a visit may straddle the day's start)."""
        return self.exchanges[-1].gaming_day

    def total_cents(self, direction: str) -> int:
        return sum(e.amount_cents for e in self.exchanges if e.direction == direction)


def cash_event_filter(prefix: str = "") -> Q:
    """The cash transactions among events (``prefix``: the path to the event, ``"event__"``
    from a posting)."""
    plain = [t for t in CASH_EVENTS if t not in PAID_IN_CASH]
    query = Q(**{f"{prefix}type__in": plain})
    for event_type, method in PAID_IN_CASH.items():
        query |= Q(**{f"{prefix}type": event_type, f"{prefix}data__method": method})
    return query


# A chip sale, redemption or foreign exchange keyed in error is reversed
# (``cashier.services.cage_corrections``, with a cage supervisor's signature; ``reverses``: its
# position): no cash crossed the counter, so the totals the thresholds count leave it out.
CASH_REVERSALS = ("ChipsPurchaseReversed", "ChipsRedemptionReversed", "ForeignExchangeReversed")
# The cash transactions such a reversal corrects.
REVERSIBLE_CASH = ("ChipsPurchased", "ChipsRedeemed", "ForeignCurrencyExchanged")


def reversed_among(positions: Iterable[int]) -> set[int]:
    """The positions among ``positions`` that a cash reversal corrected."""
    wanted = list(positions)
    if not wanted:
        return set()
    found = Event.objects.filter(type__in=CASH_REVERSALS, data__reverses__in=wanted)
    return {position for position in found.values_list("data__reverses", flat=True) if type(position) is int}


def patron_cash_accounts(patron: str) -> list[str]:
    """The patron's accounts a cash transaction of his moves (indexed): his chips (purchases,
    buy-ins, redemptions), his front money, his credit (marker payments)."""
    return [patron_chips(patron), patron_deposit(patron), patron_credit(patron)]


def patron_cash_rows(patron: str, **event_filter) -> list[tuple[int, str, datetime, date, int]]:
    """``(position, type, occurred_at, gaming_day, amount_cents)`` of the patron's cash
    transactions among the events ``event_filter`` selects (keys relative to a posting's event
    set by the caller, e.g. ``event__gaming_day=``), newest first, each once; a sale or
    redemption since reversed is not among them (``CASH_REVERSALS``)."""
    rows = (
        Posting.objects.filter(cash_event_filter("event__"), account__in=patron_cash_accounts(patron), **event_filter)
        .order_by("-event__occurred_at", "-event_id")
        .values_list("event_id", "event__type", "event__occurred_at", "event__gaming_day", "amount_cents")
    )
    rows = list(rows)
    seen: set[int] = reversed_among({row[0] for row in rows if row[1] in REVERSIBLE_CASH})
    found = []
    for position, type_, at, day, amount in rows:
        if position not in seen:  # one event may move two of his accounts; a reversed one counts none
            seen.add(position)
            found.append((position, type_, at, day, abs(amount)))
    return found


def aml_basis() -> str:
    """``AML_BASIS``: ``"gaming_day"`` (US: 31 CFR 1021.313, per gaming day) or ``"visit"``
    (France: per séance)."""
    return settings.AML_BASIS


def visit_gap() -> timedelta:
    return timedelta(hours=settings.AML_VISIT_GAP_HOURS)


def group_visits(exchanges: Iterable[Exchange], gap: timedelta) -> list[Visit]:
    """The visits of ``exchanges`` (any order, several patrons), each patron's in time order:
    a new visit when ``gap`` or more has passed since his previous exchange."""
    by_patron: dict[str, list[Exchange]] = {}
    for exchange in sorted(exchanges, key=lambda e: (e.patron, e.at, e.position)):
        by_patron.setdefault(exchange.patron, []).append(exchange)
    visits = []
    for patron, items in by_patron.items():
        current = [items[0]]
        for exchange in items[1:]:
            if exchange.at - current[-1].at >= gap:
                visits.append(Visit(patron, tuple(current)))
                current = []
            current.append(exchange)
        visits.append(Visit(patron, tuple(current)))
    return visits


def exchanges_between(first_day: date, last_day: date) -> list[Exchange]:
    """Every rated patron's cash exchanges of gaming days ``first_day``..``last_day`` (the
    shared ``anon`` patron left out: it is not one person)."""
    rows = Event.objects.filter(cash_event_filter(), gaming_day__range=(first_day, last_day)).values_list(
        "position", "type", "occurred_at", "gaming_day", "data__patron", "data__amount_cents"
    )
    rows = list(rows)
    corrected = reversed_among({row[0] for row in rows if row[1] in REVERSIBLE_CASH})
    return [
        Exchange(patron, position, at, day, CASH_EVENTS[type_][0], amount)
        for position, type_, at, day, patron, amount in rows
        if patron and patron != "anon" and position not in corrected
    ]


def current_visit(patron: str, until: Event) -> Visit:
    """The visit of ``patron`` that ends with his cash event ``until`` (already appended):
    his exchanges walking back from it while each is less than the gap before the next."""
    rows = patron_cash_rows(
        patron, event_id__lte=until.position, event__occurred_at__gte=until.occurred_at - VISIT_LOOKBACK
    )
    gap = visit_gap()
    found: list[Exchange] = []
    for position, type_, at, day, amount in rows:
        if found and found[-1].at - at >= gap:
            break
        found.append(Exchange(patron, position, at, day, CASH_EVENTS[type_][0], amount))
    return Visit(patron, tuple(reversed(found)))
