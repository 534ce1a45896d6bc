"""Cents read as money: thousands separated, two decimals, the currency named, never a float."""

import pytest

from basis.money import format_cents, format_denomination


def test_cents_read_as_currency_units_with_separators_and_sign():
    assert format_cents(123_456, "EUR") == "1,234.56 EUR"
    assert format_cents(-500, "EUR") == "-5.00 EUR"
    assert format_cents(7, "CHF") == "0.07 CHF"


def test_a_float_is_refused():
    with pytest.raises(TypeError):
        format_cents(12.5, "EUR")


@pytest.mark.parametrize(
    ("cents", "words"),
    [(50_000, "500 EUR"), (250, "2.50 EUR"), (1, "0.01 EUR"), (100_000_000, "1,000,000 EUR"), (1_050, "10.50 EUR")],
)
def test_a_denomination_reads_in_whole_units_without_cents_unless_it_has_some(cents, words):
    assert format_denomination(cents) == words


def test_a_denomination_is_integer_cents():
    with pytest.raises(TypeError):
        format_denomination(2.5)


@pytest.mark.parametrize(
    ("cents", "number", "amount"),
    [
        (123456, "1\u00a0234,56", "1\u00a0234,56 EUR"),
        (-5, "-0,05", "-0,05 EUR"),
        (100_000_000, "1\u00a0000\u00a0000,00", "1\u00a0000\u00a0000,00 EUR"),
        (0, "0,00", "0,00 EUR"),
    ],
)
def test_the_french_registers_read_amounts_in_french_typography(cents, number, amount):
    from basis.money import format_amount_fr, format_cents_fr

    assert (format_amount_fr(cents), format_cents_fr(cents)) == (number, amount)
    assert format_cents_fr(cents, "USD") == number + " USD"
