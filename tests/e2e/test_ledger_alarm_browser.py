"""A pit boss on the floor sees, above everything, that the ledger holds an event the
application did not write, and that no figure counts it; or that the last verification found a
row changed under the ledger's guards. Screenshots: var/artifacts/dashboard-ledger-written-around.png,
var/artifacts/dashboard-ledger-found-broken.png."""

import pytest
from django.db import connection, transaction
from playwright.sync_api import expect

from ledger import store
from ledger.store import Leg, NewEvent
from ledger.tasks import verify_chain
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


def test_the_floor_says_the_last_verification_found_the_ledger_broken(log_in_pit_boss):
    """A posting changed by a superuser with the triggers off is no new event: the scan never
    rereads it. The verification beat walks the whole chain; its failure is on every page."""
    with transaction.atomic():
        store.lock_writers()
        legs = [Leg("test:a", 100), Leg("test:b", -100)]
        (event,) = store.append(
            stream="test/moves", expected_version=0, actor="tester", events=[NewEvent("TestMoved", {}, legs)]
        )
    assert verify_chain.apply().get() is True
    page = log_in_pit_boss()
    expect(page.locator("[data-figure=ledger-broken]")).to_have_count(0)
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute(
            "UPDATE ledger_posting SET amount_cents = amount_cents * 100 WHERE event_id = %s", [event.position]
        )
        cursor.execute("SET session_replication_role = origin")
    assert verify_chain.apply().get() is False
    page.reload()
    broken = page.locator("[data-figure=ledger-broken]")
    expect(broken).to_contain_text(f"The ledger's last verification found it broken at position {event.position}")
    expect(broken).to_contain_text("CET")
    page.screenshot(path=str(ARTIFACTS / "dashboard-ledger-found-broken.png"), full_page=True)
