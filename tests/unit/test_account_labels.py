"""Every account of the chart (``ledger.accounts``) has a label a person reads: its constants
and the names its builders make. A new account family without a label fails here."""

import inspect

import pytest

from ledger import accounts

SAMPLES = {"patron": "P00001", "table": "R1", "window": "1", "currency": "USD"}


def _chart() -> list[str]:
    """Every account name the module defines or builds (with sample arguments)."""
    names = [
        value
        for name, value in vars(accounts).items()
        if name.isupper() and not name.startswith("_") and isinstance(value, str) and name != "ANONYMOUS_PATRON"
    ]
    for name, builder in vars(accounts).items():
        if name.startswith("_") or name in ("account_label", "known_account_label") or not inspect.isfunction(builder):
            continue
        if builder.__module__ != accounts.__name__:
            continue
        names.append(builder(*(SAMPLES[p] for p in inspect.signature(builder).parameters)))
    return names


def test_the_chart_has_its_families():
    chart = _chart()
    assert {"chips:in_transit", "table:R1:tray", "cage:over_short", "patron:P00001:colour:R1"} <= set(chart)
    assert len(chart) >= 20


@pytest.mark.parametrize("account", _chart())
def test_every_account_of_the_chart_has_a_label_in_words(account):
    label = accounts.known_account_label(account)
    assert label, f"{account} has no label in ledger.accounts.account_label"
    assert accounts.account_label(account) == label
    assert ":" not in label and "_" not in label and label[0].isupper(), label


@pytest.mark.parametrize(
    ("account", "label"),
    [
        ("chips:in_transit", "Chips in transit"),
        ("table:R1:tray", "Table R1 tray"),
        ("cage:over_short", "Cage over/short"),
        ("patron:P00001:chips", "Chips of P00001"),
        ("patron:anon:chips", "Chips of unrated players"),
        ("patron:P00001:colour:R1", "Colour chips of P00001 at table R1"),
        ("cage:window:1:cash", "Window 1 cash"),
        ("cage:window:1:foreign:USD", "Window 1 USD banknotes"),
        ("cage:over_short:GBP", "Cage over/short in GBP"),
        ("somewhere:new_place", "Somewhere new place"),
    ],
)
def test_an_account_reads_as_people_name_it(account, label):
    assert accounts.account_label(account) == label
