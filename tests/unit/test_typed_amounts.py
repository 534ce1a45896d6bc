"""Amounts a person types on a workstation's form (currency units) read into integer cents
(``core.typed_amounts.amount_cents``): a comma or a point before one or two digits is the
decimal mark, as a French cashier types it; an input that could be read two ways is refused in
words, never guessed."""

import pytest

from core.typed_amounts import amount_cents, typed
from ledger.errors import InvalidInput

HOW = "type cents after a comma or a point, two digits at most (12,50 or 12.50)"


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("12,5", 1250),
        ("12,50", 1250),
        ("12.5", 1250),
        ("12.50", 1250),
        ("0,05", 5),
        ("1500", 150_000),
        (" 300 ", 30_000),
        ("1 000", 100_000),
        ("1 000,50", 100_050),
        ("1\u00a0000,50", 100_050),  # the no-break space a French keyboard layout or a paste gives
        ("1\u202f000,50", 100_050),
        ("1 000.50", 100_050),
        ("1,000.50", 100_050),
        ("1.000,50", 100_050),
        ("1,250.50", 125_050),
        ("2,500.00", 250_000),
        ("1,000,000", 100_000_000),  # a mark repeated is only ever a thousands separator
        ("1.000.000", 100_000_000),
        ("1 000 000,01", 100_000_001),
        ("9999999999.99", 999_999_999_999),
    ],
)
def test_an_unambiguous_amount_reads_as_its_cents(text, cents):
    assert amount_cents(text) == cents


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,000", f'"1,000" is ambiguous (is its comma a thousands separator or the decimal mark?): {HOW}'),
        ("1.000", f'"1.000" is ambiguous (is its point a thousands separator or the decimal mark?): {HOW}'),
        ("12.500", f'"12.500" is ambiguous (is its point a thousands separator or the decimal mark?): {HOW}'),
        ("1 000,000", f'"1 000,000" is ambiguous (is its comma a thousands separator or the decimal mark?): {HOW}'),
        ("12,5055", f'"12,5055" has more than two decimals: {HOW}'),
        ("1,000.505", f'"1,000.505" has more than two decimals: {HOW}'),
        ("12,", f'"12," is not an amount: {HOW}'),
        (",50", f'",50" is not an amount: {HOW}'),
        ("1,00,000", f'"1,00,000" is not an amount: {HOW}'),
        ("10 00", f'"10 00" is not an amount: {HOW}'),
        ("1,000.000.50", f'"1,000.000.50" is not an amount: {HOW}'),
        ("1.5,00", f'"1.5,00" is not an amount: {HOW}'),
        ("-12", f'"-12" is not an amount: {HOW}'),
        ("1e3", f'"1e3" is not an amount: {HOW}'),
        ("１２", f'"１２" is not an amount: {HOW}'),
        ("12 EUR", f'"12 EUR" is not an amount: {HOW}'),
        ("99999999999", f'"99999999999" is not an amount: {HOW}'),
        ("0,00", "the amount must be more than zero"),
        ("", "an amount in currency units is needed: " + HOW),
        (None, "an amount in currency units is needed: " + HOW),
    ],
)
def test_an_ambiguous_or_malformed_amount_is_refused_saying_how_to_type_it(text, message):
    with pytest.raises(InvalidInput) as refused:
        amount_cents(text)
    assert refused.value.field == "amount"
    assert refused.value.message == (
        message
        if message.startswith("the amount")
        else message + ", and thousands with a space or nothing (1 000,50 or 1000.50)"
    )


@pytest.mark.parametrize("cents", [1, 5, 1250, 100_050, 250_000, 999_999_999_999])
def test_an_amount_sent_back_by_a_form_reads_as_the_same_cents(cents):
    assert amount_cents(typed(cents)) == cents


@pytest.mark.parametrize("text", ["0", "0,00", "0.00", "000"])
def test_a_zero_is_read_only_where_the_form_allows_it_as_a_limit_that_closes_a_line(text):
    assert amount_cents(text, field="limit", zero=True) == 0
    with pytest.raises(InvalidInput) as refused:
        amount_cents(text, field="limit")
    assert (refused.value.field, refused.value.message) == ("limit", "the amount must be more than zero")
