"""A verification that found the chain broken keeps the alarm up until the chain verifies again:
its row cannot be set to "intact" or deleted (append-only, as the ledger), and a row changed
under the triggers, or an "intact" row inserted after it without the site's key, does not
verify and raises the alarm itself — on every page and on the readiness probe."""

from zoneinfo import ZoneInfo

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client

from ledger import verification_records
from ledger.models import ChainVerification
from staff.roles import Role
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


def _failed() -> ChainVerification:
    return verification_records.record(
        ok=False, checked=4, head_position=9, first_bad_position=5, reason="event 5's hash does not match"
    )


def _pit_boss_page() -> str:
    client = Client()
    client.force_login(staff_user("boss", Role.PIT_BOSS))
    return client.get("/dashboard/").content.decode()


def test_a_recorded_verification_is_signed_and_cannot_be_updated_or_deleted():
    row = _failed()
    assert verification_records.signed(row) and len(row.signature) == 128
    for change in (
        lambda: ChainVerification.objects.filter(pk=row.pk).update(ok=True),
        lambda: ChainVerification.objects.filter(pk=row.pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            change()
    assert ChainVerification.objects.get(pk=row.pk).ok is False
    assert verification_records.latest().first_bad_position == 5


def test_an_intact_row_inserted_without_the_sites_key_raises_the_alarm(cage):
    _failed()
    forged = ChainVerification.objects.create(
        verified_at=ChainVerification.objects.get().verified_at.replace(year=2099), ok=True, checked=9, head_position=9
    )
    latest = verification_records.latest()
    assert (latest.ok, latest.first_bad_position, latest.reason) == (False, None, verification_records.ALTERED)
    assert "The record of the ledger's last verification was altered" in _pit_boss_page()
    assert Client().get("/api/health/ready").json()["checks"]["chain"]["ok"] is False
    assert forged.pk  # it stays, as everything in the table: the alarm names it until a verification


def test_a_failed_row_set_to_intact_under_the_triggers_raises_the_alarm(cage):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the tampering switches the triggers off as a superuser")
    row = _failed()
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("UPDATE ledger_chainverification SET ok = true, first_bad_position = NULL, reason = ''")
        cursor.execute("RESET session_replication_role")
    row.refresh_from_db()
    assert row.ok and not verification_records.signed(row)
    assert verification_records.latest().reason == verification_records.ALTERED
    assert Client().get("/api/health/ready").status_code == 503


def test_an_intact_chain_verified_again_lifts_the_alarm(cage):
    _failed()
    verification_records.record(ok=True, checked=9, head_position=9, first_bad_position=None, reason="")
    assert verification_records.latest().ok
    assert 'data-figure="ledger-broken"' not in _pit_boss_page()


def test_the_alarm_gives_the_time_in_the_casinos_zone_on_the_workstations_too(cage, settings):
    settings.CASINO_TIMEZONE = "Europe/Paris"
    row = _failed()
    client = Client()
    client.force_login(staff_user("audit9", Role.AUDITOR))
    page = client.get("/workstations/audit/").content.decode()
    local = row.verified_at.astimezone(ZoneInfo("Europe/Paris")).strftime("%Y-%m-%d %H:%M %Z")
    assert local.endswith(("CET", "CEST")) and f">{local}</time>" in page
