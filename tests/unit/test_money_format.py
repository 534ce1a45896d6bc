"""Cents read as money: thousands separated, two decimals, the currency named, never a float."""

import pytest

from games.rules.money import format_cents


def test_cents_read_as_currency_units_with_separators_and_sign():
    assert format_cents(123_456, "EUR") == "1,234.56 EUR"
    assert format_cents(-500, "EUR") == "-5.00 EUR"
    assert format_cents(7, "CHF") == "0.07 CHF"


def test_a_float_is_refused():
    with pytest.raises(TypeError):
        format_cents(12.5, "EUR")
