"""Amounts shown to people are formatted by one helper with ``CASINO_CURRENCY``."""

import pytest

from basis import money
from dashboard.templatetags.dashboard_tags import eur
from games.rules import event_words
from ledger import projections
from ledger.projections import audit
from tests.conftest import set_self_limit


def test_cents_are_formatted_with_thousands_two_decimals_and_the_code():
    assert money.format_cents(123_456, "EUR") == "1,234.56 EUR"
    assert money.format_cents(-5, "CHF") == "-0.05 CHF"
    assert money.format_cents(0, "GBP") == "0.00 GBP"
    assert money.format_amount(100_000_000) == "1,000,000.00"
    with pytest.raises(TypeError):
        money.format_cents(12.5, "EUR")
    with pytest.raises(ValueError):
        money.set_currency("euro")


@pytest.mark.django_db
def test_the_configured_currency_names_every_amount_shown(settings, patron, api, table):
    settings.CASINO_CURRENCY = "CHF"
    try:
        assert money.format_cents(1_000) == "10.00 CHF"
        assert eur(250_000) == "2,500.00 CHF"  # the dashboard's filter
        projections.catch_up("audit")
        lines = audit.timeline("patron", patron).filter(type="ChipsPurchased")
        assert [event_words.line(line.type, line.data) for line in lines] == [
            f"{patron} bought 1,000.00 CHF of chips at the cage"
        ]
        set_self_limit(patron, 10_000)
        coup = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
        bet = {"patron": patron, "stake_cents": 15_000, "bet": {"type": "chance_simple", "chance": "rouge"}}
        refused = api.post(f"/api/rounds/{coup}/bets", bet, format="json")
        assert refused.status_code == 400
        assert "a bet of 150.00 CHF" in refused.json()["detail"]
        assert "own limit of 100.00 CHF" in refused.json()["detail"]
    finally:
        settings.CASINO_CURRENCY = "EUR"
    assert money.format_cents(1_000) == "10.00 EUR"
