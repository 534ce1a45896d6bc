"""A pit boss on the floor sees, above everything, that the ledger holds an event the
application did not write, and that no figure counts it. Screenshot:
var/artifacts/dashboard-ledger-written-around.png."""

import pytest
from django.db import transaction
from playwright.sync_api import expect

from ledger import store
from ledger.store import Leg, NewEvent
from tests.integration.forgery import forge

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_the_floor_says_the_ledger_was_written_around(log_in_pit_boss):
    with transaction.atomic():
        store.lock_writers()
        legs = [Leg("test:a", 100), Leg("test:b", -100)]
        store.append(stream="test/moves", expected_version=0, actor="tester", events=[NewEvent("TestMoved", {}, legs)])
    page = log_in_pit_boss()
    expect(page.locator("[data-figure=ledger-alarm]")).to_have_count(0)
    with transaction.atomic():
        store.lock_writers()
        forged = forge("TroncShared", {"shares": []}, "tronc/shares", legs=[("tronc", -5_000_00, "EUR"),
                       ("external:cash", 5_000_00, "EUR")])  # fmt: skip
    page.reload()
    alarm = page.locator("[data-figure=ledger-alarm]")
    expect(alarm).to_contain_text("The ledger holds 1 event the application did not write")
    expect(alarm).to_contain_text(f"(position {forged})")
    page.screenshot(path=str(ARTIFACTS / "dashboard-ledger-written-around.png"), full_page=True)
