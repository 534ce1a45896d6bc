"""Foreign-currency exchange over HTTP: a cage supervisor records the rate of the day, a cashier
buys a patron's banknotes at her window; refusals name their field."""

import pytest

from ledger import accounts, store
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role
from tests.conftest import ACTOR, make_patron, open_cage_shift, staff_clients

pytestmark = pytest.mark.django_db


@pytest.fixture
def clients(cage_float):
    patron_register(kind="anonymous", actor=ACTOR)
    made = staff_clients({"cash1": Role.CASHIER, "super1": Role.CAGE_SUPERVISOR, "pit1": Role.PIT_BOSS})
    open_cage_shift("cash1")
    return made


def _rate(clients, currency="USD", rate="0.921437"):
    return clients["super1"].post("/api/cage/exchange-rates", {"currency": currency, "rate": rate}, format="json")


def _exchange(client, headers=None, **body):
    body = {"currency": "USD", "foreign_cents": 10_000, "paid_in": "chips"} | body
    return client.post("/api/cage/foreign-exchanges", body, format="json", headers=headers or {})


def test_a_rate_and_an_exchange_give_92_14_for_100_dollars_with_the_remainder_recorded(clients):
    rate = _rate(clients)
    assert rate.status_code == 201, rate.json()
    assert (rate.json()["rate"], rate.json()["rate_ppm"]) == ("0.921437", 921_437)
    patron = make_patron()
    done = _exchange(clients["cash1"], patron=patron)
    assert done.status_code == 201, done.json()
    body = done.json()
    assert (body["house_cents"], body["rounding_remainder_cents"], body["currency"]) == (9214, "0.37", "USD")
    assert store.balance(accounts.patron_chips(patron)) == 9214


def test_without_a_rate_of_the_day_the_exchange_is_409_naming_the_currency(clients):
    refused = _exchange(clients["cash1"], currency="GBP")
    assert (refused.status_code, refused.json()["field"]) == (409, "currency")
    assert "GBP" in refused.json()["detail"]


@pytest.mark.parametrize("currency", ["JPY", "EUR", "us"])
def test_a_currency_the_cage_does_not_buy_is_400_on_its_field(clients, currency):
    _rate(clients)
    refused = _exchange(clients["cash1"], currency=currency)
    assert (refused.status_code, refused.json()["field"]) == (400, "currency")


def test_a_rate_sent_as_a_json_number_is_refused_never_rounded(clients):
    refused = _rate(clients, rate=0.921437)
    assert (refused.status_code, refused.json()["field"]) == (400, "rate")
    assert not Event.objects.filter(type="ExchangeRateSet").exists()


def test_only_the_cage_exchanges_and_only_a_cage_supervisor_sets_the_rate(clients):
    _rate(clients)
    assert _exchange(clients["pit1"]).status_code == 403
    assert _rate(clients | {"super1": clients["cash1"]}).status_code == 403


def test_an_exchange_retried_with_its_idempotency_key_is_recorded_once(clients):
    _rate(clients)
    first = _exchange(clients["cash1"], headers={"Idempotency-Key": "fx-1"})
    again = _exchange(clients["cash1"], headers={"Idempotency-Key": "fx-1"})
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert Event.objects.filter(type="ForeignCurrencyExchanged").count() == 1


def test_a_window_closed_over_the_api_counts_its_foreign_notes(clients):
    from tests.conftest import drawer_count

    _rate(clients)
    opened = _exchange(clients["cash1"])
    window = opened.json()["window"]
    count = drawer_count(window)
    missing = clients["cash1"].post("/api/cage/shifts/close", count, format="json")
    assert (missing.status_code, missing.json()["field"]) == (400, "foreign")
    closed = clients["cash1"].post("/api/cage/shifts/close", count | {"foreign": {"USD": 10_000}}, format="json")
    assert closed.status_code == 200, closed.json()
    assert store.balance(accounts.cage_foreign("USD"), "USD") == 10_000


def test_a_foreign_exchange_keyed_in_error_is_reversed_with_a_supervisors_signature_and_leaves_every_total(clients):
    from approvals.services import approval_confirm, approval_request
    from cashier.registers import books
    from cashier.reports import foreign_of_the_day
    from cashier.services.cage_shifts import open_windows, window_foreign_book, window_of
    from ledger.gaming_day import current_gaming_day
    from patrons.services.aml import cash_day_totals
    from patrons.visits import reversed_among

    _rate(clients)
    patron = make_patron()
    done = _exchange(clients["cash1"], patron=patron, foreign_cents=50_000, paid_in="cash").json()
    window = window_of(open_windows()["cash1"])
    assert window_foreign_book(window)["USD"] == 50_000
    day = current_gaming_day()

    asked = approval_request(
        kind="cage_transaction_reverse", payload={"event": done["event"], "reason": "wrong currency"}, actor="cash1"
    )
    reversed_ = approval_confirm(approval=asked["approval"]["id"], actor="super1")

    event = Event.objects.get(type="ForeignExchangeReversed")
    assert reversed_["type"] == "ForeignExchangeReversed" and reversed_["reverses"] == done["event"]
    assert (event.data["currency"], event.data["foreign_cents"], event.data["amount_cents"]) == ("USD", 50_000, 46_071)
    assert (event.actor, event.data["approved_by"]) == ("cash1", "super1")
    assert window_foreign_book(window)["USD"] == 0  # the banknotes went back to the patron
    assert store.balance(accounts.FX_POSITION, "USD") == 0 and store.balance(accounts.FX_POSITION) == 0
    assert reversed_among([done["event"]]) == {done["event"]}
    assert cash_day_totals(patron, day) == {"in": 0, "out": 0, "transactions": 0}  # out of his AML totals
    assert foreign_of_the_day(day) == []  # no exchange, no banknote held, nothing over or short
    lines = [line for line in books.change_lines(day) if line.patron == patron]
    assert [(line.operation, line.especes_remises_cents, line.compense) for line in lines] == [
        ("Achat de billets étrangers: 500,00 USD au cours de 0,921437", 46_071, ""),
        (
            "Annulation d'un achat de billets étrangers: 500,00 USD au cours de 0,921437",
            -46_071,
            f"événement {done['event']}",
        ),
    ]
