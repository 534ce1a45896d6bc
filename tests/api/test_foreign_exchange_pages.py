"""Foreign exchange on the cage workstation (Django's test client): the supervisor's rate form,
the cashier's exchange form typed as a person types amounts, the window's foreign banknotes on
its page and counted at its close."""

import re
from html import unescape

import pytest
from django.urls import reverse

from ledger import accounts, store
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, drawer_count, make_patron, open_cage_shift

pytestmark = pytest.mark.django_db


@pytest.fixture
def login(client, django_user_model):
    def as_user(username: str, role: str):
        user = django_user_model.objects.filter(username=username).first()
        if user is None:
            user = django_user_model.objects.create_user(username=username, password="pw")
            grant(user, role)
        client.force_login(user)
        return client

    return as_user


@pytest.fixture
def window(cage_float, login):
    patron_register(kind="anonymous", actor=ACTOR)
    login("cash1", Role.CASHIER)
    return open_cage_shift("cash1")["window"]


def _text(response) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_the_supervisor_records_the_rate_and_the_cashier_buys_dollars_for_chips(window, login):
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    recorded = supervisor.post(reverse("workstations:cage-exchange-rate"), {"currency": "USD", "rate": "0,921437"})
    assert recorded.status_code == 302
    page = _text(supervisor.get(reverse("workstations:cage")))
    assert "Buying rate of the day recorded: 1 USD = 0.921437 EUR." in page
    assert "1 USD = 0.921437 EUR by super1" in page
    patron = make_patron()
    cashier = login("cash1", Role.CASHIER)
    done = cashier.post(
        reverse("workstations:cage-foreign-exchange"),
        {"currency": "USD", "amount": "100", "paid_in": "chips", "patron": patron},
        follow=True,
    )
    text = _text(done)
    assert f"Bought 100.00 USD at 0.921437: paid 92.14 EUR in chips, patron {patron}" in text
    assert "(rounded down: 0.37 of a cent kept by the house)" in text
    assert "Foreign banknotes, USD 100.00 USD" in text  # the drawer
    assert "Foreign exchange: 100.00 USD at 0.921437, paid in chips" in text  # the window's line
    assert store.balance(accounts.patron_chips(patron)) == 9214


def test_a_cashier_cannot_record_a_rate(window, login):
    cashier = login("cash1", Role.CASHIER)
    assert cashier.post(reverse("workstations:cage-exchange-rate"), {"currency": "USD", "rate": "1"}).status_code == 403
    assert not Event.objects.filter(type="ExchangeRateSet").exists()


def test_without_a_rate_the_exchange_form_comes_back_saying_which_currency(window, login):
    cashier = login("cash1", Role.CASHIER)
    refused = cashier.post(
        reverse("workstations:cage-foreign-exchange"), {"currency": "GBP", "amount": "50", "paid_in": "cash"}
    )
    assert refused.status_code == 409
    assert "<strong>Currency</strong>: No buying rate of GBP is recorded for gaming day" in refused.content.decode()
    assert 'value="50"' in refused.content.decode()  # what was typed stays


def test_the_close_asks_for_the_foreign_count_and_posts_its_shortage_to_over_short(window, login):
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    supervisor.post(reverse("workstations:cage-exchange-rate"), {"currency": "CHF", "rate": "1.05"})
    cashier = login("cash1", Role.CASHIER)
    cashier.post(reverse("workstations:cage-foreign-exchange"), {"currency": "CHF", "amount": "200", "paid_in": "cash"})
    page = _text(cashier.get(reverse("workstations:cage")))
    assert "Foreign banknotes counted, CHF (the drawer holds 200.00 CHF)" in page
    count = drawer_count(window)
    form = {f"cash-{d}": n for d, n in count["cash"].items()} | {f"chips-{d}": n for d, n in count["chips"].items()}
    short = cashier.post(reverse("workstations:cage-shift-close"), form | {"foreign_CHF": "150"})
    assert short.status_code == 400 and "differ from the drawer's 200.00 CHF" in _text(short)
    closed = cashier.post(
        reverse("workstations:cage-shift-close"),
        form | {"foreign_CHF": "150", "variance_reason": "50 CHF note missing"},
    )
    assert closed.status_code == 302
    assert store.balance(accounts.foreign_over_short("CHF"), "CHF") == 5_000
    assert store.balance(accounts.cage_foreign("CHF"), "CHF") == 15_000


def test_the_cage_report_prints_the_foreign_banknotes_of_the_day(window, login):
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    supervisor.post(reverse("workstations:cage-exchange-rate"), {"currency": "USD", "rate": "0.921437"})
    cashier = login("cash1", Role.CASHIER)
    cashier.post(reverse("workstations:cage-foreign-exchange"), {"currency": "USD", "amount": "100", "paid_in": "cash"})
    text = _text(
        login("super1", Role.CAGE_SUPERVISOR).get(reverse("workstations:report", args=["cage-accountability"]))
    )
    assert "Foreign banknotes bought, paid in cash 92.14 EUR" in text
    assert "USD 1 100.00 USD 92.14 EUR 0.00 USD 100.00 USD" in text


def test_a_supervisor_closing_a_cashiers_window_counts_its_foreign_banknotes_too(window, login):
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    supervisor.post(reverse("workstations:cage-exchange-rate"), {"currency": "GBP", "rate": "1.171"})
    login("cash1", Role.CASHIER).post(
        reverse("workstations:cage-foreign-exchange"), {"currency": "GBP", "amount": "20", "paid_in": "chips"}
    )
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    assert "Foreign banknotes counted, GBP (blank: none in the drawer)" in _text(
        supervisor.get(reverse("workstations:cage"))
    )
    count = drawer_count(window)
    form = {f"cash-{d}": n for d, n in count["cash"].items()} | {f"chips-{d}": n for d, n in count["chips"].items()}
    refused = supervisor.post(reverse("workstations:cage-shift-close"), form | {"cashier": "cash1"})
    text = _text(refused)
    assert refused.status_code == 400 and "The window holds 20.00 GBP in foreign banknotes: count them too" in text
    closed = supervisor.post(reverse("workstations:cage-shift-close"), form | {"cashier": "cash1", "foreign_GBP": "20"})
    assert closed.status_code == 302
    assert store.balance(accounts.cage_foreign("GBP"), "GBP") == 2_000


def test_a_cage_that_buys_no_foreign_currency_shows_no_exchange_form(window, login, settings):
    settings.CASINO_FOREIGN_CURRENCIES = []
    page = _text(login("cash1", Role.CASHIER).get(reverse("workstations:cage")))
    assert "Buy foreign banknotes" not in page
    assert "The cage buys no foreign currency (CASINO_FOREIGN_CURRENCIES)." in page


def test_an_exchange_for_the_unnamed_patron_reads_in_words_never_his_code(window, login):
    supervisor = login("super1", Role.CAGE_SUPERVISOR)
    supervisor.post(reverse("workstations:cage-exchange-rate"), {"currency": "USD", "rate": "0.9"})
    cashier = login("cash1", Role.CASHIER)
    done = _text(
        cashier.post(
            reverse("workstations:cage-foreign-exchange"),
            {"currency": "USD", "amount": "100", "paid_in": "cash"},
            follow=True,
        )
    )
    assert "Bought 100.00 USD at " in done and "paid 90.00 EUR in cash, an unnamed patron" in done
    assert "anon" not in done.replace("anonymous", "")
