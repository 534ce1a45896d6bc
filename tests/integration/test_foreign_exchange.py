"""Foreign banknotes bought at a cashier's window at the rate of the day a cage supervisor
recorded: exact house amounts rounded toward the house, postings balanced per currency, the
window's book and its close counted per currency, the AML cash-in."""

import datetime
from collections import defaultdict

import pytest

from cashier.services.cage_shifts import cage_shift_close, window_book, window_foreign_book
from cashier.services.foreign_exchange import (
    cage_foreign_book,
    exchange_rate_set,
    foreign_exchange,
    house_value,
)
from ledger import accounts, store
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.models import Event, Posting
from patrons.services.aml import IdentityRequired, cash_day_totals
from patrons.services.patrons import patron_register
from staff.roles import Role, RoleRequired
from tests.conftest import ACTOR, drawer_count, make_patron, open_cage_shift, staff_user

pytestmark = pytest.mark.django_db

CASHIER = "fx-cashier"


@pytest.fixture
def supervisor():
    staff_user("fx-super", Role.CAGE_SUPERVISOR)
    return "fx-super"


@pytest.fixture
def window(cage_float):
    """fx-cashier's window holding the whole main bank; the shared anonymous patron registered."""
    patron_register(kind="anonymous", actor=ACTOR)
    return open_cage_shift(CASHIER)["window"]


@pytest.fixture
def usd_rate(supervisor):
    return exchange_rate_set(currency="USD", rate="0.921437", actor=supervisor)


def test_the_house_amount_is_rounded_down_and_its_remainder_kept_exactly():
    assert house_value(10_000, 921_437) == (9214, "0.37")
    assert house_value(100, 1_000_000) == (100, "0")
    assert house_value(1, 921_437) == (0, "0.921437")


def test_a_supervisor_records_the_rate_of_the_day_as_an_exact_decimal(usd_rate, supervisor):
    assert usd_rate["rate"] == "0.921437" and usd_rate["rate_ppm"] == 921_437
    event = Event.objects.get(type="ExchangeRateSet")
    assert event.actor == supervisor and event.data["rate"] == "0.921437" and event.data["rate_ppm"] == 921_437
    assert not event.postings.exists()


@pytest.mark.parametrize("rate", [0.92, "0.9214371", "0", "-1", "abc", "1e9"])
def test_a_rate_that_is_not_an_exact_positive_decimal_is_refused_on_its_field(supervisor, rate):
    with pytest.raises(InvalidInput) as refused:
        exchange_rate_set(currency="USD", rate=rate, actor=supervisor)
    assert refused.value.field == "rate"


def test_only_a_cage_supervisor_records_a_rate(cage_float):
    staff_user("plain-cashier", Role.CASHIER)
    with pytest.raises(RoleRequired):
        exchange_rate_set(currency="USD", rate="0.92", actor="plain-cashier")


def test_a_currency_the_cage_does_not_buy_is_refused_on_its_field(supervisor, window):
    with pytest.raises(InvalidInput) as refused:
        exchange_rate_set(currency="JPY", rate="0.0062", actor=supervisor)
    assert refused.value.field == "currency"
    with pytest.raises(InvalidInput) as refused:
        foreign_exchange(currency="usd", foreign_cents=100, paid_in="cash", actor=CASHIER)
    assert refused.value.field == "currency"


def test_without_a_rate_of_the_day_the_exchange_is_refused_naming_the_currency(window):
    with pytest.raises(StateConflict) as refused:
        foreign_exchange(currency="GBP", foreign_cents=10_000, paid_in="chips", actor=CASHIER)
    assert refused.value.status == 409 and "GBP" in refused.value.message and refused.value.field == "currency"
    assert not Event.objects.filter(type="ForeignCurrencyExchanged").exists()


def test_100_dollars_at_0_921437_pay_92_14_in_chips_the_remainder_recorded(window, usd_rate):
    patron = make_patron()
    before = window_book(window)
    result = foreign_exchange(currency="USD", foreign_cents=10_000, paid_in="chips", patron=patron, actor=CASHIER)
    assert result["house_cents"] == 9214 and result["rounding_remainder_cents"] == "0.37"
    assert result["rate"] == "0.921437" and result["paid_in"] == "chips" and result["window"] == window
    event = Event.objects.get(type="ForeignCurrencyExchanged")
    assert event.data["amount_cents"] == 9214 and event.data["rounding_remainder_cents"] == "0.37"
    assert event.data["rate_event"] == usd_rate["event"]
    assert store.balance(accounts.patron_chips(patron)) == 9214
    assert window_book(window) == {"cash_cents": before["cash_cents"], "chips_cents": before["chips_cents"] - 9214}
    assert window_foreign_book(window) == {"USD": 10_000, "GBP": 0, "CHF": 0}
    assert store.balance(accounts.FX_POSITION, "USD") == -10_000 and store.balance(accounts.FX_POSITION) == 9214


def test_paid_in_cash_the_drawer_pays_the_house_amount_and_the_patron_keeps_no_chips(window, usd_rate):
    patron = make_patron()
    before = window_book(window)
    foreign_exchange(currency="USD", foreign_cents=25_050, paid_in="cash", patron=patron, actor=CASHIER)
    house = 25_050 * 921_437 // 1_000_000
    assert window_book(window) == {"cash_cents": before["cash_cents"] - house, "chips_cents": before["chips_cents"]}
    assert store.balance(accounts.patron_chips(patron)) == 0
    assert store.balance(accounts.CAGE_CASH) == 10_000_000 - house
    assert cage_foreign_book()["USD"] == 25_050


def test_the_postings_of_an_exchange_sum_to_zero_in_each_currency(window, usd_rate):
    for paid_in in ("chips", "cash"):
        foreign_exchange(currency="USD", foreign_cents=12_345, paid_in=paid_in, actor=CASHIER)
    for event in Event.objects.filter(type="ForeignCurrencyExchanged"):
        totals = defaultdict(int)
        for posting in Posting.objects.filter(event=event):
            totals[posting.currency] += posting.amount_cents
        assert set(totals) == {"USD", "EUR"} and set(totals.values()) == {0}


def test_an_exchange_sent_twice_with_one_key_is_recorded_once(window, usd_rate):
    first = foreign_exchange(currency="USD", foreign_cents=5_000, paid_in="chips", actor=CASHIER, idempotency_key="k1")
    again = foreign_exchange(currency="USD", foreign_cents=5_000, paid_in="chips", actor=CASHIER, idempotency_key="k1")
    assert again == first and Event.objects.filter(type="ForeignCurrencyExchanged").count() == 1


def test_the_window_must_hold_the_house_amount(window, supervisor):
    exchange_rate_set(currency="CHF", rate="2", actor=supervisor)
    with pytest.raises(InsufficientChips) as refused:
        foreign_exchange(currency="CHF", foreign_cents=6_000_000, paid_in="cash", actor=CASHIER)
    assert refused.value.field == "foreign_cents"


def test_only_the_cage_exchanges_foreign_banknotes(window, usd_rate):
    staff_user("boss1", Role.PIT_BOSS)
    with pytest.raises(RoleRequired):
        foreign_exchange(currency="USD", foreign_cents=100, paid_in="chips", actor="boss1")


def test_the_house_amount_counts_as_the_patrons_cash_in_for_aml(window, usd_rate):
    patron = make_patron()
    foreign_exchange(currency="USD", foreign_cents=10_000, paid_in="cash", patron=patron, actor=CASHIER)
    foreign_exchange(currency="USD", foreign_cents=10_000, paid_in="chips", patron=patron, actor=CASHIER)
    event = Event.objects.filter(type="ForeignCurrencyExchanged").first()
    assert cash_day_totals(patron, event.gaming_day)["in"] == 2 * 9214


def test_the_shared_anonymous_patron_cannot_exchange_past_the_identity_threshold(window, usd_rate, settings):
    with pytest.raises(IdentityRequired):
        foreign_exchange(currency="USD", foreign_cents=500_000, paid_in="chips", actor=CASHIER)
    assert Event.objects.filter(type="AmlTransactionRefused").exists()


def test_the_close_counts_the_foreign_notes_and_sends_a_shortage_to_that_currencys_over_short(window, usd_rate):
    foreign_exchange(currency="USD", foreign_cents=10_000, paid_in="chips", actor=CASHIER)
    count = drawer_count(window)
    with pytest.raises(InvalidInput) as refused:
        cage_shift_close(**count, actor=CASHIER)
    assert refused.value.field == "foreign" and "USD" in refused.value.message
    closed = cage_shift_close(**count, foreign={"USD": 9_000}, actor=CASHIER)
    event = Event.objects.get(position=closed["event"])
    assert event.data["foreign"] == {
        "USD": {"counted_cents": 9_000, "expected_cents": 10_000, "variance_cents": -1_000}
    }
    assert closed["variance_cents"] == 0  # the house currency's variance alone
    assert store.balance(accounts.window_foreign(window, "USD"), "USD") == 0
    assert store.balance(accounts.cage_foreign("USD"), "USD") == 9_000
    assert store.balance(accounts.foreign_over_short("USD"), "USD") == 1_000
    assert cage_foreign_book()["USD"] == 9_000


def test_a_foreign_count_of_a_currency_not_bought_is_refused(window):
    with pytest.raises(InvalidInput) as refused:
        cage_shift_close(**drawer_count(window), foreign={"JPY": 100}, actor=CASHIER)
    assert refused.value.field == "foreign"


def test_a_rate_of_another_gaming_day_is_not_the_rate_of_the_day(window, usd_rate, monkeypatch):
    tomorrow = Event.objects.get(type="ExchangeRateSet").gaming_day + datetime.timedelta(days=1)
    monkeypatch.setattr("cashier.services.foreign_exchange.current_gaming_day", lambda: tomorrow)
    with pytest.raises(StateConflict) as refused:
        foreign_exchange(currency="USD", foreign_cents=100, paid_in="chips", actor=CASHIER)
    assert tomorrow.isoformat() in refused.value.message


def test_the_cage_report_of_the_day_names_the_banknotes_bought_paid_counted_and_held(window, usd_rate):
    from cashier.reports import cage_accountability_report

    foreign_exchange(currency="USD", foreign_cents=10_000, paid_in="chips", actor=CASHIER)
    foreign_exchange(currency="USD", foreign_cents=5_000, paid_in="cash", actor=CASHIER)
    cage_shift_close(**drawer_count(window), foreign={"USD": 14_000}, actor=CASHIER)
    day = Event.objects.get(type="ExchangeRateSet").gaming_day
    report = cage_accountability_report(day)
    assert report["foreign"] == [
        {
            "currency": "USD",
            "exchanges": 2,
            "bought_cents": 15_000,
            "paid_cents": 9214 + 4607,
            "variance_cents": -1_000,
            "held_cents": 14_000,
        }
    ]
    movements = next(row for row in report["rows"] if row["line"] == "movements")
    assert (movements["foreign_exchange_chips_cents"], movements["foreign_exchange_cash_cents"]) == (-9214, -4607)


def test_the_change_register_lists_the_banknotes_bought_at_the_window(window, usd_rate):
    from cashier.registers.books import change_lines

    foreign_exchange(currency="USD", foreign_cents=123_450, paid_in="cash", actor=CASHIER)
    day = Event.objects.get(type="ExchangeRateSet").gaming_day
    line, total = change_lines(day)
    assert line.operation == "Achat de billets étrangers: 1\u00a0234,50 USD au cours de 0,921437"
    assert (line.especes_remises_cents, line.jetons_remis_cents, line.especes_recues_cents) == (113_751, 0, 0)
    assert total.especes_remises_cents == 113_751 and line.desk == f"Guichet {window}"
